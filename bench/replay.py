"""Replay throughput, memory and the Dask backend's overhead: `loopcfg replay` measured in
fresh processes, every figure next to an anchor measured in the same run.

A plain script, not a test. It writes its inputs to bench/out/replay/ (gitignored, never
committed: the corpus holds personal data):

- throughput: the real transcripts of ../shared/corpus/openclaw/*.jsonl copied until the folder
  holds ~200 MB, replayed with `--jobs 1 --format json`, against two floors over the same
  lines: `json.loads` per line and `orjson.loads` per line (what any Python replay must pay),
  in interleaved rounds; `--mypyc` adds the seventh round's trial build (hot path compiled);
- memory: peak RSS of `replay --jobs 1 --format json` on a ~100 MB stuck-loop trace (one
  session, one failing call repeated) and on 200,000 one-call sessions, once as one trace (every
  session alive until the end of the file) and once as 200,000 transcript files (each session
  over with its file), against the peak RSS of `loopcfg --version` (the interpreter and
  loopcfg's imports);
- dask (`--only dask`): with one `local:1` cluster kept up, 200 tiny files (per-file
  overhead) and ~50 MB of the corpus (MB/s per worker) replayed on it and in this process
  (`--jobs 1`'s code path), alternately, twice; the cluster's start apart.

CPU seconds are user + system of the process and its children (`os.wait4`), peak RSS the
largest process's.

    .venv/bin/python bench/replay.py                   # throughput + memory, several minutes
    .venv/bin/python bench/replay.py --only throughput             # --rounds 5: medians
    .venv/bin/python bench/replay.py --size-mb 20 --sessions 20000   # smoke run
    .venv/bin/python bench/replay.py --only dask
    .venv/bin/python bench/replay.py --only interleaved --interleaved 200000,1000000 \
        --base /tmp/base   # one-call sessions in one trace; the first count also with another
                           # checkout (`git archive COMMIT | tar -x -C /tmp/base`)
    .venv/bin/python bench/replay.py --profile         # cProfile of the corpus, top 25
    .venv/bin/python bench/replay.py --only throughput --instructions 20   # + cachegrind counts
    .venv/bin/python bench/replay.py --only throughput --base /tmp/base    # + another checkout
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# As the tests find it: ../shared/corpus from the repository, or $LOOPCFG_CORPUS (worktrees).
CORPUS = Path(os.environ.get("LOOPCFG_CORPUS", REPO.parent / "shared" / "corpus")) / "openclaw"
OUT = REPO / "bench" / "out" / "replay"
LOOPCFG = [sys.executable, "-m", "loopcfg"]


@dataclass
class Measure:
    name: str
    wall: float
    cpu: float
    peak_mb: float


def bytecode_env() -> dict[str, str]:
    """The environment of every timed command: from bytecode caches, as an installed package
    runs. This container may set PYTHONDONTWRITEBYTECODE, under which the editable install
    recompiles loopcfg's modules on every start (~0.3 s of CPU here); the caches go to
    bench/out/pycache, never into the work tree (as bench/validate_cold.py does)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache")
    return env


def timed(command: list[str], pythonpath: str | None = None) -> Measure:
    """Wall and CPU seconds (the process and its children) and peak RSS in MB; `pythonpath`
    runs another checkout's loopcfg (`--base`)."""
    env = bytecode_env()
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    # `python -m` puts the working directory first on sys.path: run another checkout from it.
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=pythonpath
    )
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    stderr = child.stderr.read().decode() if child.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{stderr[-2000:]}")
    return Measure(
        " ".join(command[2:6]), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
    )


# -- inputs ------------------------------------------------------------------------------------


def replicated_corpus(size_mb: int, name: str = "corpus") -> tuple[Path, int]:
    """Copies of the real transcripts until the folder holds `size_mb` MB; (folder, bytes)."""
    folder = OUT / name
    originals = sorted(CORPUS.glob("*.jsonl"))
    if not originals:
        raise SystemExit(f"no transcripts in {CORPUS}")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    total, copy = 0, 0
    while total < size_mb * 1_000_000:
        for original in originals:
            target = folder / f"c{copy:03d}__{original.name}"
            shutil.copyfile(original, target)
            total += target.stat().st_size
        copy += 1
    return folder, total


def stuck_loop_trace(size_mb: int) -> Path:
    """One session retrying one failing call: every call after the 20th is blocked again."""
    path = OUT / "stuck-loop.jsonl"
    call = {"tool": "exec", "args": {"command": "npm test"}, "error": "exit 1: " + "E" * 300}
    line = json.dumps(call) + "\n"
    lines = size_mb * 1_000_000 // len(line)
    # Written in 1,000-line pieces: a 100 MB string here would be counted in the peak RSS of
    # the replay (the child's RSS before exec is this process's).
    with path.open("w") as out:
        for _ in range(lines // 1000):
            out.write(line * 1000)
        out.write(line * (lines % 1000))
    return path


def sessions_trace(count: int) -> Path:
    """`count` sessions of one call each in one trace: each is alive until the last line."""
    path = OUT / f"sessions-{count}.jsonl"
    with path.open("w") as out:
        for index in range(count):
            call = {"session": f"s{index}", "tool": "read", "args": {"path": "a"}, "result": "ok"}
            out.write(json.dumps(call) + "\n")
    return path


def session_files(count: int) -> Path:
    """`count` transcripts of one call each, 1,000 to a folder."""
    root = OUT / "session-files"
    shutil.rmtree(root, ignore_errors=True)
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}
    body = json.dumps({"type": "message", "message": {"role": "assistant", "content": [call]}})
    for index in range(count):
        folder = root / f"{index // 1000:04d}"
        if index % 1000 == 0:
            folder.mkdir(parents=True)
        header = json.dumps({"type": "session", "version": 3, "id": f"session-{index}"})
        (folder / f"s{index}.jsonl").write_text(f"{header}\n{body}\n")
    return root


# -- runs --------------------------------------------------------------------------------------

FLOOR = """
import sys
from pathlib import Path
from {module} import loads
for path in sorted(Path(sys.argv[1]).glob('*.jsonl')):
    with open(path, 'rb') as stream:
        for line in stream:
            loads(line)
"""


def floor(module: str, folder: Path) -> list[str]:
    return [sys.executable, "-c", FLOOR.format(module=module), str(folder)]


def replay(*args: str) -> list[str]:
    return [*LOOPCFG, "replay", *args, "--format", "json"]


def warm_up(checkouts: dict[str, str] | None = None) -> None:
    """Each timed program once on one small transcript: its bytecode caches are written
    (`checkouts`: the other loopcfgs timed, by name, as for `throughput`)."""
    small = OUT / "warm-up"
    small.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(min(CORPUS.glob("*.jsonl"), key=lambda p: p.stat().st_size), small / "w.jsonl")
    timed(replay(str(small), "--jobs", "1"))
    for pythonpath in (checkouts or {}).values():
        timed(replay(str(small), "--jobs", "1"), pythonpath)
    for module in ("json", "orjson"):
        timed(floor(module, small))


# The trial of issue 15's seventh round (docs/performance.md): replay's hot path compiled by
# mypyc. Not how loopcfg ships (the findings that kept it out are in that section); kept so the
# measurement can be repeated.
MYPYC_MODULES = [
    "loopcfg/engine/history.py",
    "loopcfg/engine/session.py",
    "loopcfg/engine/v4.py",
    "loopcfg/replay/lines.py",
    "loopcfg/replay/runner.py",
    "loopcfg/replay/transcript.py",
]


def compiled_build() -> str:
    """This checkout's loopcfg with MYPYC_MODULES compiled in place in a copy under bench/out;
    the folder, for PYTHONPATH (`--mypyc`)."""
    folder = OUT / "compiled"
    shutil.rmtree(folder, ignore_errors=True)
    skip = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(REPO / "loopcfg", folder / "loopcfg", ignore=skip)
    build = [sys.executable, "-m", "mypyc", "--config-file=", *MYPYC_MODULES]
    done = subprocess.run(build, cwd=folder, capture_output=True, text=True)
    if done.returncode != 0 or not list((folder / "loopcfg").rglob("*.so")):
        raise SystemExit(f"the mypyc build failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return str(folder)


TRIAL = "replay --jobs 1, mypyc trial"


def throughput(size_mb: int, rounds: int, checkouts: dict[str, str]) -> None:
    """Each program `rounds` times, one after the other in every round (replay, the two floors,
    then the replay of each other checkout: `checkouts` maps a name to its PYTHONPATH, the
    mypyc trial or `--base`), so that a change in the machine's load falls on all of them
    alike; the median and the least CPU time of each. Ratios are of medians."""
    folder, size = replicated_corpus(size_mb)
    files = len(list(folder.glob("*.jsonl")))
    print(f"corpus: {size / 1e6:.0f} MB in {files} copies of {CORPUS}")
    warm_up(checkouts)
    command = replay(str(folder), "--jobs", "1")
    programs: list[tuple[str, list[str], str | None]] = [
        ("replay --jobs 1", command, None),
        ("json.loads per line", floor("json", folder), None),
        ("orjson.loads per line", floor("orjson", folder), None),
    ]
    programs += [(name, command, pythonpath) for name, pythonpath in checkouts.items()]
    cpu: dict[str, list[float]] = {name: [] for name, _, _ in programs}
    for _round in range(rounds):
        for name, program, pythonpath in programs:
            cpu[name].append(timed(program, pythonpath).cpu)
    print(
        f"\n{rounds} rounds\n\n| run | CPU, median | least | MB per CPU-s, median | best "
        "| CPU / replay's |\n|---|---|---|---|---|---|"
    )
    median = {name: statistics.median(times) for name, times in cpu.items()}
    replay_cpu = median[programs[0][0]]
    for name, times in cpu.items():
        print(
            f"| {name} | {median[name]:.2f} s | {min(times):.2f} s "
            f"| {size / 1e6 / median[name]:.0f} | {size / 1e6 / min(times):.0f} "
            f"| {median[name] / replay_cpu:.2f} |"
        )
    floors = median["json.loads per line"], median["orjson.loads per line"]
    print(f"\nreplay / json.loads floor: {replay_cpu / floors[0]:.2f}x the CPU time")
    print(f"replay / orjson floor: {replay_cpu / floors[1]:.2f}x the CPU time")
    for name in checkouts:
        print(f"{name} / replay: {median[name] / replay_cpu:.2f}x the CPU time")


def instructions(command: list[str], pythonpath: str | None = None) -> int:
    """User-space instructions of one run, counted by valgrind's cachegrind (load-independent);
    `pythonpath` as for `timed`."""
    valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
    valgrind.append("--cachegrind-out-file=/dev/null")
    env = {**bytecode_env(), "PYTHONHASHSEED": "0"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(
        [*valgrind, *command], capture_output=True, text=True, env=env, cwd=pythonpath
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no instruction count for {command}:\n{done.stderr}")
    return int(found[1].replace(",", ""))


def instruction_counts(size_mb: int, checkouts: dict[str, str]) -> None:
    """The same programs under cachegrind on a smaller copy: counts that do not move with
    the machine's load (compiled code gains more in time than in instructions: it runs more of
    them per cycle than the interpreter's dispatch). Under valgrind OpenSSL cannot use the
    CPU's SHA extensions, so SHA-256 counts several times the instructions it needs natively:
    replay's count is high."""
    folder, size = replicated_corpus(size_mb, "corpus-small")
    warm_up(checkouts)
    command = replay(str(folder), "--jobs", "1")
    counts = {
        "replay --jobs 1": instructions(command),
        "json.loads per line": instructions(floor("json", folder)),
        "orjson.loads per line": instructions(floor("orjson", folder)),
    }
    for name, pythonpath in checkouts.items():
        counts[name] = instructions(command, pythonpath)
    print(f"\ninstructions (cachegrind, {size / 1e6:.1f} MB, one run each):")
    print("\n| run | instructions | per byte | / replay's |\n|---|---|---|---|")
    replay_count = counts["replay --jobs 1"]
    for name, count in counts.items():
        share = count / replay_count
        print(f"| {name} | {count / 1e6:,.0f} M | {count / size:.1f} | {share:.2f} |")


def memory(size_mb: int, sessions: int) -> None:
    baseline = timed([*LOOPCFG, "--version"])
    stuck = stuck_loop_trace(size_mb)
    runs = [(f"stuck loop, {stuck.stat().st_size / 1e6:.0f} MB, 1 session", stuck)]
    if sessions:
        runs.append((f"{sessions} one-call sessions in one trace", sessions_trace(sessions)))
        started = time.perf_counter()
        runs.append((f"{sessions} one-call transcripts", session_files(sessions)))
        print(f"{sessions} session files written in {time.perf_counter() - started:.0f} s")
    print(
        "\n| input | wall | CPU | peak RSS | RSS over `loopcfg --version` |\n|---|---|---|---|---|"
    )
    base = f"{baseline.wall:.1f} s | {baseline.cpu:.1f} s | {baseline.peak_mb:.0f} MB"
    print(f"| `loopcfg --version` | {base} | - |")
    for name, path in runs:
        measure = timed(replay(str(path), "--jobs", "1"))
        print(
            f"| {name} | {measure.wall:.1f} s | {measure.cpu:.1f} s | {measure.peak_mb:.0f} MB "
            f"| {measure.peak_mb - baseline.peak_mb:.0f} MB |"
        )


def interleaved(counts: list[int], base: str | None) -> None:
    """One-call sessions in one trace (every one alive until the end of the file), for each
    count, and with `base` the first count's run with another checkout too (a checkout that
    holds every session in memory needs ~4 KB each: 4 GB for a million)."""
    baseline = timed([*LOOPCFG, "--version"])
    print(f"`loopcfg --version`: peak RSS {baseline.peak_mb:.0f} MB")
    print("\n| sessions in one trace | checkout | wall | CPU | CPU µs / session | peak RSS |")
    print("|---|---|---|---|---|---|")
    for index, count in enumerate(counts):
        path = sessions_trace(count)
        checkouts = [("this", None)] + ([(f"base ({base})", base)] if base and not index else [])
        for name, pythonpath in checkouts:
            m = timed(replay(str(path), "--jobs", "1"), pythonpath)
            print(
                f"| {count:,} | {name} | {m.wall:.1f} s | {m.cpu:.1f} s "
                f"| {m.cpu / count * 1e6:.0f} | {m.peak_mb:.0f} MB |",
                flush=True,
            )


def dask(size_mb: int) -> None:
    """In this process: one `local:1` cluster kept up while the same files are replayed on it
    and with `--jobs 1`'s code path, alternately, so the start is measured once and apart."""
    from loopcfg.replay.dask_backend import connect, dask_replays
    from loopcfg.replay.driver import ReplayOptions
    from loopcfg.replay.parallel import iter_replays

    tiny = OUT / "tiny"
    shutil.rmtree(tiny, ignore_errors=True)
    tiny.mkdir(parents=True)
    original = CORPUS / "openclawlog__1f979e30__small-parallel-calls-provider-errors.jsonl"
    for index in range(200):
        shutil.copyfile(original, tiny / f"t{index:03d}.jsonl")
    folder, size = replicated_corpus(size_mb)
    small = sorted(str(p) for p in tiny.glob("*.jsonl"))
    big = sorted(str(p) for p in folder.glob("*.jsonl"))
    options = ReplayOptions()

    def wall(run: object) -> float:
        start = time.perf_counter()
        assert callable(run)
        run()
        return time.perf_counter() - start

    started = time.perf_counter()
    with connect("local:1") as client:
        print(f"local:1 cluster start: {time.perf_counter() - started:.1f} s wall")
        on_dask = lambda files: list(dask_replays(files, options, client))  # noqa: E731
        local = lambda files: list(iter_replays(files, options, jobs=1))  # noqa: E731
        for _ in range(2):
            tiny_dask, tiny_local = wall(lambda: on_dask(small)), wall(lambda: local(small))
            big_dask, big_local = wall(lambda: on_dask(big)), wall(lambda: local(big))
            per_file = (tiny_dask - tiny_local) / len(small)
            print(
                f"200 files of {original.stat().st_size} B: {tiny_dask:.2f} s on 1 worker, "
                f"{tiny_local:.2f} s in process: {per_file * 1000:.1f} ms per file more; "
                f"{size / 1e6:.0f} MB in {len(big)} files: {big_dask:.1f} s on 1 worker "
                f"({size / 1e6 / big_dask:.1f} MB/s), {big_local:.1f} s in process "
                f"({size / 1e6 / big_local:.1f} MB/s)"
            )


def profile(size_mb: int) -> None:
    import cProfile
    import pstats

    from loopcfg.replay.driver import ReplayOptions, replay_file

    folder, _size = replicated_corpus(size_mb)
    profiler = cProfile.Profile()
    for path in sorted(folder.glob("*.jsonl")):
        profiler.runcall(replay_file, str(path), ReplayOptions())
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--stuck-mb", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=200_000)
    parser.add_argument(
        "--rounds", type=int, default=5, help="throughput: runs of each program, interleaved"
    )
    parser.add_argument("--only", choices=["throughput", "memory", "stuck", "interleaved", "dask"])
    parser.add_argument(
        "--interleaved",
        default="200000,1000000",
        help="--only interleaved: comma-separated counts of one-call sessions in one trace",
    )
    parser.add_argument(
        "--base",
        help="throughput, --instructions and --only interleaved: also run this checkout's "
        "loopcfg (PYTHONPATH)",
    )
    parser.add_argument("--dask", action="store_true", help="also the Dask measures")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--mypyc", action="store_true", help="also the seventh round's compiled trial (needs mypy)"
    )
    parser.add_argument(
        "--instructions",
        type=int,
        metavar="MB",
        help="also count instructions under cachegrind on MB of the corpus (needs valgrind)",
    )
    options = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    python = f"{platform.python_implementation()} {platform.python_version()}"
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d')}, {python}, {os.cpu_count()} cores, load {load:.1f}")
    if options.profile:
        profile(min(options.size_mb, 20))
        return
    timing = options.only in (None, "throughput")
    # Built once for both measures that run it (a build takes some 40 s of CPU).
    checkouts = {}
    if options.mypyc and (timing or options.instructions):
        checkouts[TRIAL] = compiled_build()
    if options.base:
        checkouts[f"replay --jobs 1, base ({options.base})"] = options.base
    if timing:
        throughput(options.size_mb, options.rounds, checkouts)
    if options.instructions:
        instruction_counts(options.instructions, checkouts)
    if options.only in (None, "memory"):
        memory(options.stuck_mb, options.sessions)
    if options.only == "stuck":
        memory(options.stuck_mb, 0)
    if options.only == "interleaved":
        interleaved([int(n) for n in options.interleaved.split(",")], options.base)
    if options.only == "dask" or options.dask:
        dask(min(options.size_mb, 50))


if __name__ == "__main__":
    main()
