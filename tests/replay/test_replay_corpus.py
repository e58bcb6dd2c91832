"""Replay on the real recorded sessions (../shared/corpus, skipped when absent).

Only tool names, counts, detectors and line numbers are asserted: the files hold personal data.
"""

from __future__ import annotations

from pathlib import Path

from loopcfg.replay.driver import ReplayOptions, replay_file
from loopcfg.replay.events import Call, Compaction, Malformed, Outcome
from loopcfg.replay.runner import replay_events
from loopcfg.replay.transcript import read_transcript

from .helpers import ScriptedSessions, read_file

EDIT_LOOP = "andre__44de2062__edit-error-repeat-15x.jsonl"
OVERFLOW = "reinforcement__0139686e__overflow-compaction-retry.jsonl"
V1_FILES = {
    "pi-mono__before-compaction__v1-two-compactions.jsonl": (454, 448),
    "pi-mono__large-session__v1.jsonl": (391, 373),
}


def test_every_file_reads_without_a_malformed_line(corpus: Path) -> None:
    files = sorted(corpus.glob("*.jsonl"))
    assert len(files) >= 8
    for path in files:
        events = read_file(path)
        assert not [e for e in events if isinstance(e, Malformed)], path.name
        assert any(isinstance(e, Call) for e in events), path.name


def test_v1_fixtures_parse_with_their_call_and_result_counts(corpus: Path) -> None:
    for name, (calls, results) in V1_FILES.items():
        events = read_file(corpus / name)
        assert sum(isinstance(e, Call) for e in events) == calls
        outcomes = [e for e in events if isinstance(e, Outcome)]
        assert len(outcomes) == results and not any(o.orphan for o in outcomes)


def test_dangling_call_at_the_end_stays_unanswered(corpus: Path) -> None:
    events = read_file(corpus / "cat-tj__de164575__validation-error-repeats-dangling-call.jsonl")
    calls = [e for e in events if isinstance(e, Call)]
    answered = {e.call_id for e in events if isinstance(e, Outcome)}
    assert calls[-1].line == 30 and calls[-1].call_id not in answered


def test_parallel_calls_in_one_message(corpus: Path) -> None:
    events = read_file(corpus / "openclawlog__1f979e30__small-parallel-calls-provider-errors.jsonl")
    calls = [e for e in events if isinstance(e, Call)]
    assert [c.tool for c in calls] == ["edit", "edit"] and calls[0].line == calls[1].line


def test_edit_loop_is_fifteen_identical_failing_calls(corpus: Path) -> None:
    events = read_file(corpus / EDIT_LOOP)
    edits = [e for e in events if isinstance(e, Outcome) and e.tool == "edit"]
    assert len(edits) >= 15 and 31 <= edits[0].line <= 59


def test_overflow_compaction_retry_arms_the_guard(corpus: Path) -> None:
    sessions = ScriptedSessions()
    path = corpus / OVERFLOW
    with path.open("rb") as stream:
        events = list(read_transcript(path.name, enumerate(stream, start=1)))
    # Line 347 is followed by the retried assistant reply; line 643 by a user message (routine).
    assert [e.line for e in events if isinstance(e, Compaction)] == [347]
    replay_events(path.name, iter(events), sessions)
    logs = [entry for s in sessions.sessions.values() for entry in s.log]
    assert sum(entry[0] == "compaction" for entry in logs) == 1


def test_edit_loop_warns_and_never_blocks_at_defaults(corpus: Path) -> None:
    result = replay_file(str(corpus / EDIT_LOOP), ReplayOptions())
    stats = result.sessions[0]
    assert stats.warnings >= 1 and stats.blocks == 0
    assert {e.tool for e in result.events if e.emitted} == {"edit"}
    assert {e.detector for e in result.events} == {"generic_repeat"}


def test_negative_controls_stay_quiet_at_defaults(corpus: Path) -> None:
    for name in (*V1_FILES, "archeoneocode__fad751fa__agents-list-repeat-4x.jsonl", OVERFLOW):
        result = replay_file(str(corpus / name), ReplayOptions())
        assert not [e for e in result.events if e.level == "critical"], name
        assert not result.aborts, name
