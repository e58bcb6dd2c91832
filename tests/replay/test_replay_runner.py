"""The runner's semantics (06 §6.2) against a scripted engine double, and the renderers."""

from __future__ import annotations

from loopcfg.render.replay import render_json, render_text
from loopcfg.replay.runner import FileReplay, replay_events
from loopcfg.replay.trace import read_trace
from loopcfg.replay.transcript import read_transcript

from .helpers import DATA, ScriptedSessions, check_golden, jsonl, lines_of


def replay_trace(
    text: str, strict: bool = False, keep_args: bool = False
) -> tuple[FileReplay, ScriptedSessions]:
    sessions = ScriptedSessions()
    events = read_trace("t.jsonl", iter(lines_of(text)))
    result = replay_events("t.jsonl", events, sessions, strict=strict, keep_args=keep_args)
    return result, sessions


def test_blocked_call_is_not_recorded_and_its_outcome_dropped() -> None:
    result, sessions = replay_trace(
        jsonl(
            {"tool": "block", "args": {}, "result": "r", "id": "b1"},
            {"type": "outcome", "tool": "block", "args": {}, "result": "late", "id": "b1"},
            {"type": "outcome", "tool": "block", "args": {}, "result": "again", "id": "b1"},
            {"tool": "read", "args": {}, "result": "r"},
        )
    )
    log = sessions.sessions["default"].log
    assert [entry[0] for entry in log] == ["check", "check", "call", "outcome"]
    stats = result.sessions[0]
    assert (stats.calls, stats.blocks, stats.first_block_line, stats.first_block_call) == (
        2,
        1,
        1,
        1,
    )


def test_late_outcome_joins_its_calls_run() -> None:
    _result, sessions = replay_trace(
        jsonl(
            {"tool": "web", "args": {}, "id": "c1", "run": "r1"},
            {"type": "outcome", "tool": "web", "args": {}, "result": "x", "id": "c1"},
        )
    )
    log = sessions.sessions["default"].log
    assert log[-1] == ("outcome", "web", "r1", "c1", "x", None)


def test_abort_skips_the_rest_of_that_run_only() -> None:
    result, _ = replay_trace(
        jsonl(
            {"type": "compaction", "run": "r1"},
            {"tool": "gateway", "args": {}, "result": "ABORT", "run": "r1"},
            {"tool": "read", "args": {}, "result": "x", "run": "r1"},
            {"tool": "read", "args": {}, "result": "x", "run": "r2"},
        )
    )
    stats = result.sessions[0]
    assert (stats.calls, stats.skipped, stats.aborted) == (2, 1, True)
    assert [(a.line, a.run, a.tool, a.count, a.code) for a in result.aborts] == [
        (2, "r1", "gateway", 3, "compaction_loop_persisted")
    ]


def test_abort_without_run_ids_skips_the_whole_session() -> None:
    result, _ = replay_trace(
        jsonl(
            {"type": "compaction"},
            {"tool": "gateway", "args": {}, "result": "ABORT"},
            {"tool": "read", "args": {}, "run": "later"},
            {"tool": "read", "args": {}, "session": "other"},
        )
    )
    by_name = {s.session: s for s in result.sessions}
    assert (by_name["default"].calls, by_name["default"].skipped) == (1, 1)
    assert (by_name["other"].calls, by_name["other"].skipped) == (1, 0)


def test_suppressed_warnings_are_listed_but_not_counted() -> None:
    result, _ = replay_trace(
        jsonl({"tool": "warn", "args": {}, "result": 1}, {"tool": "warnq", "args": {}, "result": 1})
    )
    assert [e.emitted for e in result.events] == [True, False]
    assert result.sessions[0].warnings == 1


def test_config_switch_reconfigures_the_same_session() -> None:
    _result, sessions = replay_trace(
        jsonl(
            {"tool": "read", "args": {}},
            {"type": "config", "agent": "safe"},
            {"tool": "read", "args": {}},
            {"type": "config", "agent": "other", "session": "s2"},
        )
    )
    # One engine session per trace session: the switch keeps its history (06 §6.1).
    assert set(sessions.sessions) == {"default", "s2"}
    log = [entry[:2] for entry in sessions.sessions["default"].log]
    assert log == [
        ("check", "read"),
        ("call", "read"),
        ("reconfigure", "settings of safe"),
        ("check", "read"),
        ("call", "read"),
    ]
    assert sessions.sessions["s2"].log == [("reconfigure", "settings of other")]


def test_strict_stops_at_the_first_malformed_line() -> None:
    text = jsonl({"tool": "read", "args": {}}) + "oops\n" + jsonl({"tool": "read", "args": {}})
    lenient, _ = replay_trace(text)
    strict, _ = replay_trace(text, strict=True)
    assert (lenient.sessions[0].calls, len(lenient.problems), lenient.stopped) == (2, 1, False)
    assert (strict.sessions[0].calls, len(strict.problems), strict.stopped) == (1, 1, True)


def replay_v3() -> tuple[FileReplay, ScriptedSessions]:
    sessions = ScriptedSessions()
    path = DATA / "every-shape.v3.jsonl"
    with path.open("rb") as stream:
        events = read_transcript(path.name, enumerate(stream, start=1))
        return replay_events(path.name, events, sessions), sessions


def test_transcript_orphans_veto_and_compaction_reach_the_engine() -> None:
    result, sessions = replay_v3()
    log = sessions.sessions["synthetic-v3"].log
    assert (
        "outcome",
        "exec",
        "run-1",
        "call_zz",
        {"content": [{"type": "text", "text": "?"}]},
        None,
    ) in log
    assert ("compaction", "run-2") in log
    assert result.sessions[0].orphan_results == 1


def test_transcript_veto_forgets_the_pending_call() -> None:
    _result, sessions = replay_v3()
    log = sessions.sessions["synthetic-v3"].log
    # OpenClaw vetoed call_3: its pending record goes, and the veto is not an outcome.
    assert ("forget", "exec", "run-2", "call_3") in log
    assert not [e for e in log if e[0] == "outcome" and e[3] == "call_3"]


def golden_trace(keep_args: bool = False) -> FileReplay:
    result, _ = replay_trace(
        jsonl(
            {"tool": "read", "args": {"path": "/secret"}, "result": 1, "run": "r1"},
            {"tool": "warn", "args": {"path": "/secret"}, "result": 1, "run": "r1"},
            {"tool": "warnq", "args": {}, "result": 1, "run": "r1"},
            {"tool": "block", "args": {}, "result": 1, "run": "r1"},
            {"type": "compaction", "run": "r1"},
            {"tool": "gateway", "args": {}, "result": "ABORT", "run": "r1"},
            {"tool": "read", "args": {}, "result": 1, "run": "r1"},
            {"tool": "read", "args": {}, "session": "quiet"},
        ),
        keep_args=keep_args,
    )
    return result


def test_json_output_golden() -> None:
    check_golden("scripted.json", render_json([golden_trace()]))


def test_text_output_golden_never_shows_arguments() -> None:
    text = render_text([golden_trace()])
    assert "/secret" not in text
    check_golden("scripted.txt", text)


def test_show_args_prints_arguments() -> None:
    assert "/secret" in render_text([golden_trace(keep_args=True)], show_args=True)
    assert "/secret" in render_json([golden_trace(keep_args=True)], show_args=True)
    assert "/secret" not in render_json([golden_trace(keep_args=True)])


def test_arguments_are_not_even_held_without_show_args() -> None:
    assert all(event.args is None for event in golden_trace().events)
    assert any(event.args is not None for event in golden_trace(keep_args=True).events)


def test_real_run_id_named_after_the_runs_calls_is_reported_for_them() -> None:
    """openclaw:prompt-error names the run in progress after its calls (07 §7.3)."""
    call = {"type": "toolCall", "id": "w1", "name": "warn", "arguments": {}}
    error = {"runId": "abc-123"}
    text = jsonl(
        {"type": "session", "version": 3, "id": "s"},
        {"type": "message", "id": "e1", "message": {"role": "user", "content": "go"}},
        {"type": "message", "id": "e2", "message": {"role": "assistant", "content": [call]}},
        {"type": "custom", "id": "e3", "customType": "openclaw:prompt-error", "data": error},
        {"type": "message", "id": "e4", "message": {"role": "user", "content": "again"}},
        {"type": "message", "id": "e5", "message": {"role": "assistant", "content": [call]}},
    )
    result = replay_events(
        "s.jsonl", read_transcript("s.jsonl", lines_of(text)), ScriptedSessions()
    )
    assert [(e.line, e.run, e.run_id) for e in result.events] == [
        (3, "run-1", "abc-123"),
        (6, "run-2", None),
    ]
    text_output = render_text([result])
    assert "[run-1 = abc-123]" in text_output and "[run-2]" in text_output
    assert '"runId": "abc-123"' in render_json([result])


def test_abort_without_run_says_the_session_is_skipped() -> None:
    result, _ = replay_trace(
        jsonl({"type": "compaction"}, {"tool": "gateway", "args": {}, "result": "ABORT"})
    )
    assert "(compaction_loop_persisted); the rest of the session is skipped" in render_text(
        [result]
    )


def test_summary_rows_name_each_session_with_its_file() -> None:
    """Decision 8: `<file>::<session>`, so two files' "default" sessions never look alike."""
    one, _ = replay_trace(jsonl({"tool": "read", "args": {}}))
    other = replay_events(
        "u.jsonl", read_trace("u.jsonl", iter(lines_of(jsonl({"tool": "a"})))), ScriptedSessions()
    )
    rows = render_text([one, other]).splitlines()[-3:-1]
    assert [row.split("  ")[0] for row in rows] == ["t.jsonl::default", "u.jsonl::default"]
