"""Renderers for replay results: text (timeline + summary table) and JSON (06 §6.3).

Tool arguments are never shown unless `show_args` (real transcripts hold personal data).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loopcfg.replay.runner import FileReplay, ReplayAbort, ReplayEvent, SessionStats

JSON_VERSION = 1


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
    }


def render_json(results: Sequence[FileReplay], *, show_args: bool = False) -> str:
    document = {
        "version": JSON_VERSION,
        "events": [event_json(e, show_args) for r in results for e in r.events],
        "aborts": [abort_json(a) for r in results for a in r.aborts],
        "sessions": [session_json(s) for r in results for s in r.sessions],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_text(results: Sequence[FileReplay], *, show_args: bool = False) -> str:
    lines: list[str] = []
    for result in results:
        for stats in result.sessions:
            lines.extend(_session_timeline(result, stats, show_args))
    lines.extend(_summary_table([s for r in results for s in r.sessions]))
    return "\n".join(lines) + "\n"


def _session_timeline(result: FileReplay, stats: SessionStats, show_args: bool) -> list[str]:
    events = [e for e in result.events if e.session == stats.session and e.emitted]
    aborts = [a for a in result.aborts if a.session == stats.session]
    lines = [f"{stats.file} · session {stats.session}"]
    if not events and not aborts:
        noun = "call" if stats.calls == 1 else "calls"
        lines.append(f"  {stats.calls} {noun}, nothing detected")
        lines.append("")
        return lines
    for event in events:
        run = f" [{_run_label(event.run, event.run_id)}]" if event.run else ""
        args = f" args={json.dumps(event.args, ensure_ascii=False)}" if show_args else ""
        lines.append(
            f"  call #{event.call:<5} line {event.line:<6} {event.tool:<16} "
            f"{event.level:<8} {event.detector or '-'} ×{event.count}{run}{args}"
        )
    if stats.first_block_call is not None:
        lines.append(
            f"  first block: call #{stats.first_block_call} (line {stats.first_block_line})"
        )
    for abort in aborts:
        run = f" in {_run_label(abort.run, abort.run_id)}" if abort.run else ""
        lines.append(
            f"  guard abort: line {abort.line}, {abort.tool} ×{abort.count}{run}"
            f" ({abort.code}); the rest of that run is skipped"
        )
    lines.append("")
    return lines


def _run_label(run: str | None, run_id: str | None) -> str:
    return f"{run} = {run_id}" if run_id else str(run)


def _summary_table(sessions: Sequence[SessionStats]) -> list[str]:
    header = ("session", "calls", "skipped", "warnings", "blocks", "first block", "aborted")
    rows = [
        (
            s.session,
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
