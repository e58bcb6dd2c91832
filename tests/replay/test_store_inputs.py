"""Which stores and sessions a replay reads (10.5): state dirs and their registry, walks,
`PATH::SESSION`, `--session`, `--list`, no PATH (the default state dir), `--profile`."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from loopcfg.replay.store_inputs import split_argument
from tests.replay.helpers import check_golden
from tests.replay.store_helpers import (
    KEY,
    RUNAWAY_ID,
    STORE_FILE,
    TWO_RUNS_ID,
    invoke,
    replay_json,
    shorten,
    store_path,
    stores,
    writable,
)

__all__ = ["stores"]

RUNAWAY = "native-runaway-loop/openclaw-agent.sqlite"
TWO = "native-two-runs/openclaw-agent.sqlite"


def make_state_dir(stores: Path, root: Path, *, registry: bool = True) -> Path:
    """A state dir: agent `main` in its usual place, `ops` outside it (absolute path in the
    registry), and a stale registry row for a deleted agent."""
    (root / "agents" / "main" / "agent").mkdir(parents=True)
    shutil.copyfile(
        store_path(stores, "native-runaway-loop"), root / "agents/main/agent" / STORE_FILE
    )
    shorten(root / "agents/main/agent" / STORE_FILE)
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    shutil.copyfile(store_path(stores, "native-two-runs"), elsewhere / STORE_FILE)
    if registry:
        (root / "state").mkdir()
        with sqlite3.connect(root / "state" / "openclaw.sqlite") as db:
            db.execute(
                "CREATE TABLE schema_meta (meta_key TEXT PRIMARY KEY, role TEXT, "
                "schema_version INTEGER, agent_id TEXT, app_version TEXT, created_at INTEGER, "
                "updated_at INTEGER)"
            )
            db.execute("INSERT INTO schema_meta VALUES ('primary','global',18,NULL,'2026.9.6',0,0)")
            db.execute(
                "CREATE TABLE agent_databases (agent_id TEXT, path TEXT, schema_version INTEGER, "
                "last_seen_at INTEGER, size_bytes INTEGER, PRIMARY KEY (agent_id, path))"
            )
            db.executemany(
                "INSERT INTO agent_databases VALUES (?, ?, 23, 0, NULL)",
                [
                    ("main", "agents/main/agent/openclaw-agent.sqlite"),
                    ("ops", str(elsewhere / STORE_FILE)),
                    ("gone", "agents/gone/agent/openclaw-agent.sqlite"),
                ],
            )
        db.close()
    (root / "agents" / "main" / "sessions").mkdir()
    (root / "workspace").mkdir()
    return root


def test_split_argument(tmp_path: Path) -> None:
    assert split_argument("a.sqlite::agent:main:x") == ("a.sqlite", "agent:main:x")
    assert split_argument("a.sqlite") == ("a.sqlite", None)
    odd = tmp_path / "odd::name.jsonl"
    odd.write_text("")
    assert split_argument(str(odd)) == (str(odd), None)


def test_state_dir_reads_the_registry_once_per_store(stores: Path) -> None:
    make_state_dir(stores, stores / "state-dir")
    document, result = replay_json("state-dir")
    assert result.exit_code == 0, result.stderr
    files = [s["file"] for s in document["sessions"]]
    # Registry order (agent_id, path); the walked copy of `main` is the same file: read once.
    assert files[0] == os.path.join("state-dir", "agents/main/agent/openclaw-agent.sqlite")
    assert files[1] == str(stores / "elsewhere" / STORE_FILE)
    assert len(files) == 2
    assert [s["agent"] for s in document["sessions"]] == ["main", "main"]
    assert "registered store state-dir/agents/gone/agent/openclaw-agent.sqlite (agent gone)" in (
        result.stderr
    )


def test_state_database_as_input(stores: Path) -> None:
    make_state_dir(stores, stores / "state-dir")
    document, result = replay_json("state-dir/state/openclaw.sqlite")
    assert result.exit_code == 0
    assert [s["session"] for s in document["sessions"]] == [RUNAWAY_ID, TWO_RUNS_ID]
    assert "does not exist" in result.stderr


def test_state_dir_without_registry_walks_agents(stores: Path) -> None:
    make_state_dir(stores, stores / "state-dir", registry=False)
    document, _ = replay_json("state-dir")
    assert [s["session"] for s in document["sessions"]] == [RUNAWAY_ID]


def test_plain_directory_finds_stores_by_name(stores: Path) -> None:
    shorten(Path(RUNAWAY))
    document, result = replay_json(".")
    assert result.exit_code == 0
    assert [s["file"] for s in document["sessions"]] == [
        "native-runaway-loop/openclaw-agent.sqlite",
        "native-three-runs-and-reset/openclaw-agent.sqlite",
        "native-two-runs/openclaw-agent.sqlite",
    ]


def test_store_named_twice_is_read_once(stores: Path) -> None:
    document, _ = replay_json(TWO, f"./{TWO}")
    assert len(document["sessions"]) == 1


@pytest.mark.parametrize(
    "selector",
    [KEY, RUNAWAY_ID, "2deed13f", f"{RUNAWAY_ID}@35", "2deed13f-e708@35"],
)
def test_path_session_selects(stores: Path, selector: str) -> None:
    shorten(Path(RUNAWAY))
    document, result = replay_json(f"{RUNAWAY}::{selector}")
    assert result.exit_code == 0
    assert [s["session"] for s in document["sessions"]] == [RUNAWAY_ID]


def test_session_option_applies_to_every_input(stores: Path) -> None:
    shorten(Path(RUNAWAY))
    document, _ = replay_json(".", "--session", "2deed13f")
    assert [s["session"] for s in document["sessions"]] == [RUNAWAY_ID]


def test_session_option_matches_jsonl_headers(stores: Path) -> None:
    header = {"type": "session", "version": 3, "id": "abcdef12-3456", "timestamp": "t"}
    Path("one.jsonl").write_text(json.dumps(header) + "\n")
    Path("other.jsonl").write_text(json.dumps({**header, "id": "zzzzzzzz-0"}) + "\n")
    document, _ = replay_json("one.jsonl", "other.jsonl", "--session", "abcdef12")
    assert [s["file"] for s in document["sessions"]] == ["one.jsonl"]


def test_no_matching_session(stores: Path) -> None:
    result = invoke(f"{TWO}::nothing-here")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"loopcfg replay: error: no session matches nothing-here in {TWO}; "
        f"see `loopcfg replay {TWO} --list`"
    )
    assert result.stdout == ""


def test_short_prefix_does_not_match(stores: Path) -> None:
    assert invoke(f"{RUNAWAY}::2deed13").exit_code == 2


def test_ambiguous_prefix_lists_the_candidates(stores: Path) -> None:
    connection = writable(Path(RUNAWAY))
    other = "2deed13f-0000-0000-0000-000000000000"
    columns = [row[1] for row in connection.execute("PRAGMA table_info(session_windows)")]
    copied = ", ".join("?" if c == "session_id" else c for c in columns)
    connection.execute(
        f"INSERT INTO session_windows ({', '.join(columns)}) SELECT {copied} FROM session_windows",
        (other,),
    )
    connection.close()
    result = invoke(f"{RUNAWAY}::2deed13f")
    assert result.exit_code == 2
    assert f"is ambiguous: {other}, {RUNAWAY_ID}" in result.stderr


def test_list_text_and_json(stores: Path) -> None:
    text = invoke(".", "--list")
    assert text.exit_code == 0
    check_golden("store-list.txt", text.stdout)
    document = invoke(".", "--list", "--format", "json")
    assert document.exit_code == 0
    check_golden("store-list.json", document.stdout)
    parsed = json.loads(document.stdout)
    assert [s["compressedRows"] for s in parsed["sessions"]] == [1252, 3, 0]
    assert parsed["archivedTranscripts"][0] == {"db": RUNAWAY, "count": 0}


def test_list_with_a_selection(stores: Path) -> None:
    document = json.loads(invoke(".", "--list", "--format", "json", "--session", "2deed13f").stdout)
    assert [s["sessionId"] for s in document["sessions"]] == [RUNAWAY_ID]


def test_store_replay_text_golden(stores: Path) -> None:
    result = invoke(RUNAWAY, "--jobs", "1")
    assert result.exit_code == 0
    check_golden("store-runaway.txt", result.stdout)
    assert "add --openclaw 2026.9.6" in result.stderr  # Decision 2: a hint, never the target


def test_store_replay_json_golden(stores: Path) -> None:
    result = invoke(TWO, "--format", "json")
    check_golden("store-two-runs.json", result.stdout)


def test_no_path_reads_the_state_dir_variable(stores: Path) -> None:
    make_state_dir(stores, stores / "state-dir")
    result = invoke("--format", "json", env={"OPENCLAW_STATE_DIR": "state-dir"})
    assert result.exit_code == 0
    assert "loopcfg replay: reading state-dir" in result.stderr
    assert len(json.loads(result.stdout)["sessions"]) == 2


def test_no_path_with_a_profile(stores: Path) -> None:
    make_state_dir(stores, stores / ".openclaw-work")
    env = {"OPENCLAW_HOME": str(stores)}
    result = invoke("--profile", "work", "--list", env=env)
    assert result.exit_code == 0
    assert f"reading {stores / '.openclaw-work'}" in result.stderr
    missing = invoke("--profile", "other", env=env)
    assert missing.exit_code == 2
    assert missing.stderr.splitlines() == [
        f"loopcfg replay: error: no OpenClaw state directory at {stores / '.openclaw-other'}; "
        "name a PATH or set OPENCLAW_STATE_DIR"
    ]


def test_sqlite_is_never_read_from_stdin(stores: Path) -> None:
    from click.testing import CliRunner

    from loopcfg.cli import cli

    data = Path(TWO).read_bytes()
    result = CliRunner().invoke(cli, ["replay", "-"], input=data)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "-: LC000 error: an SQLite database cannot be read from stdin; name its file"
    )


def test_release_hints_follow_the_target_line() -> None:
    from dataclasses import dataclass

    from loopcfg.replay.store_inputs import release_hints

    @dataclass
    class WithTarget:
        openclaw: str | None

    stores_ = {"a.sqlite": "2026.9.6", "b.sqlite": "2026.9.6", "c.sqlite": "2026.6.5"}
    unknown = release_hints(stores_, WithTarget(None))  # unknown target: checked as S2
    assert unknown == [
        "loopcfg replay: note: a.sqlite was written by OpenClaw 2026.9.6; to replay as that "
        "release would, add --openclaw 2026.9.6"
    ]
    assert release_hints(stores_, WithTarget("2026.8.1")) == [
        "loopcfg replay: note: c.sqlite was written by OpenClaw 2026.6.5; to replay as that "
        "release would, add --openclaw 2026.6.5"
    ]
