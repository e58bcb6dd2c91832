"""The per-session hash memo (loopcfg/engine/memo.py): every answer equals the hash computed
afresh, whatever the value, however often it repeats, and whatever happens to it in between."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import LoopDetector
from loopcfg.engine.memo import MEMO_SIZE, HashMemo, json_shaped
from loopcfg.hashing import args_hash, outcome_hash

from .test_hashing import values


class Opaque:
    def __str__(self) -> str:
        return "opaque"


# -- arguments ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [{"a": 1}, {"a": True}, {"a": 1.0}, {"a": -0.0}, {"a": float("nan")}, {"b": "\ud800"},
     {"a": [1, (2, 3)]}, {"x": Opaque()}, {"big": "x" * 10_000}, [1, {2: 3}], "plain", None],
)  # fmt: skip
def test_memoised_args_hash_is_exact(args: Any) -> None:
    memo = HashMemo()
    for _ in range(2):  # a miss, then a hit (where the value can be remembered)
        assert memo.args_hash("t", args) == args_hash("t", args)
    assert len(memo._args) <= 1


def test_args_memo_is_keyed_by_value_and_bounded() -> None:
    session = LoopDetector({"enabled": True}).session("k")
    args = {"path": "/a"}
    session.check("read", args)
    args["path"] = "/b"  # mutated between check and record: the record has the new value's hash
    session.record_call("read", args)
    assert next(iter(session.history)).args_hash == args_hash("read", {"path": "/b"})
    for i in range(3 * MEMO_SIZE):
        session.args_hash("read", {"i": i})
    assert len(session.memo._args) <= MEMO_SIZE


def test_memo_never_answers_for_a_value_whose_text_is_not_its_marshal_bytes() -> None:
    # marshal sorts a set's elements, str() follows the hash table: equal sets, equal bytes,
    # different texts; a code object's str() holds its address. Each must get its own hash.
    first, second = {1, 9}, {9, 1}
    assert str(first) != str(second)
    codes = compile("1", "f", "eval"), compile("1", "f", "eval")
    memo = HashMemo()
    for args in ({"s": first}, {"s": second}, [codes[0]], [codes[1]]):
        assert memo.args_hash("t", args) == args_hash("t", args)
    for result in ({"details": {"s": first}}, {"details": {"s": second}}):
        for _ in range(3):  # a miss, a first hit (checked), a later hit
            assert memo.outcome_hash("t", {}, result, None) == outcome_hash("t", {}, result)
    for result in ({"details": {"c": codes[0]}}, {"details": {"c": codes[1]}}):
        assert memo.outcome_hash("t", {}, result, None) == outcome_hash("t", {}, result)


# -- outcomes -------------------------------------------------------------------------------------

RUNNING = {"status": "running", "sessionId": "p1", "aggregated": "building\n", "tail": "ing"}
OUTCOMES: list[tuple[str, Any, Any, Any]] = [
    ("read", {"path": "/a"}, {"content": [{"type": "text", "text": "x"}]}, None),
    ("exec", {"command": "make"}, {"details": RUNNING}, None),
    ("exec", {"command": "make"}, {"details": {**RUNNING, "status": "completed"}}, None),
    ("process", {"action": "poll", "sessionId": "p1"}, {"details": RUNNING}, None),
    ("process", {"action": "log", "sessionId": "p1"}, {"details": RUNNING}, None),
    ("process", {"action": "kill", "sessionId": "p1"}, {"details": RUNNING}, None),
    ("process", {"action": ["poll"]}, {"details": RUNNING}, None),  # not a string action
    ("message", {"action": "send"}, {"details": {"messageId": "m1", "ok": True}}, None),
    ("message", {"action": "read"}, {"details": {"messageId": "m1", "ok": True}}, None),
    ("telegram", {}, {"details": {"messageId": "m1", "ok": True}}, None),  # a host send tool
    ("update_plan", {}, {"details": {"plan": [{"step": "a", "status": "done"}]}}, None),
    ("read", {}, {"details": {"status": "blocked", "deniedReason": "tool-loop"}}, None),  # veto
    ("read", {}, {"details": {"n": 1.0, "m": 1e21, "s": "\ud800"}}, None),
    ("read", {}, {"details": {"x": Opaque()}}, None),  # marshal refuses it
    ("read", {}, "plain text", None),
    ("read", {}, None, None),
    ("read", {}, None, "Tool browser not found"),
    ("read", {}, None, ValueError("boom")),
]


@pytest.mark.parametrize(("tool", "args", "result", "error"), OUTCOMES)
def test_memoised_outcome_hash_is_exact(tool: str, args: Any, result: Any, error: Any) -> None:
    memo = HashMemo(send_tools=frozenset({"telegram"}))
    expected = outcome_hash(tool, args, result, error, send_tools=frozenset({"telegram"}))
    for _ in range(3):  # a miss, a first hit, a later hit
        assert memo.outcome_hash(tool, args, result, error) == expected


def test_one_result_under_different_rules_gets_each_rule_hash() -> None:
    """The key holds the tool and the action: the same result object is hashed by rule 5 for a
    poll, by rule 8 for a kill, and by rule 8 for another tool."""
    memo = HashMemo()
    result = {"details": RUNNING, "content": [{"type": "text", "text": "building"}]}
    for tool, args in [
        ("process", {"action": "poll"}),
        ("process", {"action": "kill"}),
        ("process", {"action": "poll"}),
        ("other", {"action": "poll"}),
        ("process", {"action": "log"}),
    ]:
        assert memo.outcome_hash(tool, args, result, None) == outcome_hash(tool, args, result)


def test_a_result_mutated_after_it_was_hashed_gets_a_new_hash() -> None:
    memo = HashMemo()
    result: dict[str, Any] = {"content": [{"type": "text", "text": "one"}]}
    first = memo.outcome_hash("read", {}, result, None)
    result["content"][0]["text"] = "two"  # the host reuses and changes its object
    second = memo.outcome_hash("read", {}, result, None)
    assert second == outcome_hash("read", {}, result) != first


def test_outcome_memo_is_bounded() -> None:
    memo = HashMemo()
    for i in range(3 * MEMO_SIZE):
        memo.outcome_hash("read", {}, {"details": {"i": i}}, None)
    assert len(memo._outcomes) <= MEMO_SIZE


def test_json_shaped() -> None:
    assert json_shaped({"a": [1, 2.5, (True, None)], "b": {"c": "d"}})
    assert not json_shaped({"a": {1, 2}})
    assert not json_shaped({"a": b"x"})
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert not json_shaped(deep)  # too deep to walk: not remembered, not an error


results = st.fixed_dictionaries(
    {},
    optional={
        "details": st.one_of(values, st.fixed_dictionaries({"status": st.sampled_from(
            ["running", "completed", "failed", "approval-pending", "blocked", "other"]
        ), "aggregated": values, "tail": values, "exitCode": values})),
        "content": st.lists(
            st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=5)}),
            max_size=2,
        ),
    },
)  # fmt: skip
tools = st.sampled_from(["read", "exec", "process", "message", "sessions_send", "update_plan"])
actions = st.one_of(st.none(), st.sampled_from(["poll", "log", "send", "kill"]), values)


@settings(max_examples=200)
@given(st.lists(st.tuples(tools, actions, results), min_size=1, max_size=12), st.randoms())
def test_memo_equals_fresh_hashes_on_repeating_outcomes(
    outcomes: list[tuple[str, Any, Any]], rng: Any
) -> None:
    """Differential: a sequence where outcomes recur (the same objects and equal copies) gets,
    at every step, the hash computed afresh."""
    memo = HashMemo()
    for _ in range(3):
        rng.shuffle(outcomes)
        for tool, action, result in outcomes:
            args = {} if action is None else {"action": action}
            expected = outcome_hash(tool, args, result)
            assert memo.outcome_hash(tool, args, result, None) == expected
            assert memo.args_hash(tool, args) == args_hash(tool, args)
