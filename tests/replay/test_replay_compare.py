"""--compare: which changes are found, and the sentences and summary that say them."""

from __future__ import annotations

import json

import pytest

from loopcfg.render.replay import render_compare_json, render_compare_text
from loopcfg.replay.compare import CHANGE_KINDS, compare_results
from loopcfg.replay.configs import ConfigTable
from loopcfg.replay.runner import FileReplay, ReplayAbort, ReplayEvent, SessionStats
from loopcfg.settings import settings_from_block

A = ConfigTable("a.json5", settings_from_block({"enabled": True}), settings_from_block({}))
B = ConfigTable(
    "b.json5",
    settings_from_block({"enabled": True, "criticalThreshold": 12}),
    settings_from_block({}),
)


def event(call: int, level: str, emitted: bool = True) -> ReplayEvent:
    detector = "generic_repeat"
    return ReplayEvent(
        "f", call * 2, "s", None, call, "edit", level, detector, call, "", "k", emitted
    )


def replay(*events: ReplayEvent, abort_line: int | None = None) -> FileReplay:
    result = FileReplay("f", events=list(events), sessions=[SessionStats("f", "s")])
    if abort_line is not None:
        result.aborts.append(ReplayAbort("f", abort_line, "s", None, "exec", 3, "c", "m"))
    return result


W = "with b.json5 this session would "
CASES = [
    # (a's events, b's events, a abort, b abort, expected sentences)
    ((), (), None, None, []),
    ((event(22, "critical"),), (event(14, "critical"),), None, None,
     [W + "have been blocked 8 calls earlier (call #14 instead of #22)"]),
    ((event(14, "critical"),), (event(15, "critical"),), None, None,
     [W + "have been blocked 1 call later (call #15 instead of #14)"]),
    ((), (event(14, "critical"),), None, None,
     [W + "gain a block at call #14 (never blocked with a.json5)"]),
    ((event(21, "critical"),), (), None, None,
     [W + "no longer be blocked (a.json5 blocks it at call #21)"]),
    ((event(12, "warning"),), (event(7, "warning"),), None, None,
     [W + "have been warned 5 calls earlier (call #7 instead of #12)"]),
    ((), (event(7, "warning"),), None, None,
     [W + "be warned at call #7 (never warned with a.json5)"]),
    ((event(7, "warning"),), (), None, None,
     [W + "no longer be warned (a.json5 warns at call #7)"]),
    # A suppressed warning is not a warning the user sees.
    ((event(7, "warning", emitted=False),), (), None, None, []),
    ((), (), None, 40,
     [W + "be aborted by the guard at line 40 (no abort with a.json5)"]),
    ((), (), 40, None,
     [W + "no longer be aborted (a.json5 aborts it at line 40)"]),
    ((), (), 40, 44, [W + "be aborted at line 44 instead of line 40"]),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b", "abort_a", "abort_b", "expected"), CASES)
def test_sentences(
    a: tuple[ReplayEvent, ...],
    b: tuple[ReplayEvent, ...],
    abort_a: int | None,
    abort_b: int | None,
    expected: list[str],
) -> None:
    comparison = compare_results(
        [replay(*a, abort_line=abort_a)], [replay(*b, abort_line=abort_b)], A, B
    )
    (diff,) = comparison.sessions
    assert [c.sentence("a.json5", "b.json5") for c in diff.changes] == expected
    text = render_compare_text(comparison)
    for sentence in expected:
        assert f"  {sentence}\n" in text
    if not expected:
        assert "no difference with b.json5 in 1 session" in text


def test_summary_counts_every_kind_and_names_the_settings() -> None:
    a = [replay(), replay(event(22, "critical")), replay(event(21, "critical"))]
    b = [replay(event(13, "critical")), replay(event(14, "critical")), replay()]
    comparison = compare_results(a, b, A, B)
    text = render_compare_text(comparison)
    assert text.splitlines()[:2] == [
        "comparing a = a.json5 with b = b.json5",
        "settings that differ: criticalThreshold 20 -> 12",
    ]
    assert text.splitlines()[-4:] == [
        "3 of 3 sessions differ with b.json5:",
        "  1 session would gain a block (none with a.json5): a false block unless really stuck",
        "  1 session would be blocked earlier",
        "  1 session would no longer be blocked",
    ]
    document = json.loads(render_compare_json(comparison))
    assert list(document["summary"]) == list(CHANGE_KINDS)
    assert document["settings"] == [{"setting": "criticalThreshold", "a": 20, "b": 12}]
    assert [len(s["onlyB"]) for s in document["sessions"]] == [1, 1, 0]
