"""Rows to lines (10.3): seq gaps, headerless sessions, over-long rows, older schemas, the
agent's settings, and parallel workers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from loopcfg.replay.driver import ReplayOptions
from loopcfg.replay.store_inputs import expand_inputs
from loopcfg.replay.store_session import StoreSession, replay_store_session
from tests.replay.store_helpers import (
    RUNAWAY_ID,
    TWO_RUNS_ID,
    export_jsonl,
    invoke,
    neutral,
    replay_json,
    rows,
    shorten,
    stores,
    writable,
)

__all__ = ["stores"]

TWO = "native-two-runs/openclaw-agent.sqlite"
RUNAWAY = "native-runaway-loop/openclaw-agent.sqlite"


def test_a_gap_in_seq_keeps_line_numbers(stores: Path) -> None:
    connection = writable(shorten(Path(RUNAWAY)))
    connection.execute("DELETE FROM transcript_events WHERE seq BETWEEN 40 AND 49")
    connection.close()
    jsonl = export_jsonl(Path(RUNAWAY), stores / "gap.jsonl")
    assert jsonl.read_text().splitlines()[40] == ""  # seq 40 would be line 41
    from_store, _ = replay_json(RUNAWAY)
    from_jsonl, _ = replay_json(str(jsonl))
    assert neutral(from_store) == neutral(from_jsonl)
    assert from_store["events"][-1]["seq"] == 149  # the last call up to seq 150


def test_a_session_without_header_is_named_by_its_id(stores: Path) -> None:
    connection = writable(Path(TWO))
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("DELETE FROM transcript_events WHERE seq = 0")
    connection.close()
    document, result = replay_json(TWO)
    assert result.exit_code == 0
    assert [s["session"] for s in document["sessions"]] == [TWO_RUNS_ID]
    assert document["sessions"][0]["calls"] == 10


def test_rows_longer_than_the_line_limit_are_reported(stores: Path) -> None:
    shorten(Path(RUNAWAY))
    [found] = [i for i in expand_inputs([RUNAWAY], max_line_bytes=600).inputs]
    assert isinstance(found, StoreSession)
    result = replay_store_session(found, ReplayOptions())
    too_long = [p for p in result.problems if "longer than --max-line-bytes" in p.message]
    assert too_long and all(p.code == "LC001" for p in too_long)
    assert too_long[0].render().startswith(f"{RUNAWAY}::{RUNAWAY_ID}@")


def test_agent_settings_come_from_the_config(stores: Path) -> None:
    config = stores / "openclaw.json5"
    config.write_text(
        "{tools: {loopDetection: {enabled: true}},"
        " agents: {list: [{id: 'main', tools: {loopDetection: {warningThreshold: 5,"
        " criticalThreshold: 8}}}]}}"
    )
    document, result = replay_json(str(shorten(Path(RUNAWAY))), "--config", str(config))
    assert result.exit_code == 0, result.stderr
    first = document["events"][0]
    assert (first["level"], first["count"]) == ("warning", 5)
    other, _ = replay_json(RUNAWAY, "--config", str(config), "--agent", "nobody")
    assert other["events"][0]["count"] == 10  # --agent wins: the global block alone


def test_parallel_workers_give_the_same_results(stores: Path) -> None:
    shorten(Path(RUNAWAY))
    one, _ = replay_json(".")
    from click.testing import CliRunner

    from loopcfg.cli import cli

    two = CliRunner().invoke(cli, ["replay", ".", "--format", "json", "--jobs", "2"])
    assert json.loads(two.stdout) == one


def old_schema_store(path: Path, source: Path, version: int, key: str = "agent:main:old") -> None:
    """A schema 4-13 layout (10.2): `sessions` for keys, text rows only."""
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE schema_meta (meta_key TEXT PRIMARY KEY, role TEXT, schema_version INTEGER,
            agent_id TEXT, app_version TEXT, created_at INTEGER, updated_at INTEGER);
        CREATE TABLE sessions (session_id TEXT PRIMARY KEY, session_key TEXT);
        CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
            event_json TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq));
        """
    )
    connection.execute(
        "INSERT INTO schema_meta VALUES ('primary', 'agent', ?, 'main', '2026.7.2-beta.1', 0, 0)",
        (version,),
    )
    connection.execute(f"PRAGMA user_version = {version}")
    connection.execute("INSERT INTO sessions VALUES (?, ?)", (TWO_RUNS_ID, key))
    for seq, text, _blob, _size in rows(source):
        connection.execute(
            "INSERT INTO transcript_events VALUES (?, ?, ?, 0)", (TWO_RUNS_ID, seq, text)
        )
    connection.commit()
    connection.close()


def test_an_older_schema_is_read_by_introspection(stores: Path) -> None:
    Path("old").mkdir()
    old_schema_store(Path("old/openclaw-agent.sqlite"), Path(TWO), 8)
    document, result = replay_json("old/openclaw-agent.sqlite")
    assert result.exit_code == 0, result.stderr
    [session] = document["sessions"]
    assert (session["sessionKey"], session["calls"]) == ("agent:main:old", 10)
    expected, _ = replay_json(TWO)
    assert neutral(document)["events"] == neutral(expected)["events"]
    listed = json.loads(invoke("old/openclaw-agent.sqlite", "--list", "--format", "json").stdout)
    assert listed["sessions"][0]["compressedRows"] == 0


def test_a_schema_before_sessions_moved(stores: Path) -> None:
    Path("old").mkdir()
    old_schema_store(Path("old/openclaw-agent.sqlite"), Path(TWO), 1)
    named = invoke("old/openclaw-agent.sqlite")
    assert named.exit_code == 2
    assert "holds no sessions; they are JSONL files under agents/main/sessions/" in named.stderr
    # Found by a walk it is a note, and the other stores replay.
    shorten(Path(RUNAWAY))
    document, walked = replay_json(".")
    assert walked.exit_code == 0
    assert "holds no sessions" in walked.stderr and "skipped" in walked.stderr
    assert len(document["sessions"]) == 3


def test_state_dir_transcripts_get_their_agent_folder(stores: Path) -> None:
    folder = stores / "state-dir" / "agents" / "ops" / "sessions"
    folder.mkdir(parents=True)
    export_jsonl(shorten(Path(RUNAWAY)), folder / f"{RUNAWAY_ID}.jsonl")
    config = stores / "openclaw.json5"
    config.write_text(
        "{tools: {loopDetection: {enabled: true}},"
        " agents: {list: [{id: 'ops', tools: {loopDetection: {warningThreshold: 5}}}]}}"
    )
    document, result = replay_json("state-dir", "--config", str(config))
    assert result.exit_code == 0, result.stderr
    assert document["events"][0]["count"] == 5
    named, _ = replay_json(str(folder / f"{RUNAWAY_ID}.jsonl"), "--config", str(config))
    assert named["events"][0]["count"] == 10  # named directly: no agent is implied


def test_a_stale_active_index_is_walked_by_ids(stores: Path) -> None:
    connection = writable(Path(TWO))
    connection.execute("UPDATE session_transcript_index_state SET needs_rebuild = 1")
    connection.execute("DELETE FROM session_transcript_active_events")
    connection.close()
    jsonl = export_jsonl(Path(TWO), stores / "two.jsonl")
    from_store, _ = replay_json(TWO, "--branch", "active")
    from_jsonl, _ = replay_json(str(jsonl), "--branch", "active")
    assert neutral(from_store) == neutral(from_jsonl)
    assert from_store["sessions"][0]["calls"] == 10


def test_schema_meta_disagreeing_with_user_version_is_a_note(stores: Path) -> None:
    connection = writable(Path(TWO))
    connection.execute("UPDATE schema_meta SET schema_version = 22 WHERE meta_key = 'primary'")
    connection.close()
    _, result = replay_json(TWO)
    assert result.exit_code == 0
    assert (
        f"{TWO}: note: schema_meta says schema 22, user_version says 23; user_version decides"
        in result.stderr
    )


def test_text_header_names_the_agent_when_the_key_does_not(stores: Path) -> None:
    Path("old").mkdir()
    old_schema_store(Path("old/openclaw-agent.sqlite"), Path(TWO), 8, key="chat-42")
    result = invoke("old/openclaw-agent.sqlite", "--jobs", "1")
    assert result.stdout.splitlines()[0] == (
        f"old/openclaw-agent.sqlite · agent main · chat-42 · session {TWO_RUNS_ID}"
    )
    assert f"old/openclaw-agent.sqlite::chat-42@{TWO_RUNS_ID[:8]}" in result.stdout


def test_compare_names_store_positions_by_seq(stores: Path) -> None:
    tuned = stores / "tuned.json5"
    tuned.write_text("{tools: {loopDetection: {enabled: true, warningThreshold: 5}}}")
    result = invoke(str(shorten(Path(RUNAWAY))), "--compare", str(tuned), "--jobs", "1")
    lines = result.stdout.splitlines()
    assert f"{RUNAWAY} · agent:main:loopdemo · session {RUNAWAY_ID}" in lines
    assert any(line.startswith("  only b: call #6       seq 20 ") for line in lines), lines
