"""The one value every check produces and every renderer consumes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    # Only for annotations: importing loopcfg.source here at run time is a cycle
    # (loopcfg.source -> source.errors -> diagnostics).
    from loopcfg.source.nodes import Span

Severity: TypeAlias = Literal["error", "warning", "info"]

SEVERITY_RANK: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that takes part in a finding (the other threshold, the first duplicate)."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A finding: stable code, severity, message, where, and how to fix it.

    `file` is always set (the file the finding concerns, even without a position); `span` is
    None where there is no position (a missing file, a plain-dict config). `path` is the dotted
    document path (`agents.list[2].tools.loopDetection.warningThreshold`). `agent` names the
    agent whose merged config the finding concerns, else None. `hint` is rendered after the
    message in parentheses (`did you mean "warningThreshold"?`).
    """

    code: str
    severity: Severity
    message: str
    file: str
    span: Span | None = None
    path: str | None = None
    hint: str | None = None
    agent: str | None = None
    related: tuple[Related, ...] = ()

    @classmethod
    def at(
        cls,
        code: str,
        severity: Severity,
        message: str,
        span: Span | None,
        *,
        file: str | None = None,
        path: str | None = None,
        hint: str | None = None,
        agent: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> Diagnostic:
        """Build a diagnostic whose file is the span's file (or `file` when there is no span)."""
        where = span.file if span is not None else (file or "<config>")
        return cls(code, severity, message, where, span, path, hint, agent, related)

    def with_severity(self, severity: Severity) -> Diagnostic:
        return type(self)(
            self.code,
            severity,
            self.message,
            self.file,
            self.span,
            self.path,
            self.hint,
            self.agent,
            self.related,
        )

    def __hash__(self) -> int:
        # Without `related`, `hint` and `agent`: an LC110 over a large roster names a thousand
        # related places, and hashing them all cost a millisecond each time a list of findings
        # was deduplicated. Equal diagnostics still hash equal.
        return hash((self.code, self.message, self.file, self.span, self.path))

    def sort_key(self) -> tuple[str, int, int, str, str, str, str]:
        # The path and agent last: one finding of an `$include`d block shared by several
        # agents is reported at one place with one message, once per agent, and the order of
        # those must not follow the order they were found in (a set's, in places).
        line, column = (self.span.line, self.span.column) if self.span else (0, 0)
        return (self.file, line, column, self.code, self.message, self.path or "", self.agent or "")


def sort_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted by file and position, as every report shows them; exact repeats dropped."""
    unique = list(dict.fromkeys(diagnostics))
    return sorted(unique, key=Diagnostic.sort_key)
