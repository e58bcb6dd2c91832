"""The public names of `loopcfg` resolve lazily and to the objects their modules define."""

from __future__ import annotations

import importlib

import pytest

import loopcfg


@pytest.mark.parametrize("name", sorted(loopcfg._EXPORTS))
def test_every_export_is_its_module_object(name: str) -> None:
    module = importlib.import_module(loopcfg._EXPORTS[name])
    assert getattr(loopcfg, name) is getattr(module, name)


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        loopcfg.nope  # noqa: B018


def test_resolve_agent_is_public() -> None:
    settings = loopcfg.resolve_agent({"tools": {"loopDetection": {"enabled": True}}})
    assert settings.detectors_active
    assert loopcfg.normalize_agent_id("Safe Runner") == "safe-runner"


def test_config_error_is_public() -> None:
    """`resolve_agent` raises ConfigError: callers must be able to catch it by its public name."""
    assert "ConfigError" in loopcfg.__all__
    with pytest.raises(loopcfg.ConfigError) as raised:
        loopcfg.resolve_agent({"tools": {"loopDetection": {"historySize": 0}}})
    assert raised.value.diagnostics[0].code == "LC002"
