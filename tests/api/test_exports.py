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
