"""`$include` exactly as OpenClaw resolves it (01 §1.4), with positions kept through every file.

The resolver copies the tree it walks (the parsed documents stay untouched) and replaces each
object holding `$include` by the included content, deep-merged with its sibling keys. Every
refusal OpenClaw makes becomes one LC005 at the `$include` value; the failed include then
contributes nothing, so validation sees the rest of the config without cascading errors.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.source.nodes import ArrayNode, Document, Entry, Node, ObjectNode, ScalarNode, Span

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10  # the top-level file is depth 0
DEFAULT_MAX_BYTES = 2 * 1024 * 1024
MAX_INCLUDE_BYTES = 2 * 1024 * 1024  # OpenClaw's fixed limit for included files
BLOCKED_MERGE_KEYS = frozenset({"__proto__", "constructor", "prototype"})


def describe_value(node: Node) -> str:
    """`an array`, `a string ("10")`, `1.5`: what a user sees in "must be X, got Y"."""
    if isinstance(node, ObjectNode):
        return "an object"
    if isinstance(node, ArrayNode):
        return "an array"
    value = node.value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"a string ({_quote(value)})"
    return node.raw if node.raw is not None else repr(value)


def _quote(text: str, limit: int = 40) -> str:
    import json

    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return json.dumps(shown, ensure_ascii=False)


def deep_merge(target: Node, source: Node) -> Node:
    """OpenClaw's deepMerge: objects recursively, arrays concatenated, otherwise `source`.

    Keys `__proto__`, `constructor` and `prototype` of `source` are dropped, as OpenClaw does
    to keep prototype pollution out. Duplicate keys count once (the last written wins).
    """
    if isinstance(target, ArrayNode) and isinstance(source, ArrayNode):
        return ArrayNode([*target.items, *source.items], source.span)
    if isinstance(target, ObjectNode) and isinstance(source, ObjectNode):
        merged = {entry.key.name: entry for entry in target.winning_entries()}
        for entry in source.winning_entries():
            name = entry.key.name
            if name in BLOCKED_MERGE_KEYS:
                continue
            earlier = merged.get(name)
            value = entry.value if earlier is None else deep_merge(earlier.value, entry.value)
            merged[name] = Entry(entry.key, value)
        return ObjectNode(list(merged.values()), source.span)
    return source


class _FileContext(NamedTuple):
    """The file whose `$include`s are being resolved, and how it was reached.

    A NamedTuple rather than a frozen dataclass: the class is defined at every start, and
    defining a dataclass compiles its generated methods (see bench/validate_cold.py).
    """

    real: Path  # symlinks resolved: what cycles are detected on
    display: str  # the name shown in messages and spans
    chain: tuple[tuple[Path, str], ...]  # every file from the top-level one to this one
    depth: int


class IncludeError(Exception):
    """One refusal; becomes an LC005 at the include path token."""

    def __init__(self, message: str, related: tuple[Related, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.related = related


class IncludeResolver:
    """Resolves every `$include` under one top-level file; records documents and diagnostics."""

    def __init__(
        self,
        top_file: Path,
        top_display: str,
        documents: dict[str, Document],
        diagnostics: list[Diagnostic],
    ) -> None:
        real = Path(os.path.realpath(top_file))
        # Every include must stay inside the top-level config's directory (after symlinks).
        self.root_dir = real.parent
        self.top = _FileContext(real, top_display, ((real, top_display),), 0)
        self.documents = documents
        self.diagnostics = diagnostics

    def resolve_top(self, root: Node) -> Node:
        return self.resolve(root, self.top)

    def resolve(self, node: Node, context: _FileContext) -> Node:
        """A copy of `node` with every `$include` below it replaced."""
        if isinstance(node, ScalarNode):
            return ScalarNode(node.value, node.span, node.path, node.raw)
        if isinstance(node, ArrayNode):
            return ArrayNode([self.resolve(item, context) for item in node.items], node.span)
        include = node.entry(INCLUDE_KEY)
        if include is None:
            return self._copy_object(node, node.entries, context)
        included = self._included_content(include, context)
        siblings = [entry for entry in node.entries if entry.key.name != INCLUDE_KEY]
        if not siblings:
            return included if included is not None else ObjectNode([], node.span)
        rest = self._copy_object(node, siblings, context)
        if included is None:
            return rest
        if not isinstance(included, ObjectNode):
            self._report(
                include.value.span,
                f"`$include` has sibling keys, so the included content must be an object, "
                f"got {describe_value(included)}",
                context,
            )
            return rest
        return deep_merge(included, rest)

    def _copy_object(
        self, node: ObjectNode, entries: list[Entry], context: _FileContext
    ) -> ObjectNode:
        copied = [Entry(entry.key, self.resolve(entry.value, context)) for entry in entries]
        return ObjectNode(copied, node.span)

    def _included_content(self, include: Entry, context: _FileContext) -> Node | None:
        """The content of one include value (a path or an array of paths), or None."""
        value = include.value
        if isinstance(value, ScalarNode) and isinstance(value.value, str):
            return self._load_reporting(value.value, value, context)
        if not isinstance(value, ArrayNode):
            self._report(
                value.span,
                "`$include` must be a path or an array of paths (strings), "
                f"got {describe_value(value)}",
                context,
            )
            return None
        merged: Node | None = None
        for item in value.items:
            if not (isinstance(item, ScalarNode) and isinstance(item.value, str)):
                self._report(
                    item.span,
                    f"`$include` array items must be paths (strings), got {describe_value(item)}",
                    context,
                )
                continue
            content = self._load_reporting(item.value, item, context)
            if content is not None:
                merged = content if merged is None else deep_merge(merged, content)
        return merged

    def _load_reporting(
        self, written: str, token: ScalarNode, context: _FileContext
    ) -> Node | None:
        try:
            return self._load(written, context)
        except IncludeError as error:
            self._report(token.span, error.message, context, error.related)
            return None

    def _load(self, written: str, context: _FileContext) -> Node:
        if "\x00" in written:
            raise IncludeError(f'`$include` "{written}" is not a usable path: it holds a NUL')
        target = Path(written) if os.path.isabs(written) else context.real.parent / written
        try:
            real = Path(os.path.realpath(target))
            display = self._display_name(written, real, context)
        except (OSError, ValueError) as error:  # a lone surrogate, a name the system refuses
            reason = getattr(error, "strerror", None) or "not a file name the system accepts"
            raise IncludeError(f'`$include` "{written}" is not a usable path: {reason}') from None
        where = f'`$include` "{written}" (resolved to {real})'
        if not real.is_relative_to(self.root_dir):
            raise IncludeError(f"{where} is outside the config directory {self.root_dir}")
        chain_reals = [file for file, _ in context.chain]
        if real in chain_reals:
            start = chain_reals.index(real)
            names = [name for _, name in context.chain[start:]]
            raise IncludeError(f"`$include` cycle: {' -> '.join([*names, display])}")
        if context.depth + 1 > MAX_INCLUDE_DEPTH:
            raise IncludeError(
                f"{where} nests includes deeper than {MAX_INCLUDE_DEPTH} levels "
                f"(chain: {' -> '.join(name for _, name in context.chain)})"
            )
        document = self._read(where, real, display)
        self.documents.setdefault(document.file, document)
        child = _FileContext(
            real, document.file, (*context.chain, (real, display)), context.depth + 1
        )
        return self.resolve(document.root, child)

    def _read(self, where: str, real: Path, display: str) -> Document:
        from loopcfg.source import SourceError, load_document

        try:
            info = real.stat()
        except (FileNotFoundError, NotADirectoryError):
            raise IncludeError(f"{where} does not exist") from None
        except OSError as error:  # a name too long, a path through a file, no permission
            raise IncludeError(f"{where} cannot be read: {error.strerror or error}") from None
        if not stat.S_ISREG(info.st_mode):
            raise IncludeError(f"{where} is not a regular file")
        size = info.st_size
        if size > MAX_INCLUDE_BYTES:
            raise IncludeError(f"{where} is larger than 2 MiB ({size} bytes)")
        try:
            return load_document(display, max_bytes=MAX_INCLUDE_BYTES)
        except SourceError as error:
            inner = error.diagnostic
            related = () if inner.span is None else (Related(inner.span, inner.message),)
            verb = "cannot be parsed" if inner.code == "LC001" else "cannot be read"
            raise IncludeError(f"{where} {verb}: {inner.message}", related) from None

    def _display_name(self, written: str, real: Path, context: _FileContext) -> str:
        """The included file as the user would name it: beside the including file's name."""
        if os.path.isabs(written):
            return written
        base = os.path.dirname(context.display) if context.display != "<stdin>" else ""
        shown = os.path.normpath(os.path.join(base, written))
        # Only when that name reaches the same file (a symlinked directory may not).
        if os.path.realpath(shown) == str(real):
            return shown
        return str(real)

    def _report(
        self,
        span: Span | None,
        message: str,
        context: _FileContext,
        related: tuple[Related, ...] = (),
    ) -> None:
        self.diagnostics.append(
            Diagnostic.at("LC005", "error", message, span, file=context.display, related=related)
        )
