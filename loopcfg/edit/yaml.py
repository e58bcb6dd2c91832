"""YAML edits through ruamel.yaml's round-trip mode: comments, key order and the file's own
indentation survive; the same operations as the JSON5 editor.

ruamel attaches the comment lines that follow a member to that member; when the member is
deleted those lines move to the member before it, so they stay where they were written. A
comment that cannot be kept makes the edit fail (checked by loopcfg.edit.apply_operations).
ruamel is imported only here, and only when a YAML file is edited.
"""

from __future__ import annotations

import io
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
from loopcfg.source.nodes import DocPath, Document, ObjectNode


def apply_yaml(document: Document, operations: list[Operation]) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    if _has_duplicates(document.root):
        raise EditError("a YAML file with a key written twice is not edited; remove one first")
    text = document.text[1:] if document.text.startswith("\ufeff") else document.text
    from loopcfg.edit.json5 import indent_unit

    # ruamel guesses the sequence indentation (and the dash's offset); mappings are measured.
    _, sequence, offset = load_yaml_guess_indent(text)
    mapping = len(indent_unit(text).expandtabs(2))
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap long lines the user wrote
    yaml.indent(mapping=mapping, sequence=sequence or mapping, offset=offset or 0)
    data = yaml.load(text)
    # Every path names a place in the file as written, as for the JSON5 editor: each one is
    # found before any operation moves things (migrate turns agents.list into agents.entries
    # and deletes knobs inside its items; a deleted item shifts the indexes after it).
    steps = [_resolved(data, operation) for operation in operations]
    for step in steps:
        step()
    out = io.StringIO()
    yaml.dump(data, out)
    result = out.getvalue()
    if "\r\n" in document.text:
        result = result.replace("\n", "\r\n")
    return ("\ufeff" if document.text.startswith("\ufeff") else "") + result


def _has_duplicates(node: object) -> bool:
    if isinstance(node, ObjectNode):
        if node.duplicates():
            return True
        return any(_has_duplicates(entry.value) for entry in node.entries)
    items = getattr(node, "items", None)
    return isinstance(items, list) and any(_has_duplicates(item) for item in items)


def _walk(data: Any, path: DocPath) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            raise EditError(f"nothing at {path!r}") from None
    return data


def _resolved(data: Any, operation: Operation) -> Callable[[], None]:
    """The operation bound to the containers its path names now."""
    if isinstance(operation, Insert):
        target = _walk(data, operation.path)
        return lambda: _insert(target, operation)
    parent = _walk(data, operation.path[:-1])
    if isinstance(operation, ListToEntries):
        return lambda: _list_to_entries(parent, str(operation.path[-1]), operation)
    if isinstance(operation, EntriesToList):
        return lambda: _entries_to_list(parent, str(operation.path[-1]), operation)
    where = _where(parent, operation.path[-1])
    if isinstance(operation, Delete):
        return lambda: _delete(parent, where())
    if isinstance(operation, Rename):
        return lambda: _rename(parent, str(where()), operation.name)
    value = _plain(operation.value)
    return lambda: parent.__setitem__(where(), value)


def _where(container: Any, part: str | int) -> Callable[[], str | int]:
    """Where `part` of `container` is when the step runs: a mapping's key, or the index a
    sequence's item has by then (deleting an item shifts the ones after it)."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(container, CommentedMap):
        return lambda: part
    item = _walk(container, (part,))

    def index() -> int:
        for position, candidate in enumerate(container):
            if candidate is item:
                return position
        raise EditError(f"the item at {part!r} was removed by another operation")

    return index


def _insert(target: Any, operation: Insert) -> None:
    position = 0 if operation.first else len(target)
    target.insert(position, operation.key, _plain(operation.value))


def _delete(container: Any, part: str | int) -> None:
    from ruamel.yaml.comments import CommentedMap

    if isinstance(container, CommentedMap):
        keys = list(container)
        index = keys.index(part)
        column = container.lc.key(part)[1]
        token = container.ca.items.pop(part, None)
        del container[part]
        # No comment is deleted (docs/migrate.md): the member's own end-of-line comment stays
        # on its own line where the member was, as the JSON5 editor leaves it.
        lines = _own_line(token, column) + _following_lines(token)
        if not lines:
            return
        if index > 0:
            _append_comment(container, keys[index - 1], lines)
        elif len(keys) > 1:
            _comment_before(container, keys[1], lines)
        else:
            raise EditError("the comments of the only member would be lost")
        return
    del container[part]


def _own_line(token: Any, column: int) -> str:
    """A member's end-of-line comment as a line of its own at the member's column."""
    if not token or len(token) < 3 or token[2] is None:
        return ""
    first = token[2].value.partition("\n")[0].strip()
    return f"{' ' * column}{first}\n" if first.startswith("#") else ""


def _following_lines(token: Any) -> str:
    """The comment lines after a member (its own end-of-line comment excluded)."""
    if not token or len(token) < 3 or token[2] is None:
        return ""
    value: str = token[2].value
    _, _, rest = value.partition("\n")
    return rest if rest.strip() else ""


def _append_comment(container: Any, key: Any, lines: str) -> None:
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    slot = container.ca.items.setdefault(key, [None, None, None, None])
    while len(slot) < 4:
        slot.append(None)
    if slot[2] is None:
        slot[2] = CommentToken("\n" + lines, CommentMark(0), None)
    else:
        slot[2].value = slot[2].value + lines


def _comment_before(container: Any, key: Any, lines: str) -> None:
    texts = [line.strip() for line in lines.splitlines() if line.strip()]
    column = min(len(line) - len(line.lstrip()) for line in lines.splitlines() if line.strip())
    body = "\n".join(text[1:].removeprefix(" ") if text.startswith("#") else text for text in texts)
    container.yaml_set_comment_before_after_key(key, before=body, indent=column)


def _rename(container: Any, old: str, new: str) -> None:
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
        token = None
        if isinstance(item, CommentedMap) and "id" in item:
            token = item.ca.items.pop("id", None)
            del item["id"]
        record[key] = item
        if pending:
            _comment_before(record, key, pending)
            pending = ""
        lines = _following_lines(token)
        if lines and isinstance(item, CommentedMap) and len(item):
            _append_comment(item, list(item)[-1], lines)
        else:
            pending = lines
    if pending:
        raise EditError("the comments after the last agent would be lost")
    index = list(parent).index(old)
    token = parent.ca.items.pop(old, None)
    del parent[old]
    parent.insert(index, operation.name, record)
    if token is not None:
        parent.ca.items[operation.name] = token


def _entries_to_list(parent: Any, old: str, operation: EntriesToList) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    record = parent[old]
    items = CommentedSeq()
    for key, value in record.items():
        if not isinstance(value, CommentedMap):
            raise EditError(f"agents.entries.{key} is not an object")
        value.insert(0, "id", key)
        items.append(value)
    index = list(parent).index(old)
    token = parent.ca.items.pop(old, None)
    del parent[old]
    parent.insert(index, operation.name, items)
    if token is not None:
        parent.ca.items[operation.name] = token
