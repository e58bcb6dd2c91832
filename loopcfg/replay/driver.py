"""One input file from path to `FileReplay`: format detection, reader, engine, runner.

Everything here is picklable so that `parallel` can run files in worker processes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import Any

from loopcfg.engine import LoopDetector, blocked_result
from loopcfg.engine.generations import Generation, generation
from loopcfg.engine.session import Session
from loopcfg.files import DEFAULT_MAX_BYTES
from loopcfg.hashing import DigestBudget
from loopcfg.replay.batches import group_batches
from loopcfg.replay.configs import ConfigTable, defaults_table, load_table
from loopcfg.replay.events import Event, ReadError
from loopcfg.replay.lines import (
    DEFAULT_MAX_LINE_BYTES,
    STDIN,
    InputFormat,
    LongLines,
    counted,
    detect_format,
    numbered,
    open_binary,
)
from loopcfg.replay.runner import (
    CallHandle,
    EngineSession,
    FileReplay,
    ReplaySink,
    replay_events,
)
from loopcfg.replay.spool import LIVE_RECORDS, LIVE_SESSIONS
from loopcfg.replay.trace import read_trace
from loopcfg.replay.transcript import (
    TranscriptOptions,
    active_branch,
    read_transcript,
    trajectory_run_ids,
)
from loopcfg.settings import EffectiveSettings


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What the command line chose; the same for every file of one replay."""

    config: str | None = None
    agent: str | None = None
    input_format: InputFormat | None = None
    run_scope: bool = True
    branch_active: bool = False
    trajectory: str | None = None
    strict: bool = False
    # Size limit of the config files (--max-bytes), as for validate.
    max_bytes: int = DEFAULT_MAX_BYTES
    # The resolved settings (`run_replay` resolves `config` once); None: resolved per file.
    table: ConfigTable | None = None
    # Keep each event's arguments (for --show-args only: they may hold personal data).
    keep_args: bool = False
    # The target release (`--openclaw`, else the config's meta.lastTouchedVersion; README
    # decision 2), which picks the engine generation (09); None: unknown, E6.5.
    openclaw: str | None = None
    # Longer lines are one diagnostic each and skipped unread (--max-line-bytes).
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    # --stats: per session and tool, the detectors' peak counts (06 §6.3.1).
    stats: bool = False
    # Sessions of one file held in memory; the least recently used others wait on disk
    # (spool.py). None: all in memory.
    live_sessions: int | None = LIVE_SESSIONS
    # ... and the history records they may hold together.
    live_records: int | None = LIVE_RECORDS


# What the outcome values a file's sessions hold undigested may weigh together (characters and
# entries, `hashing.DigestBudget`): a few MB at most, whatever the number of sessions; past it
# outcomes are digested at once, as the engine's generic API always does.
DEFERRED_DIGESTS_WEIGHT = 1 << 20

# `len(session.history)`: History.live is the records it holds (History.__len__).
_HISTORY_LENGTH = attrgetter("history.live")


def default_settings() -> EffectiveSettings:
    """No --config: OpenClaw's defaults with the detectors switched on (05 replay)."""
    return defaults_table().base


class EngineSessions:
    """The engine for one file: one detector with the replayed agent's settings; a config line
    switches a session to another agent's settings in place (`Session.reconfigure`).

    The runner owns the sessions (the detector's table does not hold them), and may suspend
    idle ones to disk and resume them (`runner.SpoolingFactory`)."""

    def __init__(self, options: ReplayOptions) -> None:
        self.options = options
        self.table = (
            options.table or load_table(options.config, options.agent, options.max_bytes)[0]
        )
        # Replay always normalises tool names with the target's alias table (09 §9.5).
        self.detector = LoopDetector(self.table.base, openclaw=options.openclaw)
        self.generation: Generation = self.detector.generation
        # The distinct settings sessions run with: a suspended session names its by index.
        self.known_settings: list[EffectiveSettings] = [self.table.base]
        # Shared by the file's sessions: the values are the reader's, never changed after.
        self.deferred = DigestBudget(DEFERRED_DIGESTS_WEIGHT)

    def session(self, key: str) -> EngineSession:
        return self._wrapped(self.detector.detached_session(key))

    def _wrapped(self, session: Session) -> EngineSession:
        session.defer_digests(self.deferred)
        return SingleCallPath(session) if self.generation.rules.hash_veto else session

    def settings(self, agent: str) -> EffectiveSettings:
        return self.table.for_agent(agent)

    def suspend(self, engine: EngineSession) -> tuple[int, tuple[Any, ...]]:
        session = engine.engine if isinstance(engine, SingleCallPath) else engine
        assert isinstance(session, Session)
        settings, state = session.snapshot()
        session.dispose()
        return self._settings_index(settings), state

    def resume(self, key: str, suspended: tuple[int, tuple[Any, ...]]) -> EngineSession:
        index, state = suspended
        return self._wrapped(self.detector.restore(key, self.known_settings[index], state))

    def weigher(self, engine: EngineSession) -> Callable[[], int]:
        session = engine.engine if isinstance(engine, SingleCallPath) else engine
        if self.generation.v4:  # its records (V4Session.__len__); loaded only for E8.1
            from loopcfg.engine.v4 import V4Session

            assert isinstance(session, V4Session)
            return partial(len, session)
        assert isinstance(session, Session)
        # The runner weighs the session it is handed at every line: a C call (no Python frame)
        # reading `len(session.history)`, which stays the session's one History object.
        return partial(_HISTORY_LENGTH, session)

    def _settings_index(self, settings: EffectiveSettings) -> int:
        for index, known in enumerate(self.known_settings):
            if known is settings:
                return index
        self.known_settings.append(settings)
        return len(self.known_settings) - 1


class SingleCallPath:
    """E5.4/E5.12 replay (README decision 3): the host records a blocked call's veto result as
    that call's outcome, and those releases hash it (09 §9.1 item 2)."""

    __slots__ = ("engine",)

    def __init__(self, engine: EngineSession) -> None:
        self.engine = engine

    def check(self, tool: str, args: Any, *, run_id: str | None = None) -> Any:
        verdict = self.engine.check(tool, args, run_id=run_id)
        if verdict.level == "critical":
            self.engine.record_outcome(tool, args, result=blocked_result(verdict), run_id=run_id)
        return verdict

    def before_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> CallHandle:
        handle = self.engine.before_call(tool, args, run_id=run_id, call_id=call_id)
        if handle.verdict.level == "critical":
            self.engine.record_outcome(
                tool, args, result=blocked_result(handle.verdict), run_id=run_id
            )
        return handle

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def replay_file(
    path: str,
    options: ReplayOptions,
    on_bytes: Callable[[int], None] | None = None,
    sink: ReplaySink | None = None,
) -> FileReplay:
    """Replay one file (or stdin); raises ReadError when it cannot be read at all.

    `on_bytes(n)` is told every few MiB how many bytes of the file have been read (progress).
    With a `sink`, what is found streams to it instead of being kept in the result.
    """
    factory = EngineSessions(options)
    with quiet_engine_logs(), open_binary(path) as stream:
        long_lines = LongLines(path)
        lines = numbered(stream, options.max_line_bytes, long_lines.note)
        if on_bytes is not None:
            lines = counted(lines, on_bytes)
        if path == STDIN:
            lines = not_sqlite(path, lines)
        events = long_lines.merge(read_events(path, lines, options))
        if generation(options.openclaw).v4:
            events = group_batches(events)
        return replay_events(
            path,
            events,
            factory,
            strict=options.strict,
            keep_args=options.keep_args,
            stats=options.stats,
            sink=sink,
            live_sessions=options.live_sessions,
            live_records=options.live_records,
        )


SQLITE_MAGIC = b"SQLite format 3\x00"


def not_sqlite(path: str, lines: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
    """A session store needs its file (and `-wal`): never read from stdin (10.5)."""
    for number, line in lines:
        if number == 1 and line.startswith(SQLITE_MAGIC):
            raise ReadError(path, "an SQLite database cannot be read from stdin; name its file")
        yield number, line


@contextmanager
def quiet_engine_logs() -> Iterator[None]:
    """The engine logs every emitted verdict as a live gateway would; in a replay the events
    are the output, so the log would only repeat them on stderr (and cost time per event)."""
    logger = logging.getLogger("loopcfg")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def read_events(
    path: str, lines: Iterator[tuple[int, bytes]], options: ReplayOptions
) -> Iterator[Event]:
    detected, lines = detect_format(lines)
    input_format = options.input_format or detected
    if input_format == "trace":
        return read_trace(path, lines, run_scope=options.run_scope)
    return read_transcript(path, lines, transcript_options(path, options))


def transcript_options(path: str, options: ReplayOptions) -> TranscriptOptions:
    branch = None
    if options.branch_active:
        if path == STDIN:
            raise ReadError(path, "--branch active reads the file twice and cannot read stdin")
        branch = active_branch(path)
    trajectory = trajectory_run_ids(options.trajectory) if options.trajectory else {}
    return TranscriptOptions(run_scope=options.run_scope, branch=branch, trajectory=trajectory)
