"""A store session and its JSONL form give the same verdicts (10.7), on the three stores the
real OpenClaw 2026.9.6 wrote; the corpus itself is never opened (copies only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.store_helpers import (
    RUNAWAY_ID,
    STORES,
    TWO_RUNS_ID,
    export_jsonl,
    neutral,
    replay_json,
    rows,
    store_path,
    stores,
)

__all__ = ["stores"]  # the fixture, imported for pytest

VARIANTS = [(), ("--branch", "active"), ("--no-run-scope",)]


# --no-run-scope on the 1262-call session adds a minute of test time and nothing the small
# stores' runs do not cover.
CASES = [
    pytest.param(name, options, id=f"{name}-{label}")
    for name in STORES
    for options, label in zip(VARIANTS, ("file", "active", "no-run-scope"), strict=True)
    if not (name == "native-runaway-loop" and label == "no-run-scope")
]


@pytest.mark.parametrize(("name", "options"), CASES)
def test_store_and_jsonl_form_agree(stores: Path, name: str, options: tuple[str, ...]) -> None:
    store = store_path(stores, name)
    jsonl = export_jsonl(store, stores / f"{name}.jsonl")
    from_store, store_result = replay_json(f"{name}/openclaw-agent.sqlite", *options)
    from_jsonl, jsonl_result = replay_json(str(jsonl), *options)
    assert store_result.exit_code == jsonl_result.exit_code == 0
    assert neutral(from_store) == neutral(from_jsonl)
    assert all(event["file"] == f"{name}/openclaw-agent.sqlite" for event in from_store["events"])
    assert all(event["seq"] == event["line"] - 1 for event in from_store["events"])


def test_runaway_loop_verdicts(stores: Path) -> None:
    """10.7's expected figures at defaults with enabled: true."""
    document, result = replay_json(str(store_path(stores, "native-runaway-loop")))
    assert result.exit_code == 0
    [session] = document["sessions"]
    assert session["session"] == RUNAWAY_ID
    assert (session["calls"], session["skipped"], session["orphanResults"]) == (1262, 0, 0)
    assert (session["warnings"], session["blocks"], session["aborted"]) == (1, 1242, False)
    assert (session["firstBlockLine"], session["firstBlockSeq"]) == (66, 65)
    assert session["source"] == "sqlite"
    assert (session["agent"], session["sessionKey"]) == ("main", "agent:main:loopdemo")
    assert session["incomplete"] is False
    events = document["events"]
    assert len(events) == 1252
    first = events[0]
    assert (first["call"], first["seq"], first["level"], first["count"]) == (11, 35, "warning", 10)
    assert first["emitted"] is True
    held = events[1:10]
    assert [e["call"] for e in held] == list(range(12, 21))
    assert not any(e["emitted"] for e in held)
    blocks = events[10:]
    assert all(e["level"] == "critical" and e["count"] == 20 for e in blocks)
    assert [e["seq"] for e in blocks[:3]] == [65, 68, 71]
    assert blocks[-1]["seq"] == 3788
    assert {e["run"] for e in events} == {"run-1"}


@pytest.mark.parametrize("name", STORES[:2])
def test_small_stores_detect_nothing(stores: Path, name: str) -> None:
    for options in VARIANTS:
        document, _ = replay_json(str(store_path(stores, name)), *options)
        [session] = document["sessions"]
        assert session["session"] == TWO_RUNS_ID
        assert session["calls"] == (10 if name == "native-two-runs" else 15)
        assert document["events"] == []


def test_compressed_rows_decode_to_their_declared_length(stores: Path) -> None:
    from backports.zstd import ZstdDecompressor

    counts = []
    for name in STORES:
        packed = [r for r in rows(store_path(stores, name)) if r[2] is not None]
        counts.append(len(packed))
        for _, text, blob, size in packed:
            assert text is None and blob is not None
            # Frame header descriptor (byte 4): bit 2 is the content-checksum flag.
            assert blob[4] & 0x04
            decompressor = ZstdDecompressor()
            assert len(decompressor.decompress(blob, max_length=size)) == size
            assert decompressor.eof
    assert counts == [0, 3, 1252]
