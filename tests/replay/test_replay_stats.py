"""`replay --stats` (06 §6.3.1): streaks and detector peaks per session and tool, the closest
call to a threshold, and the session names of Decision 8."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from tests.conftest import EXAMPLES

from .helpers import check_golden, jsonl

FILES = ("long-build.jsonl", "stuck-edit.jsonl", "fetch-retry.trace")


def run(*args: str) -> Any:
    result = CliRunner().invoke(cli, ["replay", *args])
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture
def in_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES / "replay")


@pytest.mark.usefixtures("in_examples")
def test_stats_text_golden() -> None:
    result = run(*FILES, "--config", "current.json5", "--stats")
    assert result.exit_code == 0
    check_golden("stats.txt", result.stdout)


@pytest.mark.usefixtures("in_examples")
def test_stats_json_golden_and_shape() -> None:
    result = run(*FILES, "--config", "current.json5", "--stats", "--format", "json")
    assert result.exit_code == 0
    check_golden("stats.json", result.stdout)
    for session in json.loads(result.stdout)["sessions"]:
        for row in session["stats"]:
            assert set(row) == {
                "tool", "maxIdenticalCalls", "maxNoProgress", "maxPingPong", "detectorPeak",
            }  # fmt: skip


@pytest.mark.usefixtures("in_examples")
def test_without_stats_nothing_changes() -> None:
    plain = run(*FILES, "--config", "current.json5", "--format", "json")
    assert "stats" not in json.loads(plain.stdout)["sessions"][0]
    assert "closest:" not in run(*FILES, "--config", "current.json5").stdout


def trace(tmp_path: Path, *entries: Any) -> str:
    path = tmp_path / "t.jsonl"
    path.write_text(jsonl(*entries))
    return str(path)


def stats_of(path: str) -> dict[str, Any]:
    result = run(path, "--stats", "--format", "json")
    (session,) = json.loads(result.stdout)["sessions"]
    return {row["tool"]: row for row in session["stats"]}


def test_identical_calls_below_every_threshold(tmp_path: Path) -> None:
    """Five identical reads with one result: the detectors saw 4 earlier ones at the fifth."""
    path = trace(tmp_path, *[{"tool": "read", "args": {"p": 1}, "result": "same"}] * 5)
    row = stats_of(path)["read"]
    assert (row["maxIdenticalCalls"], row["maxNoProgress"], row["maxPingPong"]) == (4, 4, 0)
    assert row["detectorPeak"] == {
        "generic_repeat": 4,
        "global_circuit_breaker": 4,
        "ping_pong": 0,
        "unknown_tool_repeat": 0,
    }
    text = run(path, "--stats").stdout
    assert "  closest: read no-progress 4 of 20 at call #5\n" in text


def test_progress_keeps_no_progress_low(tmp_path: Path) -> None:
    """Same call, a new result each time: identical calls grow, the no-progress streak not."""
    calls = [{"tool": "exec", "args": {"c": "make"}, "result": f"r{i}"} for i in range(6)]
    row = stats_of(trace(tmp_path, *calls))["exec"]
    assert (row["maxIdenticalCalls"], row["maxNoProgress"]) == (5, 1)


def test_ping_pong_and_poll_peaks(tmp_path: Path) -> None:
    a = {"tool": "read", "args": {"p": "a"}, "result": "x"}
    b = {"tool": "read", "args": {"p": "b"}, "result": "y"}
    poll = {"tool": "process", "args": {"action": "poll", "sessionId": "s"}, "result": "busy"}
    rows = stats_of(trace(tmp_path, a, b, a, b, a, b, poll, poll, poll))
    assert rows["read"]["maxPingPong"] == 6
    assert rows["read"]["detectorPeak"]["ping_pong"] == 6
    assert rows["process"]["detectorPeak"]["known_poll_no_progress"] == 2
    assert "generic_repeat" not in rows["process"]["detectorPeak"]


def test_closest_is_the_highest_share_of_a_threshold(tmp_path: Path) -> None:
    """Ping-pong 6 of 20 (criticalThreshold) beats no-progress 2 of 20: the closest call is
    measured against the thresholds that block."""
    a = {"tool": "read", "args": {"p": "a"}, "result": "x"}
    b = {"tool": "web_fetch", "args": {"u": "b"}, "result": "y"}
    text = run(trace(tmp_path, a, b, a, b, a, b), "--stats").stdout
    assert "  closest: web_fetch ping-pong 6 of 20 at call #6\n" in text


def test_detection_off_counts_nothing(tmp_path: Path) -> None:
    config = tmp_path / "off.json5"
    config.write_text("{tools: {loopDetection: {enabled: false}}}")
    path = trace(tmp_path, *[{"tool": "read", "args": {}, "result": "r"}] * 3)
    result = run(path, "--stats", "--config", str(config))
    assert "  closest: nothing counted\n" in result.stdout
    assert stats_of(path)  # with detection on, the same file is counted
