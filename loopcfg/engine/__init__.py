"""The detector engine (04): pure library, imports settings and hashing only."""

from loopcfg.engine.detector import LoopDetector
from loopcfg.engine.session import CallHandle, Session
from loopcfg.engine.verdicts import (
    CompactionLoopPersisted,
    LoopBlocked,
    LoopEvent,
    Verdict,
    blocked_result,
)

__all__ = [
    "CallHandle",
    "CompactionLoopPersisted",
    "LoopBlocked",
    "LoopDetector",
    "LoopEvent",
    "Session",
    "Verdict",
    "blocked_result",
]
