"""A session spooled and restored (`Session.snapshot`, `LoopDetector.restore`) goes on exactly as
one that never left memory: replay's bounded memory (loopcfg/replay/spool.py) relies on it."""

from __future__ import annotations

import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import LoopDetector
from tests.engine.test_differential import (
    CALLS,
    POLL_TOOLS,
    SEND_TOOLS,
    _apply,
    blocks,
    narrow_traces,
    traces,
)

# One release per engine generation (E5.4, E5.12, E6.5, E8.1).
TARGETS = ["2026.5.4", "2026.5.12", "2026.6.5", "2026.9.6"]


def detector(block: dict[str, Any], openclaw: str) -> tuple[LoopDetector, list[Any]]:
    found: list[Any] = []
    engine = LoopDetector(block, send_tools=SEND_TOOLS, poll_tools=POLL_TOOLS, openclaw=openclaw)
    engine.subscribe(found.append)
    return engine, found


def round_trip(engine: LoopDetector, session: Any) -> Any:
    settings_, state = session.snapshot()
    return engine.restore(session.key, settings_, pickle.loads(pickle.dumps(state, -1)))


def state_of(session: Any) -> Any:
    """What decides the session's future verdicts, comparable across the two sessions."""
    records = [
        (r.tool, r.args_hash, r.run_id, r.call_id, r.result_hash, r.unknown_tool)
        for r in session.history
    ]
    return session.calls, records, session.warning_buckets, session.snapshot()[1][1:]


@settings(max_examples=150)
@given(
    st.sampled_from(TARGETS),
    blocks,
    st.one_of(traces, narrow_traces),
    st.lists(st.booleans(), min_size=120, max_size=120),
)
def test_a_restored_session_goes_on_as_if_never_spooled(
    openclaw: str, block: dict[str, Any], trace: list[tuple[Any, ...]], spool_after: list[bool]
) -> None:
    kept_engine, kept_events = detector(block, openclaw)
    spooled_engine, spooled_events = detector(block, openclaw)
    kept = kept_engine.detached_session("s")
    spooled = spooled_engine.detached_session("s")
    pending: list[tuple[str, Any, Any, Any]] = []
    for step, op in enumerate(trace):
        outs = [_apply(session, op, pending, step) for session in (kept, spooled)]
        assert outs[0] == outs[1], (step, op)
        assert kept_events == spooled_events, (step, op)
        if spool_after[step]:
            spooled = round_trip(spooled_engine, spooled)
        if op[0] == "call" and outs[0][0].level != "critical" and op[4] == "later":
            pending.append((CALLS[op[1]][0], CALLS[op[1]][1], op[2], f"c{step}" if op[3] else None))
        elif op[0] in ("finish", "forget") and pending:
            pending.pop(op[1] % len(pending))
    assert state_of(kept) == state_of(spooled)


def test_a_snapshot_leaves_out_the_shared_parts() -> None:
    """Settings come apart (the caller stores a reference), the memo and hooks stay behind."""
    engine = LoopDetector({"enabled": True})
    session = engine.detached_session("s")
    session.record_outcome("read", {"p": 1}, result="x")
    settings_, state = session.snapshot()
    assert settings_ is engine.settings
    assert "s" not in engine  # detached: the detector's table never held it
    text = pickle.dumps(state, -1)
    assert b"HashMemo" not in text and b"Hooks" not in text and b"Settings" not in text
    restored = engine.restore("s", settings_, pickle.loads(text))
    assert [r.result_hash for r in restored.history] == [r.result_hash for r in session.history]
    assert restored.hooks is engine.hooks and restored.settings is engine.settings
