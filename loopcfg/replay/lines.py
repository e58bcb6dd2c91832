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

from loopcfg.replay.events import ReadError

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
    loopcfg/source/files.py); a device is refused: /dev/zero is one endless line."""
    import os
    import stat

    from loopcfg.source.files import open_nonblocking

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
    return os.fdopen(fd, "rb")


def numbered(stream: BinaryIO) -> NumberedLines:
    return ((number, line) for number, line in enumerate(stream, start=1))


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
    """`json.loads`, where a line nested deeper than Python's parser can go is a ValueError too
    (a RecursionError would otherwise lose the whole file, not just that line)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError) or "integer string" not in str(error):
            raise
        # CPython's 4300-digit limit; its message names a Python function to call.
        raise ValueError("a number with more than 4300 digits") from None


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
