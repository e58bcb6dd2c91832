"""Results that depend only on some parsed subtrees, reused while those subtrees are the same.

The language server checks a config again after every edit, and its incremental parse
(loopcfg/lsp/incremental.py) hands the next check the very node objects of every value the
edit did not touch, those that an edit moved to other lines (lines added above them) too; a
value parsed again is a new object. So a result computed from some nodes alone (an agent's
resolved scope, its lint findings, a block's checks) is the same for as long as those nodes
are the same objects: `SubtreeMemo` keeps such results keyed by the identity of the nodes (and
of other memoised results) they were computed from, plus the plain values they also read (the
target's line, the file name).

Positions included: the server's spans are `nodes.MovableSpan`s, whose lines an edit moves in
place, so a kept result must hold positions only as those spans (or `settings.PlacedSource`),
never copied out of them. What copies one out (a message naming `file:line:column`) must be
checked before reuse (`lint._memoised_lints`), and a set or dict keyed by spans hashes them
where they were (so `lint` makes the global findings' identities in every check).

Array indices likewise: an item added or removed above others in an array renumbers them in
place (their nodes' paths), so what is kept for an agent is keyed by its node, not by its
index or path, and is given them when reported (`resolve._memoised_entry`, `lint._AgentLints.of`,
`validate._memoised_rejected`).

The library never holds one: the server keeps one per open config and passes it down through
`check.loaded_findings(..., memo=)`; without one (the command line) every result is computed
as before. Each check is one round (`new_round`): what it did not ask for is dropped when the
next round starts, so the memo holds the results of at most two checks and keeps alive only
the nodes of the last ones. Not thread-safe: the server runs one check at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, TypeVar

__all__ = ["SubtreeMemo"]

T = TypeVar("T")
P = ParamSpec("P")

# (the objects a result was computed from, the result). Holding the objects keeps them alive,
# so while an entry is kept no other object can have the `id` its key holds: a key found is
# for the very same objects.
_Kept = tuple[tuple[object, ...], Any]


class SubtreeMemo:
    """Results keyed by the identity of the objects they were computed from."""

    __slots__ = ("_current", "_previous", "hits", "misses")

    def __init__(self) -> None:
        self._previous: dict[Hashable, _Kept] = {}
        self._current: dict[Hashable, _Kept] = {}
        self.hits = 0  # for tests and the bench
        self.misses = 0

    def new_round(self) -> None:
        """Start a check: only what the last check used stays available."""
        self._previous = self._current
        self._current = {}

    def get(
        self,
        kind: str,
        anchors: tuple[object, ...],
        values: Hashable,
        compute: Callable[P, T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """`compute(*args, **kwargs)`, or what it returned for the same `kind`, the same
        objects `anchors` (compared by identity) and equal `values`. The result must follow
        from those alone: `compute` reads nothing else that can change between checks."""
        # Called for every agent several times per check: written for speed (no `peek`).
        key = (kind, *map(id, anchors), values)
        kept = self._current.get(key)
        if kept is None:
            kept = self._previous.get(key)
            if kept is None:
                self.misses += 1
                result = compute(*args, **kwargs)
                self._current[key] = (anchors, result)
                return result
            self._current[key] = kept
        self.hits += 1
        found: T = kept[1]
        return found

    def peek(
        self, kind: str, anchors: tuple[object, ...], values: Hashable = None
    ) -> tuple[Any] | None:
        """(the result kept for these anchors and values,) or None; a result found is kept
        for the next round too. (Not counted: the caller may still make it again.)"""
        key = (kind, *map(id, anchors), values)
        kept = self._current.get(key)
        if kept is None:
            kept = self._previous.get(key)
            if kept is None:
                return None
            self._current[key] = kept
        return (kept[1],)

    def put(
        self, kind: str, anchors: tuple[object, ...], result: object, values: Hashable = None
    ) -> None:
        """Keep `result` as what `kind` gives for the objects `anchors` and `values`."""
        self._current[(kind, *map(id, anchors), values)] = (anchors, result)

    def __len__(self) -> int:
        """Entries held, of both rounds (one carried over counts twice): for tests."""
        return len(self._current) + len(self._previous)
