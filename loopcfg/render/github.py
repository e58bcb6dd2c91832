"""GitHub Actions workflow commands: one annotation per problem, then the summary.

`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=LC003::message (hint)`; warnings
are `::warning`, infos `::notice`. Columns are code points and `endColumn` is exclusive, the
same numbers as the JSON output; a range over several lines gives `line` and `endLine` only
(GitHub takes columns only within one line), a problem without position gives `file` only.

GitHub shows at most 10 annotations of each kind (error, warning, notice) per step. So at most
10 of each are written, in file and position order; when more were found, one
`::notice title=loopcfg::` line says how many are not annotated and points to SARIF, and those
problems follow as plain `file:line:col` lines, so the log still lists every one of them. The
limit notice itself counts against the notices: when it is needed, infos get 9 annotations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from loopcfg.check import FileReport
from loopcfg.diagnostics import Diagnostic

if TYPE_CHECKING:
    from loopcfg.render.diagnostics import RenderOptions

__all__ = ["ANNOTATIONS_PER_KIND", "annotation", "escape_data", "escape_property", "render_github"]

ANNOTATIONS_PER_KIND = 10
_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """The message part of a workflow command (`%`, CR and LF are encoded)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (`file=...`): also `:` and `,`, which delimit the properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(diagnostic: Diagnostic) -> str:
    """The workflow command that annotates one diagnostic."""
    from loopcfg.render import printable
    from loopcfg.render.diagnostics import shorten_long_words

    properties = [("file", printable(diagnostic.file))]
    span = diagnostic.span
    if span is not None:
        properties.append(("line", str(span.line)))
        if span.end_line == span.line:
            properties.append(("col", str(span.column)))
            properties.append(("endLine", str(span.end_line)))
            properties.append(("endColumn", str(span.end_column)))
        else:
            properties.append(("endLine", str(span.end_line)))
    properties.append(("title", diagnostic.code))
    written = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    hint = f" ({diagnostic.hint})" if diagnostic.hint else ""
    # One line in the log, whatever a key name holds: line breaks and escape sequences are
    # shown as `\n`, `\u001b` (then `%` is encoded as GitHub asks).
    message = escape_data(shorten_long_words(printable(f"{diagnostic.message}{hint}")))
    return f"::{_COMMAND[diagnostic.severity]} {written}::{message}"


def _share(diagnostics: Sequence[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(annotated, not annotated): at most 10 per kind, 9 infos when the limit notice is due."""
    shown, rest = _split(diagnostics, info_limit=ANNOTATIONS_PER_KIND)
    if rest:
        shown, rest = _split(diagnostics, info_limit=ANNOTATIONS_PER_KIND - 1)
    return shown, rest


def _split(
    diagnostics: Sequence[Diagnostic], info_limit: int
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    limits = {"error": ANNOTATIONS_PER_KIND, "warning": ANNOTATIONS_PER_KIND, "info": info_limit}
    seen = dict.fromkeys(limits, 0)
    shown: list[Diagnostic] = []
    rest: list[Diagnostic] = []
    for diagnostic in diagnostics:
        seen[diagnostic.severity] += 1
        fits = seen[diagnostic.severity] <= limits[diagnostic.severity]
        (shown if fits else rest).append(diagnostic)
    return shown, rest


def _limit_notice(rest: Sequence[Diagnostic]) -> str:
    count = len(rest)
    problems = "problem is" if count == 1 else "problems are"
    message = (
        f"{count} more {problems} not annotated (GitHub shows {ANNOTATIONS_PER_KIND} of each "
        "kind per step) but listed below; run loopcfg validate --format sarif and upload the "
        "file to code scanning to see all of them"
    )
    return f"::notice title=loopcfg::{escape_data(message)}"


def render_github(reports: Sequence[FileReport], options: RenderOptions | None = None) -> str:
    from loopcfg.render.diagnostics import diagnostic_line, summary_line

    everything = [d for report in reports for d in report.diagnostics]
    shown, rest = _share(everything)
    lines = [annotation(d) for d in shown]
    if rest:
        lines.append(_limit_notice(rest))
        lines.extend(diagnostic_line(d) for d in rest)
    lines.append(summary_line(reports))
    return "\n".join(lines) + "\n"
