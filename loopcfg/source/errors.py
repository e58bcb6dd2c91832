"""The one exception the loaders raise: it carries the LC000/LC001 diagnostic to report."""

from __future__ import annotations

from loopcfg.diagnostics import Diagnostic
from loopcfg.source.nodes import Span

__all__ = ["SourceError", "read_error", "syntax_error"]


class SourceError(Exception):
    """A file that cannot be read (LC000) or parsed (LC001); parsing stops at the first."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        # What was read of a file that did not parse (set by `load_document`), so a renderer
        # can show the line of the syntax error without reading the file a second time.
        self.text: str | None = None

    def __str__(self) -> str:
        where = self.diagnostic.file
        if self.diagnostic.span is not None:
            where += f":{self.diagnostic.span.line}:{self.diagnostic.span.column}"
        return f"{where}: {self.diagnostic.code} error: {self.diagnostic.message}"


def syntax_error(
    message: str, span: Span | None, file: str, hint: str | None = None
) -> SourceError:
    """LC001: the text is not valid JSON5/YAML (or not text at all)."""
    return SourceError(Diagnostic.at("LC001", "error", message, span, file=file, hint=hint))


def read_error(message: str, file: str) -> SourceError:
    """LC000: the file cannot be read at all; there is no position to point at."""
    return SourceError(Diagnostic.at("LC000", "error", message, None, file=file))
