"""Verdicts, events, exceptions and the exact messages of 04 §4.6-§4.9."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["none", "warning", "critical"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the engine says of one call (04 §4.6); `NO_VERDICT` for nearly every call."""

    level: Level = "none"
    detector: str | None = None
    count: int = 0
    message: str = ""
    warning_key: str | None = None
    paired_tool: str | None = None
    emitted: bool = False
    # E8.1: "argument_churn" on churn warnings and on poll/ping-pong warnings during churn, a
    # liveness hint that never changes the verdict (09 §9.4.5).
    liveness_signal: str | None = None


NO_VERDICT = Verdict()


@dataclass(frozen=True, slots=True)
class LoopEvent:
    """One emitted verdict (04 §4.7)."""

    level: Level
    detector: str
    tool: str
    count: int
    message: str
    run_id: str | None
    key: str | None
    call_index: int
    session: str


class CompactionLoopPersisted(Exception):
    """The post-compaction guard saw the same call and result `window_size` times (04 §4.9)."""

    code = "compaction_loop_persisted"

    def __init__(self, tool: str, count: int, window_size: int) -> None:
        super().__init__(
            f"CRITICAL: tool {tool} repeated {count} times with identical arguments and identical "
            f"results within {window_size} attempts after auto-compaction. The compaction did not "
            "break the loop. Aborting to prevent runaway resource use."
        )
        self.tool = tool
        self.count = count
        self.window_size = window_size


class LoopBlocked(Exception):
    """Raised by `session.call(...)` when the verdict is critical: the tool must not run."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


def blocked_result(verdict: Verdict) -> dict[str, Any]:
    """The tool result handed back to the model instead of running the tool (04 §4.8)."""
    return {
        "content": [{"type": "text", "text": verdict.message}],
        "details": {"status": "blocked", "deniedReason": "tool-loop", "reason": verdict.message},
    }


def unknown_tool(tool: str, unknown: str | None, n: int) -> Verdict:
    name = unknown or tool
    return Verdict(
        "critical",
        "unknown_tool_repeat",
        n,
        f"CRITICAL: attempted unavailable tool {name} {n} times. Stop retrying that missing tool "
        "and answer without it.",
        f"unknown-tool:{tool}:{unknown or 'unknown'}",
    )


def global_breaker(tool: str, h: str, latest: str | None, n: int) -> Verdict:
    return Verdict(
        "critical",
        "global_circuit_breaker",
        n,
        f"CRITICAL: {tool} has repeated identical no-progress outcomes {n} times. Session "
        "execution blocked by global circuit breaker to prevent runaway loops.",
        f"global:{tool}:{h}:{latest or 'none'}",
    )


def poll_critical(tool: str, h: str, latest: str | None, n: int) -> Verdict:
    return Verdict(
        "critical",
        "known_poll_no_progress",
        n,
        f"CRITICAL: Called {tool} with identical arguments and no progress {n} times. This "
        "appears to be a stuck polling loop. Session execution blocked to prevent resource waste.",
        f"poll:{tool}:{h}:{latest or 'none'}",
    )


def poll_warning(tool: str, h: str, latest: str | None, n: int) -> Verdict:
    return Verdict(
        "warning",
        "known_poll_no_progress",
        n,
        f"WARNING: You have called {tool} {n} times with identical arguments and no progress. "
        "Stop polling and either (1) increase wait time between checks, or (2) report the task "
        "as failed if the process is stuck.",
        f"poll:{tool}:{h}:{latest or 'none'}",
    )


def ping_pong(level: Level, h: str, last: str, n: int, paired_tool: str | None) -> Verdict:
    if level == "critical":
        message = (
            f"CRITICAL: You are alternating between repeated tool-call patterns ({n} consecutive "
            "calls) with no progress. This appears to be a stuck ping-pong loop. Session "
            "execution blocked to prevent resource waste."
        )
    else:
        message = (
            f"WARNING: You are alternating between repeated tool-call patterns ({n} consecutive "
            "calls). This looks like a ping-pong loop; stop retrying and report the task as "
            "failed."
        )
    key = "pingpong:" + "|".join(sorted((h, last)))
    return Verdict(level, "ping_pong", n, message, key, paired_tool)


def generic_critical(tool: str, h: str, latest: str | None, n: int) -> Verdict:
    return Verdict(
        "critical",
        "generic_repeat",
        n,
        f"CRITICAL: Called {tool} with identical arguments and identical outcomes {n} times. "
        "Session execution blocked to prevent runaway loops.",
        f"generic:{tool}:{h}:{latest or 'none'}",
    )


def generic_warning(tool: str, h: str, n: int) -> Verdict:
    return Verdict(
        "warning",
        "generic_repeat",
        n,
        f"WARNING: You have called {tool} {n} times with identical arguments. If this is not "
        "making progress, stop retrying and report the task as failed.",
        f"generic:{tool}:{h}",
    )


# -- E8.1's own texts (09 §9.4.5, §9.4.7) ---------------------------------------------------------


def v4_global_breaker(tool: str, h: str, latest: str | None, n: int) -> Verdict:
    return Verdict(
        "critical",
        "global_circuit_breaker",
        n,
        f"CRITICAL: {tool} repeated identical no-progress outcomes {n} times. Session execution "
        "blocked by global circuit breaker to prevent runaway loops.",
        f"global:{tool}:{h}:{latest or 'none'}",
    )


def v4_generic_critical(tool: str, h: str, latest: str | None, n: int) -> Verdict:
    return Verdict(
        "critical",
        "generic_repeat",
        n,
        f"CRITICAL: Called {tool} with identical outcomes {n} times. Session execution blocked "
        "to prevent runaway loops.",
        f"generic:{tool}:{h}:{latest or 'none'}",
    )


def argument_churn(tool: str, patterns: int, n: int) -> Verdict:
    return Verdict(
        "warning",
        "argument_churn",
        n,
        f"WARNING: {tool} has cycled through {patterns} repeated argument patterns with the same "
        f"stable outcome {n} times. Continued churn is treated as stalled run activity, but this "
        "tool call remains allowed.",
        f"argument-churn:{tool}",
        liveness_signal="argument_churn",
    )


RECOVERY_TRIGGER_NOTE = (
    "\n\nDo not repeat this exact tool action. Reassess the task. You may answer the user, ask "
    "for clarification, or continue with a different tool or different arguments."
)
RECOVERY_OTHER_TEXT = (
    "This tool was not executed because another call in the batch triggered critical tool-loop "
    "recovery. Reassess the task before choosing the next action."
)
TERMINATE_TRIGGER_NOTE = (
    "\n\nCritical tool-loop recovery failed because another critical loop was detected. This "
    "run is stopping now."
)
TERMINATE_OTHER_TEXT = (
    "This tool was not executed because another call in the batch repeated a critical tool "
    "loop. This run is stopping now."
)
RUN_TERMINATED_MESSAGE = (
    "OpenClaw stopped this run because tool-loop recovery encountered another critical loop. No "
    "blocked tool action was executed."
)
RUN_TERMINATED_CODE = "run_terminated"
