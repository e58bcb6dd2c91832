"""`loopcfg validate` end to end: lines, summary, JSON shape and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from loopcfg.cli import cli
from tests.conftest import EXAMPLES


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    return result.exit_code, result.output


def test_bundled_example_is_clean_but_warns_without_a_target() -> None:
    """No target (08 §8.3): checked as 2026.5.4 - 2026.7.x, valid, and one LC110 warning."""
    code, output = run(str(EXAMPLES / "openclaw.json5"))
    assert code == 0
    assert [line.split(": ")[1].split()[0] for line in output.splitlines()[:-1]] == ["LC110"]
    assert output.splitlines()[-1] == "Found 0 errors and 1 warning in 1 file."


def test_bundled_examples_for_their_own_release_are_clean() -> None:
    code, output = run(str(EXAMPLES / "openclaw.json5"), "--openclaw", "2026.7.1-2")
    assert (code, output) == (0, "All checks passed (1 file).\n")
    code, output = run(str(EXAMPLES / "openclaw-2026.9.json5"))
    assert (code, output) == (0, "All checks passed (1 file).\n")


def test_errors_are_one_line_each_with_hint_and_summary(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text("{tools: {loopDetection: {\n  warningThreshhold: 3,\n  historySize: 0}}}\n")
    code, output = run(str(config))
    assert code == 1
    assert output.splitlines() == [
        f'{config}:2:3: LC003 error: unknown key "warningThreshhold" in tools.loopDetection '
        '(did you mean "warningThreshold"?)',
        f"{config}:3:3: LC110 warning: no target release given (--openclaw or "
        "meta.lastTouchedVersion); checked as 2026.5.4 – 2026.7.x; OpenClaw 2026.9.6 rejects "
        '"historySize" (retired in 2026.8.1) (name the release: --openclaw VERSION, or '
        "meta.lastTouchedVersion in the config)",
        f"{config}:3:16: LC002 error: historySize in tools.loopDetection must be a positive "
        "integer, got 0 (the smallest value is 1)",
        "Found 2 errors and 1 warning in 1 file.",
    ]


def test_missing_file_exits_2_and_highest_code_wins(tmp_path: Path) -> None:
    code, output = run(str(EXAMPLES / "openclaw.json5"), str(tmp_path / "nope.json5"))
    assert code == 2
    assert f"{tmp_path / 'nope.json5'}: LC000 error: no such file" in output


def test_warnings_fail_only_with_strict(tmp_path: Path) -> None:
    config = tmp_path / "c.json5"
    config.write_text("{tools: {loopDetection: {enabled: true, historySize: 5}}}")
    code, output = run(str(config))
    assert code == 0 and "LC102 warning" in output
    assert run(str(config), "--strict")[0] == 1


def test_json_shape(tmp_path: Path) -> None:
    config = tmp_path / "c.json5"
    config.write_text("{tools: {loopDetection: {historySize: 1.5}}}")
    code, output = run(str(config), "--format", "json")
    document = json.loads(output)
    assert code == 1
    assert document["version"] == 1 and document["summary"]["errors"] == 1
    (entry,) = document["files"]
    assert entry["valid"] is False
    # The other one is LC110: no target release, and historySize is retired in 2026.9.6.
    assert sorted(d["code"] for d in entry["diagnostics"]) == ["LC002", "LC110"]
    (diagnostic,) = [d for d in entry["diagnostics"] if d["code"] == "LC002"]
    assert diagnostic["code"] == "LC002" and diagnostic["line"] == 1
    assert set(diagnostic) == {
        "code",
        "severity",
        "message",
        "path",
        "file",
        "line",
        "column",
        "endLine",
        "endColumn",
        "hint",
        "agent",
        "related",
    }


def test_validate_dir_checks_the_openclaw_configs_in_it(tmp_path: Path) -> None:
    good = "{ tools: { loopDetection: { enabled: true } } }\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "openclaw.json5").write_text(good)
    (tmp_path / "b" / "deep").mkdir(parents=True)
    (tmp_path / "b" / "deep" / "openclaw.yml").write_text("tools: {loopDetection: {x: 1}}\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "openclaw.json").write_text("not read")
    (tmp_path / "settings.json5").write_text("not an OpenClaw config name: not read")
    result = CliRunner().invoke(cli, ["validate", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{tmp_path}/b/deep/openclaw.yml:1:")
    assert lines[-1] == "Found 1 error and 0 warnings in 2 files."


def test_validate_dir_without_configs_is_lc000(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == (
        f"{tmp_path}: LC000 error: is a directory with no OpenClaw config in it "
        "(looked for openclaw.json, openclaw.json5, openclaw.yaml, openclaw.yml)"
    )
