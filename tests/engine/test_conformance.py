"""loopcfg's engine agrees with the real OpenClaw releases on every recorded call.

The vectors (tests/conformance/vectors/engine/, recorded by conformance/record_engine.py from
2026.5.4, 2026.5.12, 2026.6.5, 2026.7.1-2 and 2026.9.6) are replayed through loopcfg with the
recorder's host steps (`engine_vectors.replay_with_loopcfg`); apart from 04 §4.7's deliberate
deviation, which the vectors mark (`loopcfgEmitted`), every field of every call and every abort
must be OpenClaw's. `conformance/compare_engine.py` prints the same figures.
"""

from __future__ import annotations

import pytest

from tests.conformance import engine_vectors as ev


@pytest.mark.parametrize("version", ev.RELEASES)
def test_every_recorded_call_agrees(version: str) -> None:
    traces = ev.traces()
    disagreeing = []
    for trace_id, answer in ev.answers(version).items():
        mine = ev.replay_with_loopcfg(traces[trace_id], version)
        disagreeing.extend(ev.differences(answer, mine))
    assert disagreeing == []


@pytest.mark.parametrize("version", ev.RELEASES)
def test_every_corpus_call_agrees(version: str) -> None:
    if not (ev.CORPUS / "openclaw").is_dir():
        pytest.skip("shared corpus not present")
    sessions = {session.name: session for session in ev.corpus_sessions_in()}
    _, rows = ev.release_file(version, corpus=True)
    for row in rows:
        lines, _ = ev.corpus_trace(sessions[row["id"]])
        trace = {"id": row["id"], "config": {"enabled": True}, "lines": lines}
        assert ev.differences(row, ev.replay_with_loopcfg(trace, version)) == [], row["id"]


def test_a_wrong_engine_would_disagree() -> None:
    """The comparison can fail: E6.5's answers are not 2026.9.6's."""
    traces = ev.traces()
    answers = ev.answers("2026.9.6")
    found = [
        difference
        for trace_id in ("spec-T1", "spec-T3")
        for difference in ev.differences(
            answers[trace_id], ev.replay_with_loopcfg(traces[trace_id], "2026.7.1-2")
        )
    ]
    assert {difference.kind for difference in found} >= {"level", "resultHash"}
