"""The target release on the command line (08 §8.3, 05): `--openclaw`, `meta.lastTouchedVersion`,
none; `loopcfg --version`; config discovery (README Decision 6) with `--profile` and
`--verbose`; the issue's "done when" on the bundled example."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from loopcfg.cli import cli
from loopcfg.releases import NEWEST
from tests.conftest import EXAMPLES

CLEAN_ENV: dict[str, str | None] = {
    "NO_COLOR": None,
    "OPENCLAW_CONFIG_PATH": None,
    "OPENCLAW_STATE_DIR": None,
    "OPENCLAW_HOME": None,
}
KNOBS = (
    "historySize",
    "warningThreshold",
    "criticalThreshold",
    "globalCircuitBreakerThreshold",
    "detectors.genericRepeat",
    "detectors.knownPollNoProgress",
    "detectors.pingPong",
)


def invoke(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env={**CLEAN_ENV, **(env or {})})


def _lc009_keys(output: str) -> list[str]:
    return [line.split('"')[1] for line in output.splitlines() if " LC009 error: " in line]


def test_done_when_option_names_each_knob_with_its_retirement_and_builtin_value() -> None:
    result = invoke("validate", "--openclaw", "2026.9.6", str(EXAMPLES / "openclaw.json5"))
    assert result.exit_code == 1
    keys = _lc009_keys(result.stdout)
    assert set(keys) >= set(KNOBS)
    assert (
        '"historySize" is not accepted by OpenClaw 2026.9.6: retired in 2026.8.1; "openclaw '
        'doctor --fix" removes it and the built-in value 30 applies'
    ) in result.stdout


def test_done_when_meta_last_touched_version_does_the_same(tmp_path: Path) -> None:
    text = (EXAMPLES / "openclaw.json5").read_text(encoding="utf-8")
    stamped = text.replace(
        "{\n  $schema", '{\n  meta: { lastTouchedVersion: "2026.9.6" },\n  $schema'
    )
    assert stamped != text
    config = tmp_path / "openclaw.json5"
    config.write_text(stamped, encoding="utf-8")
    result = invoke("validate", str(config))
    assert result.exit_code == 1
    assert set(_lc009_keys(result.stdout)) >= set(KNOBS)


def test_done_when_no_target_exits_0_with_one_lc110() -> None:
    result = invoke("validate", str(EXAMPLES / "openclaw.json5"))
    assert result.exit_code == 0
    assert [line for line in result.stdout.splitlines() if " LC110 " in line] != []
    assert result.stdout.count(" LC110 ") == 1
    assert "checked as 2026.5.4 – 2026.7.x" in result.stdout


def test_the_option_wins_over_meta_and_latest_is_the_newest(tmp_path: Path) -> None:
    config = tmp_path / "c.json5"
    config.write_text(
        '{meta: {lastTouchedVersion: "2026.9.6"}, tools: {loopDetection: {historySize: 9}}}'
    )
    assert invoke("validate", str(config)).exit_code == 1
    older = invoke("validate", str(config), "--openclaw", "2026.7.35", "--verbose")
    assert older.exit_code == 0
    assert "LC203 info: target release: OpenClaw 2026.7.35 (from --openclaw)" in older.stdout
    latest = invoke("validate", str(config), "--openclaw", "latest", "--verbose")
    assert f"OpenClaw {NEWEST} (from --openclaw)" in latest.stdout


def test_an_unknown_target_is_checked_as_the_full_knob_line(tmp_path: Path) -> None:
    config = tmp_path / "c.json5"
    config.write_text("{tools: {loopDetection: {enabled: true, historySize: 40}}}")
    result = invoke("validate", str(config), "--openclaw", "2026.10.4")
    assert result.exit_code == 0
    assert (
        "LC110 warning: target 2026.10.4 is not in loopcfg's release table (newest known: "
        f"{NEWEST}); checked as 2026.5.4 – 2026.7.x; OpenClaw {NEWEST} rejects "
        '"historySize" (retired in 2026.8.1)'
    ) in result.stdout
    nothing = tmp_path / "d.json5"
    nothing.write_text("{tools: {loopDetection: {enabled: true}}}")
    quiet = invoke("validate", str(nothing), "--verbose")
    assert " LC110 " not in quiet.stdout and " LC203 info: target release: none" in quiet.stdout


def test_version_names_the_newest_known_release() -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert f"OpenClaw releases up to {NEWEST}" in result.stdout


def test_missing_env_is_a_warning_where_the_target_only_warns(tmp_path: Path) -> None:
    config = tmp_path / "c.json5"
    config.write_text('{agents: {list: [{id: "${AID}"}]}}')
    refused = invoke("validate", str(config), "--openclaw", "2026.5.4", env={"AID": None})
    assert refused.exit_code == 1 and " LC006 error: " in refused.stdout
    warned = invoke("validate", str(config), "--openclaw", "2026.7.1-2", env={"AID": None})
    assert warned.exit_code == 0
    assert (
        'LC112 warning: agents.list[0].id: Missing env var "AID" - feature using this value '
        "will be unavailable"
    ) in warned.stdout


# -- config discovery (README Decision 6) --


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    return home


def test_discovery_reads_the_state_directory_and_names_it_with_verbose(home: Path) -> None:
    found = _write(home / ".openclaw" / "openclaw.json", '{"tools": {"loopDetection": {}}}')
    result = invoke("validate", "--verbose", env={"HOME": str(home)})
    assert result.exit_code == 0, result.output
    assert f"loopcfg validate: using {found}" in result.stderr


def test_discovery_with_a_profile_and_an_explicit_state_dir(home: Path, tmp_path: Path) -> None:
    profiled = _write(home / ".openclaw-work" / "openclaw.json", "{}")
    result = invoke("validate", "--profile", "work", "--verbose", env={"HOME": str(home)})
    assert f"using {profiled}" in result.stderr
    state = _write(tmp_path / "state" / "openclaw.json", "{}")
    env = {"HOME": str(home), "OPENCLAW_STATE_DIR": str(state.parent)}
    pinned = invoke("validate", "--profile", "work", "--verbose", env=env)
    assert f"using {state}" in pinned.stderr  # --profile never overrides the variable
    local = _write(Path("openclaw.json5"), "{}")
    assert f"using {local}" in invoke("validate", "--verbose", env=env).stderr


def test_discovery_with_nothing_found_is_a_usage_error(home: Path) -> None:
    result = invoke("validate", env={"HOME": str(home)})
    assert result.exit_code == 2
    assert result.stderr.startswith("loopcfg validate: error: no config file named and none found")
    bad = invoke("validate", "--profile", "../x", env={"HOME": str(home)})
    assert bad.exit_code == 2 and "invalid --profile" in bad.stderr


# -- resolve FILE, --openclaw, agents.entries --


def test_resolve_takes_file_or_config_not_both() -> None:
    example = str(EXAMPLES / "openclaw-2026.9.json5")
    positional = invoke("resolve", example, "--all", "--format", "json")
    named = invoke("resolve", "--config", example, "--all", "--format", "json")
    assert positional.exit_code == named.exit_code == 0
    assert positional.stdout == named.stdout
    both = invoke("resolve", example, "--config", example)
    assert both.exit_code == 2 and "not both" in both.stderr


def test_resolve_reads_agents_entries_and_shows_builtin_values() -> None:
    example = str(EXAMPLES / "openclaw-2026.9.json5")
    result = invoke("resolve", example, "--agent", "replay-bot", "--explain")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[1:3] for line in result.stdout.splitlines()[3:13]}
    assert rows["enabled"] == ["false", "agent"]
    assert rows["historySize"] == ["30", "builtin"]
    assert rows["postCompactionGuard.windowSize"] == ["3", "builtin"]


def test_resolve_refuses_what_the_target_refuses() -> None:
    example = str(EXAMPLES / "openclaw.json5")
    assert invoke("resolve", example).exit_code == 0
    refused = invoke("resolve", example, "--openclaw", "2026.9.6")
    assert refused.exit_code == 1 and " LC009 error: " in refused.stderr
