"""The one value every check produces and every renderer consumes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from loopcfg.frozen import Frozen

if TYPE_CHECKING:
    # Only for annotations: importing loopcfg.source here at run time is a cycle
    # (loopcfg.source -> source.errors -> diagnostics).
    from loopcfg.source.nodes import Span

Severity: TypeAlias = Literal["error", "warning", "info"]

SEVERITY_RANK: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


# Frozen values rather than dataclasses: every command imports this module, and a dataclass
# compiles its generated methods on each start (loopcfg/frozen.py).
class Related(Frozen):
    """Another place that takes part in a finding (the other threshold, the first duplicate)."""

    __slots__ = __match_args__ = ("span", "message")
    span: Span
    message: str

    def __init__(self, span: Span, message: str) -> None:
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "message", message)


class Diagnostic(Frozen):
    """A finding: stable code, severity, message, where, and how to fix it.

    `file` is always set (the file the finding concerns, even without a position); `span` is
    None where there is no position (a missing file, a plain-dict config). `path` is the dotted
    document path (`agents.list[2].tools.loopDetection.warningThreshold`). `agent` names the
    agent whose merged config the finding concerns, else None. `hint` is rendered after the
    message in parentheses (`did you mean "warningThreshold"?`).
    """

    __slots__ = __match_args__ = (
        "code",
        "severity",
        "message",
        "file",
        "span",
        "path",
        "hint",
        "agent",
        "related",
    )
    code: str
    severity: Severity
    message: str
    file: str
    span: Span | None
    path: str | None
    hint: str | None
    agent: str | None
    related: tuple[Related, ...]

    def __init__(
        self,
        code: str,
        severity: Severity,
        message: str,
        file: str,
        span: Span | None = None,
        path: str | None = None,
        hint: str | None = None,
        agent: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        set_field = object.__setattr__
        set_field(self, "code", code)
        set_field(self, "severity", severity)
        set_field(self, "message", message)
        set_field(self, "file", file)
        set_field(self, "span", span)
        set_field(self, "path", path)
        set_field(self, "hint", hint)
        set_field(self, "agent", agent)
        set_field(self, "related", related)

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

    def sort_key(self) -> tuple[str, int, int, str, str]:
        line, column = (self.span.line, self.span.column) if self.span else (0, 0)
        return (self.file, line, column, self.code, self.message)


def sort_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted by file and position, as every report shows them; exact repeats dropped."""
    unique = list(dict.fromkeys(diagnostics))
    return sorted(unique, key=Diagnostic.sort_key)
