"""`replay --stats` (06 §6.3.1): how close each session came to each threshold.

Before every checked call the detectors compare a few counts with their thresholds; `--stats`
reads the same counts from the engine session's history (the call being checked not included,
exactly as the detectors see them) and keeps, per session and tool, the highest of each and the
one call that came closest to a threshold. Nothing here changes a verdict: it only reads.

The state is a handful of integers per (session, tool), so it stays small however long the
session is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loopcfg.engine.history import History
from loopcfg.engine.session import normalise_run_id

GENERIC = "generic_repeat"
POLL = "known_poll_no_progress"
PING_PONG = "ping_pong"
BREAKER = "global_circuit_breaker"
UNKNOWN = "unknown_tool_repeat"


@dataclass(slots=True)
class ToolStats:
    """The longest streaks and each detector's peak count for one tool of one session."""

    tool: str
    max_identical: int = 0
    max_no_progress: int = 0
    max_ping_pong: int = 0
    detector_peak: dict[str, int] = field(default_factory=dict)

    def peak(self, detector: str, count: int) -> None:
        if count > self.detector_peak.get(detector, -1):
            self.detector_peak[detector] = count


@dataclass(frozen=True, slots=True)
class Closest:
    """The call whose count came nearest a block threshold (the highest count / threshold)."""

    tool: str
    measure: str  # "identical", "no-progress", "ping-pong" or "unknown-tool"
    count: int
    threshold: int
    call: int

    @property
    def ratio(self) -> float:
        return self.count / self.threshold

    def sentence(self) -> str:
        counted = f"{self.count} of {self.threshold}"
        return f"closest: {self.tool} {self.measure} {counted} at call #{self.call}"


@dataclass(slots=True)
class Readings:
    """The counts the detectors compare with their thresholds at one call."""

    identical: int
    no_progress: int
    ping_pong: int
    unknown_tool: int
    poll: bool


def read_counts(session: Any, tool: str, args: Any, run_id: str | None) -> Readings | None:
    """The detectors' counts for `tool(args)` about to be checked in `session` (an engine
    `Session`), or None when detection is off (nothing is counted then)."""
    settings = session.settings
    if not settings.detectors_active:
        return None
    poll = bool(session.is_poll(tool, args))
    run = session.history.run(normalise_run_id(run_id))
    if run is None:
        return Readings(0, 0, 0, 0, poll)
    args_hash = session.args_hash(tool, args)
    _unknown, unknown = History.unknown_tool_streak(run, tool)
    _latest, streak = History.no_progress_streak(run, args_hash)
    pong = History.ping_pong(run, args_hash)
    return Readings(
        identical=History.recent_count(run, args_hash),
        no_progress=streak,
        ping_pong=0 if pong is None else pong[0],
        unknown_tool=unknown,
        poll=poll,
    )


@dataclass(slots=True)
class SessionProbe:
    """The --stats figures of one session, updated call by call."""

    tools: dict[str, ToolStats] = field(default_factory=dict)
    closest: Closest | None = None

    def observe(self, session: Any, tool: str, args: Any, run_id: str | None, call: int) -> None:
        readings = read_counts(session, tool, args, run_id)
        if readings is None:
            return
        stats = self.tools.get(tool)
        if stats is None:
            stats = self.tools[tool] = ToolStats(tool)
        stats.max_identical = max(stats.max_identical, readings.identical)
        stats.max_no_progress = max(stats.max_no_progress, readings.no_progress)
        stats.max_ping_pong = max(stats.max_ping_pong, readings.ping_pong)
        settings = session.settings
        for detector, count, measure, threshold in _measures(settings, readings):
            stats.peak(detector, count)
            if count > 0 and threshold > 0:
                self._nearer(Closest(tool, measure, count, threshold, call))

    def _nearer(self, candidate: Closest) -> None:
        # Strictly nearer only: on a tie the earliest call stays (it got there first).
        if self.closest is None or candidate.ratio > self.closest.ratio:
            self.closest = candidate

    def rows(self) -> list[ToolStats]:
        """One row per tool, by tool name (deterministic whatever the call order)."""
        return [self.tools[name] for name in sorted(self.tools)]


def _measures(settings: Any, readings: Readings) -> list[tuple[str, int, str, int]]:
    """(detector, count, measure, block threshold) for every detector that looks at this call.

    The threshold is the one at which that detector blocks (06 §6.3.1's "17 of 20" is
    `criticalThreshold`), so the closest call says how near the session came to a block; 0
    where a count only ever warns (identical calls for generic_repeat). Every detector's peak
    is kept, whether or not an earlier one in 04 §4.6's order would have fired first."""
    critical = settings.critical_threshold
    found = [
        (BREAKER, readings.no_progress, "no-progress", settings.global_circuit_breaker_threshold),
        (UNKNOWN, readings.unknown_tool, "unknown-tool", settings.unknown_tool_threshold),
    ]
    if readings.poll and settings.known_poll_no_progress:
        found.append((POLL, readings.no_progress, "no-progress", critical))
    if settings.ping_pong:
        found.append((PING_PONG, readings.ping_pong, "ping-pong", critical))
    if not readings.poll and settings.generic_repeat:
        found.append((GENERIC, readings.identical, "identical", 0))
        found.append((GENERIC, readings.no_progress, "no-progress", critical))
    return found
