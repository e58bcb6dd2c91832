"""End to end through the CLI and the real engine on the recorded corpus (skipped when absent).

Each expectation comes from ../shared/corpus/SOURCES.md; only tool names, counts, detectors and
line numbers are asserted (the files hold personal data).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.replay.driver import EngineSessions, ReplayOptions, read_events
from loopcfg.replay.lines import numbered
from loopcfg.replay.runner import replay_events

EDIT_LOOP = "andre__44de2062__edit-error-repeat-15x.jsonl"
OVERFLOW = "reinforcement__0139686e__overflow-compaction-retry.jsonl"
AGENTS_LIST = "archeoneocode__fad751fa__agents-list-repeat-4x.jsonl"
V1_BEFORE = "pi-mono__before-compaction__v1-two-compactions.jsonl"
V1_LARGE = "pi-mono__large-session__v1.jsonl"
NEGATIVE_CONTROLS = (V1_BEFORE, V1_LARGE, AGENTS_LIST, OVERFLOW)


def replay_json(*args: str) -> tuple[dict[str, Any], int]:
    result = CliRunner().invoke(cli, ["replay", "--jobs", "1", "--format", "json", *args])
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout), result.exit_code


def guard_config(tmp_path: Path, window: int) -> str:
    path = tmp_path / "guard.json5"
    path.write_text(
        "{tools: {loopDetection: {enabled: true, "
        f"postCompactionGuard: {{windowSize: {window}}}}}}}}}\n",
        encoding="utf-8",
    )
    return str(path)


def test_edit_loop_warns_once_and_never_blocks(corpus: Path) -> None:
    document, code = replay_json(str(corpus / EDIT_LOOP), "--fail-on", "critical")
    assert code == 0
    events = document["events"]
    # 15 identical failing edits on lines 31-59: the 11th (line 51) has 10 before it.
    assert [(e["line"], e["tool"], e["count"], e["emitted"]) for e in events] == [
        (51, "edit", 10, True),
        (53, "edit", 11, False),
        (55, "edit", 12, False),
        (57, "edit", 13, False),
        (59, "edit", 14, False),
    ]
    assert {(e["level"], e["detector"]) for e in events} == {("warning", "generic_repeat")}
    (stats,) = document["sessions"]
    assert (stats["warnings"], stats["blocks"], stats["aborted"]) == (1, 0, False)


def test_edit_loop_fails_ci_on_warning_only(corpus: Path) -> None:
    path = str(corpus / EDIT_LOOP)
    assert replay_json(path, "--fail-on", "warning")[1] == 1
    assert replay_json(path, "--fail-on", "abort")[1] == 0


def test_negative_controls_stay_quiet(corpus: Path) -> None:
    document, code = replay_json(*(str(corpus / name) for name in NEGATIVE_CONTROLS))
    assert code == 0
    assert document["events"] == [] and document["aborts"] == []
    assert len(document["sessions"]) == len(NEGATIVE_CONTROLS)


def test_agents_list_repeat_is_below_every_threshold(corpus: Path) -> None:
    document, _ = replay_json(str(corpus / AGENTS_LIST), "--fail-on", "warning")
    assert document["events"] == [] and document["sessions"][0]["calls"] == 30


def test_v1_fixtures_replay_every_call(corpus: Path) -> None:
    document, code = replay_json(str(corpus / V1_BEFORE), str(corpus / V1_LARGE))
    assert code == 0
    assert [s["calls"] for s in document["sessions"]] == [454, 391]
    assert [s["orphanResults"] for s in document["sessions"]] == [0, 0]


class KeptSessions(EngineSessions):
    """The real engine, with every session it creates kept for inspection (replay itself lets
    a session go when its file ends)."""

    def __init__(self, options: ReplayOptions) -> None:
        super().__init__(options)
        self.kept: list[Any] = []

    def session(self, key: str) -> Any:
        engine = super().session(key)
        self.kept.append(engine)
        return engine


def test_overflow_retry_arms_the_real_guard_once(corpus: Path) -> None:
    """Line 347 is a retry; line 643 is followed by a user message (line 644): routine (7.2)."""
    path = str(corpus / OVERFLOW)
    factory = KeptSessions(ReplayOptions())
    with open(path, "rb") as stream:
        replay_events(path, read_events(path, numbered(stream), ReplayOptions()), factory)
    (session,) = factory.kept
    guards = session.guards  # type: ignore[attr-defined]
    assert len(guards) == 1
    (guard,) = guards.values()
    # The retried reply (line 348) made no tool call, so the whole window is still waiting.
    assert guard.remaining == 3


def test_overflow_guard_aborts_when_the_window_is_one_call(corpus: Path, tmp_path: Path) -> None:
    """Without run scope the armed guard sees the next outcome (line 351) and, with a window of
    one, aborts there: proof through the CLI that the compaction at line 347 armed it."""
    path = str(corpus / OVERFLOW)
    config = guard_config(tmp_path, 1)
    document, code = replay_json(path, "--config", config, "--no-run-scope", "--fail-on", "abort")
    assert code == 1
    assert [(a["line"], a["tool"], a["count"], a["code"]) for a in document["aborts"]] == [
        (351, "exec", 1, "compaction_loop_persisted")
    ]
    stats = document["sessions"][0]
    assert stats["aborted"] and stats["calls"] + stats["skipped"] == 206
    # In run scope the retried run ends without a tool call: nothing to abort.
    assert replay_json(path, "--config", config)[0]["aborts"] == []


def test_every_corpus_file_replays_in_a_folder_walk(corpus: Path) -> None:
    document, code = replay_json(str(corpus), "--fail-on", "critical")
    assert code == 0
    assert len(document["sessions"]) == len(list(corpus.glob("*.jsonl")))
    assert {e["tool"] for e in document["events"]} == {"edit"}
