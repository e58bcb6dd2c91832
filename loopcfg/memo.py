"""Results that depend only on some parsed subtrees, reused while those subtrees are the same.

The language server checks a config again after every edit, and its incremental parse
(loopcfg/lsp/incremental.py) hands the next check the very node objects of every value the
edit did not touch; a value that moved (lines added above it) or was parsed again is a new
object. So a result computed from some nodes alone (an agent's resolved scope, its lint
findings, a block's checks) is the same, positions included, for as long as those nodes are
the same objects: `SubtreeMemo` keeps such results keyed by the identity of the nodes (and of
other memoised results) they were computed from, plus the plain values they also read (the
target's line, the file name).

The library never holds one: the server keeps one per open config and passes it down through
`check.loaded_findings(..., memo=)`; without one (the command line) every result is computed
as before. Each check is one round (`new_round`): what it did not ask for is dropped when the
next round starts, so the memo holds the results of at most two checks and keeps alive only
the nodes of the last ones. Not thread-safe: the server runs one check at a time.

An edit that adds or removes lines copies every value after it (moved down or up): new
objects, so found by nothing above. The re-parse says which copy came from which node and
by how many lines everything after which line moved (`LineMove`); a round started with it
looks a missed result up again under the originals, and when the kind's result can be moved
(`movable`: positions only in Spans, none written into a message) returns it moved by the
lines. Other kinds are computed again; their new results stand for the old ones in later
lookups (a scope made again from a moved agent finds that agent's lint findings).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, NamedTuple, ParamSpec, TypeVar

from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.source.nodes import Span

__all__ = [
    "Aliases",
    "LineMove",
    "SpanMover",
    "StandIns",
    "SubtreeMemo",
    "movable",
    "moved_diagnostic",
    "moved_diagnostics",
    "stands_in",
    "unmoved",
]

T = TypeVar("T")
P = ParamSpec("P")

# (the objects a result was computed from, the result). Holding the objects keeps them alive,
# so while an entry is kept no other object can have the `id` its key holds: a key found is
# for the very same objects.
_Kept = tuple[tuple[object, ...], Any]

# id(copy) -> (the copy, what it stands for); the copy is held so that its id stays its own.
Aliases = dict[int, tuple[object, object]]
SpanMover = Callable[[Span], Span]
# kind -> how to move its result by an edit's lines (None: it cannot be, compute it again)
_MOVERS: dict[str, Callable[[Any, SpanMover], Any]] = {}


class LineMove(NamedTuple):
    """What an edit that added or removed lines did to one file's parse."""

    file: str
    after: int  # lines after this one (in the text before the edit) moved ...
    lines: int  # ... by this many (down; up when below zero)
    origins: Aliases  # each moved copy (values and keys), with the node it was copied from


# kind -> (new result, old result, `SubtreeMemo.original`) -> the (new, old) objects of the
# results that stand for each other in later lookups
StandIns = Callable[[Any, Any, Callable[[object], object]], Iterable[tuple[object, object]]]
_STAND_INS: dict[str, StandIns] = {}


def stands_in(kind: str) -> Callable[[StandIns], StandIns]:
    """Register which parts of a result of `kind`, computed again for moved copies, stand
    for the parts of the old result (only what follows from the anchors and values alone)."""

    def register(pairs: StandIns) -> StandIns:
        _STAND_INS[kind] = pairs
        return pairs

    return register


def movable(
    kind: str,
) -> Callable[[Callable[[Any, SpanMover], Any]], Callable[[Any, SpanMover], Any]]:
    """Register how results of `kind` are moved (the function returns None when a result
    cannot be: then it is computed again)."""

    def register(mover: Callable[[Any, SpanMover], Any]) -> Callable[[Any, SpanMover], Any]:
        _MOVERS[kind] = mover
        return mover

    return register


def moved_diagnostic(diagnostic: Diagnostic, move: SpanMover) -> Diagnostic | None:
    """`diagnostic` with its places moved; None when a text names a place of its file (a
    message "set at file:4:7" would have to be worded again)."""
    mark = f"{diagnostic.file}:"
    texts = (diagnostic.message, diagnostic.hint or "", *(r.message for r in diagnostic.related))
    if any(mark in text for text in texts):
        return None
    span = diagnostic.span
    return Diagnostic(
        diagnostic.code,
        diagnostic.severity,
        diagnostic.message,
        diagnostic.file,
        None if span is None else move(span),
        diagnostic.path,
        diagnostic.hint,
        diagnostic.agent,
        tuple(Related(move(r.span), r.message) for r in diagnostic.related),
    )


def moved_diagnostics(found: list[Diagnostic], move: SpanMover) -> list[Diagnostic] | None:
    out = []
    for diagnostic in found:
        moved = moved_diagnostic(diagnostic, move)
        if moved is None:
            return None
        out.append(moved)
    return out


def unmoved(result: object, move: SpanMover) -> object:
    return result  # no position in it


class SubtreeMemo:
    """Results keyed by the identity of the objects they were computed from."""

    __slots__ = ("_aliases", "_current", "_moves", "_origins", "_previous", "hits", "misses")

    def __init__(self) -> None:
        self._previous: dict[Hashable, _Kept] = {}
        self._current: dict[Hashable, _Kept] = {}
        self._aliases: Aliases = {}  # results made again that stand for old ones
        self._origins: Aliases = {}  # the re-parse's copies (read, never written)
        self._moves: tuple[LineMove, ...] = ()
        self.hits = 0  # for tests and the bench
        self.misses = 0

    def new_round(self, moves: tuple[LineMove, ...] = ()) -> None:
        """Start a check: only what the last check used stays available. `moves`: what the
        edits since the last check moved (the re-parse's copies and their lines)."""
        self._previous = self._current
        self._current = {}
        self._moves = moves
        self._aliases = {}
        if len(moves) == 1:
            self._origins = moves[0].origins  # not copied: thousands of values after an Enter
        else:
            self._origins = {}
            for move in moves:
                self._origins.update(move.origins)

    # -- results of moved copies ----------------------------------------------------------

    def _originals(self, anchors: tuple[object, ...]) -> tuple[object, ...] | None:
        """The objects `anchors` stand for, or None when none of them is a stand-in."""
        aliases, origins = self._aliases, self._origins
        originals = []
        changed = False
        for anchor in anchors:
            found = origins.get(id(anchor)) or aliases.get(id(anchor))
            if found is not None and found[0] is anchor:
                originals.append(found[1])
                changed = True
            else:
                originals.append(anchor)
        return tuple(originals) if changed else None

    def _original_result(
        self, kind: str, anchors: tuple[object, ...], values: Hashable
    ) -> tuple[Any] | None:
        originals = self._originals(anchors)
        if originals is None:
            return None
        key = (kind, *map(id, originals), values)
        kept = self._previous.get(key) or self._current.get(key)
        return None if kept is None else (kept[1],)

    def _moved(self, kind: str, anchors: tuple[object, ...], values: Hashable) -> tuple[Any] | None:
        """The result kept for what `anchors` stand for, moved by the edit's lines."""
        mover = _MOVERS.get(kind)
        if mover is None:
            return None
        kept = self._original_result(kind, anchors, values)
        if kept is None:
            return None
        moved = mover(kept[0], self._move_span)
        if moved is None:
            return None
        self._alias(moved, kept[0])
        return (moved,)

    def _stand_in(
        self, kind: str, anchors: tuple[object, ...], values: Hashable, result: object
    ) -> None:
        """A result computed again for moved copies stands for the old one where its kind
        says so (`stands_in`): an agent's roster entry for the old entry, so that the scope
        made from it is found by the old scope's lint findings."""
        pairs = _STAND_INS.get(kind)
        if pairs is None:
            return
        kept = self._original_result(kind, anchors, values)
        if kept is None:
            return
        for new, old in pairs(result, kept[0], self.original):
            self._alias(new, old)

    def original(self, anchor: object) -> object:
        """What `anchor` stands for this round (itself when nothing)."""
        found = self._origins.get(id(anchor)) or self._aliases.get(id(anchor))
        return found[1] if found is not None and found[0] is anchor else anchor

    def _alias(self, new: object, old: object) -> None:
        if new is not old:
            self._aliases[id(new)] = (new, old)

    def _move_span(self, span: Span) -> Span:
        for move in self._moves:
            if span.file != move.file:
                continue
            after, lines = move.after, move.lines
            line = span.line + lines if span.line > after else span.line
            end_line = span.end_line + lines if span.end_line > after else span.end_line
            if line != span.line or end_line != span.end_line:
                span = Span(span.file, line, span.column, end_line, span.end_column)
        return span

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
                if self._moves:
                    moved = self._moved(kind, anchors, values)
                    if moved is not None:
                        self.hits += 1
                        self._current[key] = (anchors, moved[0])
                        moved_result: T = moved[0]
                        return moved_result
                self.misses += 1
                result = compute(*args, **kwargs)
                self._current[key] = (anchors, result)
                if self._moves:
                    self._stand_in(kind, anchors, values, result)
                return result
            self._current[key] = kept
        self.hits += 1
        found: T = kept[1]
        return found

    def peek(
        self, kind: str, anchors: tuple[object, ...], values: Hashable = None
    ) -> tuple[Any] | None:
        """(the result kept for these anchors and values,) or None; a result found is kept
        for the next round too."""
        key = (kind, *map(id, anchors), values)
        kept = self._current.get(key)
        if kept is None:
            kept = self._previous.get(key)
            if kept is None:
                found = self._moved(kind, anchors, values) if self._moves else None
                if found is not None:
                    self._current[key] = (anchors, found[0])
                return found
            self._current[key] = kept
        return (kept[1],)

    def put(
        self, kind: str, anchors: tuple[object, ...], result: object, values: Hashable = None
    ) -> None:
        """Keep `result` as what `kind` gives for the objects `anchors` and `values`."""
        self._current[(kind, *map(id, anchors), values)] = (anchors, result)
        if self._moves:
            self._stand_in(kind, anchors, values, result)

    def __len__(self) -> int:
        """Entries held, of both rounds (one carried over counts twice): for tests."""
        return len(self._current) + len(self._previous)
