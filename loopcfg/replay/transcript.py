"""The OpenClaw session transcript reader (07), versions 1 and 3, streamed line by line.

It turns transcript entries into the neutral events: tool calls, their results paired by call
id, compaction retries (7.2), runs (7.3). Only pending calls are held in memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopcfg.hashing import js_trim
from loopcfg.replay.events import (
    Call,
    Compaction,
    Event,
    Malformed,
    Outcome,
    RunId,
    RunStart,
    SessionHeader,
)
from loopcfg.replay.lines import NumberedLines, decode, json_problem, loads, open_binary

GATEWAY_PROVIDER = "openclaw"
RUN_ID_CUSTOM_TYPES = frozenset({"openclaw:prompt-error", "openclaw:bootstrap-context:full"})
# OpenClaw 2026.9.1+ appends this block to a warned call's result after recording its outcome
# (09 §9.4.6): dropped before hashing on every target (README decision 10).
WARNING_NOTE = re.compile(
    r"\[System note: Tool-loop warning after \d+ repeated calls\. Change your approach or stop "
    r"if you are not making progress\.\]"
)


@dataclass(frozen=True, slots=True)
class TranscriptOptions:
    """How runs are scoped and which entries are replayed."""

    run_scope: bool = True
    # Entry ids on the active branch (`--branch active`); None replays every entry.
    branch: frozenset[str] | None = None
    # Transcript entry id a run started from -> its real run id (`--trajectory`).
    trajectory: Mapping[str, str] = field(default_factory=dict)
    # The session's name until a header names it (a store passes the session id); None: the
    # file's name.
    session: str | None = None


@dataclass(slots=True)
class _Pending:
    tool: str
    args: Any
    run: str | None


@dataclass(slots=True)
class _State:
    file: str
    options: TranscriptOptions
    session: str
    runs: int = 0
    run: str | None = None
    pending: dict[str, _Pending] = field(default_factory=dict)
    # Line of a compaction not yet known to be a retry or routine (7.2).
    compaction_line: int | None = None
    trajectory_run_id: str | None = None
    # Real run ids bound to run labels, both ways (7.3: one-to-one).
    labels: dict[str, str] = field(default_factory=dict)
    bound: dict[str, str] = field(default_factory=dict)
    # The run of the message being read (`run_of`).
    message_run: str | None = None

    def start_run(self, line: int) -> Iterator[Event]:
        self.runs += 1
        self.run = f"run-{self.runs}" if self.options.run_scope else None
        yield RunStart(self.file, line, self.session, self.run)
        if self.trajectory_run_id is not None and self.options.run_scope:
            yield from self.bind(line, self.run, self.trajectory_run_id)
            self.trajectory_run_id = None

    def bind(self, line: int, run: str | None, run_id: str) -> Iterator[Event]:
        """Name `run` by `run_id` unless the id names another run; the first id a run gets is
        its name (the runner keeps the first RunId of a run)."""
        if run is None or self.labels.get(run_id, run) != run:
            return
        if run not in self.bound:
            self.labels[run_id], self.bound[run] = run, run_id
        yield RunId(self.file, line, self.session, run, run_id)

    def run_of(self, line: int, run_id: str | None) -> Iterator[Event]:
        """The run of a message with `__openclaw.runId` (7.3): the label bound to that id, else
        the boundary run if it has no id yet, else a new label; without an id, the boundary
        run. Yields the RunId/RunStart events; the run is left in `self.message_run`."""
        self.message_run = self.run
        if run_id is None or not self.options.run_scope or self.run is None:
            return
        label = self.labels.get(run_id)
        if label is None and self.run not in self.bound:
            label = self.run
        if label is None:
            self.runs += 1
            label = f"run-{self.runs}"
        if self.bound.get(label) != run_id:  # a new binding: name the run once
            yield from self.bind(line, label, run_id)
        self.message_run = label

    def ensure_run(self, line: int) -> Iterator[Event]:
        """Agent work before any user message still belongs to a run."""
        if self.runs == 0:
            yield from self.start_run(line)

    def agent_work(self, line: int, run_id: str | None = None) -> Iterator[Event]:
        """Agent work after a compaction, before the next user message: a retry (of the run
        of that work)."""
        yield from self.ensure_run(line)
        yield from self.run_of(line, run_id)
        if self.compaction_line is not None:
            yield Compaction(self.file, self.compaction_line, self.session, self.message_run)
            self.compaction_line = None


def read_transcript(
    file: str, lines: NumberedLines, options: TranscriptOptions | None = None
) -> Iterator[Event]:
    """Yield the events of one transcript in file order (or the active branch's entries)."""
    options = options or TranscriptOptions()
    state = _State(file, options, session=options.session or Path(file).name)
    first = True
    for number, raw in lines:
        text = decode(raw)
        if text is None:
            yield Malformed(file, number, 1, "line is not valid UTF-8")
            continue
        if number == 1:  # an editor's byte order mark before the header is not part of it
            text = text.removeprefix("\ufeff")
        if not text.strip():
            continue
        try:
            entry = loads(text)
        except ValueError as error:
            column, reason = json_problem(error)
            yield Malformed(file, number, column, reason)
            continue
        if not isinstance(entry, dict):
            yield Malformed(
                file, number, 1, "a transcript line must be a JSON object", code="LC008"
            )
            continue
        header, first = first and entry.get("type") == "session", False
        if header:
            header_id = entry.get("id")
            if isinstance(header_id, str) and header_id:
                state.session = header_id
            yield SessionHeader(file, number, state.session)
            continue
        if not _on_branch(entry, options.branch):
            continue
        yield from _entry(state, number, entry)


def _on_branch(entry: Mapping[str, Any], branch: frozenset[str] | None) -> bool:
    if branch is None:
        return True
    entry_id = entry.get("id")
    return not isinstance(entry_id, str) or entry_id in branch


def _entry(state: _State, number: int, entry: Mapping[str, Any]) -> Iterator[Event]:
    entry_id = entry.get("id")
    if isinstance(entry_id, str) and entry_id in state.options.trajectory:
        state.trajectory_run_id = state.options.trajectory[entry_id]
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if isinstance(message, Mapping):
            yield from _message(state, number, message, _string(entry_id))
    elif kind == "compaction":
        state.compaction_line = number
    elif kind == "reset":
        state.compaction_line = None
        yield from state.start_run(number)
    elif kind == "custom" and _string(entry.get("customType")) in RUN_ID_CUSTOM_TYPES:
        yield from _custom_run_id(state, number, entry.get("data"))
    # Everything else (model_change, label, custom bookkeeping, unknown types): skipped.


def _string(value: Any) -> str | None:
    """A field that should be a string; anything else (a list is unhashable) is None."""
    return value if isinstance(value, str) else None


def _custom_run_id(state: _State, number: int, data: Any) -> Iterator[Event]:
    run_id = data.get("runId") if isinstance(data, Mapping) else None
    if isinstance(run_id, str) and run_id and state.runs and state.options.run_scope:
        yield from state.bind(number, state.run, run_id)


def message_run_id(message: Mapping[str, Any]) -> str | None:
    """`__openclaw.runId` (OpenClaw 2026.9+), trimmed; empty means absent (7.1, 7.3)."""
    private = message.get("__openclaw")
    run_id = private.get("runId") if isinstance(private, Mapping) else None
    if not isinstance(run_id, str):
        return None
    return js_trim(run_id) or None


def _message(
    state: _State, number: int, message: Mapping[str, Any], entry_id: str | None = None
) -> Iterator[Event]:
    role = message.get("role")
    if role == "user":
        # A compaction directly followed by a user message is routine maintenance.
        state.compaction_line = None
        yield from state.start_run(number)
    elif role == "assistant":
        if message.get("provider") == GATEWAY_PROVIDER:
            yield from _gateway_message(state, number, message)
        else:
            yield from state.agent_work(number, message_run_id(message))
            yield from _tool_calls(state, number, message.get("content"), entry_id)
    elif role == "toolResult":
        yield from state.agent_work(number, message_run_id(message))
        yield _tool_result(state, number, message)
    # bashExecution (a user-run shell) and unknown roles are not tool calls.


def _gateway_message(state: _State, number: int, message: Mapping[str, Any]) -> Iterator[Event]:
    abort = message.get("openclawAbort")
    run_id = abort.get("runId") if isinstance(abort, Mapping) else None
    if isinstance(run_id, str) and run_id and state.runs and state.options.run_scope:
        yield from state.bind(number, state.run, run_id)


def _tool_calls(
    state: _State, number: int, content: Any, batch: str | None = None
) -> Iterator[Event]:
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") != "toolCall":
            continue
        tool = block.get("name")
        if not isinstance(tool, str):
            continue
        args = block.get("arguments", {})
        call_id = block.get("id") if isinstance(block.get("id"), str) else None
        run = state.message_run
        if call_id is not None:
            state.pending[call_id] = _Pending(tool, args, run)
        yield Call(state.file, number, state.session, run, tool, args, call_id, batch=batch)


def _tool_result(state: _State, number: int, message: Mapping[str, Any]) -> Outcome:
    call_id = message.get("toolCallId")
    call_id = call_id if isinstance(call_id, str) else None
    pending = state.pending.pop(call_id, None) if call_id is not None else None
    content = without_warning_note(message.get("content"))
    details = message.get("details")
    error = result = None
    if message.get("isError") is True:
        error = joined_text(content)
    else:
        result = {"content": content}
        if details is not None:
            result["details"] = details
    veto = (
        isinstance(details, Mapping)
        and details.get("status") == "blocked"
        and details.get("deniedReason") == "tool-loop"
    )
    if pending is None:
        tool = message.get("toolName")
        return Outcome(
            state.file,
            number,
            state.session,
            state.message_run,
            tool if isinstance(tool, str) else "unknown",
            None,
            call_id,
            result,
            error,
            orphan=True,
            veto=veto,
        )
    return Outcome(
        state.file,
        number,
        state.session,
        pending.run,
        pending.tool,
        pending.args,
        call_id,
        result,
        error,
        veto=veto,
    )


def without_warning_note(content: Any) -> Any:
    """The content without a trailing 2026.9 warning note (09 §9.4.6)."""
    if not isinstance(content, list) or not content:
        return content
    last = content[-1]
    if (
        isinstance(last, Mapping)
        and last.get("type") == "text"
        and isinstance(last.get("text"), str)
        and WARNING_NOTE.fullmatch(last["text"])
    ):
        return content[:-1]
    return content


def joined_text(content: Any) -> str:
    """The text blocks of a tool result, joined by newlines (the thrown-error convention)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [
        block["text"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts)


def active_branch(path: str) -> frozenset[str] | None:
    """First pass of `--branch active`: the ids from the last entry up to the root.

    Returns None for files without entry ids (v1), where file order is the only order.
    """
    parents: dict[str, str | None] = {}
    last: str | None = None
    with open_binary(path) as stream:
        for raw in stream:
            entry = _loads(raw)
            if entry is None or entry.get("type") == "session":
                continue
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                parent = entry.get("parentId")
                parents[entry_id] = parent if isinstance(parent, str) else None
                last = entry_id
    if last is None:
        return None
    branch: set[str] = set()
    node: str | None = last
    while node is not None and node not in branch:
        branch.add(node)
        node = parents.get(node)
    return frozenset(branch)


def trajectory_run_ids(path: str) -> dict[str, str]:
    """`--trajectory`: transcript leaf id a run started from -> that run's real id."""
    mapping: dict[str, str] = {}
    with open_binary(path) as stream:
        for raw in stream:
            event = _loads(raw)
            if event is None or event.get("type") != "context.compiled":
                continue
            data = event.get("data")
            leaf = data.get("transcriptLeafId") if isinstance(data, Mapping) else None
            run_id = event.get("runId")
            if isinstance(leaf, str) and isinstance(run_id, str) and run_id:
                mapping[leaf] = run_id
    return mapping


def _loads(raw: bytes) -> dict[str, Any] | None:
    text = decode(raw)
    if text is None:
        return None
    try:
        value = loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
