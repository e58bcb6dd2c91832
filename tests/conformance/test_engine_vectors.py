"""The engine vectors recorded from the real OpenClaw releases: intact, big enough, and saying
what the spec says where the spec states OpenClaw's answer (09 §9.1, §9.5, §9.6; 04 §4.4).

Whether loopcfg's engine agrees with every vector is `conformance/compare_engine.py`'s figure;
the 100 % test comes with the engine generations (issue 12 item 2). Here only what is true today.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from typing import Any

import pytest

from tests.conformance import engine_vectors as ev

SHA256 = re.compile(r"[0-9a-f]{64}")
LEVELS = {"none", "warning", "critical"}
DETECTORS = {
    "generic_repeat",
    "known_poll_no_progress",
    "ping_pong",
    "global_circuit_breaker",
    "unknown_tool_repeat",
    "argument_churn",
}


def calls_of(version: str, trace_id: str) -> list[dict[str, Any]]:
    return list(ev.answers(version)[trace_id]["calls"])


def verdicts(version: str, trace_id: str) -> list[tuple[str, int | None]]:
    return [(call["level"], call.get("count")) for call in calls_of(version, trace_id)]


# --- integrity ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ev.RELEASES)
def test_header_names_the_release_and_the_exact_traces(version: str) -> None:
    header, _ = ev.release_file(version)
    assert header["tracesSha256"] == ev.traces_sha256()
    assert header["count"] == len(ev.traces())
    assert header["path"] == ("batch" if version in ev.BATCH_RELEASES else "single")


@pytest.mark.parametrize("version", ev.RELEASES)
def test_every_trace_has_one_answer_without_driver_errors(version: str) -> None:
    _, answers = ev.release_file(version)
    assert [answer["id"] for answer in answers] == list(ev.traces())
    assert not [answer["id"] for answer in answers if "error" in answer]


@pytest.mark.parametrize("version", ev.RELEASES)
def test_at_least_500_random_traces_of_about_50_calls(version: str) -> None:
    random_ids = [trace_id for trace_id in ev.answers(version) if trace_id.startswith("rand-")]
    calls = sum(len(ev.answers(version)[trace_id]["calls"]) for trace_id in random_ids)
    assert len(random_ids) >= 500
    assert calls / len(random_ids) >= 45


@pytest.mark.parametrize("version", ev.RELEASES)
def test_one_answer_per_call_line_in_order(version: str) -> None:
    for trace_id, trace in ev.traces().items():
        call_lines = [
            number for number, line in enumerate(trace["lines"], start=1) if "type" not in line
        ]
        answer = ev.answers(version)[trace_id]
        assert [call["line"] for call in answer["calls"]] == call_lines, trace_id
        per_session: Counter[str] = Counter()
        for call in answer["calls"]:
            per_session[call.get("session", "default")] += 1
            assert call["call"] == per_session[call.get("session", "default")], trace_id


def well_formed(call: dict[str, Any]) -> bool:
    if call.get("skipped"):
        return set(call) <= {"line", "call", "session", "skipped"}
    if call["level"] not in LEVELS or not call["argsHash"].startswith(call["tool"] + ":"):
        return False
    if not SHA256.fullmatch(call["argsHash"][len(call["tool"]) + 1 :]):
        return False
    hashed = call["resultHash"]
    if hashed is not None and not SHA256.fullmatch(hashed.removeprefix("error:")):
        return False
    if call["level"] == "none":
        return "detector" not in call and not call.get("emitted", False)
    return (
        call["detector"] in DETECTORS
        and call["count"] >= 1
        and call["message"].startswith(call["level"].upper() + ":")
        and isinstance(call["emitted"], bool)
    )


@pytest.mark.parametrize("version", ev.RELEASES)
def test_every_call_is_well_formed(version: str) -> None:
    bad = [
        (answer["id"], call["line"])
        for answer in ev.answers(version).values()
        for call in answer["calls"]
        if not well_formed(call)
    ]
    assert bad == []


@pytest.mark.parametrize("version", ev.RELEASES)
def test_criticals_block_and_are_emitted(version: str) -> None:
    for answer in ev.answers(version).values():
        for call in answer["calls"]:
            if call.get("level") == "critical":
                assert call["blocked"] is True and call["emitted"] is True, answer["id"]


def test_the_deliberate_deviation_is_marked_only_where_the_threshold_is_not_10() -> None:
    """04 §4.7: `loopcfgEmitted` only on warnings, only under a warningThreshold other than 10,
    and only on the single-call releases (2026.9.6 fixes the threshold at 10)."""
    marked = 0
    for version in ev.RELEASES:
        for trace_id, answer in ev.answers(version).items():
            threshold = (ev.traces()[trace_id]["config"] or {}).get("warningThreshold", 10)
            for call in answer["calls"]:
                if "loopcfgEmitted" in call:
                    marked += 1
                    assert call["level"] == "warning"
                    assert call["loopcfgEmitted"] != call["emitted"]
                    assert threshold != 10 and version not in ev.BATCH_RELEASES
    assert marked > 0


def test_batch_fields_only_on_the_batch_release() -> None:
    for version in ev.RELEASES:
        fields = {
            key
            for answer in ev.answers(version).values()
            for call in answer["calls"]
            for key in call
        }
        assert ({"trigger", "recovery"} <= fields) == (version in ev.BATCH_RELEASES), version


def test_blocked_batches_have_one_trigger_and_a_second_critical_ends_the_run() -> None:
    for answer in ev.answers("2026.9.6").values():
        blocked = [call for call in answer["calls"] if call.get("recovery")]
        by_batch: dict[str, list[dict[str, Any]]] = {}
        for call in blocked:  # batch names are unique within a trace; a line without is alone
            by_batch.setdefault(call.get("batch") or f"line {call['line']}", []).append(call)
        for calls in by_batch.values():
            assert sum(1 for call in calls if call["trigger"]) == 1, answer["id"]
        terminated = [
            call for call in blocked if call["recovery"] == "terminated" and call["trigger"]
        ]
        run_ended = [abort for abort in answer["aborts"] if abort["code"] == "run_terminated"]
        assert len(terminated) == len(run_ended), answer["id"]


# --- the spec's vectors come out of the recorder as the spec says ---------------------------

# 09 §9.6, outcome vectors on 2026.9.6: (argsHash digest, resultHash, outcome kind).
SPEC_96 = {
    "N1": [
        (
            "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
            "e7f9fc7e0ab48afe6731a3d7c591e8fa450bf4e4a4507d139dc0d228e22a6407",
            None,
        )
    ],
    "N2": [
        (
            "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
            "e7f9fc7e0ab48afe6731a3d7c591e8fa450bf4e4a4507d139dc0d228e22a6407",
            None,
        )
    ],
    "N3": [
        (
            "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
            "0519a95f3c473a74564b602d578542ed4872c8f8cc33c45134effeb9ff0a4014",
            None,
        )
    ],
    "N4": [
        (
            "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
            "d330e1eed91d4ec31e2d0951a7587e692064488c24b6628f7f53cc807394e859",
            None,
        )
    ],
    "N5": [
        (
            "975d604e4d09afb89817dd0e10fbce3f92c639d3efcb967e79a925c42cfabc0e",
            "5226961c7693ddd3ee8f78ca4e4fc86783aa928b5de5ba3efc82687ce8339044",
            None,
        )
    ],
    "N6": [
        (
            "975d604e4d09afb89817dd0e10fbce3f92c639d3efcb967e79a925c42cfabc0e",
            "5226961c7693ddd3ee8f78ca4e4fc86783aa928b5de5ba3efc82687ce8339044",
            None,
        )
    ],
    "N7": [
        (
            "d607dcf3a121bddbaa7ccc4ffe008fd2b18193df2ea4e322e08bc2b337560470",
            "error:75c773abae8ef73018f461b2c4cafc094641c900aa91dce9f038bcd3a489893a",
            None,
        )
    ]
    * 2,
    "N8": [
        (
            "cb5973e85271d92f90fad31e13445cab819b5ea2d07df51fd72dc3ff3ec8b840",
            "9915c1dcbac87e7fce734e5bab2baf7358be7be8754f10a5fc93f76321587561",
            None,
        ),
        (
            "2a224ccca37d753fb388ed0b99461bc7d4e42c8c4add81fa80e7aaba0f92b517",
            "9915c1dcbac87e7fce734e5bab2baf7358be7be8754f10a5fc93f76321587561",
            None,
        ),
    ],
    "E1": [
        (
            "7a3ebd00a320f857bbd3ef36d48b3fad2d73979511267868bba595cf76ffdcb0",
            "51e74c5b3da0ce58cbdf24cc1eeae0e5b3585d618e0446f2138d1b2f6358ca8e",
            "terminal-exec-failure",
        )
    ],
    "E2": [
        (
            "e05567f55611e0ef5ba4406d117b2c3a8e1c802644e04c5ac4c1264371477e60",
            "1f16d7fab69436d1e7bbe6582e54d9ab68440513acc96b1615b9465921b50bef",
            "terminal-exec-failure",
        )
    ],
    "E3": [
        (
            "3452f89a03f86703491ec866cd694fbf60427f61ba933af82b0c10870efcb94c",
            "b73039cc1cdf529af10be4fd85a7ce9e68258229a45a6ddc1cfce308356e8469",
            "terminal-exec-failure",
        )
    ],
    "E4": [
        (
            "4822a6ea062cc3974e7c01bb757b7959336b6afe9210f9688fa8a3c45bfe6ce0",
            "ddb63b0a164eb075f9b1b1f217d772d6cc804e1cb676c6867a7138179574daab",
            None,
        )
    ],
    "E5": [
        (
            "543a6ad24a051f4e394c0986a09ff050f1127192218d6351faad9642f81451ea",
            "9135e315b3b69c1a03c95fc8d6b4fec0b2061c468e848414c7f8c16d7cc45d5a",
            None,
        )
    ],
    "E6": [
        (
            "cf35b664f0e85cbf24dfda38ea6991fa01d9d315e402baacd2c02f2e92d0947a",
            "bd428f28fb97928edf310638179aea12bf196f5ac943d720c2c9c8f1a53eded2",
            "terminal-exec-failure",
        ),
        (
            "cf35b664f0e85cbf24dfda38ea6991fa01d9d315e402baacd2c02f2e92d0947a",
            "8c6c29e0951e16ce12be54cfd279e57ec387efb980d5d3bb6d6e90f26883c853",
            "terminal-exec-failure",
        ),
    ],
    "W1": [
        (
            "f5256235cdbf3ac49b4472558ecf4c8bb8c5a2c8148ac86ecd10ffbd20250384",
            "c3d1010b00a7ed0ed66a509049d9eb4f6baf607576df3f133459d3296ea84bec",
            None,
        )
    ],
    "W2": [
        (
            "d429bb032d12dea80bdee25c2f6a47a67abd450b28070ae1c0d515302d88e297",
            "c3d1010b00a7ed0ed66a509049d9eb4f6baf607576df3f133459d3296ea84bec",
            None,
        )
    ],
    "W3": [
        (
            "f5256235cdbf3ac49b4472558ecf4c8bb8c5a2c8148ac86ecd10ffbd20250384",
            "e2813711f0a49e1dc0a46e337dae5b68168867efe817b3fcf6af705d668ccd0d",
            None,
        )
    ],
    "S1": [
        (
            "fe02842074709f4e92d592f23f345c7a9409cf7d25f3c48ca55c4aa6fc248f60",
            "f747d45f5f9bd04da354177aa8950ec67bd46b9f41e7f65154ae8f826cf22166",
            None,
        )
    ]
    * 2,
    "V1": [
        ("b755d9a3d6caddc4f07594cbcbe6b07990d8787d03ff3ebb01c91899f8bddd5f", None, "tool-loop-veto")
    ],
    "X1": [
        (
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
            None,
        )
    ],
}
IDENTITIES = {  # 09 §9.6: failure identities of the terminal exec failures
    "E1": ["395ba89a372e373efe91ea1022e6a67d5c7b1bb052ed48ea08cd660aa3e2aea2"],
    "E2": ["395ba89a372e373efe91ea1022e6a67d5c7b1bb052ed48ea08cd660aa3e2aea2"],
    "E3": ["84e23ea6de178921fdc7819e0ec7ff8f4e45dfda6a06d60130e7b1411f59e2ad"],
    "E6": ["f3a8ddb2ea0f2dbc28b46a32318d71fea469f721c6d0cd5b3e5fe8b8c038f4ae"] * 2,
}


@pytest.mark.parametrize("name", sorted(SPEC_96))
def test_spec_outcome_vectors_on_2026_9_6(name: str) -> None:
    calls = calls_of("2026.9.6", f"spec-{name}")
    got = [
        (call["argsHash"].split(":", 1)[1], call["resultHash"], call.get("outcomeKind"))
        for call in calls
    ]
    assert got == SPEC_96[name]
    if name in IDENTITIES:
        assert [call["failureIdentityHash"] for call in calls] == IDENTITIES[name]


def test_e6_5_hashes_the_nonce_wrapped_fetches_differently() -> None:
    """09 §9.6: 2026.7.1-2 has no nonce canonicalisation, N1 and N2 differ."""
    n1, n2 = (calls_of("2026.7.1-2", f"spec-{name}")[0]["resultHash"] for name in ("N1", "N2"))
    assert (n1[:8], n2[:8]) == ("5c0d08da", "a3a403c2")


def test_trace_t1_on_2026_9_6() -> None:
    calls = calls_of("2026.9.6", "spec-T1")
    assert [c["level"] for c in calls[:10]] == ["none"] * 10
    assert [(c["detector"], c["count"], c["emitted"]) for c in calls[10:20]] == [
        ("generic_repeat", n, n == 10) for n in range(10, 20)
    ]
    fetch, read = calls[20], calls[21]
    assert (fetch["level"], fetch["count"], fetch["trigger"], fetch["recovery"]) == (
        "critical",
        20,
        True,
        "recovery",
    )
    assert fetch["message"] == (
        "CRITICAL: Called web_fetch with identical outcomes 20 times. "
        "Session execution blocked to prevent runaway loops."
    )
    assert (read["level"], read["blocked"], read["trigger"]) == ("none", True, False)
    assert calls[22]["level"] == "none" and not calls[22]["blocked"]
    last = calls[23]
    assert (last["level"], last["count"], last["recovery"]) == ("critical", 21, "terminated")
    assert [a["code"] for a in ev.answers("2026.9.6")["spec-T1"]["aborts"]] == ["run_terminated"]


def test_trace_t1_is_never_blocked_on_e6_5() -> None:
    assert all(call["level"] != "critical" for call in calls_of("2026.7.1-2", "spec-T1"))


def test_trace_t2_on_2026_9_6() -> None:
    assert verdicts("2026.9.6", "spec-T2") == [("none", None)] * 20 + [("critical", 20)]
    last = calls_of("2026.9.6", "spec-T2")[20]
    assert (last["detector"], last["recovery"]) == ("generic_repeat", "recovery")


def test_trace_t3_on_2026_9_6() -> None:
    calls = calls_of("2026.9.6", "spec-T3")
    assert [c["level"] for c in calls[:10]] == ["none"] * 10
    assert [(c["detector"], c["count"], c["emitted"]) for c in calls[10:]] == [
        ("argument_churn", 10, True),
        ("argument_churn", 11, False),
        ("argument_churn", 12, False),
    ]
    assert calls[10]["message"] == (
        "WARNING: write has cycled through 3 repeated argument patterns with the same stable "
        "outcome 10 times. Continued churn is treated as stalled run activity, but this tool "
        "call remains allowed."
    )


# 09 §9.1 item 2 (E6, warning 2, critical 3, six identical reads) and item 3 (E7, sends with a
# fresh messageId): what each release does.
W, C, N = "warning", "critical", "none"
E6_BY_RELEASE = {
    "2026.5.4": [(N, None), (N, None), (W, 2), (W, 3), (W, 4), (W, 5)],
    "2026.5.12": [(N, None), (N, None), (W, 2), (C, 3), (W, 4), (W, 5)],
    "2026.6.5": [(N, None), (N, None), (W, 2), (C, 3), (C, 3), (C, 3)],
    "2026.7.1-2": [(N, None), (N, None), (W, 2), (C, 3), (C, 3), (C, 3)],
}


@pytest.mark.parametrize("version", sorted(E6_BY_RELEASE))
def test_blocks_are_sticky_from_2026_6_5_only(version: str) -> None:
    assert verdicts(version, "spec-91-E6") == E6_BY_RELEASE[version]


@pytest.mark.parametrize("version", ["2026.5.4", "2026.5.12", "2026.6.5", "2026.7.1-2"])
def test_sends_are_stripped_from_2026_6_5_only(version: str) -> None:
    levels = [level for level, _ in verdicts(version, "spec-91-E7")]
    assert (C in levels) == (version >= "2026.6")
    if C in levels:
        assert levels.index(C) == 3  # call 4


@pytest.mark.parametrize("version", ["2026.5.12", "2026.6.5", "2026.7.1-2"])
def test_null_results_are_hashed_and_block_the_third_call(version: str) -> None:
    """04 §4.4 rule 2: warning 1, critical 2, three `null` results: the 3rd call is blocked."""
    assert verdicts(version, "spec-44-E5") == [(N, None), (W, 1), (C, 2)]


def test_2026_5_4_never_blocks_generic_repeats() -> None:
    """09 §9.1 item 1: no generic_repeat critical before 2026.5.12."""
    for answer in ev.answers("2026.5.4").values():
        assert not [
            call
            for call in answer["calls"]
            if call.get("level") == C and call["detector"] == "generic_repeat"
        ]


NAMES = {
    "2026.7.1-2": ["read", "exec", "apply_patch", "cron", "memory-store", ""],
    "2026.9.6": ["read", "exec", "apply_patch", "automations", "memory-store", "tool"],
}


@pytest.mark.parametrize("version", sorted(NAMES))
def test_host_tool_names(version: str) -> None:
    """09 §9.5's table, through each release's hook. On 2026.9.6 a blank name reaches the
    detector as `tool`: batch admission normalises it to the empty string and the evaluation
    then falls back to `tool` (the table's `` is the normaliser alone)."""
    assert [call["tool"] for call in calls_of(version, "spec-95-names")] == NAMES[version]


# --- loopcfg's side runs on every vector (agreement is compare_engine.py's figure) -----------


@pytest.mark.parametrize("version", ev.RELEASES)
def test_loopcfg_replays_a_sample_and_reports_differences_per_call(version: str) -> None:
    sample = list(ev.traces().values())[::25]
    for trace in sample:
        mine = ev.replay_with_loopcfg(trace, version)
        theirs = ev.answers(version)[trace["id"]]
        assert len(mine["calls"]) == len(theirs["calls"])
        for difference in ev.differences(theirs, mine):
            assert difference.kind in (*ev.COMPARED, "abort", "missing")


def test_the_answer_loopcfg_should_give_has_no_differences() -> None:
    for answer in ev.answers("2026.7.1-2").values():
        assert ev.differences(answer, ev.loopcfg_should_answer(answer)) == []


def test_loopcfg_must_keep_the_deviation() -> None:
    """Emitting what OpenClaw emits where 04 §4.7 says otherwise is a difference."""
    answer = ev.answers("2026.7.1-2")["spec-91-E6"]
    found = ev.differences(answer, answer)
    assert [(d.call, d.kind, d.openclaw, d.loopcfg) for d in found] == [(3, "emitted", True, False)]


def test_differences_names_the_call_and_the_field() -> None:
    answer = ev.answers("2026.7.1-2")["spec-91-E6"]
    should = ev.loopcfg_should_answer(answer)
    changed = {**should, "calls": [dict(call) for call in should["calls"]]}
    changed["calls"][3]["level"] = "warning"
    found = ev.differences(answer, changed)
    assert [(d.line, d.call, d.kind, d.openclaw, d.loopcfg) for d in found] == [
        (4, 4, "level", "critical", "warning")
    ]


# --- the corpus: outputs only, the inputs are read from ../shared/corpus --------------------


@pytest.mark.parametrize("version", ev.RELEASES)
def test_corpus_vectors_match_the_corpus_files(version: str) -> None:
    if not (ev.CORPUS / "openclaw").is_dir():
        pytest.skip("shared corpus not present")
    _, rows = ev.release_file(version, corpus=True)
    sessions = {session.name: session for session in ev.corpus_sessions_in()}
    assert sorted(row["id"] for row in rows) == sorted(sessions)
    for row in rows:
        assert row["sha256"] == ev.corpus_source_digest(sessions[row["id"]]), row["id"]
        lines, _ = ev.corpus_trace(sessions[row["id"]])
        assert len(row["calls"]) == row["calls_total"] == sum(1 for ln in lines if "type" not in ln)


def test_corpus_vectors_hold_no_corpus_content() -> None:
    """Only verdicts, counts, hashes and the spec's message templates (naming tools)."""
    allowed = {
        "line",
        "call",
        "session",
        "tool",
        "level",
        "detector",
        "count",
        "message",
        "emitted",
        "argsHash",
        "resultHash",
        "blocked",
        "batch",
        "trigger",
        "recovery",
        "skipped",
        "run",
        "outcomeLine",
        "loopcfgEmitted",
        "outcomeKind",
        "failureIdentityHash",
    }
    for version in ev.RELEASES:
        _, rows = ev.release_file(version, corpus=True)
        for row in rows:
            assert set(row) <= {
                "id",
                "sha256",
                "calls_total",
                "zstdRowsUnread",
                "calls",
                "aborts",
                "dropped",
            }
            for call in row["calls"]:
                assert set(call) <= allowed


# --- the recorder is deterministic: a sample re-recorded gives the stored answers ------------


def recorder() -> Any:
    path = ev.VECTORS.parents[3] / "conformance" / "record_engine.py"
    spec = importlib.util.spec_from_file_location("record_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(
    not os.environ.get("LOOPCFG_CONFORMANCE_RERUN"),
    reason="re-recording needs Node and OpenClaw: set LOOPCFG_CONFORMANCE_RERUN=1",
)
@pytest.mark.parametrize("version", ev.RELEASES)
def test_a_sample_re_recorded_gives_the_same_answers(version: str) -> None:
    module = recorder()
    sample = [trace for trace in ev.traces().values()][::60]
    again = module.run_driver(version, sample)
    assert again == [ev.answers(version)[trace["id"]] for trace in sample]
