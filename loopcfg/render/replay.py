"""Renderers for replay results: text (timeline + summary table) and JSON (06 §6.3).

Tool arguments are never shown unless `show_args` (real transcripts hold personal data).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from loopcfg.render import json_text
from loopcfg.replay.runner import FileReplay, ReplayAbort, ReplayEvent, SessionStats

if TYPE_CHECKING:
    from loopcfg.replay.compare import Comparison, SessionDiff

JSON_VERSION = 1


def _from_store(result: FileReplay) -> bool:
    """One session read from an OpenClaw store (10.5): positions are its rows' `seq`."""
    return any(stats.source == "sqlite" for stats in result.sessions)


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
    return {
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


def render_json(results: Sequence[FileReplay], *, show_args: bool = False) -> str:
    document = {
        "version": JSON_VERSION,
        "events": [
            _with_seq(event_json(e, show_args), e.line)
            if _from_store(r)
            else event_json(e, show_args)
            for r in results
            for e in r.events
        ],
        "aborts": [
            _with_seq(abort_json(a), a.line) if _from_store(r) else abort_json(a)
            for r in results
            for a in r.aborts
        ],
        "sessions": [session_json(s) for r in results for s in r.sessions],
    }
    return json_text(document) + "\n"


def _joined(lines: Sequence[str]) -> str:
    """The output lines, each kept one printable line: session ids, tool names and arguments
    come from the recorded files and may hold line breaks, escape sequences or lone surrogates."""
    from loopcfg.render import not_a_workflow_command, printable

    return "".join(not_a_workflow_command(printable(line)) + "\n" for line in lines)


def render_text(results: Sequence[FileReplay], *, show_args: bool = False) -> str:
    lines: list[str] = []
    for result in results:
        events, aborts = result.events_by_session(), result.aborts_by_session()
        for stats in result.sessions:
            mine = [e for e in events.get(stats.session, []) if e.emitted]
            lines.extend(_session_timeline(stats, mine, aborts.get(stats.session, []), show_args))
    lines.extend(_summary_table([s for r in results for s in r.sessions]))
    return _joined(lines)


def _session_timeline(
    stats: SessionStats,
    events: Sequence[ReplayEvent],
    aborts: Sequence[ReplayAbort],
    show_args: bool,
) -> list[str]:
    store = stats.source == "sqlite"
    unit, shift = ("seq", 1) if store else ("line", 0)
    lines = [_timeline_header(stats)]
    if not events and not aborts:
        noun = "call" if stats.calls == 1 else "calls"
        lines.append(f"  {stats.calls} {noun}, nothing detected")
        lines.append("")
        return lines
    for group in collapse(events, keep_apart=show_args):
        lines.append("  " + event_line(group, show_args, unit=unit, shift=shift))
    if stats.first_block_call is not None and stats.first_block_line is not None:
        lines.append(
            f"  first block: call #{stats.first_block_call} "
            f"({unit} {stats.first_block_line - shift})"
        )
    for abort in aborts:
        run = f" in {_run_label(abort.run, abort.run_id)}" if abort.run else ""
        rest = "that run" if abort.run else "the session"
        lines.append(
            f"  guard abort: {unit} {abort.line - shift}, {abort.tool} ×{abort.count}{run}"
            f" ({abort.code}); the rest of {rest} is skipped"
        )
    lines.append("")
    return lines


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
            and (event.session, event.run, event.tool, event.level, event.detector, event.count)
            == (last.session, last.run, last.tool, last.level, last.detector, last.count)
        ):
            groups[-1].append(event)
        else:
            groups.append([event])
    return groups


def event_line(
    group: Sequence[ReplayEvent], show_args: bool = False, *, unit: str = "line", shift: int = 0
) -> str:
    """`call #N line L tool level detector ×count [run]`, or a range for a collapsed group;
    a store session says `seq S` (`unit`, with `shift` = line - seq)."""
    first, last = group[0], group[-1]
    calls = f"#{first.call}" if len(group) == 1 else f"#{first.call}-#{last.call}"
    start, end = first.line - shift, last.line - shift
    where = f"{start}" if len(group) == 1 else f"{start}-{end}"
    run = f" [{_run_label(first.run, first.run_id)}]" if first.run else ""
    times = f" ({len(group)} calls)" if len(group) > 1 else ""
    args = f" args={json_text(first.args, indent=None)}" if show_args else ""
    return (
        f"call {calls:<8} {unit} {where:<8} {first.tool:<16} "
        f"{first.level:<8} {first.detector or '-'} ×{first.count}{run}{times}{args}"
    )


def _run_label(run: str | None, run_id: str | None) -> str:
    return f"{run} = {run_id}" if run_id else str(run)


def _summary_name(stats: SessionStats, same_name: int) -> str:
    if stats.source == "sqlite":
        # Decision 8: `<store>::<sessionKey or id>@<first 8 of the id>`.
        name = f"{stats.file}::{stats.session_key or stats.session}@{stats.session[:8]}"
        return f"{name} (incomplete)" if stats.incomplete else name
    # Traces name sessions "default" unless told otherwise: say whose it is then.
    return stats.session if same_name == 1 else f"{stats.session} ({stats.file})"


def _summary_table(sessions: Sequence[SessionStats]) -> list[str]:
    header = ("session", "calls", "skipped", "warnings", "blocks", "first block", "aborted")
    names = Counter(s.session for s in sessions)
    rows = [
        (
            _summary_name(s, names[s.session]),
            str(s.calls),
            str(s.skipped),
            str(s.warnings),
            str(s.blocks),
            f"#{s.first_block_call}" if s.first_block_call is not None else "-",
            "yes" if s.aborted else "no",
        )
        for s in sessions
    ]
    total = (
        f"total ({len(sessions)} {'session' if len(sessions) == 1 else 'sessions'})",
        str(sum(s.calls for s in sessions)),
        str(sum(s.skipped for s in sessions)),
        str(sum(s.warnings for s in sessions)),
        str(sum(s.blocks for s in sessions)),
        "-",
        str(sum(1 for s in sessions if s.aborted)),
    )
    table = [header, *rows, total]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]

    def fmt(row: Sequence[str]) -> str:
        first = row[0].ljust(widths[0])
        rest = "  ".join(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))
        return f"{first}  {rest}".rstrip()

    return [fmt(header), *(fmt(row) for row in rows), fmt(total)]


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
