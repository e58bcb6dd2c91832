"""YAML edits through ruamel.yaml's round-trip mode: comments, key order and the file's own
indentation survive; the same operations as the JSON5 editor.

ruamel attaches the comment lines that follow a member to that member; when the member is
deleted those lines move to the member before it, so they stay where they were written. A
comment that cannot be kept makes the edit fail (checked by loopcfg.edit.apply_operations).
ruamel is imported only here, and only when a YAML file is edited.
"""

from __future__ import annotations

import io
from typing import Any

from loopcfg.edit.ops import (
    Delete,
    EntriesToList,
    Insert,
    ListToEntries,
    Operation,
    Rename,
    Replace,
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
    for operation in operations:
        _apply(data, operation)
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


def _apply(data: Any, operation: Operation) -> None:
    if isinstance(operation, Delete):
        container = _walk(data, operation.path[:-1])
        _delete(container, operation.path[-1])
    elif isinstance(operation, Rename):
        container = _walk(data, operation.path[:-1])
        _rename(container, str(operation.path[-1]), operation.name)
    elif isinstance(operation, Replace):
        container = _walk(data, operation.path[:-1])
        container[operation.path[-1]] = _plain(operation.value)
    elif isinstance(operation, Insert):
        target = _walk(data, operation.path)
        position = 0 if operation.first else len(target)
        target.insert(position, operation.key, _plain(operation.value))
    elif isinstance(operation, ListToEntries):
        _list_to_entries(data, operation)
    else:
        _entries_to_list(data, operation)


def _delete(container: Any, part: str | int) -> None:
    from ruamel.yaml.comments import CommentedMap

    if isinstance(container, CommentedMap):
        keys = list(container)
        index = keys.index(part)
        token = container.ca.items.pop(part, None)
        del container[part]
        following = _following_lines(token)
        if following:
            if index == 0:
                raise EditError("the comments after the first member would be lost")
            _append_comment(container, keys[index - 1], following)
        return
    del container[part]


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


def _list_to_entries(data: Any, operation: ListToEntries) -> None:
    from ruamel.yaml.comments import CommentedMap

    parent = _walk(data, operation.path[:-1])
    old = str(operation.path[-1])
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


def _entries_to_list(data: Any, operation: EntriesToList) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    parent = _walk(data, operation.path[:-1])
    old = str(operation.path[-1])
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
