"""OpenClaw's SQLite session stores (10): opening one safely and listing its sessions.

loopcfg never writes to a store: every connection is `mode=ro` with `query_only`, nothing that
persists is changed, and a read-only directory is handled as 10.6 says (an `immutable` open when
no WAL content exists, else a private copy of the store and its `-wal`). Reading the rows of one
session is `store_read`; which stores and sessions a command line names is `store_inputs`.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from loopcfg.replay.events import ReadError

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100
# The newest agent schema whose layout loopcfg knows (OpenClaw 2026.9.6).
KNOWN_SCHEMA = 23
FIRST_SQLITE_SESSIONS_SCHEMA = 4
BUSY_TIMEOUT_S = 5.0  # OpenClaw's own OPENCLAW_SQLITE_BUSY_TIMEOUT_MS
COPY_ATTEMPTS = 3
# Errors of writing the private copy: its temporary folder is full or cannot take the file.
_WRITING_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})

# SQLite primary result codes (extended codes keep them in the low byte).
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY = 3, 5, 6, 8
SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_AUTH, SQLITE_NOTADB = 10, 11, 14, 23, 26
LOCKED_MESSAGE = "database is locked (busy for more than 5 s); try again"


class StoreError(ReadError):
    """A store (or one of its sessions) that cannot be read: `<db>: LC000 error: <why>`."""


class NotSQLite(Exception):
    """The file does not start with SQLite's magic bytes (it may be a JSONL transcript)."""

    def __init__(self, empty: bool) -> None:
        super().__init__(("an empty file, " if empty else "") + "not an SQLite database")
        self.empty = empty


def sqlite_problem(error: sqlite3.Error) -> str:
    """10.6's wording for an SQLite error, by its result code."""
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in (SQLITE_BUSY, SQLITE_LOCKED):
        return LOCKED_MESSAGE
    if primary in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return f"database is damaged: {error}"
    return f"cannot read: {error}"


def is_damage(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)


def read_header(path: str) -> bytes:
    """The first 100 bytes; NotSQLite when they are not SQLite's (OSError passes through)."""
    with open(path, "rb") as stream:
        header = stream.read(HEADER_BYTES)
    if not header.startswith(SQLITE_MAGIC):
        raise NotSQLite(empty=not header)
    return header


def is_wal(header: bytes) -> bool:
    """Bytes 18 and 19 (read and write versions) are 2 in WAL mode."""
    return len(header) >= 20 and header[18] == 2 and header[19] == 2


Connect = Callable[[Path, bool], sqlite3.Connection]


def connect(path: Path, immutable: bool) -> sqlite3.Connection:
    """A read-only connection; the first statement is where opening problems surface."""
    uri = path.absolute().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    connection = sqlite3.connect(
        uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.execute("PRAGMA trusted_schema = OFF")
        connection.execute("PRAGMA user_version").fetchone()
    except sqlite3.Error:
        connection.close()
        raise
    return connection


@dataclass(slots=True)
class OpenStore:
    """An open store: its connection, what opening it had to say, and a private copy to
    delete when it is closed."""

    connection: sqlite3.Connection
    notes: list[str] = field(default_factory=list)
    scratch: str | None = None

    def close(self) -> None:
        self.connection.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


@contextmanager
def open_store(path: str, name: str, connector: Connect | None = None) -> Iterator[OpenStore]:
    """Open `path` (shown as `name`) read-only as 10.6 says; raises StoreError or NotSQLite."""
    store = _open(path, name, connector or connect)
    try:
        yield store
    finally:
        store.close()


def _open(path: str, name: str, connector: Connect) -> OpenStore:
    try:
        header = read_header(path)
    except OSError as error:
        raise StoreError(name, f"cannot read: {error.strerror or error}") from None
    try:
        return OpenStore(connector(Path(path), False))
    except sqlite3.Error as error:
        if not (is_wal(header) and _needs_fallback(error)):
            raise StoreError(name, sqlite_problem(error)) from None
        return _read_only_fallback(path, name, connector, error)


def _needs_fallback(error: sqlite3.Error) -> bool:
    """The errors of a WAL store in a directory where SQLite cannot create `-shm` (10.6)."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (SQLITE_CANTOPEN, SQLITE_READONLY)


def _read_only_fallback(
    path: str, name: str, connector: Connect, first: sqlite3.Error
) -> OpenStore:
    try:
        wal_bytes = os.stat(path + "-wal").st_size
    except OSError:  # none, or gone since SQLite looked: nothing of it to read
        wal_bytes = 0
    try:
        if wal_bytes == 0:
            return _immutable(path, name, connector)
        copied, why = _private_copy(path)
        if copied is not None:
            return _open_copy(copied, name, connector)
        if not os.path.exists(path + "-wal"):  # checkpointed meanwhile: the store is whole
            return _immutable(path, name, connector)
        note = (
            f"{name}: warning: no private copy could be made ({why}); rows still in the WAL "
            f"({wal_bytes} bytes) are not visible"
        )
        return OpenStore(connector(Path(path), True), [note])
    except sqlite3.Error as error:
        raise StoreError(name, sqlite_problem(error)) from first


def _immutable(path: str, name: str, connector: Connect) -> OpenStore:
    """A store with nothing in its `-wal`, opened where SQLite cannot write its `-shm`."""
    note = f"{name}: the directory is not writable; opened as immutable (complete: no WAL content)"
    return OpenStore(connector(Path(path), True), [note])


def _open_copy(scratch: str, name: str, connector: Connect) -> OpenStore:
    try:
        connection = connector(Path(scratch) / "store.sqlite", False)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    note = (
        f"{name}: warning: the directory is not writable and the WAL holds rows; "
        "read a private copy of the store and its -wal"
    )
    return OpenStore(connection, [note], scratch)


def _signature(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def _private_copy(path: str) -> tuple[str | None, str]:
    """A 0700 temporary directory holding the store and its `-wal` (never `-shm`), copied
    while neither changed; else None and why not, in words for the user's warning (a full
    or unwritable temporary folder is theirs to fix, so it is named)."""
    sources = (path, path + "-wal")
    for _ in range(COPY_ATTEMPTS):
        before = [_signature(source) for source in sources]
        try:
            scratch = tempfile.mkdtemp(prefix="loopcfg-store-")
        except OSError as error:
            return None, _temporary_problem(_temporary_folder(), error)
        try:
            shutil.copyfile(sources[0], os.path.join(scratch, "store.sqlite"))
            shutil.copyfile(sources[1], os.path.join(scratch, "store.sqlite-wal"))
        except BaseException as error:  # an interrupt too: no copy of a private store is left
            shutil.rmtree(scratch, ignore_errors=True)
            if not isinstance(error, OSError):
                raise
            return None, _copy_problem(error, sources, os.path.dirname(scratch))
        if None not in before and [_signature(source) for source in sources] == before:
            return scratch, ""
        shutil.rmtree(scratch, ignore_errors=True)
    return None, f"the store changed while it was copied, {COPY_ATTEMPTS} times"


def _copy_problem(error: OSError, sources: tuple[str, str], folder: str) -> str:
    """Why copying failed, in words for the warning. shutil names the source in a failed
    write too (ENOSPC through sendfile), and sometimes neither side: the errno tells a full
    or read-only temporary folder, a named source alone a file that cannot be read."""
    if error.errno in _WRITING_ERRNOS:
        return _temporary_problem(folder, error)
    if error.filename in sources and error.filename2 is None:
        return f"cannot read {error.filename}: {error.strerror or error}"
    return f"copying it into the temporary folder {folder} failed: {error.strerror or error}"


def _temporary_folder() -> str:
    try:
        return tempfile.gettempdir()
    except OSError:  # none usable: tempfile tried $TMPDIR, /tmp, /var/tmp, /usr/tmp, the cwd
        return os.environ.get("TMPDIR") or "/tmp"


def _temporary_problem(folder: str, error: OSError) -> str:
    return (
        f"in the temporary folder {folder}: {error.strerror or error}; set TMPDIR to a folder "
        "with room"
    )


# -- what a store is ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoreMeta:
    """`PRAGMA user_version` and the `schema_meta` primary row (10.2)."""

    schema: int
    role: str | None
    meta_schema: int | None
    agent_id: str | None
    app_version: str | None
    tables: frozenset[str]


def table_columns(connection: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}


def read_meta(connection: sqlite3.Connection) -> StoreMeta:
    schema = int(connection.execute("PRAGMA user_version").fetchone()[0])
    tables = frozenset(
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    )
    role = meta_schema = agent_id = app_version = None
    if "schema_meta" in tables:
        row = connection.execute(
            "SELECT role, schema_version, agent_id, app_version FROM schema_meta "
            "WHERE meta_key = 'primary'"
        ).fetchone()
        if row is not None:
            role, meta_schema, agent_id, app_version = row
    return StoreMeta(
        schema, _text(role), _int(meta_schema), _text(agent_id), _text(app_version), tables
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def check_agent_schema(meta: StoreMeta, name: str, *, allow_newer: bool) -> list[str]:
    """Refuse what cannot be read (StoreError); notes for what is read with a caveat."""
    notes: list[str] = []
    if meta.schema > KNOWN_SCHEMA:
        if not allow_newer:
            raise StoreError(
                name,
                f"agent database schema {meta.schema} is newer than loopcfg knows "
                f"({KNOWN_SCHEMA}); --allow-newer-schema reads it anyway",
            )
        notes.append(
            f"{name}: warning: agent database schema {meta.schema} is newer than loopcfg knows "
            f"({KNOWN_SCHEMA}); results may be incomplete (--allow-newer-schema)"
        )
    if meta.meta_schema is not None and meta.meta_schema != meta.schema:
        notes.append(
            f"{name}: note: schema_meta says schema {meta.meta_schema}, user_version says "
            f"{meta.schema}; user_version decides"
        )
    return notes


def holds_sessions(meta: StoreMeta) -> bool:
    return meta.schema >= FIRST_SQLITE_SESSIONS_SCHEMA and "transcript_events" in meta.tables


def no_sessions_message(meta: StoreMeta) -> str:
    agent = meta.agent_id or "<agentId>"
    return (
        f"this agent database (schema {meta.schema}) holds no sessions; they are JSONL files "
        f"under agents/{agent}/sessions/"
    )


def required_tables_missing(meta: StoreMeta, connection: sqlite3.Connection) -> str | None:
    """Why a store claiming a known layout lacks what a reader uses (10.2), or None."""
    if "transcript_events" not in meta.tables:
        return "no transcript_events table"
    columns = table_columns(connection, "transcript_events")
    missing = {"session_id", "seq", "event_json"} - columns
    if missing:
        return f"transcript_events lacks {', '.join(sorted(missing))}"
    return None


# -- the sessions of a store (10.3) --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One transcript (session id) of a store, as `--list` shows it and replay reads it."""

    session_id: str
    key: str | None
    previous: str | None = None
    reason: str | None = None
    created_at: int | None = None
    current: bool = False
    archived: bool = False
    rows: int = 0
    compressed: int = 0
    cold: bool = False

    @property
    def state(self) -> str:
        if self.cold:
            return "cold"
        return "hot" if self.rows else "empty"


WINDOWS_QUERY = """
SELECT w.session_id, w.session_key, w.previous_session_id, w.reason, w.created_at,
       n.current_session_id = w.session_id AS is_current, n.archived_at
FROM session_windows AS w LEFT JOIN session_nodes AS n ON n.session_key = w.session_key
ORDER BY w.created_at, w.session_id
"""


def list_sessions(connection: sqlite3.Connection, meta: StoreMeta) -> list[SessionRow]:
    """Every transcript of the store in 10.3 order: windows by creation, then ids with rows
    but no window (key unknown), by id."""
    counts = _row_counts(connection)
    cold = _cold_ids(connection, meta)
    found: list[SessionRow] = []
    if {"session_windows", "session_nodes"} <= meta.tables:
        for sid, key, previous, reason, created, current, archived in connection.execute(
            WINDOWS_QUERY
        ):
            rows, compressed = counts.get(sid, (0, 0))
            found.append(
                SessionRow(
                    sid,
                    _text(key),
                    _text(previous),
                    _text(reason),
                    _int(created),
                    bool(current),
                    archived is not None,
                    rows,
                    compressed,
                    sid in cold,
                )
            )
    known = {row.session_id for row in found}
    keys = _legacy_keys(connection, meta)
    for sid in sorted(set(counts) - known):
        rows, compressed = counts[sid]
        found.append(SessionRow(sid, keys.get(sid), rows=rows, compressed=compressed))
    return found


def _row_counts(connection: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    compressed = (
        "count(event_zstd)"
        if "event_zstd" in table_columns(connection, "transcript_events")
        else "0"
    )
    query = f"SELECT session_id, count(*), {compressed} FROM transcript_events GROUP BY session_id"
    return {str(sid): (int(rows), int(packed)) for sid, rows, packed in connection.execute(query)}


def _cold_ids(connection: sqlite3.Connection, meta: StoreMeta) -> set[str]:
    if "session_transcript_cold_archives" not in meta.tables:
        return set()
    query = "SELECT session_id FROM session_transcript_cold_archives"
    return {str(row[0]) for row in connection.execute(query)}


def _legacy_keys(connection: sqlite3.Connection, meta: StoreMeta) -> dict[str, str]:
    """Schemas 4-13 kept the key in a `sessions` table."""
    if "session_windows" in meta.tables or "sessions" not in meta.tables:
        return {}
    if not {"session_id", "session_key"} <= table_columns(connection, "sessions"):
        return {}
    query = "SELECT session_id, session_key FROM sessions"
    return {str(sid): str(key) for sid, key in connection.execute(query) if key is not None}


def archived_transcripts(connection: sqlite3.Connection, meta: StoreMeta) -> int:
    """Deleted or reset transcripts kept in `session_transcript_archives` (never replayed)."""
    if "session_transcript_archives" not in meta.tables:
        return 0
    return int(connection.execute("SELECT count(*) FROM session_transcript_archives").fetchone()[0])
