"""Engine throughput: loopcfg's incremental detector against the rescanning oracle of the tests.

A plain script, not a test. It generates a realistic, seeded tool-call trace (unique calls, polls
with and without progress, repeats, ping-pong, message sends, errors, unknown tools, compactions;
args ~200 bytes, results ~2 KB in exec / process poll / message-send shapes), drives the engine
and the oracle through the same host loop (check, record_call, record_outcome) in the same run,
and prints calls/s at historySize 30, 300 and 3000, the share of engine time spent hashing, and
the memory per live session. The oracle (tests/engine/oracle.py) hashes with its own plain
implementation of 04 §4.3-§4.4 (tests/engine/oracle_hashing.py; its hashes are checked equal to
the engine's on the prefix); it runs a second time with the engine's hashing swapped in (see
`engine_hashing_in_oracle`), which splits the engine's lead into hashing and detection.

    .venv/bin/python bench/engine.py [--calls 1000000] [--sessions 1000] [--oracle-calls 20000]
    .venv/bin/python bench/engine.py --quick      # smoke run, seconds
"""

from __future__ import annotations

import argparse
import gc
import inspect
import logging
import random
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopcfg import CompactionLoopPersisted, LoopDetector
from loopcfg import hashing as hashing_module
from loopcfg.settings import EffectiveSettings, settings_from_block

REPO = Path(__file__).resolve().parent.parent
HISTORY_SIZES = (30, 300, 3000)
# The timer of the host loop: wall time, or the process's CPU time with --cpu-time (on a loaded
# machine wall time mostly measures the other processes).
CLOCK = time.perf_counter
# One event: (tool, args, result, error, run_id, call_id); tool None is a compaction retry.
Event = tuple[str | None, Any, Any, Any, str | None, str | None]

_WORD_TEXT = (
    "build test deploy cache index module worker queue retry socket parser config token stream "
    "buffer render layout schema commit branch merge rebase docker image volume network proxy "
    "gateway session agent prompt model reply thread channel upload report metric latency error "
    "warning timeout signal process thread handle memory disk cpu kernel driver"
)
WORDS = _WORD_TEXT.split()


# -- the trace ------------------------------------------------------------------------------------


class TraceMaker:
    """Seeded generator of one session's events; shared text pool so results are cheap to make."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.pool = " ".join(rng.choice(WORDS) for _ in range(60_000))
        self.seed = seed

    def text(self, rng: random.Random, size: int) -> str:
        start = rng.randrange(len(self.pool) - size)
        return self.pool[start : start + size]

    def session(self, index: int, length: int, scoped: bool | None = None) -> list[Event]:
        rng = random.Random(self.seed * 1_000_003 + index)
        chance = rng.random() > 0.1
        maker = _SessionTrace(self, rng, index, scoped=chance if scoped is None else scoped)
        while len(maker.events) < length:
            maker.episode()
        return maker.events[:length]


@dataclass
class _SessionTrace:
    trace: TraceMaker
    rng: random.Random
    index: int
    scoped: bool
    events: list[Event] = field(default_factory=list)
    run: int = 0
    run_left: int = 0
    unique: int = 0

    # Episode kinds and their weights (per episode, not per call).
    def episode(self) -> None:
        kinds: list[tuple[Callable[[], None], int]] = [
            (self.unique_call, 45),
            (self.polls, 15),
            (self.repeat, 14),
            (self.ping_pong, 6),
            (self.message_send, 10),
            (self.error_repeat, 5),
            (self.unknown_tool, 2),
            (self.compaction, 3),
        ]
        functions, weights = zip(*kinds, strict=True)
        self.rng.choices(functions, weights)[0]()

    def add(self, tool: str, args: Any, result: Any = None, error: Any = None) -> None:
        if self.run_left <= 0:
            self.run, self.run_left = self.run + 1, self.rng.randint(40, 160)
        self.run_left -= 1
        run_id = f"run-{self.index}-{self.run}" if self.scoped else None
        self.events.append((tool, args, result, error, run_id, f"call-{len(self.events)}"))

    def fresh(self) -> int:
        self.unique += 1
        return self.unique

    def exec_args(self, command: str) -> dict[str, Any]:
        return {
            "command": command,
            "workdir": f"/home/agent/workspace/project-{self.index % 97}/services/api",
            "timeout": 120,
            "yieldMs": 10000,
        }

    def exec_result(self, output: str, status: str = "completed") -> dict[str, Any]:
        details: dict[str, Any] = {
            "status": status,
            "exitCode": 0 if status == "completed" else None,
            "durationMs": self.rng.randint(5, 90_000),
            "aggregated": output,
            "cwd": f"/home/agent/workspace/project-{self.index % 97}",
            "pid": self.rng.randint(1000, 60000),
        }
        if status == "running":
            details.update(sessionId=f"proc-{self.fresh()}", tail=output[-200:])
        return {"content": [{"type": "text", "text": output}], "details": details}

    def read_args(self, n: int) -> dict[str, Any]:
        return {
            "path": f"/home/agent/workspace/project-{self.index % 97}/src/module_{n % 500}/"
            f"{self.trace.text(self.rng, 24).replace(' ', '_')}_{n}.py",
            "offset": n % 400,
            "limit": 200,
            "encoding": "utf-8",
        }

    def text_result(self, size: int = 1900) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": self.trace.text(self.rng, size)}]}

    def unique_call(self) -> None:
        n = self.fresh()
        if self.rng.random() < 0.5:
            command = f"cd services/api && make test TARGET={n} " + self.trace.text(self.rng, 90)
            self.add(
                "exec", self.exec_args(command), self.exec_result(self.trace.text(self.rng, 1800))
            )
        else:
            self.add("read", self.read_args(n), self.text_result())

    def polls(self) -> None:
        command = f"npm run build -- --watch=false --job {self.fresh()} " + self.trace.text(
            self.rng, 80
        )
        running = self.exec_result(self.trace.text(self.rng, 600), "running")
        self.add("exec", self.exec_args(command), running)
        session_id = running["details"]["sessionId"]
        args = {"action": "poll", "sessionId": session_id, "timeout": 5000}
        progress = self.rng.random() < 0.5
        output = self.trace.text(self.rng, 1800)
        for _ in range(self._length(2, 35)):
            if progress:
                output = self.trace.text(self.rng, 1800)
            details = {"status": "running", "sessionId": session_id, "aggregated": output}
            result = {"content": [{"type": "text", "text": output[-400:]}], "details": details}
            self.add("process", args, result)

    def repeat(self) -> None:
        n = self.fresh()
        if self.rng.random() < 0.5:
            tool, args = "read", self.read_args(n)
            result = self.text_result()
        else:
            tool = "exec"
            args = self.exec_args(f"git status --porcelain && ls -la build/{n} " + "x" * 80)
            result = self.exec_result(self.trace.text(self.rng, 1800))
        for _ in range(self._length(2, 26)):
            self.add(tool, args, result)

    def ping_pong(self) -> None:
        n = self.fresh()
        first, first_result = self.read_args(n), self.text_result()
        second = self.exec_args(f"pytest tests/test_module_{n}.py -x -q " + "y" * 90)
        second_result = self.exec_result(self.trace.text(self.rng, 1800))
        for step in range(self._length(4, 28)):
            if step % 2 == 0:
                self.add("read", first, first_result)
            else:
                self.add("exec", second, second_result)

    def message_send(self) -> None:
        args = {
            "action": "send",
            "channel": "telegram",
            "to": f"chat-{self.index}",
            "message": self.trace.text(self.rng, 160),
        }
        body = self.trace.text(self.rng, 1700)
        for _ in range(self._length(1, 14)):
            n = self.fresh()
            details = {
                "ok": True,
                "channel": "telegram",
                "messageId": f"m-{n}",
                "ts": 1_760_000_000 + n,
                "message": {
                    "id": f"msg-{n}",
                    "text": body,
                    "direction": "outbound",
                    "conversation": {"id": f"chat-{self.index}", "kind": "direct"},
                },
            }
            self.add(
                "message", args, {"content": [{"type": "text", "text": "sent"}], "details": details}
            )

    def error_repeat(self) -> None:
        args = self.read_args(self.fresh())
        error = f"ENOENT: no such file or directory, open '{args['path']}'"
        for _ in range(self._length(1, 14)):
            self.add("read", args, error=error)

    def unknown_tool(self) -> None:
        name = self.rng.choice(("browser_open", "web.search", "memory_store"))
        args = {"query": self.trace.text(self.rng, 150)}
        for _ in range(self._length(1, 12)):
            self.add(name, args, error=f"Tool {name} not found")

    def compaction(self) -> None:
        self.events.append((None, None, None, None, self._current_run(), None))
        self.repeat()

    def _current_run(self) -> str | None:
        return f"run-{self.index}-{self.run}" if self.scoped and self.run else None

    def _length(self, low: int, high: int) -> int:
        """Mostly short bursts, sometimes long ones (beyond the 10/20 thresholds)."""
        return min(high, low + int(self.rng.expovariate(1 / 4)))


def session_lengths(calls: int, sessions: int, seed: int) -> list[int]:
    """Heavy-tailed session lengths summing to `calls`: a few long sessions fill 3000 records."""
    rng = random.Random(seed)
    weights = [min(rng.paretovariate(1.5), 20.0) for _ in range(sessions)]
    total = sum(weights)
    lengths = [max(1, int(calls * w / total)) for w in weights]
    lengths[-1] = max(1, lengths[-1] + calls - sum(lengths))
    return lengths


def trace_sessions(
    maker: TraceMaker, lengths: Sequence[int], limit: int | None = None
) -> Iterator[tuple[str, list[Event]]]:
    """(session key, events) in order, stopping after `limit` calls in all (a prefix)."""
    left = sum(lengths) if limit is None else limit
    for index, length in enumerate(lengths):
        if left <= 0:
            return
        events = maker.session(index, length)
        # A compaction marker is not a call: keep it but do not count it against the limit.
        calls = [i for i, event in enumerate(events) if event[0] is not None]
        if len(calls) > left:
            events = events[: calls[left - 1] + 1]
        left -= sum(1 for event in events if event[0] is not None)
        yield f"session-{index}", events


# -- the host loop --------------------------------------------------------------------------------


@dataclass
class Outcome:
    seconds: float = 0.0
    calls: int = 0
    verdicts: list[tuple[str, int, str, str | None, int]] = field(default_factory=list)
    aborts: int = 0


def drive(session: Any, key: str, events: Sequence[Event], outcome: Outcome) -> None:
    """What a host does for every call; the timed loop (the trace is made before)."""
    check, record_call = session.check, session.record_call
    record_outcome, retry = session.record_outcome, session.compaction_retry
    verdicts = outcome.verdicts
    started = CLOCK()
    for index, (tool, args, result, error, run_id, call_id) in enumerate(events):
        if tool is None:
            retry(run_id=run_id)
            continue
        verdict = check(tool, args, run_id=run_id)
        if verdict.level != "none":
            verdicts.append((key, index, verdict.level, verdict.detector, verdict.count))
            if verdict.level == "critical":
                continue  # not executed, not recorded (04 §4.1)
        record_call(tool, args, run_id=run_id, call_id=call_id)
        try:
            record_outcome(tool, args, result=result, error=error, run_id=run_id, call_id=call_id)
        except CompactionLoopPersisted:
            outcome.aborts += 1
    outcome.seconds += CLOCK() - started
    outcome.calls += sum(1 for event in events if event[0] is not None)


def run(
    factory: Callable[[EffectiveSettings], Any],
    settings: EffectiveSettings,
    sessions: Iterator[tuple[str, list[Event]]] | Sequence[tuple[str, list[Event]]],
) -> tuple[Outcome, Any]:
    detector = factory(settings)
    outcome = Outcome()
    for key, events in sessions:
        drive(detector.session(key), key, events, outcome)
    return outcome, detector


def interleaved_best(
    runners: dict[str, Callable[[], Outcome]], rounds: int = 5
) -> dict[str, Outcome]:
    """The fastest run of each runner, the runners taking turns round by round, so that load
    from other processes falls on all of them alike."""
    best: dict[str, Outcome] = {}
    for _ in range(rounds):
        for name, runner in runners.items():
            outcome = runner()
            if name not in best or rate_key(outcome) < rate_key(best[name]):
                best[name] = outcome
    return best


def runners_for(
    oracle: Callable[[EffectiveSettings], Any] | None,
    settings: EffectiveSettings,
    sessions: Sequence[tuple[str, list[Event]]],
) -> dict[str, Callable[[], Outcome]]:
    """engine, and with the oracle there: oracle (its own hashing) and oracle_shared."""
    runners: dict[str, Callable[[], Outcome]] = {
        "engine": lambda: run(LoopDetector, settings, sessions)[0]
    }
    if oracle is not None:

        def shared() -> Outcome:
            with engine_hashing_in_oracle():
                return run(oracle, settings, sessions)[0]

        runners["oracle"] = lambda: run(oracle, settings, sessions)[0]
        runners["oracle_shared"] = shared
    return runners


def rate_key(outcome: Outcome) -> float:
    return outcome.seconds / max(outcome.calls, 1)


def settings_for(history_size: int) -> EffectiveSettings:
    return settings_from_block({"enabled": True, "historySize": history_size})


def load_oracle() -> Callable[[EffectiveSettings], Any] | None:
    """The rescanning oracle of the tests (tests/engine/oracle.py), if it is there."""
    sys.path.insert(0, str(REPO))
    try:
        from tests.engine.oracle import OracleDetector
    except ImportError:
        return None
    finally:
        sys.path.remove(str(REPO))
    factory: Callable[[EffectiveSettings], Any] = OracleDetector
    return factory


# -- the oracle with the engine's hashing ---------------------------------------------------------


@contextmanager
def engine_hashing_in_oracle() -> Iterator[None]:
    """Run the oracle with loopcfg.hashing instead of its own plain hashing, for this block only.

    tests/engine/oracle.py hashes through `tests.engine.oracle_hashing` (04 §4.3-§4.4 written
    again, one plain recursive canonical JSON, no fast path); it looks `args_hash` and
    `outcome_hash` up in its module at call time, so swapping them shows how much of the
    engine's lead is hashing and how much is detection. Restored on exit."""
    import tests.engine.oracle as oracle_module

    originals = oracle_module.args_hash, oracle_module.outcome_hash
    oracle_module.args_hash = hashing_module.args_hash  # type: ignore[assignment]
    oracle_module.outcome_hash = hashing_module.outcome_hash  # type: ignore[assignment]
    try:
        yield
    finally:
        oracle_module.args_hash, oracle_module.outcome_hash = originals


def check_oracle_hashing(sessions: Sequence[tuple[str, list[Event]]]) -> int:
    """The oracle's hashes must equal the engine's on every call of `sessions` (they are written
    independently). Returns the number of calls compared."""
    from tests.engine import oracle_hashing

    compared = 0
    for _, events in sessions:
        for tool, args, result, error, _, _ in events:
            if tool is None:
                continue
            pairs = [
                (hashing_module.args_hash(tool, args), oracle_hashing.args_hash(tool, args)),
                (
                    hashing_module.outcome_hash(tool, args, result=result, error=error),
                    oracle_hashing.outcome_hash(tool, args, result=result, error=error),
                ),
            ]
            if any(ours != theirs for ours, theirs in pairs):
                raise AssertionError(f"engine and oracle hash call {compared} differently")
            compared += 1
    return compared


# -- hashing share and memory ---------------------------------------------------------------------


class HashTimer:
    """Wrap every function of a hashing module that the given modules (and their submodules)
    imported, summing the time spent inside."""

    def __init__(self, hashing: Any, modules: tuple[str, ...]) -> None:
        self.hashing = hashing
        self.modules = modules
        self.seconds = 0.0
        self.calls = 0
        self._patched: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> HashTimer:
        # By identity: module attributes include unhashable values (ModuleSpec).
        hashing_functions = {
            id(value)
            for value in vars(self.hashing).values()
            if inspect.isfunction(value) and value.__module__ == self.hashing.__name__
        }
        for name, module in list(sys.modules.items()):
            inside = any(name == m or name.startswith(m + ".") for m in self.modules)
            if not inside or module is None:
                continue
            for attribute, value in list(vars(module).items()):
                if id(value) in hashing_functions:
                    self._patched.append((module, attribute, value))
                    setattr(module, attribute, self._timed(value))
        return self

    def __exit__(self, *exc: object) -> None:
        for module, attribute, value in self._patched:
            setattr(module, attribute, value)

    def _timed(self, function: Callable[..., Any]) -> Callable[..., Any]:
        clock = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = clock()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += clock() - started
                self.calls += 1

        return timed


def hashing_share(
    factory: Callable[[EffectiveSettings], Any],
    hashing: Any,
    modules: tuple[str, ...],
    prefix: Sequence[tuple[str, list[Event]]],
    history_size: int,
) -> tuple[float, float, float]:
    """(share of time inside `hashing`, hashing µs per call, other µs per call)."""
    with HashTimer(hashing, modules) as timer:
        outcome, _ = run(factory, settings_for(history_size), prefix)
    calls = max(outcome.calls, 1)
    per_call = timer.seconds / calls * 1e6
    rest = (outcome.seconds - timer.seconds) / calls * 1e6
    return timer.seconds / outcome.seconds, per_call, rest


def memory_per_session(
    maker: TraceMaker, history_size: int, records: int
) -> tuple[float, float, int]:
    """(retained bytes, peak bytes) per live session with `history_size` records, and N."""
    count = max(1, records // history_size)
    # Unique calls only, so every session really holds history_size records (and its indexes).
    rng = random.Random(history_size)
    builder = _SessionTrace(maker, rng, 0, scoped=True)
    while len(builder.events) < history_size:
        builder.unique_call()
    events = builder.events[:history_size]
    detector = LoopDetector(settings_for(history_size))
    gc.collect()
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    for index in range(count):
        drive(detector.session(f"s{index}"), "", events, Outcome())
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (current - before) / count, (peak - before) / count, count


# -- report ---------------------------------------------------------------------------------------


def rate(outcome: Outcome) -> float:
    return outcome.calls / outcome.seconds if outcome.seconds else float("inf")


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    arguments = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    arguments.add_argument("--calls", type=int, default=1_000_000)
    arguments.add_argument("--sessions", type=int, default=1000)
    arguments.add_argument(
        "--oracle-calls", type=int, default=20_000, help="prefix the oracle (and the engine) run"
    )
    arguments.add_argument("--hash-calls", type=int, default=100_000, help="prefix for hashing")
    arguments.add_argument("--memory-records", type=int, default=30_000, help="records per size")
    arguments.add_argument(
        "--long-calls",
        type=int,
        default=6000,
        help="one session without run ids (detection sees all history), engine vs oracle",
    )
    arguments.add_argument("--seed", type=int, default=4)
    arguments.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    arguments.add_argument(
        "--engine-only",
        action="store_true",
        help="only the engine on the whole trace at historySize 30 and 3000, best of --rounds "
        "(to compare commits: run it with PYTHONPATH set to another checkout)",
    )
    arguments.add_argument("--rounds", type=int, default=3)
    arguments.add_argument("--cpu-time", action="store_true", help="time CPU, not wall clock")
    options = arguments.parse_args(argv)
    if options.quick:
        options.calls, options.sessions = min(options.calls, 20_000), min(options.sessions, 20)
        options.oracle_calls = min(options.oracle_calls, 3_000)
        options.hash_calls = min(options.hash_calls, 5_000)
        options.memory_records = min(options.memory_records, 6_000)
        options.long_calls = min(options.long_calls, 1_000)
    return options


def quiet_logs() -> None:
    """Keep the engine's log records (their cost is part of the figures) off the terminal."""
    for name in ("loopcfg.engine", "loopcfg.guard"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    global CLOCK
    options = parse(argv)
    if options.cpu_time:
        CLOCK = time.process_time
    quiet_logs()
    maker = TraceMaker(options.seed)
    lengths = session_lengths(options.calls, options.sessions, options.seed)
    if options.engine_only:
        return engine_only(maker, lengths, options.rounds)
    prefix = list(trace_sessions(maker, lengths, options.oracle_calls))
    oracle = load_oracle()
    report: dict[str, Any] = {"sizes": {}, "oracle": oracle is not None}
    print(
        f"trace: {sum(lengths)} calls in {len(lengths)} sessions (longest {max(lengths)}), "
        f"seed {options.seed}; oracle and prefix ratio on the first {options.oracle_calls} calls"
    )
    if oracle is None:
        print("oracle: tests/engine/oracle.py not found, oracle columns skipped")
    else:
        compared = check_oracle_hashing(prefix)
        report["hashes_compared"] = compared
        print(
            f"hashes: the oracle's and the engine's identical on all {compared} calls of the prefix"
        )
    long_session = [("long", maker.session(10**6, options.long_calls, scoped=False))]
    for size in HISTORY_SIZES:
        settings = settings_for(size)
        full, detector = run(LoopDetector, settings, trace_sessions(maker, lengths))
        held = [len(detector.session(key).history) for key in list(detector._sessions)]
        best = interleaved_best(runners_for(oracle, settings, prefix))
        long = interleaved_best(runners_for(oracle, settings, long_session), rounds=3)
        entry: dict[str, Any] = {
            "engine": rate(full),
            "engine_prefix": rate(best["engine"]),
            "held_max": max(held),
            "held_mean": sum(held) / len(held),
            "verdicts": len(full.verdicts),
            "aborts": full.aborts,
        }
        if oracle is not None:
            entry["oracle"] = rate(best["oracle"])
            entry["oracle_shared"] = rate(best["oracle_shared"])
            entry["long"] = tuple(
                rate(long[name]) for name in ("engine", "oracle", "oracle_shared")
            )
            entry["agree"] = all(
                outcomes[name].verdicts == outcomes["engine"].verdicts
                and outcomes[name].aborts == outcomes["engine"].aborts
                for outcomes in (best, long)
                for name in ("oracle", "oracle_shared")
            )
        report["sizes"][size] = entry
    hash_prefix = list(trace_sessions(maker, lengths, options.hash_calls))
    report["hashing"] = {
        "engine": hashing_share(LoopDetector, hashing_module, ("loopcfg.engine",), hash_prefix, 30)
    }
    if oracle is not None:
        from tests.engine import oracle_hashing

        report["hashing"]["oracle"] = hashing_share(
            oracle, oracle_hashing, ("tests.engine.oracle",), hash_prefix, 30
        )
        with engine_hashing_in_oracle():
            report["hashing"]["oracle with the engine's hashing"] = hashing_share(
                oracle, hashing_module, ("tests.engine.oracle",), hash_prefix, 30
            )
    report["memory"] = {
        size: memory_per_session(maker, size, options.memory_records) for size in HISTORY_SIZES
    }
    print_report(report, options)
    return report


def engine_only(maker: TraceMaker, lengths: Sequence[int], rounds: int) -> dict[str, Any]:
    """The engine's calls/s at the smallest and largest history, best of `rounds` runs."""
    import loopcfg

    sessions = list(trace_sessions(maker, lengths))
    print(f"loopcfg from {Path(loopcfg.__file__).parent}; {sum(lengths)} calls")
    report: dict[str, Any] = {}
    for size in (HISTORY_SIZES[0], HISTORY_SIZES[-1]):
        settings = settings_for(size)
        best = max(rate(run(LoopDetector, settings, sessions)[0]) for _ in range(rounds))
        report[size] = best
        print(f"historySize {size}: {best:,.0f} calls/s (best of {rounds})")
    return report


def print_report(report: dict[str, Any], options: argparse.Namespace) -> None:
    sizes = report["sizes"]
    print()
    print(
        "| historySize | engine calls/s (full trace) | records held (mean / max) "
        f"| engine calls/s ({options.oracle_calls} prefix) | oracle calls/s (prefix) "
        "| oracle with the engine's hashing, calls/s (prefix) "
        "| engine / oracle | engine / oracle with the engine's hashing | verdicts agree |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size, entry in sizes.items():
        oracle, plain = entry.get("oracle"), entry.get("oracle_shared")
        print(
            f"| {size} | {entry['engine']:,.0f} | {entry['held_mean']:.0f} / {entry['held_max']} "
            f"| {entry['engine_prefix']:,.0f} | {_figure(oracle)} | {_figure(plain)} "
            f"| {_ratio(entry['engine_prefix'], oracle)} | {_ratio(entry['engine_prefix'], plain)} "
            f"| {entry.get('agree', 'n/a')} |"
        )
    if any("long" in entry for entry in sizes.values()):
        print()
        print(
            f"one session of {options.long_calls} calls without run ids (every check sees the "
            "whole history):"
        )
        print(
            "| historySize | engine calls/s | oracle calls/s "
            "| oracle with the engine's hashing, calls/s "
            "| engine / oracle | engine / oracle with the engine's hashing |"
        )
        print("|---|---|---|---|---|---|")
        for size, entry in sizes.items():
            ours, theirs, plain = entry["long"]
            print(
                f"| {size} | {ours:,.0f} | {theirs:,.0f} | {plain:,.0f} "
                f"| {_ratio(ours, theirs)} | {_ratio(ours, plain)} |"
            )
    print()
    print(
        f"hashing (calls into loopcfg.hashing, or the oracle's own, timed; first "
        f"{options.hash_calls} calls, "
        "historySize 30; the timer adds its own overhead):"
    )
    print("| implementation | share of time hashing | hashing µs / call | the rest µs / call |")
    print("|---|---|---|---|")
    for name, (share, hash_us, rest_us) in report["hashing"].items():
        print(f"| {name} | {share:.0%} | {hash_us:.1f} | {rest_us:.1f} |")
    if "oracle" in report["hashing"]:
        rest_ratio = report["hashing"]["oracle"][2] / report["hashing"]["engine"][2]
        report["rest_speedup"] = rest_ratio
        print(f"outside hashing the engine is {rest_ratio:.1f}× the oracle")
    print()
    print("| historySize | live sessions | retained KiB / session | peak KiB / session |")
    print("|---|---|---|---|")
    for size, (retained, peak, count) in report["memory"].items():
        print(f"| {size} | {count} | {retained / 1024:.1f} | {peak / 1024:.1f} |")
    print()
    small, large = sizes[HISTORY_SIZES[0]], sizes[HISTORY_SIZES[-1]]
    growth = small["engine"] / large["engine"]
    report["cost_growth"] = growth
    verdict = "meets" if growth <= 1.5 else "MISSES"
    print(
        f"engine cost at historySize {HISTORY_SIZES[-1]} is {growth:.2f}× its cost at "
        f"{HISTORY_SIZES[0]} on the full trace ({verdict} the ≤ 1.5× target)"
    )
    if "oracle" in small:
        speedup = small["engine_prefix"] / small["oracle"]
        report["speedup"] = speedup
        verdict = "meets" if speedup >= 5 else "MISSES"
        print(
            f"engine is {speedup:.1f}× the oracle at historySize {HISTORY_SIZES[0]} on the "
            f"{options.oracle_calls}-call prefix ({verdict} the ≥ 5× target)"
        )
        shared_speedup = small["engine_prefix"] / small["oracle_shared"]
        report["speedup_shared"] = shared_speedup
        print(
            f"engine is {shared_speedup:.1f}× the oracle running with the engine's hashing "
            f"(the lead that is detection, not hashing)"
        )
        disagreements = [size for size, entry in sizes.items() if not entry["agree"]]
        if disagreements:
            print(f"WARNING: engine and oracle verdicts differ at historySize {disagreements}")


def _figure(value: float | None) -> str:
    return f"{value:,.0f}" if value else "n/a"


def _ratio(ours: float, theirs: float | None) -> str:
    return f"{ours / theirs:.1f}×" if theirs else "n/a"


if __name__ == "__main__":
    main()
