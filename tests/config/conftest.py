"""Fixtures for the config tests: a file writer, and a stand-in reader while none exists.

The JSON5 reader (`loopcfg.source.load_document`) is written by another engineer. Until it is
importable, a stand-in reads files with `loopcfg.source.json5.parse_json5` when that exists,
else with the `json5` package (values right, every span at line 1, column 1 of its file).
Tests of exact lines and columns use `needs_positions`: they skip, with the reason, only while
no position-tracking reader exists.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import json5
import pytest

from loopcfg.diagnostics import Diagnostic
from loopcfg.source.nodes import ArrayNode, Document, Node, ObjectNode, Span, from_python


def _real_reader_present() -> bool:
    try:
        source = importlib.import_module("loopcfg.source")
    except ImportError:  # pragma: no cover
        return False
    return hasattr(source, "load_document") and hasattr(source, "SourceError")


def _parser() -> Callable[[str, str], Document] | None:
    try:
        from loopcfg.source.json5 import parse_json5
    except ImportError:  # pragma: no cover
        return None
    return parse_json5


REAL_READER = _real_reader_present()
PARSER = _parser()

needs_positions = pytest.mark.skipif(
    not REAL_READER and PARSER is None,
    reason="no position-tracking JSON5 reader in loopcfg.source yet",
)


class _StandInSourceError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _give_spans(node: Node, file: str) -> None:
    span = Span(file, 1, 1, 1, 2)
    node.span = span
    if isinstance(node, ObjectNode):
        for entry in node.entries:
            entry.key.span = span
            _give_spans(entry.value, file)
    elif isinstance(node, ArrayNode):
        for item in node.items:
            _give_spans(item, file)


def _stand_in_load_document(
    path: str,
    *,
    input_format: str | None = None,
    stdin_filename: str | None = None,
    max_bytes: int = 2 * 1024 * 1024,
) -> Document:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        diagnostic = Diagnostic.at(
            "LC000", "error", f"cannot read: {error.strerror}", None, file=path
        )
        raise _StandInSourceError(diagnostic) from None
    if PARSER is not None:
        try:
            return PARSER(text, path)
        except Exception as error:
            diagnostic = getattr(error, "diagnostic", None)
            if isinstance(diagnostic, Diagnostic):
                raise _StandInSourceError(diagnostic) from None
            raise
    try:
        value = json5.loads(text)
    except ValueError as error:
        diagnostic = Diagnostic.at("LC001", "error", str(error), Span(path, 1, 1, 1, 2))
        raise _StandInSourceError(diagnostic) from None
    root = from_python(value)
    _give_spans(root, path)
    return Document(path, text, root, [], "json5")


@pytest.fixture(autouse=True)
def _reader(monkeypatch: pytest.MonkeyPatch) -> None:
    if REAL_READER:
        return
    source = importlib.import_module("loopcfg.source")
    monkeypatch.setattr(source, "load_document", _stand_in_load_document, raising=False)
    monkeypatch.setattr(source, "SourceError", _StandInSourceError, raising=False)


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    """write("sub/a.json5", text) -> the file's path under a fresh directory."""

    def _write(name: str, text: str) -> Path:
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    return _write
