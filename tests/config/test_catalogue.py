"""The catalogue's examples for LC001-LC008 trigger their code, and the fixes do not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loopcfg.catalogue import RULES
from loopcfg.config import load_config
from loopcfg.validate import validate_config

Write = Callable[[str, str], Path]
CODES = [f"LC00{n}" for n in range(1, 9)]


def _codes(path: Path) -> set[str]:
    loaded = load_config(path, env={})
    return {d.code for d in loaded.diagnostics + validate_config(loaded)}


@pytest.mark.parametrize("code", CODES)
def test_example_triggers_its_code(code: str, write: Write) -> None:
    rule = RULES[code]
    assert all((rule.what, rule.why, rule.example, rule.fix)), code
    assert code in _codes(write("example.json5", rule.example))


@pytest.mark.parametrize("code", [c for c in CODES if RULES[c].fix.lstrip().startswith("{")])
def test_fix_is_clean(code: str, write: Write) -> None:
    assert _codes(write("fixed.json5", RULES[code].fix)) == set()


def test_lc000_entry_is_documented() -> None:
    rule = RULES["LC000"]
    assert rule.severity == "error" and all((rule.what, rule.why, rule.example, rule.fix))
