"""Every syntax error message and position, compared with a committed golden file.

Regenerate with `LOOPCFG_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/source/test_errors.py`
after a deliberate change of wording, and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loopcfg.source import parse_text
from loopcfg.source.errors import SourceError
from tests.conftest import REPO

GOLDEN = REPO / "tests" / "golden" / "source" / "syntax-errors.json"

CASES: dict[str, str] = {
    "missing-comma-object": "{\n  enabled: true\n  warningThreshold: 5,\n}",
    "missing-comma-array": "[1, 2 3]",
    "string-not-closed": '{\n  a: 1,\n\n  b: {c: "open\n}',
    "unexpected-closer": "[1, 2}",
    "unexpected-colon": "{a: 1 :}",
    "expected-value": "{a: }",
    "expected-value-comma": "[1,,2]",
    "expected-value-word": "{a: yes}",
    "expected-value-case": "{a: True}",
    "expected-colon": '{"x" 1}',
    "expected-colon-eof": "{x",
    "expected-key": "{1: 2}",
    "expected-key-comma": "{,}",
    "unterminated-comment": "{\n  a: 1,\n/* never closed\n}",
    "invalid-escape-digit": '"a\\1"',
    "invalid-escape-zero-digit": '"\\01"',
    "invalid-escape-hex": "'\\x4'",
    "invalid-escape-unicode": '"\\u12G4"',
    "invalid-escape-key": "{a\\n: 1}",
    "invalid-key-character": "{a€: 1}",
    "invalid-key-escape": "{\\u0031: 1}",
    "invalid-number-leading-zero": "01",
    "invalid-number-dots": "[1.2.3]",
    "invalid-number-hex": "0x",
    "invalid-number-suffix": "12px",
    "invalid-number-sign": "[-]",
    "eof-object": "{a: 1,",
    "eof-array": "{a: [1, 2",
    "eof-string-escape": '"abc\\',
    "trailing-garbage": "{a: 1} x",
    "trailing-second-value": "{}\n{}",
    "only-whitespace": "  \n ",
    "only-comments": "// nothing\n",
    "too-deep": "[" * 201 + "]" * 201,
    "stray-slash": "{a: /}",
    "control-character": "{a: \x07}",
    "yaml-unclosed-flow": "a: [1, 2",
    "yaml-bad-indent": "a:\n  b: 1\n c: 2\n",
    "yaml-complex-key": "? [1, 2]\n: x\n",
}


def _describe(name: str) -> dict[str, object]:
    text = CASES[name]
    format = "yaml" if name.startswith("yaml-") else "json5"
    with pytest.raises(SourceError) as caught:
        parse_text(text, "f", format)
    diagnostic = caught.value.diagnostic
    span = diagnostic.span
    return {
        "code": diagnostic.code,
        "message": diagnostic.message,
        "hint": diagnostic.hint,
        "span": None if span is None else [span.line, span.column, span.end_line, span.end_column],
        "related": [[r.message, r.span.line, r.span.column] for r in diagnostic.related],
    }


def test_syntax_errors_match_golden() -> None:
    got = {name: _describe(name) for name in CASES}
    rendered = json.dumps(got, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("LOOPCFG_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(rendered, encoding="utf-8")
    assert rendered == GOLDEN.read_text(encoding="utf-8")


def test_missing_comma_points_right_after_the_previous_value() -> None:
    described = _describe("missing-comma-object")
    assert described["message"] == 'missing "," between values'
    assert described["span"] == [2, 16, 2, 16]


def test_unclosed_string_names_where_it_started() -> None:
    described = _describe("string-not-closed")
    assert described["message"] == "string started at 4:10 is not closed"
    assert described["span"] == [4, 10, 4, 15]


def test_every_error_is_lc001_with_a_position() -> None:
    for name in CASES:
        described = _describe(name)
        assert described["code"] == "LC001" and described["span"] is not None, name


def test_golden_file_is_committed() -> None:
    assert Path(GOLDEN).is_file()
