"""Inline suppressions (`// loopcfg: ignore[LC102]`) and `--select` / `--ignore` (03 Selection).

A suppression comment applies to a diagnostic whose primary position is on the comment's line
(any of them, for a `/* */` over several lines) or on the line below its end (the comment
"above" the finding). Codes are prefixes, as in ruff:
`ignore[LC1]` covers LC101-LC109. Errors (LC0xx) are never suppressed, and a comment (or one
code of it) that suppressed nothing is itself reported as LC109 at the comment. LC109 cannot be
suppressed (a suppression of a suppression would hide nothing useful). While the file has errors,
the lints of the broken parts do not run, so only suppressions of error codes (never usable) are
reported as unused then.

Info-level codes (LC201, LC202) are hidden unless `--verbose`: that filter is `select(...,
verbose=False)`, applied after the suppressions, so that a suppression of an info code still
counts as used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from loopcfg.diagnostics import Diagnostic
from loopcfg.source.nodes import Comment, Document, Span

__all__ = ["Suppression", "apply_suppressions", "find_suppressions", "matches", "select"]

_DIRECTIVE = re.compile(r"loopcfg:\s*ignore\[([^\]]*)\]", re.IGNORECASE)
_UNSUPPRESSIBLE = ("LC0", "LC109")


class Suppression(NamedTuple):
    """One `loopcfg: ignore[...]` comment: its codes, and which of them were used."""

    codes: tuple[str, ...]
    span: Span
    used: set[str]  # filled in as diagnostics are matched

    def covers(self, line: int) -> bool:
        """Its own lines (a `/* */` comment may span several) and the line below its end."""
        return self.span.line <= line <= self.span.end_line + 1

    def matching(self, code: str) -> list[str]:
        return [prefix for prefix in self.codes if code.startswith(prefix)]


def _parse(comment: Comment) -> Suppression | None:
    match = _DIRECTIVE.search(comment.text)
    if match is None:
        return None
    codes = tuple(part.strip().upper() for part in match.group(1).split(",") if part.strip())
    return Suppression(codes, comment.span, set())


def find_suppressions(document: Document) -> list[Suppression]:
    """Every suppression comment of one document, in source order."""
    found = (_parse(comment) for comment in document.comments)
    return [suppression for suppression in found if suppression is not None]


def _suppressible(diagnostic: Diagnostic) -> bool:
    return diagnostic.severity != "error" and not diagnostic.code.startswith(_UNSUPPRESSIBLE)


def apply_suppressions(
    diagnostics: Sequence[Diagnostic], documents: Mapping[str, Document]
) -> list[Diagnostic]:
    """Drop the diagnostics an inline comment suppresses; add LC109 for unused suppressions."""
    by_file = {name: find_suppressions(document) for name, document in documents.items()}
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if not _suppressed(diagnostic, by_file.get(diagnostic.file, [])):
            kept.append(diagnostic)
    # With errors, the lints of the broken parts did not run: a lint suppression there is not
    # known to be unused. Suppressions of error codes are unusable whatever happens.
    errors = any(diagnostic.severity == "error" for diagnostic in diagnostics)
    for suppressions in by_file.values():
        for suppression in suppressions:
            unused = _unused(suppression, errors_only=errors)
            if unused is not None:
                kept.append(unused)
    return kept


def _suppressed(diagnostic: Diagnostic, suppressions: Iterable[Suppression]) -> bool:
    span = diagnostic.span
    if span is None or not _suppressible(diagnostic):
        return False
    hit = False
    for suppression in suppressions:
        if suppression.span.file == span.file and suppression.covers(span.line):
            prefixes = suppression.matching(diagnostic.code)
            suppression.used.update(prefixes)
            hit = hit or bool(prefixes)
    return hit


def _unused(suppression: Suppression, *, errors_only: bool) -> Diagnostic | None:
    """LC109 for a comment that names no code or codes that suppressed nothing, else None."""
    unused = [code for code in suppression.codes if code not in suppression.used]
    if errors_only:
        unused = [code for code in unused if code.startswith("LC0")]
    if suppression.codes and not unused:
        return None
    errors = [code for code in unused if code.startswith("LC0")]
    lints = [code for code in unused if code not in errors]
    if not suppression.codes:
        message = "suppression comment names no code"
        hint = "write the codes to ignore, e.g. loopcfg: ignore[LC102]"
    else:
        parts = []
        if lints:
            parts.append(f"nothing here or on the next line reports {', '.join(lints)}")
        if errors:
            parts.append(f"errors cannot be suppressed ({', '.join(errors)})")
        message = "unused suppression: " + "; ".join(parts)
        hint = "remove it, or the codes that are not reported"
        if errors:
            hint = "remove it and fix the config: errors always fail"
    from loopcfg.catalogue import severity_of  # the documentation of every code: only when needed

    return Diagnostic.at(
        "LC109", severity_of("LC109"), message, suppression.span, hint=hint, path=None
    )


def matches(code: str, prefixes: Iterable[str]) -> bool:
    """True when `code` starts with one of the (case-insensitive) prefixes."""
    return any(code.startswith(prefix.strip().upper()) for prefix in prefixes if prefix.strip())


def unknown_prefixes(values: Iterable[str]) -> list[str]:
    """The `--select`/`--ignore` parts that name no code at all (`LC999`, `LX1`, `102`): a typo
    there silently selects nothing, and a run that checks nothing passes."""
    parts = _split(values)
    if not parts:  # no option given: the catalogue need not be loaded
        return []
    from loopcfg.catalogue import RULES

    return [part for part in parts if not any(matches(code, [part]) for code in RULES)]


def _split(values: Iterable[str]) -> list[str]:
    """`("LC1,LC201", "LC3")` -> `["LC1", "LC201", "LC3"]` (click gives repeated options)."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def select(
    diagnostics: Sequence[Diagnostic],
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    *,
    verbose: bool = True,
) -> list[Diagnostic]:
    """Keep what `--select` names (all when empty) minus what `--ignore` names; errors always stay.

    With `verbose=False`, info diagnostics are dropped unless a `--select` prefix names them
    explicitly (`--select LC202` shows LC202 without `--verbose`).
    """
    chosen = _split(select)
    ignored = _split(ignore)
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic.severity == "error":
            kept.append(diagnostic)
            continue
        if chosen and not matches(diagnostic.code, chosen):
            continue
        if matches(diagnostic.code, ignored):
            continue
        if diagnostic.severity == "info" and not verbose and not _named(diagnostic.code, chosen):
            continue
        kept.append(diagnostic)
    return kept


def _named(code: str, chosen: Sequence[str]) -> bool:
    """An explicit choice of an info code: any prefix more specific than the bare `LC`."""
    return any(code.startswith(prefix.upper()) and len(prefix) > 2 for prefix in chosen)
