"""The document tree every loader produces: values that remember where they were written.

Every loader (JSON5, JSON, YAML) and the `$include` resolver produce these nodes; everything
downstream (validation, resolution, lints) reads them and never the raw text. A node built
from a plain Python value (`from_python`) has no span: the API accepts dicts without files.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal, TypeAlias

PathPart: TypeAlias = str | int
DocPath: TypeAlias = tuple[PathPart, ...]
Scalar: TypeAlias = bool | int | float | str | None

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


# `Span` and `Comment` are frozen dataclasses (values). The nodes are plain slotted classes that
# compare by identity: the tree is mutable while includes are resolved, and a node's identity is
# what the resolver and the renderers key on.


def _repr(node: object, names: tuple[str, ...]) -> str:
    shown = ", ".join(f"{name}={getattr(node, name)!r}" for name in names)
    return f"{type(node).__qualname__}({shown})"


@dataclass(frozen=True, slots=True)
class Span:
    """A range in one file. Lines and columns are 1-based code points; `end_column` is exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def start(self) -> tuple[int, int]:
        return (self.line, self.column)


class LineTable:
    """Where the lines of an edited text are now, for spans that an edit moves without copying.

    The language server re-parses only the value around an edit (loopcfg/lsp/incremental.py);
    an edit that adds or removes lines moves everything after it. Spans made for it name a
    line by an id, and this table gives the id's line in the latest text: moving what follows
    an edit is one pass over the table, and the values after it stay the same objects (so the
    results kept for them, loopcfg/memo.py, hold). The ids of a fresh parse are its lines;
    a re-parsed value's lines get new ids. Only the server's parses have one; the command line
    makes plain Spans."""

    __slots__ = ("numbers",)
    numbers: list[int]  # line id -> its 1-based line in the latest text (index 0 unused)

    def __init__(self, lines: int) -> None:
        self.numbers = list(range(lines + 1))

    def shift(self, after: int, lines: int) -> None:
        """Every line below line `after` moves down by `lines` (up, below zero)."""
        if lines:
            self.numbers[:] = [n + lines if n > after else n for n in self.numbers]

    def new_line(self, line: int) -> int:
        """The id of a new line, now at `line`."""
        self.numbers.append(line)
        return len(self.numbers) - 1


# A MovableSpan keeps its line ids in Span's own slots for the lines (its properties of the
# same names hide them): a span per key and value of the config, so two slots fewer count.
_LINE_SLOT = Span.__dict__["line"]
_END_LINE_SLOT = Span.__dict__["end_line"]


class MovableSpan(Span):
    """A `Span` whose lines are read from a `LineTable` (columns never move: an edit moves
    what follows it by whole lines only). Equal to the plain `Span` of the same place."""

    __slots__ = ("_table",)
    _table: LineTable

    def __init__(
        self, file: str, table: LineTable, line_id: int, column: int, end_id: int, end_column: int
    ) -> None:
        set_field = object.__setattr__  # Span is frozen
        set_field(self, "file", file)
        set_field(self, "column", column)
        set_field(self, "end_column", end_column)
        set_field(self, "_table", table)
        _LINE_SLOT.__set__(self, line_id)
        _END_LINE_SLOT.__set__(self, end_id)

    @property
    def line(self) -> int:
        line_id: int = _LINE_SLOT.__get__(self)
        return self._table.numbers[line_id]

    @property
    def end_line(self) -> int:
        end_id: int = _END_LINE_SLOT.__get__(self)
        return self._table.numbers[end_id]

    def plain(self) -> Span:
        return Span(self.file, self.line, self.column, self.end_line, self.end_column)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Span):
            return NotImplemented
        return (self.file, self.line, self.column, self.end_line, self.end_column) == (
            other.file,
            other.line,
            other.column,
            other.end_line,
            other.end_column,
        )

    def __hash__(self) -> int:
        return hash(self.plain())

    def __repr__(self) -> str:
        return repr(self.plain())

    def __reduce__(self) -> tuple[type[Span], tuple[str, int, int, int, int]]:
        return Span, (self.file, self.line, self.column, self.end_line, self.end_column)


class Positions:
    """Where the lines of one parsed text start, to turn offsets into `Span`s when asked.

    A parser gives each token a `Place` (this table and the token's offsets) instead of a
    `Span`: making a Span for each of the 100,000 tokens of a large config was half of the
    parse, and most of them are never read. Line starts are computed on the first Span.
    With a `LineTable` (`movable`, the language server's parses), Spans are `MovableSpan`s.
    """

    __slots__ = ("_starts", "file", "lines", "origin", "text")
    file: str
    text: str
    origin: int  # offset of line 1, column 1 (after a leading BOM)
    _starts: list[int] | None
    lines: LineTable | None

    def __init__(self, file: str, text: str, origin: int = 0, *, movable: bool = False) -> None:
        self.file = file
        self.text = text
        self.origin = origin
        self._starts = None
        self.lines = LineTable(len(self.line_starts())) if movable else None

    def line_starts(self) -> list[int]:
        starts = self._starts
        if starts is None:
            starts = self._starts = line_starts(self.text, self.origin)
        return starts

    def span(self, start: int, end: int) -> Span:
        """The Span of the text from offset `start` to `end` (exclusive)."""
        starts = self.line_starts()
        line = bisect_right(starts, start)
        column = start - starts[line - 1] + 1
        if line == len(starts) or end < starts[line]:
            end_line, end_column = line, end - starts[line - 1] + 1
        else:
            end_line = bisect_right(starts, end, line)
            end_column = end - starts[end_line - 1] + 1
        if self.lines is not None:
            return MovableSpan(self.file, self.lines, line, column, end_line, end_column)
        return Span(self.file, line, column, end_line, end_column)


# A token's place before its Span is asked for: (the file's table, start offset, end offset).
Place: TypeAlias = tuple[Positions, int, int]


class _Located:
    """A key or node with a `span`: a Span given when built, or made from its Place on the
    first read (and kept). `place` is what a copy of the node passes on, unresolved."""

    __slots__ = ("_span",)
    _span: Span | Place | None

    @property
    def span(self) -> Span | None:
        found = self._span
        if type(found) is tuple:
            positions, start, end = found
            made = self._span = positions.span(start, end)
            return made
        return found  # type: ignore[return-value]

    @span.setter
    def span(self, span: Span | None) -> None:
        self._span = span

    @property
    def place(self) -> Span | Place | None:
        return self._span


class Key(_Located):
    """An object key as written: its decoded name and the span of the key token."""

    __slots__ = ("name",)
    __match_args__ = ("name", "span")
    name: str

    def __init__(self, name: str, span: Span | Place | None) -> None:
        self.name = name
        self._span = span

    def __repr__(self) -> str:
        return _repr(self, self.__match_args__)


class ScalarNode(_Located):
    __slots__ = ("path", "raw", "value")
    __match_args__ = ("value", "span", "path", "raw")
    value: Scalar
    path: DocPath
    # The token as written (`0x1F`, `.5`, `'a'`), for messages; None when built from Python.
    raw: str | None

    def __init__(
        self, value: Scalar, span: Span | Place | None, path: DocPath = (), raw: str | None = None
    ) -> None:
        self.value = value
        self._span = span
        self.path = path
        self.raw = raw

    def __repr__(self) -> str:
        return _repr(self, self.__match_args__)


class ArrayNode(_Located):
    __slots__ = ("_dollar", "items", "path")
    __match_args__ = ("items", "span", "path")
    items: list[Node]
    path: DocPath
    _dollar: bool | None  # `holds_dollar`, once asked

    def __init__(self, items: list[Node], span: Span | Place | None, path: DocPath = ()) -> None:
        self.items = items
        self._span = span
        self.path = path
        self._dollar = None

    def __repr__(self) -> str:
        return _repr(self, self.__match_args__)

    def items_changed(self) -> None:
        """Call after mutating `items`: forgets what was read from them."""
        self._dollar = None


class Entry:
    __slots__ = __match_args__ = ("key", "value")
    key: Key
    value: Node

    def __init__(self, key: Key, value: Node) -> None:
        self.key = key
        self.value = value

    def __repr__(self) -> str:
        return _repr(self, self.__match_args__)


class ObjectNode(_Located):
    """An object with its entries in source order, duplicates included (the last one wins)."""

    __slots__ = ("_dollar", "_index", "entries", "path")
    __match_args__ = ("entries", "span", "path", "_index")
    entries: list[Entry]
    path: DocPath
    _index: dict[str, Entry] | None
    _dollar: bool | None  # `holds_dollar`, once asked

    def __init__(
        self,
        entries: list[Entry],
        span: Span | Place | None,
        path: DocPath = (),
        _index: dict[str, Entry] | None = None,
    ) -> None:
        self.entries = entries
        self._span = span
        self.path = path
        self._index = _index
        self._dollar = None

    def __repr__(self) -> str:
        return _repr(self, ("entries", "span", "path"))

    def _lookup(self) -> dict[str, Entry]:
        if self._index is None:
            self._index = {entry.key.name: entry for entry in self.entries}
        return self._index

    def entry(self, name: str) -> Entry | None:
        """The winning entry for `name` (the last one written), or None."""
        index = self._index
        return (self._lookup() if index is None else index).get(name)

    def get(self, name: str) -> Node | None:
        index = self._index
        found = (self._lookup() if index is None else index).get(name)
        return None if found is None else found.value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._lookup()

    def keys(self) -> list[str]:
        """Distinct key names in order of first appearance."""
        return list(self._lookup())

    def winning_entries(self) -> list[Entry]:
        """One entry per distinct key (the last written), in order of first appearance."""
        return list(self._lookup().values())

    def duplicates(self) -> list[tuple[Entry, Entry]]:
        """(earlier, later) pairs for every key written more than once, in source order."""
        seen: dict[str, Entry] = {}
        pairs: list[tuple[Entry, Entry]] = []
        for entry in self.entries:
            earlier = seen.get(entry.key.name)
            if earlier is not None:
                pairs.append((earlier, entry))
            seen[entry.key.name] = entry
        return pairs

    def entries_changed(self) -> None:
        """Call after mutating `entries`: forgets what was read from them."""
        self._index = None
        self._dollar = None


Node: TypeAlias = ScalarNode | ArrayNode | ObjectNode


def holds_dollar(node: Node) -> bool:
    """Whether a key or string anywhere in `node` contains "$" once decoded: where none does,
    there is no `$include` to resolve and no `${VAR}` to substitute.

    Kept on each object and array once asked: the language server's incremental parse hands
    every check the same node objects for the values an edit did not touch, so after an edit
    only the containers around it are looked at again (the parsed tree is not changed once
    loaded; what changes a container's members calls `entries_changed`/`items_changed`).
    Nesting is bounded by the parser (MAX_DEPTH)."""
    if type(node) is ScalarNode:
        value = node.value
        return isinstance(value, str) and "$" in value
    assert isinstance(node, (ObjectNode, ArrayNode))
    known = node._dollar
    if known is None:
        if isinstance(node, ObjectNode):
            entries = node.entries
            known = any("$" in entry.key.name or holds_dollar(entry.value) for entry in entries)
        else:
            known = any(map(holds_dollar, node.items))
        node._dollar = known
    return known


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment as written, delimiters included (`// x`, `/* x */`, `# x`)."""

    text: str
    span: Span


Format: TypeAlias = Literal["json5", "json", "yaml"]


class Document:
    """One parsed file: its tree, its comments and its text (for source lines under carets)."""

    __match_args__ = ("file", "text", "root", "comments", "format", "_lines")
    __slots__ = (*__match_args__, "duplicate_keys", "lines", "nesting")
    file: str
    text: str
    root: Node
    comments: list[Comment]
    format: Format
    _lines: list[str] | None
    # Whether an object of the file writes a key twice (LC107), as the parser saw it while it
    # indexed each object; None when the parser does not say (the file is searched then).
    duplicate_keys: bool | None
    # The table of its spans' lines when they are `MovableSpan`s (the language server's).
    lines: LineTable | None
    # How deep its tree nests once included (`includes._nesting`), kept by the include
    # resolver once asked: the language server hands every check the same Document for a
    # file that did not change.
    nesting: int | None

    def __init__(
        self,
        file: str,
        text: str,
        root: Node,
        comments: list[Comment],
        format: Format,
        _lines: list[str] | None = None,
        *,
        duplicate_keys: bool | None = None,
        lines: LineTable | None = None,
    ) -> None:
        self.file = file
        self.text = text
        self.root = root
        self.comments = comments
        self.format = format
        self._lines = _lines
        self.duplicate_keys = duplicate_keys
        self.lines = lines
        self.nesting = None

    def __repr__(self) -> str:
        return _repr(self, ("file", "text", "root", "comments", "format"))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its terminator ('' when out of range)."""
        if self._lines is None:
            self._lines = split_lines(self.text)
        if 1 <= line <= len(self._lines):
            return self._lines[line - 1]
        return ""


# JSON5's line terminators (CR LF one break): the one pattern every layer counts lines by.
LINE_BREAKS = re.compile("\r\n|[\n\r\u2028\u2029]")
_LINE_FEEDS = re.compile("\n")


def line_starts(text: str, origin: int = 0) -> list[int]:
    """The offset of each line's first character from `origin` on, lines ending as JSON5's
    do (CR LF, LF, CR, U+2028, U+2029). A text with line feeds only (most) is searched for
    them alone: ten times faster than the alternation."""
    other_breaks = "\r" in text or "\u2028" in text or "\u2029" in text
    breaks = LINE_BREAKS if other_breaks else _LINE_FEEDS
    return [origin, *(match.end() for match in breaks.finditer(text, origin))]


def integer_value(value: int) -> int | float:
    """An integer as OpenClaw (JavaScript) reads it: beyond a double's range it is ±Infinity.

    Below that it stays an exact int. Above it Python could not even print it: an int of more
    than 4300 digits refuses str() (CPython's conversion limit), which was a traceback.
    """
    if value.bit_length() <= 1024:
        return value
    return math.inf if value > 0 else -math.inf


def decimal_integer(text: str) -> int | float:
    """`int(text)` for a decimal integer literal, without CPython's 4300-digit limit (a longer
    one is far beyond a double's range anyway: ±Infinity)."""
    digits = text.lstrip("+-")
    if len(digits) > 400:
        return -math.inf if text.startswith("-") else math.inf
    return integer_value(int(text))


def split_lines(text: str) -> list[str]:
    """Split on JSON5's line terminators: \\n, \\r\\n, \\r, U+2028, U+2029."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return LINE_BREAKS.split(text)


def format_path(path: DocPath) -> str:
    """`("agents", "list", 2, "id")` -> `agents.list[2].id`; odd keys are quoted: `a["b c"]`."""
    if not path:
        return ""
    segments = _SEGMENTS
    out: list[str] = []
    for part in path:
        segment = segments.get(part)
        if segment is None:
            segment = _segment(part)
            if len(segments) < _MAX_SEGMENTS:
                segments[part] = segment
        out.append(segment)
    if out[0][0] == ".":
        out[0] = out[0][1:]
    return "".join(out)


def _segment(part: PathPart) -> str:
    """One part as it follows another: `.name`, `[2]`, `["odd key"]`."""
    if isinstance(part, int):
        return f"[{part}]"
    if _IDENTIFIER.match(part):
        return f".{part}"
    quoted = part.replace("\\", "\\\\").replace('"', '\\"')
    return f'["{quoted}"]'


# Each part's segment, made once: a 4,000-agent config formats some 50,000 paths from a few
# thousand distinct parts (keys and indices). Bounded, for a long-running language server.
_SEGMENTS: dict[PathPart, str] = {}
_MAX_SEGMENTS = 100_000


def to_python(node: Node) -> object:
    """The plain value (dict/list/scalars); for duplicate keys the last one wins, as in JSON5."""
    if isinstance(node, ScalarNode):
        return node.value
    if isinstance(node, ArrayNode):
        return [to_python(item) for item in node.items]
    return {entry.key.name: to_python(entry.value) for entry in node.entries}


# How deep a config may nest: the parsers refuse more (LC001), and every later step walks the
# tree recursively, within Python's stack.
MAX_DEPTH = 200


class TooDeep(ValueError):
    """A plain value nested deeper than MAX_DEPTH, or holding itself."""


def from_python(value: object, path: DocPath = ()) -> Node:
    """Build a span-less tree from a plain value (what the API accepts instead of a file).

    Held to the parsers' MAX_DEPTH (TooDeep), so a deep or self-containing dict is refused
    as a file would be rather than exhausting the stack here or in a later step."""
    if isinstance(value, dict | list | tuple) and len(path) >= MAX_DEPTH:
        where = format_path(path[:6]) + "…"
        raise TooDeep(f"nesting deeper than {MAX_DEPTH} levels (at {where})")
    if isinstance(value, dict):
        entries = [
            Entry(Key(str(name), None), from_python(item, (*path, str(name))))
            for name, item in value.items()
        ]
        return ObjectNode(entries, None, path)
    if isinstance(value, list | tuple):
        items = [from_python(item, (*path, index)) for index, item in enumerate(value)]
        return ArrayNode(items, None, path)
    if value is None or isinstance(value, bool | int | float | str):
        return ScalarNode(value, None, path)
    raise TypeError(f"cannot use a {type(value).__name__} in a config (at {format_path(path)})")


def is_integer_value(value: object) -> bool:
    """JSON5 and JavaScript cannot tell 1 from 1.0, so neither do we; booleans are not numbers."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()
