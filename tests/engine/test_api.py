"""The engine's public API as issue 4 names it: constructors, sessions, events, logs, limits."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from loopcfg import CompactionLoopPersisted, EffectiveSettings, LoopBlocked, LoopDetector
from loopcfg.engine import LoopEvent, Verdict
from loopcfg.engine.session import MAX_GUARDS, MAX_WARNING_KEYS
from loopcfg.hashing import args_hash, result_hash

CONFIG = """// a whole OpenClaw config
{
  tools: { loopDetection: { enabled: true, warningThreshold: 4, criticalThreshold: 8 } },
  agents: {
    list: [
      { id: "main" },
      { id: "safe-runner", tools: { loopDetection: { warningThreshold: 2, historySize: 12 } } },
    ],
  },
}
"""
WHOLE = {
    "tools": {"loopDetection": {"enabled": True, "warningThreshold": 4, "criticalThreshold": 8}},
    "agents": {
        "list": [
            {"id": "main"},
            {"id": "safe-runner", "tools": {"loopDetection": {"warningThreshold": 2}}},
        ]
    },
}


def repeat(session: Any, n: int, tool: str = "read", run_id: str | None = None) -> list[Verdict]:
    """The host loop of 04 §4.1 with one identical call and result, stopping at a block."""
    verdicts = []
    for _ in range(n):
        verdict = session.check(tool, {"p": 1}, run_id=run_id)
        verdicts.append(verdict)
        if verdict.level == "critical":
            break
        session.record_call(tool, {"p": 1}, run_id=run_id)
        session.record_outcome(tool, {"p": 1}, result={"details": {"same": 1}}, run_id=run_id)
    return verdicts


def first(verdicts: list[Verdict], level: str) -> int:
    return next(i for i, v in enumerate(verdicts) if v.level == level)


# -- constructors --------------------------------------------------------------------------------


def test_from_config_file_resolves_the_agent(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json5"
    path.write_text(CONFIG, encoding="utf-8")
    detector = LoopDetector.from_config(path, agent="Safe Runner")  # ids are normalised
    s = detector.settings
    assert (s.agent, s.found, s.warning_threshold, s.critical_threshold) == (
        "safe-runner", True, 2, 8,
    )  # fmt: skip
    assert s.history_size == 12
    verdicts = repeat(detector.session("k"), 20)
    assert (first(verdicts, "warning"), first(verdicts, "critical")) == (2, 8)
    assert LoopDetector.from_config(str(path)).settings.warning_threshold == 4


def test_from_config_dict_and_unknown_agent() -> None:
    assert LoopDetector.from_config(WHOLE, agent="safe-runner").settings.warning_threshold == 2
    missing = LoopDetector.from_config(WHOLE, agent="nobody").settings
    assert (missing.found, missing.warning_threshold) == (False, 4)


def test_from_config_passes_the_host_options() -> None:
    detector = LoopDetector.from_config(
        WHOLE, max_sessions=2, send_tools=["telegram"], poll_tools=["wait"]
    )
    assert detector.max_sessions == 2
    assert detector.hooks.send_tools == {"telegram"}
    assert detector.hooks.poll_tools == {"wait"}


def test_plain_block_settings_and_default() -> None:
    block = LoopDetector({"enabled": True, "warningThreshold": 3, "criticalThreshold": 3})
    assert (block.settings.warning_threshold, block.settings.critical_threshold) == (3, 4)
    assert isinstance(block.settings, EffectiveSettings)
    assert LoopDetector(block.settings).settings is block.settings
    assert {v.level for v in repeat(LoopDetector().session("k"), 40)} == {"none"}


# -- sessions, events, logs ----------------------------------------------------------------------


def test_subscribe_receives_emitted_verdicts_until_unsubscribed() -> None:
    detector = LoopDetector({"enabled": True, "warningThreshold": 2, "criticalThreshold": 5})
    events: list[LoopEvent] = []
    unsubscribe = detector.subscribe(events.append)
    verdicts = repeat(detector.session("s1"), 10, run_id=" r1 ")
    h = args_hash("read", {"p": 1})
    assert [(e.level, e.count, e.call_index) for e in events] == [
        ("warning", 2, 3), ("warning", 4, 5), ("critical", 5, 6),
    ]  # fmt: skip
    warning = events[0]
    assert (warning.detector, warning.tool, warning.run_id, warning.session) == (
        "generic_repeat", "read", "r1", "s1",
    )  # fmt: skip
    assert warning.key == f"generic:read:{h}" == verdicts[2].warning_key
    assert warning.message == verdicts[2].message
    assert not verdicts[3].emitted and verdicts[3].level == "warning"
    unsubscribe()
    repeat(detector.session("s2"), 10)
    assert len(events) == 3


def test_engine_log_lines(caplog: pytest.LogCaptureFixture) -> None:
    detector = LoopDetector({"enabled": True, "warningThreshold": 2, "criticalThreshold": 3})
    caplog.set_level(logging.INFO, logger="loopcfg.engine")
    repeat(detector.session("s"), 5, run_id="r")
    records = [r for r in caplog.records if r.name == "loopcfg.engine"]
    assert [r.levelno for r in records] == [logging.WARNING, logging.ERROR]
    assert records[0].getMessage() == (
        "warning generic_repeat tool=read count=2 session=s run=r: WARNING: You have called "
        "read 2 times with identical arguments. If this is not making progress, stop retrying "
        "and report the task as failed."
    )
    assert (
        records[1]
        .getMessage()
        .startswith(
            "critical generic_repeat tool=read count=3 session=s run=r: CRITICAL: Called read with "
            "identical arguments and identical outcomes 3 times."
        )
    )


def test_suppression_keys_are_per_run_and_capped() -> None:
    detector = LoopDetector({"enabled": True, "warningThreshold": 1, "criticalThreshold": 50})
    session = detector.session("s")

    def warn(args: Any, run_id: str | None = None) -> Verdict:
        session.record_call("t", args, run_id=run_id)
        return session.check("t", args, run_id=run_id)

    assert warn({"a": 0}, "r1").emitted and warn({"a": 0}, "r2").emitted
    key = warn({"a": 0}, "r1").warning_key
    assert key == f"generic:t:{args_hash('t', {'a': 0})}"  # the unprefixed OpenClaw key
    assert set(session.warning_buckets) == {f"r1:{key}", f"r2:{key}"}
    # count 2 // warningThreshold 1 = bucket 2 > 1: emitted again (bucket = warningThreshold)
    assert session.warning_buckets[f"r1:{key}"] == 2
    for i in range(1, MAX_WARNING_KEYS):
        assert warn({"a": i}).emitted
    assert len(session.warning_buckets) == MAX_WARNING_KEYS
    assert f"r1:{key}" not in session.warning_buckets  # the oldest key went first


def test_close_and_lru_cap() -> None:
    detector = LoopDetector({"enabled": True, "historySize": 5}, max_sessions=2)
    a = detector.session("a")
    a.record_call("t", {})
    detector.session("b")
    assert detector.session("a") is a  # touching "a" makes "b" the least recently used
    detector.session("c")
    assert "b" not in detector and "a" in detector and len(detector) == 2
    detector.close("a")
    assert "a" not in detector
    assert len(detector.session("a").history) == 0  # a new session, fresh history
    detector.close("never-opened")  # closing an unknown key is not an error


def test_lock_per_session_and_threads_on_one_session() -> None:
    detector = LoopDetector({"enabled": True, "historySize": 40})
    assert detector.session("x").lock is not detector.session("y").lock
    session = detector.session("shared")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(300):
                args = {"w": worker, "i": i % 4}
                run_id = f"run-{worker % 2}"
                if session.check("t", args, run_id=run_id).level == "critical":
                    continue
                session.record_call("t", args, run_id=run_id, call_id=f"{worker}-{i}")
                session.record_outcome(
                    "t", args, result={"i": i}, run_id=run_id, call_id=f"{worker}-{i}"
                )
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    history = session.history
    assert len(history) == 40 == sum(run.count for run in history.runs.values())
    assert all(record.result_hash is not None for record in history)  # every outcome attached
    assert session.calls == 6 * 300


# -- host-declared tools -------------------------------------------------------------------------


def sends(detector: LoopDetector, tool: str, n: int) -> list[Verdict]:
    session = detector.session("k")
    verdicts = []
    for i in range(n):
        verdict = session.check(tool, {"text": "hi"})
        verdicts.append(verdict)
        if verdict.level == "critical":
            break
        session.record_call(tool, {"text": "hi"})
        result = {"details": {"ok": True, "messageId": f"m{i}"}}
        session.record_outcome(tool, {"text": "hi"}, result=result)
    return verdicts


def test_extra_send_tools_ignore_volatile_ids() -> None:
    block = {"enabled": True, "warningThreshold": 2, "criticalThreshold": 4}
    declared = sends(LoopDetector(block, send_tools=["telegram"]), "telegram", 10)
    assert (declared[-1].level, declared[-1].detector, len(declared)) == (
        "critical", "generic_repeat", 5,
    )  # fmt: skip
    plain = sends(LoopDetector(block), "telegram", 10)  # every messageId differs: progress
    assert {v.level for v in plain} == {"none", "warning"}
    assert len(plain) == 10


def test_extra_poll_tools_use_the_poll_detector() -> None:
    block = {"enabled": True, "warningThreshold": 2, "criticalThreshold": 4}
    verdicts = repeat(LoopDetector(block, poll_tools=["wait"]).session("k"), 10, tool="wait")
    assert [(v.level, v.detector) for v in verdicts[2:]] == [
        ("warning", "known_poll_no_progress"),
        ("warning", "known_poll_no_progress"),
        ("critical", "known_poll_no_progress"),
    ]
    assert verdicts[-1].message.startswith("CRITICAL: Called wait with identical arguments and")


# -- the context manager, blocking, the guard ----------------------------------------------------


def test_call_context_manager_records_and_blocks() -> None:
    session = LoopDetector(
        {"enabled": True, "warningThreshold": 2, "criticalThreshold": 3}
    ).session("k")
    for _ in range(3):
        with session.call("read", {"p": 1}, run_id="r", call_id="c") as call:
            assert call.verdict.level in ("none", "warning")
            call.done({"details": {"same": 1}})
    with pytest.raises(LoopBlocked) as blocked, session.call("read", {"p": 1}, run_id="r"):
        pytest.fail("a blocked call must not run")
    verdict = blocked.value.verdict
    assert (verdict.level, verdict.detector, verdict.count) == ("critical", "generic_repeat", 3)
    assert str(blocked.value) == verdict.message
    assert len(session.history) == 3  # the blocked call was not recorded


def test_call_context_manager_records_failures_and_exceptions() -> None:
    session = LoopDetector({"enabled": True, "unknownToolThreshold": 3}).session("k")
    with session.call("nope", {"i": 0}) as call:
        call.failed("Tool nope not found")
    with pytest.raises(LookupError), session.call("nope", {"i": 1}):
        raise LookupError("unknown tool: nope")  # recorded as the outcome, then re-raised
    with session.call("nope", {"i": 2}) as call:
        call.failed(RuntimeError("Tool nope is not available"))
        with pytest.raises(RuntimeError, match="already recorded"):
            call.done({})
    assert [r.unknown_tool for r in session.history] == ["nope", "nope", "nope"]
    assert next(r.result_hash for r in session.history) == result_hash(
        "nope", {}, error="Tool nope not found"
    )
    with pytest.raises(LoopBlocked) as blocked, session.call("nope", {"i": 3}):
        pass
    assert blocked.value.verdict.warning_key == "unknown-tool:nope:nope"


def test_blocked_result_keeps_the_block_sticky() -> None:
    session = LoopDetector(
        {"enabled": True, "warningThreshold": 1, "criticalThreshold": 2}
    ).session("k")
    verdicts = repeat(session, 5)
    verdict = verdicts[-1]
    assert verdict.level == "critical"
    veto = session.blocked_result(verdict)
    assert veto == {
        "content": [{"type": "text", "text": verdict.message}],
        "details": {"status": "blocked", "deniedReason": "tool-loop", "reason": verdict.message},
    }
    session.record_outcome("read", {"p": 1}, result=veto)  # no hash: nothing recorded
    assert len(session.history) == 2
    assert session.check("read", {"p": 1}).level == "critical"


def test_guard_abort_attributes_and_cleanup() -> None:
    session = LoopDetector({"postCompactionGuard": {"windowSize": 2}}).session("k")
    session.compaction_retry(run_id="r")
    session.record_outcome("exec", {"c": 1}, result={"x": 1}, run_id="r")
    with pytest.raises(CompactionLoopPersisted) as caught:
        session.record_outcome("exec", {"c": 1}, result={"x": 1}, run_id="r")
    abort = caught.value
    assert (abort.tool, abort.count, abort.window_size, abort.code) == (
        "exec", 2, 2, "compaction_loop_persisted",
    )  # fmt: skip
    assert str(abort) == (
        "CRITICAL: tool exec repeated 2 times with identical arguments and identical results "
        "within 2 attempts after auto-compaction. The compaction did not break the loop. "
        "Aborting to prevent runaway resource use."
    )
    assert not session.guards  # a finished window is dropped
    session.record_outcome("exec", {"c": 1}, result={"x": 1}, run_id="r")  # disarmed
    for n in range(MAX_GUARDS + 10):
        session.compaction_retry(run_id=f"run-{n}")
    assert len(session.guards) == MAX_GUARDS
    assert "run-0" not in session.guards and f"run-{MAX_GUARDS + 9}" in session.guards


def test_run_ids_are_trimmed_as_javascript_trims() -> None:
    """04 §4.2: a run id is trimmed (String.prototype.trim: U+FEFF goes, U+001C stays), and an
    empty one is absent."""
    session = LoopDetector({"enabled": True, "warningThreshold": 2}).session("k")
    for run in ("\ufeffr1", "r1\u2029", " r1"):
        session.record_outcome("read", {"p": 1}, result="x", run_id=run)
    assert session.check("read", {"p": 1}, run_id="r1").count == 3
    for run in ("\x1c", "\x1c", "\x85"):
        session.record_outcome("read", {"p": 2}, result="x", run_id=run)
    assert session.check("read", {"p": 2}, run_id="\x1c").count == 2
    assert session.check("read", {"p": 2}).level == "none"  # "\x1c" is a run id, not absent
    assert session.check("read", {"p": 2}, run_id="\ufeff").level == "none"  # absent


def test_deeply_nested_arguments_and_results_are_hashed() -> None:
    args: Any = 0.5
    for _ in range(3000):
        args = [args]
    session = LoopDetector({"enabled": True, "warningThreshold": 1}).session("k")
    for _ in range(2):
        session.check("t", args)
        session.record_call("t", args)
        session.record_outcome("t", args, result={"details": {"deep": args}})
    assert session.check("t", args).count == 2


@pytest.mark.parametrize("action", [["poll"], {"send": 1}, 7, None])
def test_an_action_that_is_not_a_string_selects_no_rule(action: Any) -> None:
    """OpenClaw compares `args.action` with `===` to strings: a list or an object is no poll and
    no send (before, an unhashable action raised TypeError out of check and record_outcome)."""
    session = LoopDetector({"enabled": True, "warningThreshold": 2}).session("k")
    result = {"details": {"status": "running", "messageId": "m"}, "content": []}
    for tool in ("process", "message"):
        args = {"action": action}
        for _ in range(2):
            session.check(tool, args)
            session.record_call(tool, args)
            session.record_outcome(tool, args, result=result)
        verdict = session.check(tool, args)
        assert (verdict.detector, verdict.count) == ("generic_repeat", 2)  # not a poll
        assert result_hash(tool, args, result) == result_hash("read", {}, result)  # rule 8
