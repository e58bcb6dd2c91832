"""Per-session memo of argument and outcome hashes, keyed by value (04 §4.3, §4.4).

A loop is the same call with the same result again and again, and each call's arguments are
hashed for `check`, `record_call` and `record_outcome`: remembering the last few values' hashes
makes exactly the calls the engine exists to catch cheap. Keys are *values*, never identities:
the marshal bytes of the value (marshal takes exact builtin types only and writes each with its
type), so a value mutated after it was hashed is a miss, not a stale hash.

A hit is exact only for JSON-shaped values (exact dict/list/tuple/str/int/float/bool/None), whose
canonical JSON is a function of their marshal bytes. Other marshallable values are not: marshal
sorts a set's elements while `str()` follows its hash table ({1, 9} and {9, 1}: equal bytes,
different texts), and a code object's `str()` holds its address. Arguments are checked when
they are stored; results, which are larger, when they are first hit (equal bytes mean an equal
structure, so the stored value was JSON-shaped exactly when the one at hand is) — a result seen
once never pays for the check.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Collection
from typing import Any

from loopcfg.hashing import args_hash, outcome_hash, string_action

MEMO_SIZE = 8  # entries per memo; a full memo is cleared (loops repeat a few values)
MEMO_MAX_BYTES = 4096  # larger arguments are not remembered (their bytes are the key)
# What marshal refuses (non-builtin or subclassed types) or cannot nest that deep.
_UNMARSHALLABLE = (ValueError, TypeError, RecursionError)
_LEAVES = (str, int, float, bool, type(None))


def json_shaped(value: Any) -> bool:
    """A tree of exact dict/list/tuple/str/int/float/bool/None (no cycles)."""
    try:
        return _json_shaped(value)
    except RecursionError:
        return False


def _json_shaped(value: Any) -> bool:
    kind = type(value)
    if kind in _LEAVES:
        return True
    if kind is dict:
        return all(type(k) in _LEAVES and _json_shaped(v) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(map(_json_shaped, value))
    return False


class HashMemo:
    """`args_hash` and `outcome_hash` of one session, remembered for recent values."""

    __slots__ = ("_args", "_outcomes", "_send_tools")

    def __init__(self, send_tools: Collection[str] = ()) -> None:
        self._send_tools = send_tools
        self._args: dict[tuple[str, bytes], str] = {}
        # (tool, args' action, SHA-256 of the result's marshal bytes) -> (hash, JSON-shaped?, None
        # until first hit). A digest, not the bytes: a remembered result costs 32 bytes whatever
        # its size.
        self._outcomes: dict[tuple[str, str | None, bytes], tuple[str | None, bool | None]] = {}

    def args_hash(self, tool: str, args: Any) -> str:
        try:
            key = marshal.dumps(args)
        except _UNMARSHALLABLE:
            return args_hash(tool, args)
        if len(key) > MEMO_MAX_BYTES:
            return args_hash(tool, args)
        memo = self._args
        h = memo.get((tool, key))
        if h is None:
            h = args_hash(tool, args)
            if not json_shaped(args):
                return h
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[(tool, key)] = h
        return h

    def outcome_hash(
        self, tool: str, args: Any, result: Any, error: Any
    ) -> tuple[str | None, str | None]:
        """(resultHash, unknownTool) as `loopcfg.hashing.outcome_hash` gives them."""
        if error is not None or type(result) is not dict:  # errors and scalars hash cheaply
            return outcome_hash(tool, args, result, error, send_tools=self._send_tools)
        action = string_action(args)  # all the rules of 04 §4.4 read of the arguments
        try:
            data = marshal.dumps(result)
        except _UNMARSHALLABLE:
            return outcome_hash(tool, args, result, error, send_tools=self._send_tools)
        key = (tool, action, hashlib.sha256(data).digest())
        memo = self._outcomes
        entry = memo.get(key)
        if entry is None:
            h, unknown = outcome_hash(tool, args, result, error, send_tools=self._send_tools)
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[key] = (h, None)
            return h, unknown
        h, shaped = entry
        if shaped is None:  # first hit: check once whether the value's bytes determine its hash
            shaped = json_shaped(result)
            memo[key] = (h, shaped)
        if shaped:
            return h, None  # results never name an unknown tool (only errors do)
        return outcome_hash(tool, args, result, error, send_tools=self._send_tools)
