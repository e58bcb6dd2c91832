"""docs/engine.md: every Python example runs and its assertions (the stated verdicts) hold."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from loopcfg.engine.verdicts import Verdict

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S)
DETECTORS = (
    "generic_repeat",
    "known_poll_no_progress",
    "ping_pong",
    "unknown_tool_repeat",
    "global_circuit_breaker",
)


def test_every_detector_has_a_worked_example() -> None:
    assert len(BLOCKS) >= 11
    for detector in DETECTORS:
        assert any(f'"{detector}"' in block and "assert" in block for block in BLOCKS), detector
    assert any("CompactionLoopPersisted" in block for block in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_example_runs(block: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL + 1)  # the examples' warnings are expected
    exec(compile(block, str(DOC), "exec"), {"__name__": "engine_doc_example"})


def test_documented_log_line_format(caplog: pytest.LogCaptureFixture) -> None:
    from loopcfg import LoopDetector

    caplog.set_level(logging.WARNING, logger="loopcfg.engine")
    session = LoopDetector({"enabled": True, "warningThreshold": 1}).session("key")
    session.record_call("t", {}, run_id="r")
    verdict: Verdict = session.check("t", {}, run_id="r")
    documented = "<level> <detector> tool=<tool> count=<n> session=<key> run=<run id>:\n<message>"
    assert documented.replace("\n", " ") in DOC.read_text(encoding="utf-8").replace("\n", " ")
    assert caplog.messages == [
        f"warning generic_repeat tool=t count=1 session=key run=r: {verdict.message}"
    ]
