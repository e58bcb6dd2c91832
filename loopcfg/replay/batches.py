"""Replaying on an E8.1 target (09 §9.4.7, 06 §6.3.1): batches, recovery, run termination.

`group_batches` turns the reader's calls into `Batch` events (an assistant message's calls, a
trace's consecutive lines with one `batch` value, else one call each); the runner hands each to
`replay_batch`, which admits it as a whole and reports every call (README decision 4).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from loopcfg.engine.verdicts import RUN_TERMINATED_CODE, RUN_TERMINATED_MESSAGE
from loopcfg.replay.events import Batch, Call, Event, Outcome
from loopcfg.replay.runner import ReplayAbort, ReplayEvent

if TYPE_CHECKING:
    from loopcfg.replay.runner import _Live, _Replayer

GUARD_DETECTOR = "post_compaction_guard"


def group_batches(events: Iterable[Event]) -> Iterator[Event]:
    """Calls as batches: consecutive calls of one session, run and non-null `batch` value."""
    pending: list[Call] = []
    for event in events:
        if isinstance(event, Call):
            if pending and not _same_batch(pending[-1], event):
                yield Batch(tuple(pending))
                pending = []
            pending.append(event)
            continue
        if pending:
            yield Batch(tuple(pending))
            pending = []
        yield event
    if pending:
        yield Batch(tuple(pending))


def _same_batch(a: Call, b: Call) -> bool:
    return a.batch is not None and (a.session, a.run, a.batch) == (b.session, b.run, b.batch)


def replay_batch(replayer: _Replayer, batch: Batch) -> None:
    calls = batch.calls
    live = replayer.session(batch.session)
    stats = live.stats
    run = calls[0].run
    for call in calls:
        if call.call_id is not None and call.outcome is None:
            live.call_runs.remember(call.call_id, call.run)
    if live.in_aborted_run(run):
        stats.skipped += len(calls)
        return
    first = stats.calls + 1
    stats.calls += len(calls)
    admitted = live.engine.admit_batch(  # type: ignore[attr-defined]
        [(call.tool, call.args, call.call_id) for call in calls], run_id=run
    )
    for offset, (call, verdict) in enumerate(zip(calls, admitted.verdicts, strict=True)):
        if verdict.level == "none" and not admitted.blocked:
            continue
        trigger = admitted.trigger_index == offset
        event = _event(replayer, call, first + offset, verdict, admitted.blocked, trigger)
        event.recovery = admitted.recovery
        replayer.tally(live, call.line, first + offset, verdict.level, verdict.emitted)
        replayer.found(live, event)
    if not admitted.blocked:
        for call in calls:
            if call.outcome is not None:
                replayer.outcome(live, call.outcome, inline=True)
        return
    for call in calls:  # they never ran: their results (vetoes) are not recorded
        if call.call_id is not None:
            live.blocked.remember(call.call_id, True)
    if admitted.terminate_run:
        _terminate(replayer, live, calls[admitted.trigger_index], admitted)


def _event(
    replayer: _Replayer, call: Call, index: int, verdict: Any, blocked: bool, trigger: bool
) -> ReplayEvent:
    level = verdict.level
    return ReplayEvent(
        call.file,
        call.line,
        call.session,
        call.run,
        index,
        call.tool,
        level,
        verdict.detector,
        verdict.count,
        verdict.message,
        verdict.warning_key,
        bool(verdict.emitted) if level != "none" else False,
        args=call.args if replayer.keep_args else None,
        batch=call.batch,
        blocked=blocked,
        trigger=trigger,
    )


def _terminate(replayer: _Replayer, live: _Live, trigger: Call, admitted: Any) -> None:
    """A second critical in one run ends it: the rest of the run is skipped (09 §9.4.7)."""
    live.aborted_runs.add(trigger.run)
    live.stats.aborted = True
    cause = admitted.verdicts[admitted.trigger_index]
    replayer.result.aborted = True
    replayer.found(
        live,
        ReplayAbort(
            trigger.file,
            trigger.line,
            trigger.session,
            trigger.run,
            trigger.tool,
            cause.count,
            RUN_TERMINATED_CODE,
            RUN_TERMINATED_MESSAGE,
        ),
    )


def guard_note(
    replayer: _Replayer, live: _Live, outcome: Outcome, run: str | None, note: str
) -> None:
    """E8.1's post-compaction window-closed line, as an info event (decision 4)."""
    replayer.found(
        live,
        ReplayEvent(
            outcome.file,
            outcome.line,
            outcome.session,
            run,
            live.stats.calls,
            outcome.tool,
            "info",
            GUARD_DETECTOR,
            0,
            note,
            None,
            True,
        ),
    )
