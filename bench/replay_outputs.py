"""The output of `loopcfg replay` under the option sets docs/performance.md lists, stored and
compared byte for byte: a speed change to the replay must not change a byte of what it prints.

A plain script, not a test (it reads the real corpus, which holds personal data: the outputs go
to a folder outside the repository or to bench/out/, gitignored).

    # before a change (or from another checkout: --pythonpath /tmp/base)
    .venv/bin/python bench/replay_outputs.py save /tmp/replay-outputs
    # after it: the same runs again, every output compared; exit 1 on any difference
    .venv/bin/python bench/replay_outputs.py compare /tmp/replay-outputs

Inputs: the transcripts of $LOOPCFG_CORPUS/openclaw (else ../shared/corpus/openclaw) and
tests/replay/data, each folder replayed with `--jobs 1` in text and in JSON, under each option
set of OPTION_SETS. Each run stores its stdout, stderr and exit code.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("LOOPCFG_CORPUS", REPO.parent / "shared" / "corpus")) / "openclaw"
DATA = REPO / "tests" / "replay" / "data"

OPTION_SETS: dict[str, list[str]] = {
    "defaults": [],
    "no-run-scope": ["--no-run-scope"],
    "openclaw-2026.9.6": ["--openclaw", "2026.9.6"],
    "openclaw-2026.5.4": ["--openclaw", "2026.5.4"],
    "openclaw-2026.6.1": ["--openclaw", "2026.6.1"],
    "stats": ["--stats"],
    "show-args": ["--show-args"],
}
FORMATS = ("text", "json")


def inputs() -> dict[str, Path]:
    found = {"data": DATA}
    if CORPUS.is_dir():
        found["corpus"] = CORPUS
    else:
        print(f"note: no corpus at {CORPUS}; tests/replay/data only", file=sys.stderr)
    return found


def run(folder: Path, options: list[str], output: str, pythonpath: str | None) -> bytes:
    """stdout, stderr and the exit code of one replay, as one blob."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    command = [sys.executable, "-m", "loopcfg", "replay", str(folder), "--jobs", "1"]
    command += ["--format", output, *options]
    # The working directory is the checkout run (`python -m` puts it first on sys.path).
    done = subprocess.run(command, capture_output=True, env=env, cwd=pythonpath or REPO)
    return b"".join(
        [b"exit %d\n-- stdout\n" % done.returncode, done.stdout, b"\n-- stderr\n", done.stderr]
    )


def every_output(pythonpath: str | None) -> dict[str, bytes]:
    outputs = {}
    for input_name, folder in inputs().items():
        for set_name, options in OPTION_SETS.items():
            for output in FORMATS:
                name = f"{input_name}.{set_name}.{output}"
                outputs[name] = run(folder, options, output, pythonpath)
    return outputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("save", "compare"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--pythonpath", help="run this checkout's loopcfg instead")
    arguments = parser.parse_args()
    outputs = every_output(arguments.pythonpath)
    if arguments.action == "save":
        arguments.folder.mkdir(parents=True, exist_ok=True)
        for name, blob in outputs.items():
            (arguments.folder / name).write_bytes(blob)
        print(f"{len(outputs)} outputs saved to {arguments.folder}")
        return 0
    differ = []
    for name, blob in outputs.items():
        stored = arguments.folder / name
        if not stored.exists() or stored.read_bytes() != blob:
            differ.append(name)
    for name in differ:
        print(f"DIFFERS: {name}")
    print(f"{len(outputs) - len(differ)} of {len(outputs)} outputs identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
