"""Replay per target release (06 §6.3.1, 09): one trace, one golden per engine generation.

The trace (tests/replay/data/generations.trace.jsonl) shows what changes between generations:
nonce-wrapped results (E8.1 canonicalises them and blocks, then ends the run at the second
critical), one repeated read (E5.4 never blocks, E5.12 blocks once, E6.5 keeps blocking, E8.1
terminates the run) and writes cycling three paths without change (E8.1's argument churn).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli

from .helpers import check_golden

TRACE = Path(__file__).resolve().parent / "data" / "generations.trace.jsonl"
TARGETS = {"E5.4": "2026.5.4", "E5.12": "2026.6.1", "E6.5": "2026.7.1-2", "E8.1": "2026.9.6"}
BATCH_KEYS = {"batch", "blocked", "trigger", "recovery"}


def replay(*args: str) -> Any:
    result = CliRunner().invoke(cli, ["replay", "--jobs", "1", "trace.jsonl", *args])
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture(autouse=True)
def trace_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "trace.jsonl").write_bytes(TRACE.read_bytes())  # a short, stable file name
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("engine", TARGETS)
def test_text_and_json_goldens_per_generation(engine: str) -> None:
    text = replay("--openclaw", TARGETS[engine])
    assert text.exit_code == 0
    check_golden(f"generations-{engine}.txt", text.stdout)
    document = replay("--openclaw", TARGETS[engine], "--format", "json")
    check_golden(f"generations-{engine}.json", document.stdout)
    header = json.loads(document.stdout)["openclaw"]
    assert header == {"target": TARGETS[engine], "source": "--openclaw", "engine": engine}


def blocks(engine: str) -> dict[str, list[int]]:
    document = json.loads(replay("--openclaw", TARGETS[engine], "--format", "json").stdout)
    found: dict[str, list[int]] = {}
    for event in document["events"]:
        if event["level"] == "critical":
            found.setdefault(event["session"], []).append(event["call"])
    return found


def test_what_each_generation_blocks() -> None:
    assert blocks("E5.4") == {}  # no generic_repeat critical before 2026.5.12
    assert blocks("E5.12") == {"repeat": [21]}  # the hashed veto ends the streak
    assert blocks("E6.5") == {"repeat": [21, 22, 23, 24, 25]}  # sticky
    assert blocks("E8.1") == {"nonce": [21, 24], "repeat": [21, 22]}


def test_e81_events_carry_batches_and_recovery() -> None:
    document = json.loads(replay("--openclaw", "2026.9.6", "--format", "json").stdout)
    events = [e for e in document["events"] if e["session"] == "nonce"]
    assert all(set(e) >= BATCH_KEYS for e in document["events"])
    batch = [e for e in events if e["batch"] == "b21"]
    assert [(e["call"], e["level"], e["blocked"], e["trigger"], e["recovery"]) for e in batch] == [
        (21, "critical", True, True, "recovery"),
        (22, "none", True, False, "recovery"),  # never evaluated, still reported (decision 4)
    ]
    last = events[-1]
    assert (last["call"], last["count"], last["recovery"]) == (24, 21, "terminated")
    aborts = {a["session"]: a for a in document["aborts"]}
    assert aborts["nonce"]["code"] == "run_terminated" and aborts["nonce"]["line"] == 27
    assert aborts["nonce"]["message"].startswith("OpenClaw stopped this run")
    sessions = {s["session"]: s for s in document["sessions"]}
    assert sessions["nonce"]["blocks"] == 2  # triggers only
    assert sessions["repeat"]["skipped"] == 3


def test_earlier_generations_have_no_batch_fields() -> None:
    document = json.loads(replay("--openclaw", "2026.7.1-2", "--format", "json").stdout)
    assert not any(BATCH_KEYS & set(e) for e in document["events"])


def test_targets_before_5_4_are_a_usage_error() -> None:
    result = replay("--openclaw", "2026.5.3")
    assert result.exit_code == 2
    assert "older than 2026.5.4" in result.stderr


def test_target_from_meta_and_notes(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(
        json.dumps({"meta": {"lastTouchedVersion": "2026.9.6"}, "tools": {"loopDetection": {}}})
    )
    document = json.loads(replay("--config", "c.json", "--format", "json").stdout)
    assert document["openclaw"] == {
        "target": "2026.9.6",
        "source": "meta.lastTouchedVersion",
        "engine": "E8.1",
    }
    assert "no target release" in replay().stderr
    transitional = replay("--openclaw", "2026.8.1-beta.2")
    assert "does not model" in transitional.stderr and "with E8.1" in transitional.stderr
