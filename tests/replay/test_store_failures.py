"""Every failure of 10.6 is one located line: damaged rows are skipped (Decision 7), damaged,
locked, foreign or newer databases are refused with exit 2, other inputs go on."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopcfg.replay import store as store_module
from loopcfg.replay import store_read, store_zstd
from tests.replay.store_helpers import (
    TWO_RUNS_ID,
    export_jsonl,
    invoke,
    neutral,
    replay_json,
    shorten,
    store_path,
    stores,
    writable,
)

__all__ = ["stores"]

THREE = "native-three-runs-and-reset/openclaw-agent.sqlite"
TWO = "native-two-runs/openclaw-agent.sqlite"
RUNAWAY = "native-runaway-loop/openclaw-agent.sqlite"


def stderr_lines(result: object) -> list[str]:
    return str(getattr(result, "stderr", "")).splitlines()


def test_flipped_zstd_byte_is_one_located_diagnostic(stores: Path) -> None:
    connection = writable(Path(THREE))
    (blob,) = connection.execute(
        "SELECT event_zstd FROM transcript_events WHERE seq = 44"
    ).fetchone()
    damaged = bytearray(blob)
    damaged[len(damaged) // 2] ^= 0xFF
    connection.execute(
        "UPDATE transcript_events SET event_zstd = ? WHERE seq = 44", (bytes(damaged),)
    )
    connection.close()
    document, result = replay_json(THREE)
    problems = [line for line in stderr_lines(result) if " error: " in line]
    assert problems == [problems[0]] and problems[0].startswith(
        f"{THREE}::{TWO_RUNS_ID}@44: LC001 error: compressed row "
    )
    assert result.exit_code == 0  # a malformed row alone does not change the exit code
    assert document["sessions"][0]["calls"] == 15
    strict, strict_result = replay_json(THREE, "--strict")
    assert strict_result.exit_code == 2
    assert strict["sessions"][0]["calls"] < 15  # the session stops at the bad row


def test_non_object_and_non_json_rows(stores: Path) -> None:
    connection = writable(Path(TWO))
    connection.execute("UPDATE transcript_events SET event_json = '[1]' WHERE seq = 1")
    connection.execute("UPDATE transcript_events SET event_json = '{oops' WHERE seq = 2")
    connection.execute(
        "UPDATE transcript_events SET event_json = CAST(x'7bff7d' AS TEXT) WHERE seq = 3"
    )
    connection.close()
    document, result = replay_json(TWO)
    lines = stderr_lines(result)
    where = f"{TWO}::{TWO_RUNS_ID}"
    assert f"{where}@1: LC008 error: a transcript line must be a JSON object (column 1)" in lines
    assert any(line.startswith(f"{where}@2: LC001 error: not a JSON line") for line in lines)
    assert f"{where}@3: LC001 error: line is not valid UTF-8 (column 1)" in lines
    assert result.exit_code == 0
    assert document["sessions"][0]["calls"] == 10


def test_without_zstd_compressed_sessions_are_refused_whole(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable() -> object:
        raise store_zstd.ZstdUnavailable(store_zstd.MISSING)

    monkeypatch.setattr(store_zstd, "_module", None)
    monkeypatch.setattr(store_zstd, "_import_zstd", unavailable)
    document, result = replay_json(TWO)
    assert result.exit_code == 0 and document["sessions"][0]["calls"] == 10
    result = invoke(THREE, "--jobs", "1")
    assert result.exit_code == 2
    assert (
        f"{THREE}::{TWO_RUNS_ID}: LC000 error: this session has compressed rows and needs zstd "
        "support: install backports.zstd or use Python 3.14+"
    ) in stderr_lines(result)
    assert result.stdout == ""


def test_newer_schema_is_refused_unless_allowed(stores: Path) -> None:
    connection = writable(Path(TWO))
    connection.execute("PRAGMA user_version = 24")
    connection.close()
    result = invoke(TWO)
    assert result.exit_code == 2
    assert f"{TWO}: LC000 error: agent database schema 24 is newer than loopcfg knows (23); " in (
        result.stderr
    )
    document, allowed = replay_json(TWO, "--allow-newer-schema")
    assert allowed.exit_code == 0
    assert document["sessions"][0]["calls"] == 10
    assert "results may be incomplete" in allowed.stderr


def test_text_file_named_like_a_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("openclaw-agent.sqlite").write_text('{"type":"session"}\n')
    result = invoke("openclaw-agent.sqlite")
    assert result.exit_code == 2
    assert "openclaw-agent.sqlite: LC000 error: not an SQLite database" in stderr_lines(result)
    Path("openclaw-agent.sqlite").write_bytes(b"")
    result = invoke("openclaw-agent.sqlite")
    assert result.exit_code == 2
    assert "openclaw-agent.sqlite: LC000 error: an empty file, not an SQLite database" in (
        stderr_lines(result)
    )


def test_other_sqlite_file_is_not_openclaw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with sqlite3.connect("other.db") as connection:
        connection.execute("CREATE TABLE t (x)")
    connection.close()
    result = invoke("other.db")
    assert result.exit_code == 2
    assert "other.db: LC000 error: not an OpenClaw agent or state database" in stderr_lines(result)


def test_corrupt_file(stores: Path) -> None:
    data = bytearray(Path(TWO).read_bytes())
    data[4096:8192] = b"\xa5" * 4096  # page 2 and on: the schema's b-tree pages
    data[100:200] = b"\xa5" * 100  # page 1's b-tree header
    Path(TWO).write_bytes(bytes(data))
    result = invoke(TWO, str(shorten(Path(RUNAWAY))), "--jobs", "1")
    assert result.exit_code == 2
    assert any(
        line.startswith(f"{TWO}: LC000 error: database is damaged: ")
        for line in stderr_lines(result)
    ), result.stderr
    assert "agent:main:loopdemo@2deed13f" in result.stdout  # the other store goes on


def test_missing_transcript_table(stores: Path) -> None:
    connection = writable(Path(TWO))
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("PRAGMA legacy_alter_table = ON")
    for table in ("transcript_event_identities", "session_transcript_active_events"):
        connection.execute(f"DROP TABLE {table}")
    connection.execute("DROP TABLE transcript_events")
    connection.close()
    result = invoke(TWO)
    assert result.exit_code == 2
    assert (
        f"{TWO}: LC000 error: this agent database (schema 23) holds no sessions; they are JSONL "
        "files under agents/main/sessions/"
    ) in stderr_lines(result)


def test_locked_store(stores: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.05)
    holder = writable(Path(TWO))
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = invoke(TWO)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 2
    assert (
        f"{TWO}: LC000 error: database is locked (busy for more than 5 s); try again"
        in stderr_lines(result)
    )


def test_directory_without_stores(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = invoke(str(tmp_path / "empty"))
    assert result.exit_code == 2
    assert "no session files found" in result.stderr


def coded(code: int, message: str) -> sqlite3.Error:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize(
    ("code", "message", "expected"),
    [
        (5, "database is locked", "database is locked (busy for more than 5 s); try again"),
        (11, "database disk image is malformed", "database is damaged: database disk image"),
        (26, "file is not a database", "database is damaged: file is not a database"),
        (14, "unable to open database file", "cannot read: unable to open database file"),
        (3, "access permission denied", "cannot read: access permission denied"),
        (10 | (3 << 8), "disk I/O error", "cannot read: disk I/O error"),
    ],
)
def test_injected_open_errors(
    stores: Path, monkeypatch: pytest.MonkeyPatch, code: int, message: str, expected: str
) -> None:
    def failing(path: Path, immutable: bool) -> sqlite3.Connection:
        raise coded(code, message)

    monkeypatch.setattr(store_module, "connect", failing)
    # A rollback-journal store: no WAL fallback applies.
    connection = writable(Path(TWO))
    connection.execute("PRAGMA journal_mode = DELETE")
    connection.close()
    result = invoke(TWO)
    assert result.exit_code == 2
    assert any(line.startswith(f"{TWO}: LC000 error: {expected}") for line in stderr_lines(result))


def test_damage_while_reading_keeps_the_partial_session(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = store_read.RowReader._rows

    def breaking(self: store_read.RowReader) -> Iterator[tuple[int, bytes]]:
        for number, line in real(self):
            if number > 100:
                raise coded(11, "database disk image is malformed")
            yield number, line

    monkeypatch.setattr(store_read.RowReader, "_rows", breaking)
    document, result = replay_json(RUNAWAY)
    assert result.exit_code == 2
    assert f"{RUNAWAY}: LC000 error: database is damaged: database disk image is malformed" in (
        stderr_lines(result)
    )
    [session] = document["sessions"]
    assert session["incomplete"] is True
    assert 0 < session["calls"] < 1262
    text = invoke(RUNAWAY, "--jobs", "1")
    assert "(incomplete)" in text.stdout


# -- cold transcripts (10.3) ----------------------------------------------------------------


def make_cold(store: Path, storage: str) -> tuple[str, bytes]:
    """Move the session's rows into a cold archive as OpenClaw 2026.9.6 does (10.3)."""
    from backports.zstd import ZstdCompressor

    connection = writable(store)
    found = connection.execute(
        "SELECT seq, event_json, event_zstd, event_utf8_bytes, created_at FROM transcript_events "
        "WHERE session_id = ? ORDER BY seq",
        (TWO_RUNS_ID,),
    ).fetchall()
    active = connection.execute(
        "SELECT active_position, event_seq FROM session_transcript_active_events "
        "WHERE session_id = ?",
        (TWO_RUNS_ID,),
    ).fetchall()
    records = [{"kind": "header", "version": 1, "sessionId": TWO_RUNS_ID, "generation": "g1"}]
    for seq, text, _blob, _size, created in found:
        row = {"seq": seq, "event_json": text, "created_at": created}
        records.append({"kind": "event", "row": row})
    for position, seq in active:
        records.append({"kind": "active", "row": {"active_position": position, "event_seq": seq}})
    raw = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()
    compressor = ZstdCompressor()  # streaming: no content size, as Node writes it
    archive = compressor.compress(raw) + compressor.flush()
    import hashlib

    digest = hashlib.sha256(archive).hexdigest()
    name = f"{digest}.jsonl.zst"
    connection.execute(
        "INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, "
        "archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage, "
        "archive_blob) VALUES (?, 'g1', ?, ?, ?, ?, ?, ?, 1, ?, ?)",
        (
            TWO_RUNS_ID,
            name,
            digest,
            len(found),
            len(raw),
            len(archive),
            found[-1][0],
            storage,
            archive if storage == "sqlite" else None,
        ),
    )
    connection.execute(
        "DELETE FROM session_transcript_index_state WHERE session_id = ?", (TWO_RUNS_ID,)
    )
    connection.execute("DELETE FROM transcript_events WHERE session_id = ?", (TWO_RUNS_ID,))
    connection.close()
    if storage == "file":
        (store.parent / "cold").mkdir()
        (store.parent / "cold" / name).write_bytes(archive)
    return name, archive


@pytest.mark.parametrize("storage", ["file", "sqlite"])
def test_cold_session_replays_from_its_archive(stores: Path, storage: str) -> None:
    jsonl = export_jsonl(Path(TWO), stores / "two.jsonl")
    make_cold(Path(TWO), storage)
    for options in ((), ("--branch", "active")):
        document, result = replay_json(TWO, *options)
        expected, _ = replay_json(str(jsonl), *options)
        assert result.exit_code == 0, result.stderr
        assert neutral(document) == neutral(expected)
        assert "read from its cold archive" in result.stderr
    listed = invoke(TWO, "--list")
    assert " cold current" in listed.stdout


@pytest.mark.parametrize("damage", ["missing", "changed"])
def test_cold_session_with_a_bad_archive_is_unreadable(stores: Path, damage: str) -> None:
    name, archive = make_cold(Path(TWO), "file")
    path = Path(TWO).parent / "cold" / name
    if damage == "missing":
        path.unlink()
    else:
        changed = bytearray(archive)
        changed[-1] ^= 1
        path.write_bytes(bytes(changed))
    result = invoke(TWO)
    assert result.exit_code == 2
    assert (
        f"{TWO}::{TWO_RUNS_ID}: LC000 error: transcript is in cold storage and its archive "
        f"{name} is missing or damaged"
    ) in stderr_lines(result)


def test_store_copy_helper_never_touches_the_corpus(stores: Path) -> None:
    """The fixture checks the corpus after every test; here a replay also runs on a copy of
    the whole folder, as a user would point replay at it."""
    shutil.copytree(stores, stores.parent / "again")
    result = invoke(str(stores.parent / "again"), "--list")
    assert result.exit_code == 0
    assert store_path(stores, "native-two-runs").is_file()


def _copy_failing(error: BaseException) -> object:
    def copyfile(source: str, target: str) -> str:
        raise error

    return copyfile


def test_why_no_private_copy_could_be_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reason reaches the warning (test_store_readonly.py: a real full tmpfs): a full
    temporary folder is named with what to do, an unreadable source is named, and a store
    that kept changing says so. shutil names the source in a failed write too."""
    store = tmp_path / "s.sqlite"
    store.write_bytes(b"x")
    (tmp_path / "s.sqlite-wal").write_bytes(b"y")
    monkeypatch.setattr(store_module.tempfile, "tempdir", str(tmp_path))
    full = OSError(errno.ENOSPC, "No space left on device", str(store))
    monkeypatch.setattr(store_module.shutil, "copyfile", _copy_failing(full))
    assert store_module._private_copy(str(store)) == (
        None,
        f"in the temporary folder {tmp_path}: No space left on device; set TMPDIR to a "
        "folder with room",
    )
    unreadable = OSError(errno.EACCES, "Permission denied", str(store) + "-wal")
    monkeypatch.setattr(store_module.shutil, "copyfile", _copy_failing(unreadable))
    assert store_module._private_copy(str(store)) == (
        None,
        f"cannot read {store}-wal: Permission denied",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite", "s.sqlite-wal"]
    unnamed = OSError(errno.EIO, "Input/output error")  # shutil's fallback names no side
    monkeypatch.setattr(store_module.shutil, "copyfile", _copy_failing(unnamed))
    assert store_module._private_copy(str(store))[1] == (
        f"copying it into the temporary folder {tmp_path} failed: Input/output error"
    )
    monkeypatch.setattr(store_module.shutil, "copyfile", _copy_failing(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        store_module._private_copy(str(store))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite", "s.sqlite-wal"]

    def no_folder(prefix: str) -> str:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(store_module.tempfile, "mkdtemp", no_folder)
    assert store_module._private_copy(str(store))[1] == (
        f"in the temporary folder {tmp_path}: Read-only file system; set TMPDIR to a folder "
        "with room"
    )


def test_a_store_that_keeps_changing_is_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    store.write_bytes(b"x")
    (tmp_path / "s.sqlite-wal").write_bytes(b"y")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(store_module.tempfile, "tempdir", str(scratch))
    copy = shutil.copyfile

    def copy_while_a_writer_appends(source: str, target: str) -> str:
        with open(source, "ab") as writer:
            writer.write(b"z")
        return copy(source, target)

    monkeypatch.setattr(store_module.shutil, "copyfile", copy_while_a_writer_appends)
    copied, why = store_module._private_copy(str(store))
    assert copied is None
    assert why == f"the store changed while it was copied, {store_module.COPY_ATTEMPTS} times"
    assert list(scratch.iterdir()) == []


def test_a_wal_checkpointed_while_copied_is_read_whole(
    stores: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The `-wal` gone by the time the copy is made: its rows are in the store, which is read
    as immutable and said to be complete (not "rows still in the WAL are not visible")."""
    store = tmp_path / "openclaw-agent.sqlite"
    shutil.copyfile(store_path(stores, "native-two-runs"), store)
    (tmp_path / "openclaw-agent.sqlite-wal").write_bytes(b"w" * 100)

    def checkpointed(path: str) -> tuple[None, str]:
        os.remove(path + "-wal")
        return None, f"cannot read {path}-wal: No such file or directory"

    monkeypatch.setattr(store_module, "_private_copy", checkpointed)
    opened = store_module._read_only_fallback(
        str(store), "store", store_module.connect, sqlite3.Error("cannot open -shm")
    )
    try:
        assert opened.notes == [
            "store: the directory is not writable; opened as immutable (complete: no WAL content)"
        ]
    finally:
        opened.close()
