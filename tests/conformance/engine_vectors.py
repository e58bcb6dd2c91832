"""The engine conformance vectors: what the real OpenClaw releases did with each trace.

Recorded by `conformance/record_engine.py` (which also explains the driver); read here without
Node or OpenClaw. `vectors/engine/traces.jsonl.gz` holds the inputs (loopcfg traces, 06 §6.1,
with their `tools.loopDetection` block), `vectors/engine/<version>.jsonl.gz` one release's
answers, `vectors/engine/corpus-<version>.jsonl.gz` its answers on the corpus, keyed by corpus
file name, SHA-256 and call index (the corpus itself is read from `../shared/corpus` at test
time: personal data never enters the repository).

Per call an answer holds: `line` (1-based trace line), `call` (1-based within the session),
`tool` (as OpenClaw normalised it), `level`, and for a verdict `detector`, `count`, `message`;
`emitted`; `argsHash`; `resultHash` (null: nothing recorded); `blocked` when the call was
refused; on 2026.9.6 `batch`, `trigger`, `recovery` for blocked batches; `skipped` for calls after
an abort. Aborts carry `line`, `run`, `tool`, `count`, `code`, `message`.

The deliberate deviation of 04 §4.7 (loopcfg emits warnings by its own threshold's bucket,
OpenClaw by a fixed bucket of 10) is marked on the call: `loopcfgEmitted` says what loopcfg emits
there when it differs from OpenClaw's `emitted`.

`replay_with_loopcfg` runs a trace through `loopcfg.engine` the way the recorder ran it through
OpenClaw's hook, and `differences` lists where they disagree, call by call.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tests.conftest import CORPUS

VECTORS = Path(__file__).resolve().parent / "vectors" / "engine"
RELEASES = ("2026.5.4", "2026.5.12", "2026.6.5", "2026.7.1-2", "2026.9.6")


def engine_of(version: str) -> str | None:
    """The release's engine generation, from the release table (loopcfg/releases.py)."""
    from loopcfg.releases import release_info

    info = release_info(version)
    return None if info is None else info.engine


# Releases that admit whole batches (09 §9.4.7), and those whose blocked result is recorded as
# the call's outcome (09 §9.1 item 2).
BATCH_RELEASES = frozenset(v for v in RELEASES if engine_of(v) == "E8.1")
VETO_HASHED = frozenset(v for v in RELEASES if engine_of(v) in ("E5.4", "E5.12"))

Trace = dict[str, Any]
Answer = dict[str, Any]


def read_jsonl_gz(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@cache
def traces() -> dict[str, Trace]:
    return {trace["id"]: trace for trace in read_jsonl_gz(VECTORS / "traces.jsonl.gz")}


@cache
def traces_sha256() -> str:
    """SHA-256 of the uncompressed traces file: each release's header names it."""
    return hashlib.sha256(gzip.decompress((VECTORS / "traces.jsonl.gz").read_bytes())).hexdigest()


@cache
def release_file(version: str, corpus: bool = False) -> tuple[dict[str, Any], tuple[Answer, ...]]:
    """The header and the answers of one release's vectors."""
    name = f"corpus-{version}.jsonl.gz" if corpus else f"{version}.jsonl.gz"
    rows = read_jsonl_gz(VECTORS / name)
    header, answers = rows[0], tuple(rows[1:])
    if header.get("kind") != "header" or header.get("openclaw") != version:
        raise ValueError(f"{name}: the first line is not the header of {version}")
    return header, answers


def answers(version: str) -> dict[str, Answer]:
    return {answer["id"]: answer for answer in release_file(version)[1]}


def trace_lines_text(trace: Trace) -> str:
    """The trace as a loopcfg trace file (for `loopcfg replay --config`)."""
    return "".join(json.dumps(line) + "\n" for line in trace["lines"])


def config_document(trace: Trace) -> dict[str, Any]:
    """The whole OpenClaw config a trace ran under (`--config` for replay)."""
    block = trace.get("config")
    return {} if block is None else {"tools": {"loopDetection": block}}


# --- the corpus: traces rebuilt at test time from ../shared/corpus ----------------------------


@dataclass(frozen=True)
class CorpusSession:
    """One session of the corpus: a JSONL transcript, or one session of a SQLite store."""

    name: str  # path relative to the corpus folder (a store: its path, `::` and the session id)
    path: Path
    session_id: str | None = None


def corpus_sessions_in(root: Path = CORPUS) -> list[CorpusSession]:
    found = [
        CorpusSession(f"openclaw/{path.name}", path)
        for path in sorted((root / "openclaw").glob("*.jsonl"))
    ]
    for store in sorted((root / "openclaw-sqlite").glob("*/openclaw-agent.sqlite")):
        with _read_only(store) as db:
            ids = [
                row[0]
                for row in db.execute(
                    "SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id"
                )
            ]
        relative = store.relative_to(root).as_posix()
        found.extend(CorpusSession(f"{relative}::{sid}", store, sid) for sid in ids)
    return found


def _read_only(store: Path) -> sqlite3.Connection:
    # immutable=1: SQLite neither locks nor writes anything (no -wal/-shm next to the store).
    return sqlite3.connect(f"file:{store}?mode=ro&immutable=1", uri=True)


def _zstd_decompress() -> Any:
    for module in ("compression.zstd", "backports.zstd"):
        try:
            return __import__(module, fromlist=["decompress"]).decompress
        except ImportError:
            continue
    return None


def store_lines(store: Path, session_id: str) -> tuple[list[tuple[int, bytes]], int]:
    """A store session's JSONL form (10 §10.3): rows in `seq` order, line = seq + 1. Rows kept
    as zstd frames are decoded when this Python can; otherwise they are counted and left out
    (in the corpus stores they are all `openclaw.cache-ttl` bookkeeping, 10 §10.7, which replay
    skips anyway)."""
    decompress = _zstd_decompress()
    lines: list[tuple[int, bytes]] = []
    unread = 0
    with _read_only(store) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(transcript_events)")}
        zstd = "event_zstd" if "event_zstd" in columns else "NULL"
        query = (
            f"SELECT seq, event_json, {zstd} FROM transcript_events "
            "WHERE session_id = ? ORDER BY seq"
        )
        for seq, text, frame in db.execute(query, (session_id,)):
            if text is not None:
                lines.append((seq + 1, text.encode("utf-8", "surrogatepass")))
            elif decompress is not None:
                lines.append((seq + 1, decompress(frame)))
            else:
                unread += 1
    return lines, unread


def corpus_source_digest(session: CorpusSession) -> str:
    return hashlib.sha256(session.path.read_bytes()).hexdigest()


def corpus_trace(session: CorpusSession) -> tuple[list[dict[str, Any]], int]:
    """The corpus session as trace lines, read with loopcfg's transcript reader (07): calls,
    their results (as outcome lines, by call id), compaction retries; the calls of one assistant
    message share a `batch`. Returns the lines and the number of zstd rows left unread."""
    from loopcfg.replay.events import Call, Compaction, Outcome
    from loopcfg.replay.transcript import read_transcript

    unread = 0
    if session.session_id is None:
        numbered = list(enumerate(session.path.read_bytes().split(b"\n"), start=1))
        file = session.path.name
    else:
        numbered, unread = store_lines(session.path, session.session_id)
        file = session.name
    lines: list[dict[str, Any]] = []
    for event in read_transcript(file, iter(numbered)):
        if isinstance(event, Call):
            line: dict[str, Any] = {
                "tool": event.tool,
                "args": event.args,
                "batch": f"m{event.line}",
            }
            if event.call_id is not None:
                line["id"] = event.call_id
            if event.run is not None:
                line["run"] = event.run
            lines.append(line)
        elif isinstance(event, Outcome):
            outcome: dict[str, Any] = {"type": "outcome", "tool": event.tool, "args": event.args}
            if event.error is not None:
                outcome["error"] = event.error
            else:
                outcome["result"] = event.result
            if event.call_id is not None:
                outcome["id"] = event.call_id
            if event.run is not None:
                outcome["run"] = event.run
            lines.append(outcome)
        elif isinstance(event, Compaction):
            lines.append({"type": "compaction", **({"run": event.run} if event.run else {})})
    return lines, unread


def corpus_sessions(root: Path = CORPUS) -> Iterator[tuple[Trace, dict[str, Any]]]:
    """(job for the recorder, key stored with its answer) per corpus session."""
    for session in corpus_sessions_in(root):
        lines, unread = corpus_trace(session)
        key = {
            "id": session.name,
            "sha256": corpus_source_digest(session),
            "calls_total": sum(1 for line in lines if "type" not in line),
        }
        if unread:
            key["zstdRowsUnread"] = unread
        yield {"id": session.name, "config": {"enabled": True}, "lines": lines}, key


# --- loopcfg's side ---------------------------------------------------------------------------


def _detector(version: str, block: dict[str, Any] | None) -> Any:
    from loopcfg.engine import LoopDetector

    try:
        return LoopDetector(block, openclaw=version)  # type: ignore[call-arg]
    except TypeError:  # the engine without generations: E6.5 for every release
        return LoopDetector(block)


def _host_tool(session: Any, tool: str) -> str:
    normalise = getattr(session, "normalize_tool_name", None)
    return normalise(tool) if callable(normalise) else tool


def replay_with_loopcfg(trace: Trace, version: str) -> Answer:
    """Runs the trace through loopcfg's engine with the host steps of the recorder's driver:
    check, refuse a critical, record the call, record its outcome (now or on a later outcome
    line, by call id), arm the guard on a compaction, and skip a run after an abort."""
    from loopcfg.engine import CompactionLoopPersisted
    from loopcfg.hashing import args_hash, outcome_hash

    detector = _detector(version, trace.get("config"))
    sessions: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    aborts: list[dict[str, Any]] = []
    stopped: set[tuple[str, str | None]] = set()
    pending: list[dict[str, Any]] = []
    counters: dict[str, int] = {}

    def norm_run(run: Any) -> str | None:
        return run.strip() or None if isinstance(run, str) else None

    def is_stopped(session: str, run: str | None) -> bool:
        return (session, run) in stopped or (session, "\0all") in stopped

    def record(session: Any, entry: dict[str, Any], line: dict[str, Any], number: int) -> None:
        name = entry["tool"]
        has_result = "result" in line
        try:
            if has_result:
                session.record_outcome(
                    name,
                    line["args"],
                    result=line["result"],
                    run_id=line.get("run"),
                    call_id=entry.get("_id"),
                )
            else:
                session.record_outcome(
                    name,
                    line["args"],
                    error=line["error"],
                    run_id=line.get("run"),
                    call_id=entry.get("_id"),
                )
        except CompactionLoopPersisted as abort:
            key = entry.get("session", "default")
            run = norm_run(line.get("run"))
            aborts.append(
                {
                    "line": number,
                    "run": line.get("run"),
                    "tool": abort.tool,
                    "count": abort.count,
                    "code": abort.code,
                    "message": str(abort),
                }
            )
            stopped.add((key, run if run is not None else "\0all"))
        finally:
            hashed, _ = outcome_hash(name, line["args"], line.get("result"), line.get("error"))
            entry["resultHash"] = hashed

    for number, line in enumerate(trace["lines"], start=1):
        key = line.get("session", "default")
        session = sessions.setdefault(key, detector.session(key))
        run = norm_run(line.get("run"))
        kind = line.get("type")
        if kind == "compaction":
            if not is_stopped(key, run):
                session.compaction_retry(run_id=line.get("run"))
            continue
        if kind == "config":
            continue
        if kind == "outcome":
            match = next(
                (
                    p
                    for p in reversed(pending)
                    if p["session"] == key and p["run"] == run and p.get("_id") == line.get("id")
                ),
                None,
            )
            if match is None or is_stopped(key, run):
                continue
            pending.remove(match)
            record(session, match["entry"], {**line, "run": match["rawRun"]}, number)
            continue
        counters[key] = counters.get(key, 0) + 1
        entry: dict[str, Any] = {"line": number, "call": counters[key]}
        if key != "default":
            entry["session"] = key
        if is_stopped(key, run):
            calls.append({**entry, "skipped": True})
            continue
        tool = _host_tool(session, line["tool"])
        verdict = session.check(tool, line["args"], run_id=line.get("run"))
        entry.update(
            {
                "tool": tool,
                "level": verdict.level,
                "argsHash": args_hash(tool, line["args"]),
                "resultHash": None,
                "_id": line.get("id") or f"loopcfg-call-{number}",
            }
        )
        if verdict.level != "none":
            entry.update(
                detector=verdict.detector,
                count=verdict.count,
                message=verdict.message,
                emitted=verdict.emitted,
            )
        calls.append(entry)
        if verdict.level == "critical":
            entry["blocked"] = True
            if version in VETO_HASHED:
                blocked = session.blocked_result(verdict)
                record(session, entry, {**line, "result": blocked}, number)
            continue
        session.record_call(tool, line["args"], run_id=line.get("run"), call_id=entry["_id"])
        if "result" in line or "error" in line:
            record(session, entry, line, number)
        else:
            pending.append(
                {
                    "session": key,
                    "run": run,
                    "rawRun": line.get("run"),
                    "_id": entry["_id"],
                    "entry": entry,
                }
            )
    for entry in calls:
        entry.pop("_id", None)
    return {"id": trace["id"], "calls": calls, "aborts": aborts}


# --- comparing ------------------------------------------------------------------------------

COMPARED = (
    "skipped",
    "tool",
    "level",
    "detector",
    "count",
    "message",
    "emitted",
    "argsHash",
    "resultHash",
    "blocked",
    "trigger",
    "recovery",
)


@dataclass(frozen=True)
class Difference:
    trace: str
    line: int
    call: int
    kind: str  # a field of COMPARED, "abort", or "missing"
    openclaw: Any
    loopcfg: Any


def expected_emitted(call: Answer) -> Any:
    """What loopcfg should emit: OpenClaw's answer, except where 04 §4.7 deliberately differs."""
    return call.get("loopcfgEmitted", call.get("emitted", False))


def loopcfg_should_answer(openclaw: Answer) -> Answer:
    """OpenClaw's answer with 04 §4.7's deliberate deviation applied: what loopcfg must say."""
    calls = [
        {
            key: value
            for key, value in {**call, "emitted": call["loopcfgEmitted"]}.items()
            if key != "loopcfgEmitted"
        }
        if "loopcfgEmitted" in call
        else call
        for call in openclaw["calls"]
    ]
    return {**openclaw, "calls": calls}


def differences(openclaw: Answer, loopcfg: Answer) -> list[Difference]:
    """Per call, the fields where loopcfg's replay differs from OpenClaw's recorded answer."""
    found: list[Difference] = []
    mine = {(c.get("session", "default"), c["call"]): c for c in loopcfg["calls"]}
    for call in openclaw["calls"]:
        ours = mine.get((call.get("session", "default"), call["call"]))
        if ours is None:
            found.append(
                Difference(openclaw["id"], call["line"], call["call"], "missing", call, None)
            )
            continue
        for field in COMPARED:
            theirs = expected_emitted(call) if field == "emitted" else call.get(field)
            value = ours.get(field)
            if field == "emitted":
                value = value if value is not None else False
                theirs = theirs if theirs is not None else False
            if field in ("blocked", "skipped", "trigger"):
                theirs, value = bool(theirs), bool(value)
            if theirs != value:
                found.append(
                    Difference(openclaw["id"], call["line"], call["call"], field, theirs, value)
                )
    theirs_aborts = [(a["line"], a["code"], a.get("count")) for a in openclaw["aborts"]]
    ours_aborts = [(a["line"], a["code"], a.get("count")) for a in loopcfg["aborts"]]
    if theirs_aborts != ours_aborts:
        line = (theirs_aborts or ours_aborts)[0][0]
        found.append(Difference(openclaw["id"], line, 0, "abort", theirs_aborts, ours_aborts))
    return found
