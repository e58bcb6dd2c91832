"""Helpers for the replay tests: read a fixture into events, a scripted engine double."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopcfg.replay.events import Event
from loopcfg.replay.lines import detect_format
from loopcfg.replay.trace import read_trace
from loopcfg.replay.transcript import TranscriptOptions, read_transcript
from tests.golden import assert_golden

DATA = Path(__file__).parent / "data"


def lines_of(text: str) -> Iterable[tuple[int, bytes]]:
    return enumerate(text.encode("utf-8").splitlines(keepends=True), start=1)


def jsonl(*entries: Any) -> str:
    return "".join(json.dumps(entry) + "\n" for entry in entries)


def read_file(path: Path, options: TranscriptOptions | None = None) -> list[Event]:
    with path.open("rb") as stream:
        fmt, lines = detect_format(iter(enumerate(stream, start=1)))
        if fmt == "trace":
            return list(read_trace(path.name, lines))
        return list(read_transcript(path.name, lines, options))


def check_golden(name: str, text: str) -> None:
    """Compare with tests/golden/replay/NAME; LOOPCFG_UPDATE_GOLDEN=1 rewrites it."""
    assert_golden(f"replay/{name}", text)


@dataclass
class FakeVerdict:
    level: str = "none"
    detector: str | None = None
    count: int = 0
    message: str = ""
    warning_key: str | None = None
    emitted: bool = True


@dataclass
class FakeHandle:
    verdict: FakeVerdict


class FakeAbort(Exception):
    code = "compaction_loop_persisted"

    def __init__(self, tool: str) -> None:
        super().__init__(f"CRITICAL: tool {tool} repeated")
        self.tool = tool
        self.count = 3


@dataclass
class ScriptedSession:
    """Engine double: `block*` tools are critical, `warn*` warned, result "ABORT" aborts."""

    log: list[tuple[Any, ...]] = field(default_factory=list)
    armed: bool = False

    def check(self, tool: str, args: Any, *, run_id: str | None = None) -> FakeVerdict:
        self.log.append(("check", tool, run_id))
        if tool.startswith("block"):
            return FakeVerdict("critical", "generic_repeat", 20, "CRITICAL: x", "k")
        if tool.startswith("warn"):
            return FakeVerdict("warning", "generic_repeat", 10, "WARNING: x", "k", tool != "warnq")
        return FakeVerdict()

    def record_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        self.log.append(("call", tool, run_id, call_id))

    def before_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> FakeHandle:
        """The engine's two steps in one, logged as the two."""
        verdict = self.check(tool, args, run_id=run_id)
        if verdict.level != "critical":
            self.record_call(tool, args, run_id=run_id, call_id=call_id)
        return FakeHandle(verdict)

    def record_outcome(
        self,
        tool: str,
        args: Any,
        *,
        result: Any = None,
        error: Any = None,
        run_id: str | None = None,
        call_id: str | None = None,
    ) -> None:
        self.log.append(("outcome", tool, run_id, call_id, result, error))
        if result == "ABORT" and self.armed:
            raise FakeAbort(tool)

    def forget_call(
        self, tool: str, args: Any, *, run_id: str | None = None, call_id: str | None = None
    ) -> None:
        self.log.append(("forget", tool, run_id, call_id))

    def compaction_retry(self, *, run_id: str | None = None) -> None:
        self.log.append(("compaction", run_id))
        self.armed = True

    def reconfigure(self, settings: Any) -> None:
        self.log.append(("reconfigure", settings))


@dataclass
class ScriptedSessions:
    """One scripted session per key; `settings(agent)` is just the agent's name."""

    sessions: dict[str, ScriptedSession] = field(default_factory=dict)

    def session(self, key: str) -> ScriptedSession:
        return self.sessions.setdefault(key, ScriptedSession())

    def settings(self, agent: str) -> Any:
        return f"settings of {agent}"
