"""Text edits on a document's text: positions from spans, non-overlapping replacements.

Spans are 1-based lines and code-point columns after a leading BOM (01 §1.6); a Python `str`
index is a code point, so an offset is the start of the span's line plus its column - 1.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from typing import Any, Generic, NamedTuple, TypeVar

from loopcfg.source.nodes import LINE_BREAKS, Span, line_starts

Item = TypeVar("Item")


class EditError(Exception):
    """An edit that cannot be made safely (overlapping edits, a value the format cannot hold)."""


class TextEdit(NamedTuple):
    """Replace text[start:end] with `text` (start == end inserts)."""

    start: int
    end: int
    text: str


class Positions:
    """Offsets of a text's line starts, to turn spans into offsets and back."""

    __slots__ = ("line_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        start = 1 if text.startswith("\ufeff") else 0
        self.line_starts = line_starts(text, start)

    def offset(self, line: int, column: int) -> int:
        return self.line_starts[line - 1] + column - 1

    def start(self, span: Span) -> int:
        return self.offset(span.line, span.column)

    def end(self, span: Span) -> int:
        return self.offset(span.end_line, span.end_column)

    def line_of(self, offset: int) -> int:
        """The 1-based line that holds `offset`."""
        return bisect_right(self.line_starts, offset)

    def line_start(self, offset: int) -> int:
        return self.line_starts[self.line_of(offset) - 1]

    def line_end(self, offset: int) -> int:
        """Where the line holding `offset` ends, before its terminator."""
        found = LINE_BREAKS.search(self.text, offset)
        return len(self.text) if found is None else found.start()

    def after_line_break(self, offset: int) -> int:
        """Past the terminator of the line holding `offset` (the end of the text on the last)."""
        found = LINE_BREAKS.search(self.text, offset)
        return len(self.text) if found is None else found.end()

    def indentation(self, offset: int) -> str:
        """The leading whitespace of the line holding `offset`."""
        start = self.line_start(offset)
        line = self.text[start : self.line_end(start)]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def line_break(self) -> str:
        """The file's own line terminator (the first one written; "\\n" without any)."""
        found = LINE_BREAKS.search(self.text)
        return "\n" if found is None else found.group()


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply edits that do not overlap (an insertion may touch a replaced range's ends)."""
    ordered = _merge_deletions(sorted(dict.fromkeys(edits), key=lambda e: (e.start, e.end)))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            raise EditError(f"overlapping edits at offsets {before.start} and {after.start}")
    pieces: list[str] = []
    position = 0
    for edit in ordered:
        pieces.append(text[position : edit.start])
        pieces.append(edit.text)
        position = edit.end
    pieces.append(text[position:])
    return "".join(pieces)


def _merge_deletions(ordered: list[TextEdit]) -> list[TextEdit]:
    """Deletions that overlap (two neighbours each taking the comma between them) are one."""
    merged: list[TextEdit] = []
    for edit in ordered:
        last = merged[-1] if merged else None
        if last is not None and not last.text and not edit.text and edit.start < last.end:
            merged[-1] = TextEdit(last.start, max(last.end, edit.end), "")
        else:
            merged.append(edit)
    return merged


def touched_ranges(edits: list[TextEdit]) -> list[tuple[int, int]]:
    """The ranges of the original text that the edits replace (for tests and reports)."""
    return sorted((edit.start, edit.end) for edit in edits)


class Ranges(Generic[Item]):
    """Items with a start and an end (text offsets, or (file, line, column) places), sorted
    by start with the farthest end reached so far: whether one of them covers a range,
    whether any overlaps it, which start inside it, each in O(log n) (migrate edits
    thousands of agents at once, and each question is asked of every container or comment)."""

    __slots__ = ("items", "reach", "starts")

    def __init__(self, items: Iterable[Item], bounds: Callable[[Item], tuple[Any, Any]]) -> None:
        self.items = sorted(items, key=bounds)
        ordered = [bounds(item) for item in self.items]
        self.starts = [start for start, _ in ordered]
        self.reach = list(itertools.accumulate((end for _, end in ordered), max))

    def covers(self, start: Any, end: Any) -> bool:
        """Whether one item spans `start`..`end` (the farthest reaching of those that start
        at or before `start` does, if any does)."""
        index = bisect_right(self.starts, start)
        return index > 0 and self.reach[index - 1] >= end

    def overlaps(self, start: Any, end: Any) -> bool:
        """Whether an item overlaps `start`..`end`."""
        index = bisect_left(self.starts, end)
        return index > 0 and self.reach[index - 1] > start

    def reaches_past(self, point: Any) -> bool:
        """Whether an item that starts at or before `point` ends after it."""
        index = bisect_right(self.starts, point)
        return index > 0 and self.reach[index - 1] > point

    def starting_in(self, low: Any, high: Any) -> list[Item]:
        """The items that start after `low` and at or before `high`."""
        return self.items[bisect_right(self.starts, low) : bisect_right(self.starts, high)]


def covered_by(spans: Iterable[Span]) -> Callable[[Span], bool]:
    """A test of whether a span lies inside one of `spans` (in the same file)."""
    ranges = Ranges(spans, _span_bounds)
    return lambda span: ranges.covers(*_span_bounds(span))


def _span_bounds(span: Span) -> tuple[tuple[str, int, int], tuple[str, int, int]]:
    return (span.file, span.line, span.column), (span.file, span.end_line, span.end_column)
