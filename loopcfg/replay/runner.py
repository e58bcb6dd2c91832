"""Drive the engine with a stream of events (06 §6.2) and collect what it found (06 §6.3).

The runner knows the engine only through the small protocols below, so it can be tested with a
scripted double and runs against `loopcfg.engine` in production (`engine_sessions`).
"""

from __future__ import annotations

import heapq
import operator
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol, cast

from loopcfg.replay.events import (
    Batch,
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

if TYPE_CHECKING:  # both loaded when first needed (spooling, --stats): most replays need neither
    from loopcfg.replay.spool import SessionSpool
    from loopcfg.replay.stats import SessionProbe

ABORT_CODE = "compaction_loop_persisted"


class Verdict(Protocol):
    level: str
    detector: str | None
    count: int
    message: str
    warning_key: str | None
    emitted: bool


class CallHandle(Protocol):
    verdict: Any


class RecordingHandle(CallHandle, Protocol):
    """The engine's handle (`loopcfg.engine.session.CallHandle`): the arguments' hash, and
    the call's outcome recorded without naming the call again."""

    args_hash: str

    def record(self, result: Any = ..., error: Any = None) -> object: ...


class EngineSession(Protocol):
    def check(self, tool: str, args: Any, *, run_id: str | None = None) -> Any: ...

    def before_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> CallHandle:
        """`check` and, unless the verdict is critical, `record_call`, with the arguments
        hashed and the run id trimmed once (04 §4.1)."""
        ...

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
        args_hash: str | None = None,
    ) -> object:
        """`args_hash` (only passed when `before_call`'s handle had one) is that handle's."""
        ...

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


class SpoolingFactory(SessionFactory, Protocol):
    """A factory whose sessions can be spooled to disk while idle (`spool.py`)."""

    def suspend(self, engine: EngineSession) -> Any:
        """The session's state as picklable values; `engine` is not used afterwards."""
        ...

    def resume(self, key: str, state: Any) -> EngineSession:
        """The session `suspend` returned `state` for, alive again."""
        ...

    def weigher(self, engine: EngineSession) -> Callable[[], int]:
        """What the session holds, in history records (its memory grows with them), as a
        call without arguments: the runner asks at every line of the session."""
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
    # E8.1 targets (06 §6.3.1, 09 §9.4.7): the call's batch, whether its batch was blocked,
    # whether this call's verdict blocked it, and "recovery"/"terminated"; None otherwise.
    batch: str | None = None
    blocked: bool | None = None
    trigger: bool | None = None
    recovery: str | None = None


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
    # --stats only: per tool streaks and detector peaks, and the closest call (06 §6.3.1).
    probe: SessionProbe | None = None

    @property
    def name(self) -> str:
        """How the summary names the session: `<file>::<session>` (Decision 8)."""
        return f"{self.file}::{self.session}"


# SessionStats as a tuple (spooled sessions): a dataclass pickles 5x larger and 2x slower.
_stats_values = operator.attrgetter(*[stats_field.name for stats_field in fields(SessionStats)])


class ReplaySink(Protocol):
    """Where the runner hands what it finds, as it finds it (a renderer streams it out).

    Events and aborts arrive once their run id is final; `session_end` comes for each session
    when it can receive no more lines (the end of its file), in the order sessions appeared.
    """

    def event(self, event: ReplayEvent) -> None: ...

    def abort(self, abort: ReplayAbort) -> None: ...

    def session_start(self, stats: SessionStats) -> None: ...

    def session_end(self, stats: SessionStats) -> None: ...

    def problem(self, problem: Malformed) -> None: ...


class SpoolingSink(ReplaySink, Protocol):
    """A sink that keeps state per session (the text timeline's open line) and lets the runner
    spool it with the session: `suspend_session` hands it over and forgets it,
    `resume_session` takes it back (before any other call about that session)."""

    def suspend_session(self, stats: SessionStats) -> Any: ...

    def resume_session(self, stats: SessionStats, state: Any) -> None: ...


@dataclass(slots=True)
class FileReplay:
    """What one input file produced, in file order (kept when no sink streams it out)."""

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
    # What decides the exit code, counted whether or not the lists above are kept.
    malformed: int = 0
    readable: int = 0
    critical: bool = False
    warned: bool = False
    aborted: bool = False

    @property
    def unreadable(self) -> bool:
        """Every line that said anything was malformed: nothing was replayed (05: exit 2)."""
        return self.readable == 0 and self.malformed > 0

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

    # FileReplay is also the sink that keeps everything (workers, --compare, tests).
    def event(self, event: ReplayEvent) -> None:
        self.events.append(event)

    def abort(self, abort: ReplayAbort) -> None:
        self.aborts.append(abort)

    def session_start(self, stats: SessionStats) -> None:
        """Kept results list their sessions when they end."""

    def session_end(self, stats: SessionStats) -> None:
        self.sessions.append(stats)

    def problem(self, problem: Malformed) -> None:
        self.problems.append(problem)

    def counts_only(self) -> FileReplay:
        """This result without its findings (they have been handed to a sink)."""
        self.events, self.aborts, self.sessions, self.problems = [], [], [], []
        return self

    def feed(self, sink: ReplaySink) -> None:
        """Hand a kept result to a streaming sink, in the order the runner would have."""
        for stats in self.sessions:
            sink.session_start(stats)
        for event in self.events:
            sink.event(event)
        for abort in self.aborts:
            sink.abort(abort)
        for problem in self.problems:
            sink.problem(problem)
        for stats in self.sessions:
            sink.session_end(stats)


# Call ids remembered per session for outcomes that come later (parallel calls, transcripts'
# results after their call). A result normally follows its call within a few lines; a cap keeps
# a session that never answers its calls from growing without bound.
MAX_PENDING_IDS = 4096


class BoundedIds(dict[str, Any]):
    """An insertion-ordered map that forgets its oldest entries beyond MAX_PENDING_IDS (a
    plain dict keeps insertion order, and sets and looks up faster than an OrderedDict)."""

    def remember(self, key: str, value: Any) -> None:
        self[key] = value
        if len(self) > MAX_PENDING_IDS:
            del self[next(iter(self))]


@dataclass(slots=True)
class _Live:
    """One session being replayed: small, spooled while idle, dropped at the end of its file."""

    engine: EngineSession
    stats: SessionStats
    # Order of first appearance in the file: sessions end in this order.
    order: int
    # History records held when last weighed (the record budget, `_Replayer.weigh`).
    weight: int = 0
    # What the engine session holds now, in records (`SpoolingFactory.weigher`, set when a
    # budget is kept; `int()` is 0 until then).
    weigher: Callable[[], int] = int
    # call id -> run of a call still waiting for its outcome, so a late outcome joins its
    # call's run; an outcome whose id is not here (nor blocked) has no recorded call.
    call_runs: BoundedIds = field(default_factory=BoundedIds)
    # ids of blocked calls: any outcome carrying one is dropped (the call never ran).
    blocked: BoundedIds = field(default_factory=BoundedIds)
    # call id -> (tool, arguments, run, the engine's handle) of a call waiting for its
    # outcome, so the outcome of that very call is recorded through its handle (nothing
    # normalised or hashed again). A cache: never spooled, cleared when it grows past
    # MAX_PENDING_IDS; without an entry the engine is asked by name.
    waiting_calls: dict[str, tuple[str, Any, str | None, RecordingHandle]] = field(
        default_factory=dict
    )
    aborted_runs: set[str | None] = field(default_factory=set)
    run_ids: dict[str | None, str] = field(default_factory=dict)
    # Transcripts name a run's real id after its calls: what was found in the current run waits
    # here until its id is known or the run is over (then it is final).
    names_runs: bool = False
    held: list[ReplayEvent | ReplayAbort] = field(default_factory=list)

    def in_aborted_run(self, run: str | None) -> bool:
        # Without run ids an abort skips the whole rest of the session.
        return None in self.aborted_runs or run in self.aborted_runs

    def suspended(self, view: Any) -> tuple[Any, ...]:
        """Everything but the engine as plain picklable values (empty parts as None), with
        the sink's `view` of the session."""
        return (
            view,
            _stats_values(self.stats),
            list(self.call_runs.items()) or None,
            list(self.blocked.items()) or None,
            self.aborted_runs or None,
            self.run_ids or None,
            self.names_runs,
            self.held or None,
        )

    @classmethod
    def resumed(cls, engine: EngineSession, order: int, state: tuple[Any, ...]) -> _Live:
        """The session `suspended` returned `state` for; the sink's view is `state[0]`."""
        _view, figures, call_runs, blocked, aborted_runs, run_ids, names_runs, held = state
        live = cls(engine, SessionStats(*figures), order, names_runs=names_runs)
        if call_runs:
            live.call_runs.update(call_runs)
        if blocked:
            live.blocked.update(blocked)
        live.aborted_runs = aborted_runs or set()
        live.run_ids = run_ids or {}
        live.held = held or []
        return live


class _Replayer:
    def __init__(
        self,
        file: str,
        sessions: SessionFactory,
        keep_args: bool,
        sink: ReplaySink | None,
        stats: bool,
        live_sessions: int | None = None,
        live_records: int | None = None,
    ) -> None:
        self.result = FileReplay(file)
        self.sink: ReplaySink = sink if sink is not None else self.result
        self.factory = sessions
        self.keep_args = keep_args
        self.stats = stats
        # The sessions in memory, least recently used first when there is a budget.
        self.live: OrderedDict[str, _Live] = OrderedDict()
        spools = all(hasattr(sessions, name) for name in ("suspend", "resume", "weigher"))
        self.budget = max(live_sessions, 1) if live_sessions is not None and spools else None
        # And the history records they may hold together (sessions differ in length).
        self.record_budget = live_records if live_records is not None else sys.maxsize
        self.records = 0
        self.spool: SessionSpool | None = None
        self.appeared = 0
        self.sink_spools = hasattr(self.sink, "suspend_session")

    def session(self, name: str) -> _Live:
        live = self.live.get(name)
        if live is not None:
            if self.budget is not None:
                self.live.move_to_end(name)
                if live.weigher() != live.weight:  # what its previous lines added
                    self.weigh(live)
                # Else nothing changed since the budget last held (only a session's own lines
                # add to its records, and a session newly in memory is weighed below).
            return live
        live = self.unspooled(name) if self.spool is not None else None
        if live is None:
            live = self.new_session(name)
        self.live[name] = live
        if self.budget is not None:
            live.weigher = cast(SpoolingFactory, self.factory).weigher(live.engine)
            self.weigh(live)
        return live

    def weigh(self, live: _Live) -> None:
        """Count the session's records again; over budget, spool the least recently used."""
        weight = live.weigher()
        self.records += weight - live.weight
        live.weight = weight
        assert self.budget is not None
        while len(self.live) > 1 and (
            len(self.live) > self.budget or self.records > self.record_budget
        ):
            self.spool_oldest()

    def new_session(self, name: str) -> _Live:
        stats = SessionStats(self.result.file, name)
        if self.stats:
            from loopcfg.replay.stats import SessionProbe

            stats.probe = SessionProbe()
        live = _Live(self.factory.session(name), stats, self.appeared)
        self.appeared += 1
        self.sink.session_start(stats)
        return live

    # -- idle sessions on disk (spool.py) ---------------------------------------------------------

    def spool_oldest(self) -> None:
        name, live = self.live.popitem(last=False)
        self.records -= live.weight
        if self.spool is None:
            from loopcfg.replay.spool import SessionSpool

            self.spool = SessionSpool()
        factory = cast(SpoolingFactory, self.factory)
        engine = factory.suspend(live.engine)
        view = None
        if self.sink_spools:
            view = cast(SpoolingSink, self.sink).suspend_session(live.stats)
        import pickle

        dump = pickle.dumps
        self.spool.put(live.order, name, dump(live.suspended(view), -1), dump(engine, -1))

    def unspooled(self, name: str) -> _Live | None:
        assert self.spool is not None
        row = self.spool.take(name)
        if row is None:
            return None
        import pickle

        order, state, engine = row
        resumed = cast(SpoolingFactory, self.factory).resume(name, pickle.loads(engine))
        return self.resumed(resumed, order, state)

    def resumed(self, engine: EngineSession, order: int, state: bytes) -> _Live:
        """A session read from the spool; the sink gets its view of it back."""
        import pickle

        values = pickle.loads(state)
        live = _Live.resumed(engine, order, values)
        if self.sink_spools:
            cast(SpoolingSink, self.sink).resume_session(live.stats, values[0])
        return live

    def ended_in_order(self) -> Iterator[_Live]:
        """Every session, in order of first appearance, those on disk without their engine
        (an ended session needs only its counts and held findings)."""
        kept = list(self.live.values())
        if self.budget is None:
            return iter(kept)  # never reordered: insertion order is appearance order
        kept.sort(key=_order)
        if self.spool is None:
            return iter(kept)
        return heapq.merge(kept, self._ended_on_disk(), key=_order)

    def _ended_on_disk(self) -> Iterator[_Live]:
        """The spooled sessions, read back one at a time (a generator function, not a
        generator expression: compiled, mypyc would build that as a whole list)."""
        assert self.spool is not None
        for order, name, state in self.spool.in_order():
            if name not in self.live:  # taken back: the one in memory is current
                yield self.resumed(_ENDED, order, state)

    def handle_other(self, event: Event) -> None:
        """Every event but a Call or an Outcome (`replay_events` hands those on itself)."""
        if isinstance(event, Batch):
            from loopcfg.replay.batches import replay_batch

            replay_batch(self, event)
        elif isinstance(event, Compaction):
            self.compaction(event)
        elif isinstance(event, ConfigSwitch):
            # Same session, same history, that agent's settings from here on (06 §6.1).
            self.session(event.session).engine.reconfigure(self.factory.settings(event.agent))
        elif isinstance(event, RunStart):
            live = self.session(event.session)
            self.release(live)  # the previous run is over: no id can name it any more
            live.names_runs = True
        elif isinstance(event, SessionHeader):
            self.session(event.session)
        elif isinstance(event, RunId):
            live = self.session(event.session)
            live.run_ids.setdefault(event.run, event.run_id)
            self.release(live)

    def call(self, event: Call) -> None:
        live = self.session(event.session)
        stats = live.stats
        call_id, run, tool, args = event.call_id, event.run, event.tool, event.args
        # An outcome on a later line: remember the call's run (and its arguments' hash).
        later = call_id if event.outcome is None else None
        if later is not None:
            live.call_runs.remember(later, run)
        if live.aborted_runs and live.in_aborted_run(run):
            stats.skipped += 1
            return
        stats.calls += 1
        if stats.probe is not None:
            stats.probe.observe(live.engine, tool, args, run, stats.calls)
        # Checked and, unless blocked, recorded in one step: the engine hashes the arguments
        # and trims the run id once for both.
        handle = live.engine.before_call(tool, args, run_id=run, call_id=call_id)
        verdict = handle.verdict
        level = verdict.level
        # A blocked call records nothing: its handle is not kept.
        if later is not None and level != "critical" and hasattr(handle, "record"):
            waiting = live.waiting_calls
            if len(waiting) >= MAX_PENDING_IDS:
                waiting.clear()
            waiting[later] = (tool, args, run, cast(RecordingHandle, handle))
        if level == "none":
            if event.outcome is not None:
                self.outcome(live, event.outcome, inline=True)
            return
        self.verdict(live, event, verdict)
        if level == "critical":
            # Blocked: it would not have run, so neither the call nor its outcome is recorded.
            if call_id is not None:
                live.blocked.remember(call_id, True)
            return
        if event.outcome is not None:
            self.outcome(live, event.outcome, inline=True)

    def verdict(self, live: _Live, event: Call, verdict: Any) -> None:
        stats = live.stats
        emitted = bool(getattr(verdict, "emitted", True))
        found = ReplayEvent(
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
        self.tally(live, event.line, stats.calls, verdict.level, emitted)
        self.found(live, found)

    def tally(self, live: _Live, line: int, call: int, level: str, emitted: bool) -> None:
        """What a verdict adds to its session's counts: a critical is a block (the first one
        remembered), an emitted warning a warning. E8.1 batches tally their triggers here too
        (decision 4)."""
        stats = live.stats
        if level == "critical":
            stats.blocks += 1
            self.result.critical = True
            if stats.first_block_line is None:
                stats.first_block_line = line
                stats.first_block_call = call
        elif level == "warning" and emitted:
            stats.warnings += 1
            self.result.warned = True

    def found(self, live: _Live, item: ReplayEvent | ReplayAbort) -> None:
        """Hand an event or abort on once its run's real id is final (held until then)."""
        run_id = live.run_ids.get(item.run)
        if run_id is not None or not live.names_runs:
            item.run_id = run_id
            self.send(item)
        else:
            live.held.append(item)

    def send(self, item: ReplayEvent | ReplayAbort) -> None:
        if isinstance(item, ReplayEvent):
            self.sink.event(item)
        else:
            self.sink.abort(item)

    def release(self, live: _Live) -> None:
        """The held items, named by the run ids known now (none will come for them later)."""
        held, live.held = live.held, []
        for item in held:
            item.run_id = live.run_ids.get(item.run)
            self.send(item)

    def outcome(self, live: _Live, event: Outcome, *, inline: bool) -> None:
        """An outcome; `inline` when it came on its call's own line (same run, never late)."""
        run = event.run
        orphan = event.orphan
        call_id = event.call_id
        kept = None
        if call_id is not None and not inline:
            kept = live.waiting_calls.pop(call_id, None)
            if call_id in live.blocked:
                return
            # `remembered`, not `run`: a typed variable holds no sentinel when compiled.
            remembered = live.call_runs.pop(call_id, _NO_RUN)
            if remembered is _NO_RUN:
                orphan = True
            else:
                run = remembered
        if orphan:
            live.stats.orphan_results += 1
        if live.aborted_runs and live.in_aborted_run(run):
            return
        if event.veto:
            self.forget(live, event, run)
            return
        try:
            tool, args = event.tool, event.args
            # The call's own arguments (the reader hands the same object on) in its own run:
            # its handle records it. In another run (its id was forgotten): its hash, passed
            # only then (a session that never gets it need not take the keyword).
            if kept is not None and kept[1] is args and kept[0] == tool:
                if kept[2] == run:
                    note = kept[3].record(event.result, event.error)
                else:
                    note = live.engine.record_outcome(
                        tool,
                        args,
                        result=event.result,
                        error=event.error,
                        run_id=run,
                        call_id=call_id,
                        args_hash=kept[3].args_hash,
                    )
            else:
                note = live.engine.record_outcome(
                    tool, args, result=event.result, error=event.error, run_id=run, call_id=call_id
                )
            if isinstance(note, str):  # E8.1's window-closed line: an info event (09 §9.4.8)
                from loopcfg.replay.batches import guard_note

                guard_note(self, live, event, run, note)
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
        abort = ReplayAbort(
            event.file,
            event.line,
            event.session,
            run,
            str(getattr(error, "tool", event.tool)),
            int(getattr(error, "count", 0)),
            ABORT_CODE,
            str(error),
        )
        self.result.aborted = True
        self.found(live, abort)

    def compaction(self, event: Compaction) -> None:
        live = self.session(event.session)
        if not live.in_aborted_run(event.run):
            live.engine.compaction_retry(run_id=event.run)

    def malformed(self, problem: Malformed) -> None:
        self.result.malformed += 1
        self.sink.problem(problem)

    def finish(self) -> FileReplay:
        """The end of the file: every session is over; each is handed on and let go."""
        try:
            for live in self.ended_in_order():
                self.release(live)
                self.sink.session_end(live.stats)
        finally:
            self.live.clear()
            if self.spool is not None:
                self.spool.close()
                self.spool = None
        return self.result


def _order(live: _Live) -> int:
    return live.order


# What `call_runs.pop` answers for an id it does not hold (None is a run).
_NO_RUN: Any = object()

# The engine of a session read back from the spool only to end it: never called.
_ENDED = cast(EngineSession, None)


def replay_events(
    file: str,
    events: Iterable[Event],
    sessions: SessionFactory,
    *,
    strict: bool = False,
    keep_args: bool = False,
    stats: bool = False,
    sink: ReplaySink | None = None,
    live_sessions: int | None = None,
    live_records: int | None = None,
) -> FileReplay:
    """Replay one file's events; malformed lines are kept as problems (fatal with `strict`).

    `keep_args` keeps each event's arguments (--show-args); otherwise they are not even held.
    `stats` adds the --stats figures to each session. With a `sink`, events, aborts and
    sessions go to it as they are found and the result keeps only the counts and problems.
    `live_sessions` caps the sessions held in memory, and `live_records` the history records
    they hold together: beyond either the least recently used go to a temporary file
    (spool.py) when `sessions` can suspend and resume them; `live_sessions` None: no cap.
    """
    replayer = _Replayer(file, sessions, keep_args, sink, stats, live_sessions, live_records)
    result = replayer.result
    # Calls and outcomes are nearly every event: dispatched here by one type lookup, not a
    # chain of isinstance (events are plain dataclasses, never subclassed), without a method
    # call of their own.
    call, outcome, session, other = (
        replayer.call,
        replayer.outcome,
        replayer.session,
        replayer.handle_other,
    )
    for event in events:
        kind = type(event)
        if kind is Malformed:
            replayer.malformed(cast(Malformed, event))
            if strict:
                result.stopped = True
                break
            continue
        result.readable += 1
        if kind is Call:
            call(cast(Call, event))
        elif kind is Outcome:
            found = cast(Outcome, event)
            outcome(session(found.session), found, inline=False)
        else:
            other(event)
    return replayer.finish()
