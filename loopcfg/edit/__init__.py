"""One text-edit layer for every command that writes a config (`fix`, `migrate`, the LSP).

Operations (loopcfg/edit/ops.py) name what to change by document path; `apply_operations`
turns them into the new text of that one file: JSON5/JSON through the parser's spans (only the
edited bytes change), YAML through ruamel.yaml's round trip. The result is parsed again and
must keep every comment that was not inside a removed member; otherwise `EditError`, and
nothing is written. `write_atomic` writes a file the safe way; `unified_diff` shows a change.
"""

from __future__ import annotations

from collections import Counter

from loopcfg.edit.ops import (
    Delete,
    EntriesToList,
    Insert,
    ListToEntries,
    Operation,
    Rename,
    Replace,
    locate,
)
from loopcfg.edit.text import EditError, Positions, TextEdit, apply_edits, covered_by
from loopcfg.edit.write import unified_diff, write_atomic
from loopcfg.source.nodes import (
    ArrayNode,
    DocPath,
    Document,
    Node,
    ObjectNode,
    Span,
    format_path,
    to_python,
)

__all__ = [
    "Delete",
    "EditError",
    "EntriesToList",
    "Insert",
    "ListToEntries",
    "Operation",
    "Rename",
    "Replace",
    "TextEdit",
    "apply_edits",
    "apply_operations",
    "unified_diff",
    "write_atomic",
]


def apply_operations(document: Document, operations: list[Operation]) -> str:
    """The document's new text after `operations`; raises EditError when that is unsafe."""
    from loopcfg.source import parse_text
    from loopcfg.source.errors import SourceError

    if not operations:
        return document.text
    if document.format == "yaml":
        from loopcfg.edit.yaml import apply_yaml

        text = apply_yaml(document, operations)
    else:
        from loopcfg.edit.json5 import Json5Editor

        text = Json5Editor(document).apply(operations)
    try:
        edited = parse_text(text, document.file, document.format)
    except SourceError as error:  # pragma: no cover - an editor bug; never written
        raise EditError(f"the edited file would not parse: {error.diagnostic.message}") from None
    if document.format == "json" and not _strict_json(text) and _strict_json(document.text):
        # loopcfg's parser reads JSON leniently (as OpenClaw's JSON5 does); a .json file that
        # every JSON parser reads must stay so (no trailing comma an edit left behind).
        raise EditError("the edited file would not be plain JSON any more")
    _check_comments(document, edited, operations)
    if document.format == "yaml":
        _check_untouched(document, edited, operations)
    return text


_ABSENT = object()


def _check_untouched(before: Document, after: Document, operations: list[Operation]) -> None:
    """Every value that no operation names reads the same after the edit. YAML's round trip
    writes the whole file again: a wrong indentation guess once moved a key under a list to
    the top level, and the file still parsed and validated."""
    touched: set[DocPath] = set()
    for operation in operations:
        path: DocPath = tuple(operation.path)
        if isinstance(operation, Insert):
            touched.add((*path, operation.key))
        elif isinstance(operation, Rename):
            touched |= {path, (*path[:-1], operation.name)}
        elif isinstance(operation, ListToEntries | EntriesToList):
            touched |= {(*path[:-1], name) for name in (path[-1], operation.name)}
        else:
            touched.add(path)
    # An anchored value is the same text as each of its aliases (and a `<<` merge's members
    # are their mapping's): what changes at one place changes at all of them.
    places = _places_of_containers(before.root)
    for path in list(touched):
        try:
            span = locate(before.root, path[:-1]).node.span
        except KeyError:  # inserted under something an earlier operation adds
            span = None
        key = None if span is None else (span.line, span.column, span.end_line, span.end_column)
        touched |= {(*alias, path[-1]) for alias in places.get(key, ())} if key else set()
    above = {path[:depth] for path in touched for depth in range(len(path))}
    old, new = to_python(before.root), to_python(after.root)
    pending: list[tuple[DocPath, object, object]] = [((), old, new)]
    while pending:
        path, was, now = pending.pop()
        if path in touched:
            continue
        if path not in above:
            if was != now:
                where = format_path(path) or "the top level"
                raise EditError(f"the edit would change {where}, which it does not name")
            continue
        if isinstance(was, dict) and isinstance(now, dict):
            for key in dict.fromkeys([*was, *now]):
                pending.append(((*path, key), was.get(key, _ABSENT), now.get(key, _ABSENT)))
        # Lists above a change (an item deleted shifts the rest) are not compared item by item.


def _places_of_containers(root: Node | None) -> dict[tuple[int, int, int, int], list[DocPath]]:
    """The paths of each object and array, by where it is written."""
    found: dict[tuple[int, int, int, int], list[DocPath]] = {}
    pending: list[tuple[DocPath, Node | None]] = [((), root)]
    while pending:
        path, node = pending.pop()
        if isinstance(node, ObjectNode):
            children = [((*path, entry.key.name), entry.value) for entry in node.entries]
        elif isinstance(node, ArrayNode):
            children = [((*path, index), item) for index, item in enumerate(node.items)]
        else:
            continue
        span = node.span
        if span is not None:
            place = (span.line, span.column, span.end_line, span.end_column)
            found.setdefault(place, []).append(path)
        pending.extend(children)
    return found


def _strict_json(text: str) -> bool:
    import json

    try:
        json.loads(text.removeprefix("\ufeff"))
    except ValueError:
        return False
    return True


def _check_comments(before: Document, after: Document, operations: list[Operation]) -> None:
    inside_removed = covered_by(_removed_spans(before, operations))
    kept = Counter(comment.text.strip() for comment in after.comments)
    for comment in before.comments:
        if inside_removed(comment.span):
            continue
        text = comment.text.strip()
        if kept[text] <= 0:
            raise EditError(f"the edit would lose the comment {text!r}")
        kept[text] -= 1


def _removed_spans(document: Document, operations: list[Operation]) -> list[Span]:
    spans: list[Span] = []
    written_end = _WrittenEnd(document)
    for operation in operations:
        if isinstance(operation, Delete):
            located = locate(document.root, operation.path, operation.occurrence)
            start = located.entry.key.span if located.entry is not None else located.node.span
            spans.extend(_joined(start, written_end(located.node)))
        elif isinstance(operation, Replace):
            node = locate(document.root, operation.path, operation.occurrence).node
            spans.extend(_joined(node.span, written_end(node)))
        elif isinstance(operation, ListToEntries):
            array = locate(document.root, operation.path).node
            for item, key in zip(getattr(array, "items", []), operation.keys, strict=False):
                if key is None:
                    spans.extend(_joined(item.span, item.span))
                elif isinstance(item, ObjectNode):
                    for entry in item.entries:
                        if entry.key.name == "id":
                            spans.extend(_joined(entry.key.span, entry.value.span))
        elif isinstance(operation, EntriesToList):
            record = locate(document.root, operation.path).node
            for entry in getattr(record, "entries", []):
                # Only the key's text goes (up to where its value starts), not the value's.
                value = entry.value.span
                start = None if value is None else Span(value.file, 1, 1, value.line, value.column)
                spans.extend(_joined(entry.key.span, start))
    return spans


class _WrittenEnd:
    """Where a value's own text ends. A YAML block collection's span runs on to the next
    token, over the comment lines after its last member (which belong to what follows, and
    which ruamel keeps on that last member): such a collection ends where its last member's
    value does. A flow collection ends at its bracket, a JSON5 value at its own end."""

    def __init__(self, document: Document) -> None:
        self.yaml = document.format == "yaml"
        self.positions = Positions(document.text) if self.yaml else None

    def __call__(self, node: Node) -> Span | None:
        span = node.span
        block = False
        while self.positions is not None and span is not None:
            children = (
                [entry.value for entry in node.entries]
                if isinstance(node, ObjectNode)
                else getattr(node, "items", None)
            )
            end = self.positions.end(span)
            if not children or self.positions.text[end - 1 : end] in ("}", "]"):
                break
            node, block = children[-1], True
            span = node.span
        if not block or span is None or self.positions is None:
            return span
        # The block's last line is its own to the end: an end-of-line comment there goes too.
        end = self.positions.line_end(self.positions.end(span))
        line = self.positions.line_of(end)
        column = end - self.positions.line_starts[line - 1] + 1
        return Span(span.file, span.line, span.column, line, column)


def _joined(start: Span | None, end: Span | None) -> list[Span]:
    if start is None or end is None:
        return []
    return [Span(start.file, start.line, start.column, end.end_line, end.end_column)]


# Rename and Insert never remove a comment; they are listed for the reader of _removed_spans.
_NEVER_REMOVE = (Rename, Insert)
