"""`${VAR}` substitution (01 §1.5) and dotenv files for `--env-file`.

OpenClaw substitutes in every string of its config; loopcfg does it in the parts it reads (agent
ids and every string inside a block), after includes and before validation, so a `"${N}"` meant
as a number is then rejected by the schema, as OpenClaw rejects it.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable, Mapping

from loopcfg.diagnostics import Diagnostic
from loopcfg.source.nodes import (
    ArrayNode,
    Entry,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    format_path,
    holds_dollar,
)

# Compiled on first use: most configs hold no `$` and are read without --env-file.
# `$${NAME}` is an escape for a literal `${NAME}`; it is tried first, so it wins at its `$`.
_REFERENCE = re.compile(r"\$\$\{(?P<escaped>[A-Z_][A-Z0-9_]*)\}|\$\{(?P<name>[A-Z_][A-Z0-9_]*)\}")
_ENV_LINE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")


class EnvFileError(Exception):
    """An `--env-file` that cannot be read or holds a line that is not `KEY=VALUE` (LC000)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def substitute(text: str, env: Mapping[str, str]) -> tuple[str, list[tuple[str, bool]]]:
    """Replace `${NAME}`; returns the text and every (name, is_set_but_empty) that failed.

    A failed reference stays as written, so a later message can still show it.
    """
    missing: list[tuple[str, bool]] = []

    def replace(match: re.Match[str]) -> str:
        escaped = match.group("escaped")
        if escaped is not None:
            return "${" + escaped + "}"
        name = match.group("name")
        value = env.get(name)
        if value is None or value == "":
            missing.append((name, value == ""))
            return match.group(0)
        return value

    if "$" not in text:
        return text, missing
    return _REFERENCE.sub(replace, text), missing


def substitute_config(
    root: ObjectNode, env: Mapping[str, str], file: str
) -> tuple[ObjectNode, list[Diagnostic]]:
    """`root` with `${VAR}`s substituted in agent ids and in every string inside the global and
    agent blocks, and the LC006 findings of the names that are missing.

    Copy on write: a node whose text changes is replaced, and so are its parents; every other
    node is `root`'s own (the parsed document's, which the language server parses again only
    where an edit was, and whose memo recognises values by identity). `root` must have its
    paths set (they name the config path in LC006).
    """
    found: list[Diagnostic] = []

    def block(node: Node) -> Node:
        return _with_child(node, "tools", lambda tools: _with_child(tools, "loopDetection", tree))

    def tree(node: Node) -> Node:
        return _substituted(node, env, file, found)

    def roster(node: Node) -> Node:
        if not isinstance(node, ArrayNode) or not holds_dollar(node):
            return node
        items = [block(_with_child(item, "id", tree)) for item in node.items]
        return _with_items(node, items)

    def keyed(node: Node) -> Node:  # 2026.8.1+: agents.entries.<id>.tools.loopDetection
        if not isinstance(node, ObjectNode) or not holds_dollar(node):
            return node
        return _with_values(node, [block(entry.value) for entry in node.entries])

    def agents(node: Node) -> Node:
        return _with_child(_with_child(node, "list", roster), "entries", keyed)

    substituted = _with_child(block(root), "agents", agents)
    assert isinstance(substituted, ObjectNode)  # a copy of an object is an object
    return substituted, found


def _substituted(node: Node, env: Mapping[str, str], file: str, out: list[Diagnostic]) -> Node:
    """`node` with every string below it substituted (children in reverse order, as the
    findings have always been listed). Nesting is bounded by the parser (MAX_DEPTH)."""
    if not holds_dollar(node):
        return node
    if isinstance(node, ObjectNode):
        values = [_substituted(entry.value, env, file, out) for entry in reversed(node.entries)]
        return _with_values(node, values[::-1])
    if isinstance(node, ArrayNode):
        items = [_substituted(item, env, file, out) for item in reversed(node.items)]
        return _with_items(node, items[::-1])
    if not isinstance(node.value, str):
        return node
    text, missing = substitute(node.value, env)
    if text != node.value:
        node = ScalarNode(text, node.place, node.path, node.raw)
    out.extend(_missing(name, empty, node, file) for name, empty in missing)
    return node


def _with_child(node: Node, name: str, change: Callable[[Node], Node]) -> Node:
    """`node` with its winning `name` entry's value changed, copied only if it changes
    (`change` substitutes, so where no string holds a "$" there is nothing to change)."""
    if not isinstance(node, ObjectNode) or not holds_dollar(node):
        return node
    entry = node.entry(name)
    if entry is None:
        return node
    return _with_values(node, [change(e.value) if e is entry else e.value for e in node.entries])


def _with_values(node: ObjectNode, values: list[Node]) -> ObjectNode:
    if all(map(operator.is_, values, (entry.value for entry in node.entries))):
        return node
    entries = [Entry(entry.key, value) for entry, value in zip(node.entries, values, strict=True)]
    return ObjectNode(entries, node.place, node.path)


def _with_items(node: ArrayNode, items: list[Node]) -> ArrayNode:
    if all(map(operator.is_, items, node.items)):
        return node
    return ArrayNode(items, node.place, node.path)


def _missing(name: str, empty: bool, node: ScalarNode, file: str) -> Diagnostic:
    where = format_path(node.path)
    # OpenClaw's own wording (MissingEnvVarError), so a search for the gateway's error finds it.
    message = f'Missing env var "{name}" referenced at config path: {where}'
    state = "is set but empty" if empty else "is not set"
    hint = f"{name} {state}; set it in the environment or in a file given with --env-file"
    return Diagnostic.at("LC006", "error", message, node.span, file=file, path=where, hint=hint)


# The largest env file read: a dotenv file is a few lines; /dev/zero would be read forever.
MAX_ENV_FILE_BYTES = 1024 * 1024


def _env_file_error(message: str, name: str) -> EnvFileError:
    return EnvFileError(Diagnostic.at("LC000", "error", message, None, file=name))


def _read_env_bytes(name: str) -> bytes:
    """The file's bytes: opened once and non-blocking (a FIFO with no writer reads as empty,
    `<(...)` still works), a directory refused, at most MAX_ENV_FILE_BYTES."""
    import stat

    from loopcfg.files import open_nonblocking, read_limited

    try:
        fd = open_nonblocking(name)
        try:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                raise _env_file_error(f"cannot read env file {name}: is a directory", name)
            data = read_limited(fd, MAX_ENV_FILE_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as error:
        message = f"cannot read env file {name}: {error.strerror or error}"
        raise _env_file_error(message, name) from None
    except ValueError:  # a NUL or a lone surrogate in the name
        message = f"cannot read env file {name}: not a file name the system accepts"
        raise _env_file_error(message, name) from None
    if len(data) > MAX_ENV_FILE_BYTES:
        limit = MAX_ENV_FILE_BYTES // 1024 // 1024
        raise _env_file_error(f"env file {name} is larger than {limit} MiB", name)
    return data


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read dotenv lines: `KEY=VALUE`, `# comments`, optional quotes, an `export ` prefix.

    Raises `EnvFileError` (LC000) for an unreadable file or a line that is not an assignment.

    Not python-dotenv: its parser skips a line it cannot parse (with a logged warning) where
    05-cli wants that line refused with its position, it reports no column for a byte that is
    not UTF-8, and its `dotenv_values` expands `${VAR}` inside values, where loopcfg substitutes
    once, in the config, with LC006 for a missing name. Matching those would mean wrapping its
    internal parser module: more code than the 40 lines below.
    """
    name = str(path)
    data = _read_env_bytes(name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        # Where, in the user's terms (not Python's "codec can't decode ... in position 6").
        before = data[: error.start].decode("utf-8", "replace").removeprefix("\ufeff")
        rows = before.split("\n")
        row, column = len(rows), len(rows[-1]) + 1
        span = Span(name, row, column, row, column + 1)
        message = f"env file is not UTF-8: invalid byte 0x{data[error.start]:02x}"
        raise EnvFileError(
            Diagnostic.at("LC000", "error", message, span, hint="save the file as UTF-8")
        ) from None
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        parsed = _parse_env_line(line)
        if parsed is None:
            continue
        if isinstance(parsed, str):
            span = Span(name, number, 1, number, len(line) + 1)
            message = f"env file line is not KEY=VALUE: {parsed}"
            raise EnvFileError(Diagnostic.at("LC000", "error", message, span))
        key, value = parsed
        values[key] = value
    return values


def _parse_env_line(line: str) -> tuple[str, str] | str | None:
    """(key, value); None for blank and comment lines; a reason string for a bad line."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None
    if stripped.startswith("export "):
        stripped = stripped[len("export ") :].lstrip()
    key, equals, value = stripped.partition("=")
    key = key.strip()
    if not equals:
        return f'no "=" in {stripped!r}'
    if not _ENV_LINE_KEY.match(key):
        return f"{key!r} is not a variable name"
    return key, _env_value(value.strip())


_QUOTED = re.compile(r"""(?P<q>["'])(?P<inner>(?:\\.|(?!(?P=q)).)*)(?P=q)\s*(?:#.*)?\Z""")


def _env_value(raw: str) -> str:
    quoted = _QUOTED.match(raw)
    if quoted is not None:
        inner = quoted.group("inner")
        if quoted.group("q") == '"':
            # Double quotes allow the usual escapes; single quotes are literal (as in dotenv).
            inner = re.sub(r"\\([\\\"nrt])", _unescape, inner)
        return inner
    # An unquoted value ends at an inline comment (" #").
    comment = raw.find(" #")
    return raw if comment == -1 else raw[:comment].rstrip()


def _unescape(match: re.Match[str]) -> str:
    return {"n": "\n", "r": "\r", "t": "\t"}.get(match.group(1), match.group(1))


def environment_with(env_file: str | os.PathLike[str] | None) -> dict[str, str]:
    """What the CLI substitutes: `--env-file` values, overridden by the real environment."""
    values = read_env_file(env_file) if env_file is not None else {}
    values.update(os.environ)
    return values
