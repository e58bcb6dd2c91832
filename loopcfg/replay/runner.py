"""Drive the engine with a stream of events (06 §6.2) and collect what it found (06 §6.3).

The runner knows the engine only through the small protocols below, so it can be tested with a
scripted double and runs against `loopcfg.engine` in production (`engine_sessions`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from loopcfg.replay.events import (
    Call,
    Compaction,
    ConfigSwitch,
    Event,
    Malformed,
    Outcome,
    RunId,
    RunStart,
    SessionHeader,
)

ABORT_CODE = "compaction_loop_persisted"


class Verdict(Protocol):
    level: str
    detector: str | None
    count: int
    message: str
    warning_key: str | None
    emitted: bool


class EngineSession(Protocol):
    def check(self, tool: str, args: Any, *, run_id: str | None = None) -> Any: ...

    def record_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None: ...

    def record_outcome(
        self,
        tool: str,
        args: Any,
        *,
        result: Any = None,
        error: Any = None,
        run_id: str | None = None,
        call_id: str | None = None,
    ) -> None: ...

    def forget_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None: ...

    def compaction_retry(self, *, run_id: str | None = None) -> None: ...

    def reconfigure(self, settings: Any) -> None: ...


class SessionFactory(Protocol):
    def session(self, key: str) -> EngineSession:
        """The engine session for `key`, created with the replayed agent's settings."""
        ...

    def settings(self, agent: str) -> Any:
        """What a config line naming `agent` switches a session to (`reconfigure`)."""
        ...


@dataclass(slots=True)
class ReplayEvent:
    """A non-`none` verdict at one call (06 §6.3 `events`)."""

    file: str
    line: int
    session: str
    run: str | None
    call: int
    tool: str
    level: str
    detector: str | None
    count: int
    message: str
    key: str | None
    emitted: bool
    run_id: str | None = None
    # Kept for --show-args only; never rendered otherwise (transcripts hold personal data).
    args: Any = None


@dataclass(slots=True)
class ReplayAbort:
    """A post-compaction guard abort (06 §6.3 `aborts`)."""

    file: str
    line: int
    session: str
    run: str | None
    tool: str
    count: int
    code: str
    message: str
    run_id: str | None = None


@dataclass(slots=True)
class SessionStats:
    """Per-session figures (06 §6.3 `sessions`)."""

    file: str
    session: str
    calls: int = 0
    skipped: int = 0
    warnings: int = 0
    blocks: int = 0
    first_block_line: int | None = None
    first_block_call: int | None = None
    aborted: bool = False
    orphan_results: int = 0
    # Sessions read from an OpenClaw store (10.5); None/False for files.
    source: str | None = None
    agent: str | None = None
    session_key: str | None = None
    incomplete: bool = False


@dataclass(slots=True)
class FileReplay:
    """Everything one input file produced, in file order."""

    file: str
    events: list[ReplayEvent] = field(default_factory=list)
    aborts: list[ReplayAbort] = field(default_factory=list)
    sessions: list[SessionStats] = field(default_factory=list)
    problems: list[Malformed] = field(default_factory=list)
    stopped: bool = False
    # The one-line reason when the file could not be replayed at all (exit 2).
    error: str | None = None
    # The one-line reason a store session ended early (10.6): its results are kept, exit 2.
    incomplete: str | None = None

    def events_by_session(self) -> dict[str, list[ReplayEvent]]:
        """Events grouped by session in one pass (file order kept within a session)."""
        grouped: dict[str, list[ReplayEvent]] = {}
        for event in self.events:
            grouped.setdefault(event.session, []).append(event)
        return grouped

    def aborts_by_session(self) -> dict[str, list[ReplayAbort]]:
        grouped: dict[str, list[ReplayAbort]] = {}
        for abort in self.aborts:
            grouped.setdefault(abort.session, []).append(abort)
        return grouped


@dataclass(slots=True)
class _Live:
    """One session being replayed."""

    engine: EngineSession
    stats: SessionStats
    # call id -> run of a call still waiting for its outcome, so a late outcome joins its
    # call's run; an outcome whose id is not here (nor blocked) has no recorded call.
    call_runs: dict[str, str | None] = field(default_factory=dict)
    # ids of blocked calls: any outcome carrying one is dropped (the call never ran).
    blocked: set[str] = field(default_factory=set)
    aborted_runs: set[str | None] = field(default_factory=set)
    run_ids: dict[str | None, str] = field(default_factory=dict)

    def in_aborted_run(self, run: str | None) -> bool:
        # Without run ids an abort skips the whole rest of the session.
        return None in self.aborted_runs or run in self.aborted_runs


class _Replayer:
    def __init__(self, file: str, sessions: SessionFactory, keep_args: bool) -> None:
        self.result = FileReplay(file)
        self.factory = sessions
        self.keep_args = keep_args
        self.live: dict[str, _Live] = {}

    def session(self, name: str) -> _Live:
        live = self.live.get(name)
        if live is None:
            stats = SessionStats(self.result.file, name)
            self.result.sessions.append(stats)
            live = _Live(self.factory.session(name), stats)
            self.live[name] = live
        return live

    def handle(self, event: Event) -> None:
        if isinstance(event, Call):
            self.call(event)
        elif isinstance(event, Outcome):
            self.outcome(self.session(event.session), event, inline=False)
        elif isinstance(event, Compaction):
            self.compaction(event)
        elif isinstance(event, ConfigSwitch):
            # Same session, same history, that agent's settings from here on (06 §6.1).
            self.session(event.session).engine.reconfigure(self.factory.settings(event.agent))
        elif isinstance(event, (RunStart, SessionHeader)):
            self.session(event.session)
        elif isinstance(event, RunId):
            self.session(event.session).run_ids.setdefault(event.run, event.run_id)

    def call(self, event: Call) -> None:
        live = self.session(event.session)
        stats = live.stats
        if event.call_id is not None and event.outcome is None:
            live.call_runs[event.call_id] = event.run
        if live.in_aborted_run(event.run):
            stats.skipped += 1
            return
        stats.calls += 1
        verdict = live.engine.check(event.tool, event.args, run_id=event.run)
        if verdict.level != "none":
            self.verdict(live, event, verdict)
        if verdict.level == "critical":
            # Blocked: it would not have run, so neither the call nor its outcome is recorded.
            if event.call_id is not None:
                live.blocked.add(event.call_id)
            return
        live.engine.record_call(event.tool, event.args, run_id=event.run, call_id=event.call_id)
        if event.outcome is not None:
            self.outcome(live, event.outcome, inline=True)

    def verdict(self, live: _Live, event: Call, verdict: Any) -> None:
        stats = live.stats
        emitted = bool(getattr(verdict, "emitted", True))
        self.result.events.append(
            ReplayEvent(
                event.file,
                event.line,
                event.session,
                event.run,
                stats.calls,
                event.tool,
                verdict.level,
                verdict.detector,
                verdict.count,
                verdict.message,
                verdict.warning_key,
                emitted,
                args=event.args if self.keep_args else None,
            )
        )
        if verdict.level == "critical":
            stats.blocks += 1
            if stats.first_block_line is None:
                stats.first_block_line = event.line
                stats.first_block_call = stats.calls
        elif emitted:
            stats.warnings += 1

    def outcome(self, live: _Live, event: Outcome, *, inline: bool) -> None:
        """An outcome; `inline` when it came on its call's own line (same run, never late)."""
        run = event.run
        orphan = event.orphan
        if event.call_id is not None and not inline:
            if event.call_id in live.blocked:
                return
            if event.call_id in live.call_runs:
                run = live.call_runs.pop(event.call_id)
            else:
                orphan = True
        if orphan:
            live.stats.orphan_results += 1
        if live.in_aborted_run(run):
            return
        if event.veto:
            self.forget(live, event, run)
            return
        try:
            live.engine.record_outcome(
                event.tool,
                event.args,
                result=event.result,
                error=event.error,
                run_id=run,
                call_id=event.call_id,
            )
        except Exception as error:
            if getattr(error, "code", None) != ABORT_CODE:
                raise
            self.abort(live, event, run, error)

    def forget(self, live: _Live, event: Outcome, run: str | None) -> None:
        """OpenClaw vetoed this call: drop its pending record, as the gateway never kept it."""
        live.engine.forget_call(event.tool, event.args, run_id=run, call_id=event.call_id)

    def abort(self, live: _Live, event: Outcome, run: str | None, error: Exception) -> None:
        live.aborted_runs.add(run)
        live.stats.aborted = True
        self.result.aborts.append(
            ReplayAbort(
                event.file,
                event.line,
                event.session,
                run,
                str(getattr(error, "tool", event.tool)),
                int(getattr(error, "count", 0)),
                ABORT_CODE,
                str(error),
            )
        )

    def compaction(self, event: Compaction) -> None:
        live = self.session(event.session)
        if not live.in_aborted_run(event.run):
            live.engine.compaction_retry(run_id=event.run)

    def finish(self) -> FileReplay:
        """Name runs by their real ids once known (they often appear after the run's calls)."""
        by_name = {name: live.run_ids for name, live in self.live.items()}
        for event in self.result.events:
            event.run_id = by_name.get(event.session, {}).get(event.run)
        for abort in self.result.aborts:
            abort.run_id = by_name.get(abort.session, {}).get(abort.run)
        return self.result


def replay_events(
    file: str,
    events: Iterable[Event],
    sessions: SessionFactory,
    *,
    strict: bool = False,
    keep_args: bool = False,
) -> FileReplay:
    """Replay one file's events; malformed lines are kept as problems (fatal with `strict`).

    `keep_args` keeps each event's arguments (--show-args); otherwise they are not even held.
    """
    replayer = _Replayer(file, sessions, keep_args)
    for event in events:
        if isinstance(event, Malformed):
            replayer.result.problems.append(event)
            if strict:
                replayer.result.stopped = True
                break
            continue
        replayer.handle(event)
    return replayer.finish()
