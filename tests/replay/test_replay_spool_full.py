"""A full disk under the spool of idle sessions (spool.py): one line that names the spool and
where it lives, exit 2, no traceback. The disk is made full for real: the replay runs in a
child process whose file size limit (RLIMIT_FSIZE) stops SQLite's temporary file early."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# Sessions beyond the 1,024 kept in memory go to the spool; SQLite writes its temporary file
# once its page cache (2 MiB) is full, so these many (~10 MB spooled) need the disk.
SESSIONS = 20000
# The spool outgrows it long before the end of the trace; the renderer's own temporary file
# (the summary rows) is written only at the end.
FILE_SIZE_LIMIT = 1 << 20


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs RLIMIT_FSIZE")
def test_a_full_spool_is_one_line_naming_the_spool_and_its_folder(tmp_path: Path) -> None:
    trace = tmp_path / "sessions.jsonl"
    with trace.open("w") as out:
        for number in range(SESSIONS):
            text = "x" * 100
            call = {"session": f"s{number}", "tool": "read", "args": {"path": text}}
            out.write(json.dumps(call) + "\n")
    spool_dir = tmp_path / "spool"
    spool_dir.mkdir()
    env = {**os.environ, "SQLITE_TMPDIR": str(spool_dir), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "loopcfg", "replay", str(trace), "--jobs", "1"],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=_limit_file_size,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "LC000" in line]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"{trace}: LC000 error: cannot replay: the temporary spool")
    assert f"(in {spool_dir})" in errors[0]
    assert "SQLITE_TMPDIR" in errors[0]
