"""Replay semantics (06 §6.2) with the real engine, through `replay_file` and the CLI."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any, cast

from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.engine.session import Session
from loopcfg.hashing import args_hash
from loopcfg.replay.configs import load_table
from loopcfg.replay.driver import EngineSessions, ReplayOptions, replay_file
from loopcfg.replay.events import Call, Outcome
from loopcfg.replay.runner import replay_events

from .helpers import jsonl

CONFIG = """{
  tools: {loopDetection: {enabled: true}},
  agents: {list: [
    {id: "strict", tools: {loopDetection: {warningThreshold: 3, criticalThreshold: 5}}},
  ]},
}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def options(tmp_path: Path, **changes: Any) -> ReplayOptions:
    config = write(tmp_path, "openclaw.json5", CONFIG)
    table, _notes = load_table(config, changes.pop("agent", None))
    return ReplayOptions(config=config, table=table, **changes)


def same_call(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"tool": "read", "args": {"path": "/a"}, "result": "same", **extra}] * n


def test_config_line_keeps_the_history(tmp_path: Path) -> None:
    """4 identical calls under the global view (warn at 10), then the strict agent (warn at 3,
    block at 5): the 5th call has 4 before it, so it is warned at once and the 6th blocked.
    A fresh session would only warn at its 4th call."""
    trace = [*same_call(4), {"type": "config", "agent": "strict"}, *same_call(3)]
    result = replay_file(write(tmp_path, "t.jsonl", jsonl(*trace)), options(tmp_path))
    assert [(e.call, e.line, e.level, e.count) for e in result.events] == [
        (5, 6, "warning", 4),
        (6, 7, "critical", 5),
        (7, 8, "critical", 5),
    ]


def test_config_line_for_an_unlisted_agent_uses_the_global_block(tmp_path: Path) -> None:
    trace = [{"type": "config", "agent": "nobody"}, *same_call(11)]
    result = replay_file(write(tmp_path, "t.jsonl", jsonl(*trace)), options(tmp_path))
    assert [(e.call, e.level) for e in result.events if e.emitted] == [(11, "warning")]


def test_agent_option_picks_that_agents_settings(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", jsonl(*same_call(6)))
    result = replay_file(path, options(tmp_path, agent="strict"))
    assert [(e.call, e.level) for e in result.events if e.emitted] == [
        (4, "warning"),
        (6, "critical"),
    ]


def test_blocked_call_never_runs_so_its_late_outcome_is_dropped(tmp_path: Path) -> None:
    """With the strict agent the 6th call is blocked. Its outcome line (by id) must not be
    recorded: if it were, the no-progress streak would grow and the breaker count change."""
    calls = [{"tool": "read", "args": {}, "id": f"c{i}"} for i in range(1, 8)]
    outcomes = [
        {"type": "outcome", "tool": "read", "args": {}, "result": "same", "id": f"c{i}"}
        for i in range(1, 8)
    ]
    lines = [line for pair in zip(calls, outcomes, strict=True) for line in pair]
    result = replay_file(
        write(tmp_path, "t.jsonl", jsonl(*lines)), options(tmp_path, agent="strict")
    )
    criticals = [(e.call, e.count) for e in result.events if e.level == "critical"]
    # Blocked calls are not recorded: the count stays at 5 for every later identical call.
    assert criticals == [(6, 5), (7, 5)]
    assert result.sessions[0].orphan_results == 0


def test_outcome_for_an_unknown_call_id_is_an_orphan(tmp_path: Path) -> None:
    trace = jsonl(
        {"tool": "read", "args": {}, "id": "c1"},
        {"type": "outcome", "tool": "read", "args": {}, "result": 1, "id": "c1"},
        {"type": "outcome", "tool": "read", "args": {}, "result": 1, "id": "ghost"},
    )
    result = replay_file(write(tmp_path, "t.jsonl", trace), options(tmp_path))
    assert result.sessions[0].orphan_results == 1


def test_no_run_scope_joins_the_runs_of_a_trace(tmp_path: Path) -> None:
    """Three identical calls in each of three runs: in run scope no run reaches the strict
    agent's warning (3 before the call); without run scope the nine are one streak."""
    trace = [c for run in ("r1", "r2", "r3") for c in same_call(3, run=run)]
    path = write(tmp_path, "t.jsonl", jsonl(*trace))
    scoped = replay_file(path, options(tmp_path, agent="strict"))
    joined = replay_file(path, options(tmp_path, agent="strict", run_scope=False))
    assert not scoped.events
    assert [(e.call, e.level) for e in joined.events if e.emitted] == [
        (4, "warning"),
        (6, "critical"),
        (7, "critical"),
        (8, "critical"),
        (9, "critical"),
    ]


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(cli, ["replay", "--jobs", "1", *args])


def test_invalid_config_is_refused_with_validate_lines(tmp_path: Path) -> None:
    config = write(tmp_path, "bad.json5", "{tools: {loopDetection: {warningThreshold: 'x'}}}\n")
    trace = write(tmp_path, "t.jsonl", jsonl(*same_call(1)))
    result = run_cli(trace, "--config", config)
    assert result.exit_code == 2 and result.stdout == ""
    assert f"{config}:1:" in result.stderr and "LC00" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_agent_and_disabled_detection_are_said(tmp_path: Path) -> None:
    config = write(tmp_path, "off.json5", "{tools: {loopDetection: {}}}\n")
    trace = write(tmp_path, "t.jsonl", jsonl(*same_call(25)))
    result = run_cli(trace, "--config", config, "--agent", "ghost", "--format", "json")
    assert "agent 'ghost' is not in agents.list" in result.stderr
    assert "the detectors are off" in result.stderr
    assert json.loads(result.stdout)["events"] == []


def test_fail_on_with_compare_is_a_usage_error(tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", jsonl(*same_call(1)))
    result = run_cli(trace, "--agent", "a", "--agent", "b", "--fail-on", "warning")
    assert result.exit_code == 2
    assert "loopcfg replay: error: --fail-on judges one config" in result.stderr


def test_input_option_forces_the_reader(tmp_path: Path) -> None:
    """A transcript read as a trace: its header is an unknown trace line type (reported), and
    as that was its only line nothing could be read: exit 2 (05), where the transcript is fine."""
    header = {"type": "session", "version": 3, "id": "s"}
    path = write(tmp_path, "s.jsonl", jsonl(header))
    detected = run_cli(path, "--format", "json")
    forced = run_cli(path, "--format", "json", "--input", "trace")
    assert (detected.exit_code, forced.exit_code) == (0, 2)
    assert 'unknown line type "session"' in forced.stderr
    assert 'unknown line type "session"' not in detected.stderr


def test_resolved_options_cross_process_boundaries(tmp_path: Path) -> None:
    """Worker processes get the resolved settings, never the config file: they must pickle."""
    resolved = options(tmp_path, agent="strict")
    assert resolved.table is not None
    copy = pickle.loads(pickle.dumps(resolved))
    assert copy.table.base.warning_threshold == 3
    assert copy.table.for_agent("Strict").critical_threshold == 5


def test_agent_without_config_is_said_to_change_nothing(tmp_path: Path) -> None:
    trace = write(tmp_path, "t.jsonl", jsonl(*same_call(1)))
    result = run_cli(trace, "--agent", "ops")
    assert result.exit_code == 0 and "--agent ops changes nothing" in result.stderr


class _CountingMemo:
    """The session's argument memo, counting the hashes asked of it."""

    def __init__(self, memo: Any) -> None:
        self.memo, self.asked = memo, 0

    def args_hash(self, tool: str, args: Any) -> str:
        self.asked += 1
        return str(self.memo.args_hash(tool, args))


class _KeptSessions(EngineSessions):
    """The real engine sessions, kept (and their memo counted) for the test to look at."""

    def __init__(self, options: ReplayOptions) -> None:
        super().__init__(options)
        self.made: list[Session] = []

    def session(self, key: str) -> Any:
        engine = super().session(key)
        assert isinstance(engine, Session)
        engine.memo = cast(Any, _CountingMemo(engine.memo))
        self.made.append(engine)
        return engine


def _replayed(call_args: Any, outcome_args: Any) -> Session:
    """One call with id c1 and, on a later line, an outcome for c1 with `outcome_args`."""
    factory = _KeptSessions(ReplayOptions())
    events = [
        Call("f", 1, "s", None, "read", call_args, "c1", None),
        Outcome("f", 2, "s", None, "read", outcome_args, "c1", "text", None, False, False),
    ]
    replay_events("f", events, factory)
    return factory.made[0]


def test_an_outcome_of_its_calls_own_arguments_is_not_hashed_again() -> None:
    args = {"path": "/a"}
    session = _replayed(args, args)
    assert cast(_CountingMemo, session.memo).asked == 1  # before_call's, reused by the outcome
    _size, records = session.history.snapshot()
    assert [(r[1], r[4] is not None) for r in records] == [(args_hash("read", args), True)]


def test_an_outcome_with_other_arguments_is_hashed_from_its_own() -> None:
    # Same call id, different arguments: OpenClaw matches by argsHash, so the call stays
    # pending and the outcome is a record of its own (no hash carried over from the call).
    session = _replayed({"path": "/a"}, {"path": "/b"})
    assert cast(_CountingMemo, session.memo).asked == 2
    _size, records = session.history.snapshot()
    assert [(r[1], r[4] is not None) for r in records] == [
        (args_hash("read", {"path": "/a"}), False),
        (args_hash("read", {"path": "/b"}), True),
    ]
    # Equal arguments in another object: hashed again, and the outcome joins its call.
    session = _replayed({"path": "/a"}, {"path": "/a"})
    assert cast(_CountingMemo, session.memo).asked == 2
    _size, records = session.history.snapshot()
    assert [(r[1], r[4] is not None) for r in records] == [
        (args_hash("read", {"path": "/a"}), True)
    ]
