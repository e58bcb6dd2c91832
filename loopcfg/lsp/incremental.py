"""Parsing for the editor without starting over: what did not change is not parsed again.

The language server re-checks a config on every change. Most of a check's parse is of text the
change did not touch, so `ParseCache` keeps the last document of each file and:

- returns it as it is when the file's text is unchanged (an included file while the config
  that includes it is typed in, the config while its include is edited, a save);
- after an edit of a JSON5/JSON file between two members of an object or array that it
  leaves as they are (a line added after an agent's line, a setting pasted between two
  others, lines deleted), parses only the text between them, as members of that container;
- else parses again the innermost value that holds the whole edit and after which its line
  holds nothing but a comma (so that nothing else moves sideways), alone, and puts back the
  members of it that the edit did not touch;
- gives what it parsed new lines in the file's `LineTable`, and puts it into a copy of the
  old tree's path to it. Every other value is the old document's own object, those after
  the edit too: when the edit added or removed lines, the table moves their lines (their
  spans are `nodes.MovableSpan`s), so nothing is copied and the results the server's memo
  keeps for them (loopcfg/memo.py) hold. Items added or removed between two items of an
  array renumber the items after in place (their paths change: what the memo keeps that
  reads a path is keyed by it). The old document is used up: its spans read the new text's
  lines, its nodes' paths are the new ones. The line starts of the last text are kept and
  patched, not found again.

Anything else (YAML, an edit outside the root value, text that does not parse alone) is
parsed from the start, as `loopcfg validate` parses it. Either way the document
equals `fresh_parse` of the new text (tests/lsp/test_incremental.py checks that over generated
edits), so the diagnostics are `validate`'s.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict

from loopcfg.source import SourceError, fresh_parse
from loopcfg.source.json5 import MAX_DEPTH
from loopcfg.source.nodes import (
    LINE_BREAKS,
    ArrayNode,
    Comment,
    DocPath,
    Document,
    Entry,
    Key,
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
            try:
                patched = _reparse(old, text, starts)
            except BaseException:
                # A re-parse moves the old document's lines and renumbers its items in place
                # before it is done: one stopped half-way (a bug, an interrupt) leaves it
                # unusable, so the next text of the file is parsed afresh.
                self.documents.pop(key, None)
                self.line_starts.pop(key, None)
                raise
            if patched is not None and _worn(patched[0], patched[1]):
                patched = None  # its line table has grown: start a new one
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


def _worn(document: Document, line_starts: list[int]) -> bool:
    """Whether the document's `LineTable` holds many more ids than the text has lines: each
    edit adds ids for the lines of what it re-parsed, and moving lines walks them all."""
    table = document.lines
    return table is not None and len(table.numbers) > 2 * len(line_starts) + 20_000


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
        self._slide_to_a_line_end(old, new)
        self.delta = len(new) - len(old)
        self.first = _position(line_starts, self.start)
        self.last = _position(line_starts, self.old_end)
        # Lines added (or removed, below zero): everything after the edit moves by as many.
        added = len(LINE_BREAKS.findall(new, self.start, self.new_end))
        self.lines = added - len(LINE_BREAKS.findall(old, self.start, self.old_end))

    def _slide_to_a_line_end(self, old: str, new: str) -> None:
        """An insertion or a deletion may be placed anywhere along a run of the text it ends
        with, and the longest common prefix places it as far right as it goes: an Enter
        typed at the end of a line lands after the next line's indentation, a line pasted
        above another inside that line, in front of its first member, which then counts as
        touched (parsed again, new to the memo). The same change slid left to the end of a
        line (just before its line break), if one is in reach, leaves that member alone."""
        if (self.start == self.old_end) == (self.start == self.new_end):
            return  # a replacement (or no change): nowhere else to place it
        changed, end = (new, self.new_end) if self.start == self.old_end else (old, self.old_end)
        for step in range(min(self.start, _MAX_SLIDE) + 1):
            at = self.start - step
            if _ends_a_line(old, at):
                self.start, self.old_end, self.new_end = (
                    at,
                    self.old_end - step,
                    self.new_end - step,
                )
                return
            if at == 0 or old[at - 1] != changed[end - 1 - step]:
                return

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


_MAX_SLIDE = 4096  # characters an edit is slid at most (a line's worth and more)


def _ends_a_line(text: str, offset: int) -> bool:
    """Whether a line break (a whole one: not the "\n" of a "\r\n") starts at `offset`."""
    found = text[offset : offset + 1]
    return found == "\r" or (found == "\n" and text[offset - 1 : offset] != "\r")


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
    if len(chain) > 1 or _covers(chain[0].span, edit):
        document = _replace_between(old, text, chain, edit, line_starts)
        if document is not None:
            return document, _starts_after(line_starts, edit, text)
    # The root too: parsed alone it is a fresh parse, but its values the edit did not touch
    # are put back (`_keep_untouched`), which the memo keys on.
    for depth in range(len(chain) - 1, -1, -1):
        if depth == 0 and not _covers(chain[0].span, edit):
            return None  # before or after the root value: nothing holds the edit
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
    inside = [found.end() for found in LINE_BREAKS.finditer(text, edit.start, edit.new_end)]
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
    before, after = _comments_apart(
        old.comments, (span.line, span.column), (span.end_line, span.end_column)
    )
    kept = _keep_untouched(target, alone.root, start, edit, line_starts)
    # From here on the old document's lines are the new text's: what follows the edit moves
    # by the lines it added (its nodes and comments stay the same objects). On the edit's
    # last line, nothing the new document keeps follows it: the value ends there with a
    # comma at most after it (`_ends_its_line`), and what it keeps starts on later lines.
    table.shift(edit.last[0], edit.lines)
    place = _Placer(old.file, table, first_line, first_column)
    _settle(alone.root, target.path, place, kept)
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


# What a fragment of members is parsed between: two members as the grammar needs them, so that
# the fragment parses exactly when the file does between its untouched neighbours (a token typed
# against one of them runs into `null` and fails, as it would have changed that neighbour).
_ARRAY_ENDS = ("[null", "null]")
_OBJECT_ENDS = ('{"a":null', '"b":null}')  # JSON too


def _replace_between(
    old: Document, text: str, chain: list[Node], edit: _Edit, line_starts: list[int]
) -> Document | None:
    """An edit between two members of the innermost container that holds it, each left as it
    is: the member before it (or the container's opening bracket) ends before the edit, the
    one after it (or the closing bracket) starts on a later line than the edit ends on.
    Only the text between them is parsed, as members of that kind of container, and the
    container is rebuilt with the old members around the new ones (an array's items after
    it renumbered in place when items came or went). None when there is no such pair or
    the text between does not parse."""
    table, container = old.lines, chain[-1]
    if table is None or not isinstance(container, ObjectNode | ArrayNode):
        return None
    members: list[Entry | Node] = (
        list(container.entries) if isinstance(container, ObjectNode) else list(container.items)
    )
    # Members are in the text's order: those that end before the edit come first, those that
    # start after it last, so each bound is a binary search (a roster has thousands).
    count = len(members)

    def ends_before(i: int) -> bool:
        return _old_offsets(members[i], line_starts)[1] <= edit.start

    def starts_after(i: int) -> bool:
        first = _old_offsets(members[i], line_starts)[0]
        return first >= edit.old_end and _first_line(members[i]) > edit.last[0]

    left = bisect_left(range(count), True, key=lambda i: not ends_before(i)) - 1
    right = bisect_left(range(count), True, key=starts_after)
    if left < 0 and right == count:
        return None  # no member left as it is: the container is parsed whole
    opener, closer = _ARRAY_ENDS if isinstance(container, ArrayNode) else _OBJECT_ENDS
    bounds = _old_offsets(container, line_starts)
    if left >= 0:
        start = _old_offsets(members[left], line_starts)[1]
    else:
        # Before the first member (an agent pasted at the top of the roster): the text
        # between the container's opening bracket and that member, after the bracket alone.
        start = bounds[0] + 1
        if edit.start < start:
            return None
        opener = opener[0]
    if right < count:
        old_end = _old_offsets(members[right], line_starts)[0]
    else:
        # After the last member (pasted at the bottom): the text up to the closing bracket,
        # which must be on a later line than the edit ends on (its column does not move).
        old_end = bounds[1] - 1
        end_line = container.span.end_line if container.span is not None else 0
        if edit.old_end > old_end or end_line <= edit.last[0]:
            return None
        closer = closer[-1]
    between = text[start : old_end + edit.delta]
    try:
        parsed = fresh_parse(opener + between + closer, old.file, old.format)
    except SourceError:
        return None
    fragment = parsed.root
    # The fragment's members that are not placeholders.
    first, last = (1 if left >= 0 else 0), (-1 if right < count else None)
    if isinstance(fragment, ObjectNode):
        new: list[Entry | Node] = list(fragment.entries[first:last])
    else:
        assert isinstance(fragment, ArrayNode)
        new = list(fragment.items[first:last])
    if _height(fragment) + len(container.path) > MAX_DEPTH:
        return None
    first_line, first_column = _position(line_starts, start)
    kept_before, kept_after = _comments_apart(
        old.comments, (first_line, first_column), _position(line_starts, old_end)
    )
    table.shift(edit.last[0], edit.lines)
    moved = len(new) - (right - left - 1)
    if isinstance(container, ArrayNode) and moved:
        # Items added or removed: those after move to other indices. Their paths are
        # rewritten in place (the old document is used up); what the memo keeps for them is
        # keyed by their nodes and names no index (an agent's roster entry, scope and
        # findings are given the index of now, loopcfg/memo.py), so it is found.
        for item in container.items[right:]:
            _reindex(item, moved, len(container.path))
    place = _Placer(old.file, table, first_line, first_column - len(opener))
    for member in new:
        value = member.value if isinstance(member, Entry) else member
        if isinstance(member, Entry):
            member.key.span = _placed(member.key.span, place)
        else:
            # The fragment's item `first` is the container's item left + 1.
            _reindex(member, left + 1 - first)
        _settle(value, container.path, place, set())
    merged = [*members[: left + 1], *new, *members[right:]]
    if isinstance(container, ObjectNode):
        rebuilt: Node = ObjectNode(merged, container.place, container.path)  # type: ignore[arg-type]
    else:
        rebuilt = ArrayNode(merged, container.place, container.path)  # type: ignore[arg-type]
    inside = [Comment(comment.text, place(comment.span)) for comment in parsed.comments]
    return Document(
        old.file,
        text,
        _rebuilt(chain, rebuilt),
        [*kept_before, *inside, *kept_after],
        old.format,
        duplicate_keys=_no_new_duplicates(old, parsed, members, left, right, new),
        lines=table,
    )


def _no_new_duplicates(
    old: Document,
    parsed: Document,
    members: list[Entry | Node],
    left: int,
    right: int,
    new: list[Entry | Node],
) -> bool | None:
    """False (no key written twice, so LC107 need not search) when the old document had
    none, the parsed text has none (its two placeholder members included), and no key put
    between `left` and `right` is one of the container's other members'; None to search."""
    if old.duplicate_keys is not False or parsed.duplicate_keys is not False:
        return None
    names = [member.key.name for member in new if isinstance(member, Entry)]
    if not names:
        return False
    others = {
        member.key.name
        for member in (*members[: left + 1], *members[right:])
        if isinstance(member, Entry)
    }
    return None if others.intersection(names) else False


def _reindex(node: Node, by: int, at: int = 0) -> None:
    """Add `by` to the array index at position `at` of the paths of `node` and all below it.
    (Everything below `node` shares its path up to that index: each path is the new head and
    its own rest, one concatenation. An agent pasted into agents.list renumbers every node
    of the agents below it.)"""
    if not by:
        return
    path = node.path
    index = path[at]
    assert isinstance(index, int)
    head = (*path[:at], index + by)
    cut = at + 1
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        current.path = head + current.path[cut:]
        if type(current) is ObjectNode:
            stack.extend([entry.value for entry in current.entries])
        elif type(current) is ArrayNode:
            stack.extend(current.items)


def _keep_untouched(
    old: Node, new: Node, start: int, edit: _Edit, line_starts: list[int]
) -> set[int]:
    """Put the members of the old value that the edit did not touch (all before it, or all on
    lines after its last one, at the same place in the array) into the value parsed alone
    (`new`, from offset `start` of the new text), in place of their twins: the same text
    parses to the same values, and keeping the objects keeps what the memo holds for them.
    Their spans move with the `LineTable`. Returns the ids of the members kept (entries of
    an object, items of an array), which `_settle` leaves as they are."""
    if isinstance(old, ObjectNode) and isinstance(new, ObjectNode):
        olds: list[Entry | Node] = list(old.entries)
        news: list[Entry | Node] = list(new.entries)
    elif isinstance(old, ArrayNode) and isinstance(new, ArrayNode):
        olds, news = list(old.items), list(new.items)
    else:
        return set()
    twins = {_alone_offsets(member, start): index for index, member in enumerate(news)}
    kept: set[int] = set()
    for index, member in enumerate(olds):
        first, last = _old_offsets(member, line_starts)
        if last <= edit.start:
            wanted = (first, last)
        elif first >= edit.old_end and _first_line(member) > edit.last[0]:
            wanted = (first + edit.delta, last + edit.delta)
        else:
            continue
        twin = twins.get(wanted)
        if twin is None or (isinstance(old, ArrayNode) and twin != index):
            continue  # an array item at another index has another path
        news[twin] = member
        kept.add(id(member))
    if isinstance(new, ObjectNode):
        new.entries = news  # type: ignore[assignment]
        new.entries_changed()
    else:
        new.items = news  # type: ignore[assignment]
        new.items_changed()
    return kept


def _bounds(member: Entry | Node) -> tuple[Key | Node, Node]:
    """The key or node a member starts with, and the node it ends with."""
    return (member.key, member.value) if isinstance(member, Entry) else (member, member)


def _first_line(member: Entry | Node) -> int:
    span = _bounds(member)[0].span
    assert span is not None
    return span.line


def _old_offsets(member: Entry | Node, line_starts: list[int]) -> tuple[int, int]:
    """Where a member of the old document is in the old text (its spans, by its lines)."""
    first, last = (located.span for located in _bounds(member))
    assert first is not None and last is not None
    return (
        line_starts[first.line - 1] + first.column - 1,
        line_starts[last.end_line - 1] + last.end_column - 1,
    )


def _alone_offsets(member: Entry | Node, start: int) -> tuple[int, int] | None:
    """Where a member of the value parsed alone is in the new text (its unread Places)."""
    first, last = (located.place for located in _bounds(member))
    if type(first) is not tuple or type(last) is not tuple:
        return None  # (a parse's Places are unread until `_settle`)
    return start + first[1], start + last[2]


class _Placer:
    """Moves a span of a value parsed alone to where the value starts in the file (its
    `line`, `column`): each of its lines gets the id of a new line of the file's `LineTable`
    when a span first lands on it (the lines of members kept from the old document get none),
    and its first line moves right by the columns before it."""

    __slots__ = ("columns", "file", "ids", "lines", "table")

    def __init__(self, file: str, table: LineTable, line: int, column: int) -> None:
        self.file = file
        self.table = table
        self.lines = line - 1
        self.columns = column - 1
        # line of the value -> its id (one int object for all the spans on that line)
        self.ids: dict[int, int] = {}

    def id_of(self, line: int) -> int:
        found = self.ids.get(line)
        if found is None:
            found = self.ids[line] = self.table.new_line(line + self.lines)
        return found

    def __call__(self, span: Span) -> Span:
        columns = self.columns
        return MovableSpan(
            self.file,
            self.table,
            self.id_of(span.line),
            span.column + columns if span.line == 1 else span.column,
            self.id_of(span.end_line),
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


def _settle(node: Node, prefix: DocPath, place: _Placer, kept: set[int]) -> None:
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
                if id(entry) not in kept:  # a kept member is the old document's, in place
                    entry.key.span = _placed(entry.key.span, place)
                    stack.append(entry.value)
        elif isinstance(current, ArrayNode):
            stack.extend(item for item in current.items if id(item) not in kept)


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


def _comments_apart(
    old: list[Comment], first: tuple[int, int], last: tuple[int, int]
) -> tuple[list[Comment], list[Comment]]:
    """The old comments that end by `first` and those that start from `last` on (read
    before the edit moves lines)."""
    before = [c for c in old if (c.span.end_line, c.span.end_column) <= first]
    after = [c for c in old if (c.span.line, c.span.column) >= last]
    return before, after


__all__ = ["ParseCache", "reparse"]
