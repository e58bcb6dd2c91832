"""Deterministic random traces for the engine conformance vectors (issue 12, item 7).

Every trace is a list of loopcfg trace lines (spec 06 §6.1, with `batch`) plus the
`tools.loopDetection` block it runs under, so `loopcfg replay --config` reads the very inputs the
real OpenClaw releases were given. The same seed always gives the same traces: the vectors can be
re-recorded against a new release and compared line for line.

    python conformance/traces.py 5 | head        # the first traces, one JSON object a line

Also here: the spec's own vectors of 09 §9.6 (outcome vectors N1-X1, traces T1-T3) as traces,
so the recorder proves itself against the numbers the spec states.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

SEED = 20261203
TRACE_COUNT = 520

Line = dict[str, Any]
Trace = dict[str, Any]

# Raw tool names as models write them: the host lower-cases and maps aliases (09 §9.5).
RAW_NAMES = [
    "read",
    "Read",
    "READ",
    " read ",
    "bash",
    " BASH ",
    "Bash",
    "exec",
    "Apply-Patch",
    "apply-patch",
    "apply_patch",
    "CRON",
    "cron",
    "Memory-Store",
    "web_fetch",
    "grep",
]
ODD_STRINGS = [
    "\ud800",
    "\udfff",
    "a\ud83d",
    "\U0001f600",
    "\uffff",
    "é\n",
    "\x01tab\t",
    "\u2028",
    "ſ",
    "K",
]


def nonce_wrapped(nonce: str, body: str) -> str:
    return (
        f'<<<EXTERNAL_UNTRUSTED_CONTENT id="{nonce}">>>{body}'
        f'<<<END_EXTERNAL_UNTRUSTED_CONTENT id="{nonce}">>>'
    )


def text_result(text: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if details is not None:
        result["details"] = details
    return result


def random_config(rng: random.Random) -> dict[str, Any] | None:
    """A `tools.loopDetection` block: thresholds, detectors off, history sizes, enabled states."""
    kind = rng.choice(
        [
            "default",
            "default",
            "small",
            "small",
            "small",
            "detectors",
            "history",
            "large-warning",
            "disabled",
            "unset",
            "absent",
            "guard",
        ]
    )
    if kind == "absent":
        return None
    block: dict[str, Any] = {"enabled": True}
    if kind == "disabled":
        block["enabled"] = False
        block["warningThreshold"] = rng.randint(2, 4)
    elif kind == "unset":
        del block["enabled"]
        block["warningThreshold"] = rng.randint(2, 4)
    if kind in ("small", "detectors", "history", "guard"):
        warning = rng.randint(1, 6)
        block["warningThreshold"] = warning
        block["criticalThreshold"] = rng.choice([warning, warning + rng.randint(1, 5)])
        block["globalCircuitBreakerThreshold"] = block["criticalThreshold"] + rng.randint(0, 6)
        block["unknownToolThreshold"] = rng.randint(2, 6)
    if kind == "large-warning":
        block["warningThreshold"] = rng.randint(11, 15)
        block["criticalThreshold"] = block["warningThreshold"] + rng.randint(3, 12)
    if kind == "detectors":
        block["detectors"] = {
            name: rng.random() < 0.5
            for name in ("genericRepeat", "knownPollNoProgress", "pingPong")
        }
    if kind == "history":
        block["historySize"] = rng.choice([2, 3, 5, 8, 200, 1000])
    if kind == "guard" or rng.random() < 0.15:
        block["postCompactionGuard"] = {"windowSize": rng.randint(1, 5)}
    return block


class Builder:
    """Appends trace lines; keeps call ids unique and the pending (unanswered) calls."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[Line] = []
        self.calls = 0
        self.serial = 0
        self.batch_serial = 0

    def call(
        self,
        tool: str,
        args: Any,
        *,
        run: str | None,
        session: str,
        outcome: str = "result",
        value: Any = None,
        with_id: bool = True,
        batch: str | None = None,
    ) -> Line:
        line: Line = {"tool": tool, "args": args}
        if session != "default":
            line["session"] = session
        if run is not None:
            line["run"] = run
        if with_id:
            self.serial += 1
            line["id"] = f"call_{self.serial}"
        if batch is not None:
            line["batch"] = batch
        if outcome == "result":
            line["result"] = value
        elif outcome == "error":
            line["error"] = value
        self.lines.append(line)
        self.calls += 1
        return line

    def outcome(self, call: Line, kind: str, value: Any) -> None:
        line: Line = {"type": "outcome", "tool": call["tool"], "args": call["args"], kind: value}
        for key in ("session", "run", "id"):
            if key in call:
                line[key] = call[key]
        self.lines.append(line)

    def new_batch(self) -> str:
        self.batch_serial += 1
        return f"b{self.batch_serial}"


# --- patterns: each appends a stretch of calls --------------------------------------------


def pattern_repeat(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    tool = rng.choice(RAW_NAMES)
    args = rng.choice(
        [
            {"path": "/a"},
            {"command": "npm test"},
            {"q": rng.choice(ODD_STRINGS)},
            {"n": rng.choice([1.0, 1e21, -0.0, 0.1, 2**53 + 1])},
            [],
            "x",
            None,
            {rng.choice(ODD_STRINGS): 1, "b": [None, True]},
        ]
    )
    count = rng.randint(3, 30)
    stable = rng.random() < 0.7
    kind = rng.choice(["text", "text", "null", "error", "none", "nonce"])
    for i in range(count):
        value: Any
        if kind == "null":
            b.call(tool, args, run=run, session=session, value=None)
            continue
        if kind == "none" and rng.random() < 0.5:
            b.call(tool, args, run=run, session=session, outcome="none")
            continue
        if kind == "error":
            b.call(
                tool,
                args,
                run=run,
                session=session,
                outcome="error",
                value="ENOENT" if stable else f"ENOENT {i}",
            )
            continue
        if kind == "nonce":
            nonce = f"{rng.getrandbits(64):016x}"
            value = text_result(nonce_wrapped(nonce, "Service unavailable" if stable else str(i)))
        else:
            value = text_result(
                "same" if stable else f"changed {i}",
                {"k": rng.choice(ODD_STRINGS)} if rng.random() < 0.2 else None,
            )
        b.call(tool, args, run=run, session=session, value=value)


def pattern_ping_pong(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    sides = [("read", {"path": "a.md"}), (rng.choice(["read", "grep", "Read"]), {"path": "b.md"})]
    stable = rng.random() < 0.7
    for i in range(rng.randint(4, 30)):
        tool, args = sides[i % 2]
        value = text_result("x" if stable else f"x{i}")
        if rng.random() < 0.05:
            b.call(tool, args, run=run, session=session, outcome="none")
        else:
            b.call(tool, args, run=run, session=session, value=value)


def pattern_poll(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    progress = rng.random() < 0.4
    which = rng.choice(["poll", "log", "command_status"])
    for i in range(rng.randint(3, 28)):
        if which == "command_status":
            tool, args = "command_status", {"id": "cmd-1"}
            value = text_result(f"running {i}" if progress else "running")
        else:
            tool, args = rng.choice(["process", "Process"]), {"action": which, "sessionId": "s1"}
            details: dict[str, Any] = {"status": "running"}
            if rng.random() < 0.2:
                details = {}  # a missing status hashes as the bare word undefined (04 §4.4)
            if which == "log":
                details["totalLines"] = i if progress else 3
            else:
                details["aggregated"] = f"line {i}" if progress else "line"
            value = text_result("tail", details)
        b.call(tool, args, run=run, session=session, value=value)


def pattern_unknown(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    tool = rng.choice(["browser", "Browser", "missing_tool"])
    message = rng.choice(
        [
            "Tool browser not found",
            "Unknown tool: browser",
            "tool 'browser' is not available",
            "boom",
        ]
    )
    for _ in range(rng.randint(2, 14)):
        b.call(
            tool,
            {"url": "https://example.org"},
            run=run,
            session=session,
            outcome="error",
            value=message,
        )


def pattern_exec(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    same_args = rng.random() < 0.5
    for i in range(rng.randint(3, 25)):
        command = "npm test" if same_args else f"npm test -- --shard {i}"
        status = rng.choice(["failed", "failed", "completed", "running"])
        details: dict[str, Any] = {"status": status, "exitCode": 1, "durationMs": rng.randint(1, 9)}
        if status == "running":
            details = {"status": "running", "tail": "building", "pid": rng.randint(1, 99)}
        else:
            details["aggregated"] = (
                f"2026-09-{1 + i % 28:02d}T0{i % 10}:00:00Z retry {i}: "
                f"tests failed after {3 * i}ms (pid {1000 + i})"
            )
        b.call(
            rng.choice(["exec", "bash", " Bash "]),
            {"command": command},
            run=run,
            session=session,
            value=text_result(details.get("aggregated", "..."), details),
        )


def pattern_write(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    paths = ["a.md", "b.md", "c.md"][: rng.randint(2, 3)]
    for i in range(rng.randint(6, 24)):
        changed = rng.random() < 0.1
        b.call(
            "write",
            {"path": paths[i % len(paths)], "content": "same"},
            run=run,
            session=session,
            value={"details": {"changed": changed}},
        )


def pattern_send(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    tool, args = rng.choice(
        [
            ("message", {"action": "send", "to": "u1", "text": "hi"}),
            ("message", {"action": "read", "to": "u1"}),
            ("sessions_send", {"to": "s2", "text": "hi"}),
            ("conversations_send", {"to": "u1", "text": "hi"}),
        ]
    )
    for i in range(rng.randint(3, 24)):
        details = {
            "ok": True,
            "messageId": f"m{i}",
            "ts": i,
            "message": {"id": f"x{i}", "text": "hi", "direction": "out"},
        }
        b.call(tool, args, run=run, session=session, value={"details": details})


def pattern_parallel(b: Builder, run: str | None, session: str) -> None:
    """Calls launched together, outcomes arriving later and out of order."""
    rng = b.rng
    for _ in range(rng.randint(1, 6)):
        width = rng.randint(2, 4)
        started = []
        for k in range(width):
            tool = rng.choice(["read", "grep", "Read"])
            started.append(
                b.call(tool, {"path": f"p{k % 2}"}, run=run, session=session, outcome="none")
            )
        rng.shuffle(started)
        for call in started:
            if rng.random() < 0.1:
                continue  # never answered
            if rng.random() < 0.15:
                b.outcome(call, "error", "EPERM")
            else:
                b.outcome(call, "result", text_result("p"))


def pattern_batches(b: Builder, run: str | None, session: str) -> None:
    """Assistant messages with several tool calls: batches on 2026.8.1+ (06 §6.1)."""
    rng = b.rng
    for _ in range(rng.randint(3, 15)):
        batch = b.new_batch()
        width = rng.randint(1, 3)
        for k in range(width):
            tool, args = rng.choice(
                [
                    ("web_fetch", {"url": "https://e.x"}),
                    ("read", {"path": "n"}),
                    ("read", {"path": f"m{k}"}),
                ]
            )
            b.call(tool, args, run=run, session=session, value=text_result("same"), batch=batch)


def pattern_compaction(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    line: Line = {"type": "compaction"}
    if session != "default":
        line["session"] = session
    if run is not None:
        line["run"] = run
    b.lines.append(line)
    stable = rng.random() < 0.7
    for i in range(rng.randint(1, 6)):
        b.call(
            "gateway",
            {"action": "status"},
            run=run,
            session=session,
            value=text_result("same" if stable else str(i)),
        )


def pattern_noise(b: Builder, run: str | None, session: str) -> None:
    rng = b.rng
    for _ in range(rng.randint(1, 8)):
        tool = rng.choice([*RAW_NAMES, "update_plan", "   "])
        args = {"path": f"f{rng.randint(0, 3)}", "s": rng.choice(ODD_STRINGS)}
        if tool == "update_plan":
            args = {"plan": [{"step": "a", "status": rng.choice(["pending", "done"])}]}
        b.call(
            tool,
            args,
            run=run,
            session=session,
            with_id=rng.random() < 0.7,
            value=text_result(rng.choice(ODD_STRINGS)),
        )


PATTERNS: list[tuple[Callable[[Builder, str | None, str], None], int]] = [
    (pattern_repeat, 6),
    (pattern_ping_pong, 3),
    (pattern_poll, 3),
    (pattern_unknown, 2),
    (pattern_exec, 2),
    (pattern_write, 2),
    (pattern_send, 2),
    (pattern_parallel, 3),
    (pattern_batches, 3),
    (pattern_compaction, 2),
    (pattern_noise, 3),
]


def random_trace(index: int, seed: int = SEED) -> Trace:
    rng = random.Random(f"{seed}:{index}")
    builder = Builder(rng)
    target = rng.randint(15, 90)
    sessions = ["default"] if rng.random() < 0.8 else ["default", "s2"]
    run_style = rng.choice(["none", "none", "runs", "runs", "odd"])
    runs: list[str | None] = [None]
    if run_style == "runs":
        runs = ["r1", "r2", "r3"]
    elif run_style == "odd":
        runs = [None, " r1 ", "r1", ""]
    functions = [f for f, _ in PATTERNS]
    weights = [w for _, w in PATTERNS]
    while builder.calls < target:
        pattern = rng.choices(functions, weights)[0]
        pattern(builder, rng.choice(runs), rng.choice(sessions))
    return {"id": f"rand-{index:04d}", "config": random_config(rng), "lines": builder.lines}


def random_traces(count: int = TRACE_COUNT, seed: int = SEED) -> Iterator[Trace]:
    for index in range(count):
        yield random_trace(index, seed)


# --- the spec's vectors (09 §9.6) as traces --------------------------------------------------

ENABLED = {"enabled": True}


def _one(tool: str, args: Any, **outcome: Any) -> Line:
    return {"tool": tool, "args": args, **outcome}


E1_OUT = "2026-09-20T10:11:12.345Z attempt 1: build failed after 12.5s (pid 4242)"
E2_OUT = "2026-09-21T08:00:01Z attempt 2: build failed after 3 ms (pid 99)"
E3_OUT = "2026-09-21T08:00:01Z attempt 2: lint failed after 3 ms (pid 99)"


def t2_output(i: int) -> str:
    """T2's output of call i: the timestamp, retry, duration and pid all change."""
    return (
        f"2026-09-{i:02d}T0{i % 10}:00:00Z retry {i}: tests failed after {3 * i}ms (pid {1000 + i})"
    )


def spec_traces() -> Iterator[Trace]:
    """09 §9.6's outcome vectors N1-X1, each a one- or two-call trace, and traces T1-T3."""
    fetch = {"url": "https://e.x"}
    w1 = nonce_wrapped("0123456789abcdef", "hello")
    w2 = nonce_wrapped("fedcba9876543210", "hello")
    mixed = (
        '<<<EXTERNAL_UNTRUSTED_CONTENT id="0123456789abcdef">>>hello'
        '<<<END_EXTERNAL_UNTRUSTED_CONTENT id="fedcba9876543210">>>'
    )
    upper = nonce_wrapped("0123456789ABCDEF", "hello")
    singles: dict[str, list[Line]] = {
        "N1": [_one("web_fetch", fetch, result=text_result(w1))],
        "N2": [_one("web_fetch", fetch, result=text_result(w2))],
        "N3": [_one("web_fetch", fetch, result=text_result(mixed))],
        "N4": [_one("web_fetch", fetch, result=text_result(upper))],
        "N5": [
            _one(
                "browser",
                {"action": "snapshot"},
                result={
                    "details": {
                        "raw": json.dumps(
                            {"t": nonce_wrapped("0123456789abcdef", "x")}, separators=(",", ":")
                        )
                    }
                },
            )
        ],
        "N6": [
            _one(
                "browser",
                {"action": "snapshot"},
                result={
                    "details": {
                        "raw": json.dumps(
                            {"t": nonce_wrapped("1111111111111111", "x")}, separators=(",", ":")
                        )
                    }
                },
            )
        ],
        "N7": [
            _one(
                "browser",
                {"action": "open"},
                error=nonce_wrapped("0123456789abcdef", "ECONNREFUSED"),
            ),
            _one(
                "browser",
                {"action": "open"},
                error=nonce_wrapped("abcdefabcdefabcd", "ECONNREFUSED"),
            ),
        ],
        "N8": [
            _one(
                "read", {"path": nonce_wrapped("0123456789abcdef", "p")}, result=text_result("ok")
            ),
            _one(
                "read", {"path": nonce_wrapped("fedcba9876543210", "p")}, result=text_result("ok")
            ),
        ],
        "E1": [
            _one(
                "exec",
                {"command": "npm test -- --slice 10"},
                result=text_result(
                    E1_OUT,
                    {
                        "status": "failed",
                        "exitCode": 1,
                        "durationMs": 1234,
                        "aggregated": E1_OUT,
                    },
                ),
            )
        ],
        "E2": [
            _one(
                "exec",
                {"command": "npm test -- --slice 11"},
                result=text_result(
                    E2_OUT,
                    {
                        "status": "failed",
                        "exitCode": 1,
                        "aggregated": E2_OUT,
                    },
                ),
            )
        ],
        "E3": [
            _one(
                "exec",
                {"command": "npm test -- --slice 12"},
                result=text_result(
                    E3_OUT,
                    {
                        "status": "failed",
                        "exitCode": 1,
                        "aggregated": E3_OUT,
                    },
                ),
            )
        ],
        "E4": [
            _one(
                "exec",
                {"command": "false"},
                result=text_result(
                    "(Command exited with code 1)", {"status": "failed", "exitCode": 1}
                ),
            )
        ],
        "E5": [
            _one(
                "exec",
                {"command": "sleep 99"},
                result={
                    "details": {
                        "status": "failed",
                        "exitCode": 124,
                        "timedOut": True,
                        "aggregated": "timeout",
                    }
                },
            )
        ],
        "E6": [
            _one(
                "exec",
                {"command": "x"},
                result={"details": {"status": "failed", "exitCode": 1, "aggregated": "took 5ſ"}},
            ),
            _one(
                "exec",
                {"command": "x"},
                result={"details": {"status": "failed", "exitCode": 1, "aggregated": "took 7s"}},
            ),
        ],
        "W1": [
            _one(
                "write",
                {"path": "a.txt", "content": "x"},
                result=text_result("no change", {"changed": False}),
            )
        ],
        "W2": [
            _one(
                "write",
                {"path": "b.txt", "content": "x"},
                result=text_result("unchanged b", {"changed": False, "path": "b.txt"}),
            )
        ],
        "W3": [
            _one(
                "write",
                {"path": "a.txt", "content": "x"},
                result=text_result("wrote", {"changed": True}),
            )
        ],
        "S1": [
            _one(
                "conversations_send",
                {"to": "u1", "text": "hi"},
                result={
                    "details": {
                        "ok": True,
                        "messageId": "m1",
                        "ts": 1,
                        "conversation": {"id": "c1"},
                    }
                },
            ),
            _one(
                "conversations_send",
                {"to": "u1", "text": "hi"},
                result={
                    "details": {
                        "ok": True,
                        "messageId": "m2",
                        "ts": 2,
                        "conversation": {"id": "c1"},
                    }
                },
            ),
        ],
        "V1": [
            _one(
                "read",
                {"path": "/a"},
                result={
                    "content": [{"type": "text", "text": "blocked"}],
                    "details": {"status": "blocked", "deniedReason": "tool-loop"},
                },
            )
        ],
        "X1": [_one("t", {}, result=None)],
    }
    for name, lines in singles.items():
        yield {"id": f"spec-{name}", "config": ENABLED, "lines": lines}
    yield {"id": "spec-T1", "config": ENABLED, "lines": _trace_t1()}
    yield {
        "id": "spec-T2",
        "config": ENABLED,
        "lines": [
            {
                "tool": "exec",
                "args": {"command": f"npm test -- --shard {i}"},
                "run": "r1",
                "result": text_result(
                    t2_output(i), {"status": "failed", "exitCode": 1, "aggregated": t2_output(i)}
                ),
            }
            for i in range(1, 22)
        ],
    }
    yield {
        "id": "spec-T3",
        "config": ENABLED,
        "lines": [
            {
                "tool": "write",
                "args": {"path": "abc"[i % 3] + ".md", "content": "same"},
                "run": "r1",
                "result": {"details": {"changed": False}},
            }
            for i in range(13)
        ],
    }


def spec_generation_traces() -> Iterator[Trace]:
    """The cross-release examples of 09 §9.1 (E6, E7), 04 §4.4 rule 2 (E5) and 09 §9.5."""
    small = {"enabled": True, "warningThreshold": 2, "criticalThreshold": 3}
    yield {
        "id": "spec-91-E6",
        "config": small,
        "lines": [_one("read", {"path": "/a"}, result=text_result("same")) for _ in range(6)],
    }
    yield {
        "id": "spec-91-E7",
        "config": small,
        "lines": [
            _one(
                "message",
                {"action": "send", "to": "u1", "text": "hi"},
                result={"details": {"ok": True, "messageId": f"m{i}"}},
            )
            for i in range(6)
        ],
    }
    yield {
        "id": "spec-44-E5",
        "config": {"enabled": True, "warningThreshold": 1, "criticalThreshold": 2},
        "lines": [_one("t", {}, result=None) for _ in range(3)],
    }
    yield {
        "id": "spec-95-names",
        "config": ENABLED,
        "lines": [
            _one(name, {}, result=text_result("ok"))
            for name in ("Read", " BASH ", "Apply-Patch", "CRON", "Memory-Store", "   ")
        ],
    }


def _trace_t1() -> list[Line]:
    fetch = {"url": "https://example.com/status"}
    rng = random.Random("T1")
    lines: list[Line] = []
    for _ in range(20):
        nonce = f"{rng.getrandbits(64):016x}"
        lines.append(
            {
                "tool": "web_fetch",
                "args": fetch,
                "run": "r1",
                "result": text_result(nonce_wrapped(nonce, "Service unavailable")),
            }
        )
    lines.append(
        {
            "tool": "web_fetch",
            "args": fetch,
            "run": "r1",
            "batch": "m21",
            "result": text_result(nonce_wrapped("0" * 16, "Service unavailable")),
        }
    )
    lines.append(
        {
            "tool": "read",
            "args": {"path": "notes.md"},
            "run": "r1",
            "batch": "m21",
            "result": text_result("notes"),
        }
    )
    lines.append(
        {"tool": "read", "args": {"path": "notes.md"}, "run": "r1", "result": text_result("notes")}
    )
    lines.append(
        {
            "tool": "web_fetch",
            "args": fetch,
            "run": "r1",
            "result": text_result(nonce_wrapped("1" * 16, "Service unavailable")),
        }
    )
    return lines


def all_traces(count: int = TRACE_COUNT, seed: int = SEED) -> Iterator[Trace]:
    yield from spec_traces()
    yield from spec_generation_traces()
    yield from random_traces(count, seed)


if __name__ == "__main__":
    wanted = int(sys.argv[1]) if len(sys.argv) > 1 else TRACE_COUNT
    for trace in all_traces(wanted):
        print(json.dumps(trace))
