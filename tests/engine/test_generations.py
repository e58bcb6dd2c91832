"""Engine generations (09): selection from the release table, E5.4/E5.12 differences, tool-name
normalisation (09 §9.5) and E8.1 (09 §9.4) with the test vectors of 09 §9.6."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import LoopDetector
from loopcfg.engine import v4_hashing
from loopcfg.engine.generations import generation
from loopcfg.engine.v4 import V4Session
from loopcfg.engine.verdicts import Verdict, blocked_result
from loopcfg.hashing import args_hash, result_hash

ON = {"enabled": True}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- choosing the generation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "name", "transitional"),
    [
        (None, "E6.5", False),
        ("2099.1.1", "E6.5", False),  # unknown: newer than the table
        ("2026.5.4", "E5.4", False),
        ("2026.5.7", "E5.4", False),
        ("2026.5.12", "E5.12", False),
        ("2026.6.1", "E5.12", False),
        ("2026.6.5", "E6.5", False),
        ("2026.7.1-2", "E6.5", False),
        ("2026.7.2-beta.3", "E6.5", False),
        ("2026.7.33", "E6.5", False),
        ("2026.7.2-beta.4", "E8.1", True),
        ("2026.8.1-beta.3", "E8.1", True),
        ("2026.8.1", "E8.1", False),
        ("2026.9.6", "E8.1", False),
    ],
)
def test_the_release_table_picks_the_generation(
    target: str | None, name: str, transitional: bool
) -> None:
    chosen = generation(target)
    assert (chosen.name, chosen.transitional) == (name, transitional)
    assert LoopDetector(ON, openclaw=target).generation == chosen


def test_releases_before_5_4_are_not_modelled() -> None:
    with pytest.raises(ValueError, match=r"older than 2026\.5\.4"):
        LoopDetector(ON, openclaw="2026.5.3")


def test_e81_detectors_get_e81_sessions() -> None:
    assert isinstance(LoopDetector(ON, openclaw="2026.9.6").session("s"), V4Session)
    assert not isinstance(LoopDetector(ON).session("s"), V4Session)


# -- tool-name normalisation (09 §9.5) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "old", "new"),
    [
        ("Read", "read", "read"),
        (" BASH ", "exec", "exec"),
        ("Apply-Patch", "apply_patch", "apply_patch"),
        ("CRON", "cron", "automations"),
        ("Memory-Store", "memory-store", "memory-store"),
        ("   ", "", ""),
        ("", "tool", "tool"),
    ],
)
def test_tool_names_are_normalised_per_release(raw: str, old: str, new: str) -> None:
    assert generation("2026.7.1-2").normalize_tool(raw) == old
    assert generation("2026.9.6").normalize_tool(raw) == new
    assert generation("2026.7.2-beta.6").normalize_tool("cron") == "automations"
    assert generation("2026.7.2-beta.5").normalize_tool("cron") == "cron"


def test_host_methods_normalise_and_messages_carry_the_normalised_name() -> None:
    session = LoopDetector({"enabled": True, "warningThreshold": 2}).session("s")
    for raw in ("Bash", " bash", "EXEC"):
        session.record_call(raw, {"command": "ls"})
        session.record_outcome(raw, {"command": "ls"}, result={"x": 1})
    verdict = session.check("bash", {"command": "ls"})
    assert verdict.detector == "generic_repeat" and verdict.count == 3
    assert "called exec 3 times" in verdict.message and verdict.warning_key is not None
    assert verdict.warning_key.startswith("generic:exec:")


def test_normalisation_can_be_turned_off() -> None:
    block = {"enabled": True, "warningThreshold": 2, "detectors": {"pingPong": False}}
    raw = LoopDetector(block, normalize_tool_names=False).session("s")
    normalised = LoopDetector(block).session("s")
    for session in (raw, normalised):
        for name in ("Bash", "BASH", "Bash"):
            session.record_call(name, {})
    assert raw.check("bash", {}).level == "none"
    assert normalised.check("bash", {}).count == 3


# -- null is a result, no result is not (04 §4.1, §4.4 rule 2) -------------------------------------


def test_null_results_are_hashed_and_block() -> None:
    """With warning 1 and critical 2, three null results block the 3rd call (04 §4.4)."""
    session = LoopDetector(
        {"enabled": True, "warningThreshold": 1, "criticalThreshold": 2}
    ).session("s")
    levels = []
    for _ in range(3):
        verdict = session.check("t", {})
        levels.append(verdict.level)
        if verdict.level != "critical":
            session.record_call("t", {})
            session.record_outcome("t", {}, result=None)
    assert levels == ["none", "warning", "critical"]


def test_no_result_records_nothing() -> None:
    session = LoopDetector(
        {"enabled": True, "warningThreshold": 1, "criticalThreshold": 2}
    ).session("s")
    for _ in range(3):
        session.record_outcome("t", {})  # no result, no error: nothing happened
    assert len(session.history) == 0


# -- E5.4 and E5.12 (09 §9.1-§9.2) --------------------------------------------------------------


def _six_reads(openclaw: str) -> list[tuple[str, int]]:
    """oc-harness E6: warning 2, critical 3, six identical reads; a blocked call's result is
    recorded as its outcome, as the single-call host path does."""
    detector = LoopDetector(
        {"enabled": True, "warningThreshold": 2, "criticalThreshold": 3}, openclaw=openclaw
    )
    session = detector.session("s")
    seen = []
    for _ in range(6):
        verdict = session.check("read", {"path": "/a"})
        seen.append((verdict.level, verdict.count))
        if verdict.level == "critical":
            session.record_outcome("read", {"path": "/a"}, result=blocked_result(verdict))
            continue
        session.record_call("read", {"path": "/a"})
        session.record_outcome("read", {"path": "/a"}, result={"content": [], "details": {}})
    return seen


def test_blocks_are_sticky_from_6_5_only() -> None:
    # 5.4 warns at counts 2-5 (calls 3-6) and never blocks.
    assert _six_reads("2026.5.4") == [("none", 0)] * 2 + [("warning", n) for n in range(2, 6)]
    for target in ("2026.5.12", "2026.6.1"):
        levels = [level for level, _ in _six_reads(target)]
        assert levels == ["none", "none", "warning", "critical", "warning", "warning"]
    levels = [level for level, _ in _six_reads("2026.6.5")]
    assert levels == ["none", "none", "warning", "critical", "critical", "critical"]


def test_sends_are_stripped_from_6_5_only() -> None:
    def hashes(openclaw: str) -> set[str | None]:
        rules = generation(openclaw).rules
        return {
            result_hash(
                "sessions_send", {}, {"details": {"ok": True, "messageId": f"m{i}"}}, rules=rules
            )
            for i in range(2)
        }

    assert len(hashes("2026.6.1")) == 2
    assert len(hashes("2026.6.5")) == 1


def test_conversations_send_is_a_send_from_7_2_beta_3() -> None:
    def hashes(openclaw: str) -> set[str | None]:
        rules = generation(openclaw).rules
        return {
            result_hash("conversations_send", {}, {"details": {"messageId": f"m{i}"}}, rules=rules)
            for i in range(2)
        }

    assert len(hashes("2026.7.2-beta.2")) == 2
    assert len(hashes("2026.7.2-beta.3")) == 1


def test_e54_private_stringify() -> None:
    e54 = generation("2026.5.4")
    assert e54.args_hash("t", {"x": float("nan")}) == "t:" + sha('{"x":null}')
    assert args_hash("t", {"x": float("nan")}) == "t:" + sha('{"x":"NaN"}')
    assert e54.args_hash("t", {"b": b"\x01\x02"}) == "t:" + sha('{"b":{"0":1,"1":2}}')
    assert e54.args_hash("t", {"e": ValueError("x")}) == "t:" + sha('{"e":{}}')
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    assert e54.args_hash("t", cycle) == "t:" + sha("[object Object]")
    loop: list[Any] = []
    loop.append(loop)
    assert e54.args_hash("t", loop) == "t:" + sha("[object Array]")
    assert generation("2026.5.12").args_hash("t", {"x": float("nan")}) == args_hash(
        "t", {"x": float("nan")}
    )


# -- E8.1 outcome vectors (09 §9.6) ----------------------------------------------------------------


def wrap(nonce: str, body: str) -> str:
    return (
        f'<<<EXTERNAL_UNTRUSTED_CONTENT id="{nonce}">>>{body}'
        f'<<<END_EXTERNAL_UNTRUSTED_CONTENT id="{nonce}">>>'
    )


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


def failed(aggregated: str) -> dict[str, Any]:
    details = {"status": "failed", "exitCode": 1, "aggregated": aggregated}
    return {"content": [{"type": "text", "text": aggregated}], "details": details}


def snapshot(nonce: str) -> dict[str, Any]:
    return {"details": {"raw": json.dumps({"t": wrap(nonce, "x")}, separators=(",", ":"))}}


FETCH = {"url": "https://e.x"}
E1 = "2026-09-20T10:11:12.345Z attempt 1: build failed after 12.5s (pid 4242)"
E2 = "2026-09-21T08:00:01Z attempt 2: build failed after 3 ms (pid 99)"
V4_VECTORS: list[tuple[str, str, Any, dict[str, Any], str, str | None, str | None, str | None]] = [
    # id, tool, args, outcome (result= / error=), argsHash, resultHash, kind, identity
    ("N1", "web_fetch", FETCH, {"result": text(wrap("0123456789abcdef", "hello"))},
     "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
     "e7f9fc7e0ab48afe6731a3d7c591e8fa450bf4e4a4507d139dc0d228e22a6407", None, None),
    ("N2", "web_fetch", FETCH, {"result": text(wrap("fedcba9876543210", "hello"))},
     "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
     "e7f9fc7e0ab48afe6731a3d7c591e8fa450bf4e4a4507d139dc0d228e22a6407", None, None),
    ("N3", "web_fetch", FETCH,
     {"result": text(wrap("0123456789abcdef", "hello").replace(
         'END_EXTERNAL_UNTRUSTED_CONTENT id="0123456789abcdef"',
         'END_EXTERNAL_UNTRUSTED_CONTENT id="fedcba9876543210"'))},
     "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
     "0519a95f3c473a74564b602d578542ed4872c8f8cc33c45134effeb9ff0a4014", None, None),
    ("N4", "web_fetch", FETCH, {"result": text(wrap("0123456789ABCDEF", "hello"))},
     "4b185652f05c120bdb2aebcd18d0e4ecaec1df193a58504c604d281e26359dc4",
     "d330e1eed91d4ec31e2d0951a7587e692064488c24b6628f7f53cc807394e859", None, None),
    ("N5", "browser", {"action": "snapshot"}, {"result": snapshot("0123456789abcdef")},
     "975d604e4d09afb89817dd0e10fbce3f92c639d3efcb967e79a925c42cfabc0e",
     "5226961c7693ddd3ee8f78ca4e4fc86783aa928b5de5ba3efc82687ce8339044", None, None),
    ("N6", "browser", {"action": "snapshot"}, {"result": snapshot("1111111111111111")},
     "975d604e4d09afb89817dd0e10fbce3f92c639d3efcb967e79a925c42cfabc0e",
     "5226961c7693ddd3ee8f78ca4e4fc86783aa928b5de5ba3efc82687ce8339044", None, None),
    ("N7", "browser", {"action": "open"}, {"error": wrap("0123456789abcdef", "ECONNREFUSED")},
     "d607dcf3a121bddbaa7ccc4ffe008fd2b18193df2ea4e322e08bc2b337560470",
     "error:75c773abae8ef73018f461b2c4cafc094641c900aa91dce9f038bcd3a489893a", None, None),
    ("N7b", "browser", {"action": "open"}, {"error": wrap("abcdefabcdefabcd", "ECONNREFUSED")},
     "d607dcf3a121bddbaa7ccc4ffe008fd2b18193df2ea4e322e08bc2b337560470",
     "error:75c773abae8ef73018f461b2c4cafc094641c900aa91dce9f038bcd3a489893a", None, None),
    ("N8", "read", {"path": wrap("0123456789abcdef", "p")}, {"result": text("ok")},
     "cb5973e85271d92f90fad31e13445cab819b5ea2d07df51fd72dc3ff3ec8b840",
     "9915c1dcbac87e7fce734e5bab2baf7358be7be8754f10a5fc93f76321587561", None, None),
    ("N8b", "read", {"path": wrap("fedcba9876543210", "p")}, {"result": text("ok")},
     "2a224ccca37d753fb388ed0b99461bc7d4e42c8c4add81fa80e7aaba0f92b517",
     "9915c1dcbac87e7fce734e5bab2baf7358be7be8754f10a5fc93f76321587561", None, None),
    ("E1", "exec", {"command": "npm test -- --slice 10"}, {"result": failed(E1)},
     "7a3ebd00a320f857bbd3ef36d48b3fad2d73979511267868bba595cf76ffdcb0",
     "51e74c5b3da0ce58cbdf24cc1eeae0e5b3585d618e0446f2138d1b2f6358ca8e",
     "terminal-exec-failure",
     "395ba89a372e373efe91ea1022e6a67d5c7b1bb052ed48ea08cd660aa3e2aea2"),
    ("E2", "exec", {"command": "npm test -- --slice 11"}, {"result": failed(E2)},
     "e05567f55611e0ef5ba4406d117b2c3a8e1c802644e04c5ac4c1264371477e60",
     "1f16d7fab69436d1e7bbe6582e54d9ab68440513acc96b1615b9465921b50bef",
     "terminal-exec-failure",
     "395ba89a372e373efe91ea1022e6a67d5c7b1bb052ed48ea08cd660aa3e2aea2"),
    ("E3", "exec", {"command": "npm test -- --slice 12"},
     {"result": failed(E2.replace("build", "lint"))},
     "3452f89a03f86703491ec866cd694fbf60427f61ba933af82b0c10870efcb94c",
     "b73039cc1cdf529af10be4fd85a7ce9e68258229a45a6ddc1cfce308356e8469",
     "terminal-exec-failure",
     "84e23ea6de178921fdc7819e0ec7ff8f4e45dfda6a06d60130e7b1411f59e2ad"),
    ("E4", "exec", {"command": "false"},
     {"result": {**text("(Command exited with code 1)"),
                 "details": {"status": "failed", "exitCode": 1}}},
     "4822a6ea062cc3974e7c01bb757b7959336b6afe9210f9688fa8a3c45bfe6ce0",
     "ddb63b0a164eb075f9b1b1f217d772d6cc804e1cb676c6867a7138179574daab", None, None),
    ("E5", "exec", {"command": "sleep 99"},
     {"result": {"details": {"status": "failed", "exitCode": 124, "timedOut": True,
                             "aggregated": "timeout"}}},
     "543a6ad24a051f4e394c0986a09ff050f1127192218d6351faad9642f81451ea",
     "9135e315b3b69c1a03c95fc8d6b4fec0b2061c468e848414c7f8c16d7cc45d5a", None, None),
    ("E6", "exec", {"command": "x"},
     {"result": {"details": {"status": "failed", "exitCode": 1, "aggregated": "took 5\u017f"}}},
     "cf35b664f0e85cbf24dfda38ea6991fa01d9d315e402baacd2c02f2e92d0947a",
     "bd428f28fb97928edf310638179aea12bf196f5ac943d720c2c9c8f1a53eded2",
     "terminal-exec-failure",
     "f3a8ddb2ea0f2dbc28b46a32318d71fea469f721c6d0cd5b3e5fe8b8c038f4ae"),
    ("E6b", "exec", {"command": "x"},
     {"result": {"details": {"status": "failed", "exitCode": 1, "aggregated": "took 7s"}}},
     "cf35b664f0e85cbf24dfda38ea6991fa01d9d315e402baacd2c02f2e92d0947a",
     "8c6c29e0951e16ce12be54cfd279e57ec387efb980d5d3bb6d6e90f26883c853",
     "terminal-exec-failure",
     "f3a8ddb2ea0f2dbc28b46a32318d71fea469f721c6d0cd5b3e5fe8b8c038f4ae"),
    ("W1", "write", {"path": "a.txt", "content": "x"},
     {"result": {**text("no change"), "details": {"changed": False}}},
     "f5256235cdbf3ac49b4472558ecf4c8bb8c5a2c8148ac86ecd10ffbd20250384",
     "c3d1010b00a7ed0ed66a509049d9eb4f6baf607576df3f133459d3296ea84bec", None, None),
    ("W2", "write", {"path": "b.txt", "content": "x"},
     {"result": {**text("unchanged b"), "details": {"changed": False, "path": "b.txt"}}},
     "d429bb032d12dea80bdee25c2f6a47a67abd450b28070ae1c0d515302d88e297",
     "c3d1010b00a7ed0ed66a509049d9eb4f6baf607576df3f133459d3296ea84bec", None, None),
    ("W3", "write", {"path": "a.txt", "content": "x"},
     {"result": {**text("wrote"), "details": {"changed": True}}},
     "f5256235cdbf3ac49b4472558ecf4c8bb8c5a2c8148ac86ecd10ffbd20250384",
     "e2813711f0a49e1dc0a46e337dae5b68168867efe817b3fcf6af705d668ccd0d", None, None),
    ("S1", "conversations_send", {"to": "u1", "text": "hi"},
     {"result": {"details": {"ok": True, "messageId": "m1", "ts": 1,
                             "conversation": {"id": "c1"}}}},
     "fe02842074709f4e92d592f23f345c7a9409cf7d25f3c48ca55c4aa6fc248f60",
     "f747d45f5f9bd04da354177aa8950ec67bd46b9f41e7f65154ae8f826cf22166", None, None),
    ("S1b", "conversations_send", {"to": "u1", "text": "hi"},
     {"result": {"details": {"ok": True, "messageId": "m2", "ts": 2,
                             "conversation": {"id": "c1"}}}},
     "fe02842074709f4e92d592f23f345c7a9409cf7d25f3c48ca55c4aa6fc248f60",
     "f747d45f5f9bd04da354177aa8950ec67bd46b9f41e7f65154ae8f826cf22166", None, None),
    ("V1", "read", {"path": "/a"},
     {"result": {**text("no"), "details": {"status": "blocked", "deniedReason": "tool-loop"}}},
     "b755d9a3d6caddc4f07594cbcbe6b07990d8787d03ff3ebb01c91899f8bddd5f", None,
     "tool-loop-veto", None),
    ("X1", "t", {}, {"result": None},
     "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
     "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b", None, None),
]  # fmt: skip
NO_PROGRESS = {"N7", "N7b", "W1", "W2"}


@pytest.mark.parametrize("vector", V4_VECTORS, ids=[vector[0] for vector in V4_VECTORS])
def test_e81_outcome_vectors(vector: tuple[Any, ...]) -> None:
    """09 §9.6, recorded with recordToolCallOutcome of the real 2026.9.6 on an empty state."""
    name, tool, args, given, h, expected_hash, kind, identity = vector
    session = LoopDetector(ON, openclaw="2026.9.6").session("s")
    assert isinstance(session, V4Session)
    session.record_outcome(tool, args, **given)
    (record,) = session.records
    assert record.args_hash == f"{tool}:{h}"
    assert (record.result_hash, record.kind, record.identity) == (expected_hash, kind, identity)
    assert record.no_progress is (name in NO_PROGRESS)


def test_e65_hashes_nonces_as_they_are() -> None:
    one, two = (text(wrap(nonce, "hello")) for nonce in ("0123456789abcdef", "fedcba9876543210"))
    assert result_hash("web_fetch", FETCH, one) != result_hash("web_fetch", FETCH, two)
    assert result_hash("web_fetch", FETCH, one, rules=generation("2026.9.6").rules) == (
        result_hash("web_fetch", FETCH, one)
    )  # the switches of 04's rules; E8.1 hashes in engine/v4_hashing.py


@pytest.mark.parametrize(
    ("body", "escapes", "canonical"),
    [
        ("x", 0, True),
        ('say \\"hi\\"', 1, True),  # escaped quotes at the marker's level
        ('say "hi"', 1, False),  # a bare quote inside a one-level escaped body
        ("x", 2, False),  # two backslashes is no JSON escaping level
        ("x", 3, True),
    ],
)
def test_nonce_escape_levels(body: str, escapes: int, canonical: bool) -> None:
    quote = "\\" * escapes + '"'
    marked = (
        f"<<<EXTERNAL_UNTRUSTED_CONTENT id={quote}0123456789abcdef{quote}>>>{body}"
        f"<<<END_EXTERNAL_UNTRUSTED_CONTENT id={quote}0123456789abcdef{quote}>>>"
    )
    result = v4_hashing.canonicalise_nonces(marked)
    assert (result == marked.replace("0123456789abcdef", "0" * 16)) is canonical
    assert (result == marked) is not canonical


def test_nonces_in_keys_are_canonicalised_and_sorted_by_the_normalised_key() -> None:
    key_a, key_b = wrap("ffffffffffffffff", "k"), wrap("1111111111111111", "k")
    assert v4_hashing.digest({key_a: 1}) == v4_hashing.digest({key_b: 1})
    assert v4_hashing.digest({key_a: 1}) == sha(
        json.dumps({wrap("0" * 16, "k"): 1}, separators=(",", ":"))
    )


# -- E8.1 traces (09 §9.6) -------------------------------------------------------------------------


def v4_session() -> V4Session:
    session = LoopDetector(ON, openclaw="2026.9.6").session("s")
    assert isinstance(session, V4Session)
    return session


def run_call(
    session: V4Session, tool: str, args: Any, result: Any, call_id: str, run: str = "r1"
) -> Verdict:
    batch = session.admit_batch([(tool, args, call_id)], run_id=run)
    if not batch.blocked:
        session.record_outcome(tool, args, result=result, run_id=run, call_id=call_id)
    return batch.verdicts[0]


def test_t1_nonce_wrapped_fetches_block_and_terminate_the_run() -> None:
    session = v4_session()
    fetch = {"url": "https://example.com/status"}
    verdicts = []
    for i in range(20):
        answer = text(wrap(f"{i:016x}", "Service unavailable"))
        verdicts.append(run_call(session, "web_fetch", fetch, answer, f"c{i}"))
    assert [v.level for v in verdicts[:10]] == ["none"] * 10
    assert (verdicts[10].detector, verdicts[10].count, verdicts[10].emitted) == (
        "generic_repeat",
        10,
        True,
    )
    assert [(v.count, v.emitted) for v in verdicts[11:]] == [(n, False) for n in range(11, 20)]
    batch = session.admit_batch(
        [("web_fetch", fetch, "c21"), ("read", {"path": "notes.md"}, "c22")], run_id="r1"
    )
    assert batch.blocked and batch.trigger_index == 0 and not batch.terminate_run
    assert batch.recovery == "recovery"
    critical = batch.verdicts[0]
    assert (critical.level, critical.detector, critical.count) == ("critical", "generic_repeat", 20)
    assert critical.message == (
        "CRITICAL: Called web_fetch with identical outcomes 20 times. Session execution blocked "
        "to prevent runaway loops."
    )
    assert batch.verdicts[1].level == "none"
    assert batch.results[0]["content"][0]["text"].startswith(critical.message + "\n\nDo not")
    assert batch.results[1]["content"][0]["text"].startswith("This tool was not executed")
    assert batch.results[0]["details"]["intervention"]["count"] == 20
    assert [r.kind for r in session.records][-1] == "tool-loop-veto"
    assert sum(r.tool == "read" for r in session.records) == 0  # the read got no record
    assert run_call(session, "read", {"path": "notes.md"}, text("notes"), "c23").level == "none"
    last = session.admit_batch([("web_fetch", fetch, "c24")], run_id="r1")
    assert (last.verdicts[0].level, last.verdicts[0].count) == ("critical", 21)
    assert last.terminate_run and last.recovery == "terminated"
    assert last.results[0]["terminate"] is True


def test_t1_never_blocks_under_e65() -> None:
    session = LoopDetector(ON, openclaw="2026.7.1-2").session("s")
    fetch = {"url": "https://example.com/status"}
    for i in range(24):
        verdict = session.check("web_fetch", fetch)
        assert verdict.level != "critical"
        session.record_call("web_fetch", fetch)
        session.record_outcome("web_fetch", fetch, result=text(wrap(f"{i:016x}", "x")))


def test_t2_exec_failures_with_changing_arguments() -> None:
    session = v4_session()
    verdicts = []
    for i in range(1, 22):
        stamp = f"2026-09-{i:02d}T0{i % 10}:00:00Z"
        output = f"{stamp} retry {i}: tests failed after {3 * i}ms (pid {1000 + i})"
        details = {"status": "failed", "exitCode": 1, "aggregated": output}
        args = {"command": f"npm test -- --shard {i}"}
        verdicts.append(run_call(session, "exec", args, {"details": details}, f"c{i}"))
    assert [v.level for v in verdicts[:20]] == ["none"] * 20
    assert (verdicts[20].level, verdicts[20].detector, verdicts[20].count) == (
        "critical",
        "generic_repeat",
        20,
    )
    assert verdicts[20].message.startswith(
        "CRITICAL: Called exec with identical outcomes 20 times."
    )


def test_t3_argument_churn() -> None:
    session = v4_session()
    unchanged = {"details": {"changed": False}}
    verdicts = [
        run_call(session, "write", {"path": "abc"[i % 3] + ".md", "content": "same"}, unchanged,
                 f"c{i}")
        for i in range(13)
    ]  # fmt: skip
    assert [v.level for v in verdicts[:10]] == ["none"] * 10
    churn = verdicts[10]
    assert (churn.level, churn.detector, churn.count, churn.emitted) == (
        "warning",
        "argument_churn",
        10,
        True,
    )
    assert churn.message == (
        "WARNING: write has cycled through 3 repeated argument patterns with the same stable "
        "outcome 10 times. Continued churn is treated as stalled run activity, but this tool call "
        "remains allowed."
    )
    assert churn.warning_key == "argument-churn:write" and churn.liveness_signal == "argument_churn"
    assert [(v.detector, v.count, v.emitted) for v in verdicts[11:]] == [
        ("argument_churn", 11, False),
        ("argument_churn", 12, False),
    ]


def test_e81_reads_only_enabled() -> None:
    """Every knob is a constant: a warning threshold of 2 changes nothing."""
    session = LoopDetector({"enabled": True, "warningThreshold": 2}, openclaw="2026.9.6").session(
        "s"
    )
    assert isinstance(session, V4Session)
    levels = [run_call(session, "read", {}, text("x"), f"c{i}").level for i in range(10)]
    assert levels == ["none"] * 10


def test_e81_single_call_path_records_the_veto() -> None:
    """A blocked result recorded as an outcome appends a veto record, which counts as pending:
    each further block adds one (09 §9.4.4)."""
    session = v4_session()
    for _ in range(20):
        session.record_call("read", {})
        session.record_outcome("read", {}, result=text("same"))
    counts = []
    for _ in range(3):
        verdict = session.check("read", {})
        counts.append((verdict.level, verdict.count))
        session.record_outcome("read", {}, result=blocked_result(verdict))
    assert counts == [("critical", 20), ("critical", 21), ("critical", 22)]
    assert session.records[-1].kind == "tool-loop-veto"


def test_e81_guard_window_closed_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="loopcfg.guard")
    session = v4_session()
    session.record_call("read", {"p": 1})
    session.record_outcome("read", {"p": 1}, result=text("a"))
    session.compaction_retry()
    lines = []
    for i, args in enumerate(({"p": 1}, {"p": 2}, {"p": 3})):
        session.record_call("read", args)
        lines.append(session.record_outcome("read", args, result=text(str(i))))
    assert lines == [
        None,
        None,
        "post-compaction window closed: toolCalls=3 preCompactionRepeats=1 tools=read",
    ]
    assert "post-compaction guard armed for 3 attempts" in caplog.messages
    assert lines[-1] in caplog.messages


# -- E8.1: the batch path and the single-call path agree on batches of one (hypothesis) ----------

E81_CALLS: list[tuple[str, Any]] = [
    ("read", {"path": "a"}),
    ("read", {"path": "b"}),
    ("write", {"path": "a.md", "content": "x"}),
    ("write", {"path": "b.md", "content": "x"}),
    ("write", {"path": "c.md", "content": "x"}),
    ("exec", {"command": "make 1"}),
    ("exec", {"command": "make 2"}),
    ("process", {"action": "poll", "sessionId": "s"}),
    ("nope", {}),
]
E81_RESULTS: list[dict[str, Any]] = [
    {"result": text("same")},
    {"result": {"details": {"changed": False}}},
    {"result": failed("2026-09-20T10:11:12Z attempt 3: failed after 2s (pid 7)")},
    {"error": "Tool nope not found"},
    {"error": "boom"},
    {"result": None},
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(E81_CALLS) - 1),
            st.integers(0, len(E81_RESULTS) - 1),
            st.sampled_from([None, "r1"]),
        ),
        min_size=20,
        max_size=120,
    )
)
def test_e81_batches_of_one_equal_the_single_call_path(trace: list[tuple[int, int, Any]]) -> None:
    """A batch of one call is judged as the per-call hook judges it, and both keep the same
    records: a critical leaves one loop-veto record, whether the batch path writes it or the
    host records the blocked result (09 §9.4.7 steps 2 and 6)."""
    batched, single = v4_session(), v4_session()
    for step, (which, outcome, run) in enumerate(trace):
        tool, args = E81_CALLS[which]
        admitted = batched.admit_batch([(tool, args, f"c{step}")], run_id=run)
        verdict = single.check(tool, args, run_id=run)
        assert admitted.verdicts[0] == verdict
        if verdict.level == "critical":
            single.record_outcome(tool, args, result=blocked_result(verdict), run_id=run)
            batched.new_run(run)  # the single-call path has no recovery counting
        else:
            single.record_call(tool, args, run_id=run, call_id=f"c{step}")
            for session in (batched, single):
                session.record_outcome(tool, args, run_id=run, call_id=f"c{step}",
                                       **E81_RESULTS[outcome])  # fmt: skip
        assert [(r.tool, r.args_hash, r.result_hash, r.kind) for r in batched.records] == [
            (r.tool, r.args_hash, r.result_hash, r.kind) for r in single.records
        ]


def test_from_config_takes_the_target_from_meta_last_touched_version() -> None:
    # 08 §8.3: without `openclaw=`, the config's own meta.lastTouchedVersion picks the engine.
    from loopcfg.facade import LoopDetector as FacadeDetector

    stamped = {
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "tools": {"loopDetection": {"enabled": True}},
    }
    assert FacadeDetector.from_config(stamped).generation.name == "E8.1"
    plain = {"tools": {"loopDetection": {"enabled": True}}}
    assert FacadeDetector.from_config(plain).generation.name == "E6.5"
    assert FacadeDetector.from_config(stamped, openclaw="2026.5.12").generation.name == "E5.12"
