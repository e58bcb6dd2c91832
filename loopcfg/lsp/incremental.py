"""Parsing for the editor without starting over: what did not change is not parsed again.

The language server re-checks a config on every change. Most of a check's parse is of text the
change did not touch, so `ParseCache` keeps the last document of each file and:

- returns it as it is when the file's text is unchanged (an included file while the config
  that includes it is typed in, the config while its include is edited, a save);
- after an edit inside one line (typing), parses again only the innermost value around the
  edit that ends with its line (or on a later one), and puts that value into a copy of the old
  tree's path to it. Everything else, and every other line's comments, is the old document's:
  positions outside that line do not move when no line is added or removed.

Anything else (lines added or removed, YAML, a change in the file's first value's start, an
edit the value cannot take alone) is parsed from the start, as `loopcfg validate` parses it.
Either way the document equals `fresh_parse` of the new text (tests/lsp/test_incremental.py
checks that over generated edits), so the diagnostics are `validate`'s.
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
    Node,
    ObjectNode,
    Span,
)

_LINE_BREAK = re.compile("[\n\r\u2028\u2029]")
_NOT_A_LINE_BREAK = re.compile("[^\n\r\u2028\u2029]")
# What may follow the re-parsed value on its last line: a comma, spaces. Anything else there
# (a closing bracket, a sibling, a comment) would move with the edit, so a wider value is taken.
_PLAIN_TAIL = re.compile("[ \t]*,?[ \t]*")
_KEPT_FILES = 64  # documents remembered (open buffers and the files they include)


class ParseCache:
    """The last parsed document of each file, reused and patched for the next text.

    One per server; not thread-safe (the server runs one check at a time)."""

    def __init__(self) -> None:
        self.documents: OrderedDict[tuple[str, str], Document] = OrderedDict()
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
            document = reparse(old, text)
            self.reparsed += document is not None
        if document is None:
            document = fresh_parse(text, file, format)
        self.documents[key] = document
        self.documents.move_to_end(key)
        while len(self.documents) > _KEPT_FILES:
            self.documents.popitem(last=False)
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
    """One edit inside one line: the line (1-based), the columns (1-based, end exclusive) the
    changed text spans in the old and in the new text, and the offset of the line's start."""

    __slots__ = ("delta", "line", "line_start", "new_end", "old_end", "start")

    def __init__(self, old: str, new: str, line_starts: list[int]) -> None:
        start = _common_prefix(old, new)
        suffix = _common_suffix(old, new, min(len(old), len(new)) - start)
        self.line = bisect_right(line_starts, start)
        self.line_start = line_starts[self.line - 1]
        self.start = start - self.line_start + 1
        self.old_end = len(old) - suffix - self.line_start + 1
        self.new_end = len(new) - suffix - self.line_start + 1
        self.delta = len(new) - len(old)


def _within_one_line(old: str, new: str, edit: _Edit) -> bool:
    """True when the edit adds and removes no line break (so no line moves)."""
    start = edit.line_start + edit.start - 1
    removed = old[start : edit.line_start + edit.old_end - 1]
    added = new[start : edit.line_start + edit.new_end - 1]
    if _LINE_BREAK.search(removed) or _LINE_BREAK.search(added):
        return False
    # Text put between "\r" and "\n" would split one line break into two.
    return not (start > 0 and old[start - 1] == "\r")


# -- which value to parse again -------------------------------------------------------------------


def _covers(span: Span | None, line: int, start: int, end: int) -> bool:
    return (
        span is not None
        and (span.line, span.column) <= (line, start)
        and (
            span.end_line,
            span.end_column,
        )
        >= (line, end)
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
        node = next(
            (c for c in children if _covers(c.span, edit.line, edit.start, edit.old_end)), None
        )
        if node is not None:
            chain.append(node)
    return chain


def _ends_its_line(node: Node, old: str, edit: _Edit) -> bool:
    """Nothing but a comma and blanks follows `node` on the edited line (or it ends later)."""
    span = node.span
    assert span is not None
    if span.end_line > edit.line:
        return True
    tail_start = edit.line_start + span.end_column - 1
    found = _LINE_BREAK.search(old, tail_start)
    tail_end = found.start() if found else len(old)
    return _PLAIN_TAIL.fullmatch(old, tail_start, tail_end) is not None


def reparse(old: Document, text: str) -> Document | None:
    """`old` brought to `text` by parsing only the value around a one-line edit; None when that
    cannot be done (then the caller parses `text` afresh)."""
    line_starts = _line_starts(old.text)
    edit = _Edit(old.text, text, line_starts)
    if old.text.startswith("\ufeff") or text.startswith("\ufeff"):
        return None  # a BOM shifts the first line's columns: not worth the care
    if not _within_one_line(old.text, text, edit):
        return None
    chain = _path_to_edit(old.root, edit)
    for depth in range(len(chain) - 1, 0, -1):  # the root itself: a fresh parse is as fast
        if _ends_its_line(chain[depth], old.text, edit):
            return _replace_value(old, text, chain[: depth + 1], edit, line_starts)
    return None


# -- parsing the value alone and putting it in ----------------------------------------------------


def _replace_value(
    old: Document, text: str, chain: list[Node], edit: _Edit, line_starts: list[int]
) -> Document | None:
    target = chain[-1]
    span = target.span
    assert span is not None
    start = line_starts[span.line - 1] + span.column - 1  # before the edit: it does not move
    end = line_starts[span.end_line - 1] + span.end_column - 1 + edit.delta  # after it: moves
    # Blank everything before the value (line breaks kept): the parser then reports the
    # value's positions as they are in the whole text.
    blank = _NOT_A_LINE_BREAK.sub(" ", text[:start])
    try:
        alone = fresh_parse(blank + text[start:end], old.file, old.format)
    except SourceError:
        return None
    if any(_runs_to_the_end(comment, alone) for comment in alone.comments):
        return None  # a line comment cut short by the end of the value: it runs on in the file
    if _height(alone.root) + len(target.path) > MAX_DEPTH:
        return None  # deep enough that the whole file's parse would refuse it
    _prefix_paths(alone.root, target.path)
    root = _rebuilt(chain, alone.root)
    comments = _comments_around(old.comments, span, alone.comments)
    return Document(old.file, text, root, comments, old.format)


_LINE_BREAK_TOKEN = re.compile("\r\n|[\n\r\u2028\u2029]")


def _line_starts(text: str) -> list[int]:
    """The offset of each line's first character, as the parser counts lines."""
    return [0, *(found.end() for found in _LINE_BREAK_TOKEN.finditer(text))]


def _runs_to_the_end(comment: Comment, alone: Document) -> bool:
    return comment.text.startswith("//") and alone.text.endswith(comment.text)


def _height(node: Node) -> int:
    """Nesting levels of containers at and below `node`."""
    if isinstance(node, ObjectNode):
        return 1 + max((_height(entry.value) for entry in node.entries), default=0)
    if isinstance(node, ArrayNode):
        return 1 + max((_height(item) for item in node.items), default=0)
    return 0


def _prefix_paths(node: Node, prefix: DocPath) -> None:
    if not prefix:
        return
    stack = [node]
    while stack:
        current = stack.pop()
        current.path = (*prefix, *current.path)
        if isinstance(current, ObjectNode):
            stack.extend(entry.value for entry in current.entries)
        elif isinstance(current, ArrayNode):
            stack.extend(current.items)


def _rebuilt(chain: list[Node], value: Node) -> Node:
    """Copies of the containers on `chain` (root first) with its last node replaced by `value`;
    the old tree is left as it was (an earlier check may still hold it)."""
    replacement = value
    for parent, child in zip(reversed(chain[:-1]), reversed(chain[1:]), strict=True):
        if isinstance(parent, ObjectNode):
            entries = [
                Entry(entry.key, replacement) if entry.value is child else entry
                for entry in parent.entries
            ]
            replacement = ObjectNode(entries, parent.span, parent.path)
        else:
            assert isinstance(parent, ArrayNode)
            items = [replacement if item is child else item for item in parent.items]
            replacement = ArrayNode(items, parent.span, parent.path)
    return replacement


def _comments_around(old: list[Comment], span: Span, inside: list[Comment]) -> list[Comment]:
    """The old comments before and after the value, with the re-parsed value's own between."""
    first = (span.line, span.column)
    last = (span.end_line, span.end_column)
    before = [c for c in old if (c.span.end_line, c.span.end_column) <= first]
    after = [c for c in old if (c.span.line, c.span.column) >= last]
    return [*before, *inside, *after]


__all__ = ["ParseCache", "reparse"]
