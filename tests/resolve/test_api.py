"""The public API of issue 3: `loopcfg.resolve_agent(config, agent)` for a loaded config, a path
or a plain dict, returning an immutable `EffectiveSettings` with provenance; and docs/api.md,
whose examples are run here as doctests."""

from __future__ import annotations

import dataclasses
import doctest
from pathlib import Path
from typing import Any

import pytest

import loopcfg
from loopcfg import EffectiveSettings, load_config, resolve_agent
from loopcfg.keys import SETTINGS
from loopcfg.resolve import ConfigError
from loopcfg.settings import Source
from tests.conftest import REPO

CASES = Path(__file__).resolve().parent / "cases"
AGENTS = CASES / "agents" / "openclaw.json5"

CONFIG: dict[str, Any] = {
    "tools": {"loopDetection": {"enabled": True, "historySize": 40, "warningThreshold": 8}},
    "agents": {
        "list": [
            {"id": "Safe Runner", "tools": {"loopDetection": {"criticalThreshold": 12}}},
            {"id": "eager", "tools": {"loopDetection": {"warningThreshold": 25}}},
        ]
    },
}


def test_all_ten_settings_and_both_switches() -> None:
    settings = resolve_agent(CONFIG, "safe-runner")
    assert isinstance(settings, EffectiveSettings)
    assert {s.name: settings.value(s.name) for s in SETTINGS} == {
        "enabled": True,
        "historySize": 40,
        "warningThreshold": 8,
        "criticalThreshold": 12,
        "unknownToolThreshold": 10,
        "globalCircuitBreakerThreshold": 30,
        "detectors.genericRepeat": True,
        "detectors.knownPollNoProgress": True,
        "detectors.pingPong": True,
        "postCompactionGuard.windowSize": 3,
    }
    assert (settings.detectors_active, settings.guard_active) == (True, True)
    assert (settings.agent, settings.found) == ("safe-runner", True)


def test_a_plain_dict_needs_no_file_and_has_no_positions() -> None:
    settings = resolve_agent(CONFIG, "eager")
    assert {name: source.origin for name, source in settings.sources.items()} == {
        "enabled": "global",
        "historySize": "global",
        "warningThreshold": "agent",
        "criticalThreshold": "adjusted",
        "unknownToolThreshold": "default",
        "globalCircuitBreakerThreshold": "default",
        "detectors.genericRepeat": "default",
        "detectors.knownPollNoProgress": "default",
        "detectors.pingPong": "default",
        "postCompactionGuard.windowSize": "default",
    }
    assert all((s.file, s.line, s.column) == (None, None, None) for s in settings.sources.values())
    (adjustment,) = settings.adjustments
    assert (adjustment.setting, adjustment.written, adjustment.effective) == (
        "criticalThreshold",
        20,
        26,
    )
    assert adjustment.to_json() == {
        "setting": "criticalThreshold",
        "written": 20,
        "effective": 26,
        "rule": "criticalThreshold <= warningThreshold: raised to warningThreshold + 1",
    }


def test_loaded_config_path_and_pathlike_agree_and_carry_positions() -> None:
    from_path = resolve_agent(str(AGENTS), "safe-runner")
    assert resolve_agent(AGENTS, "safe-runner") == from_path
    assert resolve_agent(load_config(str(AGENTS)), "safe-runner") == from_path
    assert from_path.sources["warningThreshold"] == Source("agent", str(AGENTS), 17, 13)
    assert from_path.sources["historySize"] == Source("global", str(AGENTS), 6, 7)
    assert from_path.sources["unknownToolThreshold"] == Source("default")


def test_an_adjusted_value_keeps_where_it_was_written() -> None:
    settings = resolve_agent(CASES / "adjusted" / "openclaw.json5", "eager")
    file = str(CASES / "adjusted" / "openclaw.json5")
    assert settings.sources["criticalThreshold"] == Source("adjusted", file, 3, 44)
    assert settings.sources["globalCircuitBreakerThreshold"] == Source("adjusted")
    first, second = settings.adjustments
    assert (first.raised_from, first.written_source) == (
        "warningThreshold",
        Source("global", file, 3, 44),
    )
    assert (second.raised_from, second.written_source) == ("criticalThreshold", Source("default"))


def test_global_view_and_unknown_agent() -> None:
    assert (resolve_agent(CONFIG).agent, resolve_agent(CONFIG).found) == (None, None)
    unknown = resolve_agent(CONFIG, "nobody")
    assert (unknown.agent, unknown.found) == ("nobody", False)
    assert unknown.warning_threshold == 8 and unknown.critical_threshold == 20


def test_immutable_and_hashable() -> None:
    settings = resolve_agent(CONFIG, "safe-runner")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.history_size = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.sources["historySize"] = Source("default")  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.adjustments = ()  # type: ignore[misc]
    assert isinstance(settings.adjustments, tuple)
    again = resolve_agent(CONFIG, "Safe Runner")
    assert again == settings and hash(again) == hash(settings)
    assert len({settings, again}) == 1
    # Resolving never mutates the caller's dict.
    assert CONFIG["agents"]["list"][0]["id"] == "Safe Runner"


def test_invalid_configs_raise_config_error_with_diagnostics(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        resolve_agent({"tools": {"loopDetection": {"enabled": "yes", "histrySize": 3}}})
    assert sorted(d.code for d in raised.value.diagnostics) == ["LC002", "LC003"]
    assert all(d.span is None for d in raised.value.diagnostics)
    with pytest.raises(ConfigError) as missing:
        resolve_agent(tmp_path / "nope.json5")
    assert [d.code for d in missing.value.diagnostics] == ["LC000"]
    with pytest.raises(TypeError, match="cannot resolve a int"):
        resolve_agent(3)  # type: ignore[arg-type]


def test_env_substitutes_variables_in_files(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(
        '{agents: {list: [{id: "${AGENT}", tools: {loopDetection: {enabled: true}}}]}}'
    )
    settings = resolve_agent(config, "night", env={"AGENT": "night"})
    assert settings.found is True and settings.detectors_active
    with pytest.raises(ConfigError):
        resolve_agent(config, "night", env={})


def test_env_substitutes_in_a_dict_only_when_given() -> None:
    config = {"agents": {"list": [{"id": "${AGENT}"}]}}
    assert resolve_agent(config, "night", env={"AGENT": "night"}).found is True
    # Without env, a dict holds final values: "${agent}" is an id like any other.
    assert resolve_agent(config, "night").found is False
    with pytest.raises(ConfigError):
        resolve_agent(config, "night", env={})


def test_exported_from_the_package() -> None:
    assert loopcfg.resolve_agent is resolve_agent
    assert loopcfg.EffectiveSettings is EffectiveSettings


def test_docs_api_md_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = doctest.testfile(
        str(REPO / "docs" / "api.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.attempted >= 10
    assert result.failed == 0
