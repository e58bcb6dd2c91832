"""The detector engine (04): pure library, imports settings and hashing only."""

import logging
from typing import TYPE_CHECKING, Any

from loopcfg.engine.detector import LoopDetector
from loopcfg.engine.session import CallHandle, Session
from loopcfg.engine.verdicts import (
    CompactionLoopPersisted,
    LoopBlocked,
    LoopEvent,
    Verdict,
    blocked_result,
)

if TYPE_CHECKING:
    from loopcfg.engine.v4 import BatchVerdict, V4Session


def __getattr__(name: str) -> Any:
    """E8.1's names load with their module, on first use (see detector._session_class)."""
    if name in ("BatchVerdict", "V4Session"):
        from loopcfg.engine import v4

        return getattr(v4, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
