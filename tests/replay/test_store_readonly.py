"""Stores in a read-only directory (10.6), read for real by an unprivileged user.

CI runs as root, which ignores permissions, so the reading happens in a child process run as
`nobody` (with setpriv and the system Python, which `nobody` can execute; the reader needs only
the standard library). Skipped where that is not possible.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.replay.store_helpers import store_path, stores

__all__ = ["stores"]

SYSTEM_PYTHON = Path("/usr/bin/python3")
SETPRIV = shutil.which("setpriv")
NOBODY = 65534

READER = """
import json, sys
from loopcfg.replay.store import list_sessions, open_store, read_meta
from loopcfg.replay.store_read import RowReader
with open_store(sys.argv[1], "store") as store:
    meta = read_meta(store.connection)
    [row] = list_sessions(store.connection, meta)
    reader = RowReader(store.connection, meta, "store", row.session_id)
    lines = [number for number, _ in reader.lines()]
    texts = [line for _, line in RowReader(store.connection, meta, "s", row.session_id).lines()]
print(json.dumps({"notes": store.notes, "rows": len(lines), "first": texts[1].decode()}))
"""


def unprivileged_possible() -> bool:
    return os.geteuid() == 0 and SETPRIV is not None and SYSTEM_PYTHON.exists()


pytestmark = pytest.mark.skipif(
    not unprivileged_possible(), reason="needs root, setpriv and /usr/bin/python3"
)


@pytest.fixture
def readonly_dir() -> Iterator[Path]:
    """A directory `nobody` can read but not write (pytest's own tmp is root-only)."""
    folder = Path(tempfile.mkdtemp(prefix="loopcfg-ro-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def read_as_nobody(folder: Path, tmpdir: Path | None = None) -> dict[str, Any]:
    for path in folder.iterdir():
        path.chmod(0o644)
    folder.chmod(0o555)
    assert SETPRIV is not None
    result = subprocess.run(
        [
            SETPRIV,
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--",
            str(SYSTEM_PYTHON),
            "-c",
            READER,
            str(folder / "openclaw-agent.sqlite"),
        ],
        capture_output=True,
        text=True,
        env={
            "PYTHONPATH": str(REPO),
            "HOME": "/nonexistent",
            "PATH": "/usr/bin:/bin",
            **({} if tmpdir is None else {"TMPDIR": str(tmpdir)}),
        },
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    value: dict[str, Any] = json.loads(result.stdout)
    return value


def change_in_wal(source: Path, folder: Path, *, with_shm: bool) -> None:
    """Copy the store with a committed change still in its `-wal` (a writer is open)."""
    work = folder.parent / (folder.name + "-writer")
    work.mkdir()
    try:
        shutil.copyfile(source, work / "openclaw-agent.sqlite")
        writer = sqlite3.connect(work / "openclaw-agent.sqlite", isolation_level=None)
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("UPDATE transcript_events SET event_json = '{\"changed\":1}' WHERE seq = 1")
        names = ["openclaw-agent.sqlite", "openclaw-agent.sqlite-wal"]
        if with_shm:
            names.append("openclaw-agent.sqlite-shm")
        for name in names:
            shutil.copyfile(work / name, folder / name)
        writer.close()
    finally:
        shutil.rmtree(work)


def test_clean_store_alone_opens_immutable(stores: Path, readonly_dir: Path) -> None:
    shutil.copyfile(store_path(stores, "native-two-runs"), readonly_dir / "openclaw-agent.sqlite")
    found = read_as_nobody(readonly_dir)
    assert found["rows"] == 37
    assert any("opened as immutable" in note for note in found["notes"])
    assert sorted(p.name for p in readonly_dir.iterdir()) == ["openclaw-agent.sqlite"]


def test_wal_without_shm_reads_a_private_copy(stores: Path, readonly_dir: Path) -> None:
    change_in_wal(store_path(stores, "native-two-runs"), readonly_dir, with_shm=False)
    found = read_as_nobody(readonly_dir)
    assert found["rows"] == 37
    assert found["first"] == '{"changed":1}'  # the row still in the WAL is seen
    assert any("private copy" in note for note in found["notes"])
    names = sorted(p.name for p in readonly_dir.iterdir())
    assert names == ["openclaw-agent.sqlite", "openclaw-agent.sqlite-wal"]
    assert not list(Path(tempfile.gettempdir()).glob("loopcfg-store-*"))


def test_wal_and_shm_present_open_normally(stores: Path, readonly_dir: Path) -> None:
    change_in_wal(store_path(stores, "native-two-runs"), readonly_dir, with_shm=True)
    found = read_as_nobody(readonly_dir)
    assert found["rows"] == 37
    assert found["first"] == '{"changed":1}'
    assert found["notes"] == []


@pytest.fixture
def full_tmpdir() -> Iterator[Path]:
    """A 64 KiB tmpfs, half full: room for tempfile's probe, none for a copy of the store."""
    folder = Path(tempfile.mkdtemp(prefix="loopcfg-full-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=1777", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip("cannot mount a tmpfs here")
    try:
        (folder / "fill").write_bytes(bytes(32 * 1024))
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        folder.rmdir()


def test_a_full_temporary_folder_is_named_in_the_warning(
    stores: Path, readonly_dir: Path, full_tmpdir: Path
) -> None:
    change_in_wal(store_path(stores, "native-two-runs"), readonly_dir, with_shm=False)
    found = read_as_nobody(readonly_dir, tmpdir=full_tmpdir)
    assert found["rows"] == 37
    assert found["first"] != '{"changed":1}'  # the row in the WAL could not be read
    [note] = found["notes"]
    wal_bytes = (readonly_dir / "openclaw-agent.sqlite-wal").stat().st_size
    assert note == (
        "store: warning: no private copy could be made (in the temporary folder "
        f"{full_tmpdir}: No space left on device; set TMPDIR to a folder with room); rows "
        f"still in the WAL ({wal_bytes} bytes) are not visible"
    )
    assert sorted(p.name for p in full_tmpdir.iterdir()) == ["fill"]  # nothing left behind
