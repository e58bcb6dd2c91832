"""The loopcfg trace reader (06 §6.1): one JSON object per line, streamed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from loopcfg.hashing import NO_RESULT
from loopcfg.replay.events import (
    Call,
    Compaction,
    ConfigSwitch,
    Event,
    Malformed,
    Outcome,
)
from loopcfg.replay.lines import (
    UNPARSED,
    NumberedLines,
    decode,
    json_problem,
    loads,
    quick_loads,
)

DEFAULT_SESSION = "default"


class _BadLine(Exception):
    """One line's problem; becomes a Malformed event."""

    def __init__(self, message: str, column: int = 1, code: str = "LC008") -> None:
        super().__init__(message)
        self.column = column
        self.code = code  # LC001: not JSON; LC008: JSON of the wrong shape (decision 7)


def read_trace(file: str, lines: NumberedLines, *, run_scope: bool = True) -> Iterator[Event]:
    """Yield the events of a trace; malformed lines become `Malformed` events.

    Without `run_scope` (`--no-run-scope`) run ids are dropped: each session is one run.
    """
    for number, raw in lines:
        value = quick_loads(raw)
        if value is UNPARSED:
            text = decode(raw)
            if text is None:
                yield Malformed(file, number, 1, "line is not valid UTF-8")
                continue
            stripped = text.strip()
            if not stripped or stripped.startswith("//"):
                continue
            indent = len(text) - len(text.lstrip())
        else:  # orjson took the line as it is: only JSON's whitespace can come before it
            indent = len(raw) - len(raw.lstrip())
        try:
            if value is UNPARSED:
                value = _parsed(stripped, indent)
            yield _event(file, number, value, run_scope, indent)
        except _BadLine as problem:
            yield Malformed(file, number, problem.column, str(problem), code=problem.code)


def _parsed(text: str, indent: int) -> Any:
    try:
        return loads(text)
    except ValueError as error:
        column, reason = json_problem(error, indent)
        raise _BadLine(reason, column, "LC001") from None


def _event(file: str, number: int, value: Any, run_scope: bool, indent: int) -> Event:
    if not isinstance(value, dict):
        raise _BadLine("a trace line must be a JSON object", indent + 1)
    session = _optional_string(value, "session") or DEFAULT_SESSION
    run = _optional_string(value, "run") if run_scope else None
    kind = value.get("type")
    if kind is None:
        return _call(file, number, session, run, value)
    if kind == "outcome":
        return _outcome(file, number, session, run, value)
    if kind == "compaction":
        return Compaction(file, number, session, run)
    if kind == "config":
        agent = value.get("agent")
        if not isinstance(agent, str) or not agent:
            raise _BadLine('a "config" line needs a string "agent"')
        return ConfigSwitch(file, number, session, agent)
    raise _BadLine(f"unknown line type {json.dumps(kind)}")


def _call(file: str, number: int, session: str, run: str | None, value: dict[str, Any]) -> Call:
    tool = _tool(value)
    call_id = _optional_string(value, "id")
    args = value.get("args", {})
    outcome = None
    if "result" in value or "error" in value:
        outcome = Outcome(
            file, number, session, run, tool, args, call_id, _result(value), _error(value)
        )
    batch = _optional_string(value, "batch")
    return Call(file, number, session, run, tool, args, call_id, outcome, batch)


def _outcome(
    file: str, number: int, session: str, run: str | None, value: dict[str, Any]
) -> Outcome:
    if "result" not in value and "error" not in value:
        raise _BadLine('an "outcome" line needs "result" or "error"')
    tool = _tool(value)
    return Outcome(
        file,
        number,
        session,
        run,
        tool,
        value.get("args", {}),
        _optional_string(value, "id"),
        _result(value),
        _error(value),
    )


def _result(value: dict[str, Any]) -> Any:
    """The line's result: `null` is a result (hashed), a missing key is none (04 §4.1)."""
    return value.get("result", NO_RESULT)


def _tool(value: dict[str, Any]) -> str:
    tool = value.get("tool")
    if not isinstance(tool, str) or not tool:
        raise _BadLine('a call line needs a string "tool"')
    return tool


def _error(value: dict[str, Any]) -> str | None:
    error = value.get("error")
    if error is not None and not isinstance(error, str):
        raise _BadLine('"error" must be a string')
    return error


def _optional_string(value: dict[str, Any], key: str) -> str | None:
    field = value.get(key)
    if field is None:
        return None
    if not isinstance(field, str):
        raise _BadLine(f'"{key}" must be a string')
    return field
