"""Output of `fix` and `migrate`: diffs, one line per fix or refusal, and the summary."""

from __future__ import annotations

from collections.abc import Sequence

from loopcfg.diagnostics import Diagnostic
from loopcfg.render.diagnostics import diagnostic_line, printable

__all__ = ["fix_line", "plural", "where"]


def where(diagnostic: Diagnostic) -> str:
    span = diagnostic.span
    if span is None:
        return printable(diagnostic.file)
    return f"{printable(span.file)}:{span.line}:{span.column}"


def fix_line(diagnostic: Diagnostic, verb: str, text: str) -> str:
    """`file:line:col: CODE fixed: what was done` (or `not fixed: why`)."""
    return f"{where(diagnostic)}: {diagnostic.code} {verb}: {printable(text)}"


def plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {word}{'es' if word.endswith(('x', 's')) else 's'}"


def diagnostic_lines(diagnostics: Sequence[Diagnostic]) -> list[str]:
    return [diagnostic_line(d) for d in diagnostics]
