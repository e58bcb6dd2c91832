"""Renderers for replay results: text (timeline + summary table) and JSON (06 §6.3).

Both are streaming sinks of the runner (`ReplaySink`): they write what the runner finds as it
finds it and spool what comes later in the output (aborts and sessions in JSON, the summary
table in text) to a temporary file, so memory never grows with the number of events or
sessions (Decision 8). Tool arguments are never shown unless `show_args` (real transcripts hold
personal data).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, TextIO

from loopcfg.render import json_text, not_a_workflow_command, printable
from loopcfg.replay.events import Malformed
from loopcfg.replay.runner import FileReplay, ReplayAbort, ReplayEvent, SessionStats

if TYPE_CHECKING:
    from loopcfg.replay.compare import Comparison, SessionDiff
    from loopcfg.replay.stats import SessionProbe

JSON_VERSION = 1
ProblemSink = Callable[[Malformed], None]


def _with_seq(value: dict[str, Any], line: int) -> dict[str, Any]:
    value["seq"] = line - 1
    return value


def event_json(event: ReplayEvent, show_args: bool) -> dict[str, Any]:
    value: dict[str, Any] = {
        "file": event.file,
        "line": event.line,
        "session": event.session,
        "run": event.run,
        "runId": event.run_id,
        "call": event.call,
        "tool": event.tool,
        "level": event.level,
        "detector": event.detector,
        "count": event.count,
        "message": event.message,
        "key": event.key,
        "emitted": event.emitted,
    }
    if event.blocked is not None:  # an E8.1 target (06 §6.3.1)
        value.update(
            batch=event.batch, blocked=event.blocked, trigger=event.trigger, recovery=event.recovery
        )
    if show_args:
        value["args"] = event.args
    return value


def abort_json(abort: ReplayAbort) -> dict[str, Any]:
    return {
        "file": abort.file,
        "line": abort.line,
        "session": abort.session,
        "run": abort.run,
        "runId": abort.run_id,
        "tool": abort.tool,
        "count": abort.count,
        "code": abort.code,
        "message": abort.message,
    }


def session_json(stats: SessionStats) -> dict[str, Any]:
    value: dict[str, Any] = {
        "file": stats.file,
        "session": stats.session,
        "calls": stats.calls,
        "skipped": stats.skipped,
        "warnings": stats.warnings,
        "blocks": stats.blocks,
        "firstBlockLine": stats.first_block_line,
        "aborted": stats.aborted,
        "orphanResults": stats.orphan_results,
    } | _store_session_json(stats)
    if stats.probe is not None:
        value["stats"] = stats_json(stats.probe)
    return value


def _store_session_json(stats: SessionStats) -> dict[str, Any]:
    """The fields only a session read from a store has (10.5); JSONL and traces get none."""
    if stats.source != "sqlite":
        return {}
    first = stats.first_block_line
    return {
        "source": stats.source,
        "agent": stats.agent,
        "sessionKey": stats.session_key,
        "firstBlockSeq": first - 1 if first is not None else None,
        "incomplete": stats.incomplete,
    }


def stats_json(probe: SessionProbe) -> list[dict[str, Any]]:
    """06 §6.3.1 `stats`: one entry per tool, by tool name."""
    return [
        {
            "tool": row.tool,
            "maxIdenticalCalls": row.max_identical,
            "maxNoProgress": row.max_no_progress,
            "maxPingPong": row.max_ping_pong,
            "detectorPeak": dict(sorted(row.detector_peak.items())),
        }
        for row in probe.rows()
    ]


def _ignore_problem(problem: Malformed) -> None:
    """Problems go to stderr through the command; a renderer used alone drops them."""


def _spool() -> IO[str]:
    return tempfile.TemporaryFile("w+", encoding="utf-8", newline="")


class JsonStream:
    """06 §6.3's document written as it is found: the events stream straight out; aborts and
    sessions (which come after them in the document) wait in temporary files. The bytes are
    exactly `json_text(document)`'s."""

    def __init__(
        self,
        out: TextIO,
        *,
        show_args: bool = False,
        on_problem: ProblemSink = _ignore_problem,
        openclaw: dict[str, str | None] | None = None,
    ) -> None:
        self.out = out
        self.show_args = show_args
        # The target release and its engine, once, after the version (06 §6.3.1).
        self.openclaw = openclaw
        self.problem = on_problem
        self.aborts = _spool()
        self.sessions = _spool()
        self.counts = {"events": 0, "aborts": 0, "sessions": 0}
        self.started = False
        # Sessions alive that come from a store: their events and aborts also carry `seq`.
        self.stored: set[tuple[str, str]] = set()

    def session_start(self, stats: SessionStats) -> None:
        if stats.source == "sqlite":
            self.stored.add((stats.file, stats.session))

    def _positioned(self, value: dict[str, Any], item: ReplayEvent | ReplayAbort) -> dict[str, Any]:
        return _with_seq(value, item.line) if (item.file, item.session) in self.stored else value

    def _start(self) -> None:
        """The document's head, written with the first event (or at the end): a replay that
        reads nothing at all writes nothing to stdout."""
        if not self.started:
            self.started = True
            self.out.write(f'{{\n  "version": {JSON_VERSION},\n')
            if self.openclaw is not None:
                header = json_text(self.openclaw).replace("\n", "\n  ")
                self.out.write(f'  "openclaw": {header},\n')
            self.out.write('  "events": [')

    def _item(self, stream: IO[str] | TextIO, kind: str, value: dict[str, Any]) -> None:
        separator = ",\n" if self.counts[kind] else "\n"
        self.counts[kind] += 1
        body = json_text(value).replace("\n", "\n    ")
        stream.write(f"{separator}    {body}")

    def event(self, event: ReplayEvent) -> None:
        self._start()
        self._item(self.out, "events", self._positioned(event_json(event, self.show_args), event))

    def abort(self, abort: ReplayAbort) -> None:
        self._item(self.aborts, "aborts", self._positioned(abort_json(abort), abort))

    def session_end(self, stats: SessionStats) -> None:
        self.stored.discard((stats.file, stats.session))
        self._item(self.sessions, "sessions", session_json(stats))

    def finish(self) -> None:
        self._start()
        self._close_list("events")
        for kind, spool in (("aborts", self.aborts), ("sessions", self.sessions)):
            self.out.write(f',\n  "{kind}": [')
            spool.seek(0)
            shutil.copyfileobj(spool, self.out)
            spool.close()
            self._close_list(kind)
        self.out.write("\n}\n")

    def _close_list(self, kind: str) -> None:
        self.out.write("\n  ]" if self.counts[kind] else "]")


def render_json(
    results: Sequence[FileReplay],
    *,
    show_args: bool = False,
    openclaw: dict[str, str | None] | None = None,
) -> str:
    """The whole document of kept results (for --compare, tests and library callers)."""
    import io

    out = io.StringIO()
    stream = JsonStream(out, show_args=show_args, openclaw=openclaw)
    for result in results:
        result.feed(stream)
    stream.finish()
    return out.getvalue()


def _joined(lines: Sequence[str]) -> str:
    """The output lines, each kept one printable line: session ids, tool names and arguments
    come from the recorded files and may hold line breaks, escape sequences or lone surrogates."""
    return "".join(_line(line) for line in lines)


def _line(line: str) -> str:
    return not_a_workflow_command(printable(line)) + "\n"


@dataclass(slots=True)
class Group:
    """Consecutive calls of one session with the same verdict, shown as one line."""

    first: ReplayEvent
    last: ReplayEvent
    size: int = 1

    def continues(self, event: ReplayEvent) -> bool:
        last = self.last
        return event.call == last.call + 1 and _verdict_key(event) == _verdict_key(last)


def _verdict_key(event: ReplayEvent) -> tuple[Any, ...]:
    return (event.session, event.run, event.tool, event.level, event.detector, event.count)


@dataclass(slots=True)
class _TextSession:
    """What the text timeline holds for one session alive: one open group and its aborts."""

    group: Group | None = None
    shown: bool = False
    aborts: list[ReplayAbort] = field(default_factory=list)
    header: str | None = None
    unit: str = "line"
    shift: int = 0


class TextStream:
    """The text timeline written as it is found, then the summary table (spooled rows).

    A session's lines come under its header; when another session's lines come in between
    (sessions interleaved in one trace), the header is repeated. A session's first block, guard
    aborts and --stats line close its block at the end of its file."""

    def __init__(
        self,
        out: TextIO,
        *,
        show_args: bool = False,
        on_problem: ProblemSink = _ignore_problem,
    ) -> None:
        self.out = out
        self.show_args = show_args
        self.problem = on_problem
        self.alive: dict[tuple[str, str], _TextSession] = {}
        self.current: tuple[str, str] | None = None
        self.rows = _spool()
        self.summary = _Summary()

    def _write(self, line: str) -> None:
        self.out.write(_line(line))

    def session_start(self, stats: SessionStats) -> None:
        # A file's session needs no state until it has a line to show (its header and
        # positions follow from the event): a trace may interleave a million sessions.
        if stats.source == "sqlite":
            state = self._state(stats.file, stats.session)
            state.header = _timeline_header(stats)
            state.unit, state.shift = _positions(stats)

    # A session the runner spools takes its open line with it (runner.SpoolingSink), so the
    # timeline holds nothing for the sessions on disk.
    def suspend_session(self, stats: SessionStats) -> _TextSession | None:
        return self.alive.pop((stats.file, stats.session), None)

    def resume_session(self, stats: SessionStats, state: _TextSession | None) -> None:
        if state is not None:
            self.alive[(stats.file, stats.session)] = state

    def _under(self, file: str, session: str, state: _TextSession) -> None:
        """Make the next line appear under this session's header."""
        key = (file, session)
        if self.current == key:
            return
        if self.current is not None:
            self._write("")
        self._write(state.header or f"{file} · session {session}")
        self.current = key

    def _state(self, file: str, session: str) -> _TextSession:
        state = self.alive.get((file, session))
        if state is None:
            state = self.alive[(file, session)] = _TextSession()
        return state

    def _flush(self, event_file: str, session: str, state: _TextSession) -> None:
        group, state.group = state.group, None
        if group is not None:
            self._under(event_file, session, state)
            line = group_line(
                group.first,
                group.last,
                group.size,
                self.show_args,
                unit=state.unit,
                shift=state.shift,
            )
            self._write("  " + line)
            state.shown = True

    def event(self, event: ReplayEvent) -> None:
        if not event.emitted:
            return
        state = self._state(event.file, event.session)
        group = state.group
        if group is not None and not self.show_args and group.continues(event):
            group.last = event
            group.size += 1
            return
        self._flush(event.file, event.session, state)
        state.group = Group(event, event)

    def abort(self, abort: ReplayAbort) -> None:
        self._state(abort.file, abort.session).aborts.append(abort)

    def session_end(self, stats: SessionStats) -> None:
        state = self.alive.pop((stats.file, stats.session), None) or _TextSession()
        self._flush(stats.file, stats.session, state)
        self._under(stats.file, stats.session, state)
        unit, shift = _positions(stats)
        if not state.shown and not state.aborts:
            noun = "call" if stats.calls == 1 else "calls"
            self._write(f"  {stats.calls} {noun}, nothing detected")
        if stats.first_block_call is not None and stats.first_block_line is not None:
            where = f"{unit} {stats.first_block_line - shift}"
            self._write(f"  first block: call #{stats.first_block_call} ({where})")
        for abort in state.aborts:
            self._write("  " + abort_line(abort, unit, shift))
        if stats.probe is not None:
            closest = stats.probe.closest
            self._write("  " + (closest.sentence() if closest else "closest: nothing counted"))
        self._write("")
        self.current = None
        self.summary.add(stats)
        self.rows.write(json.dumps(summary_row(stats)) + "\n")

    def finish(self) -> None:
        self.rows.seek(0)
        rows = (tuple(json.loads(line)) for line in self.rows)
        for line in self.summary.table(rows):
            self._write(line)
        self.rows.close()


def render_text(results: Sequence[FileReplay], *, show_args: bool = False) -> str:
    """The whole text output of kept results (for tests and library callers)."""
    import io

    out = io.StringIO()
    stream = TextStream(out, show_args=show_args)
    for result in results:
        result.feed(stream)
    stream.finish()
    return out.getvalue()


def abort_line(abort: ReplayAbort, unit: str = "line", shift: int = 0) -> str:
    run = f" in {_run_label(abort.run, abort.run_id)}" if abort.run else ""
    rest = "that run" if abort.run else "the session"
    what = "run terminated" if abort.code == "run_terminated" else "guard abort"
    return (
        f"{what}: {unit} {abort.line - shift}, {abort.tool} ×{abort.count}{run}"
        f" ({abort.code}); the rest of {rest} is skipped"
    )


def _positions(stats: SessionStats) -> tuple[str, int]:
    """(unit, shift): a store session says `seq S` where S = line - 1 (Decision 8)."""
    return ("seq", 1) if stats.source == "sqlite" else ("line", 0)


def _timeline_header(stats: SessionStats) -> str:
    """`<file> · session <id>`; a store session also names its key, and its agent when the
    key does not (10.5)."""
    if stats.source != "sqlite":
        return f"{stats.file} · session {stats.session}"
    parts = [stats.file]
    key = stats.session_key
    if stats.agent is not None and not (key or "").startswith(f"agent:{stats.agent}:"):
        parts.append(f"agent {stats.agent}")
    if key is not None:
        parts.append(key)
    parts.append(f"session {stats.session}")
    return " · ".join(parts)


def collapse(events: Sequence[ReplayEvent], *, keep_apart: bool = False) -> list[list[ReplayEvent]]:
    """Consecutive calls with the same verdict (a sticky block: every retry blocked again) as
    one group, so a timeline stays short; `keep_apart` keeps one event per group."""
    groups: list[list[ReplayEvent]] = []
    for event in events:
        last = groups[-1][-1] if groups else None
        if (
            not keep_apart
            and last is not None
            and event.call == last.call + 1
            and _verdict_key(event) == _verdict_key(last)
        ):
            groups[-1].append(event)
        else:
            groups.append([event])
    return groups


def event_line(
    group: Sequence[ReplayEvent], show_args: bool = False, *, unit: str = "line", shift: int = 0
) -> str:
    return group_line(group[0], group[-1], len(group), show_args, unit=unit, shift=shift)


def group_line(
    first: ReplayEvent,
    last: ReplayEvent,
    size: int,
    show_args: bool = False,
    *,
    unit: str = "line",
    shift: int = 0,
) -> str:
    """`call #N line L tool level detector ×count [run]`, or a range for a collapsed group;
    a store session says `seq S` (`unit`, with `shift` = line - seq)."""
    calls = f"#{first.call}" if size == 1 else f"#{first.call}-#{last.call}"
    start, end = first.line - shift, last.line - shift
    where = f"{start}" if size == 1 else f"{start}-{end}"
    run = f" [{_run_label(first.run, first.run_id)}]" if first.run else ""
    times = f" ({size} calls)" if size > 1 else ""
    args = f" args={json_text(first.args, indent=None)}" if show_args else ""
    return (
        f"call {calls:<8} {unit} {where:<8} {first.tool:<16} "
        f"{first.level:<8} {first.detector or '-'} ×{first.count}{run}{times}{args}"
    )


def _run_label(run: str | None, run_id: str | None) -> str:
    return f"{run} = {run_id}" if run_id else str(run)


SUMMARY_HEADER = ("session", "calls", "skipped", "warnings", "blocks", "first block", "aborted")


def summary_name(stats: SessionStats) -> str:
    """Decision 8: `<file>::<session>`; a store session `<store>::<sessionKey or id>@<first 8
    of the id>`."""
    if stats.source == "sqlite":
        name = f"{stats.file}::{stats.session_key or stats.session}@{stats.session[:8]}"
        return f"{name} (incomplete)" if stats.incomplete else name
    return stats.name


def summary_row(s: SessionStats) -> tuple[str, ...]:
    return (
        summary_name(s),
        str(s.calls),
        str(s.skipped),
        str(s.warnings),
        str(s.blocks),
        f"#{s.first_block_call}" if s.first_block_call is not None else "-",
        "yes" if s.aborted else "no",
    )


class _Summary:
    """Totals and column widths of the summary table, kept as rows pass by."""

    def __init__(self) -> None:
        self.sessions = self.calls = self.skipped = self.warnings = self.blocks = 0
        self.aborted = 0
        self.widths = [len(cell) for cell in SUMMARY_HEADER]

    def add(self, s: SessionStats) -> None:
        self.sessions += 1
        self.calls += s.calls
        self.skipped += s.skipped
        self.warnings += s.warnings
        self.blocks += s.blocks
        self.aborted += s.aborted
        self._widen(summary_row(s))

    def _widen(self, row: Sequence[str]) -> None:
        self.widths = [max(w, len(cell)) for w, cell in zip(self.widths, row, strict=True)]

    def total(self) -> tuple[str, ...]:
        noun = "session" if self.sessions == 1 else "sessions"
        return (
            f"total ({self.sessions} {noun})",
            str(self.calls),
            str(self.skipped),
            str(self.warnings),
            str(self.blocks),
            "-",
            str(self.aborted),
        )

    def table(self, rows: Iterator[tuple[str, ...]]) -> Iterator[str]:
        total = self.total()
        self._widen(total)
        yield self._fmt(SUMMARY_HEADER)
        for row in rows:
            yield self._fmt(row)
        yield self._fmt(total)

    def _fmt(self, row: Sequence[str]) -> str:
        widths = self.widths
        first = row[0].ljust(widths[0])
        rest = "  ".join(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))
        return f"{first}  {rest}".rstrip()


# -- --compare ------------------------------------------------------------------------------


def _value(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def render_compare_text(comparison: Comparison) -> str:
    """Per differing session: the events only one side has, then what changes, in words."""
    a, b = comparison.label_a, comparison.label_b
    lines = [f"comparing a = {a} with b = {b}"]
    if comparison.settings:
        changed = ", ".join(
            f"{name} {_value(left)} -> {_value(right)}" for name, left, right in comparison.settings
        )
        lines.append(f"settings that differ: {changed}")
    else:
        lines.append("settings that differ: none for the replayed agent")
    lines.append("")
    for diff in comparison.sessions:
        if diff.changed:
            lines.extend(_session_diff(diff, a, b))
    lines.extend(_compare_summary(comparison))
    return _joined(lines)


def _session_diff(diff: SessionDiff, label_a: str, label_b: str) -> list[str]:
    lines = [_timeline_header(diff.a)]
    unit, shift = ("seq", 1) if diff.a.source == "sqlite" else ("line", 0)
    for side, events in (("a", diff.only_a), ("b", diff.only_b)):
        for group in collapse(events):
            lines.append(f"  only {side}: {event_line(group, unit=unit, shift=shift)}")
    for change in diff.changes:
        lines.append(f"  {change.sentence(label_a, label_b)}")
    lines.append("")
    return lines


_SUMMARY = {
    "gains a block": "would gain a block (none with {a}): a false block unless really stuck",
    "blocked earlier": "would be blocked earlier",
    "blocked later": "would be blocked later",
    "loses its block": "would no longer be blocked",
    "gains an abort": "would gain a guard abort",
    "aborts elsewhere": "would be aborted at another line",
    "loses its abort": "would no longer be aborted",
    "gains a warning": "would gain a warning",
    "warned earlier": "would be warned earlier",
    "warned later": "would be warned later",
    "loses its warning": "would no longer be warned",
}


def _compare_summary(comparison: Comparison) -> list[str]:
    total = len(comparison.sessions)
    differ = sum(1 for d in comparison.sessions if d.changed)
    b = comparison.label_b
    if not differ:
        return [f"no difference with {b} in {_sessions(total)}"]
    verb = "differs" if differ == 1 else "differ"
    lines = [f"{differ} of {_sessions(total)} {verb} with {b}:"]
    for kind, count in comparison.counts().items():
        if count:
            lines.append(f"  {_sessions(count)} {_SUMMARY[kind].format(a=comparison.label_a)}")
    return lines


def _sessions(count: int) -> str:
    return f"{count} session" if count == 1 else f"{count} sessions"


def render_compare_json(comparison: Comparison) -> str:
    document = {
        "version": JSON_VERSION,
        "a": comparison.label_a,
        "b": comparison.label_b,
        "settings": [
            {"setting": name, "a": left, "b": right} for name, left, right in comparison.settings
        ],
        "sessions": [
            {
                "file": diff.file,
                "session": diff.session,
                "a": session_json(diff.a),
                "b": session_json(diff.b),
                "onlyA": [event_json(e, False) for e in diff.only_a],
                "onlyB": [event_json(e, False) for e in diff.only_b],
                "changes": [
                    {
                        "kind": c.kind,
                        "a": c.a,
                        "b": c.b,
                        "text": c.sentence(comparison.label_a, comparison.label_b),
                    }
                    for c in diff.changes
                ],
            }
            for diff in comparison.sessions
        ],
        "summary": comparison.counts(),
    }
    return json_text(document) + "\n"
