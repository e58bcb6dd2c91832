"""YAML edits through ruamel.yaml's round-trip mode: comments, key order and the file's own
indentation survive; the same operations as the JSON5 editor.

ruamel attaches the comment lines that follow a member to that member; when the member is
deleted those lines move to the member before it, so they stay where they were written. A
comment that cannot be kept makes the edit fail (checked by loopcfg.edit.apply_operations).
ruamel is imported only here, and only when a YAML file is edited.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

from loopcfg.edit.ops import (
    Delete,
    EntriesToList,
    Insert,
    ListToEntries,
    Operation,
    Rename,
)
from loopcfg.edit.text import EditError
from loopcfg.source.nodes import ArrayNode, DocPath, Document, Node, ObjectNode


def apply_yaml(document: Document, operations: list[Operation]) -> str:
    if _has_duplicates(document.root):
        raise EditError("a YAML file with a key written twice is not edited; remove one first")
    text = document.text[1:] if document.text.startswith("\ufeff") else document.text
    crlf = "\r\n" in text
    if crlf:  # ruamel keeps a "\r" in each comment token it reads: edited as "\n", put back
        text = text.replace("\r\n", "\n")
    try:
        result = _round_trip(text, document, operations)
    except EditError:
        raise
    except Exception as error:  # ruamel's own limits (e.g. two << keys), or a shape not foreseen
        raise EditError(f"the YAML round trip cannot make this edit: {_reason(error)}") from None
    if crlf:
        result = result.replace("\n", "\r\n")
    return ("\ufeff" if document.text.startswith("\ufeff") else "") + result


# Comment lines and end-of-line comments, for the indentation guess only (a "#" inside a
# quoted string may go too: the guess reads indentation, not values).
_COMMENTS = re.compile(r"(?m)^[ \t]*#.*\n|[ \t]+#.*$")


def _reason(error: Exception) -> str:
    """One line: ruamel's problem and its line, else the error's first line."""
    problem, mark = getattr(error, "problem", None), getattr(error, "problem_mark", None)
    if isinstance(problem, str) and problem:
        line = getattr(mark, "line", None)
        return problem if not isinstance(line, int) else f"{problem} (line {line + 1})"
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _round_trip(text: str, document: Document, operations: list[Operation]) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    from loopcfg.edit.json5 import indent_unit

    # ruamel guesses the sequence indentation (and the dash's offset); mappings are measured.
    # Both from the text without its comments: an end-of-line comment on a block's key threw
    # ruamel's guess negative, and a key below a list was then written at column 0, a key of
    # the top level (the config changed meaning and still validated).
    plain = _COMMENTS.sub("", text)
    _, sequence, offset = load_yaml_guess_indent(plain)
    mapping = max(len(indent_unit(plain).expandtabs(2)), 1)
    offset = max(offset or 0, 0)
    sequence = max(sequence or mapping, offset + 2)
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap long lines the user wrote
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    data = yaml.load(text)
    # Every path names a place in the file as written, as for the JSON5 editor: each one is
    # found before any operation moves things (migrate turns agents.list into agents.entries
    # and deletes knobs inside its items; a deleted item shifts the indexes after it).
    # The same place named twice (a `$include`d piece used at two places, an anchored value
    # reached through its aliases) is edited once.
    steps: dict[tuple[object, ...], Callable[[], None]] = {}
    alive: dict[int, list[int]] = {}
    orphans: list[tuple[Any, str]] = []
    for operation in operations:
        place, step = _resolved(data, document, operation, alive, orphans)
        steps.setdefault(place, step)
    for step in steps.values():
        step()
    if orphans:
        holders = _holders(data)
        for container, lines in orphans:
            _below_emptied(holders, container, lines)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _has_duplicates(node: object) -> bool:
    if isinstance(node, ObjectNode):
        if node.duplicates():
            return True
        return any(_has_duplicates(entry.value) for entry in node.entries)
    items = getattr(node, "items", None)
    return isinstance(items, list) and any(_has_duplicates(item) for item in items)


def _walk(data: Any, path: DocPath, node: Node | None = None) -> tuple[Any, Node | None]:
    """The value at `path` in ruamel's data, and loopcfg's node there (`node`: the document's
    root), walked together: a key is named as loopcfg reads it (`123:` is "123"), ruamel's
    data holds what YAML made of it (123)."""
    for part in path:
        try:
            data = data[_ruamel_key(data, node, part)]
        except (KeyError, IndexError, TypeError):
            raise EditError(f"nothing at {path!r}") from None
        node = _child(node, part)
    return data, node


def _ruamel_key(container: Any, node: Node | None, part: str | int) -> Any:
    """ruamel's key for the member loopcfg names `part`: the same string, or the key written
    at that member's place (loopcfg lists what `<<` merges bring first, then its own)."""
    from ruamel.yaml.comments import CommentedMap

    if not isinstance(container, CommentedMap) or part in container:
        return part
    if not isinstance(node, ObjectNode):
        return part
    own = [key for key, _ in container.non_merged_items()]
    names = [entry.key.name for entry in node.entries]
    offset = len(names) - len(own)
    for index in range(len(names) - 1, max(offset, 0) - 1, -1):
        if names[index] == part:
            return own[index - offset]
    return part


def _child(node: Node | None, part: str | int) -> Node | None:
    if isinstance(node, ObjectNode) and isinstance(part, str):
        return node.get(part)
    if isinstance(node, ArrayNode) and isinstance(part, int) and 0 <= part < len(node.items):
        return node.items[part]
    return None


Step = tuple[tuple[object, ...], Callable[[], None]]


def _resolved(
    data: Any,
    document: Document,
    operation: Operation,
    alive: dict[int, list[int]],
    orphans: list[tuple[Any, str]],
) -> Step:
    """The operation bound to the containers its path names now, and the place it edits (the
    container's identity and what it does there)."""
    if isinstance(operation, Insert):
        target, _ = _walk(data, operation.path, document.root)
        # Only the same member inserted twice is one step; two values for one key are not.
        inserted = (id(target), "insert", operation.key, repr(operation.value))
        return inserted, lambda: _insert(target, operation)
    parent, node = _walk(data, operation.path[:-1], document.root)
    last = _ruamel_key(parent, node, operation.path[-1])
    kind = type(operation).__name__
    if isinstance(operation, ListToEntries):
        return (id(parent), kind, last), lambda: _list_to_entries(parent, str(last), operation)
    if isinstance(operation, EntriesToList):
        names = _written_keys(document, operation.path)
        name = operation.name
        return (id(parent), kind, last), lambda: _entries_to_list(parent, str(last), names, name)
    _own_member(parent, last)
    where, deleted = _where(parent, last, alive)
    place: tuple[object, ...] = (id(parent), kind, last)
    if isinstance(operation, Delete):

        def delete() -> None:
            at = where()
            left = _delete(parent, at, top=parent is data)
            if left or not len(parent):  # emptied: its comments go below `{}`, later
                orphans.append((parent, left))
            deleted(at)

        return place, delete
    if isinstance(operation, Rename):
        return place, lambda: _rename(parent, where(), operation.name)
    value = _plain(operation.value)
    return place, lambda: parent.__setitem__(where(), value)


def _own_member(container: Any, part: Any) -> None:
    """A member that a `<<` merge brings is written elsewhere (in the merged mapping, which
    other mappings may merge too): refused rather than edited there."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(container, CommentedMap) and not any(
        key == part for key, _ in container.non_merged_items()
    ):
        raise EditError(f"{part} comes from a YAML << merge; write it in place to edit it")


def _written_keys(document: Document, path: DocPath) -> list[str]:
    """The keys of the mapping at `path` as loopcfg reads them (`123:` is the id "123", not
    the number ruamel makes of it), in written order."""
    from loopcfg.edit.ops import locate

    node = locate(document.root, path).node
    if not isinstance(node, ObjectNode):
        raise EditError(f"{'.'.join(map(str, path))} is not a mapping")
    return [entry.key.name for entry in node.entries]


def _where(
    container: Any, part: Any, alive: dict[int, list[int]]
) -> tuple[Callable[[], Any], Callable[[Any], None]]:
    """Where `part` of `container` is when the step runs, and what to note once it is
    deleted: a mapping's key; for a sequence, the index its item has by then, found among
    the original indexes still there (`alive`, one list per sequence), not by the item's
    identity (equal scalars are often one object)."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(container, CommentedMap):
        return (lambda: part), (lambda _at: None)
    _walk(container, (part,))
    positions = alive.setdefault(id(container), list(range(len(container))))

    def index() -> int:
        if part not in positions:
            raise EditError(f"the item at {part!r} was removed by another operation")
        return positions.index(int(part))

    def deleted(at: str | int) -> None:
        positions.pop(int(at))

    return index, deleted


def _insert(target: Any, operation: Insert) -> None:
    if operation.key in target:  # ruamel would overwrite it: what it held would be lost
        raise EditError(f'"{operation.key}" is written there already')
    # Added last: the comment lines below the block, which ruamel keeps on its last member
    # but which belong to what follows it (`# exec` above `exec:`), go below the new member.
    below = "" if operation.first else _trailing_lines(target, cut=True)
    position = 0 if operation.first else len(target)
    target.insert(position, operation.key, _plain(operation.value))
    if below:
        _put_after(target, operation.key, below)


def _delete(container: Any, part: Any, *, top: bool = False) -> str:
    """Delete a member or item, keeping its comments; returns those of a mapping's last
    member, which have no member left beside them (`_below_emptied` places them). `top`:
    the document's own mapping, whose comments above its first key head the file."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(container, CommentedMap):
        keys = list(container)
        index = keys.index(part)
        column = _key_column(container, part)
        token = container.ca.items.pop(part, None)
        trailing = _trailing_lines(container[part])
        del container[part]
        # No comment is deleted (docs/migrate.md): those parked before the member, its own
        # end-of-line comment (on a line of its own, as the JSON5 editor leaves it), the
        # lines below it and those below its block (kept on the block's last member) stay
        # where they were: before the next member, or after the one before, or (the only
        # member's) below the emptied mapping.
        lines = _before_lines(token) + _own_line(token, column) + _following_lines(token)
        lines += trailing
        if len(keys) == 1 and not top:  # emptied: the lines above its first key go below
            lines = _take_above(container) + lines
        if not lines:
            return ""
        if index + 1 < len(keys):
            _put_before(container, keys[index + 1], lines)
        elif index > 0:
            _put_after(container, keys[index - 1], lines)
        else:
            return lines
        return ""
    # A sequence item: the lines below it (its own, or its block's) go below the item before.
    token = container.ca.items.pop(part, None)
    try:
        column = container.lc.item(part)[1]
    except (KeyError, TypeError, AttributeError, IndexError):
        column = 0
    lines = _own_line(token, column, slot=0) + _following_lines(token, slot=0)
    lines += _trailing_lines(container[part])
    del container[part]
    _shift_item_comments(container, part)
    if lines and part > 0:
        _put_after_item(container, part - 1, lines)
    return ""


Holders = dict[int, tuple[Any, Any]]


def _below_emptied(holders: Holders, emptied: Any, lines: str) -> None:
    """A mapping that lost its last member (`main: {}`), found where it is once every
    operation ran (migrate moves agents from the list into entries): its holding key's
    end-of-line comment stays after `{}`, and `lines` go below it. Not found: dropped, and
    apply_operations refuses the edit if one of them was not inside what was removed."""
    from ruamel.yaml.comments import CommentedMap

    if len(emptied):
        if lines:
            _put_after(emptied, list(emptied)[-1], lines)
        return
    emptied.fa.set_flow_style()  # written `{}` on its key's line, as ruamel would a flow map
    found = holders.get(id(emptied))
    if found is not None and isinstance(found[0], CommentedMap):
        slot = found[0].ca.items.get(found[1])
        if slot and len(slot) > 3:
            slot[3] = None  # ruamel's second hold of the lines `_take_above` moved
        own = emptied.ca.comment
        if own and own[0] is not None:  # the `main:` line's end-of-line comment: ruamel
            # prints it before `{}` from the mapping's own slot, after it from the key's
            slot = found[0].ca.items.setdefault(found[1], [None, None, None, None])
            if slot[2] is None:
                slot[2] = own[0]
            own[0] = None
    while found is not None and lines:
        holder, key = found
        if not isinstance(holder, CommentedMap):
            _put_after_item(holder, key, lines)  # after `- {}`
            return
        keys = list(holder)
        position = keys.index(key)
        if position + 1 < len(keys):  # ruamel prints a key's own comment before its `{}`
            _put_before(holder, keys[position + 1], lines)
            return
        found = holders.get(id(holder))  # the last member: below what holds the mapping


def _holders(data: Any) -> Holders:
    """Each collection's holding mapping or sequence and its key or index, by identity (an
    anchored value keeps the first place found)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    found: Holders = {}
    pending = [data]
    while pending:
        node = pending.pop()
        pairs = (
            node.items()
            if isinstance(node, CommentedMap)
            else enumerate(node)
            if isinstance(node, CommentedSeq)
            else ()
        )
        for key, value in pairs:
            if isinstance(value, CommentedMap | CommentedSeq) and id(value) not in found:
                found[id(value)] = (node, key)
                pending.append(value)
    return found


def _take_above(mapping: Any) -> str:
    """The comment lines above a mapping's first key (ruamel keeps them on the mapping, and
    on the key that holds it), taken off: `{}` cannot print them."""
    above = mapping.ca.comment[1] if mapping.ca.comment and len(mapping.ca.comment) > 1 else None
    if not above:
        return ""
    mapping.ca.comment[1] = []
    return "".join(f"{' ' * token.column}{token.value.strip()}\n" for token in above)


def _trailing_lines(value: Any, *, cut: bool = False) -> str:
    """The comment lines below a block collection: ruamel keeps them on its deepest last
    member, but they belong to what follows it (`cut`: taken off that member)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not isinstance(value, CommentedMap | CommentedSeq) or not len(value):
        return ""
    if value.fa.flow_style():
        return ""
    last = list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1
    inner = value[last]
    if isinstance(inner, CommentedMap | CommentedSeq) and len(inner) and not inner.fa.flow_style():
        return _trailing_lines(inner, cut=cut)
    slot = 2 if isinstance(value, CommentedMap) else 0
    token = value.ca.items.get(last)
    lines = _following_lines(token, slot=slot)
    if lines and cut:
        own = token[slot].value.partition("\n")[0]
        if own.strip():
            token[slot].value = own + "\n"
        else:
            token[slot] = None
    return lines


def _shift_item_comments(sequence: Any, deleted: int) -> None:
    """ruamel keys a sequence's comments by index: those after a deleted item move up one."""
    items = sequence.ca.items
    for index in sorted(i for i in items if isinstance(i, int) and i > deleted):
        items[index - 1] = items.pop(index)


def _put_after_item(sequence: Any, index: int, lines: str) -> None:
    """Comment lines below a sequence's item: after its block, or in its own slot."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    item = sequence[index]
    if isinstance(item, CommentedMap | CommentedSeq) and len(item) and not item.fa.flow_style():
        if isinstance(item, CommentedMap):
            _put_after(item, list(item)[-1], lines)
        else:
            _put_after_item(item, len(item) - 1, lines)
        return
    _append_comment(sequence, index, lines, slot=0)


def _key_column(container: Any, part: Any) -> int:
    """The column a key was written at (a key an earlier operation added has none: its
    neighbours')."""
    for key in (part, *container):
        try:
            column: int = container.lc.key(key)[1]
        except (KeyError, TypeError, AttributeError):
            continue
        return column
    return 0


def _before_lines(token: Any) -> str:
    """Comment lines parked before a member (by `_put_before`), as lines."""
    if not token or len(token) < 2 or not token[1]:
        return ""
    return "".join(f"{' ' * comment.column}{comment.value.strip()}\n" for comment in token[1])


def _own_line(token: Any, column: int, slot: int = 2) -> str:
    """A member's end-of-line comment as a line of its own at the member's column (`slot`
    as for `_following_lines`)."""
    if not token or len(token) <= slot or token[slot] is None:
        return ""
    first = token[slot].value.partition("\n")[0].strip()
    return f"{' ' * column}{first}\n" if first.startswith("#") else ""


def _following_lines(token: Any, slot: int = 2) -> str:
    """The comment lines after a member (its own end-of-line comment excluded); `slot`: 2
    for a mapping's member, 0 for a sequence's item."""
    if not token or len(token) <= slot or token[slot] is None:
        return ""
    value: str = token[slot].value
    _, _, rest = value.partition("\n")
    return rest if rest.strip() else ""


def _append_comment(container: Any, key: Any, lines: str, slot: int = 2) -> None:
    """Comment lines after a member's line (`slot` as for `_following_lines`)."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    tokens = container.ca.items.setdefault(key, [None, None, None, None])
    while len(tokens) < 4:
        tokens.append(None)
    if tokens[slot] is None:
        tokens[slot] = CommentToken("\n" + lines, CommentMark(0), None)
    else:
        tokens[slot].value = tokens[slot].value + lines


def _put_before(container: Any, key: Any, lines: str) -> None:
    """Comment lines (as written, `#` and indentation kept) before `key`, ahead of any that
    were parked there already (those come from later in the file)."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    slot = container.ca.items.setdefault(key, [None, [], None, None])
    if slot[1] is None:
        slot[1] = []
    comments = [
        CommentToken(line.strip() + "\n", CommentMark(len(line) - len(line.lstrip())))
        for line in lines.splitlines()
        if line.strip()
    ]
    slot[1][:0] = comments


def _put_after(container: Any, key: Any, lines: str) -> None:
    """Comment lines after the member `key`, the last one left. ruamel prints a collection
    key's comment right after `key:`, inside the block: there they go after its last member."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    value = container[key]
    if isinstance(value, CommentedMap) and len(value) and not value.fa.flow_style():
        _put_after(value, list(value)[-1], lines)
    elif isinstance(value, CommentedSeq) and len(value) and not value.fa.flow_style():
        _put_after_item(value, len(value) - 1, lines)
    else:
        _append_comment(container, key, lines)


def _rename(container: Any, old: Any, new: str) -> None:
    keys = list(container)
    index = keys.index(old)
    value = container[old]
    token = container.ca.items.pop(old, None)
    del container[old]
    container.insert(index, new, value)
    if token is not None:
        container.ca.items[new] = token


def _plain(value: object) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = _plain(item)
        return mapping
    if isinstance(value, list | tuple):
        return CommentedSeq(_plain(item) for item in value)
    return value


def _list_to_entries(parent: Any, old: str, operation: ListToEntries) -> None:
    from ruamel.yaml.comments import CommentedMap

    items = parent[old]
    record = CommentedMap()
    pending = ""  # comment lines after an item that became `x: {}`: they go before the next key
    for item, key in zip(items, operation.keys, strict=True):
        if key is None:
            continue
        # `id` goes as any deleted member does, its comments kept beside the item's other
        # members; those of an `id` alone go before the next entry.
        left = _delete(item, "id") if isinstance(item, CommentedMap) and "id" in item else ""
        record[key] = item
        if pending:
            _put_before(record, key, pending)
        pending = left
    if pending and len(record):  # the last agent's: below it (`main: {}` on one line)
        last = list(record)[-1]
        value = record[last]
        if isinstance(value, CommentedMap) and not len(value):
            value.fa.set_flow_style()
            _append_comment(record, last, pending)
        else:
            _put_after(record, last, pending)
    index = list(parent).index(old)
    token = parent.ca.items.pop(old, None)
    del parent[old]
    parent.insert(index, operation.name, record)
    if token is not None:
        parent.ca.items[operation.name] = token


def _entries_to_list(parent: Any, old: str, names: list[str], name: str) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    record = parent[old]
    if len(names) != len(record):  # a << merge into the roster
        raise EditError("agents.entries with a << merge is not converted; write it out first")
    items = CommentedSeq()
    seen: dict[int, str] = {}
    for key, value in zip(names, record.values(), strict=True):
        if not isinstance(value, CommentedMap):
            raise EditError(f"agents.entries.{key} is not an object")
        if id(value) in seen:  # one anchored mapping: each item needs an id of its own
            raise EditError(
                f"agents.entries.{key} is an alias of agents.entries.{seen[id(value)]}; "
                "write it out first"
            )
        seen[id(value)] = key
        # The comments above the entry's first key stay with that key, below the new `id`
        # (as docs/migrate.md says): ruamel would print them above the `- ` of the item.
        above = _take_above(value) if len(value) else ""
        if above:
            _put_before(value, next(iter(value)), above)
        # The entry key's end-of-line comment (`main:  # primary`) ends the new id's line.
        eol = value.ca.comment[0] if value.ca.comment else None
        if eol is not None:
            value.ca.comment[0] = None
        value.insert(0, "id", key)
        if eol is not None:
            value.ca.items.setdefault("id", [None, None, None, None])[2] = eol
        items.append(value)
    index = list(parent).index(old)
    token = parent.ca.items.pop(old, None)
    del parent[old]
    parent.insert(index, name, items)
    if token is not None:
        parent.ca.items[name] = token
