"""Idle sessions of one replayed file, kept on disk (05 replay, README Decision 8).

A trace may interleave any number of sessions and any later line may name any of them, so all
of them are alive until its last line. The runner keeps the most recently used
`LIVE_SESSIONS` in memory and moves the others here; a line that names a spooled session
brings it back. Memory is then bounded by the budget (times what one session holds: its
`historySize` records), whatever the number of sessions.

The spool is a private temporary SQLite database (`sqlite3.connect("")`): SQLite unlinks its
file as soon as it opens it, so nothing is left behind on exit, on Ctrl-C or when the process
is killed. Rows are keyed by the session's order of first appearance, so the end of the file
reads them back in the order the sessions are summarised. The rows are the runner's own
pickles, written and read by this process only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

# Sessions kept in memory per file before the least recently used go to disk. A live session
# costs ~2 KB plus ~0.6 KB per history record (docs/performance.md), so at the default
# historySize of 30 the budget holds about 20 MB; spooling starts only when more sessions than
# this are interleaved in one file, which a single gateway's log rarely reaches.
LIVE_SESSIONS = 1024


class SessionSpool:
    """Spooled sessions by name: (order of first appearance, the runner's state, the engine's)."""

    def __init__(self) -> None:
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
        self.count = 0

    def put(self, order: int, name: str, live: bytes, engine: bytes) -> None:
        self._db.execute("INSERT INTO spool VALUES (?, ?, ?, ?)", (order, name, live, engine))
        self.count += 1

    def take(self, name: str) -> tuple[int, bytes, bytes] | None:
        """The spooled session `name`, removed from the spool; None when it is not here."""
        if not self.count:
            return None
        row = self._db.execute(
            "DELETE FROM spool WHERE name = ? RETURNING ord, live, engine", (name,)
        ).fetchone()
        if row is None:
            return None
        self.count -= 1
        return int(row[0]), bytes(row[1]), bytes(row[2])

    def in_order(self) -> Iterator[tuple[int, bytes]]:
        """Every spooled session's order and runner state, by order of first appearance."""
        for order, live in self._db.execute("SELECT ord, live FROM spool ORDER BY ord"):
            yield int(order), bytes(live)

    def close(self) -> None:
        self._db.close()
