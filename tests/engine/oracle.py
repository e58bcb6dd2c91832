"""A rescanning implementation of 04, written from the spec: the oracle for differential tests.

Deliberately naive: history is one plain list, and every check rescans it (run scoping, every
streak, ping-pong) exactly as 04 §4.5 words it, and every value is hashed by the plain recursive
canonical JSON of `oracle_hashing` (04 §4.3-§4.4 written again), every time it is needed.
Nothing here shares the engine's history, streak or hashing code; only the settings (02 §2.3) and
the value types (`Verdict`, `LoopEvent`, `CompactionLoopPersisted`) are reused, so results compare
with `==`. Same API shape as the engine, so one driver runs both (also `bench/engine.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from loopcfg.engine import CompactionLoopPersisted, LoopEvent, Verdict
from loopcfg.settings import EffectiveSettings, settings_from_block
from tests.engine.oracle_hashing import ABSENT, legacy_digest, outcome_hash, trim
from tests.engine.oracle_hashing import args_hash as shared_args_hash

guard_log = logging.getLogger("loopcfg.guard")

MAX_WARNING_KEYS = 256
POLL_ACTIONS = ("poll", "log")


def _normalise(run_id: str | None) -> str | None:
    if run_id is None:
        return None
    return trim(str(run_id)) or None


@dataclass
class _Record:
    tool: str
    args_hash: str
    run_id: str | None
    call_id: str | None = None
    result_hash: str | None = None
    unknown_tool: str | None = None


@dataclass
class _Guard:
    window_size: int
    remaining: int
    window: list[tuple[str, str, str]] = field(default_factory=list)


class OracleDetector:
    def __init__(
        self,
        settings: EffectiveSettings | Mapping[str, Any] | None = None,
        *,
        extra_send_tools: Iterable[str] = (),
        extra_poll_tools: Iterable[str] = (),
        send_tools: Iterable[str] = (),
        poll_tools: Iterable[str] = (),
        generation: str = "E6.5",
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        # `send_tools`/`poll_tools` are the engine's spelling, accepted so one driver fits both.
        # `generation`: "E5.4", "E5.12" or "E6.5" (09 §9.1-§9.2); `aliases`: the host's tool
        # alias table (09 §9.5; None: names are taken as given, already normalised).
        assert generation in ("E5.4", "E5.12", "E6.5")
        self.generation = generation
        self.aliases = aliases
        self.settings = _settings(settings)
        self.send_tools = frozenset(extra_send_tools) | frozenset(send_tools)
        self.poll_tools = frozenset(extra_poll_tools) | frozenset(poll_tools)
        self.sessions: dict[str, OracleSession] = {}
        self.subscribers: list[Callable[[LoopEvent], None]] = []

    def session(self, key: str) -> OracleSession:
        if key not in self.sessions:
            self.sessions[key] = OracleSession(key, self)
        return self.sessions[key]

    def close(self, key: str) -> None:
        self.sessions.pop(key, None)

    def subscribe(self, callback: Callable[[LoopEvent], None]) -> Callable[[], None]:
        self.subscribers.append(callback)
        return lambda: self.subscribers.remove(callback)


def _settings(settings: EffectiveSettings | Mapping[str, Any] | None) -> EffectiveSettings:
    if isinstance(settings, EffectiveSettings):
        return settings
    return settings_from_block(settings)


class OracleSession:
    def __init__(self, key: str, detector: OracleDetector) -> None:
        self.key = key
        self.detector = detector
        self.settings = detector.settings
        self.history: list[_Record] = []
        self.calls = 0
        self.buckets: dict[str, int] = {}  # insertion order = age of the key
        self.guards: dict[str | None, _Guard] = {}

    # -- life cycle (04 §4.1, §4.2) ----------------------------------------------------------

    def _name(self, tool: str) -> str:
        aliases = self.detector.aliases
        if aliases is None:
            return tool
        lowered = trim(tool or "tool").lower()
        return aliases.get(lowered, lowered)

    def _hash(self, tool: str, args: Any) -> str:
        if self.detector.generation == "E5.4":
            return tool + ":" + legacy_digest(args)
        return shared_args_hash(tool, args)

    def check(self, tool: str, args: Any, run_id: str | None = None) -> Verdict:
        self.calls += 1
        if self.settings.enabled is not True:
            return Verdict()
        tool = self._name(tool)
        run = _normalise(run_id)
        scoped = [r for r in self.history if r.run_id == run]
        verdict = self._verdict(tool, args, self._hash(tool, args), scoped)
        if verdict.level == "none":
            return verdict
        verdict = replace(verdict, emitted=self._passes(verdict, run))
        if verdict.emitted:
            assert verdict.detector is not None and verdict.level != "none"
            event = LoopEvent(
                verdict.level,
                verdict.detector,
                tool,
                verdict.count,
                verdict.message,
                run,
                verdict.warning_key,
                self.calls,
                self.key,
            )
            for callback in list(self.detector.subscribers):
                callback(event)
        return verdict

    def record_call(
        self, tool: str, args: Any, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        tool = self._name(tool)
        self.history.append(_Record(tool, self._hash(tool, args), _normalise(run_id), call_id))
        self._trim()

    def record_outcome(
        self,
        tool: str,
        args: Any,
        result: Any = ABSENT,
        error: Any = None,
        run_id: str | None = None,
        call_id: str | None = None,
    ) -> None:
        tool = self._name(tool)
        result_hash, unknown = outcome_hash(
            tool,
            args,
            result,
            error,
            send_tools=self.detector.send_tools,
            generation=self.detector.generation,
        )
        if result_hash is None:
            return
        run = _normalise(run_id)
        h = self._hash(tool, args)
        record = self._pending(tool, h, run, call_id)
        if record is None:
            self.history.append(_Record(tool, h, run, call_id, result_hash, unknown))
        else:
            record.result_hash = result_hash
            record.unknown_tool = unknown
        self._trim()
        self._observe(run, (tool, h, result_hash))

    def forget_call(
        self, tool: str, args: Any, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        tool = self._name(tool)
        record = self._pending(tool, self._hash(tool, args), _normalise(run_id), call_id)
        if record is not None:
            self.history = [r for r in self.history if r is not record]

    def compaction_retry(self, run_id: str | None = None) -> None:
        if self.settings.enabled is False:
            return
        size = self.settings.post_compaction_window_size
        self.guards[_normalise(run_id)] = _Guard(size, size)
        guard_log.info("post-compaction guard armed for %d attempts", size)

    def reconfigure(self, settings: EffectiveSettings | Mapping[str, Any]) -> None:
        self.settings = _settings(settings)
        self._trim()
        if self.settings.enabled is False:
            self.guards.clear()

    def _pending(self, tool: str, h: str, run: str | None, call_id: str | None) -> _Record | None:
        for record in reversed(self.history):
            if (
                record.run_id == run
                and record.tool == tool
                and record.args_hash == h
                and record.result_hash is None
                and (call_id is None or record.call_id == call_id)
            ):
                return record
        return None

    def _trim(self) -> None:
        while len(self.history) > self.settings.history_size:
            self.history.pop(0)

    # -- post-compaction guard (04 §4.9) -------------------------------------------------------

    def _observe(self, run: str | None, entry: tuple[str, str, str]) -> None:
        guard = self.guards.get(run)
        if guard is None or guard.remaining <= 0:
            return
        guard.remaining -= 1
        guard.window.append(entry)
        matches = guard.window.count(entry)
        if matches >= guard.window_size:
            guard.remaining = 0
            guard_log.error(
                "post-compaction loop persisted: tool=%s repeated %d times with identical "
                "args+result post-compaction",
                entry[0],
                matches,
            )
            raise CompactionLoopPersisted(entry[0], matches, guard.window_size)

    # -- suppression (04 §4.7) -----------------------------------------------------------------

    def _passes(self, verdict: Verdict, run: str | None) -> bool:
        if verdict.level == "critical":
            return True
        key = f"{run}:{verdict.warning_key}" if run is not None else str(verdict.warning_key)
        bucket = verdict.count // self.settings.warning_threshold
        if bucket <= self.buckets.get(key, 0):
            return False
        if key not in self.buckets and len(self.buckets) == MAX_WARNING_KEYS:
            oldest = next(iter(self.buckets))
            del self.buckets[oldest]
        self.buckets[key] = bucket
        return True

    # -- verdict order (04 §4.6) ---------------------------------------------------------------

    def _is_poll(self, tool: str, args: Any) -> bool:
        if tool == "command_status" or tool in self.detector.poll_tools:
            return True
        return tool == "process" and isinstance(args, dict) and args.get("action") in POLL_ACTIONS

    def _verdict(self, tool: str, args: Any, h: str, history: list[_Record]) -> Verdict:
        s = self.settings
        unknown, unknown_count = unknown_tool_streak(history, tool)
        if unknown_count >= s.unknown_tool_threshold:
            return Verdict(
                "critical",
                "unknown_tool_repeat",
                unknown_count,
                f"CRITICAL: attempted unavailable tool {unknown or tool} {unknown_count} times. "
                "Stop retrying that missing tool and answer without it.",
                f"unknown-tool:{tool}:{unknown or 'unknown'}",
            )
        latest, streak = no_progress_streak(history, tool, h)
        if streak >= s.global_circuit_breaker_threshold:
            return Verdict(
                "critical",
                "global_circuit_breaker",
                streak,
                f"CRITICAL: {tool} has repeated identical no-progress outcomes {streak} times. "
                "Session execution blocked by global circuit breaker to prevent runaway loops.",
                f"global:{tool}:{h}:{latest or 'none'}",
            )
        poll = self._is_poll(tool, args)
        if poll and s.known_poll_no_progress and streak >= s.critical_threshold:
            return Verdict(
                "critical",
                "known_poll_no_progress",
                streak,
                f"CRITICAL: Called {tool} with identical arguments and no progress {streak} "
                "times. This appears to be a stuck polling loop. Session execution blocked to "
                "prevent resource waste.",
                f"poll:{tool}:{h}:{latest or 'none'}",
            )
        if poll and s.known_poll_no_progress and streak >= s.warning_threshold:
            return Verdict(
                "warning",
                "known_poll_no_progress",
                streak,
                f"WARNING: You have called {tool} {streak} times with identical arguments and "
                "no progress. Stop polling and either (1) increase wait time between checks, or "
                "(2) report the task as failed if the process is stuck.",
                f"poll:{tool}:{h}:{latest or 'none'}",
            )
        pong = ping_pong(history, h)
        if s.ping_pong and pong is not None:
            count, evidence, last = pong
            key = "pingpong:" + "|".join(sorted([h, last.args_hash]))
            if count >= s.critical_threshold and evidence:
                return Verdict(
                    "critical",
                    "ping_pong",
                    count,
                    f"CRITICAL: You are alternating between repeated tool-call patterns ({count} "
                    "consecutive calls) with no progress. This appears to be a stuck ping-pong "
                    "loop. Session execution blocked to prevent resource waste.",
                    key,
                    last.tool,
                )
            if count >= s.warning_threshold:
                return Verdict(
                    "warning",
                    "ping_pong",
                    count,
                    f"WARNING: You are alternating between repeated tool-call patterns ({count} "
                    "consecutive calls). This looks like a ping-pong loop; stop retrying and "
                    "report the task as failed.",
                    key,
                    last.tool,
                )
        generic_critical = self.detector.generation != "E5.4"  # 09 §9.1 item 1
        if not poll and s.generic_repeat and generic_critical and streak >= s.critical_threshold:
            return Verdict(
                "critical",
                "generic_repeat",
                streak,
                f"CRITICAL: Called {tool} with identical arguments and identical outcomes "
                f"{streak} times. Session execution blocked to prevent runaway loops.",
                f"generic:{tool}:{h}:{latest or 'none'}",
            )
        recent = sum(1 for r in history if r.tool == tool and r.args_hash == h)
        if not poll and s.generic_repeat and recent >= s.warning_threshold:
            return Verdict(
                "warning",
                "generic_repeat",
                recent,
                f"WARNING: You have called {tool} {recent} times with identical arguments. If "
                "this is not making progress, stop retrying and report the task as failed.",
                f"generic:{tool}:{h}",
            )
        return Verdict()


# -- streaks over the run-scoped history (04 §4.5), each a full rescan ---------------------------


def unknown_tool_streak(history: list[_Record], tool: str) -> tuple[str | None, int]:
    if not history or history[-1].tool != tool or history[-1].unknown_tool is None:
        return None, 0
    unknown = history[-1].unknown_tool
    count = 0
    for record in reversed(history):
        if record.tool != tool or record.unknown_tool is None:
            break
        if record.unknown_tool != unknown:
            break
        count += 1
    return unknown, count


def no_progress_streak(history: list[_Record], tool: str, h: str) -> tuple[str | None, int]:
    latest: str | None = None
    count = 0
    for record in reversed(history):
        if record.tool != tool or record.args_hash != h or record.result_hash is None:
            continue
        if latest is None:
            latest, count = record.result_hash, 1
        elif record.result_hash == latest:
            count += 1
        else:
            break
    return latest, count


def ping_pong(history: list[_Record], h: str) -> tuple[int, bool, _Record] | None:
    """(count, noProgressEvidence, last record) when the current call continues a ping-pong."""
    if not history:
        return None
    last = history[-1]
    other = None
    for record in reversed(history[:-1]):
        if record.args_hash != last.args_hash:
            other = record.args_hash
            break
    if other is None or h != other:
        return None
    tail = 0
    for offset, record in enumerate(reversed(history)):
        if record.args_hash != (last.args_hash if offset % 2 == 0 else other):
            break
        tail += 1
    if tail < 2:
        return None
    records = history[-tail:]
    hashes = {
        side: {r.result_hash for r in records if r.args_hash == side}
        for side in (last.args_hash, other)
    }
    evidence = all(r.result_hash is not None for r in records) and all(
        len(side) == 1 for side in hashes.values()
    )
    return tail + 1, evidence, last
