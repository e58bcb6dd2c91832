"""One session of a store as transcript lines (10.3): rows in `seq` order, line = seq + 1.

The rows are streamed from one read transaction and handed to the 07 reader exactly as the
lines of the session's JSONL form would be, so both give the same verdicts. A row that cannot
be decoded becomes a located diagnostic (`<db>::<sessionId>@<seq>`, Decision 7) and is skipped.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from loopcfg.replay.events import Event, Malformed
from loopcfg.replay.lines import NumberedLines, loads
from loopcfg.replay.store import (
    StoreError,
    StoreMeta,
    is_damage,
    sqlite_problem,
    table_columns,
)
from loopcfg.replay.store_zstd import FrameError, decode_archive, decode_row

# 05's --max-line-bytes default: a longer text row is not even fetched.
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
ARCHIVE_NAME = re.compile(r"[a-f0-9]{64}\.jsonl\.zst")
NOT_AN_OBJECT = "a transcript line must be a JSON object"


def location(db: str, session_id: str, seq: int) -> str:
    """Where a row is, in the form a user can paste back as `PATH::SESSION` (10.5)."""
    return f"{db}::{session_id}@{seq}"


def row_problem(db: str, session_id: str, line: int, code: str, reason: str) -> Malformed:
    return Malformed(db, line, 0, reason, code=code, location=location(db, session_id, line - 1))


def located(problem: Malformed, session_id: str) -> Malformed:
    """The 07 reader's diagnostic for a row, in the store's location form; not an object is
    LC008, everything else (not UTF-8, not JSON) LC001 (Decision 7)."""
    code = "LC008" if problem.message == NOT_AN_OBJECT else "LC001"
    where = location(problem.file, session_id, problem.line - 1)
    return replace(problem, code=code, location=where)


@dataclass(slots=True)
class RowReader:
    """The rows of one session as numbered lines; problems and a database failure are kept
    for the caller to interleave and report."""

    connection: sqlite3.Connection
    meta: StoreMeta
    db: str
    session_id: str
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    seqs: frozenset[int] | None = None
    problems: list[Malformed] = field(default_factory=list)
    failure: str | None = None

    def lines(self) -> NumberedLines:
        try:
            yield from self._rows()
        except sqlite3.Error as error:
            # The session ends at the last row read; its results so far are kept (10.6).
            self.failure = f"{self.db}: LC000 error: {sqlite_problem(error)}"
            if not is_damage(error):
                self.failure += " (the rest of this session is not replayed)"

    def _rows(self) -> NumberedLines:
        packed = "event_zstd" in table_columns(self.connection, "transcript_events")
        zstd = "event_zstd, event_utf8_bytes" if packed else "NULL, NULL"
        query = (
            "SELECT seq, length(CAST(event_json AS BLOB)), "
            "CASE WHEN length(CAST(event_json AS BLOB)) <= ? THEN CAST(event_json AS BLOB) END, "
            f"{zstd} FROM transcript_events WHERE session_id = ? ORDER BY seq"
        )
        cursor = self.connection.execute(query, (self.max_line_bytes, self.session_id))
        for seq, text_bytes, text, blob, utf8_bytes in cursor:
            if self.seqs is not None and seq not in self.seqs:
                continue
            line = self._payload(seq, text_bytes, text, blob, utf8_bytes)
            if line is not None:
                yield seq + 1, line

    def _payload(
        self, seq: int, text_bytes: Any, text: Any, blob: Any, utf8_bytes: Any
    ) -> bytes | None:
        if text_bytes is not None:
            if text is None:
                self._problem(
                    seq,
                    "LC001",
                    f"row of {text_bytes} bytes is longer than --max-line-bytes "
                    f"({self.max_line_bytes}); skipped",
                )
                return None
            return bytes(text)
        if blob is None:
            self._problem(seq, "LC001", "row has neither event_json nor event_zstd")
            return None
        try:
            return decode_row(bytes(blob), utf8_bytes)
        except FrameError as error:
            self._problem(seq, "LC001", f"compressed row cannot be decoded: {error}")
            return None

    def _problem(self, seq: int, code: str, reason: str) -> None:
        self.problems.append(row_problem(self.db, self.session_id, seq + 1, code, reason))


def events_with_problems(events: Iterator[Event], reader: RowReader) -> Iterator[Event]:
    """The 07 reader's events with the rows it never saw (undecodable ones) put back in file
    order: a problem is flushed before the first event the reader produces after it."""
    for event in events:
        yield from _flush(reader)
        if isinstance(event, Malformed):
            yield located(event, reader.session_id)
        else:
            yield event
    yield from _flush(reader)


def _flush(reader: RowReader) -> Iterator[Malformed]:
    while reader.problems:
        yield reader.problems.pop(0)


def has_compressed_rows(connection: sqlite3.Connection, session_id: str) -> bool:
    if "event_zstd" not in table_columns(connection, "transcript_events"):
        return False
    query = (
        "SELECT EXISTS (SELECT 1 FROM transcript_events "
        "WHERE session_id = ? AND event_zstd IS NOT NULL)"
    )
    return bool(connection.execute(query, (session_id,)).fetchone()[0])


# -- --branch active (10.3) -----------------------------------------------------------------


def active_seqs(
    connection: sqlite3.Connection, meta: StoreMeta, session_id: str
) -> frozenset[int] | None:
    """The seqs of the active branch plus the header row, or None to replay every row (no
    ids to walk)."""
    first = connection.execute(
        "SELECT min(seq), max(seq) FROM transcript_events WHERE session_id = ?", (session_id,)
    ).fetchone()
    if first is None or first[0] is None:
        return None
    low, high = int(first[0]), int(first[1])
    materialised = _materialised(connection, meta, session_id, high)
    branch = materialised if materialised is not None else _walked(connection, meta, session_id)
    return None if branch is None else branch | {low}


def _materialised(
    connection: sqlite3.Connection, meta: StoreMeta, session_id: str, high: int
) -> frozenset[int] | None:
    """OpenClaw's own active set, when its index state says it is current."""
    tables = {"session_transcript_index_state", "session_transcript_active_events"}
    if not tables <= meta.tables:
        return None
    state = connection.execute(
        "SELECT indexed_seq, needs_rebuild, active_event_count "
        "FROM session_transcript_index_state WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if state is None or state[1] != 0 or state[0] != high:
        return None
    seqs = frozenset(
        int(row[0])
        for row in connection.execute(
            "SELECT event_seq FROM session_transcript_active_events WHERE session_id = ?",
            (session_id,),
        )
    )
    return seqs if len(seqs) == state[2] else None


def _walked(
    connection: sqlite3.Connection, meta: StoreMeta, session_id: str
) -> frozenset[int] | None:
    """07's walk from the last entry up the parentId chain, with the ids of
    `transcript_event_identities`; None when the session has no ids (v1 form)."""
    if "transcript_event_identities" not in meta.tables:
        return None
    rows = connection.execute(
        "SELECT event_id, parent_id, seq FROM transcript_event_identities "
        "WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()
    if not rows:
        return None
    parents = {str(event_id): (parent, int(seq)) for event_id, parent, seq in rows}
    branch: set[int] = set()
    node: Any = rows[-1][0]
    seen: set[str] = set()
    while isinstance(node, str) and node in parents and node not in seen:
        seen.add(node)
        parent, seq = parents[node]
        branch.add(seq)
        node = parent
    return frozenset(branch)


# -- cold transcripts (10.3) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ColdRecord:
    generation: str
    archive_name: str
    sha256: str
    event_count: int
    archive_bytes: int
    last_seq: int
    storage: str
    blob: bytes | None


def cold_record(connection: sqlite3.Connection, session_id: str) -> ColdRecord | None:
    row = connection.execute(
        "SELECT generation, archive_name, archive_sha256, event_count, archive_bytes, last_seq, "
        "storage, archive_blob FROM session_transcript_cold_archives WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    generation, name, sha, count, size, last, storage, blob = row
    return ColdRecord(
        str(generation),
        str(name),
        str(sha),
        int(count),
        int(size),
        int(last),
        str(storage),
        bytes(blob) if blob is not None else None,
    )


def artifacts_dir(store_path: str) -> Path:
    """`sessions/` beside the store's `agent/` directory, else the store's own directory."""
    folder = Path(store_path).parent
    return folder.parent / "sessions" if folder.name == "agent" else folder


def cold_lines(
    record: ColdRecord, store_path: str, db: str, session_id: str, branch_active: bool
) -> list[tuple[int, bytes]]:
    """The archived rows as numbered lines; StoreError when the archive is missing, does not
    verify or does not parse (the session is then unreadable, never empty)."""
    unreadable = StoreError(
        f"{db}::{session_id}",
        f"transcript is in cold storage and its archive {record.archive_name} is missing "
        "or damaged",
    )
    try:
        data = _archive_bytes(record, store_path)
        if len(data) != record.archive_bytes or hashlib.sha256(data).hexdigest() != record.sha256:
            raise ValueError("size or hash differs")
        return _archive_events(decode_archive(data), record, session_id, branch_active)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        raise unreadable from None


def _archive_bytes(record: ColdRecord, store_path: str) -> bytes:
    if record.storage == "sqlite":
        if record.blob is None:
            raise ValueError("no archive_blob")
        return record.blob
    if ARCHIVE_NAME.fullmatch(record.archive_name) is None:
        raise ValueError("bad archive name")
    return (artifacts_dir(store_path) / "cold" / record.archive_name).read_bytes()


def _archive_events(
    text: bytes, record: ColdRecord, session_id: str, branch_active: bool
) -> list[tuple[int, bytes]]:
    events: list[tuple[int, bytes]] = []
    active: set[int] = set()
    header: Any = None
    for raw in text.splitlines():
        if not raw.strip():
            continue
        item = loads(raw)
        if not isinstance(item, dict):
            raise ValueError("a record is not an object")
        kind, row = item.get("kind"), item.get("row")
        if kind == "header":
            header = item
        elif kind == "event" and isinstance(row, dict):
            events.append((int(row["seq"]), str(row["event_json"]).encode("utf-8")))
        elif kind == "active" and isinstance(row, dict):
            active.add(int(row["event_seq"]))
    if (
        not isinstance(header, dict)
        or header.get("sessionId") != session_id
        or header.get("generation") != record.generation
        or len(events) != record.event_count
        or events[-1][0] != record.last_seq
    ):
        raise ValueError("the archive does not match its record")
    if branch_active and active:
        keep = active | {events[0][0]}
        events = [event for event in events if event[0] in keep]
    return [(seq + 1, line) for seq, line in events]
