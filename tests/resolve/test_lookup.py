"""Agent lookup helpers and the config lookup of 05-cli: `$OPENCLAW_CONFIG_PATH`, then
./openclaw.json5, ./openclaw.json, ~/.openclaw/openclaw.json; "did you mean"; `resolve_all`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.resolve import default_config_path, resolve_all, suggest_agents

CONFIG = {
    "agents": {
        "list": [
            {"id": "safe-runner"},
            {"id": "researcher"},
            {"id": "Safe Runner", "tools": {"loopDetection": {"enabled": False}}},
            {"id": "ops"},
        ]
    }
}


def test_lookup_order(tmp_path: Path) -> None:
    home, here = tmp_path / "home", tmp_path / "here"
    (home / ".openclaw").mkdir(parents=True)
    here.mkdir()
    assert default_config_path({}, here, home) is None
    (home / ".openclaw" / "openclaw.json").write_text("{}")
    assert default_config_path({}, here, home) == str(home / ".openclaw" / "openclaw.json")
    (here / "openclaw.json").write_text("{}")
    assert default_config_path({}, here, home) == str(here / "openclaw.json")
    (here / "openclaw.json5").write_text("{}")
    assert default_config_path({}, here, home) == str(here / "openclaw.json5")
    named = {"OPENCLAW_CONFIG_PATH": "/etc/openclaw.json"}
    assert default_config_path(named, here, home) == "/etc/openclaw.json"
    assert default_config_path({"OPENCLAW_CONFIG_PATH": ""}, here, home) == str(
        here / "openclaw.json5"
    )


def test_resolve_without_config_uses_the_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    (tmp_path / "openclaw.json5").write_text("{tools: {loopDetection: {enabled: false}}}")
    result = CliRunner().invoke(cli, ["resolve", "--format", "json"])
    assert result.exit_code == 0
    assert '"file": "openclaw.json5"' in result.stdout
    other = tmp_path / "other.json5"
    other.write_text("{tools: {loopDetection: {enabled: true}}}")
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(other))
    result = CliRunner().invoke(cli, ["resolve", "--format", "json"])
    assert f'"file": "{other}"' in result.stdout


def test_suggestions_are_close_ids_best_first() -> None:
    assert suggest_agents(CONFIG, "saferunner") == ["safe-runner"]
    assert suggest_agents(CONFIG, "Researcher2") == ["researcher"]
    assert suggest_agents(CONFIG, "op") == ["ops"]  # a prefix counts
    assert suggest_agents(CONFIG, "zzzz") == []


def test_resolve_all_in_order_without_ignored_duplicates() -> None:
    results = resolve_all(CONFIG)
    assert [(r.agent, r.found) for r in results] == [
        ("safe-runner", True),
        ("researcher", True),
        ("ops", True),
    ]
    # The first "safe-runner" is the agent: the later enabled: false never applies.
    assert results[0].enabled is None


def test_resolve_with_no_config_anywhere_is_a_one_line_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    result = CliRunner().invoke(cli, ["resolve"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("loopcfg resolve: error: no config found (")
    assert result.stderr.count("\n") == 1
