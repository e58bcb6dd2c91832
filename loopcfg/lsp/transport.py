"""The server's standard streams, bounded, and pygls' log in one line per record.

pygls reads a header line with `readline()` and a body with `read(n)` for whatever length the
client announced, and logs a message it cannot handle with its traceback. A broken or hostile
client could so make the server hold an endless header line, or allocate a body of any size
(`Content-Length: 99999999999` is a MemoryError), and tracebacks would land in the editor's
log. Here a header line is read at most MAX_HEADER_LINE bytes at a time (a longer line is no
header pygls knows, and is read past in pieces); a body over MAX_MESSAGE_BYTES ends the session
with one line on stderr, since the stream cannot be followed past a body left unread; and each
of pygls' log records is one line.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import traceback
from typing import BinaryIO

# A config is at most 2 MiB by default (validate's --max-bytes); a message carries it once,
# JSON-escaped (up to 6 bytes per character), with room to spare.
MAX_MESSAGE_BYTES = 64 << 20
MAX_HEADER_LINE = 8 << 10


# The header pygls reads a body's length from, with more digits than any allowed length has
# (pygls would hand them all to int(), which refuses more than 4,300).
_LONG_LENGTH = re.compile(rb"Content-Length: (\d{20,})\r\n")
# What a piece of a header line too long to be read whole is handed on as: no header pygls
# knows, and not the blank line that ends the headers.
_REST_OF_A_LONG_LINE = b"-"


class BoundedInput:
    """Standard input as pygls reads it (`readline`, `read(n)`), within the limits above."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.refused: str | None = None
        self._within_a_line = False  # the last piece read did not end its line

    def readline(self) -> bytes:
        line = self._stream.readline(MAX_HEADER_LINE)
        continued, self._within_a_line = self._within_a_line, not line.endswith(b"\n")
        if continued and line:
            # Its end may look like a header (`...Content-Length: 2`): it is not one.
            return _REST_OF_A_LONG_LINE
        if _LONG_LENGTH.fullmatch(line):
            return self._refuse("a message announced with a length of more than 19 digits")
        return line

    def read(self, size: int) -> bytes:
        if not 0 <= size <= MAX_MESSAGE_BYTES:
            return self._refuse(f"a message of {size} bytes")
        return self._stream.read(size)

    def _refuse(self, what: str) -> bytes:
        self.refused = f"{what} is over the limit of {MAX_MESSAGE_BYTES} bytes; the session ends"
        return b""  # pygls ends its loop on an empty header line or body


_TRACEBACK = "Traceback (most recent call last):"


class _OneLine(logging.Formatter):
    """`loopcfg lsp: LEVEL: message`, with an exception as `Type: text`, never its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        message, marker, trace = record.getMessage().partition(_TRACEBACK)
        if marker:  # pygls sometimes writes the traceback into the message itself
            last = [line.strip() for line in trace.splitlines() if line.strip()]
            message = message.rstrip() + (f": {last[-1]}" if last else "")
        text = f"loopcfg lsp: {record.levelname.lower()}: {message}"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            where = raised_at(error)
            text += f": {type(error).__name__}: {error}" + (f" (at {where})" if where else "")
        return " ".join(text.split())  # one line, whatever the message holds


# loopcfg's own files, named from `loopcfg/` on in a report.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def raised_at(error: BaseException) -> str | None:
    """`file:line` of the innermost of loopcfg's own frames that `error` passed (where it was
    raised, or where loopcfg called what raised it): the one line a bug report needs in
    place of the traceback. None when it passed none (a client's malformed message)."""
    ours = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename.startswith(_PACKAGE + os.sep)
    ]
    if not ours:
        return None
    return f"{os.path.relpath(ours[-1].filename, os.path.dirname(_PACKAGE))}:{ours[-1].lineno}"


def quiet_pygls_log() -> None:
    """pygls' and the server's own warnings and errors on stderr, one line each (Python's
    default: with tracebacks)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    for name in ("pygls", "loopcfg"):
        log = logging.getLogger(name)
        log.handlers[:] = [handler]
        log.setLevel(logging.WARNING)
        log.propagate = False
