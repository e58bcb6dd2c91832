"""`$include` exactly as OpenClaw resolves it (01 §1.4), with positions kept through every file.

Against hostile trees: each included file is opened once and checked on the open descriptor
(inside the config directory, a regular file, at most 2 MiB), so the file checked is the file
read; it is parsed once per run however often it is included; and the values copied out of
included files are budgeted (MAX_INCLUDED_NODES), past which includes are refused (LC005).

The resolver copies the tree it walks (the parsed documents stay untouched) and replaces each
object holding `$include` by the included content, deep-merged with its sibling keys. Every
refusal OpenClaw makes becomes one LC005 at the `$include` value; the failed include then
contributes nothing, so validation sees the rest of the config without cascading errors.
"""

from __future__ import annotations

import contextvars
import operator
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.source.nodes import (
    ArrayNode,
    Document,
    Entry,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    holds_dollar,
)

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10  # the top-level file is depth 0
MAX_INCLUDE_BYTES = 2 * 1024 * 1024  # OpenClaw's fixed limit for included files
# Values copied out of included files, in all, per top-level config. An include is copied
# wherever it stands, so 12 small files that each include the next ten times would make 10^11
# copies; no real config comes near this budget, and it keeps a run under a second and 200 MB.
MAX_INCLUDED_NODES = 200_000
# Includes resolved, in all, per top-level config (each costs an open and a few path look-ups,
# about 0.3 ms): a fan-out of tiny files spends this long before it copies many values.
MAX_INCLUDE_LOADS = 1_000
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
        return ArrayNode([*target.items, *source.items], source.place)
    if isinstance(target, ObjectNode) and isinstance(source, ObjectNode):
        merged = {entry.key.name: entry for entry in target.winning_entries()}
        for entry in source.winning_entries():
            name = entry.key.name
            if name in BLOCKED_MERGE_KEYS:
                continue
            earlier = merged.get(name)
            value = entry.value if earlier is None else deep_merge(earlier.value, entry.value)
            merged[name] = Entry(entry.key, value)
        return ObjectNode(list(merged.values()), source.place)
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


class _BudgetSpent(Exception):
    """Copying included content went past MAX_INCLUDED_NODES."""


class _Skipped(Exception):
    """An include not resolved because the budget already ran out (reported once)."""


class _Opened:
    """One included file, opened once: its kind, size, place and bytes all come from the same
    open descriptor, so a name swapped for a symlink between check and read changes nothing."""

    def __init__(self, where: str, target: Path) -> None:
        self.where = where
        self.target = target
        self.fd = -1

    def __enter__(self) -> _Opened:
        from loopcfg.files import open_nonblocking

        try:
            self.fd = open_nonblocking(self.target)
            info = os.fstat(self.fd)
        except (FileNotFoundError, NotADirectoryError):
            self.close()
            raise IncludeError(f"{self.where} does not exist") from None
        except OSError as error:  # a name too long, a link loop, no permission
            self.close()
            raise IncludeError(f"{self.where} cannot be read: {error.strerror or error}") from None
        if not stat.S_ISREG(info.st_mode):
            self.close()
            raise IncludeError(f"{self.where} is not a regular file")
        if info.st_size > MAX_INCLUDE_BYTES:
            self.close()
            raise IncludeError(f"{self.where} is larger than 2 MiB ({info.st_size} bytes)")
        self.info = info
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def real(self, named: Path) -> Path:
        """Where the opened file is. From /proc/self/fd where there is one; elsewhere the name
        resolved before opening, accepted only when it is still the same file (device, inode)."""
        from loopcfg.files import opened_path

        found = opened_path(self.fd)
        if found is not None:
            return Path(found)
        try:
            again = os.stat(named)
        except OSError:
            again = None
        if again is None or (again.st_dev, again.st_ino) != (self.info.st_dev, self.info.st_ino):
            raise IncludeError(f"{self.where} changed while it was being read")
        return named

    def identity(self) -> tuple[int, ...]:
        info = self.info
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)

    def read(self) -> bytes:
        from loopcfg.files import read_limited

        try:
            data = read_limited(self.fd, MAX_INCLUDE_BYTES + 1)
        except OSError as error:
            raise IncludeError(f"{self.where} cannot be read: {error.strerror or error}") from None
        if len(data) > MAX_INCLUDE_BYTES:  # it grew since fstat
            raise IncludeError(f"{self.where} is larger than 2 MiB")
        return data


class IncludeError(Exception):
    """One refusal; becomes an LC005 at the include path token."""

    def __init__(self, message: str, related: tuple[Related, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.related = related


def _nesting(root: Node) -> int:
    """How many objects and arrays deep `root` goes (0 for a scalar), without recursion. An
    `$include`'s own value is not counted: resolving replaces it (and checks what comes)."""
    deepest = 0
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, above = stack.pop()
        if isinstance(node, ObjectNode):
            deepest = max(deepest, above + 1)
            stack.extend(
                (entry.value, above + 1) for entry in node.entries if entry.key.name != INCLUDE_KEY
            )
        elif isinstance(node, ArrayNode):
            deepest = max(deepest, above + 1)
            stack.extend((item, above + 1) for item in node.items)
    return deepest


# Resolving recurses once per level of the config, and an included file is parsed where its
# `$include` stands: a file of 190 levels parsed 190 levels down would run out of Python's
# stack (and YAML would call that "nesting deeper than 200 levels", which the file alone is
# not). Below this level the stack has room for any file the parser accepts.
_FRESH_STACK_LEVEL = 64


def _on_a_fresh_stack(parse: Callable[..., Document], *args: object) -> Document:
    """`parse(*args)` in a thread of its own, started and joined at once: nothing runs beside
    it, so the caller's unsaved texts and stand-in parser (context variables, copied in) are
    used as they would be here, one call at a time."""
    context = contextvars.copy_context()
    outcome: list[Document | BaseException] = []

    def run() -> None:
        try:
            outcome.append(context.run(parse, *args))
        except BaseException as error:  # handed to the caller, raised there
            outcome.append(error)

    thread = threading.Thread(target=run, name="loopcfg-include-parse")
    thread.start()
    thread.join()
    [result] = outcome
    if isinstance(result, BaseException):
        raise result
    return result


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
        self.parsed: dict[tuple[int, ...], Document] = {}  # by (device, inode, size, mtime)
        self.copied = 0  # nodes copied out of included files, against MAX_INCLUDED_NODES
        self.loads = 0  # includes resolved, against MAX_INCLUDE_LOADS
        self.exhausted = False

    def resolve_top(self, root: Node) -> Node:
        return self.resolve(root, self.top, 0)

    def resolve(self, node: Node, context: _FileContext, level: int) -> Node:
        """`node` with every `$include` below it replaced.

        The content of an included file is always copied: one file may be included at several
        places, and each copy gets the paths of its place. The top-level file's own values are
        kept where nothing below them changes (copy on write): the language server's memo
        (loopcfg/memo.py) recognises values by identity, so a config with one `$include`
        would otherwise be checked whole after every edit. Nothing here writes to a kept node.
        """
        if context.depth:
            self._spend()
        elif not holds_dollar(node):
            return node  # no `$include` below: the file's own value, as parsed
        if isinstance(node, ScalarNode):
            if not context.depth:
                return node
            return ScalarNode(node.value, node.place, (), node.raw)  # its path is set when placed
        if isinstance(node, ArrayNode):
            items = [self.resolve(item, context, level + 1) for item in node.items]
            if not context.depth and all(map(operator.is_, items, node.items)):
                return node
            return ArrayNode(items, node.place)
        include = node.entry(INCLUDE_KEY)
        if include is None:
            return self._copy_object(node, node.entries, context, level)
        included = self._included_content(include, context, level)
        siblings = [entry for entry in node.entries if entry.key.name != INCLUDE_KEY]
        if not siblings:
            return included if included is not None else ObjectNode([], node.place)
        rest = self._copy_object(node, siblings, context, level)
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

    def _spend(self) -> None:
        self.copied += 1
        if self.copied > MAX_INCLUDED_NODES:
            self.exhausted = True
            raise _BudgetSpent

    def _copy_object(
        self, node: ObjectNode, entries: list[Entry], context: _FileContext, level: int
    ) -> ObjectNode:
        values = [self.resolve(entry.value, context, level + 1) for entry in entries]
        if (
            not context.depth
            and entries is node.entries
            and all(map(operator.is_, values, (entry.value for entry in entries)))
        ):
            return node
        copied = [Entry(entry.key, value) for entry, value in zip(entries, values, strict=True)]
        return ObjectNode(copied, node.place)

    def _included_content(self, include: Entry, context: _FileContext, level: int) -> Node | None:
        """The content of one include value (a path or an array of paths), or None."""
        value = include.value
        if isinstance(value, ScalarNode) and isinstance(value.value, str):
            return self._load_reporting(value.value, value, context, level)
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
            content = self._load_reporting(item.value, item, context, level)
            if content is not None:
                merged = content if merged is None else deep_merge(merged, content)
        return merged

    def _load_reporting(
        self, written: str, token: ScalarNode, context: _FileContext, level: int
    ) -> Node | None:
        try:
            return self._load(written, context, level)
        except IncludeError as error:
            self._report(token.span, error.message, context, error.related)
        except _BudgetSpent:
            message = (
                f'`$include` "{written}": the includes add up to more than '
                f"{MAX_INCLUDE_LOADS} files or {MAX_INCLUDED_NODES} values (each include is "
                "read and copied where it stands); includes from here on are not resolved"
            )
            self._report(token.span, message, context)
        except _Skipped:
            pass
        return None

    def _load(self, written: str, context: _FileContext, level: int) -> Node:
        if self.exhausted:  # the budget ran out (reported once, at the include that spent it)
            raise _Skipped
        self.loads += 1
        if self.loads > MAX_INCLUDE_LOADS:
            self.exhausted = True
            raise _BudgetSpent
        if "\x00" in written:
            raise IncludeError(f'`$include` "{written}" is not a usable path: it holds a NUL')
        target = Path(written) if os.path.isabs(written) else context.real.parent / written
        try:
            named = Path(os.path.realpath(target))
            display = self._display_name(written, named, context)
        except (OSError, ValueError) as error:  # a lone surrogate, a name the system refuses
            reason = getattr(error, "strerror", None) or "not a file name the system accepts"
            raise IncludeError(f'`$include` "{written}" is not a usable path: {reason}') from None
        # Checked on the name first (the messages of a file that is not there), then again on
        # the file actually opened: a link swapped in between is caught by the second check.
        self._check_place(written, named, context)
        with _Opened(f'`$include` "{written}" (resolved to {named})', target) as opened:
            real = opened.real(named)
            if real != named:
                self._check_place(written, real, context)
            document = self._document(opened, display, level)
        self.documents.setdefault(document.file, document)
        child = _FileContext(
            real, document.file, (*context.chain, (real, display)), context.depth + 1
        )
        self._check_nesting(written, document, level)
        return self.resolve(document.root, child, level)

    def _check_nesting(self, written: str, document: Document, level: int) -> None:
        """Refuse content that would nest the merged config deeper than a file may be: each
        file is held to the parser's limit, and so is what their includes build, which
        every later step walks (a chain of files each nested 190 levels would otherwise
        exhaust Python's stack)."""
        from loopcfg.source.json5 import MAX_DEPTH

        nesting = document.nesting
        if nesting is None:
            nesting = document.nesting = _nesting(document.root)
        if level + nesting > MAX_DEPTH:
            raise IncludeError(
                f'`$include` "{written}": its content ({nesting} levels deep) placed here, '
                f"{level} levels down, would nest the config deeper than {MAX_DEPTH} levels"
            )

    def _check_place(self, written: str, real: Path, context: _FileContext) -> None:
        """Refuse a file outside the config directory, a cycle, and nesting beyond the limit."""
        where = f'`$include` "{written}" (resolved to {real})'
        if not real.is_relative_to(self.root_dir):
            raise IncludeError(f"{where} is outside the config directory {self.root_dir}")
        chain_reals = [file for file, _ in context.chain]
        if real in chain_reals:
            start = chain_reals.index(real)
            names = [name for _, name in context.chain[start:]]
            display = self._display_name(written, real, context)
            raise IncludeError(f"`$include` cycle: {' -> '.join([*names, display])}")
        if context.depth + 1 > MAX_INCLUDE_DEPTH:
            raise IncludeError(
                f"{where} nests includes deeper than {MAX_INCLUDE_DEPTH} levels "
                f"(chain: {' -> '.join(name for _, name in context.chain)})"
            )

    def _document(self, opened: _Opened, display: str, level: int) -> Document:
        """The parsed file, parsed once per run however often it is included."""
        from loopcfg.source import SourceError, decode, format_for, parse_text, unsaved_text

        identity = opened.identity()
        cached = self.parsed.get(identity)
        if cached is not None:
            return cached
        unsaved = unsaved_text(display)  # an editor's buffer (the LSP) or `fix`'s edit
        data = opened.read() if unsaved is None else unsaved.encode("utf-8", "surrogatepass")
        try:
            text = decode(data, display)
            if level < _FRESH_STACK_LEVEL:
                document = parse_text(text, display, format_for(display))
            else:
                document = _on_a_fresh_stack(parse_text, text, display, format_for(display))
        except SourceError as error:
            inner = error.diagnostic
            related = () if inner.span is None else (Related(inner.span, inner.message),)
            verb = "cannot be parsed" if inner.code == "LC001" else "cannot be read"
            raise IncludeError(f"{opened.where} {verb}: {inner.message}", related) from None
        self.parsed[identity] = document
        return document

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
