"""Replay throughput: `loopcfg replay` on a generated OpenClaw transcript corpus.

A plain script, not a test. It writes a seeded ~200 MB corpus to bench/out/replay/ (gitignored):
one big transcript (half of it) and many 1 MB transcripts (the other half), in the line shapes
of real v3 transcripts (header, user prompts, assistant turns with thinking, text and tool
calls, parallel calls, tool results from a few hundred bytes up to 400 KB, exec and process
poll details, thrown errors, compactions, custom and model entries, gateway messages) with
stuck loops mixed in so the detectors fire. Then, in one run, it replays:

- the single big file (`--jobs 1`; one file is never split across processes),
- the many files with `--jobs 1` and with `--jobs 2`,
- the many files read with `json.loads` alone: the floor any Python replay stands on,

each in a fresh `python -m loopcfg replay ... --format json` process, and prints entries/s,
tool calls/s, MB/s, the peak RSS of the largest process (from `os.wait4`, which covers the
worker processes) and the ratios between them.

    .venv/bin/python bench/replay.py                 # ~200 MB, a few minutes
    .venv/bin/python bench/replay.py --size-mb 20    # smoke run
    .venv/bin/python bench/replay.py --profile       # cProfile of the big file, top 25
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "replay"
_WORD_TEXT = (
    "build test deploy cache index module worker queue retry socket parser config token stream "
    "buffer render layout schema commit branch merge docker image volume network proxy gateway "
    "session agent prompt model reply thread channel upload report metric latency error timeout"
)
WORDS = _WORD_TEXT.split()
TOOLS = ("read", "write", "edit", "exec", "process", "web_fetch", "message", "sessions_send")


@dataclass
class Counts:
    bytes: int = 0
    lines: int = 0
    calls: int = 0


class Writer:
    """Seeded transcript generator; texts are slices of one shared pool (cheap to make)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.pool = " ".join(self.rng.choice(WORDS) for _ in range(150_000))
        self.ids = 0

    def text(self, size: int) -> str:
        start = self.rng.randrange(len(self.pool) - size)
        return self.pool[start : start + size]

    def result_size(self) -> int:
        """Mostly small results, a long tail of big ones (file reads, logs): up to 400 KB."""
        roll = self.rng.random()
        if roll < 0.02:
            return self.rng.randrange(100_000, 400_000)
        if roll < 0.15:
            return self.rng.randrange(5_000, 40_000)
        return self.rng.randrange(100, 2_000)

    def transcript(self, path: Path, target_bytes: int, session: str) -> Counts:
        counts = Counts()
        parent: str | None = None
        with path.open("w", encoding="utf-8") as out:

            def emit(entry: dict[str, Any]) -> None:
                nonlocal parent
                self.ids += 1
                entry_id = f"{self.ids:08x}"
                if entry.get("type") != "session":
                    entry = {**entry, "id": entry_id, "parentId": parent}
                    parent = entry_id
                line = json.dumps(entry, ensure_ascii=False) + "\n"
                out.write(line)
                counts.bytes += len(line.encode("utf-8"))
                counts.lines += 1

            emit({"type": "session", "version": 3, "id": session, "timestamp": "2026-06-01T00:00Z"})
            emit({"type": "model_change", "provider": "anthropic", "modelId": "claude"})
            while counts.bytes < target_bytes:
                self.run(emit, counts)
        return counts

    def run(self, emit: Any, counts: Counts) -> None:
        """One run: a user prompt, then agent turns; sometimes a loop or a compaction retry."""
        emit(self.message({"role": "user", "content": [{"type": "text", "text": self.text(300)}]}))
        turns = self.rng.randrange(3, 40)
        loop_at = self.rng.randrange(turns) if self.rng.random() < 0.3 else -1
        for turn in range(turns):
            if turn == loop_at:
                self.loop(emit, counts)
            elif self.rng.random() < 0.01:
                self.compaction_retry(emit)
            else:
                self.turn(emit, counts)
        if self.rng.random() < 0.2:
            data = {"runId": f"run-{self.ids:x}", "error": "aborted"}
            emit({"type": "custom", "customType": "openclaw:prompt-error", "data": data})
        emit(self.message({"role": "assistant", "content": [{"type": "text", "text": "done"}]}))

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"type": "message", "timestamp": "2026-06-01T00:00:00.000Z", "message": message}

    def turn(self, emit: Any, counts: Counts) -> None:
        parallel = 2 if self.rng.random() < 0.1 else 1
        calls = []
        for index in range(parallel):
            tool = self.rng.choice(TOOLS)
            args = self.args(tool, unique=True)
            calls.append((f"call_{self.ids}_{index}", tool, args))
        self.calls(emit, counts, calls)
        for call_id, tool, args in calls:
            emit(self.message(self.result(call_id, tool, args, self.text(self.result_size()))))

    def loop(self, emit: Any, counts: Counts) -> None:
        """A stuck loop: the same call and the same outcome 8 to 30 times."""
        tool = self.rng.choice(("edit", "exec", "web_fetch", "process"))
        args = self.args(tool, unique=False)
        text = self.text(self.rng.randrange(100, 3_000))
        error = self.rng.random() < 0.5
        for _ in range(self.rng.randrange(8, 30)):
            call_id = f"call_{self.ids}"
            self.calls(emit, counts, [(call_id, tool, args)])
            result = self.result(call_id, tool, args, text)
            result["isError"] = error
            emit(self.message(result))

    def compaction_retry(self, emit: Any) -> None:
        overflow = {"role": "assistant", "content": [], "stopReason": "error"}
        emit(self.message({**overflow, "errorMessage": "prompt is too long"}))
        emit({"type": "compaction", "summary": self.text(2_000), "firstKeptEntryId": "0"})

    def calls(self, emit: Any, counts: Counts, calls: list[tuple[str, str, Any]]) -> None:
        content: list[dict[str, Any]] = [{"type": "thinking", "thinking": self.text(400)}]
        if self.rng.random() < 0.3:
            content.append({"type": "text", "text": self.text(200)})
        for call_id, tool, args in calls:
            content.append({"type": "toolCall", "id": call_id, "name": tool, "arguments": args})
        counts.calls += len(calls)
        usage = {"input": 1000, "output": 200, "cacheRead": 0, "cacheWrite": 0}
        message = {"role": "assistant", "content": content, "stopReason": "toolUse"}
        emit(self.message({**message, "provider": "anthropic", "model": "claude", "usage": usage}))

    def args(self, tool: str, *, unique: bool) -> dict[str, Any]:
        salt = self.rng.randrange(1 << 30) if unique else 7
        if tool == "exec":
            return {"command": f"npm run {self.rng.choice(WORDS)} -- --shard {salt}"}
        if tool == "process":
            return {"action": "poll", "sessionId": f"s{salt}"}
        if tool in ("message", "sessions_send"):
            return {"action": "send", "to": f"user-{salt}", "message": self.text(200)}
        if tool == "edit":
            return {"path": f"src/{salt}.ts", "oldText": self.text(80), "newText": self.text(80)}
        if tool == "write":
            return {"path": f"out/{salt}.md", "content": self.text(self.rng.randrange(200, 4000))}
        return {"path": f"docs/{salt}.md"} if tool == "read" else {"url": f"https://x/{salt}"}

    def result(self, call_id: str, tool: str, args: Any, text: str) -> dict[str, Any]:
        result: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool,
            "content": [{"type": "text", "text": text}],
            "isError": False,
        }
        if tool == "exec":
            result["details"] = {"status": "completed", "exitCode": 0, "aggregated": text[:4000],
                                 "durationMs": self.rng.randrange(10_000), "cwd": "/w"}  # fmt: skip
        elif tool == "process":
            result["details"] = {"status": "running", "aggregated": text[:2000]}
        elif tool in ("message", "sessions_send"):
            result["details"] = {"ok": True, "messageId": f"m{self.ids}", "ts": self.ids}
        return result


def generate(size_mb: int, seed: int) -> tuple[Path, Counts, Path, Counts]:
    half = size_mb * 1_000_000 // 2
    OUT.mkdir(parents=True, exist_ok=True)
    writer = Writer(seed)
    big = OUT / "big.jsonl"
    big_counts = writer.transcript(big, half, "bench-big")
    many = OUT / "many"
    many.mkdir(exist_ok=True)
    for old in many.glob("*.jsonl"):
        old.unlink()
    many_counts = Counts()
    files = max(2, half // 1_000_000)
    for index in range(files):
        part = writer.transcript(many / f"s{index:04d}.jsonl", half // files, f"bench-{index}")
        many_counts.bytes += part.bytes
        many_counts.lines += part.lines
        many_counts.calls += part.calls
    return big, big_counts, many, many_counts


@dataclass
class Measure:
    name: str
    seconds: float
    cpu: float
    peak_mb: float
    load: float
    counts: Counts

    def row(self) -> str:
        c = self.counts
        return (
            f"| {self.name} | {c.bytes / 1e6:.0f} MB | {self.seconds:.1f} s | {self.cpu:.1f} s "
            f"| {c.lines / self.seconds:,.0f} | {c.calls / self.seconds:,.0f} "
            f"| {c.bytes / 1e6 / self.seconds:.1f} | {c.bytes / 1e6 / self.cpu:.1f} "
            f"| {self.peak_mb:.0f} MB | {self.load:.1f} |"
        )


HEADER = (
    "| run | input | wall | CPU | entries/s | tool calls/s | MB/s | MB per CPU-s | peak RSS "
    "| load |\n|---|---|---|---|---|---|---|---|---|---|"
)


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall and CPU seconds (user + system, workers included) and peak RSS (MB) of the
    largest process of `command` and its workers."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    stderr = child.stderr.read().decode() if child.stderr else ""
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{stderr}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def replay(paths: list[Path], jobs: int) -> list[str]:
    return [sys.executable, "-m", "loopcfg", "replay", *map(str, paths), "--format", "json",
            "--jobs", str(jobs)]  # fmt: skip


PARSE_ONLY = """
import json, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).glob('*.jsonl')):
    with open(path, 'rb') as stream:
        for line in stream:
            json.loads(line)
"""


def profile(big: Path) -> None:
    import cProfile
    import pstats

    from loopcfg.replay.driver import ReplayOptions, replay_file

    profiler = cProfile.Profile()
    profiler.runcall(replay_file, str(big), ReplayOptions())
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    started = time.perf_counter()
    big, big_counts, many, many_counts = generate(options.size_mb, options.seed)
    made = time.perf_counter() - started
    print(f"corpus: {big_counts.bytes / 1e6:.0f} MB single file + "
          f"{many_counts.bytes / 1e6:.0f} MB in {len(list(many.glob('*.jsonl')))} files "
          f"({made:.0f} s to generate) in {OUT.relative_to(REPO)}")  # fmt: skip
    if options.profile:
        profile(big)
        return
    files = sorted(many.glob("*.jsonl"))
    runs = [
        ("single file, --jobs 1", replay([big], 1), big_counts),
        ("many files, --jobs 1", replay([many], 1), many_counts),
        ("many files, --jobs 2", replay([many], 2), many_counts),
        ("many files, json.loads only", [sys.executable, "-c", PARSE_ONLY, str(many)], many_counts),
    ]
    assert len(files) > 1
    results = []
    for name, command, counts in runs:
        seconds, cpu, peak = timed(command)
        # Other work on the machine takes cores from --jobs: the 1-minute load average says.
        results.append(Measure(name, seconds, cpu, peak, os.getloadavg()[0], counts))
    python = f"{platform.python_implementation()} {platform.python_version()}"
    machine = f"{os.cpu_count()} cores, {platform.machine()}"
    print(f"\n{time.strftime('%Y-%m-%d')}, {python}, {machine}\n")
    print(HEADER)
    for measure in results:
        print(measure.row())
    single, serial, parallel, floor = results
    print()
    print(f"--jobs 2 / --jobs 1 (many files): {serial.seconds / parallel.seconds:.2f}x faster")
    print(f"--jobs 2 CPU / --jobs 1 CPU: {parallel.cpu / serial.cpu:.2f} (process overhead)")
    many_rate = serial.counts.bytes / serial.seconds
    single_rate = single.counts.bytes / single.seconds
    print(f"single file / many files (--jobs 1, MB/s): {single_rate / many_rate:.2f}")
    per_cpu = (single.counts.bytes / single.cpu) / (serial.counts.bytes / serial.cpu)
    print(f"single file / many files (--jobs 1, MB per CPU-s): {per_cpu:.2f}")
    print(f"replay / json.loads alone (--jobs 1): {serial.cpu / floor.cpu:.1f}x the CPU time")
    print(f"peak RSS / single file size: {single.peak_mb * 1e6 / single.counts.bytes:.2f}")


if __name__ == "__main__":
    main()
