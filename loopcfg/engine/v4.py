"""Engine generation E8.1 (09 §9.4): OpenClaw 2026.8.1 - 2026.9.6.

Only `enabled` is read; every knob is a constant. History is at most 30 records for the whole
session, so detection rescans the run's records on every check (at most 30: cheaper than keeping
the new streaks incrementally, and it reads as the spec words them). The host-facing methods
(`check`, `record_call`, `record_outcome`, `call`, `before_call`) are `Session`'s; this class
replaces what they drive, and adds batch admission with recovery and run termination (09 §9.4.7).
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from loopcfg.engine import v4_hashing
from loopcfg.engine import verdicts as v
from loopcfg.engine.session import MAX_GUARDS, Hooks, Session, normalise_run_id
from loopcfg.engine.v4_hashing import TERMINAL_EXEC_FAILURE, VETO, V4Outcome
from loopcfg.engine.verdicts import NO_VERDICT, CompactionLoopPersisted, Verdict
from loopcfg.hashing import NO_RESULT
from loopcfg.settings import EffectiveSettings, settings_from_block

HISTORY_SIZE = 30
WARNING = 10
CRITICAL = 20
GLOBAL_BREAKER = 30
UNKNOWN_TOOL = 10
GUARD_WINDOW = 3
GUARD_OBSERVED = 16  # the rolling list of observed calls a guard's baseline is taken from
CHURN_STABLE = 3  # records an argument group needs to be stable
ARGUMENT_CHURN = "argument_churn"

detection_log = logging.getLogger("loopcfg.engine.detection")
guard_log = logging.getLogger("loopcfg.guard")


@dataclass(slots=True)
class V4Record:
    """One history record (09 §9.4.1)."""

    tool: str
    args_hash: str
    call_id: str | None
    run_id: str | None
    result_hash: str | None = None
    kind: str | None = None  # "tool-loop-veto" or "terminal-exec-failure"
    identity: str | None = None  # failureIdentityHash
    no_progress: bool = False
    unknown_tool: str | None = None

    @property
    def veto(self) -> bool:
        return self.kind == VETO

    def settle(self, outcome: V4Outcome) -> None:
        self.result_hash, self.kind = outcome.result_hash, outcome.kind
        self.identity, self.no_progress = outcome.failure_identity, outcome.no_progress
        self.unknown_tool = outcome.unknown_tool


@dataclass(frozen=True, slots=True)
class BatchVerdict:
    """What batch admission decided (09 §9.4.7).

    `verdicts` has one entry per call (calls after the trigger were never evaluated: level
    `none`); when `blocked`, no call of the batch may run and `results` holds the synthetic
    result each call returns to the model instead."""

    tools: tuple[str, ...]  # the normalised names, as the detector judged them
    verdicts: tuple[Verdict, ...]
    blocked: bool = False
    trigger_index: int | None = None
    terminate_run: bool = False
    results: tuple[dict[str, Any], ...] = ()

    @property
    def recovery(self) -> str | None:
        """ "recovery" for a run's first blocked batch, "terminated" for its second."""
        if not self.blocked:
            return None
        return "terminated" if self.terminate_run else "recovery"


@dataclass(slots=True)
class V4Guard:
    """The post-compaction guard of one run (09 §9.4.8)."""

    observed: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=GUARD_OBSERVED))
    remaining: int = 0
    window: dict[tuple[str, str, str], int] = field(default_factory=dict)
    baseline: frozenset[tuple[str, str]] = frozenset()
    calls: int = 0
    repeats: int = 0
    repeat_tools: set[str] = field(default_factory=set)

    def arm(self) -> None:
        self.baseline = frozenset(self.observed)
        self.remaining, self.window, self.calls, self.repeats = GUARD_WINDOW, {}, 0, 0
        self.repeat_tools = set()
        guard_log.info("post-compaction guard armed for %d attempts", GUARD_WINDOW)

    def observe(self, tool: str, args_hash: str, result_hash: str) -> str | None:
        """Returns the window-closed line when this outcome closes the window."""
        self.observed.append((tool, args_hash))
        if self.remaining <= 0:
            return None
        self.remaining -= 1
        self.calls += 1
        if (tool, args_hash) in self.baseline:
            self.repeats += 1
            self.repeat_tools.add(tool)
        entry = (tool, args_hash, result_hash)
        matches = self.window[entry] = self.window.get(entry, 0) + 1
        if matches >= GUARD_WINDOW:
            self.remaining = 0
            guard_log.error(
                "post-compaction loop persisted: tool=%s repeated %d times with identical "
                "args+result post-compaction",
                tool,
                matches,
            )
            raise CompactionLoopPersisted(tool, matches, GUARD_WINDOW)
        if self.remaining > 0:
            return None
        line = (
            f"post-compaction window closed: toolCalls={self.calls} "
            f"preCompactionRepeats={self.repeats}"
        )
        if self.repeats:
            line += " tools=" + ",".join(sorted(self.repeat_tools))
        guard_log.info("%s", line)
        return line


class V4Session(Session):
    """One session under E8.1."""

    def __init__(self, key: str, settings: EffectiveSettings, hooks: Hooks) -> None:
        super().__init__(key, settings, hooks)
        self.records: deque[V4Record] = deque()
        self.v4_guards: OrderedDict[str | None, V4Guard] = OrderedDict()
        # Runs whose critical recovery was used (09 §9.4.7 step 3): the next block ends the run.
        self.critical_seen: set[str | None] = set()

    def __len__(self) -> int:
        return len(self.records)

    def _state(self) -> tuple[Any, ...]:
        guards = self.v4_guards or None
        return Session._state(self), list(self.records), guards, self.critical_seen or None

    def _set_state(self, settings: EffectiveSettings, state: tuple[Any, ...]) -> None:
        base, records, guards, critical_seen = state
        Session._set_state(self, settings, base)
        self.records = deque(records)
        if guards:
            self.v4_guards = guards
        if critical_seen:
            self.critical_seen = critical_seen

    # -- what Session's host methods drive ------------------------------------------------------

    def _check(self, tool: str, args: Any, h: str, run: str | None) -> Verdict:
        """The single-call path (09 §9.4.7 step 6): the host records the blocked result as
        the call's outcome, which appends a loop-veto record."""
        with self.lock:
            self.calls += 1
            if not self.settings.detectors_active:
                return NO_VERDICT
            verdict = self._detect_v4(tool, args, h, self._scoped(run))
            if verdict.level == "none":
                return verdict
            verdict = replace(verdict, emitted=self._should_emit(verdict, run))
            index = self.calls
        if verdict.emitted:
            self._emit(verdict, tool, run, index)
        return verdict

    def _record_call(self, tool: str, h: str, run: str | None, call_id: str | None) -> None:
        with self.lock:
            self._append(V4Record(tool, h, call_id, run))

    def _check_and_record(
        self, tool: str, args: Any, h: str, run: str | None, call_id: str | None
    ) -> Verdict:
        """The two steps one after the other (Session fuses them for its own history)."""
        verdict = self._check(tool, args, h, run)
        if verdict.level != "critical":
            self._record_call(tool, h, run, call_id)
        return verdict

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
        outcome = v4_hashing.outcome(tool, args, result, error, send_tools=self.hooks.send_tools)
        if outcome is None:
            return None
        if h is None:
            h = self.memo.args_hash(tool, args)
        with self.lock:
            record = self._pending(run, tool, h, call_id)
            if record is None:
                record = V4Record(tool, h, call_id, run)
                record.settle(outcome)
                self._append(record)
            else:
                record.settle(outcome)
            if outcome.result_hash is None or not self.settings.guard_active:
                return None
            return self._observe(run, tool, h, outcome.result_hash)

    def _observe(self, run: str | None, tool: str, h: str, result_hash: str) -> str | None:
        return self._guard(run).observe(tool, h, result_hash)

    def _guard(self, run: str | None) -> V4Guard:
        guard = self.v4_guards.get(run)
        if guard is None:
            guard = self.v4_guards[run] = V4Guard()
            while len(self.v4_guards) > MAX_GUARDS:
                self.v4_guards.popitem(last=False)
        else:
            self.v4_guards.move_to_end(run)
        return guard

    def forget_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        tool = self.names[tool]
        run = normalise_run_id(run_id)
        h = self.memo.args_hash(tool, args)
        with self.lock:
            record = self._pending(run, tool, h, call_id)
            if record is not None:
                self.records.remove(record)

    def compaction_retry(self, *, run_id: str | None = None) -> None:
        """Arm the post-compaction guard of this run: window 3, baseline of the last 16 calls."""
        if not self.settings.guard_active:
            return
        with self.lock:
            self._guard(normalise_run_id(run_id)).arm()

    def reconfigure(self, settings: EffectiveSettings | Mapping[str, Any]) -> None:
        """Only `enabled` matters in E8.1; history and guards are kept."""
        if not isinstance(settings, EffectiveSettings):
            settings = settings_from_block(settings)
        with self.lock:
            self.settings = settings

    def new_run(self, run_id: str | None = None) -> None:
        """A new prompt (or a reset) starts: the run's recovery is available again."""
        with self.lock:
            self.critical_seen.discard(normalise_run_id(run_id))

    # -- batches (09 §9.4.7) ---------------------------------------------------------------------

    def admit_batch(
        self, calls: Iterable[Sequence[Any]], *, run_id: str | None = None
    ) -> BatchVerdict:
        """Admit one assistant message's tool calls, `(tool, args[, call_id])` each, as a whole.

        Without a critical verdict every call is recorded as pending, in order (their outcomes
        then attach by call id). With one, nothing runs: the calls with the trigger's argsHash
        get loop-veto records and every call gets a synthetic blocked result."""
        run = normalise_run_id(run_id)
        batch = [self._batch_call(call) for call in calls]
        tools = tuple(tool for tool, _, _, _ in batch)
        with self.lock:
            first = self.calls + 1
            self.calls += len(batch)
            if not self.settings.detectors_active:
                for tool, _, h, call_id in batch:
                    self._append(V4Record(tool, h, call_id, run))
                return BatchVerdict(tools, tuple(NO_VERDICT for _ in batch))
            verdicts, emitted = self._evaluate(batch, run, first)
            trigger = next((i for i, x in enumerate(verdicts) if x.level == "critical"), None)
            # A blank name normalises to "" and is recorded so; the evaluation falls back to
            # "tool" a second time (recorded from 2026.9.6, docs/conformance-engine.md).
            judged = len(batch) if trigger is None else trigger + 1
            tools = tuple(
                (tool or "tool") if index < judged else tool for index, tool in enumerate(tools)
            )
            if trigger is None:
                for tool, _, h, call_id in batch:
                    self._append(V4Record(tool, h, call_id, run))
                outcome = BatchVerdict(tools, tuple(verdicts))
            else:
                outcome = replace(self._block(batch, verdicts, trigger, run), tools=tools)
        for verdict, tool, index in emitted:
            self._emit(verdict, tool, run, index)
        return outcome

    def _batch_call(self, call: Sequence[Any]) -> tuple[str, Any, str, str | None]:
        tool = self.names[call[0]]
        args = call[1] if len(call) > 1 else {}
        call_id = call[2] if len(call) > 2 else None
        return tool, args, self.memo.args_hash(tool, args), call_id

    def _evaluate(
        self, batch: list[tuple[str, Any, str, str | None]], run: str | None, first: int
    ) -> tuple[list[Verdict], list[tuple[Verdict, str, int]]]:
        """Each call against the history projected with the batch's earlier calls as pending
        vetoes; stops at the first critical. Warnings consume their bucket now."""
        projected = self._scoped(run)
        verdicts: list[Verdict] = []
        emitted: list[tuple[Verdict, str, int]] = []
        for offset, (tool, args, h, call_id) in enumerate(batch):
            judged, judged_hash = (tool, h) if tool else ("tool", self.memo.args_hash("tool", args))
            verdict = self._detect_v4(judged, args, judged_hash, projected)
            if verdict.level != "none":
                verdict = replace(verdict, emitted=self._should_emit(verdict, run))
                if verdict.emitted:
                    emitted.append((verdict, judged, first + offset))
            verdicts.append(verdict)
            if verdict.level == "critical":
                break
            projected.append(V4Record(tool, h, call_id, run, kind=VETO))
        verdicts += [NO_VERDICT] * (len(batch) - len(verdicts))
        return verdicts, emitted

    def _block(
        self,
        batch: list[tuple[str, Any, str, str | None]],
        verdicts: list[Verdict],
        trigger: int,
        run: str | None,
    ) -> BatchVerdict:
        cause = verdicts[trigger]
        terminate = run in self.critical_seen
        self.critical_seen.add(run)
        trigger_hash = batch[trigger][2]
        results = []
        for index, (tool, _, h, call_id) in enumerate(batch):
            if h == trigger_hash:
                self._append(V4Record(tool, h, call_id, run, kind=VETO))
            results.append(_intervention(cause, tool, h, call_id, index == trigger, terminate))
        return BatchVerdict(
            tuple(tool for tool, _, _, _ in batch),
            tuple(verdicts),
            True,
            trigger,
            terminate,
            tuple(results),
        )

    # -- history ---------------------------------------------------------------------------------

    def _append(self, record: V4Record) -> None:
        self.records.append(record)
        while len(self.records) > HISTORY_SIZE:
            self.records.popleft()

    def _scoped(self, run: str | None) -> list[V4Record]:
        return [record for record in self.records if record.run_id == run]

    def _pending(self, run: str | None, tool: str, h: str, call_id: str | None) -> V4Record | None:
        for record in reversed(self.records):
            if (
                record.run_id == run
                and record.tool == tool
                and record.args_hash == h
                and record.result_hash is None
                and record.kind is None
                and (call_id is None or record.call_id == call_id)
            ):
                return record
        return None

    # -- detection (09 §9.4.4-§9.4.5) ------------------------------------------------------------

    def _detect_v4(self, tool: str, args: Any, h: str, history: list[V4Record]) -> Verdict:
        if not history:
            return NO_VERDICT
        unknown, unknown_count = unknown_tool_streak(history, tool)
        if unknown_count >= UNKNOWN_TOOL:
            return v.unknown_tool(tool, unknown, unknown_count)
        latest, count = repeated_args_streak(history, tool, h)
        if tool == "exec":
            exec_latest, exec_count = terminal_failure_streak(history, h)
            if exec_count > count:
                latest, count = exec_latest, exec_count
        if count >= GLOBAL_BREAKER:
            detection_log.error(
                "Global circuit breaker triggered: %s repeated %d times with no progress",
                tool,
                count,
            )
            return v.v4_global_breaker(tool, h, latest, count)
        poll = self.is_poll(tool, args)
        if poll and count >= CRITICAL:
            detection_log.error("Critical polling loop detected: %s repeated %d times", tool, count)
            return v.poll_critical(tool, h, latest, count)
        if poll and count >= WARNING:
            detection_log.warning("Polling loop warning: %s repeated %d times", tool, count)
            return self._liveness(v.poll_warning(tool, h, latest, count), history, tool, h)
        pong = ping_pong(history, h)
        if pong is not None:
            verdict = self._ping_pong(pong, tool, h, history)
            if verdict is not None:
                return verdict
        if not poll and count >= CRITICAL:
            detection_log.error("Critical generic loop detected: %s repeated %d times", tool, count)
            return v.v4_generic_critical(tool, h, latest, count)
        churn, patterns = argument_churn(history, tool, h)
        if churn >= WARNING:
            detection_log.warning(
                "Argument churn warning: %s cycled through stable argument patterns", tool
            )
            return v.argument_churn(tool, patterns, churn)
        recent = sum(1 for r in history if r.tool == tool and r.args_hash == h)
        if not poll and recent >= WARNING:
            detection_log.warning(
                "Loop warning: %s called %d times with identical arguments", tool, recent
            )
            return v.generic_warning(tool, h, recent)
        return NO_VERDICT

    def _ping_pong(
        self, pong: tuple[int, bool, V4Record], tool: str, h: str, history: list[V4Record]
    ) -> Verdict | None:
        count, evidence, last = pong
        if count >= CRITICAL and evidence:
            detection_log.error(
                "Critical ping-pong loop detected: alternating calls count=%d currentTool=%s",
                count,
                tool,
            )
            return v.ping_pong("critical", h, last.args_hash, count, last.tool)
        if count >= WARNING:
            detection_log.warning(
                "Ping-pong loop warning: alternating calls count=%d currentTool=%s", count, tool
            )
            verdict = v.ping_pong("warning", h, last.args_hash, count, last.tool)
            return self._liveness(verdict, history, tool, h)
        return None

    @staticmethod
    def _liveness(verdict: Verdict, history: list[V4Record], tool: str, h: str) -> Verdict:
        if argument_churn(history, tool, h)[0] >= WARNING:
            return replace(verdict, liveness_signal=ARGUMENT_CHURN)
        return verdict

    def _should_emit(self, verdict: Verdict, run: str | None) -> bool:
        """OpenClaw's rule exactly: bucket count // 10 (09 §9.4.6)."""
        if verdict.level == "critical":
            return True
        key = f"{run}:{verdict.warning_key}" if run is not None else str(verdict.warning_key)
        bucket = verdict.count // WARNING
        if bucket <= self.warning_buckets.get(key, 0):
            return False
        if key not in self.warning_buckets and len(self.warning_buckets) >= 256:
            del self.warning_buckets[next(iter(self.warning_buckets))]
        self.warning_buckets[key] = bucket
        return True


def _intervention(
    cause: Verdict, tool: str, h: str, call_id: str | None, trigger: bool, terminate: bool
) -> dict[str, Any]:
    """The synthetic result of one call of a blocked batch (09 §9.4.7 steps 2-3)."""
    if trigger:
        text = cause.message + (v.TERMINATE_TRIGGER_NOTE if terminate else v.RECOVERY_TRIGGER_NOTE)
    else:
        text = v.TERMINATE_OTHER_TEXT if terminate else v.RECOVERY_OTHER_TEXT
    details: dict[str, Any] = {
        "status": "blocked",
        "deniedReason": "tool-loop",
        "intervention": {
            "kind": "critical-tool-loop",
            "toolCallId": call_id,
            "toolName": tool,
            "actionKey": h,
            "detector": cause.detector,
            "count": cause.count,
            "reason": cause.message,
        },
    }
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "details": details}
    if terminate:
        result["terminate"] = True
    return result


# -- streaks over the run-scoped history, newest first (09 §9.4.4) -------------------------------


def unknown_tool_streak(history: list[V4Record], tool: str) -> tuple[str | None, int]:
    last = history[-1]
    if last.tool != tool or last.unknown_tool is None:
        return None, 0
    count = 0
    for record in reversed(history):
        if record.tool != tool or record.unknown_tool != last.unknown_tool:
            break
        count += 1
    return last.unknown_tool, count


def repeated_args_streak(history: list[V4Record], tool: str, h: str) -> tuple[str | None, int]:
    """Loop-veto records count as pending; each hashed record adds the pending ones plus one."""
    latest: str | None = None
    count = pending = 0
    for record in reversed(history):
        if record.tool != tool or record.args_hash != h:
            continue
        if record.veto:
            pending += 1
            continue
        if record.result_hash is None:
            continue
        if latest is None:
            latest = record.result_hash
        elif record.result_hash != latest:
            break
        count += pending + 1
        pending = 0
    return (latest, count) if latest is not None else (None, pending)


def terminal_failure_streak(history: list[V4Record], h: str) -> tuple[str | None, int]:
    """Consecutive `exec` terminal failures with one identity, whatever their arguments."""
    latest: V4Record | None = None
    count = pending = 0
    other_args = False
    for record in reversed(history):
        if record.tool != "exec":
            break
        if record.veto:
            pending += 1
            continue
        if record.result_hash is None:
            continue
        if record.kind != TERMINAL_EXEC_FAILURE:
            break
        if latest is None:
            latest, count, pending = record, pending + 1, 0
            other_args = record.args_hash != h
            continue
        if record.args_hash == h and other_args:
            break
        if record.result_hash != latest.result_hash and (
            record.identity is None or record.identity != latest.identity
        ):
            break
        count += pending + 1
        pending = 0
        other_args = other_args or record.args_hash != h
    return (latest.result_hash, count) if latest is not None else (None, 0)


def argument_churn(history: list[V4Record], tool: str, h: str) -> tuple[int, int]:
    """(records, stable groups) when the tool cycles through stable no-progress argument
    patterns that share one outcome, else (0, 0)."""
    groups: dict[str, list[Any]] = {}
    total = 0
    for record in reversed(history):
        if record.tool != tool:
            break
        if record.result_hash is None:
            continue
        if not record.no_progress:
            break
        group = groups.get(record.args_hash)
        if group is None:
            groups[record.args_hash] = [record.result_hash, 1]
        elif group[0] != record.result_hash:
            break
        else:
            group[1] += 1
        total += 1
    stable = [group for group in groups.values() if group[1] >= CHURN_STABLE]
    if (
        len(stable) >= 2
        and len(stable) == len(groups)
        and len({group[0] for group in stable}) == 1
        and h in groups
        and groups[h][1] >= CHURN_STABLE
    ):
        return total, len(stable)
    return 0, 0


def ping_pong(history: list[V4Record], h: str) -> tuple[int, bool, V4Record] | None:
    """04 §4.5's ping-pong over E8.1 records (veto records count, and have no hash)."""
    last = history[-1]
    other = next(
        (r.args_hash for r in reversed(history[:-1]) if r.args_hash != last.args_hash), None
    )
    if other is None or h != other:
        return None
    tail = 0
    for offset, record in enumerate(reversed(history)):
        if record.args_hash != (last.args_hash if offset % 2 == 0 else other):
            break
        tail += 1
    if tail < 2:
        return None
    records = history[-tail:]
    sides = {
        side: {r.result_hash for r in records if r.args_hash == side}
        for side in (last.args_hash, other)
    }
    evidence = all(r.result_hash is not None for r in records) and all(
        len(hashes) == 1 for hashes in sides.values()
    )
    return tail + 1, evidence, last


__all__ = ["NO_RESULT", "BatchVerdict", "V4Guard", "V4Record", "V4Session"]
