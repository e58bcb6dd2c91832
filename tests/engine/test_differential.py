"""Differential test: the engine against the rescanning oracle on random traces (04, issue 4).

Traces mix known poll tools, exec shapes, message sends (built-in and host-declared), unknown
tools, pending calls, outcomes with and without call ids, several run ids, compaction retries,
vetoed calls, reconfiguration and random (also runtime-adjusted) thresholds. Every verdict, every
event and every guard abort (and the step it happens at) must be equal.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from loopcfg import CompactionLoopPersisted, LoopDetector
from loopcfg.engine.history import History
from loopcfg.hashing import DigestBudget, args_hash
from loopcfg.releases import release_info, tool_aliases
from tests.engine import oracle as rescan
from tests.engine.oracle import OracleDetector

SEND_TOOLS = ("telegram",)
POLL_TOOLS = ("mypoll",)

CALLS: list[tuple[str, Any]] = [
    ("read", {"path": "/a"}),
    ("read", {"path": "/b"}),
    ("exec", {"command": "make"}),
    ("process", {"action": "poll", "sessionId": "s1"}),
    ("process", {"action": "log", "sessionId": "s1"}),
    ("process", {"action": "kill", "sessionId": "s1"}),
    ("command_status", {"id": 1}),
    ("message", {"action": "send", "to": "x"}),
    ("message", {"action": "read"}),
    ("sessions_send", {"text": "hi"}),
    ("telegram", {"text": "hi"}),
    ("mypoll", {}),
    ("nope", {"i": 1}),
    ("nope", {"i": 2}),
    ("update_plan", {"plan": [{"step": "x", "status": "done"}]}),
    ("update_plan", {"plan": [{"step": "y", "status": "done"}], "explanation": "e"}),
    # Raw names as a model writes them: the host normalises them (09 §9.5).
    ("Read", {"path": "/a"}),
    (" BASH ", {"command": "make"}),
    ("Apply-Patch", {"input": "x"}),
    ("", {"i": 1}),
    ("cron", {"at": 1.5, "n": float("nan")}),
]

RESULTS: list[Any] = [
    None,
    "plain text",
    {"content": [{"type": "text", "text": "same"}], "details": {}},
    {"content": [{"type": "text", "text": "other"}], "details": {"n": 1}},
    {"details": {"status": "completed", "exitCode": 0, "aggregated": "ok", "durationMs": 5}},
    {"details": {"status": "running", "tail": "..."}},
    {"details": {"status": "running", "aggregated": "partial"}},
    {"details": {"ok": True, "messageId": "m1"}},
    {"details": {"ok": True, "messageId": "m2", "ts": 9}},
    {"details": {"plan": [{"step": "x", "status": "done"}]}},
    {"details": {"status": "blocked", "deniedReason": "tool-loop", "reason": "x"}},
    # Generic shapes that hash alike from different objects (no details is `{}`, the text is
    # trimmed, 1.0 is 1 in JavaScript) or not although Python's == says so (True == 1), a float
    # and a lone surrogate (the slow path), nested details and a long text (digested at once
    # even where outcome digests are deferred).
    {"content": [{"type": "text", "text": "same"}]},
    {"content": [{"type": "text", "text": " same\n"}], "details": {}},
    {"content": [{"type": "text", "text": "other"}], "details": {"n": 1.0}},
    {"content": [{"type": "text", "text": "other"}], "details": {"n": True}},
    {"content": [{"type": "text", "text": "other"}], "details": {"n": 1.5, "s": "\ud800"}},
    {"content": [{"type": "text", "text": "same"}], "details": {"nested": {"n": 1}}},
    {"content": [{"type": "text", "text": "same" * 5000}]},
]

ERRORS: list[Any] = [None, "Tool nope not found", "Unknown tool: other", "boom"]
RUNS = [None, "r1", " r1 ", "\ufeffr1", "r2", "", "\x1c"]

call_ops = st.tuples(
    st.just("call"),
    st.integers(0, len(CALLS) - 1),
    st.sampled_from(RUNS),
    st.booleans(),  # with a call id
    st.sampled_from(["now", "now", "now", "later"]),  # outcome now or leave it pending
    st.integers(0, len(RESULTS) - 1),
    st.sampled_from(ERRORS),
    st.booleans(),  # the outcome carries the call id
)
pending_ops = st.tuples(
    st.sampled_from(["finish", "finish", "forget"]),
    st.integers(0, 50),
    st.integers(0, len(RESULTS) - 1),
    st.sampled_from(ERRORS),
)
raw_outcomes = st.tuples(
    st.just("raw"),
    st.integers(0, len(CALLS) - 1),
    st.sampled_from(RUNS),
    st.integers(0, len(RESULTS) - 1),
    st.sampled_from(ERRORS),
)
compactions = st.tuples(st.just("compact"), st.sampled_from(RUNS))

blocks = st.fixed_dictionaries(
    {
        "historySize": st.integers(1, 50),
        "warningThreshold": st.integers(1, 8),
        "criticalThreshold": st.integers(1, 14),
        "unknownToolThreshold": st.integers(1, 8),
        "globalCircuitBreakerThreshold": st.integers(1, 20),
        "detectors": st.fixed_dictionaries(
            {"genericRepeat": st.booleans(), "knownPollNoProgress": st.booleans(),
             "pingPong": st.booleans()}
        ),
        "postCompactionGuard": st.fixed_dictionaries({"windowSize": st.integers(1, 4)}),
    },
    optional={"enabled": st.sampled_from([True, True, True, False])},
)  # fmt: skip
reconfigures = st.tuples(st.just("reconfigure"), blocks)

ops = st.one_of(call_ops, call_ops, call_ops, pending_ops, raw_outcomes, compactions, reconfigures)
traces = st.lists(ops, min_size=10, max_size=90)

# Few signatures, few results, more pending calls: long ping-pongs, no-progress blocks split by
# late outcomes, unknown-tool streaks interrupted by pending calls.
NARROW = [0, 1, 12, 13]
narrow_calls = st.tuples(
    st.just("call"),
    st.sampled_from(NARROW),
    st.sampled_from([None, "r1"]),
    st.booleans(),
    st.sampled_from(["now", "later"]),
    st.sampled_from([2, 3]),
    st.sampled_from([None, None, "Tool nope not found"]),
    st.booleans(),
)
narrow_raw = st.tuples(
    st.just("raw"),
    st.sampled_from(NARROW),
    st.sampled_from([None, "r1"]),
    st.sampled_from([2, 3]),
    st.sampled_from([None, "Unknown tool: nope"]),
)
narrow_traces = st.lists(
    st.one_of(narrow_calls, narrow_calls, narrow_calls, pending_ops, narrow_raw, reconfigures),
    min_size=40,
    max_size=120,
)


def _outcome(impl: Any, tool: str, args: Any, kw: dict[str, Any]) -> tuple[Any, ...] | None:
    """Record an outcome; a guard abort becomes a comparable tuple."""
    try:
        impl.record_outcome(tool, args, **kw)
    except CompactionLoopPersisted as abort:
        return _abort(abort)
    return None


def _abort(abort: CompactionLoopPersisted) -> tuple[Any, ...]:
    return ("abort", abort.tool, abort.count, abort.window_size, abort.code, str(abort))


def _outcome_kw(result: int, error: Any, run: Any, call_id: Any) -> dict[str, Any]:
    return {"result": RESULTS[result], "error": error, "run_id": run, "call_id": call_id}


def assert_same_streaks(engine: Any, oracle: Any) -> None:
    """Every streak of 04 §4.5, for every run and every signature of the pool: the engine's
    incremental values equal a rescan of the oracle's history (stronger than verdicts alone,
    which only show a streak once it crosses a threshold)."""
    history: History = engine.history
    assert len(history) == len(oracle.history)
    assert [(r.tool, r.args_hash, r.result_hash) for r in history] == [
        (r.tool, r.args_hash, r.result_hash) for r in oracle.history
    ]
    for run_id in (None, "r1", "r2"):
        scoped = [r for r in oracle.history if r.run_id == run_id]
        run = history.run(run_id)
        if run is None:
            assert not scoped
            continue
        assert run.count == len(scoped)
        for tool, args in CALLS:
            h = args_hash(tool, args)
            assert History.unknown_tool_streak(run, tool) == rescan.unknown_tool_streak(
                scoped, tool
            )
            assert History.no_progress_streak(run, h) == rescan.no_progress_streak(scoped, tool, h)
            same = [r for r in scoped if r.args_hash == h]
            assert History.recent_count(run, h) == len(same)
            sig = run.sigs.get(h)
            if sig is not None:  # how many of the newest records of the signature have a hash
                done = [r.result_hash is not None for r in reversed(same)] + [False]
                assert sig.hashed_suffix() == done.index(False)
            ours, theirs = History.ping_pong(run, h), rescan.ping_pong(scoped, h)
            assert (ours and ours[:2]) == (theirs and theirs[:2]), (tool, args)


def run_trace(
    block: dict[str, Any],
    trace: list[tuple[Any, ...]],
    *,
    deep: bool = False,
    openclaw: str | None = None,
) -> None:
    """Drive engine and oracle in lock step; assert equality at every step."""
    engine = LoopDetector(block, send_tools=SEND_TOOLS, poll_tools=POLL_TOOLS, openclaw=openclaw)
    release = release_info(openclaw) if openclaw is not None else None
    oracle = OracleDetector(
        block,
        extra_send_tools=SEND_TOOLS,
        extra_poll_tools=POLL_TOOLS,
        generation=release.engine if release is not None and release.engine else "E6.5",
        aliases=tool_aliases(release),
    )
    engine_events: list[Any] = []
    oracle_events: list[Any] = []
    engine.subscribe(engine_events.append)
    oracle.subscribe(oracle_events.append)
    impls = (engine.session("s"), oracle.session("s"))
    pending: list[tuple[str, Any, Any, Any]] = []
    for step, op in enumerate(trace):
        outs = [_apply(impl, op, pending, step) for impl in impls]
        assert outs[0] == outs[1], (step, op)
        assert engine_events == oracle_events, (step, op)
        if deep:
            assert_same_streaks(*impls)
        if op[0] == "call" and outs[0][0].level != "critical" and op[4] == "later":
            pending.append((CALLS[op[1]][0], CALLS[op[1]][1], op[2], f"c{step}" if op[3] else None))
        elif op[0] in ("finish", "forget") and pending:
            pending.pop(op[1] % len(pending))


def _apply(impl: Any, op: tuple[Any, ...], pending: list[Any], step: int) -> Any:
    kind = op[0]
    if kind == "call":
        _, which, run, with_id, when, result, error, outcome_id = op
        tool, args = CALLS[which]
        verdict = impl.check(tool, args, run_id=run)
        if verdict.level == "critical":
            return (verdict, None)
        call_id = f"c{step}" if with_id else None
        impl.record_call(tool, args, run_id=run, call_id=call_id)
        if when == "later":
            return (verdict, None)
        kw = _outcome_kw(result, error, run, call_id if outcome_id else None)
        return (verdict, _outcome(impl, tool, args, kw))
    if kind in ("finish", "forget"):
        if not pending:
            return None
        tool, args, run, call_id = pending[op[1] % len(pending)]
        if kind == "forget":
            return impl.forget_call(tool, args, run_id=run, call_id=call_id)
        return _outcome(impl, tool, args, _outcome_kw(op[2], op[3], run, call_id))
    if kind == "raw":
        _, which, run, result, error = op
        tool, args = CALLS[which]
        return _outcome(impl, tool, args, _outcome_kw(result, error, run, None))
    if kind == "compact":
        return impl.compaction_retry(run_id=op[1])
    return impl.reconfigure(op[1])


@settings(max_examples=200)
@given(blocks, traces)
def test_engine_equals_oracle(block: dict[str, Any], trace: list[tuple[Any, ...]]) -> None:
    run_trace(block, trace)


# One release per generation the oracle follows (09 §9.1-§9.2, E6.5), and one with the cron alias.
GENERATION_TARGETS = ["2026.5.4", "2026.5.7", "2026.5.12", "2026.6.1", "2026.7.1-2", "2026.7.33"]


@settings(max_examples=120)
@given(st.sampled_from(GENERATION_TARGETS), blocks, st.one_of(traces, narrow_traces))
def test_engine_equals_oracle_per_generation(
    openclaw: str, block: dict[str, Any], trace: list[tuple[Any, ...]]
) -> None:
    run_trace(block, trace, openclaw=openclaw)


# Repeats of one call with one result and a recorded veto after each block: where E5.4 (no
# generic critical), E5.12 (hashed vetoes) and E6.5 part ways.
vetoed_repeats = st.lists(
    st.sampled_from(
        [("call", 0, None, False, "now", 2, None, False)] * 4
        + [("call", 1, None, False, "now", 2, None, False), ("raw", 0, None, 10, None)]
    ),
    min_size=10,
    max_size=40,
)


@settings(max_examples=60)
@given(st.sampled_from(GENERATION_TARGETS), blocks, vetoed_repeats)
def test_generations_part_ways_as_the_oracle_does(
    openclaw: str, block: dict[str, Any], trace: list[tuple[Any, ...]]
) -> None:
    run_trace(block, trace, openclaw=openclaw)


def _repeat(call: int, n: int, result: int = 2, run: Any = None) -> list[tuple[Any, ...]]:
    return [("call", call, run, False, "now", result, None, False)] * n


BASE: dict[str, Any] = {
    "enabled": True,
    "historySize": 30,
    "warningThreshold": 3,
    "criticalThreshold": 6,
    "unknownToolThreshold": 4,
    "globalCircuitBreakerThreshold": 9,
    "detectors": {"genericRepeat": True, "knownPollNoProgress": True, "pingPong": True},
    "postCompactionGuard": {"windowSize": 3},
}


@settings(max_examples=1)
@given(st.just(BASE), st.just([]))
@example(BASE, _repeat(0, 12))  # generic warning then critical
@example(BASE, _repeat(3, 12, result=6))  # process poll no progress
@example(BASE, _repeat(12, 8, result=0) + [("raw", 12, None, 0, "Tool nope not found")] * 6)
@example(BASE, [("compact", "r1"), *_repeat(0, 4, run=" r1 ")])  # guard abort, trimmed run id
@example({**BASE, "historySize": 5}, (_repeat(0, 1) + _repeat(1, 1)) * 8)  # ping-pong, evicted
@example(BASE, [("reconfigure", {**BASE, "historySize": 2}), *_repeat(0, 5)])
def test_regressions(block: dict[str, Any], trace: list[tuple[Any, ...]]) -> None:
    run_trace(block, trace)


def _later(call: int, with_id: bool = False, run: Any = None) -> tuple[Any, ...]:
    return ("call", call, run, with_id, "later", 2, None, False)


def _nope(call: int, n: int, run: Any = None) -> list[tuple[Any, ...]]:
    """`n` outcomes reporting the tool missing, with no call recorded before them."""
    return [("raw", call, run, 0, "Tool nope not found")] * n


@settings(max_examples=150)
@given(blocks, narrow_traces)
# forget a pending call between an older pending one and a newer hashed one (hashed suffix)
@example(BASE, [_later(0), _later(0), *_repeat(0, 1, result=3), ("forget", 1, 0, None)])
# a late unknown-tool error joins the streak after it (the closing forget finds nothing: the
# raw outcome without call id already went to that pending call; see the examples below)
@example(
    BASE,
    [_later(12, True), ("raw", 13, None, 0, "Tool nope not found"), _later(12, True),
     ("raw", 12, None, 0, "Tool nope not found"), ("finish", 0, 0, "Tool nope not found"),
     ("forget", 0, 0, None)],
)  # fmt: skip
# a late outcome splits a no-progress block; ping-pong healed by a forgotten call
@example(
    BASE,
    [_later(0, True), *_repeat(0, 1), _later(0, True), *_repeat(0, 1), ("finish", 0, 3, None),
     *(_repeat(0, 1) + _repeat(1, 1)) * 2, _later(12), *(_repeat(0, 1) + _repeat(1, 1)) * 2,
     ("forget", 1, 0, None)],
)  # fmt: skip
# a late unknown-tool error bridges two blocks of the same unknown tool (3 + 1 + 2 = a streak of
# 6, blocked), then the block loses its oldest records to eviction as history shrinks
@example(
    BASE,
    [*_nope(12, 3), _later(13, True), *_nope(12, 2), ("finish", 0, 0, "Tool nope not found"),
     _later(12), ("reconfigure", {**BASE, "historySize": 4}), _later(12)],
)  # fmt: skip
# a forgotten pending call joins two unknown-tool blocks (2 + 2 = 4, blocked), in a run whose id
# is only whitespace away from "r1"
@example(
    BASE,
    [*_nope(12, 2, "\t r1\n"), _later(13, True, "r1"), *_nope(12, 2, " r1"), ("forget", 0, 0, None),
     _later(12, run="r1"), _later(12, run="r1 ")],
)  # fmt: skip
def test_streaks_equal_rescans(block: dict[str, Any], trace: list[tuple[Any, ...]]) -> None:
    run_trace(block, trace, deep=True)


# -- before_call (replay's one step per call) against the generic API -----------------------------


def _apply_in_one_step(session: Any, op: tuple[Any, ...], pending: list[Any], step: int) -> Any:
    """`_apply`, with each call checked and recorded by `before_call` and its outcome recorded
    through the handle (or, for an outcome without the call's id, given the handle's args
    hash), as replay does; everything else through the generic API."""
    if op[0] != "call":
        return _apply(session, op, pending, step)
    _, which, run, with_id, when, result, error, outcome_id = op
    tool, args = CALLS[which]
    call_id = f"c{step}" if with_id else None
    handle = session.before_call(tool, args, run_id=run, call_id=call_id)
    if handle.blocked or when == "later":
        return (handle.verdict, None)
    if outcome_id or call_id is None:  # the outcome of exactly that call: through its handle
        try:
            handle.record(RESULTS[result], error)
        except CompactionLoopPersisted as abort:
            return (handle.verdict, _abort(abort))
        return (handle.verdict, None)
    kw = _outcome_kw(result, error, run, None)
    return (handle.verdict, _outcome(session, tool, args, {**kw, "args_hash": handle.args_hash}))


def run_one_step_against_generic(
    block: dict[str, Any], trace: list[tuple[Any, ...]], openclaw: str | None
) -> None:
    """Two sessions of one detector, one driven through check/record_call/record_outcome (the
    reference), one through before_call: the same verdicts, events, aborts and state."""
    engine = LoopDetector(block, send_tools=SEND_TOOLS, poll_tools=POLL_TOOLS, openclaw=openclaw)
    events: dict[str, list[Any]] = {"generic": [], "one step": []}
    engine.subscribe(lambda event: events[event.session].append(event))
    generic, one_step = engine.session("generic"), engine.session("one step")
    pending: list[tuple[str, Any, Any, Any]] = []
    for step, op in enumerate(trace):
        expected = _apply(generic, op, pending, step)
        assert _apply_in_one_step(one_step, op, pending, step) == expected, (step, op)
        assert [replace(e, session="") for e in events["one step"]] == [
            replace(e, session="") for e in events["generic"]
        ], (step, op)
        assert one_step.snapshot() == generic.snapshot(), (step, op)
        if op[0] == "call" and expected[0].level != "critical" and op[4] == "later":
            pending.append((CALLS[op[1]][0], CALLS[op[1]][1], op[2], f"c{step}" if op[3] else None))
        elif op[0] in ("finish", "forget") and pending:
            pending.pop(op[1] % len(pending))


@settings(max_examples=150)
@given(
    st.sampled_from([None, *GENERATION_TARGETS, "2026.9.6"]),
    blocks,
    st.one_of(traces, narrow_traces, vetoed_repeats),
)
# warned and blocked calls whose outcomes come later, some never
@example(None, BASE, [_later(0, True)] * 8 + [("finish", 0, 2, None)] * 3 + _repeat(0, 2))
@example("2026.9.6", BASE, [_later(0, True)] * 8 + [("finish", 0, 2, None)] * 3)
def test_before_call_equals_check_then_record_call(
    openclaw: str | None, block: dict[str, Any], trace: list[tuple[Any, ...]]
) -> None:
    run_one_step_against_generic(block, trace, openclaw)


# -- outcome digests deferred (replay's sessions) against the generic API -------------------------

# The generic results (`{details, text}`): the ones a deferred digest may stand for.
GENERIC = [2, 3, 11, 12, 13, 14, 15, 16, 17]
deferred_calls = st.tuples(
    st.just("call"),
    st.sampled_from(NARROW),
    st.sampled_from([None, "r1"]),
    st.booleans(),
    st.sampled_from(["now", "now", "later"]),
    st.sampled_from(GENERIC),
    st.sampled_from([None, None, None, "Tool nope not found"]),
    st.booleans(),
)
deferred_finishes = st.tuples(
    st.just("finish"), st.integers(0, 50), st.sampled_from(GENERIC), st.just(None)
)
deferred_traces = st.lists(
    st.one_of(deferred_calls, deferred_calls, deferred_calls, deferred_finishes, pending_ops,
              narrow_raw, compactions, reconfigures),
    min_size=20,
    max_size=120,
)  # fmt: skip


def run_deferred_against_generic(
    block: dict[str, Any], trace: list[tuple[Any, ...]], openclaw: str | None, budget: int
) -> None:
    """Two sessions of one detector: one through the generic API (the reference: every
    outcome digested at once), one as replay drives it (`before_call`, the handle's args hash,
    outcome digests deferred within a `budget` that may run out): the same verdicts, events
    and aborts at every step, the same state at the end, and the whole budget given back."""
    engine = LoopDetector(block, send_tools=SEND_TOOLS, poll_tools=POLL_TOOLS, openclaw=openclaw)
    events: dict[str, list[Any]] = {"generic": [], "deferred": []}
    engine.subscribe(lambda event: events[event.session].append(event))
    generic, deferred = engine.session("generic"), engine.session("deferred")
    shared = DigestBudget(budget)
    deferred.defer_digests(shared)
    pending: list[tuple[str, Any, Any, Any]] = []
    for step, op in enumerate(trace):
        expected = _apply(generic, op, pending, step)
        assert _apply_in_one_step(deferred, op, pending, step) == expected, (step, op)
        assert [replace(e, session="") for e in events["deferred"]] == [
            replace(e, session="") for e in events["generic"]
        ], (step, op)
        assert 0 <= shared.left <= budget
        if op[0] == "call" and expected[0].level != "critical" and op[4] == "later":
            pending.append((CALLS[op[1]][0], CALLS[op[1]][1], op[2], f"c{step}" if op[3] else None))
        elif op[0] in ("finish", "forget") and pending:
            pending.pop(op[1] % len(pending))
    snapshot = deferred.snapshot()
    assert snapshot == generic.snapshot()
    _size, records = snapshot[1][1]
    assert all(type(fields[4]) in (str, type(None)) for fields in records)  # plain, picklable
    deferred.dispose()
    assert shared.left == budget


@settings(max_examples=200)
@given(
    st.sampled_from([None, "2026.5.4", "2026.5.12", "2026.7.33"]),
    blocks,
    st.one_of(deferred_traces, narrow_traces, traces),
    st.sampled_from([0, 150, 300, 700, 1 << 20]),
)
# a no-progress block of equal shapes from different objects, and True against 1
@example(None, BASE, [*_repeat(0, 3, 2), *_repeat(0, 3, 11), *_repeat(0, 4, 12)], 1 << 20)
@example(None, BASE, [*_repeat(0, 3, 13), *_repeat(0, 4, 14)], 1 << 20)
@example(None, {**BASE, "historySize": 4}, [*_repeat(0, 3, 13), *_repeat(0, 4, 14)] * 2, 300)
def test_deferred_outcome_digests_equal_the_generic_api(
    openclaw: str | None, block: dict[str, Any], trace: list[tuple[Any, ...]], budget: int
) -> None:
    run_deferred_against_generic(block, trace, openclaw, budget)
