"""Replaying a session store against replaying the same session's JSONL form.

A plain script, not a test. It copies `native-runaway-loop` (OpenClaw 2026.9.6: 3791 rows,
1252 of them zstd-compressed, 92 MB as JSONL) from ../shared/corpus/openclaw-sqlite/ into
bench/out/store/ (gitignored; the corpus is never opened), writes the session's JSONL form
beside it (line = seq + 1), then replays both in fresh `python -m loopcfg replay --jobs 1
--format json` processes, interleaved for ROUNDS rounds so both forms see the same machine
load, and prints the median wall time, CPU time and peak RSS of each and their ratios.

    .venv/bin/python bench/store.py              # 5 rounds
    .venv/bin/python bench/store.py --rounds 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("LOOPCFG_CORPUS", REPO.parent / "shared" / "corpus"))
SOURCE = CORPUS / "openclaw-sqlite" / "native-runaway-loop" / "openclaw-agent.sqlite"
OUT = REPO / "bench" / "out" / "store"


def prepare() -> tuple[Path, Path]:
    from loopcfg.replay.store_zstd import decode_row

    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    store = OUT / "openclaw-agent.sqlite"
    shutil.copyfile(SOURCE, store)
    store.chmod(0o644)
    jsonl = OUT / "runaway.jsonl"
    with sqlite3.connect(store) as connection, jsonl.open("wb") as out:
        number = 0
        query = "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events"
        for seq, text, blob, size in connection.execute(query + " ORDER BY seq"):
            out.write(b"\n" * (seq - number))
            out.write(text.encode() if text is not None else decode_row(blob, size))
            out.write(b"\n")
            number = seq + 1
    connection.close()
    return store, jsonl


def run(path: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one replay process."""
    command = [sys.executable, "-m", "loopcfg", "replay", str(path), "--jobs", "1"]
    start = time.perf_counter()
    child = subprocess.Popen(
        [*command, "--format", "json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not SOURCE.is_file():
        raise SystemExit(f"{SOURCE} not found (set LOOPCFG_CORPUS)")
    store, jsonl = prepare()
    print(f"store {store.stat().st_size / 1e6:.1f} MB, JSONL {jsonl.stat().st_size / 1e6:.1f} MB")
    results: dict[str, list[tuple[float, float, float]]] = {"store": [], "jsonl": []}
    for _ in range(args.rounds):
        results["store"].append(run(store))
        results["jsonl"].append(run(jsonl))
    medians = {
        name: tuple(statistics.median(values) for values in zip(*runs, strict=True))
        for name, runs in results.items()
    }
    for name, (wall, cpu, rss) in medians.items():
        print(f"{name:6} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak RSS {rss:6.1f} MB")
    (sw, sc, sr), (jw, jc, jr) = medians["store"], medians["jsonl"]
    print(f"store/JSONL: wall {sw / jw:.2f}x  cpu {sc / jc:.2f}x  peak RSS {sr / jr:.2f}x")


if __name__ == "__main__":
    main()
