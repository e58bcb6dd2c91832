"""Running loopcfg as a user does (a process with real streams), for what CliRunner cannot show:
closed and full streams, signals, the output encoding, hash salting across processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

# Generous: only a hang (the bug) comes near it. Nothing here asserts how fast a run is.
HANG = 120


def loopcfg_process(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, shell_redirect: str = ""
) -> subprocess.CompletedProcess[str]:
    """`python -m loopcfg ARGS`, optionally through bash for a redirection (`>&-`, `<&-`)."""
    environment = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **(env or {})}
    command = [sys.executable, "-m", "loopcfg", *args]
    if shell_redirect:
        quoted = " ".join(f"'{part}'" for part in command)
        command = ["bash", "-c", f"{quoted} {shell_redirect}"]
    return subprocess.run(
        command,
        cwd=cwd,
        env=environment,
        capture_output=not shell_redirect or "2>" not in shell_redirect,
        text=True,
        timeout=HANG,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def no_traceback(*streams: str | None) -> None:
    for stream in streams:
        assert "Traceback" not in (stream or ""), stream
