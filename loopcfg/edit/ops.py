"""The edits a command asks for, as values: the same operations for JSON5/JSON and YAML.

Paths are paths inside one document (the file the value is written in, `Span.file`), as the
parser sets them. A key written more than once is addressed by `occurrence` (0 = the first
written); None means the entry that counts (the last one, as in JSON5).
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from loopcfg.source.nodes import ArrayNode, DocPath, Entry, Node, ObjectNode, format_path


class Delete(NamedTuple):
    """Remove an object member or an array item."""

    path: DocPath
    occurrence: int | None = None


class Rename(NamedTuple):
    """Give an object member another key, keeping its value and place."""

    path: DocPath
    name: str
    occurrence: int | None = None


class Replace(NamedTuple):
    """Write another value (a plain JSON value) in place of the one at `path`."""

    path: DocPath
    value: object
    occurrence: int | None = None


class Insert(NamedTuple):
    """Add `key: value` to the object at `path` (at the end, or first with `first`)."""

    path: DocPath
    key: str
    value: object
    first: bool = False


class ListToEntries(NamedTuple):
    """`agents.list: [{id: a, ...}]` -> `agents.entries: {a: {...}}` (08 §8.5 step 4).

    `keys[i]` is item i's key in the record (None drops the item); every `id` member is removed.
    """

    path: DocPath
    keys: tuple[str | None, ...]
    name: str = "entries"


class EntriesToList(NamedTuple):
    """`agents.entries: {a: {...}}` -> `agents.list: [{id: "a", ...}]`, in key order."""

    path: DocPath
    name: str = "list"


Operation: TypeAlias = Delete | Rename | Replace | Insert | ListToEntries | EntriesToList


class Located(NamedTuple):
    """What a path names: the node, and the object entry holding it (None for an array item)."""

    node: Node
    entry: Entry | None
    parent: ObjectNode | ArrayNode | None


def locate(root: Node, path: DocPath, occurrence: int | None = None) -> Located:
    """The node at `path`; KeyError when there is none."""
    node: Node = root
    entry: Entry | None = None
    parent: ObjectNode | ArrayNode | None = None
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(part, int):
            if not isinstance(node, ArrayNode) or not 0 <= part < len(node.items):
                raise KeyError(format_path(path))
            parent, entry, node = node, None, node.items[part]
            continue
        if not isinstance(node, ObjectNode):
            raise KeyError(format_path(path))
        matching = [candidate for candidate in node.entries if candidate.key.name == part]
        if not matching:
            raise KeyError(format_path(path))
        chosen = matching[-1] if not last or occurrence is None else matching[occurrence]
        parent, entry, node = node, chosen, chosen.value
    return Located(node, entry, parent)
