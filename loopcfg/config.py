"""Load a config as OpenClaw does: parse, resolve `$include` (01 §1.4), substitute `${VAR}` (§1.5).

`load_config` never raises for bad input: every problem becomes a diagnostic in the result
(LC000 unreadable, LC001 syntax, LC005 include, LC006 variable, LC008 a root that is not an
object). The tree in `LoadedConfig.root` is a copy: the documents stay as they were parsed, so
suppression comments, duplicate keys and source lines are still found in them. A file without a
`$` (so without `$include` and `${VAR}`) is not copied: its tree would come out unchanged, and
nothing downstream changes a loaded tree, so `root` is the document's own.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO, BinaryIO

from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic
from loopcfg.envvars import substitute_config
from loopcfg.files import DEFAULT_MAX_BYTES
from loopcfg.includes import IncludeResolver, describe_value
from loopcfg.source.nodes import (
    ArrayNode,
    DocPath,
    Document,
    Entry,
    Format,
    Node,
    ObjectNode,
    ScalarNode,
    TooDeep,
    from_python,
)

__all__ = ["DEFAULT_MAX_BYTES", "LoadedConfig", "load_config", "loaded_from_python", "set_paths"]


class LoadedConfig:
    """What loading one config produced; `root` is None when there is no usable object.

    A plain slotted class rather than a dataclass: defining a dataclass compiles its generated
    methods on every start (see bench/validate_cold.py). Compared by identity, as before.
    """

    __slots__ = __match_args__ = (
        "file",
        "document",
        "documents",
        "root",
        "diagnostics",
        "unparsed_text",
    )
    file: str
    document: Document | None
    documents: dict[str, Document]
    root: ObjectNode | None
    diagnostics: list[Diagnostic]
    unparsed_text: str | None  # the top file's text when it was read but did not parse

    def __init__(
        self,
        file: str,
        document: Document | None,
        documents: dict[str, Document] | None = None,
        root: ObjectNode | None = None,
        diagnostics: list[Diagnostic] | None = None,
        unparsed_text: str | None = None,
    ) -> None:
        self.file = file
        self.document = document
        self.documents = {} if documents is None else documents
        self.root = root
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.unparsed_text = unparsed_text

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({shown})"

    @property
    def ok(self) -> bool:
        """True when loading found no error (validation may still find some)."""
        return not any(d.severity == "error" for d in self.diagnostics)


@paused
def load_config(
    path: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    input_format: Format | None = None,
    stdin_filename: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stdin: IO[bytes] | IO[str] | None = None,
) -> LoadedConfig:
    """Read `path` (`-` is stdin), resolve its includes and `${VAR}`s; never raises for bad input.

    `env` defaults to `os.environ`; the CLI passes the environment overlaid on `--env-file`.
    `stdin` replaces `sys.stdin` for `-` (tests, the API).
    """
    from loopcfg.source import SourceError

    name = str(path)
    from_stdin = name == "-"
    display = (stdin_filename or "<stdin>") if from_stdin else name
    try:
        document = _read_top(name, input_format, stdin_filename, max_bytes, stdin)
    except SourceError as error:
        return LoadedConfig(display, None, {}, None, [error.diagnostic], error.text)
    display = document.file
    loaded = LoadedConfig(display, document, {display: document})
    if not isinstance(document.root, ObjectNode):
        loaded.diagnostics.append(_root_not_object(document.root, display))
        return loaded
    if not _may_hold_dollar(document.text):
        # Nothing to include or substitute: the parsed tree, whose paths the parser set, is
        # the loaded tree (copying a 4,000-agent file cost a tenth of its validation).
        loaded.root = document.root
        return loaded
    # Includes from stdin resolve relative to the current directory (05-cli).
    top = Path.cwd() / "-" if from_stdin else Path(name)
    resolver = IncludeResolver(top, display, loaded.documents, loaded.diagnostics)
    root = resolver.resolve_top(document.root)
    if not isinstance(root, ObjectNode):  # pragma: no cover - the top object stays an object
        loaded.diagnostics.append(_root_not_object(root, display))
        return loaded
    if root is not document.root:
        _set_moved_paths(root)
    root, missing = substitute_config(root, os.environ if env is None else env, display)
    loaded.diagnostics.extend(missing)
    loaded.root = root
    return loaded


# An escape that decodes to "$" (JSON5 `\x24`, `\u0024`; YAML also `\U00000024`), so that a
# `$include` key or a `${VAR}` can be written without a literal "$". Case-insensitive: a false
# match only costs the copy.
_DOLLAR_ESCAPE = re.compile(r"\\(?:x24|u0024|U00000024)", re.IGNORECASE)


def _may_hold_dollar(text: str) -> bool:
    """False when no key or string of `text` can contain "$" once decoded."""
    return "$" in text or ("\\" in text and _DOLLAR_ESCAPE.search(text) is not None)


def loaded_from_python(
    value: object, *, file: str = "<config>", env: Mapping[str, str] | None = None
) -> LoadedConfig:
    """A `LoadedConfig` for a plain dict (the API): no files, so no spans and no includes.

    `${VAR}` is substituted only when `env` is given: a dict usually holds final values.
    """
    loaded = LoadedConfig(file, None)
    try:
        root = from_python(value)
    except TooDeep as error:  # as a file nested that deep is refused by its parser
        loaded.diagnostics.append(Diagnostic.at("LC001", "error", str(error), None, file=file))
        return loaded
    if not isinstance(root, ObjectNode):
        loaded.diagnostics.append(_root_not_object(root, file))
        return loaded
    set_paths(root)
    if env is not None:
        root, missing = substitute_config(root, env, file)
        loaded.diagnostics.extend(missing)
    loaded.root = root
    return loaded


def _read_top(
    name: str,
    input_format: Format | None,
    stdin_filename: str | None,
    max_bytes: int,
    stdin: IO[bytes] | IO[str] | None,
) -> Document:
    from loopcfg.source import load_document

    return load_document(
        name,
        input_format=input_format,
        stdin_filename=stdin_filename,
        max_bytes=max_bytes,
        stdin=None if stdin is None else _as_binary(stdin),
    )


def _as_binary(stream: IO[bytes] | IO[str]) -> BinaryIO:
    """The source reader takes bytes (it decodes and reports bad UTF-8 itself)."""
    data = stream.read()
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return io.BytesIO(data)


def _root_not_object(root: Node, file: str) -> Diagnostic:
    return Diagnostic.at(
        "LC008",
        "error",
        f"the config must be an object at the top level, got {describe_value(root)}",
        root.span,
        file=file,
        path="",
        hint="an OpenClaw config is one object: { tools: { loopDetection: { ... } } }",
    )


def _set_moved_paths(root: ObjectNode) -> None:
    """Give the nodes that resolving the includes made their paths in the merged tree.

    The top-level file's values that resolving kept (`IncludeResolver.resolve`) already have
    theirs, all the way down, unless an include's array came before theirs (`deep_merge`
    concatenates arrays): such a value is copied, never renumbered, since it is the parsed
    document's own. What resolving made has the path `()`, which only the root has in a
    parsed document, so that a kept value is told from a made one without a walk over the
    whole file (the language server loads after every edit)."""
    stack: list[tuple[Node, DocPath]] = [(root, ())]
    while stack:
        node, where = stack.pop()
        node.path = where
        if isinstance(node, ObjectNode):
            for entry in node.entries:
                entry.value = _placed_child(entry.value, (*where, entry.key.name), stack)
        elif isinstance(node, ArrayNode):
            items = node.items
            for index, item in enumerate(items):
                items[index] = _placed_child(item, (*where, index), stack)


def _placed_child(child: Node, place: DocPath, stack: list[tuple[Node, DocPath]]) -> Node:
    if child.path == place:
        return child  # kept where it was parsed: its paths are right
    if child.path:
        child = _copy_tree(child)  # the file's own, moved: copied, never renumbered
    stack.append((child, place))
    return child


def _copy_tree(node: Node) -> Node:
    """A copy of `node`'s tree (the parser bounds its nesting), paths to be set."""
    if isinstance(node, ObjectNode):
        return ObjectNode([Entry(e.key, _copy_tree(e.value)) for e in node.entries], node.place)
    if isinstance(node, ArrayNode):
        return ArrayNode([_copy_tree(item) for item in node.items], node.place)
    return ScalarNode(node.value, node.place, (), node.raw)


def set_paths(node: Node, path: DocPath = ()) -> None:
    """Give every node its path in the merged tree (iterative: trees may be 200 levels deep)."""
    stack: list[tuple[Node, DocPath]] = [(node, path)]
    while stack:
        current, where = stack.pop()
        current.path = where
        if isinstance(current, ObjectNode):
            stack.extend((entry.value, (*where, entry.key.name)) for entry in current.entries)
        elif isinstance(current, ArrayNode):
            stack.extend((item, (*where, index)) for index, item in enumerate(current.items))
