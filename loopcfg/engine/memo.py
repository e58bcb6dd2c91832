"""Per-session memo of argument hashes, keyed by value (04 §4.3).

A call's arguments are hashed for `check`, `record_call` and `record_outcome`, and a loop repeats
the same arguments again and again: remembering the last few values' hashes hashes each once.
Keys are *values*, never identities, so a value mutated after it was hashed is a miss, not a
stale hash:

- with the shared hash (every generation but E5.4), the canonical JSON's UTF-8 itself, where
  the fast path renders it whole (`hashing.canonical_whole`: plain JSON values, no floats, up
  to 32K characters): the hash is SHA-256 of exactly those bytes, so a hit is exact for any
  such value, and a miss costs nothing the hash would not (the bytes are what it hashes). A
  transcript's calls are nearly all unique: keying them by their marshal bytes cost a
  marshal of every call's arguments;
- else the marshal bytes of the value (marshal takes exact builtin types only and writes each
  with its type). A hit is exact only for JSON-shaped values (exact dict/list/tuple/str/int/
  float/bool/None), whose canonical JSON is a function of their marshal bytes; only those
  answer from the memo (a value is walked for its shape at its first repeat, not when first
  hashed). Other marshallable values are not: marshal sorts a set's elements while `str()`
  follows its hash table ({1, 9} and {9, 1}: equal bytes, different texts), and a code
  object's `str()` holds its address.

Results are not remembered: with orjson, hashing a ~2 KB result costs less than taking its
marshal bytes as a key would (measured by bench/engine.py).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any

from loopcfg.hashing import args_hash as shared_args_hash
from loopcfg.hashing import args_hash_of, canonical_whole

MEMO_SIZE = 8  # entries; a full memo is cleared (loops repeat a few values)
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
    """`loopcfg.hashing.args_hash` of one session, remembered for recent argument values."""

    __slots__ = ("_args", "_by_text", "_hash")

    def __init__(self, hash_args: Callable[[str, Any], str] = shared_args_hash) -> None:
        # (tool, marshal bytes) -> the hash; in a 1-tuple until the value is known to be
        # JSON-shaped (only then do equal bytes mean an equal canonical text).
        self._args: dict[tuple[str, bytes], str | tuple[str]] = {}
        # (tool, canonical UTF-8) -> the hash; None: `hash_args` is not the shared hash.
        self._by_text: dict[tuple[str, bytes], str] | None = (
            {} if hash_args is shared_args_hash else None
        )
        self._hash = hash_args  # E5.4 hashes with its private stringify (09 §9.1)

    def args_hash(self, tool: str, args: Any) -> str:
        by_text = self._by_text
        if by_text is not None:
            text = canonical_whole(args)
            if text is not None:
                if len(text) > MEMO_MAX_BYTES:
                    return args_hash_of(tool, text)
                entry = (tool, text)
                known = by_text.get(entry)
                if known is None:
                    known = args_hash_of(tool, text)
                    if len(by_text) >= MEMO_SIZE:
                        by_text.clear()
                    by_text[entry] = known
                return known
        try:
            key = marshal.dumps(args)
        except _UNMARSHALLABLE:
            return self._hash(tool, args)
        if len(key) > MEMO_MAX_BYTES:
            return self._hash(tool, args)
        memo = self._args
        entry = (tool, key)
        remembered = memo.get(entry)
        if remembered is None:
            h = self._hash(tool, args)
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            # Not yet known to be JSON-shaped: most arguments are never seen again (a replayed
            # transcript's calls are unique), so the walk waits for the first repeat.
            memo[entry] = (h,)
            return h
        if isinstance(remembered, tuple):  # the first repeat: may these bytes answer?
            if not json_shaped(args):
                del memo[entry]
                return self._hash(tool, args)
            remembered = memo[entry] = remembered[0]
        return remembered
