"""The per-session args-hash memo (loopcfg/engine/memo.py): every answer equals the hash
computed afresh, whatever the value, however often it repeats, and whatever happens to it in
between."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import LoopDetector
from loopcfg.engine.memo import MEMO_SIZE, HashMemo, json_shaped
from loopcfg.hashing import args_hash

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


def test_json_shaped() -> None:
    assert json_shaped({"a": [1, 2.5, (True, None)], "b": {"c": "d"}})
    assert not json_shaped({"a": {1, 2}})
    assert not json_shaped({"a": b"x"})
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert not json_shaped(deep)  # too deep to walk: not remembered, not an error


args_values = st.one_of(values, st.dictionaries(st.sampled_from(["action", "path"]), values))


@settings(max_examples=200)
@given(
    st.lists(st.tuples(st.sampled_from(["read", "exec"]), args_values), min_size=1, max_size=12),
    st.randoms(),
)
def test_memo_equals_fresh_hashes_on_repeating_arguments(
    calls: list[tuple[str, Any]], rng: Any
) -> None:
    """Differential: a sequence where arguments recur (the same objects and equal copies, more
    distinct values than the memo holds) gets, at every step, the hash computed afresh."""
    memo = HashMemo()
    for _ in range(3):
        rng.shuffle(calls)
        for tool, args in calls:
            assert memo.args_hash(tool, args) == args_hash(tool, args)


def test_a_call_hashes_its_arguments_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """check, record_call and record_outcome of one call (and of the identical calls after it)
    hash its arguments once; the memo answers the rest."""
    from loopcfg.engine import generations

    hashed: list[Any] = []

    def counting(tool: str, args: Any) -> str:
        hashed.append(args)
        return args_hash(tool, args)

    monkeypatch.setattr(generations, "args_hash", counting)  # the E6.5 generation's hash
    session = LoopDetector({"enabled": True}).session("k")
    for _ in range(3):
        args = {"path": "/a", "limit": 200}  # an equal copy each time, as a host parses it
        session.check("read", args, run_id="r")
        session.record_call("read", args, run_id="r", call_id="c")
        session.record_outcome("read", args, result={"n": 1}, run_id="r", call_id="c")
    assert hashed == [{"path": "/a", "limit": 200}]


def test_arguments_are_walked_for_their_shape_only_when_they_repeat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from loopcfg.engine import memo as memo_module

    walked: list[Any] = []

    def counting(value: Any) -> bool:
        walked.append(value)
        return json_shaped(value)

    monkeypatch.setattr(memo_module, "json_shaped", counting)
    memo = HashMemo()
    for i in range(3):
        assert memo.args_hash("t", {"i": i}) == args_hash("t", {"i": i})
    assert walked == []  # unique arguments: hashed, never walked
    for _ in range(3):
        assert memo.args_hash("t", {"i": 1}) == args_hash("t", {"i": 1})
    assert walked == [{"i": 1}]  # the first repeat walks it; later ones answer from the memo
