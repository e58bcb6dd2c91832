"""Properties of replay on random traces, with the real engine (hypothesis, `ci` profile)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from loopcfg.replay.configs import ConfigTable
from loopcfg.replay.driver import EngineSessions, ReplayOptions
from loopcfg.replay.runner import replay_events
from loopcfg.replay.trace import read_trace
from loopcfg.replay.transcript import read_transcript
from loopcfg.settings import settings_from_block

from .helpers import jsonl, lines_of

TIGHT = settings_from_block(
    {"enabled": True, "warningThreshold": 2, "criticalThreshold": 4,
     "postCompactionGuard": {"windowSize": 2}}
)  # fmt: skip
TABLE = ConfigTable("tight", TIGHT, TIGHT, {"loose": settings_from_block({"enabled": True})})

# Few distinct values, skewed (hypothesis favours the first of each list), so that identical
# calls pile up and blocks, late outcomes of blocked calls and aborts all happen.
tools = st.sampled_from(["read", "read", "read", "exec"])
args = st.sampled_from([{}, {}, {}, {"p": 1}])
runs = st.sampled_from([None, None, None, "r1", "r2"])
sessions = st.sampled_from(["default", "default", "default", "s2"])
results = st.sampled_from([0, 0, 0, 1])
# Compactions and config lines are rare: each can end or loosen a session's detection.
KINDS = ["call+result"] * 7 + ["call"] * 6 + ["outcome"] * 6 + ["compaction", "config"]
kinds = st.integers(0, len(KINDS) - 1).map(KINDS.__getitem__)


@st.composite
def traces(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random trace lines; call ids are unique (`c<n>`), outcomes name an earlier id or none."""
    entries: list[dict[str, Any]] = []
    for index in range(draw(st.integers(0, 60))):
        kind = draw(kinds)
        entry: dict[str, Any] = {"session": draw(sessions)}
        run = draw(runs)
        if run is not None:
            entry["run"] = run
        if kind == "compaction":
            entries.append({**entry, "type": "compaction"})
            continue
        if kind == "config":
            entries.append({**entry, "type": "config", "agent": "loose"})
            continue
        entry.update({"tool": draw(tools), "args": draw(args)})
        if kind == "outcome":
            # Mostly the outcome of a recent call (its session, tool and args), late.
            earlier = index - draw(st.integers(1, 4))
            call = entries[earlier] if 0 <= earlier < len(entries) else {}
            if "tool" in call and draw(st.sampled_from([True, True, False])):
                entry.update({k: call[k] for k in ("session", "tool", "args") if k in call})
            entry.update({"type": "outcome", "result": draw(results), "id": f"c{earlier}"})
        else:
            if draw(st.sampled_from([True, True, False])):
                entry["id"] = f"c{index}"
            if kind == "call+result":
                entry["result"] = draw(results)
        entries.append(entry)
    return entries


class Spy(EngineSessions):
    """The real engine, with the call id of every outcome that reaches it written down."""

    def __init__(self) -> None:
        super().__init__(ReplayOptions(table=TABLE))
        self.outcome_ids: set[str] = set()

    def session(self, key: str) -> Any:
        engine = super().session(key)
        spy = self

        class Recording:
            def __getattr__(self, name: str) -> Any:
                return getattr(engine, name)

            def record_outcome(self, tool: str, args: Any, **options: Any) -> None:
                if options.get("call_id") is not None:
                    spy.outcome_ids.add(options["call_id"])
                engine.record_outcome(tool, args, **options)

        return Recording()


@given(traces())
def test_replay_invariants(entries: list[dict[str, Any]]) -> None:
    spy = Spy()
    text = jsonl(*entries)
    result = replay_events("t.jsonl", read_trace("t.jsonl", iter(lines_of(text))), spy)
    assert not result.problems
    call_lines = [e for e in entries if "tool" in e and e.get("type") != "outcome"]
    for stats in result.sessions:
        name = stats.session
        mine = [e for e in result.events if e.session == name]
        assert stats.calls + stats.skipped == sum(e["session"] == name for e in call_lines)
        assert stats.blocks == sum(e.level == "critical" for e in mine)
        assert stats.warnings == sum(e.level == "warning" and e.emitted for e in mine)
        assert [e.call for e in mine] == sorted({e.call for e in mine})
        criticals = [e.call for e in mine if e.level == "critical"]
        assert stats.first_block_call == (min(criticals) if criticals else None)
        assert stats.aborted == any(a.session == name for a in result.aborts)
    # A blocked call never ran: no outcome of it (inline or by id) reaches the engine.
    for event in result.events:
        if event.level == "critical":
            call_id = entries[event.line - 1].get("id")
            assert call_id is None or call_id not in spy.outcome_ids
    # Orphans: outcome lines whose id no earlier call of that session had.
    for stats in result.sessions:
        assert stats.orphan_results <= sum(
            e.get("type") == "outcome" and e["session"] == stats.session for e in entries
        )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
roles = st.sampled_from(["user", "assistant", "toolResult", "bashExecution", 5, None])
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["toolCall", "text", "thinking", None])},
    optional={"id": st.sampled_from(["a", "b", 3]), "name": st.sampled_from(["read", 1]),
              "arguments": json_values},
)  # fmt: skip
messages = st.fixed_dictionaries(
    {"role": roles},
    optional={"content": st.lists(blocks, max_size=3) | json_values,
              "toolCallId": st.sampled_from(["a", "b", None, 7]),
              "toolName": st.sampled_from(["read", None]), "isError": json_values,
              "details": json_values, "provider": st.sampled_from(["openclaw", "x"]),
              "openclawAbort": json_values},
)  # fmt: skip
entries = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "compaction", "custom", "reset", "weird", None])},
    optional={"message": messages | json_values, "id": st.sampled_from(["e1", "e2", 4]),
              "customType": st.sampled_from(["openclaw:prompt-error", "x"]),
              "data": json_values},
)  # fmt: skip


@given(st.lists(entries | json_values, max_size=25))
def test_any_transcript_replays_without_raising(lines: list[Any]) -> None:
    """Whatever the entries hold, the reader and the real engine never raise (07: skip, never
    reject) and every malformed line is reported, not fatal."""
    text = jsonl({"type": "session", "version": 3, "id": "fuzz"}, *lines)
    events = read_transcript("f.jsonl", iter(lines_of(text)))
    result = replay_events("f.jsonl", events, EngineSessions(ReplayOptions(table=TABLE)))
    assert [s.session for s in result.sessions] == ["fuzz"]
    assert all(p.line > 1 for p in result.problems)
