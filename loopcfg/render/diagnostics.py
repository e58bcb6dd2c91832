"""Renderers for validate results: text and json (chosen from RENDERERS)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from loopcfg.check import FileReport
from loopcfg.diagnostics import Diagnostic


def diagnostic_line(diagnostic: Diagnostic) -> str:
    """`file:line:col: CODE severity: message (hint)`; no position: `file: CODE ...`."""
    span = diagnostic.span
    where = f"{diagnostic.file}:{span.line}:{span.column}" if span else diagnostic.file
    hint = f" ({diagnostic.hint})" if diagnostic.hint else ""
    return f"{where}: {diagnostic.code} {diagnostic.severity}: {diagnostic.message}{hint}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _counts(reports: Sequence[FileReport]) -> dict[str, int]:
    counts = {"errors": 0, "warnings": 0, "infos": 0}
    for report in reports:
        for diagnostic in report.diagnostics:
            counts[diagnostic.severity + "s"] += 1
    return counts


def render_text(reports: Sequence[FileReport]) -> str:
    lines = [diagnostic_line(d) for report in reports for d in report.diagnostics]
    counts = _counts(reports)
    files = _plural(len(reports), "file")
    if not any(counts.values()):
        lines.append(f"All checks passed ({files}).")
    else:
        parts = [_plural(counts["errors"], "error"), _plural(counts["warnings"], "warning")]
        if counts["infos"]:
            parts.append(_plural(counts["infos"], "info"))
        lines.append(f"Found {', '.join(parts[:-1])} and {parts[-1]} in {files}.")
    return "\n".join(lines) + "\n"


def _diagnostic_json(diagnostic: Diagnostic) -> dict[str, Any]:
    span = diagnostic.span
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "path": diagnostic.path,
        "file": diagnostic.file,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "endLine": span.end_line if span else None,
        "endColumn": span.end_column if span else None,
        "hint": diagnostic.hint,
        "agent": diagnostic.agent,
        "related": [
            {
                "file": r.span.file,
                "line": r.span.line,
                "column": r.span.column,
                "endLine": r.span.end_line,
                "endColumn": r.span.end_column,
                "message": r.message,
            }
            for r in diagnostic.related
        ],
    }


def render_json(reports: Sequence[FileReport]) -> str:
    document = {
        "version": 1,
        "files": [
            {
                "path": report.path,
                "valid": report.valid,
                "diagnostics": [_diagnostic_json(d) for d in report.diagnostics],
            }
            for report in reports
        ],
        "summary": _counts(reports),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


RENDERERS: dict[str, Callable[[Sequence[FileReport]], str]] = {
    "text": render_text,
    "json": render_json,
}
