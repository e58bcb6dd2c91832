"""One session: rolling history, detection, warning suppression and guards (04 §4.1-§4.9)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from loopcfg.engine import verdicts as v
from loopcfg.engine.generations import DEFAULT_GENERATION, Generation, ToolNames
from loopcfg.engine.guard import Guard
from loopcfg.engine.history import History, Record
from loopcfg.engine.memo import HashMemo
from loopcfg.engine.verdicts import NO_VERDICT, LoopBlocked, LoopEvent, Verdict
from loopcfg.hashing import (
    JS_WHITESPACE,
    NO_RESULT,
    DigestBudget,
    hash_text,
    outcome_hash,
    string_action,
)
from loopcfg.settings import EffectiveSettings, settings_from_block

MAX_WARNING_KEYS = 256
MAX_GUARDS = 64
POLL_ACTIONS = frozenset({"poll", "log"})


def normalise_run_id(run_id: str | None) -> str | None:
    """Trimmed as JavaScript trims (04 §4.2); empty means absent."""
    if run_id is None:
        return None
    # `js_trim`, spelt out: this runs twice per replayed call.
    return (run_id if type(run_id) is str else str(run_id)).strip(JS_WHITESPACE) or None


@dataclass(frozen=True, slots=True)
class Hooks:
    """What a session needs from its detector: host tool sets and the event sink."""

    send_tools: frozenset[str]
    poll_tools: frozenset[str]
    emit: Callable[[LoopEvent], None]
    generation: Generation = DEFAULT_GENERATION
    # The host-facing methods normalise tool names as OpenClaw's host does (09 §9.5), through
    # this table (`names[raw]`); with normalisation off it maps every name to itself.
    names: ToolNames = field(default_factory=DEFAULT_GENERATION.name_table)


class Session:
    def __init__(self, key: str, settings: EffectiveSettings, hooks: Hooks) -> None:
        self.key = key
        self.settings = settings
        self.hooks = hooks
        self.history = History(settings.history_size)
        self.rules = hooks.generation.rules
        self.generic_critical = hooks.generation.generic_critical
        self.lock = threading.Lock()
        self.calls = 0
        self.warning_buckets: dict[str, int] = {}
        self.guards: OrderedDict[str | None, Guard] = OrderedDict()
        self.memo = HashMemo(hooks.generation.args_hash)
        self.names = hooks.names
        # Outcome digests taken when first compared (`defer_digests`); None: at once.
        self.deferred: DigestBudget | None = None

    def defer_digests(self, budget: DigestBudget) -> None:
        """Digest outcomes only when they are first compared (`hashing.DeferredDigest`),
        holding their values meanwhile within `budget` (which sessions may share). Only for
        a caller that never changes a result (or the objects in it) after recording it:
        replay, whose values are its parsed lines. Verdicts, events, aborts and snapshots
        are the same either way."""
        self.deferred = budget

    def args_hash(self, tool: str, args: Any) -> str:
        """`loopcfg.hashing.args_hash`, remembered for the last few arguments (engine/memo.py)."""
        return self.memo.args_hash(tool, args)

    # -- spooling (replay keeps idle sessions on disk, loopcfg/replay/spool.py) ------------------

    def snapshot(self) -> tuple[EffectiveSettings, tuple[Any, ...]]:
        """The settings and the state of this session as plain picklable values, for
        `LoopDetector.restore`. The settings come apart because they are shared (the caller
        stores a reference to them); the hooks are the detector's; the argument memo is a cache
        and is left out. The state shares objects with the session (its warning keys, guards,
        E8.1 records): pickle it before the session takes another call."""
        with self.lock:
            return self.settings, self._state()

    def dispose(self) -> None:
        """This session will take no more calls (replay spooled it): free its history now,
        instead of at the next full garbage collection."""
        with self.lock:
            self.history.dispose()

    def _state(self) -> tuple[Any, ...]:
        guards = self.guards or None
        return self.calls, self.history.snapshot(), self.warning_buckets or None, guards

    def _set_state(self, settings: EffectiveSettings, state: tuple[Any, ...]) -> None:
        """The inverse of `snapshot` on a fresh session."""
        calls, history, buckets, guards = state
        self.settings = settings
        self.calls = calls
        self.history = History.restore(history)
        if buckets:
            self.warning_buckets = buckets
        if guards:
            self.guards = guards

    # -- the host's calls ----------------------------------------------------------------------

    def check(self, tool: str, args: Any, *, run_id: str | None = None) -> Verdict:
        """The verdict for a call about to run; emitted verdicts also go to subscribers."""
        run = normalise_run_id(run_id)
        if not self.settings.detectors_active:
            with self.lock:
                self.calls += 1
            return NO_VERDICT
        tool = self.names[tool]
        return self._check(tool, args, self.memo.args_hash(tool, args), run)

    def record_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        """The call is about to run: it enters history without an outcome."""
        tool = self.names[tool]
        self._record_call(tool, self.memo.args_hash(tool, args), normalise_run_id(run_id), call_id)

    def record_outcome(
        self,
        tool: str,
        args: Any,
        *,
        result: Any = NO_RESULT,
        error: Any = None,
        run_id: str | None = None,
        call_id: str | None = None,
        args_hash: str | None = None,
    ) -> str | None:
        """Attach the outcome hash to its pending call; raises CompactionLoopPersisted.
        Returns the post-compaction guard's window-closed line when this outcome closed the
        window (E8.1, 09 §9.4.8), else None.

        Without `result` (and `error`) there is no outcome; `result=None` is a JSON null result,
        which OpenClaw hashes (04 §4.4 rule 2). `args_hash`: the `args_hash` of the handle
        `before_call` returned for this very tool and these unchanged arguments, so that they
        are not hashed again (replay keeps it while the result is outstanding)."""
        tool = self.names[tool]
        return self._record_outcome(
            tool, args, args_hash, result, error, normalise_run_id(run_id), call_id
        )

    # The same three steps with the args hash computed once (used by `call`, whose handle
    # records the outcome of exactly the call it checked).

    def _check(self, tool: str, args: Any, h: str, run: str | None) -> Verdict:
        with self.lock:
            self.calls += 1
            if not self.settings.detectors_active:
                return NO_VERDICT
            verdict = self._detect(tool, args, h, run)
            if verdict.level == "none":
                return verdict
            verdict = replace(verdict, emitted=self._should_emit(verdict, run))
            index = self.calls
        if verdict.emitted:
            self._emit(verdict, tool, run, index)
        return verdict

    def _record_call(self, tool: str, h: str, run: str | None, call_id: str | None) -> None:
        record = Record(tool, h, run, call_id)
        with self.lock:
            self.history.append(record)

    def _record_outcome(
        self,
        tool: str,
        args: Any,
        h: str | None,
        result: Any,
        error: Any,
        run: str | None,
        call_id: str | None,
    ) -> str | None:
        result_hash, unknown = outcome_hash(
            tool,
            args,
            result,
            error,
            send_tools=self.hooks.send_tools,
            rules=self.rules,
            defer=self.deferred,
        )
        if result_hash is None:
            return None
        if h is None:
            h = self.memo.args_hash(tool, args)
        with self.lock:
            history = self.history
            record = history.find_pending(run, tool, h, call_id)
            if record is None:
                history.append(Record(tool, h, run, call_id, result_hash, unknown))
            else:
                history.attach(record, result_hash, unknown)
            guard = self.guards.get(run)
            if guard is None:
                return None
            self.guards.move_to_end(run)
            try:
                guard.observe(tool, h, str(result_hash))
            finally:
                if guard.remaining <= 0:  # window over (or aborted): the guard is done
                    del self.guards[run]
        return None

    def forget_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        """Drop a pending call the host vetoed after all (it never ran)."""
        tool = self.names[tool]
        run = normalise_run_id(run_id)
        with self.lock:
            record = self.history.find_pending(run, tool, self.memo.args_hash(tool, args), call_id)
            if record is not None:
                self.history.remove(record)

    def compaction_retry(self, *, run_id: str | None = None) -> None:
        """Arm the post-compaction guard of this run (04 §4.9)."""
        if not self.settings.guard_active:
            return
        run = normalise_run_id(run_id)
        with self.lock:
            # A fresh guard each time: re-arming resets the window, with the current window size.
            self.guards.pop(run, None)
            guard = self.guards[run] = Guard(self.settings.post_compaction_window_size)
            while len(self.guards) > MAX_GUARDS:
                self.guards.popitem(last=False)
            guard.arm()

    def reconfigure(self, settings: EffectiveSettings | Mapping[str, Any]) -> None:
        """Switch to new settings keeping history (06: a config line), trimmed to the new size.

        Warning buckets are kept (same keys, same session); an armed guard finishes the window
        it was armed with, and is dropped if the new settings turn the guard off.
        """
        if not isinstance(settings, EffectiveSettings):
            settings = settings_from_block(settings)
        with self.lock:
            self.settings = settings
            self.history.resize(settings.history_size)
            if not settings.guard_active:
                self.guards.clear()

    def blocked_result(self, verdict: Verdict) -> dict[str, Any]:
        return v.blocked_result(verdict)

    def before_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> CallHandle:
        """`check` and, unless the verdict is critical, `record_call` in one step (04 §4.1).

        The handle carries the verdict; when `handle.blocked`, do not run the tool (hand
        `blocked_result(handle.verdict)` to the model) and record nothing. Otherwise call
        `handle.done(result)` or `handle.failed(error)` when the tool finishes."""
        tool = self.names[tool]
        run = normalise_run_id(run_id)
        h = self.memo.args_hash(tool, args)
        verdict = self._check_and_record(tool, args, h, run, call_id)
        handle = CallHandle(self, tool, args, h, run, call_id, verdict)
        if verdict.level == "critical":
            handle.finished = True  # nothing to record: the call never runs
        return handle

    def _check_and_record(
        self, tool: str, args: Any, h: str, run: str | None, call_id: str | None
    ) -> Verdict:
        """`_check`, then `_record_call` unless the verdict is critical. A call without a
        verdict (nearly every call) is checked and recorded under one hold of the lock: nothing
        is emitted in between, so no subscriber can tell."""
        with self.lock:
            self.calls += 1
            if self.settings.detectors_active:
                verdict = self._detect(tool, args, h, run)
            else:
                verdict = NO_VERDICT
            if verdict.level == "none":
                self.history.append(Record(tool, h, run, call_id))
                return verdict
            verdict = replace(verdict, emitted=self._should_emit(verdict, run))
            index = self.calls
        if verdict.emitted:
            self._emit(verdict, tool, run, index)
        if verdict.level != "critical":
            self._record_call(tool, h, run, call_id)
        return verdict

    def admit_batch(self, calls: Any, *, run_id: str | None = None) -> Any:
        """Batch admission exists from OpenClaw 2026.8.1 on (E8.1, `engine/v4.py`)."""
        raise ValueError(
            f"batch admission (admit_batch) is an E8.1 feature (OpenClaw 2026.8.1+); this "
            f"detector runs {self.hooks.generation.name}: use check/record_call per call"
        )

    @contextmanager
    def call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> Iterator[CallHandle]:
        """Check, refuse (LoopBlocked) on critical, record the call, then its outcome."""
        tool = self.names[tool]
        run = normalise_run_id(run_id)
        h = self.memo.args_hash(tool, args)
        verdict = self._check(tool, args, h, run)
        if verdict.level == "critical":
            raise LoopBlocked(verdict)
        self._record_call(tool, h, run, call_id)
        handle = CallHandle(self, tool, args, h, run, call_id, verdict)
        try:
            yield handle
        except Exception as error:
            if not handle.finished:
                handle.failed(error)
            raise

    # -- detection -----------------------------------------------------------------------------

    def is_poll(self, tool: str, args: Any) -> bool:
        if tool == "command_status" or tool in self.hooks.poll_tools:
            return True
        return tool == "process" and string_action(args) in POLL_ACTIONS

    def _detect(self, tool: str, args: Any, h: str, run_id: str | None) -> Verdict:
        s = self.settings
        run = self.history.runs.get(run_id)
        if run is None:
            return NO_VERDICT
        unknown, unknown_count = History.unknown_tool_streak(run, tool)
        if unknown_count >= s.unknown_tool_threshold:
            return v.unknown_tool(tool, unknown, unknown_count)
        # History.no_progress_streak and .recent_count, the signature looked up once (most
        # calls have none yet).
        sig = run.sigs.get(h)
        latest, streak = (None, 0) if sig is None else (sig.latest, sig.streak)
        if streak >= s.global_circuit_breaker_threshold:
            return v.global_breaker(tool, h, hash_text(latest), streak)
        poll = self.is_poll(tool, args)
        if poll and s.known_poll_no_progress:
            if streak >= s.critical_threshold:
                return v.poll_critical(tool, h, hash_text(latest), streak)
            if streak >= s.warning_threshold:
                return v.poll_warning(tool, h, hash_text(latest), streak)
        if s.ping_pong:
            pong = History.ping_pong(run, h)
            if pong is not None:
                count, evidence, last = pong
                if count >= s.critical_threshold and evidence:
                    return v.ping_pong("critical", h, last.args_hash, count, last.tool)
                if count >= s.warning_threshold:
                    return v.ping_pong("warning", h, last.args_hash, count, last.tool)
        if not poll and s.generic_repeat:
            if streak >= s.critical_threshold and self.generic_critical:
                return v.generic_critical(tool, h, hash_text(latest), streak)
            recent = 0 if sig is None else sig.count
            if recent >= s.warning_threshold:
                return v.generic_warning(tool, h, recent)
        return NO_VERDICT

    def _should_emit(self, verdict: Verdict, run: str | None) -> bool:
        if verdict.level == "critical":
            return True
        key = f"{run}:{verdict.warning_key}" if run is not None else str(verdict.warning_key)
        bucket = verdict.count // max(self.settings.warning_threshold, 1)
        if bucket <= self.warning_buckets.get(key, 0):
            return False
        if key not in self.warning_buckets and len(self.warning_buckets) >= MAX_WARNING_KEYS:
            del self.warning_buckets[next(iter(self.warning_buckets))]
        self.warning_buckets[key] = bucket
        return True

    def _emit(self, verdict: Verdict, tool: str, run: str | None, index: int) -> None:
        assert verdict.detector is not None and verdict.level != "none"
        event = LoopEvent(
            verdict.level,
            verdict.detector,
            tool,
            verdict.count,
            verdict.message,
            run,
            verdict.warning_key,
            index,
            self.key,
        )
        self.hooks.emit(event)


class CallHandle:
    """The outcome half of `session.call(...)`."""

    # One per call (replay makes one for every call it reads): slots, set one by one.
    __slots__ = ("args", "args_hash", "call_id", "finished", "run_id", "session", "tool", "verdict")

    def __init__(
        self,
        session: Session,
        tool: str,
        args: Any,
        args_hash: str,
        run_id: str | None,
        call_id: str | None,
        verdict: Verdict,
    ) -> None:
        self.session = session
        self.tool = tool
        self.args = args
        self.args_hash = args_hash
        self.run_id = run_id
        self.call_id = call_id
        self.verdict = verdict
        self.finished = False

    @property
    def blocked(self) -> bool:
        return self.verdict.level == "critical"

    def done(self, result: Any) -> None:
        """Record the tool's result (raises CompactionLoopPersisted when the guard aborts)."""
        self._finish(result, None)

    def failed(self, error: Any) -> None:
        """Record the tool's error (an exception or a message)."""
        self._finish(None, error)

    def _finish(self, result: Any, error: Any) -> None:
        self.record(result, error)

    def record(self, result: Any = NO_RESULT, error: Any = None) -> str | None:
        """`record_outcome` of exactly this call (its tool, arguments, run and call id as
        `before_call` took them, none normalised or hashed again); returns what
        `record_outcome` returns. Replay records a transcript's results this way."""
        if self.finished:
            raise RuntimeError("this call's outcome is already recorded")
        self.finished = True
        return self.session._record_outcome(
            self.tool, self.args, self.args_hash, result, error, self.run_id, self.call_id
        )
