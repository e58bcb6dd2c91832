"""The engine logs to `loopcfg.engine` / `loopcfg.guard` for hosts that configure logging, and
stays silent on stderr for hosts that do not (a library never prints)."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from loopcfg import LoopDetector

_HOST_WITHOUT_LOGGING = """
from loopcfg import LoopDetector
detector = LoopDetector({"enabled": True, "warningThreshold": 2, "criticalThreshold": 3})
session = detector.session("s")
for _ in range(5):
    verdict = session.check("read", {"path": "/a"})
    if verdict.level != "critical":
        session.record_call("read", {"path": "/a"})
        session.record_outcome("read", {"path": "/a"}, result="same")
print(verdict.level)
"""


def test_host_without_logging_config_sees_nothing_on_stderr() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _HOST_WITHOUT_LOGGING], capture_output=True, text=True, check=True
    )
    assert done.stdout == "critical\n"  # the verdicts that would be logged did happen
    assert done.stderr == ""


def test_host_with_logging_gets_the_events(caplog: pytest.LogCaptureFixture) -> None:
    session = LoopDetector(
        {"enabled": True, "warningThreshold": 2, "criticalThreshold": 3}
    ).session("s")
    with caplog.at_level(logging.INFO, logger="loopcfg"):
        for _ in range(5):
            verdict = session.check("read", {"path": "/a"})
            if verdict.level != "critical":
                session.record_call("read", {"path": "/a"})
                session.record_outcome("read", {"path": "/a"}, result="same")
    assert {r.name for r in caplog.records} == {"loopcfg.engine"}
    assert any(r.levelno >= logging.WARNING for r in caplog.records)
