"""Line sources: stream a file (or stdin) one line at a time, never the whole file.

Lines are yielded as bytes with their 1-based number, so a decoding problem is reported for
that line alone. Format detection peeks at the first non-blank line and hands it back.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, Literal

from loopcfg.replay.events import Event, Malformed, ReadError

InputFormat = Literal["trace", "openclaw"]
NumberedLines = Iterator[tuple[int, bytes]]
STDIN = "-"


@contextmanager
def open_binary(path: str) -> Iterator[BinaryIO]:
    """The file (or stdin for `-`) as a binary stream; OSError becomes a ReadError."""
    if path == STDIN:
        if sys.stdin is None:  # started with stdin closed (`<&-`)
            raise ReadError(path, "cannot read: standard input is closed")
        yield sys.stdin.buffer
        return
    stream = _open_stream(path)
    try:
        yield stream
    finally:
        stream.close()


def _open_stream(path: str) -> BinaryIO:
    """Opened non-blocking (a FIFO with no writer reads as empty instead of hanging, see
    loopcfg/files.py); a device is refused: /dev/zero is one endless line."""
    import os
    import stat

    from loopcfg.files import open_nonblocking

    try:
        fd = open_nonblocking(path)
    except OSError as error:
        raise ReadError(path, f"cannot read: {error.strerror or error}") from None
    except ValueError:
        raise ReadError(path, "cannot read: not a file name the system accepts") from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        os.close(fd)
        raise ReadError(path, "cannot read: a device, not a file or a pipe")
    # readline with the default 8 KiB buffer costs 4x what it does with this one on the
    # corpus's lines (~2 KB on average, tool results up to hundreds of KB): fewer read calls,
    # and fewer lines spanning two buffers. A pipe still hands over what it has at once.
    return os.fdopen(fd, "rb", buffering=READ_BUFFER_BYTES)


READ_BUFFER_BYTES = 256 << 10


DEFAULT_MAX_LINE_BYTES = 64 << 20
# Read past a too long line in chunks this big: memory stays at one chunk.
_SKIP_CHUNK = 256 << 10


def numbered(
    stream: BinaryIO,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    on_long: Callable[[int, int], None] | None = None,
) -> NumberedLines:
    """The lines of `stream`, numbered from 1. A line longer than `max_line_bytes` is never
    held whole: it is handed on empty, so readers skip it as a blank line (the rest of it is
    read in chunks and dropped), and a file without newlines costs one chunk of memory, not
    its size; `on_long(number, length)` is told of each (`LongLines.note`)."""
    number = 0
    readline = stream.readline
    limit = max_line_bytes + 1
    while True:
        line = readline(limit)
        if not line:
            return
        number += 1
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            length = len(line) + _skip_rest(stream)
            if on_long is not None:
                on_long(number, length)
            yield number, b""
        else:
            yield number, line


def _skip_rest(stream: BinaryIO) -> int:
    """Read up to the end of the current line; returns how many bytes were dropped."""
    skipped = 0
    while True:
        chunk = stream.readline(_SKIP_CHUNK)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


class LongLines:
    """Reports the long lines a reader was handed as blank: `note` is told of each line going
    in (`numbered(..., on_long=long_lines.note)`), `merge` the reader's events coming out, and
    each long line's diagnostic comes in its place."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.found: list[Malformed] = []

    def note(self, number: int, length: int) -> None:
        message = f"line of {length} bytes is longer than --max-line-bytes; skipped"
        self.found.append(Malformed(self.file, number, 1, message))

    def merge(self, events: Iterator[Event]) -> Iterator[Event]:
        for event in events:
            if self.found:
                yield from self._drain(event.line)
            yield event
        yield from self._drain(None)

    def _drain(self, before: int | None) -> Iterator[Event]:
        while self.found and (before is None or self.found[0].line < before):
            yield self.found.pop(0)


PROGRESS_STEP = 4 << 20


def counted(lines: NumberedLines, on_bytes: Callable[[int], None]) -> NumberedLines:
    """The same lines; `on_bytes(total read)` after every PROGRESS_STEP bytes and at the end."""
    total = reported = 0
    for number, line in lines:
        total += len(line)
        if total - reported >= PROGRESS_STEP:
            on_bytes(total)
            reported = total
        yield number, line
    on_bytes(total)


def detect_format(lines: NumberedLines) -> tuple[InputFormat, NumberedLines]:
    """OpenClaw transcripts start with a `session` header; anything else is a trace."""
    peeked: list[tuple[int, bytes]] = []
    detected: InputFormat = "trace"
    for number, raw in lines:
        peeked.append((number, raw))
        text = raw.strip()
        if not text or text.startswith(b"//"):
            continue
        if _is_session_header(text):
            detected = "openclaw"
        break
    return detected, itertools.chain(peeked, lines)


def loads(text: str | bytes) -> Any:
    """`json.loads`'s value, where a line nested deeper than Python's parser can go is a
    ValueError too (a RecursionError would otherwise lose the whole file, not just that line).

    orjson parses first: 2-3 times as fast on the long lines of tool output. It reads an
    integer beyond 64 bits as a float, as JavaScript (which wrote the transcript) reads every
    number; `json.loads` is made to do the same (`_integer`), so a value does not depend on
    which parser read its line (`--show-args` shows it alike whatever the line's length), and
    its canonical JSON, so every hash, is the same either way. What orjson refuses and
    `json.loads` takes (NaN, Infinity, nesting beyond 1024 levels) or refuses too goes to
    `json.loads`, so error messages stay stdlib's. Lines
    longer than ORJSON_MAX_CHARS go straight to `json.loads`: orjson's peak memory is about
    13 times the line (measured with tracemalloc), stdlib's about 3 times."""
    if len(text) <= ORJSON_MAX_CHARS:
        try:
            return _orjson_loads(text)
        except ValueError:
            pass
    try:
        return json.loads(text, parse_int=_integer)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError) or "integer string" not in str(error):
            raise
        # CPython's 4300-digit limit; its message names a Python function to call.
        raise ValueError("a number with more than 4300 digits") from None


# 128 KiB: at most ~1.7 MB for a moment (13x), and it takes in 18 of the corpus's 22 lines past
# 64 KiB (tool output; 21% of its bytes), which orjson parses 2.4 times as fast.
ORJSON_MAX_CHARS = 128 << 10
# The integers orjson keeps exact; it reads any other as a float (if finite).
_ORJSON_INTEGERS = range(-(1 << 63), 1 << 64)


def _integer(text: str) -> int | float:
    """An integer as orjson reads it: exact within 64 bits, else the nearest double, unless
    that is infinite (orjson refuses the line then, and `json.loads` keeps it exact)."""
    value = int(text)  # more than 4,300 digits: ValueError, worded by `loads`
    if value in _ORJSON_INTEGERS:
        return value
    try:
        return float(value)
    except OverflowError:
        return value


def _no_orjson(text: str | bytes) -> Any:
    raise ValueError("orjson is not installed")


_orjson_loads: Callable[[str | bytes], Any]
try:
    from orjson import loads as _orjson_loads
except ImportError:  # a dependency, but a build without it must still replay (slower)
    _orjson_loads = _no_orjson
# For a reader that inlines `quick_loads` (transcript.read_transcript).
orjson_loads = _orjson_loads


class _Unparsed:
    def __repr__(self) -> str:
        return "UNPARSED"


UNPARSED: Any = _Unparsed()


def quick_loads(raw: bytes) -> Any:
    """The value of a line that orjson accepts as it is (its bytes: no decoding, no stripping),
    else UNPARSED, and the reader takes its careful path (`decode`, blank and comment lines,
    `loads`, the diagnostics of a bad line).

    The value is the careful path's: orjson accepts only valid UTF-8 and JSON's own whitespace
    around the value (no byte order mark, no `//` comment, no blank line), and the careful path
    strips at least that whitespace before handing the same text to `loads`, which tries orjson
    first."""
    if len(raw) > ORJSON_MAX_CHARS:
        return UNPARSED
    try:
        return _orjson_loads(raw)
    except ValueError:
        return UNPARSED


def _is_session_header(text: bytes) -> bool:
    try:
        value = loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("type") == "session"


def decode(raw: bytes) -> str | None:
    """The line as text, or None when it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def json_problem(error: ValueError, indent: int = 0) -> tuple[int, str]:
    """(1-based column, reason) of a line `json.loads` refused; `indent` leading characters
    were stripped before parsing."""
    if isinstance(error, json.JSONDecodeError):
        return indent + error.colno, f"not a JSON line: {error.msg}"
    return indent + 1, f"not a JSON line: {error}"
