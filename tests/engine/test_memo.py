"""The per-session args-hash memo (loopcfg/engine/memo.py): every answer equals the hash
computed afresh, whatever the value, however often it repeats, and whatever happens to it in
between."""

from __future__ import annotations

import marshal
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import LoopDetector
from loopcfg.engine.memo import MEMO_MAX_BYTES, MEMO_SIZE, HashMemo, json_shaped
from loopcfg.hashing import (
    args_hash,
    args_hash_of,
    canonical_slow,
    canonical_whole,
    legacy_args_hash,
)

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
        session.args_hash("read", {"i": i})  # keyed by their canonical text
        session.args_hash("read", {"f": i + 0.5})  # floats: keyed by their marshal bytes
    by_text = session.memo._by_text
    assert by_text is not None and 0 < len(by_text) <= MEMO_SIZE
    assert 0 < len(session.memo._args) <= MEMO_SIZE


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
    # A float keeps a value off the canonical-text key (engine/memo.py): keyed by marshal.
    for i in range(3):
        assert memo.args_hash("t", {"i": i, "f": 0.5}) == args_hash("t", {"i": i, "f": 0.5})
    assert walked == []  # unique arguments: hashed, never walked
    for _ in range(3):
        assert memo.args_hash("t", {"i": 1, "f": 0.5}) == args_hash("t", {"i": 1, "f": 0.5})
    assert walked == [{"i": 1, "f": 0.5}]  # the first repeat walks it; later ones answer
    assert memo._by_text == {}


def test_plain_arguments_are_keyed_by_their_canonical_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the shared hash, a plain JSON value's memo key is its canonical UTF-8 (what its
    SHA-256 is taken of): no marshal, and equal texts are equal hashes whatever the objects."""
    from loopcfg.engine import memo as memo_module

    hashed: list[bytes] = []

    def counting(tool: str, canonical: bytes) -> str:
        hashed.append(canonical)
        return args_hash_of(tool, canonical)

    marshalled: list[Any] = []

    def marshal_dumps(value: Any) -> bytes:
        marshalled.append(value)
        return marshal.dumps(value)

    monkeypatch.setattr(memo_module, "args_hash_of", counting)
    monkeypatch.setattr(memo_module, "marshal", SimpleNamespace(dumps=marshal_dumps))
    memo = HashMemo()
    for args in ({"b": 1, "a": "x"}, {"a": "x", "b": 1}, {"a": "x", "b": 1}):
        assert memo.args_hash("read", args) == args_hash("read", args)
    assert memo.args_hash("exec", {"a": "x", "b": 1}) == args_hash("exec", {"a": "x", "b": 1})
    assert hashed == [b'{"a":"x","b":1}', b'{"a":"x","b":1}']  # once per tool
    assert memo._args == {}
    big = {"text": "x" * MEMO_MAX_BYTES}
    assert memo.args_hash("write", big) == memo.args_hash("write", big) == args_hash("write", big)
    assert len(hashed) == 4  # past MEMO_MAX_BYTES: hashed each time, never remembered
    assert marshalled == []


def test_a_generation_with_its_own_hash_keys_by_marshal_bytes() -> None:
    """E5.4 hashes with its private stringify: its memo never keys by the shared canonical
    text (the same bytes would be another hash there)."""
    memo = HashMemo(legacy_args_hash)
    assert memo._by_text is None
    for _ in range(2):
        assert memo.args_hash("t", {"a": 1}) == legacy_args_hash("t", {"a": 1})
    assert len(memo._args) == 1


@given(values)
def test_canonical_whole_is_what_digest_hashes(value: Any) -> None:
    """Where `canonical_whole` gives bytes, `args_hash_of` of them is `args_hash` exactly."""
    text = canonical_whole(value)
    if text is not None:
        assert args_hash_of("t", text) == args_hash("t", value)
        assert text.decode("utf-8") == canonical_slow(value)
