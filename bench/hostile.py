"""Hostile inputs, one class at a time: wall time and peak memory of a whole `loopcfg` process.

A plain script, not a test (tests/hostile/ checks the behaviour; this measures the cost). Each
class is built in a scratch folder and run as its own process, `--repeat` times; the median
wall time and the largest peak resident set size (`ru_maxrss` of that child, from wait4) are
reported, with the ratio to a baseline measured in the same run: `loopcfg validate` of the
bundled example. Issue 13's bound is 5 s and 300 MB per class; a class over it is marked and
the script exits 1.

    .venv/bin/python bench/hostile.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
LIMIT_SECONDS = 5.0
LIMIT_MB = 300.0
GOOD = "{ tools: { loopDetection: { enabled: true } } }\n"


class Case(NamedTuple):
    name: str
    args: list[str]
    prepare: Callable[[Path], None]
    redirect: str = ""  # a shell redirection of the run (`> /dev/full`, `>&-`)
    env: dict[str, str] = {}  # noqa: RUF012 - a NamedTuple default, never mutated


def alias_bomb(folder: Path) -> None:
    # 9 levels of 9 aliases: 9**9 = 387,420,489 values from 520 bytes (the report's "never
    # finishes" file).
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]
    (folder / "openclaw.yaml").write_text("\n".join([*lines, "tools: {}", ""]))


def fan_out(folder: Path) -> None:
    # 12 files, each including the next ten times: 10**11 loads without a budget.
    for n in range(12):
        names = ", ".join([f'"f{n + 1}.json5"'] * 10)
        body = f"{{ a{n}: {{ $include: [{names}] }} }}" if n < 11 else "{ leaf: 1 }"
        (folder / f"f{n}.json5").write_text(body)
    (folder / "openclaw.json5").write_text('{ tools: {}, x: { $include: "f0.json5" } }\n')


def wide_includes(folder: Path) -> None:
    # A file of 40,000 values included 50 times: 2,000,000 copies without the copy budget
    # (200,000), which stops it after the fifth.
    values = ", ".join(["1"] * 40_000)
    (folder / "big.json5").write_text(f"{{ v: [{values}] }}")
    items = ", ".join(['{ $include: "big.json5" }'] * 50)
    (folder / "openclaw.json5").write_text(f"{{ tools: {{}}, many: [{items}] }}\n")


def good(folder: Path) -> None:
    (folder / "openclaw.json5").write_text(GOOD)


def fifo(folder: Path) -> None:
    good(folder)
    os.mkfifo(folder / "pipe")
    (folder / "t.jsonl").write_text('{"type":"session","id":"s"}\n')


def long_agent_id(folder: Path) -> None:
    (folder / "openclaw.json5").write_text(
        '{ agents: { list: [ { id: "${BIG}", tools: { loopDetection: { enabled: true } } },'
        ' { id: "${BIG}" } ] } }\n'
    )


def deep(folder: Path) -> None:
    (folder / "openclaw.yaml").write_text("[" * 30_000 + "]" * 30_000)


def big_numbers(folder: Path) -> None:
    (folder / "openclaw.json5").write_text(
        "{ tools: { loopDetection: { historySize: " + "9" * 2_000_000 + " } } }"
    )


def swap_race(folder: Path) -> None:
    config = folder / "config"
    config.mkdir()
    (folder / "secret.json5").write_text('{ SECRET: "outside" }\n')
    (config / "inner.json5").write_text("{ warningThreshold: 4 }\n")
    (config / "part.json5").symlink_to("inner.json5")
    (config / "openclaw.json5").write_text(
        '{ tools: { loopDetection: { $include: "./part.json5" } } }'
    )


def example(folder: Path) -> None:
    shutil.copy(REPO / "examples" / "openclaw.json5", folder)


# One class a line reads better than the wrapped form.
# fmt: off
CASES = [
    Case("baseline: validate examples/openclaw.json5", ["validate", "openclaw.json5"], example),
    Case("YAML alias bomb (520 bytes, 9^9 values)", ["validate", "openclaw.yaml"], alias_bomb),
    Case("$include fan-out (12 files x 10)", ["validate", "openclaw.json5"], fan_out),
    Case("$include of 40,000 values, 50 times", ["validate", "openclaw.json5"], wide_includes),
    Case("$include link swapped during runs (x10 runs)", ["validate", "config/openclaw.json5"], swap_race),  # noqa: E501
    Case("config is /dev/zero", ["validate", "/dev/zero"], good),
    Case("config is /dev/zero, --max-bytes 64 MiB", ["validate", "/dev/zero", "--max-bytes", str(64 << 20)], good),  # noqa: E501
    Case("--max-bytes 2^62", ["validate", "openclaw.json5", "--max-bytes", str(2**62)], good),
    Case("--env-file /dev/zero", ["validate", "openclaw.json5", "--env-file", "/dev/zero"], good),
    Case("--env-file FIFO with no writer", ["validate", "openclaw.json5", "--env-file", "pipe"], fifo),  # noqa: E501
    Case("config is a FIFO with no writer", ["validate", "pipe"], fifo),
    Case("replay --trajectory FIFO with no writer", ["replay", "t.jsonl", "--trajectory", "pipe"], fifo),  # noqa: E501
    Case("replay /dev/zero", ["replay", "/dev/zero"], good),
    Case("stdout is /dev/full", ["validate", "openclaw.json5"], good, "> /dev/full"),
    Case("stdout closed", ["validate", "openclaw.json5"], good, ">&-"),
    Case("stdin closed", ["validate", "-"], good, "<&-"),
    Case("100 KB agent id from ${VAR}", ["validate", "openclaw.json5"], long_agent_id, "", {"BIG": "A" * 100_000}),  # noqa: E501
    Case("30,000 nested brackets", ["validate", "openclaw.yaml"], deep),
    Case("a 2,000,000-digit number", ["validate", "openclaw.json5", "--max-bytes", str(4 << 20)], big_numbers),  # noqa: E501
]
# fmt: on


SWAPPER = """
import os, sys
link, inside, outside = sys.argv[1:4]
spare, flip = link + ".swap", 0
while True:
    try:
        os.unlink(spare)
    except FileNotFoundError:
        pass
    os.symlink((inside, outside)[flip], spare)
    os.replace(spare, link)
    flip ^= 1
"""


def start_swapper(folder: Path) -> subprocess.Popen[bytes]:
    """A separate process swaps the include's link between a file inside and one outside the
    config folder as fast as it can (a thread here would hold the GIL and slow the timing)."""
    link = folder / "config" / "part.json5"
    outside = folder / "secret.json5"
    return subprocess.Popen([sys.executable, "-c", SWAPPER, str(link), "inner.json5", str(outside)])


def run_once(case: Case, folder: Path) -> tuple[float, float, int, str]:
    """(seconds, peak MB, exit code, stdout) of one process."""
    command = [sys.executable, "-m", "loopcfg", *case.args]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **case.env}
    if case.redirect:
        command = ["bash", "-c", " ".join(f"'{part}'" for part in command) + " " + case.redirect]
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=None if ">" in case.redirect else subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out = b""
    if process.stdout is not None:
        out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is the largest child of the process tree that bash (if any) waited for.
    return seconds, usage.ru_maxrss / 1024, process.returncode, out.decode("utf-8", "replace")


def measure(case: Case, repeat: int) -> tuple[float, float, set[int], bool]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        case.prepare(folder)
        swapper = start_swapper(folder) if case.prepare is swap_race else None
        times, peaks, codes, leaked = [], [], set(), False
        try:
            for _ in range(repeat if swapper is None else repeat * 10):
                seconds, peak, code, out = run_once(case, folder)
                times.append(seconds)
                peaks.append(peak)
                codes.add(code)
                leaked |= "SECRET" in out
        finally:
            if swapper is not None:
                swapper.kill()
                swapper.wait()
        return statistics.median(times), max(peaks), codes, leaked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, --repeat {options.repeat}")
    print(f"{'class':<45} {'median s':>9} {'x base':>7} {'peak MB':>8} {'x base':>7}  exit")
    base_time = base_peak = 0.0
    failed = False
    for case in CASES:
        seconds, peak, codes, leaked = measure(case, options.repeat)
        if not base_time:
            base_time, base_peak = seconds, peak
        over = seconds >= LIMIT_SECONDS or peak >= LIMIT_MB or leaked or not codes <= {0, 1, 2}
        failed |= over
        mark = "  OVER" if over else ""
        leak = "  LEAKED the outside file" if leaked else ""
        print(
            f"{case.name:<45} {seconds:>9.2f} {seconds / base_time:>7.1f} {peak:>8.0f} "
            f"{peak / base_peak:>7.1f}  {','.join(map(str, sorted(codes)))}{mark}{leak}"
        )
    print(f"bound per class: {LIMIT_SECONDS:g} s and {LIMIT_MB:g} MB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
