"""Golden files: every loading and validation error's message, place and hint, per case.

Each folder in `cases/` is one config (`openclaw.json5`, plus what it includes); its
diagnostics are compared with `tests/golden/config/<case>.json`. Regenerate after a deliberate
change with `LOOPCFG_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/config/test_golden.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from loopcfg.config import load_config
from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.validate import validate_config
from tests.conftest import REPO

CASES = Path(__file__).parent / "cases"
GOLDEN = REPO / "tests" / "golden" / "config"
ENV = {"LOOPCFG_SET": "main", "LOOPCFG_EMPTY": ""}


def _span(span: Any) -> dict[str, Any] | None:
    if span is None:
        return None
    return {
        "file": span.file,
        "line": span.line,
        "column": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def _portable(message: str, folder: str) -> str:
    return message.replace(folder, "<case>").replace(os.path.realpath(CASES), "<cases>")


def _as_json(diagnostic: Diagnostic, folder: str) -> dict[str, Any]:
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity,
        # Resolved paths are absolute; the folder of the case stands in for this checkout.
        "message": _portable(diagnostic.message, folder),
        "path": diagnostic.path,
        "file": diagnostic.file,
        "span": _span(diagnostic.span),
        "hint": diagnostic.hint,
        "related": [
            {"span": _span(r.span), "message": _portable(r.message, folder)}
            for r in diagnostic.related
        ],
    }


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_golden(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = CASES / case
    monkeypatch.chdir(folder)
    loaded = load_config("openclaw.json5", env=ENV)
    found = sort_diagnostics(loaded.diagnostics + validate_config(loaded))
    actual = json.dumps(
        [_as_json(d, os.path.realpath(folder)) for d in found], indent=2, ensure_ascii=False
    )
    golden = GOLDEN / f"{case}.json"
    if os.environ.get("LOOPCFG_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual + "\n", encoding="utf-8")
    assert golden.exists(), f"no golden file for {case}; run with LOOPCFG_UPDATE_GOLDEN=1"
    assert golden.read_text(encoding="utf-8") == actual + "\n"
    assert {d.code for d in found} >= {case.split("-")[0].upper()}
