"""Parsing for the editor without starting over: what did not change is not parsed again.

The language server re-checks a config on every change. Most of a check's parse is of text the
change did not touch, so `ParseCache` keeps the last document of each file and:

- returns it as it is when the file's text is unchanged (an included file while the config
  that includes it is typed in, the config while its include is edited, a save);
- after an edit of a JSON5/JSON file, parses again only the innermost value that holds the
  whole edit and after which its line holds nothing but a comma (so that nothing else moves
  sideways), alone, gives its spans new lines in the file's `LineTable`, and puts it into a
  copy of the old tree's path to it. Every other value is the old document's own object,
  those after the edit too: when the edit added or removed lines, the table moves their
  lines (their spans are `nodes.MovableSpan`s), so nothing is copied and the results the
  server's memo keeps for them (loopcfg/memo.py) hold. The old document is used up: its
  spans read the new text's lines. The line starts of the last text are kept and patched,
  not found again.

Anything else (YAML, an edit outside every value but the root, a value that does not parse
alone) is parsed from the start, as `loopcfg validate` parses it. Either way the document
equals `fresh_parse` of the new text (tests/lsp/test_incremental.py checks that over generated
edits), so the diagnostics are `validate`'s.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict

from loopcfg.source import SourceError, fresh_parse
from loopcfg.source.json5 import MAX_DEPTH
from loopcfg.source.nodes import (
    ArrayNode,
    Comment,
    DocPath,
    Document,
    Entry,
    LineTable,
    MovableSpan,
    Node,
    ObjectNode,
    Span,
)
from loopcfg.source.nodes import line_starts as text_line_starts  # its name is taken here

_LINE_BREAK = re.compile("[\n\r\u2028\u2029]")
# What may follow the re-parsed value on its last line: a comma, spaces. Anything else there
# (a closing bracket, a sibling, a comment) would move with the edit, so a wider value is taken.
_PLAIN_TAIL = re.compile("[ \t]*,?[ \t]*")
_KEPT_FILES = 64  # documents remembered (open buffers and the files they include)


class ParseCache:
    """The last parsed document of each file, reused and patched for the next text.

    One per server; not thread-safe (the server runs one check at a time)."""

    def __init__(self) -> None:
        self.documents: OrderedDict[tuple[str, str], Document] = OrderedDict()
        # The line starts of each kept document's text, once asked: an edit patches them
        # instead of finding every line break of the file again.
        self.line_starts: dict[tuple[str, str], tuple[str, list[int]]] = {}
        self.reparsed = 0  # edits parsed only around the change (for tests and the bench)
        self.reused = 0  # texts found unchanged

    def parse(self, text: str, file: str, format: str) -> Document:
        """What `fresh_parse(text, file, format)` returns (or raises)."""
        key = (file, format)
        old = self.documents.get(key)
        document: Document | None = None
        if old is not None and old.text == text:
            self.reused += 1
            document = old
        elif old is not None and format != "yaml":
            kept = self.line_starts.get(key)
            starts = kept[1] if kept is not None and kept[0] is old.text else None
            patched = _reparse(old, text, starts)
            if patched is not None:
                self.reparsed += 1
                document, starts = patched
                self.line_starts[key] = (document.text, starts)
        if document is None:
            document = fresh_parse(text, file, format, movable=True)
        self.documents[key] = document
        self.documents.move_to_end(key)
        while len(self.documents) > _KEPT_FILES:
            evicted, _ = self.documents.popitem(last=False)
            self.line_starts.pop(evicted, None)
        return document


# -- where the edit is ----------------------------------------------------------------------------


def _common_prefix(old: str, new: str) -> int:
    """The length of the longest common prefix (binary search on slices: C-speed compares)."""
    low, high = 0, min(len(old), len(new))
    while low < high:
        middle = (low + high + 1) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(old: str, new: str, limit: int) -> int:
    """The length of the longest common suffix, at most `limit`."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if old[len(old) - middle :] == new[len(new) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low


class _Edit:
    """Where two texts differ: offsets of the change in each, and in the old text the (line,
    column) of its first character and of the character after it (1-based, as spans count)."""

    __slots__ = ("delta", "first", "last", "lines", "new_end", "old_end", "start")

    def __init__(self, old: str, new: str, line_starts: list[int]) -> None:
        self.start = _common_prefix(old, new)
        suffix = _common_suffix(old, new, min(len(old), len(new)) - self.start)
        self.old_end = len(old) - suffix
        self.new_end = len(new) - suffix
        self.delta = len(new) - len(old)
        self.first = _position(line_starts, self.start)
        self.last = _position(line_starts, self.old_end)
        # Lines added (or removed, below zero): everything after the edit moves by as many.
        added = len(_LINE_BREAK_TOKEN.findall(new, self.start, self.new_end))
        self.lines = added - len(_LINE_BREAK_TOKEN.findall(old, self.start, self.old_end))

    def splits_a_line_break(self, old: str, new: str) -> bool:
        """True when the change starts or ends between a "\r" and its "\n" (one line break
        would become two, or two one, in a way counting the changed text alone misses)."""
        return any(
            text[offset - 1 : offset + 1] == "\r\n"
            for text, offset in (
                (old, self.start),
                (old, self.old_end),
                (new, self.start),
                (new, self.new_end),
            )
        )


def _position(line_starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect_right(line_starts, offset)
    return line, offset - line_starts[line - 1] + 1


# -- which value to parse again -------------------------------------------------------------------


def _covers(span: Span | None, edit: _Edit) -> bool:
    return (
        span is not None
        and (span.line, span.column) <= edit.first
        and (span.end_line, span.end_column) >= edit.last
    )


def _path_to_edit(root: Node, edit: _Edit) -> list[Node]:
    """The nodes from the root down to the innermost one whose span holds the whole edit."""
    chain = [root]
    node: Node | None = root
    while node is not None:
        children: list[Node] = []
        if isinstance(node, ObjectNode):
            children = [entry.value for entry in node.entries]
        elif isinstance(node, ArrayNode):
            children = node.items
        node = next((child for child in children if _covers(child.span, edit)), None)
        if node is not None:
            chain.append(node)
    return chain


def _ends_its_line(node: Node, old: str, edit: _Edit, line_starts: list[int]) -> bool:
    """Nothing but a comma and blanks follows `node` on the edit's last line (or it ends on a
    later line): then what follows it moves by whole lines only, if at all."""
    span = node.span
    assert span is not None
    if span.end_line > edit.last[0]:
        return True
    tail_start = line_starts[span.end_line - 1] + span.end_column - 1
    found = _LINE_BREAK.search(old, tail_start)
    tail_end = found.start() if found else len(old)
    return _PLAIN_TAIL.fullmatch(old, tail_start, tail_end) is not None


def reparse(old: Document, text: str) -> Document | None:
    """`old` brought to `text` by parsing only the value around the edit; None when that
    cannot be done (then the caller parses `text` afresh)."""
    patched = _reparse(old, text, None)
    return None if patched is None else patched[0]


def _reparse(
    old: Document, text: str, line_starts: list[int] | None
) -> tuple[Document, list[int]] | None:
    """`reparse`, given the line starts of `old.text` if known, with those of `text`."""
    if old.text.startswith("\ufeff") or text.startswith("\ufeff"):
        return None  # a BOM shifts the first line's columns: not worth the care
    if line_starts is None:
        line_starts = text_line_starts(old.text)
    edit = _Edit(old.text, text, line_starts)
    if edit.splits_a_line_break(old.text, text):
        return None
    chain = _path_to_edit(old.root, edit)
    for depth in range(len(chain) - 1, 0, -1):  # the root itself: a fresh parse is as fast
        if _ends_its_line(chain[depth], old.text, edit, line_starts):
            document = _replace_value(old, text, chain[: depth + 1], edit, line_starts)
            if document is None:
                return None
            return document, _starts_after(line_starts, edit, text)
    return None


def _starts_after(line_starts: list[int], edit: _Edit, text: str) -> list[int]:
    """The line starts of the new `text` from the old ones: those up to the edit stay, the
    line breaks inside it are found again, those after it move by its length. (No line break
    is split by the edit: `splits_a_line_break` refused that.)"""
    head = bisect_right(line_starts, edit.start)
    tail = bisect_right(line_starts, edit.old_end)
    inside = [found.end() for found in _LINE_BREAK_TOKEN.finditer(text, edit.start, edit.new_end)]
    delta = edit.delta
    return [*line_starts[:head], *inside, *(start + delta for start in line_starts[tail:])]


# -- parsing the value alone and putting it in ----------------------------------------------------


def _replace_value(
    old: Document, text: str, chain: list[Node], edit: _Edit, line_starts: list[int]
) -> Document | None:
    table = old.lines
    if table is None:
        return None  # plain Spans (not the server's parse) cannot be moved in place
    target = chain[-1]
    span = target.span
    assert span is not None
    first_line, first_column = span.line, span.column
    start = line_starts[first_line - 1] + first_column - 1  # before the edit: it does not move
    end = line_starts[span.end_line - 1] + span.end_column - 1 + edit.delta  # after it: moves
    # The value parsed alone; its positions are then moved to where it starts in the file.
    alone_text = text[start:end]
    try:
        alone = fresh_parse(alone_text, old.file, old.format)
    except SourceError:
        return None
    if any(_runs_to_the_end(comment, alone) for comment in alone.comments):
        return None  # a line comment cut short by the end of the value: it runs on in the file
    if _height(alone.root) + len(target.path) > MAX_DEPTH:
        return None  # deep enough that the whole file's parse would refuse it
    before, after = _comments_apart(old.comments, span)
    # From here on the old document's lines are the new text's: what follows the value moves
    # by the lines the edit added (its nodes and comments stay the same objects).
    table.shift(_last_unmoved_line(span, edit), edit.lines)
    lines = len(_LINE_BREAK_TOKEN.findall(alone_text)) + 1
    place = _Placer(old.file, table, table.new_lines(first_line, lines), first_column)
    _settle(alone.root, target.path, place)
    root = _rebuilt(chain, alone.root)
    inside = [Comment(comment.text, place(comment.span)) for comment in alone.comments]
    # No key written twice before, none in the new value: none now (the value replaced keeps
    # its key), so LC107 need not look through the whole tree again.
    no_duplicates = old.duplicate_keys is False and alone.duplicate_keys is False
    duplicate_keys = False if no_duplicates else None
    return Document(
        old.file,
        text,
        root,
        [*before, *inside, *after],
        old.format,
        duplicate_keys=duplicate_keys,
        lines=table,
    )


def _last_unmoved_line(span: Span, edit: _Edit) -> int:
    """The last line (of the old text) that an edit inside the value `span` does not move.
    When the value ends on the edit's last line, nothing but a comma follows it there
    (`_ends_its_line`), so its line stays; when it ends on a later line, that line's rest
    (after the value) moves with what follows, and the value's other lines are its own."""
    return span.end_line if span.end_line <= edit.last[0] else span.end_line - 1


_LINE_BREAK_TOKEN = re.compile("\r\n|[\n\r\u2028\u2029]")


class _Placer:
    """Moves a span of a value parsed alone to where the value starts in the file: its lines
    get the `ids` of new lines in the file's `LineTable` (the value's line 1 the first), and
    its first line moves right by the columns before it."""

    __slots__ = ("columns", "file", "ids", "table")

    def __init__(self, file: str, table: LineTable, ids: list[int], column: int) -> None:
        self.file = file
        self.table = table
        self.ids = ids
        self.columns = column - 1

    def __call__(self, span: Span) -> Span:
        ids, columns = self.ids, self.columns
        return MovableSpan(
            self.file,
            self.table,
            ids[span.line - 1],
            span.column + columns if span.line == 1 else span.column,
            ids[span.end_line - 1],
            span.end_column + columns if span.end_line == 1 else span.end_column,
        )


def _runs_to_the_end(comment: Comment, alone: Document) -> bool:
    return comment.text.startswith("//") and alone.text.endswith(comment.text)


def _height(node: Node) -> int:
    """Nesting levels of containers at and below `node`."""
    if isinstance(node, ObjectNode):
        return 1 + max((_height(entry.value) for entry in node.entries), default=0)
    if isinstance(node, ArrayNode):
        return 1 + max((_height(item) for item in node.items), default=0)
    return 0


def _settle(node: Node, prefix: DocPath, place: _Placer) -> None:
    """Put the re-parsed value in its place: its paths start with `prefix`, and it gets its
    Spans now, where it is in the file. (Left lazy, each of its keys and nodes would keep
    this parse's text alive for as long as the value is not edited again: memory grew by
    25 MB over 600 edits when that text was a blanked copy of the whole file.)"""
    stack = [node]
    while stack:
        current = stack.pop()
        if prefix:
            current.path = (*prefix, *current.path)
        current.span = _placed(current.span, place)
        if isinstance(current, ObjectNode):
            for entry in current.entries:
                entry.key.span = _placed(entry.key.span, place)
                stack.append(entry.value)
        elif isinstance(current, ArrayNode):
            stack.extend(current.items)


def _placed(span: Span | None, place: _Placer) -> Span | None:
    return None if span is None else place(span)


def _rebuilt(chain: list[Node], value: Node) -> Node:
    """Copies of the containers on `chain` (root first) with its last node replaced by
    `value`; the old tree is left as it was (an earlier check holds it, and the memo keys on
    its nodes). Every other value is shared, those after the edit too: their spans' lines
    are read from the `LineTable`, which the edit moved."""
    replacement = value
    for parent, child in zip(reversed(chain[:-1]), reversed(chain[1:]), strict=True):
        if isinstance(parent, ObjectNode):
            index = next(i for i, entry in enumerate(parent.entries) if entry.value is child)
            entries = list(parent.entries)
            entries[index] = Entry(parent.entries[index].key, replacement)
            replacement = ObjectNode(entries, parent.place, parent.path)
        else:
            assert isinstance(parent, ArrayNode)
            index = next(i for i, item in enumerate(parent.items) if item is child)
            items = list(parent.items)
            items[index] = replacement
            replacement = ArrayNode(items, parent.place, parent.path)
    return replacement


def _comments_apart(old: list[Comment], span: Span) -> tuple[list[Comment], list[Comment]]:
    """The old comments before the value and those after it (read before the edit moves
    lines)."""
    first = (span.line, span.column)
    last = (span.end_line, span.end_column)
    before = [c for c in old if (c.span.end_line, c.span.end_column) <= first]
    after = [c for c in old if (c.span.line, c.span.column) >= last]
    return before, after


__all__ = ["ParseCache", "reparse"]
