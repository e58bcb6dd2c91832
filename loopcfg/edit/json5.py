"""JSON5 and JSON edits through the parser's spans: only the edited bytes change.

Every operation becomes a few `TextEdit`s on the original text, in the file's own style: the
indentation of the neighbouring lines, its quote character, its trailing-comma habit and line
terminator (plain JSON: double quotes, no trailing comma). Comments are never inside what an
operation replaces unless they sit inside the removed member or item itself.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterator

from loopcfg.edit.ops import (
    Delete,
    EntriesToList,
    Insert,
    ListToEntries,
    Located,
    Operation,
    Rename,
    Replace,
    locate,
)
from loopcfg.edit.text import EditError, Positions, Ranges, TextEdit, apply_edits
from loopcfg.source.nodes import (
    ArrayNode,
    Document,
    Entry,
    Key,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
)

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_BLANK = re.compile(r"(?:[\s\ufeff]+|//[^\n\r\u2028\u2029]*|/\*.*?\*/)*", re.DOTALL)
_HORIZONTAL = re.compile(r"[ \t]*")


class Style:
    """How this file writes things: quotes, indentation unit, trailing commas, line breaks."""

    __slots__ = ("json", "line_break", "quote", "trailing_comma", "unit")

    def __init__(self, document: Document, positions: Positions) -> None:
        text = document.text
        self.json = document.format == "json"
        self.line_break = positions.line_break()
        self.quote = '"' if self.json or text.count('"') >= text.count("'") else "'"
        self.trailing_comma = not self.json and re.search(r",\s*(?://[^\n]*\s*)*[}\]]", text)
        self.unit = indent_unit(text)

    def key(self, name: str, like: str | None = None) -> str:
        """A key as this file writes it (`like`: a sibling key token to copy the quoting of)."""
        bare_sibling = like is None or like[:1] not in "\"'"
        if not self.json and _IDENTIFIER.match(name) and bare_sibling:
            return name
        quote = like[:1] if like and like[:1] in "\"'" and not self.json else self.quote
        return self.string(name, quote)

    def string(self, value: str, quote: str | None = None) -> str:
        quote = quote or self.quote
        body = json.dumps(value, ensure_ascii=False)[1:-1]
        if quote == "'":
            body = body.replace('\\"', '"').replace("'", "\\'")
        return f"{quote}{body}{quote}"

    def value(self, value: object, indent: str, *, inline: bool = False) -> str:
        """A plain value written at a place whose line is indented by `indent`; `inline`:
        on one line (`{ a: 1 }`), where the text around it goes on after it."""
        if value is None or isinstance(value, bool):
            return json.dumps(value)
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                if self.json:
                    raise EditError("plain JSON cannot hold NaN or Infinity")
                return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
            return repr(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
        if isinstance(value, str):
            return self.string(value)
        inner = indent + self.unit
        comma = "," if self.trailing_comma else ""
        if isinstance(value, dict):
            if not value:
                return "{}"
            members = [
                f"{self.key(str(k))}: {self.value(v, inner, inline=inline)}"
                for k, v in value.items()
            ]
            if inline:
                return "{ " + ", ".join(members) + " }"
            return self._block("{", "}", members, indent, inner, comma)
        if isinstance(value, list | tuple):
            if not value:
                return "[]"
            items = [self.value(item, inner, inline=inline) for item in value]
            if inline:
                return "[" + ", ".join(items) + "]"
            return self._block("[", "]", items, indent, inner, comma)
        raise EditError(f"cannot write a {type(value).__name__}")

    def _block(
        self, opener: str, closer: str, parts: list[str], indent: str, inner: str, comma: str
    ) -> str:
        nl = self.line_break
        body = f",{nl}".join(inner + part for part in parts)
        return f"{opener}{nl}{body}{comma}{nl}{indent}{closer}"


def indent_unit(text: str) -> str:
    """The smallest indentation step the file uses (two spaces when it shows none)."""
    widths = sorted(
        {len(line) - len(line.lstrip(" ")) for line in text.splitlines() if line.strip()}
    )
    steps = [b - a for a, b in itertools.pairwise(widths) if b > a]
    if "\n\t" in text:
        return "\t"
    return " " * min(steps) if steps else "  "


class Json5Editor:
    """Turns operations on one JSON5/JSON document into text edits and the new text."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.text = document.text
        self.positions = Positions(self.text)
        self.style = Style(document, self.positions)

    # -- public ------------------------------------------------------------------------------

    def apply(self, operations: list[Operation]) -> str:
        return apply_edits(self.text, self.edits(operations))

    def edits(self, operations: list[Operation]) -> list[TextEdit]:
        found: list[TextEdit] = []
        for operation in operations:
            found.extend(self.edits_of(operation))
        return found + self._emptied(found)

    def edits_of(self, operation: Operation) -> list[TextEdit]:
        root = self.document.root
        if isinstance(operation, Delete):
            return self.delete(locate(root, operation.path, operation.occurrence))
        if isinstance(operation, Rename):
            located = locate(root, operation.path, operation.occurrence)
            return [self.rename(_entry(located), operation.name)]
        if isinstance(operation, Replace):
            located = locate(root, operation.path, operation.occurrence)
            return [self.replace(located.node, operation.value)]
        if isinstance(operation, Insert):
            target = _object(locate(root, operation.path).node)
            return self.insert(target, operation.key, operation.value, first=operation.first)
        if isinstance(operation, ListToEntries):
            return self.list_to_entries(locate(root, operation.path), operation)
        return self.entries_to_list(locate(root, operation.path), operation)

    # -- the operations ----------------------------------------------------------------------

    def delete(self, located: Located) -> list[TextEdit]:
        parent = located.parent
        if parent is None:
            raise EditError("the root cannot be deleted")
        members: list[tuple[Span, Span]] = (
            [(_span(e.key.span), _span(e.value.span)) for e in parent.entries]
            if isinstance(parent, ObjectNode)
            else [(_span(item.span), _span(item.span)) for item in parent.items]
        )
        index = (
            parent.entries.index(located.entry)  # type: ignore[arg-type]
            if isinstance(parent, ObjectNode)
            else [id(item) for item in parent.items].index(id(located.node))
        )
        return self._delete_member(members, index)

    def rename(self, entry: Entry, name: str) -> TextEdit:
        span = _span(entry.key.span)
        token = self.text[self.positions.start(span) : self.positions.end(span)]
        return self._replace_span(span, self.style.key(name, like=token))

    def replace(self, node: Node, value: object) -> TextEdit:
        span = _span(node.span)
        indent = self.positions.indentation(self.positions.start(span))
        quote = None
        if isinstance(node, ScalarNode) and isinstance(node.value, str) and isinstance(value, str):
            quote = self.text[self.positions.start(span)]  # keep the string's own quotes
        # Something else goes on after it on its line (`{ a: 1, b: 2 }`): written inline.
        rest = self.text[
            self.positions.end(span) : self.positions.line_end(self.positions.end(span))
        ]
        inline = bool(rest.strip().lstrip(",").strip())
        written = (
            self.style.string(value, quote)
            if quote in ("'", '"') and isinstance(value, str)
            else self.style.value(value, indent, inline=inline)
        )
        return self._replace_span(span, written)

    def insert(self, target: ObjectNode, key: str, value: object, *, first: bool) -> list[TextEdit]:
        span = _span(target.span)
        opener = self.positions.start(span)
        closer = self.positions.end(span) - 1
        like = self._key_token(target.entries[0]) if target.entries else None
        if not target.entries:
            return [self._insert_into_empty(opener, closer, key, value)]
        nl = self.style.line_break
        anchor = target.entries[0] if first else target.entries[-1]
        anchor_start = self.positions.start(_span(anchor.key.span))
        own_line = self._starts_line(anchor_start)
        indent = self.positions.indentation(anchor_start) if own_line else ""
        written = self.style.value(value, indent, inline=not own_line)
        member = f"{self.style.key(key, like)}: {written}"
        if first:
            if own_line:
                below_opener = self._line_after_opener(opener, anchor_start)
                if below_opener is not None:
                    return [TextEdit(below_opener, below_opener, f"{indent}{member},{nl}")]
                return [TextEdit(anchor_start, anchor_start, f"{member},{nl}{indent}")]
            return [TextEdit(anchor_start, anchor_start, f"{member}, ")]
        value_end = self.positions.end(_span(anchor.value.span))
        comma = self._comma_after(value_end)
        if own_line:
            after = comma + 1 if comma is not None else value_end
            lead = "" if comma is not None else ","
            trail = "," if comma is not None else ""
            return [TextEdit(after, after, f"{lead}{nl}{indent}{member}{trail}")]
        if comma is not None:
            return [TextEdit(comma + 1, comma + 1, f" {member},")]
        return [TextEdit(value_end, value_end, f", {member}")]

    def list_to_entries(self, located: Located, operation: ListToEntries) -> list[TextEdit]:
        array = located.node
        if not isinstance(array, ArrayNode) or located.entry is None:
            raise EditError("the roster to convert is not an array member")
        if len(operation.keys) != len(array.items):
            raise EditError("one key per list item is needed")
        edits = [self.rename(located.entry, operation.name), *self._swap_brackets(array, "{}")]
        for item, key in zip(array.items, operation.keys, strict=True):
            if key is None:
                edits += self.delete(Located(item, None, array))
                continue
            start = self.positions.start(_span(item.span))
            edits.append(TextEdit(start, start, f"{self.style.key(key)}: "))
            if isinstance(item, ObjectNode):
                for entry in [e for e in item.entries if e.key.name == "id"]:
                    edits += self.delete(Located(entry.value, entry, item))
        return edits

    def entries_to_list(self, located: Located, operation: EntriesToList) -> list[TextEdit]:
        record = located.node
        if not isinstance(record, ObjectNode) or located.entry is None:
            raise EditError("the roster to convert is not an object member")
        edits = [self.rename(located.entry, operation.name), *self._swap_brackets(record, "[]")]
        for entry in record.entries:
            if not isinstance(entry.value, ObjectNode):
                raise EditError(f"agents.entries.{entry.key.name} is not an object")
            key_start = self.positions.start(_span(entry.key.span))
            value_start = self.positions.start(_span(entry.value.span))
            edits.append(TextEdit(key_start, value_start, ""))
            edits += self.insert(entry.value, "id", entry.key.name, first=True)
        return edits

    def _emptied(self, edits: list[TextEdit]) -> list[TextEdit]:
        """An object or array that `edits` leave with nothing inside but blanks is written
        `{}`/`[]`, not a `{` and a `}` on lines of their own: each deletion is computed alone,
        so only the whole set knows that it emptied its container. A comment left inside, or
        anything inserted there, keeps the container as it is. Only the containers a deletion
        reaches into are looked at, each in O(log n) of the edits (migrate edits thousands
        of agents at once)."""
        if all(edit.text for edit in edits):
            return []
        spans = _EditSpans(edits)
        collapsed: list[TextEdit] = []
        pending: list[Node] = [self.document.root]
        while pending:
            node = pending.pop()
            if not isinstance(node, ObjectNode | ArrayNode):
                continue
            where = self._offsets(node)
            if where is None:
                continue
            opener, closer = where[0], where[1] - 1
            if not spans.deletions.overlaps(opener + 1, closer):
                continue  # nothing deleted inside: neither it nor what it holds emptied
            children = (
                [entry.value for entry in node.entries]
                if isinstance(node, ObjectNode)
                else node.items
            )
            if self._all_deleted(node, spans) and self._left_blank(opener, closer, spans):
                collapsed.append(TextEdit(opener + 1, closer, ""))
                continue  # what it holds goes with it
            if not self.style.trailing_comma:
                collapsed += self._dangling_comma(node, closer, spans)
            pending.extend(children)
        return collapsed

    def _dangling_comma(
        self, node: ObjectNode | ArrayNode, closer: int, spans: _EditSpans
    ) -> list[TextEdit]:
        """The comma after the last member left when the ones after it were deleted, in a
        file that writes no trailing commas (plain JSON must not get one): each deletion
        of a last member takes the comma before it, but that comma may be another deleted
        member's, so only the whole set knows which comma ends up last."""
        members = list(self._member_ranges(node))
        for position in range(len(members) - 1, -1, -1):
            member = members[position]
            if member is None:
                return []
            if not spans.deletions.covers(*member):
                break
        else:
            return []  # every member deleted (or none): nothing is left to end with a comma
        if position == len(members) - 1:
            return []  # the last member is kept: its own comma habit stands
        comma = self._comma_after(member[1])
        if comma is None or spans.deletions.covers(comma, comma + 1):
            return []
        if spans.between(comma, closer) is None:
            return []
        end = comma + 1
        if self.positions.line_end(comma) >= closer:  # `[1, ]` -> `[1]`: the space goes too
            end = _HORIZONTAL.match(self.text, end).end()  # type: ignore[union-attr]
        return [TextEdit(comma, end, "")]

    def _offsets(self, node: Node | Key) -> tuple[int, int] | None:
        """Where a node's text starts and ends, from the offsets the parser kept when it has
        not made a Span yet (making one per node of a large config costs more than the rest
        of the walk)."""
        place = node.place
        if type(place) is tuple and place[0].text is self.text:
            return place[1], place[2]
        span = node.span
        return None if span is None else (self.positions.start(span), self.positions.end(span))

    def _member_ranges(self, node: ObjectNode | ArrayNode) -> Iterator[tuple[int, int] | None]:
        """Where each member (key to value) or item starts and ends, one at a time; None
        for one without a place in this text."""
        pairs: Iterator[tuple[Key | Node, Node]] = (
            ((entry.key, entry.value) for entry in node.entries)
            if isinstance(node, ObjectNode)
            else ((item, item) for item in node.items)
        )
        for first, last in pairs:
            start, end = self._offsets(first), self._offsets(last)
            yield None if start is None or end is None else (start[0], end[1])

    def _all_deleted(self, node: ObjectNode | ArrayNode, spans: _EditSpans) -> bool:
        """Whether every member (key to value) or item lies inside one deletion."""
        found = False
        for member in self._member_ranges(node):  # the first one kept ends it
            if member is None or not spans.deletions.covers(*member):
                return False
            found = True
        return found

    def _left_blank(self, opener: int, closer: int, spans: _EditSpans) -> bool:
        """Whether the edits between the brackets (offsets of `{` and `}`) are deletions only
        and leave nothing there but blanks (no comment)."""
        inside = spans.between(opener, closer)
        interior = self.text[opener + 1 : closer]
        if not inside or not interior.strip():
            return False
        shifted = [TextEdit(e.start - opener - 1, e.end - opener - 1, "") for e in inside]
        return not apply_edits(interior, shifted).strip()

    # -- pieces ------------------------------------------------------------------------------

    def _replace_span(self, span: Span, text: str) -> TextEdit:
        return TextEdit(self.positions.start(span), self.positions.end(span), text)

    def _key_token(self, entry: Entry) -> str:
        span = _span(entry.key.span)
        return self.text[self.positions.start(span) : self.positions.end(span)]

    def _swap_brackets(self, node: Node, pair: str) -> list[TextEdit]:
        span = _span(node.span)
        start, end = self.positions.start(span), self.positions.end(span)
        return [TextEdit(start, start + 1, pair[0]), TextEdit(end - 1, end, pair[1])]

    def _line_after_opener(self, opener: int, first_member: int) -> int | None:
        """Where a new first member goes when comments sit between the `{` and the first
        member: at the start of the line after the `{`, so those comments stay just above the
        member they were written for. None when nothing but blanks is in between, or when the
        `{` line goes on with more than a line comment (a block comment may run on)."""
        rest_of_line = self.text[opener + 1 : self.positions.line_end(opener)].strip()
        if rest_of_line and not rest_of_line.startswith("//"):
            return None
        below = self.positions.after_line_break(opener)
        if below > first_member or not self.text[below:first_member].strip():
            return None
        return below

    def _starts_line(self, offset: int) -> bool:
        return not self.text[self.positions.line_start(offset) : offset].strip()

    def _comma_after(self, offset: int) -> int | None:
        """The offset of the "," that follows a member ending at `offset`, if any."""
        position = _BLANK.match(self.text, offset).end()  # type: ignore[union-attr]
        return position if self.text[position : position + 1] == "," else None

    def _delete_member(self, members: list[tuple[Span, Span]], index: int) -> list[TextEdit]:
        text, positions = self.text, self.positions
        start = positions.start(members[index][0])
        end = positions.end(members[index][1])
        comma = self._comma_after(end)
        edits: list[TextEdit] = []
        if comma is not None and text[end:comma].strip():
            # A comment between the value and its comma stays: only the member and the comma go.
            return [TextEdit(start, end, ""), TextEdit(comma, comma + 1, "")]
        if comma is not None:
            end = comma + 1
        elif index > 0:  # the last member without a trailing comma: drop the one before it
            previous_comma = self._comma_after(positions.end(members[index - 1][1]))
            if previous_comma is not None:
                edits.append(TextEdit(previous_comma, previous_comma + 1, ""))
        rest_of_line = text[end : positions.line_end(end)]
        if self._starts_line(start) and not rest_of_line.strip():
            # The member fills its lines: remove them whole, terminators included.
            start = positions.line_start(start)
            end = positions.after_line_break(end)
        elif self._starts_line(start) and rest_of_line.lstrip().startswith(("//", "/*")):
            end = _HORIZONTAL.match(text, end).end()  # type: ignore[union-attr]
        elif comma is None and index > 0:  # `a: 1, b: 2 }` -> `a: 1 }`: the space before goes
            while start > 0 and text[start - 1] in " \t":
                start -= 1
        else:
            end = _HORIZONTAL.match(text, end).end()  # type: ignore[union-attr]
        edits.append(TextEdit(start, end, ""))
        return edits

    def _insert_into_empty(self, opener: int, closer: int, key: str, value: object) -> TextEdit:
        nl = self.style.line_break
        indent = self.positions.indentation(opener)
        inner = indent + self.style.unit
        member = f"{self.style.key(key)}: {self.style.value(value, inner)}"
        trail = "," if self.style.trailing_comma else ""
        if self.positions.line_of(opener) == self.positions.line_of(closer):
            between = self.text[opener + 1 : closer]
            if not between.strip():
                return TextEdit(opener + 1, closer, f" {member} ")
            return TextEdit(closer, closer, f"{nl}{inner}{member}{trail}{nl}{indent}")
        return TextEdit(opener + 1, opener + 1, f"{nl}{inner}{member}{trail}")


class _EditSpans:
    """The edits as ranges of the original text (`Ranges`), all and deletions only, for the
    questions only the whole set answers."""

    __slots__ = ("deletions", "edits")

    def __init__(self, edits: list[TextEdit]) -> None:
        self.edits = Ranges(edits, _bounds)
        self.deletions = Ranges((edit for edit in edits if not edit.text), _bounds)

    def between(self, opener: int, closer: int) -> list[TextEdit] | None:
        """The edits strictly between the brackets, all deletions; None when one inserts
        text there or crosses a bracket (a deletion of the brackets themselves)."""
        if self.edits.reaches_past(opener):
            return None  # an edit from before the `{` runs past it
        inside = self.edits.starting_in(opener, closer)
        if any(edit.text or edit.end > closer for edit in inside):
            return None
        return inside


def _bounds(edit: TextEdit) -> tuple[int, int]:
    return edit.start, edit.end


def _span(span: Span | None) -> Span:
    if span is None:
        raise EditError("the value has no position in a file")
    return span


def _entry(located: Located) -> Entry:
    if located.entry is None:
        raise EditError("only an object member can be renamed")
    return located.entry


def _object(node: Node) -> ObjectNode:
    if not isinstance(node, ObjectNode):
        raise EditError("members can only be added to an object")
    return node
