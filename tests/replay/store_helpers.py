"""Helpers for the session-store tests: private copies of the three 2026.9.6 stores (the
corpus stays untouched: opening a WAL store where SQLite may write leaves `-wal`/`-shm` files),
their JSONL form, and a CLI runner."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from loopcfg.cli import cli
from tests.conftest import CORPUS

SQLITE_CORPUS = CORPUS / "openclaw-sqlite"
STORES = ("native-two-runs", "native-three-runs-and-reset", "native-runaway-loop")
STORE_FILE = "openclaw-agent.sqlite"
TWO_RUNS_ID = "30b81dc2-47a3-4f44-b411-c0dcedadf05a"
RUNAWAY_ID = "2deed13f-e708-4613-b38a-ad695aa69b3f"
KEY = "agent:main:loopdemo"
CLEAN_ENV: dict[str, str | None] = {
    "NO_COLOR": None,
    "OPENCLAW_STATE_DIR": None,
    "OPENCLAW_HOME": None,
    "OPENCLAW_CONFIG_PATH": None,
}


def leftovers() -> list[Path]:
    """`-wal`/`-shm` files in the corpus: there must never be any."""
    return sorted(SQLITE_CORPUS.glob("*/*-wal")) + sorted(SQLITE_CORPUS.glob("*/*-shm"))


@pytest.fixture
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tmp_path/stores/<name>/openclaw-agent.sqlite for the three corpus stores; the test
    runs in tmp_path/stores, so names are as short as in the docs."""
    if not SQLITE_CORPUS.is_dir():
        pytest.skip("shared corpus (openclaw-sqlite) not present")
    before = leftovers()
    root = tmp_path / "stores"
    for name in STORES:
        (root / name).mkdir(parents=True)
        shutil.copyfile(SQLITE_CORPUS / name / STORE_FILE, root / name / STORE_FILE)
    monkeypatch.chdir(root)
    yield root
    # Nothing new beside the corpus stores (files someone else left are not this test's).
    assert leftovers() == before


def store_path(root: Path, name: str) -> Path:
    return root / name / STORE_FILE


def rows(path: Path) -> list[tuple[int, str | None, bytes | None, int | None]]:
    """(seq, event_json, event_zstd, event_utf8_bytes) of every row, in seq order."""
    with sqlite3.connect(path) as connection:
        return list(
            connection.execute(
                "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
                "ORDER BY session_id, seq"
            )
        )


def decoded(event_json: str | None, blob: bytes | None, size: int | None) -> str:
    if event_json is not None:
        return event_json
    from backports.zstd import ZstdDecompressor

    assert blob is not None and size is not None
    return ZstdDecompressor().decompress(blob, max_length=size).decode("utf-8")


def export_jsonl(store: Path, out: Path) -> Path:
    """The session's JSONL form (Decision 8): line = seq + 1, a gap in seq a blank line."""
    lines: list[str] = []
    for seq, text, blob, size in rows(store):
        while len(lines) < seq:
            lines.append("")
        lines.append(decoded(text, blob, size))
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return out


def writable(path: Path) -> sqlite3.Connection:
    """A read-write connection to a test's own copy (to damage or change it)."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def invoke(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(cli, ["replay", *args], env={**CLEAN_ENV, **(env or {})})


def replay_json(*args: str) -> tuple[dict[str, Any], Result]:
    result = invoke("--format", "json", "--jobs", "1", *args)
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout), result


STORE_ONLY = {"source", "agent", "sessionKey", "firstBlockSeq", "incomplete", "seq"}


def neutral(document: dict[str, Any]) -> dict[str, Any]:
    """The replay JSON without `file` and the fields only a store session has (10.5)."""

    def strip(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in item.items() if k != "file" and k not in STORE_ONLY} for item in items
        ]

    return {key: strip(document[key]) for key in ("events", "aborts", "sessions")}


def shorten(path: Path, last_seq: int = 150) -> Path:
    """Keep the rows up to `last_seq` (the runaway loop then still warns at call #11 and
    blocks from #21, in a fraction of the time of its 1262 calls)."""
    connection = writable(path)
    connection.execute("DELETE FROM transcript_events WHERE seq > ?", (last_seq,))
    connection.close()
    return path
