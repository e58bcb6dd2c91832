"""Opening and reading input files so that no file can hang or exhaust a run.

Every read of a named input goes through here (configs, `$include`d files, `--env-file`, replay's
traces and `--trajectory`): the file is opened once, non-blocking, so a FIFO with no writer reads
as empty instead of waiting forever; what is checked afterwards (its kind, its size, where it
really is) is checked on the opened descriptor, so the check and the read concern the same file
even when a name is swapped for a symlink in between; and a read never takes more than the
caller's limit, whatever the file claims (/dev/zero has no size and never ends).
"""

from __future__ import annotations

import os
from typing import BinaryIO

__all__ = ["CHUNK", "DEFAULT_MAX_BYTES", "open_nonblocking", "opened_path", "read_limited"]

CHUNK = 1 << 16
# The size limit of a config file (`--max-bytes`), here rather than in `loopcfg.source` so that
# replay reads it without importing the parser.
DEFAULT_MAX_BYTES = 2 * 1024 * 1024


def open_nonblocking(path: str | os.PathLike[str], *, follow: bool = True) -> int:
    """A descriptor for reading `path`; raises OSError (ENOENT, EACCES, ELOOP without `follow`).

    O_NONBLOCK only for the open itself: opening a FIFO with no writer then succeeds at once,
    and a read of it finds end of file. The flag is cleared afterwards, so a pipe that does have
    a writer (`<(zcat trace.jsonl.gz)`) is read as usual, waiting for its data.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags)
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except ImportError:  # pragma: no cover - not a POSIX system: no FIFOs to worry about
        pass
    except OSError:
        os.close(fd)
        raise
    return fd


def opened_path(fd: int) -> str | None:
    """Where the open descriptor really is (all links resolved), or None where the system does
    not say (no /proc). Asked of the descriptor, not of a name: a name can be swapped."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target if target.startswith("/") else None


def read_limited(source: int | BinaryIO, limit: int) -> bytes:
    """At most `limit` bytes, read in chunks: never a buffer of `limit` bytes allocated up front
    (a huge `--max-bytes` would fail to allocate), never more than `limit` from an endless
    device."""
    parts: list[bytes] = []
    remaining = limit
    while remaining > 0:
        if isinstance(source, int):
            part = os.read(source, min(CHUNK, remaining))
        else:
            part = source.read(min(CHUNK, remaining))
        if not part:
            break
        parts.append(part)
        remaining -= len(part)
    return b"".join(parts)
