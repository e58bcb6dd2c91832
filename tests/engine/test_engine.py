"""Spec vectors of 04 and the engine's rules (the rescanning oracle is in oracle.py)."""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopcfg import CompactionLoopPersisted, LoopBlocked, LoopDetector
from loopcfg.hashing import args_hash, canonical_json, canonical_slow, js_number, result_hash


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": 2, "a": [1, "x", None, True]}, '{"a":[1,"x",null,true],"b":2}'),
        ({"n": 1.0, "m": 1e21, "s": 1e-7, "z": -0.0}, '{"m":1e+21,"n":1,"s":1e-7,"z":0}'),
        ({"é": "ü\n"}, '{"é":"ü\\n"}'),
        ({"c": "\x1f"}, '{"c":"\\u001f"}'),
        ({"\U0001f600": 1, "\ue000": 2}, '{"\U0001f600":1,"\ue000":2}'),
        ("\ud800", '"\\ud800"'),
        ({"\uffff": 2, "\U0001f600": 3, "\ud800": 1}, '{"\\ud800":1,"\U0001f600":3,"\uffff":2}'),
        (2**60, "1152921504606847000"),
        (float("nan"), '"NaN"'),
        ([float("inf"), float("-inf")], '["Infinity","-Infinity"]'),
        ((1, 2), "[1,2]"),
        (b"hi", '{"data":"aGk=","type":"Uint8Array"}'),
        ({"a": {}, "b": []}, '{"a":{},"b":[]}'),
    ],
)
def test_canonical_vectors(value: Any, expected: str) -> None:
    assert canonical_json(value) == expected


@pytest.mark.parametrize(
    ("number", "text"),
    [(1e21, "1e+21"), (1e-7, "1e-7"), (123e-20, "1.23e-18"), (1e20, "100000000000000000000"),
     (0.1, "0.1"), (1.5, "1.5"), (-2.5e-6, "-0.0000025"), (5e-324, "5e-324")],
)  # fmt: skip
def test_js_number(number: float, text: str) -> None:
    assert js_number(number) == text


def test_cycle_is_circular() -> None:
    value: list[Any] = [1]
    value.append(value)
    assert canonical_json(value) == '[1,"[Circular]"]'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_fast_path_equals_slow_path(value: Any) -> None:
    assert canonical_json(value) == canonical_slow(value)


def test_hash_vectors() -> None:
    assert args_hash("read", {"path": "/a"}) == "read:" + sha('{"path":"/a"}')
    assert result_hash("t", {}, error="boom") == "error:" + sha('"boom"')
    # 04 §4.3: no tool gets special argument handling (no update_plan reduction in any release).
    plan = {"plan": [{"step": "x", "status": "done"}], "explanation": "y"}
    assert args_hash("update_plan", plan) == "update_plan:" + sha(
        '{"explanation":"y","plan":[{"status":"done","step":"x"}]}'
    )
    details = {"plan": [{"step": "x", "status": "done"}]}
    generic = '{"details":{"plan":[{"status":"done","step":"x"}]},"text":""}'
    assert result_hash("update_plan", plan, result={"details": details}) == sha(generic)
    # A JSON null result is hashed (04 §4.4 rule 2); no result at all is not.
    assert result_hash("t", {}, result=None) == (
        "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"
    )
    assert result_hash("t", {}) is None


def test_process_poll_keeps_bare_undefined() -> None:
    expected = (
        '{"action":"poll","aggregated":null,"exitCode":null,"exitSignal":null,'
        '"status":undefined,"text":""}'
    )
    assert result_hash("process", {"action": "poll"}, result={"details": {}}) == sha(expected)


def test_message_send_strips_volatile_ids() -> None:
    one = {
        "details": {"ok": True, "messageId": "1", "m": {"id": "a", "text": "t", "senderId": "s"}}
    }
    two = {
        "details": {"ok": True, "messageId": "2", "m": {"id": "b", "text": "t", "senderId": "s"}}
    }
    args = {"action": "send"}
    assert result_hash("message", args, result=one) == result_hash("message", args, result=two)
    assert result_hash("message", {"action": "read"}, result=one) != result_hash(
        "message", {"action": "read"}, result=two
    )


def test_loop_veto_has_no_hash() -> None:
    detector = LoopDetector({"enabled": True})
    session = detector.session("s")
    assert result_hash("t", {}, result=session.blocked_result(session.check("t", {}))) is None


def test_engine_imports_no_loader() -> None:
    code = (
        "import sys, loopcfg.engine, loopcfg.hashing\n"
        "bad = [m for m in ('loopcfg.cli', 'loopcfg.source', 'loopcfg.config', 'loopcfg.resolve')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def run_repeats(detector: LoopDetector, n: int, result: Any = "same") -> list[Any]:
    session = detector.session("k")
    verdicts = []
    for _ in range(n):
        verdict = session.check("read", {"p": 1}, run_id="r")
        verdicts.append(verdict)
        if verdict.level == "critical":
            break
        session.record_call("read", {"p": 1}, run_id="r")
        session.record_outcome("read", {"p": 1}, result={"details": {"r": result}}, run_id="r")
    return verdicts


def test_thresholds_count_previous_calls() -> None:
    verdicts = run_repeats(LoopDetector({"enabled": True}), 30)
    assert [v.level for v in verdicts[:10]] == ["none"] * 10
    assert verdicts[10].level == "warning" and verdicts[10].count == 10
    assert verdicts[10].emitted and not verdicts[11].emitted
    assert verdicts[20].level == "critical" and verdicts[20].detector == "generic_repeat"
    assert len(verdicts) == 21


def test_disabled_detectors_never_warn() -> None:
    assert {v.level for v in run_repeats(LoopDetector({}), 40)} == {"none"}


def test_warnings_below_ten_are_emitted() -> None:
    detector = LoopDetector({"enabled": True, "warningThreshold": 3, "criticalThreshold": 50})
    emitted = [v.count for v in run_repeats(detector, 10) if v.emitted]
    assert emitted == [3, 6, 9]


def test_ping_pong_counts_current_call() -> None:
    detector = LoopDetector({"enabled": True})
    session = detector.session("k")
    levels = []
    for i in range(24):
        args = {"side": i % 2}
        verdict = session.check("read", args)
        levels.append((verdict.level, verdict.detector, verdict.count))
        if verdict.level == "critical":
            break
        session.record_call("read", args)
        session.record_outcome("read", args, result={"details": {"same": i % 2}})
    assert levels[9] == ("warning", "ping_pong", 10)
    assert levels[-1] == ("critical", "ping_pong", 20)


def test_unknown_tool_streak_blocks() -> None:
    session = LoopDetector({"enabled": True}).session("k")
    for _ in range(10):
        assert session.check("nope", {"i": _}).level == "none"
        session.record_outcome("nope", {"i": _}, error="Unknown tool: nope")
    verdict = session.check("nope", {})
    assert (verdict.level, verdict.detector, verdict.count) == (
        "critical",
        "unknown_tool_repeat",
        10,
    )
    assert verdict.warning_key == "unknown-tool:nope:nope"


def test_guard_aborts_after_compaction(caplog: pytest.LogCaptureFixture) -> None:
    session = LoopDetector({}).session("k")
    caplog.set_level(logging.INFO, logger="loopcfg.guard")
    session.compaction_retry(run_id="r")
    session.record_outcome("t", {}, result={"a": 1}, run_id="r")
    session.record_outcome("t", {}, result={"a": 1}, run_id="other")
    session.record_outcome("t", {}, result={"a": 1}, run_id="r")
    with pytest.raises(CompactionLoopPersisted) as caught:
        session.record_outcome("t", {}, result={"a": 1}, run_id="r")
    assert (caught.value.tool, caught.value.count, caught.value.window_size) == ("t", 3, 3)
    assert caught.value.code == "compaction_loop_persisted"
    assert caplog.messages[0] == "post-compaction guard armed for 3 attempts"
    assert caplog.messages[1] == (
        "post-compaction loop persisted: tool=t repeated 3 times with identical args+result "
        "post-compaction"
    )


def test_guard_off_when_disabled() -> None:
    session = LoopDetector({"enabled": False}).session("k")
    session.compaction_retry()
    for _ in range(5):
        session.record_outcome("t", {}, result={"a": 1})


def test_call_context_manager_blocks() -> None:
    session = LoopDetector({"enabled": True}).session("k")
    with pytest.raises(LoopBlocked):
        for _ in range(30):
            with session.call("read", {"p": 1}) as call:
                call.done({"details": {}})


def test_history_and_sessions_are_bounded() -> None:
    detector = LoopDetector({"enabled": True, "historySize": 5}, max_sessions=3)
    for key in "abcde":
        session = detector.session(key)
        for i in range(20):
            session.record_call("t", {"i": i})
        assert len(session.history.records) == 5
    assert len(detector) == 3 and "a" not in detector
    detector.close("e")
    assert "e" not in detector


def test_threads_share_a_detector() -> None:
    detector = LoopDetector({"enabled": True, "historySize": 50})

    def work(key: str) -> None:
        session = detector.session(key)
        for i in range(200):
            session.check("t", {"i": i % 3})
            session.record_call("t", {"i": i % 3})
            session.record_outcome("t", {"i": i % 3}, result={"i": i})

    threads = [threading.Thread(target=work, args=(str(n % 2),)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(detector.session("0").history.records) == 50


@pytest.mark.parametrize("openclaw", [None, "2026.9.6"])
def test_an_outcome_given_its_handles_args_hash_records_what_hashing_would(
    openclaw: str | None,
) -> None:
    detector = LoopDetector({"enabled": True}, openclaw=openclaw)
    carried, hashed = detector.detached_session("a"), detector.detached_session("b")
    calls = [("read", {"path": "/a"}, "x"), ("exec", {"command": "ls"}, "y")] * 12
    for index, (tool, args, result) in enumerate(calls):
        call_id = f"c{index}"
        handles = [s.before_call(tool, args, call_id=call_id) for s in (carried, hashed)]
        assert handles[0].verdict == handles[1].verdict
        if handles[0].blocked:
            continue
        carried.record_outcome(
            tool, args, result=result, call_id=call_id, args_hash=handles[0].args_hash
        )
        hashed.record_outcome(tool, args, result=result, call_id=call_id)
    assert carried.snapshot() == hashed.snapshot()
    if openclaw is not None:
        return
    # The carried hash is taken as given: a different one matches no pending call.
    carried.before_call("read", {"path": "/z"}, call_id="z")
    carried.record_outcome("read", {"path": "/z"}, result="x", call_id="z", args_hash="read:0")
    pending = [r for r in carried.history.snapshot()[1] if r[3] == "z"]
    assert [(r[1], r[4] is None) for r in pending] == [
        (args_hash("read", {"path": "/z"}), True),
        ("read:0", False),
    ]
