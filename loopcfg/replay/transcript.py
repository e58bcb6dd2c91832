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
from loopcfg.replay.lines import (
    ORJSON_MAX_CHARS,
    UNPARSED,
    NumberedLines,
    decode,
    json_problem,
    loads,
    open_binary,
    orjson_loads,
)

GATEWAY_PROVIDER = "openclaw"
RUN_ID_CUSTOM_TYPES = frozenset({"openclaw:prompt-error", "openclaw:bootstrap-context:full"})
# OpenClaw 2026.9.1+ appends this block to a warned call's result after recording its outcome
# (09 §9.4.6): dropped before hashing on every target (README decision 10).
WARNING_NOTE_START = "[System note: Tool-loop warning after "
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
class _State:
    """What the transcript reader keeps between lines: runs, pending calls, run ids."""

    file: str
    options: TranscriptOptions
    session: str
    runs: int = 0
    run: str | None = None
    # Calls waiting for their result, by call id (the result takes their tool, args and run).
    pending: dict[str, Call] = field(default_factory=dict)
    # Line of a compaction not yet known to be a retry or routine (7.2).
    compaction_line: int | None = None
    trajectory_run_id: str | None = None
    # Real run ids bound to run labels, both ways (7.3: one-to-one).
    labels: dict[str, str] = field(default_factory=dict)
    bound: dict[str, str] = field(default_factory=dict)
    # The run of the message being read (`run_of`).
    message_run: str | None = None

    # The state's steps append the events they make to `out` (plain calls: a generator per
    # step and line cost more than the rest of reading most lines).

    def start_run(self, line: int, out: list[Event]) -> None:
        self.runs += 1
        self.run = f"run-{self.runs}" if self.options.run_scope else None
        out.append(RunStart(self.file, line, self.session, self.run))
        if self.trajectory_run_id is not None and self.options.run_scope:
            self.bind(line, self.run, self.trajectory_run_id, out)
            self.trajectory_run_id = None

    def bind(self, line: int, run: str | None, run_id: str, out: list[Event]) -> None:
        """Name `run` by `run_id` unless the id names another run; the first id a run gets is
        its name (the runner keeps the first RunId of a run)."""
        if run is None or self.labels.get(run_id, run) != run:
            return
        if run not in self.bound:
            self.labels[run_id], self.bound[run] = run, run_id
        out.append(RunId(self.file, line, self.session, run, run_id))

    def run_of(self, line: int, run_id: str | None, out: list[Event]) -> None:
        """The run of a message with `__openclaw.runId` (7.3): the label bound to that id, else
        the boundary run if it has no id yet, else a new label; without an id, the boundary
        run. Adds the RunId/RunStart events; the run is left in `self.message_run`."""
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
            self.bind(line, label, run_id, out)
        self.message_run = label

    def agent_work(self, line: int, message: Mapping[str, Any], out: list[Event]) -> None:
        """Agent work (before any user message it still belongs to a run); after a
        compaction, before the next user message, it makes that compaction a retry (of the
        run of that work). The message's run id is read only when it has the private block."""
        if self.runs == 0:
            self.start_run(line, out)
        if "__openclaw" in message:
            self.run_of(line, message_run_id(message), out)
        else:  # every message before 2026.9: the boundary run (`run_of` with no id)
            self.message_run = self.run
        if self.compaction_line is not None:
            out.append(Compaction(self.file, self.compaction_line, self.session, self.message_run))
            self.compaction_line = None


def read_transcript(
    file: str,
    lines: NumberedLines,
    options: TranscriptOptions | None = None,
    *,
    lean: bool = True,
) -> Iterator[Event]:
    """Yield the events of one transcript in file order (or the active branch's entries).

    `lean` reads the two shapes that are nearly every line (a tool result, an assistant
    message) in this loop, without the general path's calls per entry, whenever they need
    nothing but themselves (`_lean_message`); every other line, and every line with
    `--branch`/`--trajectory`, takes the general path (`_entry`). Both give the same events
    (tests/replay/test_replay_readers.py holds them to it); False: the general path only."""
    options = options or TranscriptOptions()
    state = _State(file, options, session=options.session or Path(file).name)
    first = True
    out: list[Event] = []
    branch = options.branch
    lean = lean and branch is None and not options.trajectory
    # `quick_loads`, inlined: a call per line costs more than the test.
    parse, quick_limit = orjson_loads, ORJSON_MAX_CHARS
    for number, raw in lines:
        if len(raw) <= quick_limit:
            try:
                entry = parse(raw)
            except ValueError:
                entry = UNPARSED
        else:
            entry = UNPARSED
        if entry is UNPARSED:
            entry = _careful(file, number, raw)
            if isinstance(entry, Malformed):
                yield entry
                continue
            if entry is UNPARSED:  # a blank line
                continue
        if type(entry) is not dict:
            yield Malformed(
                file, number, 1, "a transcript line must be a JSON object", code="LC008"
            )
            continue
        if first:
            first = False
            if entry.get("type") == "session":
                header_id = entry.get("id")
                if isinstance(header_id, str) and header_id:
                    state.session = header_id
                yield SessionHeader(file, number, state.session)
                continue
        if lean and entry.get("type") == "message":
            message = entry.get("message")
            # Agent work of the current run: no run to start, no compaction waiting to be
            # told a retry, no private block naming a run (`_State.agent_work` does nothing
            # but set the message's run then).
            if (
                type(message) is dict
                and state.runs
                and state.compaction_line is None
                and "__openclaw" not in message
            ):
                role = message.get("role")
                if role == "toolResult":
                    state.message_run = state.run
                    yield _tool_result(state, number, message)
                    continue
                if role == "assistant" and message.get("provider") != GATEWAY_PROVIDER:
                    state.message_run = run = state.run
                    content = message.get("content")
                    if type(content) is not list:
                        continue
                    batch = entry.get("id")
                    if type(batch) is not str:
                        batch = None
                    pending, session = state.pending, state.session
                    for block in content:  # `_tool_calls`
                        if type(block) is not dict or block.get("type") != "toolCall":
                            continue
                        tool = block.get("name")
                        if type(tool) is not str:
                            continue
                        call_id = block.get("id")
                        if type(call_id) is not str:
                            call_id = None
                        call = Call(
                            file, number, session, run, tool, block.get("arguments", {}),
                            call_id, None, batch,
                        )  # fmt: skip
                        if call_id is not None:
                            pending[call_id] = call
                        yield call
                    continue
        if branch is not None and not _on_branch(entry, branch):
            continue
        _entry(state, number, entry, out)
        if out:
            yield from out
            out.clear()


def _careful(file: str, number: int, raw: bytes) -> Any:
    """A line orjson did not take as it is: its value, UNPARSED for a blank line, or the
    Malformed event that reports it."""
    text = decode(raw)
    if text is None:
        return Malformed(file, number, 1, "line is not valid UTF-8")
    if number == 1:  # an editor's byte order mark before the header is not part of it
        text = text.removeprefix("\ufeff")
    if not text.strip():
        return UNPARSED
    try:
        return loads(text)
    except ValueError as error:
        column, reason = json_problem(error)
        return Malformed(file, number, column, reason)


def _on_branch(entry: Mapping[str, Any], branch: frozenset[str]) -> bool:
    entry_id = entry.get("id")
    return not isinstance(entry_id, str) or entry_id in branch


def _entry(state: _State, number: int, entry: dict[str, Any], out: list[Event]) -> None:
    entry_id = entry.get("id")
    trajectory = state.options.trajectory
    if trajectory and isinstance(entry_id, str) and entry_id in trajectory:
        state.trajectory_run_id = trajectory[entry_id]
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if isinstance(message, dict):  # parsed JSON: dict is the only mapping (and no ABC check)
            _message(state, number, message, entry_id, out)
    elif kind == "compaction":
        state.compaction_line = number
    elif kind == "reset":
        state.compaction_line = None
        state.start_run(number, out)
    elif kind == "custom" and _string(entry.get("customType")) in RUN_ID_CUSTOM_TYPES:
        _custom_run_id(state, number, entry.get("data"), out)
    # Everything else (model_change, label, custom bookkeeping, unknown types): skipped.


def _string(value: Any) -> str | None:
    """A field that should be a string; anything else (a list is unhashable) is None."""
    return value if isinstance(value, str) else None


def _custom_run_id(state: _State, number: int, data: Any, out: list[Event]) -> None:
    run_id = data.get("runId") if isinstance(data, Mapping) else None
    if isinstance(run_id, str) and run_id and state.runs and state.options.run_scope:
        state.bind(number, state.run, run_id, out)


def message_run_id(message: Mapping[str, Any]) -> str | None:
    """`__openclaw.runId` (OpenClaw 2026.9+), trimmed; empty means absent (7.1, 7.3)."""
    private = message.get("__openclaw")
    if private is None:  # every message before 2026.9
        return None
    run_id = private.get("runId") if isinstance(private, Mapping) else None
    if not isinstance(run_id, str):
        return None
    return js_trim(run_id) or None


def _message(
    state: _State,
    number: int,
    message: Mapping[str, Any],
    entry_id: Any,
    out: list[Event],
) -> None:
    role = message.get("role")
    if role == "toolResult":
        state.agent_work(number, message, out)
        out.append(_tool_result(state, number, message))
    elif role == "assistant":
        if message.get("provider") == GATEWAY_PROVIDER:
            _gateway_message(state, number, message, out)
        else:
            state.agent_work(number, message, out)
            _tool_calls(state, number, message.get("content"), _string(entry_id), out)
    elif role == "user":
        # A compaction directly followed by a user message is routine maintenance.
        state.compaction_line = None
        state.start_run(number, out)
    # bashExecution (a user-run shell) and unknown roles are not tool calls.


def _gateway_message(
    state: _State, number: int, message: Mapping[str, Any], out: list[Event]
) -> None:
    abort = message.get("openclawAbort")
    run_id = abort.get("runId") if isinstance(abort, Mapping) else None
    if isinstance(run_id, str) and run_id and state.runs and state.options.run_scope:
        state.bind(number, state.run, run_id, out)


def _tool_calls(
    state: _State, number: int, content: Any, batch: str | None, out: list[Event]
) -> None:
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "toolCall":
            continue
        tool = block.get("name")
        if not isinstance(tool, str):
            continue
        args = block.get("arguments", {})
        call_id = block.get("id")
        if not isinstance(call_id, str):
            call_id = None
        call = Call(
            state.file, number, state.session, state.message_run, tool, args, call_id, None, batch
        )
        if call_id is not None:
            state.pending[call_id] = call
        out.append(call)


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
        isinstance(details, dict)
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
            True,
            veto,
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
        False,
        veto,
    )


def without_warning_note(content: Any) -> Any:
    """The content without a trailing 2026.9 warning note (09 §9.4.6)."""
    if not isinstance(content, list) or not content:
        return content
    last = content[-1]
    if (
        (type(last) is dict or isinstance(last, Mapping))
        and last.get("type") == "text"
        and isinstance(last.get("text"), str)
        and last["text"].startswith(WARNING_NOTE_START)
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
