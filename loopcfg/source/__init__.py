"""Read config files into position-tracking Documents (JSON5, JSON, YAML).

`load_document` reads a file (or stdin for `-`) and refuses bad input with one diagnostic:
LC000 when the file cannot be read (missing, unreadable, a directory, over the size limit),
LC001 when it is not parseable text (empty, not UTF-8, binary, too deep, a syntax error).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import BinaryIO

from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic
from loopcfg.files import DEFAULT_MAX_BYTES, open_nonblocking, read_limited
from loopcfg.source.errors import SourceError, read_error, syntax_error
from loopcfg.source.nodes import Document, Format, Span, split_lines

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SourceError",
    "format_for",
    "fresh_parse",
    "load_document",
    "parse_text",
    "parsing_with",
    "unsaved_text",
    "unsaved_texts",
]

_FORMATS: tuple[Format, ...] = ("json5", "json", "yaml")


def format_for(name: str) -> Format:
    """The input format a file name implies: YAML by extension, JSON for .json, else JSON5."""
    lowered = name.lower()
    if lowered.endswith((".yaml", ".yml")):
        return "yaml"
    if lowered.endswith(".json"):
        return "json"  # parsed as JSON5 all the same: OpenClaw's openclaw.json is JSON5
    return "json5"


@paused
def parse_text(text: str, file: str, format: str = "json5") -> Document:
    """Parse a string; raises SourceError (LC001) at the first syntax error."""
    if format not in _FORMATS:
        raise ValueError(f"unknown input format {format!r} (expected one of {_FORMATS})")
    parse = _PARSER.get()
    if parse is not None:
        return parse(text, file, format)
    return fresh_parse(text, file, format)


# A parser that stands in for `fresh_parse` within `parsing_with`: the LSP's, which reuses what
# it parsed before (unchanged files, the unchanged values of an edited one). None: parse afresh.
_PARSER: ContextVar[Callable[[str, str, str], Document] | None] = ContextVar(
    "loopcfg_parser", default=None
)


@contextmanager
def parsing_with(parse: Callable[[str, str, str], Document]) -> Iterator[None]:
    """Within the block, `parse_text` (every file a load reads) calls `parse(text, file,
    format)`, which must return what `fresh_parse` would or raise its SourceError."""
    token = _PARSER.set(parse)
    try:
        yield
    finally:
        _PARSER.reset(token)


def fresh_parse(text: str, file: str, format: str = "json5", *, movable: bool = False) -> Document:
    """`parse_text` without a stand-in parser: the text parsed from its first character.
    `movable`: JSON5/JSON spans that an edit can move (`nodes.MovableSpan`), for the server."""
    if format == "yaml":
        from loopcfg.source.yaml import parse_yaml

        return parse_yaml(text, file)
    from loopcfg.source.json5 import parse_json5

    return parse_json5(text, file, "json" if format == "json" else "json5", movable=movable)


# Texts that stand in for files, by real path: the LSP's open buffers, and `fix`'s edits while
# it checks them again before writing. Set with `unsaved_texts`; empty for every other run.
_UNSAVED: ContextVar[Mapping[str, str]] = ContextVar(
    "loopcfg_unsaved", default=MappingProxyType({})
)


@contextmanager
def unsaved_texts(texts: Mapping[str, str]) -> Iterator[None]:
    """Within the block, reading a file named in `texts` (any spelling of its path) reads that
    text instead of the disk."""
    token = _UNSAVED.set({os.path.realpath(name): text for name, text in texts.items()})
    try:
        yield
    finally:
        _UNSAVED.reset(token)


def unsaved_text(path: str) -> str | None:
    """The text standing in for the file at `path` (see `unsaved_texts`), or None."""
    unsaved = _UNSAVED.get()
    if not unsaved or path == "-":
        return None
    return unsaved.get(os.path.realpath(path))


def load_document(
    path: str,
    *,
    input_format: str | None = None,
    stdin_filename: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stdin: BinaryIO | None = None,
) -> Document:
    """Read and parse `path` (`-` is stdin, named `stdin_filename` or `<stdin>` in messages)."""
    unsaved = unsaved_text(path)
    if unsaved is not None:  # an editor's buffer or an edit not yet written (loopcfg/edit)
        name = path
        data = unsaved.encode("utf-8", "surrogatepass")
    elif path == "-":
        name = stdin_filename or "<stdin>"
        data = _read_stdin(stdin, max_bytes, name)
    else:
        name = path
        data = _read_file(path, max_bytes)
    chosen = input_format or format_for((stdin_filename or "") if path == "-" else path)
    try:
        return parse_text(decode(data, name), name, chosen)
    except SourceError as error:
        error.text = data.decode("utf-8", "replace")
        raise


def _limit_text(max_bytes: int) -> str:
    mebibytes = max_bytes / (1024 * 1024)
    return f"{mebibytes:g} MiB" if mebibytes == int(mebibytes) else f"{max_bytes} bytes"


# validate, resolve and replay (for --config and --compare) all take the option.
_LIMIT_HINT = "--max-bytes N raises the limit"


def _too_large(message: str, file: str) -> SourceError:
    """LC000 for input over the size limit, with the option that raises it."""
    return SourceError(Diagnostic.at("LC000", "error", message, None, file=file, hint=_LIMIT_HINT))


def _read_file(path: str, max_bytes: int) -> bytes:
    """The file's bytes, up to `max_bytes`: opened once, non-blocking (a FIFO with no writer
    is empty, not a hang), checked on the descriptor, read in chunks (see loopcfg/files.py)."""
    try:
        fd = open_nonblocking(path)
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise read_error("is a directory, not a config file", path)
            if stat.S_ISREG(info.st_mode) and info.st_size > max_bytes:
                raise _too_large(
                    f"the file is larger than the {_limit_text(max_bytes)} limit "
                    f"({info.st_size} bytes)",
                    path,
                )
            data = read_limited(fd, max_bytes + 1)
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise read_error("no such file", path) from None
    except PermissionError:
        raise read_error("permission denied: the file cannot be read", path) from None
    except IsADirectoryError:
        raise read_error("is a directory, not a config file", path) from None
    except OSError as error:
        raise read_error(f"cannot read the file: {error.strerror or error}", path) from None
    except ValueError:  # a name the system cannot take (a NUL, a lone surrogate)
        raise read_error("cannot read the file: not a file name the system accepts", path) from None
    if len(data) > max_bytes:  # it grew, or it is a device/pipe with no size
        raise _too_large(f"the file is larger than the {_limit_text(max_bytes)} limit", path)
    return data


def _read_stdin(stream: BinaryIO | None, max_bytes: int, name: str) -> bytes:
    if stream is None and sys.stdin is None:  # started with stdin closed (`<&-`)
        raise read_error("standard input is closed", name)
    source = stream if stream is not None else getattr(sys.stdin, "buffer", None)
    try:
        if source is None:
            data = sys.stdin.read(max_bytes + 1).encode("utf-8", "surrogateescape")
        else:
            data = read_limited(source, max_bytes + 1)
    except OSError as error:
        raise read_error(f"cannot read standard input: {error.strerror or error}", name) from None
    except ValueError:  # the stream was closed under us
        raise read_error("cannot read standard input: it is closed", name) from None
    if len(data) > max_bytes:
        raise _too_large(f"the input is larger than the {_limit_text(max_bytes)} limit", name)
    return data


def _point(text_before: str, file: str) -> Span:
    """The span of the character right after `text_before` (BOM not counted)."""
    lines = split_lines(text_before)
    line, column = len(lines), len(lines[-1]) + 1
    return Span(file, line, column, line, column + 1)


def decode(data: bytes, file: str) -> str:
    """UTF-8 text of `data`; LC001 for empty, binary (NUL bytes) or non-UTF-8 input."""
    if not data or data == b"\xef\xbb\xbf":
        raise syntax_error("the file is empty", Span(file, 1, 1, 1, 1), file)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise syntax_error(
            "not UTF-8: the file starts with a UTF-16 byte order mark",
            Span(file, 1, 1, 1, 2),
            file,
            hint="save the file as UTF-8",
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        before = data[:nul].decode("utf-8", "replace")
        raise syntax_error("binary data: the file contains a NUL byte", _point(before, file), file)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start].decode("utf-8", "replace")
        raise syntax_error(
            f"not UTF-8: invalid byte 0x{data[error.start]:02x}",
            _point(before, file),
            file,
            hint="save the file as UTF-8",
        ) from None
