"""Two replays of the same sessions side by side: what a config change would change.

Finding only; `loopcfg.render.replay` renders a `Comparison` as text or JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loopcfg.replay.configs import ConfigTable, changed_settings
from loopcfg.replay.runner import FileReplay, ReplayAbort, ReplayEvent, SessionStats

EventKey = tuple[int, str, str | None]

# Kinds of change, in the order the summary lists them.
CHANGE_KINDS = (
    "gains a block",
    "blocked earlier",
    "blocked later",
    "loses its block",
    "gains an abort",
    "aborts elsewhere",
    "loses its abort",
    "gains a warning",
    "warned earlier",
    "warned later",
    "loses its warning",
)


@dataclass(frozen=True, slots=True)
class Change:
    """One difference a user tuning thresholds cares about, for one session."""

    kind: str  # one of CHANGE_KINDS
    a: int | None  # call number (line for aborts) under a, None when a had none
    b: int | None

    def sentence(self, label_a: str, label_b: str) -> str:
        """Plain language, always from b's point of view ("with b this session would ...")."""
        a, b = self.a, self.b
        with_b = f"with {label_b} this session would"
        if self.kind == "gains a block":
            return f"{with_b} gain a block at call #{b} (never blocked with {label_a})"
        if self.kind == "loses its block":
            return f"{with_b} no longer be blocked ({label_a} blocks it at call #{a})"
        if self.kind in ("blocked earlier", "blocked later"):
            return f"{with_b} have been blocked {_calls_apart(a, b)} (call #{b} instead of #{a})"
        if self.kind == "gains a warning":
            return f"{with_b} be warned at call #{b} (never warned with {label_a})"
        if self.kind == "loses its warning":
            return f"{with_b} no longer be warned ({label_a} warns at call #{a})"
        if self.kind in ("warned earlier", "warned later"):
            return f"{with_b} have been warned {_calls_apart(a, b)} (call #{b} instead of #{a})"
        if self.kind == "gains an abort":
            return f"{with_b} be aborted by the guard at line {b} (no abort with {label_a})"
        if self.kind == "loses its abort":
            return f"{with_b} no longer be aborted ({label_a} aborts it at line {a})"
        return f"{with_b} be aborted at line {b} instead of line {a}"


def _calls_apart(a: int | None, b: int | None) -> str:
    delta = (a or 0) - (b or 0)
    noun = "call" if abs(delta) == 1 else "calls"
    return f"{abs(delta)} {noun} {'earlier' if delta > 0 else 'later'}"


@dataclass(slots=True)
class SessionDiff:
    """One session under the baseline (a) and the candidate (b)."""

    file: str
    session: str
    a: SessionStats
    b: SessionStats
    only_a: list[ReplayEvent] = field(default_factory=list)
    only_b: list[ReplayEvent] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.only_a or self.only_b or self.changes)


@dataclass(slots=True)
class Comparison:
    label_a: str
    label_b: str
    settings: list[tuple[str, Any, Any]]
    sessions: list[SessionDiff]

    def counts(self) -> dict[str, int]:
        """Sessions per kind of change, every kind present (zero when none)."""
        counts = dict.fromkeys(CHANGE_KINDS, 0)
        for diff in self.sessions:
            for change in diff.changes:
                counts[change.kind] += 1
        return counts


def _key(event: ReplayEvent) -> EventKey:
    return (event.line, event.level, event.detector)


def _counted(event: ReplayEvent) -> bool:
    """The events a user sees: emitted warnings and every critical."""
    return event.emitted or event.level == "critical"


def _first(events: Sequence[ReplayEvent], level: str) -> int | None:
    return next((e.call for e in events if e.level == level), None)


def _first_abort(aborts: Sequence[ReplayAbort]) -> int | None:
    return aborts[0].line if aborts else None


def _change(kind_prefix: str, a: int | None, b: int | None) -> Change | None:
    """gain / lose / earlier / later for blocks and warnings."""
    if a == b:
        return None
    if a is None:
        return Change(f"gains a {kind_prefix}", a, b)
    if b is None:
        return Change(f"loses its {kind_prefix}", a, b)
    verb = "blocked" if kind_prefix == "block" else "warned"
    return Change(f"{verb} {'earlier' if b < a else 'later'}", a, b)


def _abort_change(a: int | None, b: int | None) -> Change | None:
    if a == b:
        return None
    if a is None:
        return Change("gains an abort", a, b)
    if b is None:
        return Change("loses its abort", a, b)
    return Change("aborts elsewhere", a, b)


def _changes(
    events_a: Sequence[ReplayEvent],
    events_b: Sequence[ReplayEvent],
    aborts_a: Sequence[ReplayAbort],
    aborts_b: Sequence[ReplayAbort],
) -> list[Change]:
    found = [
        _change("block", _first(events_a, "critical"), _first(events_b, "critical")),
        _abort_change(_first_abort(aborts_a), _first_abort(aborts_b)),
        _change("warning", _first(events_a, "warning"), _first(events_b, "warning")),
    ]
    return [change for change in found if change is not None]


def compare_results(
    a: Sequence[FileReplay],
    b: Sequence[FileReplay],
    table_a: ConfigTable,
    table_b: ConfigTable,
) -> Comparison:
    """Pair sessions by (file, session); events that differ by (line, level, detector)."""
    diffs: list[SessionDiff] = []
    for file_a, file_b in zip(a, b, strict=True):
        stats_b = {s.session: s for s in file_b.sessions}
        all_a, all_b = file_a.events_by_session(), file_b.events_by_session()
        aborts_a, aborts_b = file_a.aborts_by_session(), file_b.aborts_by_session()
        for stats_a in file_a.sessions:
            name = stats_a.session
            other = stats_b.get(name, SessionStats(file_a.file, name))
            events_a = [e for e in all_a.get(name, []) if _counted(e)]
            events_b = [e for e in all_b.get(name, []) if _counted(e)]
            keys_a = {_key(e) for e in events_a}
            keys_b = {_key(e) for e in events_b}
            diff = SessionDiff(file_a.file, name, stats_a, other)
            diff.only_a = [e for e in events_a if _key(e) not in keys_b]
            diff.only_b = [e for e in events_b if _key(e) not in keys_a]
            diff.changes = _changes(
                events_a,
                events_b,
                aborts_a.get(name, []),
                aborts_b.get(name, []),
            )
            diffs.append(diff)
    settings = changed_settings(table_a.base, table_b.base)
    return Comparison(table_a.label, table_b.label, settings, diffs)
