"""One way to compare output with a golden file, for every test that keeps one.

Golden files live under `tests/golden/`. After a deliberate change of output, regenerate with
`LOOPCFG_UPDATE_GOLDEN=1 .venv/bin/python -m pytest ...` and review the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN_ROOT = Path(__file__).resolve().parent / "golden"


def updating_golden() -> bool:
    return os.environ.get("LOOPCFG_UPDATE_GOLDEN") == "1"


def assert_golden(name: str, actual: str) -> None:
    """`actual` equals tests/golden/NAME (rewritten instead when LOOPCFG_UPDATE_GOLDEN=1)."""
    path = GOLDEN_ROOT / name
    if updating_golden():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
    assert path.exists(), f"no golden file {name}; run with LOOPCFG_UPDATE_GOLDEN=1 and review it"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"output differs from tests/golden/{name}"
