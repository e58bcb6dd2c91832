"""The `tools.loopDetection` key set: one table, the single source for schema, lints and resolve.

Each setting records the OpenClaw release range in which it is accepted, so that a later
`--openclaw VERSION` switch can pick the key set of a release line from data, not from code.
"""

from __future__ import annotations

from functools import cache
from typing import Literal, NamedTuple, TypeAlias

Kind: TypeAlias = Literal["boolean", "positiveInteger"]

# Groups are objects inside the block whose keys merge one level deep (02 §2.2).
GROUPS: tuple[str, ...] = ("detectors", "postCompactionGuard")

# Releases are compared as tuples of ints: "2026.4.14" -> (2026, 4, 14).
TARGET_RELEASE = "2026.7.0"


class Setting(NamedTuple):
    """One row of the key table (immutable). A NamedTuple rather than a frozen dataclass:
    defining a dataclass compiles its generated methods on every start (bench/validate_cold.py).
    """

    name: str  # dotted: "warningThreshold", "detectors.pingPong"
    attr: str  # the EffectiveSettings attribute
    kind: Kind
    default: bool | int | None  # None: unset (only `enabled`)
    description: str
    since: str | None = None  # first release that accepts it (None: every release we know)
    until: str | None = None  # first release that no longer accepts it (exclusive)

    @property
    def group(self) -> str | None:
        return self.name.split(".", 1)[0] if "." in self.name else None

    @property
    def leaf(self) -> str:
        return self.name.rsplit(".", 1)[-1]


_REMOVED_IN = "2026.8.1"  # from here on only `enabled` is accepted

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "enabled",
        "enabled",
        "boolean",
        None,
        "Master switch for the rolling-history detectors (unset acts as false). An explicit "
        "false also turns off the post-compaction guard; leave it unset to keep the guard.",
    ),
    Setting(
        "historySize",
        "history_size",
        "positiveInteger",
        30,
        "Recent tool calls kept for analysis. Counts never exceed it, so a threshold larger "
        "than historySize can never fire.",
        until=_REMOVED_IN,
    ),
    Setting(
        "warningThreshold",
        "warning_threshold",
        "positiveInteger",
        10,
        "Count at which a repeated pattern is reported as a warning. Must be lower than "
        "criticalThreshold.",
        until=_REMOVED_IN,
    ),
    Setting(
        "criticalThreshold",
        "critical_threshold",
        "positiveInteger",
        20,
        "Count at which repeated no-progress patterns are blocked. Must be higher than "
        "warningThreshold and lower than globalCircuitBreakerThreshold.",
        until=_REMOVED_IN,
    ),
    Setting(
        "unknownToolThreshold",
        "unknown_tool_threshold",
        "positiveInteger",
        10,
        "Repeated calls to the same unavailable tool are blocked after this many misses.",
        since="2026.4.14",
        until=_REMOVED_IN,
    ),
    Setting(
        "globalCircuitBreakerThreshold",
        "global_circuit_breaker_threshold",
        "positiveInteger",
        30,
        "No-progress circuit breaker across all detectors. Must be higher than criticalThreshold.",
        until=_REMOVED_IN,
    ),
    Setting(
        "detectors.genericRepeat",
        "generic_repeat",
        "boolean",
        True,
        "Warn on identical tool+args; block when the results are identical too.",
        until=_REMOVED_IN,
    ),
    Setting(
        "detectors.knownPollNoProgress",
        "known_poll_no_progress",
        "boolean",
        True,
        "Known polling tools (command_status, process poll/log) with no state change.",
        until=_REMOVED_IN,
    ),
    Setting(
        "detectors.pingPong",
        "ping_pong",
        "boolean",
        True,
        "Alternating ping-pong patterns between two tool calls.",
        until=_REMOVED_IN,
    ),
    Setting(
        "postCompactionGuard.windowSize",
        "post_compaction_window_size",
        "positiveInteger",
        3,
        "Calls watched after a compaction retry, and the number of identical "
        "(tool, args, result) triples that abort the run.",
        since="2026.5.4",
        until=_REMOVED_IN,
    ),
)

SETTINGS_BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}

THRESHOLD_ORDER: tuple[tuple[str, str], ...] = (
    ("warningThreshold", "criticalThreshold"),
    ("criticalThreshold", "globalCircuitBreakerThreshold"),
)


def release_tuple(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def accepted_in(setting: Setting, release: str = TARGET_RELEASE) -> bool:
    version = release_tuple(release)
    if setting.since is not None and version < release_tuple(setting.since):
        return False
    return setting.until is None or version < release_tuple(setting.until)


@cache  # the key set of a release never changes; every block read asks for it
def settings_for(release: str = TARGET_RELEASE) -> tuple[Setting, ...]:
    return tuple(setting for setting in SETTINGS if accepted_in(setting, release))


def top_level_keys(release: str = TARGET_RELEASE) -> list[str]:
    """Keys allowed directly in the block (groups appear once)."""
    keys: list[str] = []
    for setting in settings_for(release):
        top = setting.group or setting.name
        if top not in keys:
            keys.append(top)
    return keys


def group_keys(group: str, release: str = TARGET_RELEASE) -> list[str]:
    return [s.leaf for s in settings_for(release) if s.group == group]
