"""The replay command: exit codes (06 §6.3), one-line errors, folder walking, --compare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.replay import driver
from loopcfg.replay.parallel import collect_inputs

from .helpers import ScriptedSessions, jsonl


class FakeEngineSessions(ScriptedSessions):
    """Stands in for the engine (scripted verdicts, see helpers.ScriptedSession)."""

    def __init__(self, options: driver.ReplayOptions) -> None:
        super().__init__()
        self.options = options


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "EngineSessions", FakeEngineSessions)


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["replay", "--jobs", "1", *args])


def write(tmp_path: Path, name: str, *lines: Any) -> str:
    path = tmp_path / name
    path.write_text(jsonl(*lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("tool", "fail_on", "code"),
    [
        ("warn", None, 0),
        ("warn", "warning", 1),
        ("warn", "critical", 0),
        ("warnq", "warning", 0),
        ("block", "critical", 1),
        ("block", "warning", 1),
        ("block", "abort", 0),
    ],
)
def test_fail_on(scripted: None, tmp_path: Path, tool: str, fail_on: str | None, code: int) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": tool, "args": {}, "result": 1})
    options = ["--fail-on", fail_on] if fail_on else []
    assert run(trace, *options).exit_code == code


def test_fail_on_abort(scripted: None, tmp_path: Path) -> None:
    trace = write(
        tmp_path, "t.jsonl", {"type": "compaction"}, {"tool": "g", "args": {}, "result": "ABORT"}
    )
    for fail_on in ("abort", "critical", "warning"):
        assert run(trace, "--fail-on", fail_on).exit_code == 1


def test_defaults_are_announced_on_stderr(scripted: None, tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": "read", "args": {}})
    result = run(trace)
    assert "no --config" in result.stderr and "enabled: true" in result.stderr
    assert "no --config" not in result.stdout


def test_json_output_is_versioned(scripted: None, tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": "read", "args": {}})
    document = json.loads(run(trace, "--format", "json").stdout)
    assert document["version"] == 1 and document["sessions"][0]["calls"] == 1


def test_unreadable_input_exits_2_with_one_line(scripted: None, tmp_path: Path) -> None:
    result = run(str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2
    assert "missing.jsonl: LC000 error: cannot read" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stdout == ""  # no summary table of zero sessions next to the error


@pytest.mark.parametrize("options", [(), ("--format", "json"), ("--agent", "a", "--agent", "b")])
def test_no_output_when_no_session_could_be_read(
    scripted: None, tmp_path: Path, options: tuple[str, ...]
) -> None:
    result = run(str(tmp_path / "missing.jsonl"), str(tmp_path / "gone.jsonl"), *options)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("LC000 error: cannot read") == 2


def test_a_table_when_some_session_could_be_read(scripted: None, tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": "read", "args": {}})
    result = run(trace, str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2 and "total (1 session" in result.stdout
    assert "missing.jsonl: LC000 error: cannot read" in result.stderr


def test_missing_config_exits_2(tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": "read", "args": {}})
    result = run(trace, "--config", str(tmp_path / "nope.json5"))
    assert result.exit_code == 2 and f"{tmp_path}/nope.json5: LC000 error: no such file" in (
        result.stderr
    )


@pytest.mark.parametrize(("name", "reason"), [(".", "is a directory"), ("/dev/zero", "larger")])
def test_unusable_config_says_why_as_validate_does(tmp_path: Path, name: str, reason: str) -> None:
    # A folder or a device was reported as "no such file" by a check of its own.
    trace = write(tmp_path, "t.jsonl", {"tool": "read", "args": {}})
    for option in ("--config", "--compare"):
        args = ("--config", name) if option == "--config" else ("--compare", name)
        result = run(trace, *args)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.splitlines()[-1].startswith(f"{name}: LC000 error:")
        assert reason in result.stderr and "no such file" not in result.stderr


def test_malformed_line_reported_and_strict_exits_2(scripted: None, tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"tool": "a", "args": {}}\nbroken\n', encoding="utf-8")
    lenient = run(str(trace))
    assert lenient.exit_code == 0 and f"{trace}:2:1: LC001 error: not a JSON line" in lenient.stderr
    assert run(str(trace), "--strict").exit_code == 2


def test_branch_active_refuses_stdin(scripted: None) -> None:
    result = CliRunner().invoke(
        cli, ["replay", "-", "--branch", "active"], input='{"type":"session","id":"s"}\n'
    )
    assert result.exit_code == 2 and "cannot read stdin" in result.stderr


def test_folder_walk_skips_backups_and_trajectories(tmp_path: Path) -> None:
    for name in ("b.jsonl", "a.jsonl", "a.jsonl.bak-1", "x.bak-2.jsonl", "a.trajectory.jsonl"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.jsonl").write_text("", encoding="utf-8")
    found = [Path(p).relative_to(tmp_path).as_posix() for p in collect_inputs([str(tmp_path)])]
    assert found == ["a.jsonl", "b.jsonl", "sub/c.jsonl"]
    with_bak = collect_inputs([str(tmp_path)], glob="*", include_bak=True)
    # Sidecars are never sessions, even when asked for backups.
    assert len(with_bak) == 5


def test_compare_two_agents(scripted: None, tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": "block", "args": {}})
    result = run(trace, "--agent", "a", "--agent", "b")
    assert result.exit_code == 0
    assert "comparing a = defaults --agent a with b = defaults --agent b" in result.stdout
    assert "no difference with defaults --agent b in 1 session" in result.stdout


def test_too_many_agents_is_a_usage_error(scripted: None, tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", {"tool": "read", "args": {}})
    assert run(trace, "--agent", "a", "--agent", "b", "--agent", "c").exit_code == 2
