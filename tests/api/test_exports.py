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


def _nested(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_a_dict_nested_deeper_than_a_file_may_is_a_config_error() -> None:
    """As a file nested that deep is refused by its parser (LC001), not RecursionError: a dict
    of 3,000 levels, and one that holds itself."""
    looped: dict[str, object] = {"tools": {}}
    looped["tools"]["again"] = looped  # type: ignore[index]
    for config in (_nested(3000), looped):
        with pytest.raises(loopcfg.ConfigError) as raised:
            loopcfg.resolve_agent(config, "main")
        assert [d.code for d in raised.value.diagnostics] == ["LC001"]
        assert "nesting deeper than 200 levels" in str(raised.value)
        with pytest.raises(loopcfg.ConfigError):
            loopcfg.LoopDetector.from_config(config)
    # The limit is the parser's: 200 levels are a config, 201 are not, either way.
    assert loopcfg.resolve_agent({"x": _nested(198)}).found is None


@pytest.mark.parametrize(("levels", "accepted"), [(200, True), (201, False)])
def test_dicts_and_files_share_the_nesting_limit(levels: int, accepted: bool) -> None:
    from loopcfg.source import parse_text
    from loopcfg.source.errors import SourceError
    from loopcfg.source.nodes import TooDeep, from_python

    text = '{"a":' * (levels - 1) + "{}" + "}" * (levels - 1)
    for build, refusal in (
        (lambda: parse_text(text, "c.json5", "json5"), SourceError),
        (lambda: from_python(_nested(levels - 1)), TooDeep),
    ):
        if accepted:
            build()
        else:
            with pytest.raises(refusal):
                build()
