"""The `tools.loopDetection` settings: name, kind, default and description of each.

Which release accepts which setting is not here: that is the release table's
(`loopcfg/releases.py`, `KEY_LIFECYCLE`); the functions below take a release line's id and read
the table.
"""

from __future__ import annotations

from functools import cache
from typing import Literal, NamedTuple, TypeAlias

from loopcfg.releases import FULL_KNOBS, line_settings

Kind: TypeAlias = Literal["boolean", "positiveInteger"]

# Groups are objects inside the block whose keys merge one level deep (02 §2.2).
GROUPS: tuple[str, ...] = ("detectors", "postCompactionGuard")

# The full-knob line (08 §8.1), which checks a config when no known target is given.
DEFAULT_LINE = FULL_KNOBS.id


class Setting(NamedTuple):
    """One row of the key table (immutable). A NamedTuple rather than a frozen dataclass:
    defining a dataclass compiles its generated methods on every start (bench/validate_cold.py).
    """

    name: str  # dotted: "warningThreshold", "detectors.pingPong"
    attr: str  # the EffectiveSettings attribute
    kind: Kind
    default: bool | int | None  # None: unset (only `enabled`)
    description: str

    @property
    def group(self) -> str | None:
        return self.name.split(".", 1)[0] if "." in self.name else None

    @property
    def leaf(self) -> str:
        return self.name.rsplit(".", 1)[-1]


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
    ),
    Setting(
        "warningThreshold",
        "warning_threshold",
        "positiveInteger",
        10,
        "Count at which a repeated pattern is reported as a warning. Must be lower than "
        "criticalThreshold.",
    ),
    Setting(
        "criticalThreshold",
        "critical_threshold",
        "positiveInteger",
        20,
        "Count at which repeated no-progress patterns are blocked. Must be higher than "
        "warningThreshold and lower than globalCircuitBreakerThreshold.",
    ),
    Setting(
        "unknownToolThreshold",
        "unknown_tool_threshold",
        "positiveInteger",
        10,
        "Repeated calls to the same unavailable tool are blocked after this many misses.",
    ),
    Setting(
        "globalCircuitBreakerThreshold",
        "global_circuit_breaker_threshold",
        "positiveInteger",
        30,
        "No-progress circuit breaker across all detectors. Must be higher than criticalThreshold.",
    ),
    Setting(
        "detectors.genericRepeat",
        "generic_repeat",
        "boolean",
        True,
        "Warn on identical tool+args; block when the results are identical too.",
    ),
    Setting(
        "detectors.knownPollNoProgress",
        "known_poll_no_progress",
        "boolean",
        True,
        "Known polling tools (command_status, process poll/log) with no state change.",
    ),
    Setting(
        "detectors.pingPong",
        "ping_pong",
        "boolean",
        True,
        "Alternating ping-pong patterns between two tool calls.",
    ),
    Setting(
        "postCompactionGuard.windowSize",
        "post_compaction_window_size",
        "positiveInteger",
        3,
        "Calls watched after a compaction retry, and the number of identical "
        "(tool, args, result) triples that abort the run.",
    ),
)

SETTINGS_BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}

THRESHOLD_ORDER: tuple[tuple[str, str], ...] = (
    ("warningThreshold", "criticalThreshold"),
    ("criticalThreshold", "globalCircuitBreakerThreshold"),
)


@cache  # a line's key set never changes; every block read asks for it
def settings_for(line: str = DEFAULT_LINE) -> tuple[Setting, ...]:
    """The settings release line `line` ("S2", "S3", ...) accepts, in table order."""
    accepted = line_settings(line)
    return tuple(setting for setting in SETTINGS if setting.name in accepted)


def top_level_keys(line: str = DEFAULT_LINE) -> list[str]:
    """Keys allowed directly in the block (groups appear once)."""
    keys: list[str] = []
    for setting in settings_for(line):
        top = setting.group or setting.name
        if top not in keys:
            keys.append(top)
    return keys


def group_keys(group: str, line: str = DEFAULT_LINE) -> list[str]:
    return [s.leaf for s in settings_for(line) if s.group == group]


class WrongKey(NamedTuple):
    """A key people write that no OpenClaw release ever accepted (08 §8.4.1, LC012)."""

    written: str  # dotted inside the block: "repeatThreshold", "postCompactionGuard.enabled"
    intended: tuple[str, ...]  # the settings meant (may be empty: nothing to use instead)
    note: str


WRONG_KEYS: tuple[WrongKey, ...] = (
    WrongKey(
        "repeatThreshold",
        ("warningThreshold",),
        "never an OpenClaw key; it comes from unofficial mirror docs",
    ),
    WrongKey(
        "detectorCooldownMs",
        (),
        "OpenClaw has no cooldown; warnings are rate-limited in buckets of 10",
    ),
    WrongKey(
        "windowSize",
        ("historySize", "postCompactionGuard.windowSize"),
        "never an OpenClaw key: historySize is the rolling window, postCompactionGuard.windowSize "
        "the post-compaction window",
    ),
    WrongKey("genericRepeat", ("detectors.genericRepeat",), "detector switches live in detectors"),
    WrongKey(
        "knownPollNoProgress",
        ("detectors.knownPollNoProgress",),
        "detector switches live in detectors",
    ),
    WrongKey("pingPong", ("detectors.pingPong",), "detector switches live in detectors"),
    WrongKey(
        "postCompactionGuard.enabled",
        ("enabled",),
        "never in a release: an explicit enabled: false turns off the guard and the detectors",
    ),
)
WRONG_KEYS_BY_NAME: dict[str, WrongKey] = {wrong.written: wrong for wrong in WRONG_KEYS}
