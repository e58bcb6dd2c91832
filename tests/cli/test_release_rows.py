"""Goldens for each row of 08 §8.2 that loopcfg mirrors: what `loopcfg validate` says about the
test configs of OpenClaw's `config validate` table, on one release of each wording era (5.4 for
A, 7.1-2 for B, 9.6 for C). OpenClaw refuses every one of them on every release (the retired
knobs only from 2026.8.1), so loopcfg must too (exit 1); the goldens keep loopcfg's own words
(problem, place, target facts).

Regenerate after a deliberate change with
`LOOPCFG_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_release_rows.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg import cli as cli_module
from tests.golden import assert_golden

TARGETS = ("2026.5.4", "2026.7.1-2", "2026.9.6")


def _block(**settings: Any) -> dict[str, Any]:
    return {"tools": {"loopDetection": settings}}


# 08 §8.2, "Exact issue texts": the test file held only the setting shown.
ROWS: dict[str, dict[str, Any]] = {
    "unknown-key": _block(foo=1),
    "two-unknown-keys": _block(foo=1, bar=2),
    "unknown-key-in-detectors": _block(detectors={"foo": True}),
    "warning-threshold-string": _block(warningThreshold="10"),
    "enabled-string": _block(enabled="yes"),
    "enabled-null": _block(enabled=None),
    "block-string": {"tools": {"loopDetection": "on"}},
    "history-size-zero": _block(historySize=0),
    "history-size-negative": _block(historySize=-3),
    "history-size-fraction": _block(historySize=1.5),
    "history-size-unsafe": _block(historySize=9007199254740992),
    "ping-pong-string": _block(detectors={"pingPong": "off"}),
    "window-size-zero": _block(postCompactionGuard={"windowSize": 0}),
    "warning-not-below-critical": _block(warningThreshold=20, criticalThreshold=20),
    "critical-not-below-global": _block(criticalThreshold=30, globalCircuitBreakerThreshold=30),
    "guard-enabled": _block(postCompactionGuard={"enabled": False}),
    "retired-knobs": _block(
        historySize=30,
        warningThreshold=10,
        criticalThreshold=20,
        unknownToolThreshold=10,
        globalCircuitBreakerThreshold=30,
        detectors={"pingPong": True},
        postCompactionGuard={"windowSize": 3},
    ),
    "root-block": {"loopDetection": {"enabled": True}},
    "root-dotted-key": {"tools.loopDetection": {"enabled": True}},
    "tools-exec-block": {"tools": {"exec": {"loopDetection": {"enabled": True}}}},
    "agents-defaults-tools-block": {
        "agents": {"defaults": {"tools": {"loopDetection": {"enabled": True}}}}
    },
}
# JSON has no Infinity/NaN; JSON5 does (and OpenClaw reads JSON5).
JSON5_ROWS = {
    "history-size-infinity": "{tools: {loopDetection: {historySize: Infinity}}}\n",
    "history-size-nan": "{tools: {loopDetection: {historySize: NaN}}}\n",
}


# Valid where the knobs are accepted: only the 2026.8.1+ releases refuse this row.
VALID_ON = {"retired-knobs": ("2026.5.4", "2026.7.1-2")}


def _run(folder: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(folder)
    args = ["validate", "openclaw.json5", "--openclaw", target]
    result = CliRunner().invoke(cli_module.cli, args, env={"NO_COLOR": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


@pytest.mark.parametrize("row", sorted([*ROWS, *JSON5_ROWS]))
def test_row(row: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = JSON5_ROWS.get(row) or json.dumps(ROWS[row], indent=2) + "\n"
    (tmp_path / "openclaw.json5").write_text(text, encoding="utf-8")
    shown = [text]
    for target in TARGETS:
        exit_code, output = _run(tmp_path, target, monkeypatch)
        expected = 0 if target in VALID_ON.get(row, ()) else 1  # as OpenClaw answers
        assert exit_code == expected, (row, target, output)
        shown.append(f"$ loopcfg validate openclaw.json5 --openclaw {target}\n{output}")
    assert_golden(f"validate/rows/{row}.txt", "\n".join(shown))
