"""Helpers for the lint tests: write a config, run the lints, look at one code's findings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from loopcfg.config import load_config
from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.lint import lint_config
from loopcfg.suppress import apply_suppressions
from loopcfg.validate import validate_config


@dataclass(frozen=True)
class Seen:
    """The parts of a diagnostic a test compares: where, what, for whom, and what else."""

    code: str
    severity: str
    line: int | None
    column: int | None
    path: str | None
    agent: str | None
    message: str
    hint: str | None
    related: tuple[tuple[int, int, str], ...]


def seen(diagnostic: Diagnostic) -> Seen:
    span = diagnostic.span
    return Seen(
        diagnostic.code,
        diagnostic.severity,
        span.line if span else None,
        span.column if span else None,
        diagnostic.path,
        diagnostic.agent,
        diagnostic.message,
        diagnostic.hint,
        tuple((r.span.line, r.span.column, r.message) for r in diagnostic.related),
    )


def where(text: str, token: str, occurrence: int = 1) -> tuple[int, int]:
    """(line, column), 1-based, of the start of the n-th occurrence of `token` in `text`.

    An oracle independent of the parser: tests state places by the text they point at.
    """
    start = -1
    for _ in range(occurrence):
        start = text.index(token, start + 1)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return line, column


class Linter:
    """Writes `text` to a file in a fresh directory and returns what the checks report."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def write(self, name: str, text: str) -> Path:
        target = self.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def all(self, text: str, name: str = "openclaw.json5") -> list[Diagnostic]:
        """Load, validate, lint and apply suppressions, as `validate` does (no selection)."""
        loaded = load_config(str(self.write(name, text)), env={})
        found = list(loaded.diagnostics)
        if loaded.root is not None:
            found += validate_config(loaded) + lint_config(loaded)
        return sort_diagnostics(apply_suppressions(found, loaded.documents))

    def codes(self, text: str, name: str = "openclaw.json5") -> list[str]:
        return [d.code for d in self.all(text, name)]

    def of(self, code: str, text: str, name: str = "openclaw.json5") -> list[Seen]:
        """The findings of one code, comparable."""
        return [seen(d) for d in self.all(text, name) if d.code == code]

    def one(self, code: str, text: str, name: str = "openclaw.json5") -> Seen:
        found = self.of(code, text, name)
        assert len(found) == 1, found
        return found[0]


@pytest.fixture
def linter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Linter:
    # Relative file names in messages (`openclaw.json5:2:44`), whatever tmp_path is.
    monkeypatch.chdir(tmp_path)
    return Linter(Path("."))
