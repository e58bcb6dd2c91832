"""Cold `loopcfg validate` against `check-jsonschema` on the same file, in one run.

A plain script, not a test. "Cold" means a fresh process for every run: interpreter start,
imports, reading the file, validation, output. Each command runs once to warm the OS file
cache and write bytecode caches, then all commands are timed round-robin `--repeat` times
(interleaved, so a noisy neighbour hits every command alike); the median and the minimum are
reported, with the ratios to check-jsonschema.

check-jsonschema (with pyjson5, so it can read JSON5) lives in its own environment,
`bench/.env/` (gitignored), created here on first use; it is never a project dependency.
Before timing, the script checks that check-jsonschema accepts the example (exit 0) and
rejects a copy with a misspelt key (exit 1), so it really parses and validates the file.

Bytecode caches: like any installed package, both tools run from `.pyc` files. The
environment may set PYTHONDONTWRITEBYTECODE (then an editable install recompiles loopcfg on
every start while pip-installed check-jsonschema does not), so the timed commands run without
it and with PYTHONPYCACHEPREFIX=bench/.env/pycache: caches are written there after the
warm-up, never into the work tree.

With `--instructions` (needs valgrind) each command also runs once under cachegrind and the
user-space instruction counts are printed: deterministic where wall times on a shared machine
are not, so they show what a change saves (PYTHONHASHSEED is fixed for that run).

    .venv/bin/python bench/validate_cold.py [--repeat 30] [--file examples/openclaw.json5]
                                            [--instructions]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH_ENV = REPO / "bench" / ".env"
SCHEMA = "schema/openclaw-loopdetection.schema.json"
EXAMPLE = "examples/openclaw.json5"
PROJECT_BIN = Path(sys.executable).parent  # run with the project's .venv/bin/python
TARGET = 0.5


def bench_python() -> Path:
    return BENCH_ENV / "bin" / "python"


def ensure_bench_env() -> None:
    """Create bench/.env with check-jsonschema and pyjson5 unless it already has them."""
    check = [str(bench_python()), "-c", "import check_jsonschema, pyjson5"]
    if bench_python().exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return
    print(f"creating {BENCH_ENV.relative_to(REPO)} with check-jsonschema and pyjson5 ...")
    if not bench_python().exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_ENV)], check=True)
    install = [str(bench_python()), "-m", "pip", "install", "-q"]
    subprocess.run([*install, "check-jsonschema", "pyjson5"], check=True)


def timing_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(BENCH_ENV / "pycache")
    env["NO_COLOR"] = "1"
    return env


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)


def check_fairness(commands: dict[str, list[str]], file: str, env: dict[str, str]) -> None:
    """Every command succeeds on the file; check-jsonschema also rejects a broken copy."""
    for name, command in commands.items():
        done = run(command, env)
        if done.returncode != 0:
            raise SystemExit(f"{name} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    text = (REPO / file).read_text()
    broken, count = re.subn(r"\bwarningThreshold\b", "warningThreshhold", text, count=1)
    if not count:
        raise SystemExit(f"{file} has no warningThreshold to misspell for the rejection check")
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "openclaw.json5"
        copy.write_text(broken)
        for name in ("check-jsonschema", "loopcfg validate"):
            command = [*commands[name][:-1], str(copy)]
            done = run(command, env)
            if done.returncode != 1:
                raise SystemExit(
                    f"{name} did not reject a misspelt key (exit {done.returncode}):\n"
                    f"{done.stdout}{done.stderr}"
                )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_commands(
    commands: dict[str, list[str]], repeat: int, env: dict[str, str]
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall times and CPU times (user + system of the child) of every command, in seconds."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            cpu_before = _children_cpu()
            started = time.perf_counter()
            subprocess.run(
                command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(_children_cpu() - cpu_before)
    return wall, cpu


def import_times(file: str, env: dict[str, str], runs: int = 3) -> dict[str, tuple[int, int, int]]:
    """module -> (self µs, cumulative µs, nesting depth) of `python -X importtime -m loopcfg
    validate FILE`, the best of `runs` runs for each module (importtime is noisy)."""
    best: dict[str, tuple[int, int, int]] = {}
    command = [sys.executable, "-X", "importtime", "-m", "loopcfg", "validate", file]
    for _ in range(runs):
        for line in run(command, env).stderr.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S.*)$", line)
            if match is None:
                continue
            own, cumulative, depth, name = int(match[1]), int(match[2]), len(match[3]), match[4]
            if name in best:
                own, cumulative = min(own, best[name][0]), min(cumulative, best[name][1])
            best[name] = (own, cumulative, depth)
    return best


def instructions(command: list[str], env: dict[str, str]) -> int:
    """User-space instructions of one run of `command`, counted by valgrind's cachegrind."""
    fixed = {**env, "PYTHONHASHSEED": "0"}
    # A console script is a Python file: count the interpreter running it, not a shell.
    if not command[0].endswith("python"):
        command = [str(Path(command[0]).parent / "python"), *command]
    valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
    valgrind.append("--cachegrind-out-file=/dev/null")
    done = run([*valgrind, *command], fixed)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no instruction count for {command}:\n{done.stderr}")
    return int(found[1].replace(",", ""))


def versions(env: dict[str, str]) -> list[str]:
    def version(python: Path, package: str) -> str:
        code = f"import importlib.metadata as m; print(m.version({package!r}))"
        done = run([str(python), "-c", code], env)
        return done.stdout.strip() or "?"

    project = Path(sys.executable)
    cpu = "?"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = re.findall(r"model name\s*:\s*(.*)", cpuinfo.read_text())
        cpu = f"{names[0]} x{len(names)}" if names else cpu
    return [
        f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"machine: {platform.system()} {platform.machine()}, {cpu}",
        f"python: {platform.python_version()} ({platform.python_implementation()})",
        f"loopcfg {version(project, 'loopcfg')}, jsonschema {version(project, 'jsonschema')}, "
        f"click {version(project, 'click')}",
        f"check-jsonschema {version(bench_python(), 'check-jsonschema')}, "
        f"jsonschema {version(bench_python(), 'jsonschema')}, "
        f"pyjson5 {version(bench_python(), 'pyjson5')}",
    ]


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--repeat", type=int, default=30, help="timed runs per command")
    arguments.add_argument("--file", default=EXAMPLE, help="config to validate (repo-relative)")
    arguments.add_argument("--top", type=int, default=12, help="import-time offenders shown")
    arguments.add_argument(
        "--instructions", action="store_true", help="also count instructions with cachegrind"
    )
    options = arguments.parse_args()
    ensure_bench_env()
    env = timing_env()
    file = options.file
    python = str(PROJECT_BIN / "python")
    loopcfg = str(PROJECT_BIN / "loopcfg")
    checker = str(BENCH_ENV / "bin" / "check-jsonschema")
    validated = {
        "loopcfg validate": [loopcfg, "validate", file],
        "python -m loopcfg validate": [python, "-m", "loopcfg", "validate", file],
        "check-jsonschema": [checker, "--schemafile", SCHEMA, file],
    }
    baselines = {
        "python -c pass (project venv)": [python, "-c", "pass"],
        "python -c pass (bench env)": [str(bench_python()), "-c", "pass"],
        "loopcfg --version": [loopcfg, "--version"],
    }
    commands = {**baselines, **validated}
    check_fairness(commands, file, env)
    for command in commands.values():  # warm-up: OS file cache and bytecode caches
        run(command, env)
    timings, cpu = time_commands(commands, options.repeat, env)

    print("\n".join(versions(env)))
    print(f"file: {file}, {options.repeat} cold runs per command (round-robin), after a warm-up")
    reference, reference_cpu = timings["check-jsonschema"], cpu["check-jsonschema"]
    print(
        f"\n{'wall time':30} {'median':>8} {'min':>8} {'median/cjs':>11} {'min/cjs':>8}"
        f" {'CPU median':>11} {'/cjs':>6}"
    )
    for name, seconds in timings.items():
        median, best, cpu_median = (
            statistics.median(seconds),
            min(seconds),
            statistics.median(cpu[name]),
        )
        print(
            f"{name:30} {median * 1000:6.1f}ms {best * 1000:6.1f}ms"
            f" {median / statistics.median(reference):10.2f}x {best / min(reference):7.2f}x"
            f" {cpu_median * 1000:9.1f}ms {cpu_median / statistics.median(reference_cpu):5.2f}x"
        )
    for name in validated:
        if name == "check-jsonschema":
            continue
        ratio = statistics.median(timings[name]) / statistics.median(reference)
        verdict = "meets" if ratio <= TARGET else "MISSES"
        print(
            f"cold `{name}`: {ratio:.2f}x check-jsonschema's median wall time"
            f" ({verdict} the <= {TARGET}x target)"
        )

    if options.instructions:
        counts = {name: instructions(command, env) for name, command in commands.items()}
        print("\ninstructions (cachegrind, user space, one run each):")
        for name, count in counts.items():
            ratio = count / counts["check-jsonschema"]
            print(f"  {name:30} {count / 1e6:8.1f} M  {ratio:5.2f}x")

    times = import_times(file, env)
    top_level = sorted(
        ((cumulative, name) for name, (_, cumulative, depth) in times.items() if depth == 0),
        reverse=True,
    )
    print("\nlargest top-level imports of `python -m loopcfg validate` (cumulative, best of 3):")
    for cumulative, name in top_level[: options.top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name}")
    by_self = sorted(((own, cumulative, name) for name, (own, cumulative, _) in times.items()))
    print(f"\nlargest self import times (best of 3 runs, -X importtime), top {options.top}:")
    for own, cumulative, name in reversed(by_self[-options.top :]):
        print(f"  {own / 1000:7.1f} ms self {cumulative / 1000:7.1f} ms cumulative  {name}")


if __name__ == "__main__":
    main()
