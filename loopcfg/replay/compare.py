"""Two replays of the same sessions side by side: what a config change would change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from loopcfg.replay.runner import FileReplay, ReplayEvent, SessionStats

EventKey = tuple[int, str, str | None]


@dataclass(slots=True)
class SessionDiff:
    """One session under the baseline (a) and the candidate (b)."""

    file: str
    session: str
    a: SessionStats
    b: SessionStats
    only_a: list[ReplayEvent] = field(default_factory=list)
    only_b: list[ReplayEvent] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.only_a or self.only_b) or self.a.aborted != self.b.aborted

    def verdict(self, label_b: str) -> str:
        """One readable sentence about the block and abort changes, or '' when none."""
        first_a, first_b = self.a.first_block_call, self.b.first_block_call
        parts: list[str] = []
        if first_a is None and first_b is not None:
            parts.append(f"with {label_b} this session would gain a block (call #{first_b})")
        elif first_a is not None and first_b is None:
            parts.append(f"with {label_b} this session would no longer be blocked")
        elif first_a is not None and first_b is not None and first_a != first_b:
            delta = first_a - first_b
            when = "earlier" if delta > 0 else "later"
            parts.append(
                f"with {label_b} this session would have been blocked {abs(delta)} calls {when}"
            )
        if self.a.aborted != self.b.aborted:
            parts.append(
                f"with {label_b} the guard would {'abort' if self.b.aborted else 'not abort'}"
            )
        return "; ".join(parts)


def _key(event: ReplayEvent) -> EventKey:
    return (event.line, event.level, event.detector)


def _counted(event: ReplayEvent) -> bool:
    return event.emitted or event.level == "critical"


def compare_results(a: Sequence[FileReplay], b: Sequence[FileReplay]) -> list[SessionDiff]:
    """Pair sessions by (file, session); events that differ by (line, level, detector)."""
    diffs: list[SessionDiff] = []
    for file_a, file_b in zip(a, b, strict=True):
        stats_b = {s.session: s for s in file_b.sessions}
        for stats_a in file_a.sessions:
            other = stats_b.get(stats_a.session, SessionStats(file_a.file, stats_a.session))
            events_a = [e for e in file_a.events if e.session == stats_a.session and _counted(e)]
            events_b = [e for e in file_b.events if e.session == stats_a.session and _counted(e)]
            keys_a = {_key(e) for e in events_a}
            keys_b = {_key(e) for e in events_b}
            diff = SessionDiff(file_a.file, stats_a.session, stats_a, other)
            diff.only_a = [e for e in events_a if _key(e) not in keys_b]
            diff.only_b = [e for e in events_b if _key(e) not in keys_a]
            diffs.append(diff)
    return diffs


def render_compare(diffs: Sequence[SessionDiff], label_a: str, label_b: str) -> str:
    lines = [f"comparing {label_a} (a) with {label_b} (b)", ""]
    for diff in diffs:
        if not diff.changed:
            continue
        lines.append(f"{diff.file} · session {diff.session}")
        for side, events in (("a", diff.only_a), ("b", diff.only_b)):
            for event in events:
                lines.append(
                    f"  only {side}: call #{event.call:<5} line {event.line:<6} {event.tool:<16} "
                    f"{event.level:<8} {event.detector or '-'} ×{event.count}"
                )
        sentence = diff.verdict(label_b)
        if sentence:
            lines.append(f"  {sentence}")
        lines.append("")
    lines.extend(_summary(diffs, label_b))
    return "\n".join(lines) + "\n"


def _summary(diffs: Sequence[SessionDiff], label_b: str) -> list[str]:
    gain = sum(
        1 for d in diffs if d.a.first_block_call is None and d.b.first_block_call is not None
    )
    lose = sum(
        1 for d in diffs if d.a.first_block_call is not None and d.b.first_block_call is None
    )
    changed = sum(1 for d in diffs if d.changed)
    return [
        f"{changed} of {len(diffs)} sessions differ; with {label_b}: "
        f"{_sessions(gain)} would gain a block, {_sessions(lose)} would lose one"
    ]


def _sessions(count: int) -> str:
    return f"{count} session" if count == 1 else f"{count} sessions"
