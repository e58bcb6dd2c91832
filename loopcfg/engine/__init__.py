"""The detector engine (04): pure library, imports settings and hashing only."""

import logging

from loopcfg.engine.detector import LoopDetector
from loopcfg.engine.session import CallHandle, Session
from loopcfg.engine.v4 import BatchVerdict, V4Session
from loopcfg.engine.verdicts import (
    CompactionLoopPersisted,
    LoopBlocked,
    LoopEvent,
    Verdict,
    blocked_result,
)

# A library leaves logging to its host: without this, Python's last-resort handler would print
# every warning and critical verdict on the host's stderr when the host configures no logging.
logging.getLogger("loopcfg").addHandler(logging.NullHandler())

__all__ = [
    "BatchVerdict",
    "CallHandle",
    "CompactionLoopPersisted",
    "LoopBlocked",
    "LoopDetector",
    "LoopEvent",
    "Session",
    "V4Session",
    "Verdict",
    "blocked_result",
]
