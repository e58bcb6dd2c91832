"""Idle sessions of one replayed file, kept on disk (05 replay, README Decision 8).

A trace may interleave any number of sessions and any later line may name any of them, so all
of them are alive until its last line. The runner keeps the most recently used
`LIVE_SESSIONS` in memory, holding `LIVE_RECORDS` history records at most together, and moves
the others here; a line that names a spooled session brings it back. Memory is then bounded by
the budget, whatever the number of sessions.

The spool is a private temporary SQLite database (`sqlite3.connect("")`): SQLite unlinks its
file as soon as it opens it, so nothing is left behind on exit, on Ctrl-C or when the process
is killed. Rows are keyed by the session's order of first appearance, so the end of the file
reads them back in the order the sessions are summarised. The rows are the runner's own
pickles, written and read by this process only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

# A Bloom filter of the names ever spooled (2 MiB): a session seen for the first time, the
# common case, is known not to be in the spool without asking SQLite. It only ever gains
# names; a false positive costs one look-up.
FILTER_BITS = 1 << 24
_MASK = FILTER_BITS - 1
# Spooled sessions are written to SQLite this many at a time (one statement for all), or
# sooner when they hold this many bytes (sessions with long histories).
WRITE_BATCH = 256
WRITE_BYTES = 256 << 10

# Sessions kept in memory per file before the least recently used go to disk. A live session
# costs ~2 KB plus ~0.4 KB per history record (docs/performance.md), so at the default
# historySize of 30 the budget holds about 20 MB; spooling starts only when more sessions than
# this are interleaved in one file, which a single gateway's log rarely reaches.
LIVE_SESSIONS = 1024
# And the history records they may hold together (~0.4 KB each, measured: ~200 MB): at
# historySize 30 the session budget comes first; with long histories (historySize 3000) this
# one does. It is large because a spooled session moves its whole history each time it comes
# back: 200 busy sessions of 2,000 records each round robin took 14x the CPU with a budget of
# 200,000 records (their working set did not fit), and the same as no budget with this one.
LIVE_RECORDS = 500_000


class SpoolError(Exception):
    """The spool's temporary database failed (most often: its folder is full)."""


def spool_folder() -> str:
    """Where SQLite puts the spool's temporary file on Unix: $SQLITE_TMPDIR, $TMPDIR, then the
    first writable of /var/tmp, /usr/tmp, /tmp, the working directory."""
    named = (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"))
    for folder in (*named, "/var/tmp", "/usr/tmp", "/tmp"):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return "."


@contextmanager
def _spool_errors() -> Iterator[None]:
    """A failing spool is told as what it is: a replay of a trace has no database of its own,
    so SQLite's "database or disk is full" alone would leave the user guessing which disk."""
    import sqlite3  # here and below: most replays never spool, and it costs ~2% of a start

    try:
        yield
    except sqlite3.Error as error:
        raise SpoolError(
            f"the temporary spool of idle sessions (in {spool_folder()}) failed: {error}"
            " (give it room: set SQLITE_TMPDIR or TMPDIR to a folder with more free space)"
        ) from None


class SessionSpool:
    """Spooled sessions by name: (order of first appearance, the runner's state, the engine's).

    A session taken back stays in the table until it is spooled again (which replaces its
    row): the caller knows which sessions it holds and skips their rows in `in_order`."""

    def __init__(self) -> None:
        import sqlite3

        with _spool_errors():
            self._db = sqlite3.connect("", isolation_level=None)
            # Nothing here must survive a crash: no journal, no syncs, one transaction never
            # committed (pages spill to the temporary file when the cache is full).
            self._db.execute("PRAGMA journal_mode = OFF")
            self._db.execute("PRAGMA synchronous = OFF")
            self._db.execute(
                "CREATE TABLE spool (ord INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
                " live BLOB NOT NULL, engine BLOB NOT NULL)"
            )
            self._db.execute("BEGIN")
        self._filter = bytearray(FILTER_BITS // 8)
        # Rows not written yet, by name (newer than a row of the same session in the table).
        self._unwritten: dict[str, tuple[int, str, bytes, bytes]] = {}
        self._unwritten_bytes = 0

    def put(self, order: int, name: str, live: bytes, engine: bytes) -> None:
        self._unwritten[name] = (order, name, live, engine)
        self._unwritten_bytes += len(live) + len(engine)
        if len(self._unwritten) >= WRITE_BATCH or self._unwritten_bytes >= WRITE_BYTES:
            self._write()
        h = hash(name)  # str hashes are stable within one process
        for bit in (h & _MASK, (h >> 24) & _MASK):
            self._filter[bit >> 3] |= 1 << (bit & 7)

    def _write(self) -> None:
        rows, self._unwritten, self._unwritten_bytes = self._unwritten.values(), {}, 0
        with _spool_errors():
            self._db.executemany("INSERT OR REPLACE INTO spool VALUES (?, ?, ?, ?)", rows)

    def take(self, name: str) -> tuple[int, bytes, bytes] | None:
        """The spooled session `name`; None when it was never spooled."""
        h, bits = hash(name), self._filter
        first, second = h & _MASK, (h >> 24) & _MASK
        if not (bits[first >> 3] >> (first & 7) & 1 and bits[second >> 3] >> (second & 7) & 1):
            return None
        unwritten = self._unwritten.pop(name, None)
        if unwritten is not None:
            return unwritten[0], unwritten[2], unwritten[3]
        with _spool_errors():
            row = self._db.execute(
                "SELECT ord, live, engine FROM spool WHERE name = ?", (name,)
            ).fetchone()
        if row is None:
            return None
        return int(row[0]), bytes(row[1]), bytes(row[2])

    def in_order(self) -> Iterator[tuple[int, str, bytes]]:
        """Every spooled session's order, name and runner state, by order of first appearance
        (the rows of sessions taken back since included)."""
        self._write()
        with _spool_errors():
            rows = self._db.execute("SELECT ord, name, live FROM spool ORDER BY ord")
            for order, name, live in rows:
                yield int(order), str(name), bytes(live)

    def close(self) -> None:
        self._db.close()
