"""Renderers for validate results, chosen by name from RENDERERS: text, json, sarif, github.

Every renderer takes the `FileReport`s and a `RenderOptions` and returns the whole output; none
of them finds anything. `text` is one line per problem and a summary; on a tty (`source=True`)
each line is followed by the offending source line with a caret under the range, and the
related locations as notes; `color=True` adds ANSI colours.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from loopcfg.check import FileReport
from loopcfg.diagnostics import Diagnostic
from loopcfg.render import UNPRINTABLE, json_text, not_a_workflow_command, printable
from loopcfg.source.nodes import Span, split_lines

__all__ = [
    "RENDERERS",
    "RenderOptions",
    "caret_lines",
    "counts",
    "diagnostic_line",
    "display_width",
    "printable",
    "render_json",
    "render_text",
    "shorten_long_words",
    "summary_line",
]


class RenderOptions(NamedTuple):
    """How to render: `source` shows source lines and carets (text on a tty), `color` ANSI."""

    source: bool = False
    color: bool = False
    tab_size: int = 4


def _parts(diagnostic: Diagnostic) -> tuple[str, str]:
    """(`file:line:col`, `message (hint)`), made printable, never starting with `::` (a line
    starts with it), and with very long values shortened."""
    span = diagnostic.span
    where = f"{diagnostic.file}:{span.line}:{span.column}" if span else diagnostic.file
    hint = f" ({diagnostic.hint})" if diagnostic.hint else ""
    text = shorten_long_words(printable(f"{diagnostic.message}{hint}"))
    return not_a_workflow_command(printable(where)), text


# A run of this many characters without a blank (a 100 KB agent id from `${VAR}`, a minified
# value) is shown as its start and end: one problem stays one readable line. JSON and SARIF
# keep the full text, for tools.
LONG_WORD = 200
_KEEP = 80
_LONG_WORD = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def shorten_long_words(text: str) -> str:
    """`text` with every run of more than LONG_WORD non-blank characters shortened to its first
    and last 80, with how many were left out between them."""
    if len(text) <= LONG_WORD:
        return text
    return _LONG_WORD.sub(_shortened, text)


def _shortened(match: re.Match[str]) -> str:
    word = match.group()
    left_out = len(word) - 2 * _KEEP
    return f"{word[:_KEEP]}…({left_out} characters)…{word[-_KEEP:]}"


def diagnostic_line(diagnostic: Diagnostic) -> str:
    """`file:line:col: CODE severity: message (hint)`; no position: `file: CODE ...`.

    Always one line: control characters in names and messages are shown as escapes.
    """
    where, text = _parts(diagnostic)
    return f"{where}: {diagnostic.code} {diagnostic.severity}: {text}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def counts(reports: Sequence[FileReport]) -> dict[str, int]:
    """How many errors, warnings and infos all reports hold (the JSON `summary`)."""
    found = {"errors": 0, "warnings": 0, "infos": 0}
    for report in reports:
        for diagnostic in report.diagnostics:
            found[diagnostic.severity + "s"] += 1
    return found


def summary_line(reports: Sequence[FileReport]) -> str:
    """`Found 1 error and 2 warnings in 1 file.` or `All checks passed (1 file).`"""
    found = counts(reports)
    files = _plural(len(reports), "file")
    if not any(found.values()):
        return f"All checks passed ({files})."
    parts = [_plural(found["errors"], "error"), _plural(found["warnings"], "warning")]
    if found["infos"]:
        parts.append(_plural(found["infos"], "info"))
    return f"Found {', '.join(parts[:-1])} and {parts[-1]} in {files}."


# -- text -----------------------------------------------------------------------------------------

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_SEVERITY_COLOR = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;36m"}
_GUTTER_COLOR = "\x1b[34m"


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color and text else text


def _cell(char: str) -> tuple[str, int]:
    """What a terminal shows for one code point, and how many cells it takes (tabs excepted)."""
    category = unicodedata.category(char)
    if category == "Cc" or UNPRINTABLE.match(char):
        # Control characters would move the cursor or worse, bidi overrides would reorder the
        # line under the caret: show a stand-in.
        return "\ufffd", 1
    if category in ("Mn", "Me", "Cf"):  # combining marks, zero-width joiners and the like
        return char, 0
    return char, 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _expand(line: str, tab_size: int) -> tuple[str, list[int]]:
    """The line as shown (tabs expanded to the next stop, controls replaced) and, for every
    code point index 0..len(line), the cell where that code point starts."""
    shown: list[str] = []
    starts: list[int] = []
    cell = 0
    for char in line:
        starts.append(cell)
        if char == "\t":
            width = tab_size - cell % tab_size
            shown.append(" " * width)
        else:
            text, width = _cell(char)
            shown.append(text)
        cell += width
    starts.append(cell)
    return "".join(shown), starts


def display_width(text: str, tab_size: int = 4) -> int:
    """Terminal cells `text` takes when rendered as a source line (tabs to `tab_size` stops)."""
    return _expand(text, tab_size)[1][-1]


# A source line longer than this (a minified config is one line) is cut to a window around the
# column, marked with an ellipsis at the cut ends.
_WINDOW = 160
_BEFORE = 60


def caret_lines(line_text: str, span: Span, tab_size: int = 4) -> tuple[str, str]:
    """The source line as shown and the marker line under it: `^` at the span's start column,
    `~` over the rest of the span on that line (to the end of the line for multi-line spans).

    Columns are code points (as in every diagnostic); the marker is placed in terminal cells,
    so tabs and wide characters do not shift it. A line longer than 160 code points is shown
    as a window of that size around the column, with `…` where it was cut.
    """
    length = len(line_text)
    first = min(max(span.column, 1), length + 1) - 1
    last = span.end_column - 1 if span.end_line == span.line else length
    last = min(max(last, first + 1), length + 1)
    head = tail = ""
    if length > _WINDOW:
        start = min(max(first - _BEFORE, 0), max(length - _WINDOW, 0))
        stop = start + _WINDOW
        head = "…" if start > 0 else ""
        tail = "…" if stop < length else ""
        line_text = line_text[start:stop]
        first -= start
        last = min(last - start, len(line_text) + 1)
        length = len(line_text)
    shown, starts = _expand(line_text, tab_size)
    begin = starts[first]
    end = starts[last] if last <= length else starts[length] + (last - length)
    width = max(end - begin, 1)
    return head + shown + tail, " " * (begin + len(head)) + "^" + "~" * (width - 1)


def _source_block(
    span: Span, lines: list[str] | None, severity: str, options: RenderOptions
) -> list[str]:
    if lines is None:
        return []
    line_text = lines[span.line - 1] if 1 <= span.line <= len(lines) else ""
    shown, marker = caret_lines(line_text, span, options.tab_size)
    number = str(span.line)
    pad = " " * len(number)
    bar = _paint("|", _GUTTER_COLOR, options.color)
    return [
        f" {_paint(number, _GUTTER_COLOR, options.color)} {bar} {shown}".rstrip(),
        f" {pad} {bar} {_paint(marker, _SEVERITY_COLOR[severity], options.color)}",
    ]


def _styled_line(diagnostic: Diagnostic, color: bool) -> str:
    if not color:
        return diagnostic_line(diagnostic)
    where, text = _parts(diagnostic)
    label = _paint(
        f"{diagnostic.code} {diagnostic.severity}", _SEVERITY_COLOR[diagnostic.severity], True
    )
    return f"{_paint(where, _BOLD, True)}: {label}: {text}"


def _related_lines(diagnostic: Diagnostic, color: bool) -> list[str]:
    note = _paint("note", _BOLD, color)
    return [
        f"   = {note}: "
        + shorten_long_words(printable(f"{r.span.file}:{r.span.line}:{r.span.column}: {r.message}"))
        for r in diagnostic.related
    ]


def render_text(reports: Sequence[FileReport], options: RenderOptions | None = None) -> str:
    opts = options or RenderOptions()
    lines: list[str] = []
    for report in reports:
        split: dict[str, list[str] | None] = {}  # each source text is split once
        for diagnostic in report.diagnostics:
            lines.append(_styled_line(diagnostic, opts.color))
            if not opts.source:
                continue
            span = diagnostic.span
            if span is not None:
                if span.file not in split:
                    text = report.sources.get(span.file)
                    split[span.file] = None if text is None else split_lines(text)
                lines.extend(_source_block(span, split[span.file], diagnostic.severity, opts))
            lines.extend(_related_lines(diagnostic, opts.color))
            lines.append("")
    lines.append(_paint(summary_line(reports), _BOLD, opts.color))
    return "\n".join(lines) + "\n"


# -- json -----------------------------------------------------------------------------------------


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


def render_json(reports: Sequence[FileReport], options: RenderOptions | None = None) -> str:
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
        "summary": counts(reports),
    }
    return json_text(document) + "\n"


# -- the table ------------------------------------------------------------------------------------


def _render_sarif(reports: Sequence[FileReport], options: RenderOptions | None = None) -> str:
    from loopcfg.render.sarif import render_sarif

    return render_sarif(reports, options)


def _render_github(reports: Sequence[FileReport], options: RenderOptions | None = None) -> str:
    from loopcfg.render.github import render_github

    return render_github(reports, options)


Renderer = Callable[[Sequence[FileReport], "RenderOptions | None"], str]

RENDERERS: Mapping[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "sarif": _render_sarif,
    "github": _render_github,
}
