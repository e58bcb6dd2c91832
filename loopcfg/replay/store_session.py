"""Replaying one store session (10.3-10.6): the unit that `parallel` hands to a worker.

A `StoreSession` pickles; the worker opens the store itself (one connection per worker), reads
the session in one read transaction and feeds its rows to the same 07 reader and runner as a
JSONL transcript, so a session and its JSONL form give the same verdicts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from loopcfg.replay.driver import EngineSessions, ReplayOptions, quiet_engine_logs, read_events
from loopcfg.replay.events import ConfigSwitch, Event, Malformed, SessionHeader
from loopcfg.replay.lines import NumberedLines, numbered, open_binary
from loopcfg.replay.runner import FileReplay, replay_events
from loopcfg.replay.store import (
    SessionRow,
    StoreError,
    StoreMeta,
    check_agent_schema,
    open_store,
    read_meta,
    sqlite_problem,
)
from loopcfg.replay.store_read import (
    DEFAULT_MAX_LINE_BYTES,
    RowReader,
    active_seqs,
    cold_lines,
    cold_record,
    events_with_problems,
    has_compressed_rows,
)
from loopcfg.replay.store_zstd import MISSING, zstd_available
from loopcfg.replay.transcript import TranscriptOptions, read_transcript


@dataclass(frozen=True, slots=True)
class StoreSession:
    """One transcript of one store, as found on the command line."""

    db: str  # the store's name as found (10.5)
    path: str  # the file to open
    agent: str | None
    row: SessionRow
    allow_newer: bool = False
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES

    @property
    def session_id(self) -> str:
        return self.row.session_id

    @property
    def where(self) -> str:
        return f"{self.db}::{self.row.session_id}"


@dataclass(frozen=True, slots=True)
class AgentFile:
    """A JSONL transcript found in a state dir's `agents/<agentId>/sessions/`: replayed with
    that agent's settings, as its store sessions are (10.5)."""

    path: str
    agent: str


def replay_agent_file(item: AgentFile, options: ReplayOptions) -> FileReplay:
    """Replay one such file; raises ReadError when it cannot be read at all."""
    factory = EngineSessions(options)
    with quiet_engine_logs(), open_binary(item.path) as stream:
        events = read_events(item.path, numbered(stream), options)
        agent = item.agent if options.agent is None else None
        return replay_events(
            item.path,
            with_agent(events, agent),
            factory,
            strict=options.strict,
            keep_args=options.keep_args,
        )


def replay_store_session(item: StoreSession, options: ReplayOptions) -> FileReplay:
    """Replay one session; raises StoreError (a ReadError) when it cannot be read at all."""
    factory = EngineSessions(options)
    with quiet_engine_logs(), open_store(item.path, item.db) as store:
        connection = store.connection
        try:
            meta = read_meta(connection)
            check_agent_schema(meta, item.db, allow_newer=item.allow_newer)
            connection.execute("BEGIN")
        except sqlite3.Error as error:
            raise StoreError(item.db, sqlite_problem(error)) from None
        try:
            return _replay(item, options, factory, connection, meta)
        except sqlite3.Error as error:
            raise StoreError(item.db, sqlite_problem(error)) from None
        finally:
            _end(connection)


def _end(connection: sqlite3.Connection) -> None:
    """End the read transaction (it only read: committing changes nothing)."""
    try:
        if connection.in_transaction:
            connection.execute("COMMIT")
    except sqlite3.Error:
        pass  # the connection is closed next anyway


def _replay(
    item: StoreSession,
    options: ReplayOptions,
    factory: EngineSessions,
    connection: sqlite3.Connection,
    meta: StoreMeta,
) -> FileReplay:
    reader = RowReader(connection, meta, item.db, item.session_id, item.max_line_bytes)
    lines: NumberedLines
    cold = (
        cold_record(connection, item.session_id)
        if "session_transcript_cold_archives" in meta.tables
        else None
    )
    if cold is not None:
        _need_zstd(item, "is in cold storage")
        lines = iter(cold_lines(cold, item.path, item.db, item.session_id, options.branch_active))
    else:
        if has_compressed_rows(connection, item.session_id):
            _need_zstd(item, "has compressed rows")
        if options.branch_active:
            reader.seqs = active_seqs(connection, meta, item.session_id)
        lines = reader.lines()
    transcript = TranscriptOptions(run_scope=options.run_scope, session=item.session_id)
    events = events_with_problems(read_transcript(item.db, lines, transcript), reader)
    agent = item.agent if options.agent is None else None
    result = replay_events(
        item.db,
        with_agent(events, agent),
        factory,
        strict=options.strict,
        keep_args=options.keep_args,
    )
    _mark(result, item, reader.failure)
    return result


def _need_zstd(item: StoreSession, why: str) -> None:
    """Never replay a session partly: without zstd, one that needs it is refused whole."""
    if not zstd_available():
        raise StoreError(item.where, f"this session {why} and {MISSING}")


def with_agent(events: Iterator[Event], agent: str | None) -> Iterator[Event]:
    """A store's session runs with its agent's settings (10.5): as if a config line naming
    the agent came first (after the header, which names the session)."""
    pending = agent
    for event in events:
        if pending is not None and not isinstance(event, (SessionHeader, Malformed)):
            yield ConfigSwitch(event.file, event.line, event.session, pending)
            pending = None
        yield event
        if pending is not None and isinstance(event, SessionHeader):
            yield ConfigSwitch(event.file, event.line, event.session, pending)
            pending = None


def _mark(result: FileReplay, item: StoreSession, failure: str | None) -> None:
    for stats in result.sessions:
        stats.source = "sqlite"
        stats.agent = item.agent
        stats.session_key = item.row.key
        stats.incomplete = failure is not None
    result.incomplete = failure
