"""The neutral event stream that every reader yields and the runner consumes.

Every event carries the file and the 1-based line it came from, and the session it belongs to,
so that output can always point back at the recording.

The events made for every line (calls, outcomes, runs) are plain slotted dataclasses, not frozen
ones: a frozen dataclass sets each field through `object.__setattr__`, which made building an
event cost several times as much (replay builds one or more per line). No reader or consumer
changes an event after it is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from loopcfg.hashing import NO_RESULT


@dataclass(slots=True)
class Outcome:
    """The result or error of a call; `call_id` pairs it with its call when it arrives alone."""

    file: str
    line: int
    session: str
    run: str | None
    tool: str
    args: Any
    call_id: str | None = None
    # NO_RESULT when the line has none; a JSON null result is None and is hashed (04 §4.4).
    result: Any = NO_RESULT
    error: str | None = None
    # A result whose call was never seen (7.2): recorded alone, never checked.
    orphan: bool = False
    # OpenClaw's own loop veto (7.2): the gateway blocked that call.
    veto: bool = False


@dataclass(slots=True)
class Call:
    """One tool call; `outcome` is set when the line carries its result (trace format)."""

    file: str
    line: int
    session: str
    run: str | None
    tool: str
    args: Any
    call_id: str | None = None
    outcome: Outcome | None = None
    # Calls of one assistant message (transcripts) or one trace `batch` value: admitted
    # together on an E8.1 target (09 §9.4.7). None: a batch of its own.
    batch: str | None = None


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive calls of one batch in one session, admitted as a whole (E8.1 only)."""

    calls: tuple[Call, ...]

    @property
    def session(self) -> str:
        return self.calls[0].session

    @property
    def file(self) -> str:
        return self.calls[0].file

    @property
    def line(self) -> int:
        """The line of the batch's first call (where a batch is located in messages)."""
        return self.calls[0].line


@dataclass(slots=True)
class Compaction:
    """A compaction retry: arms the post-compaction guard of this run."""

    file: str
    line: int
    session: str
    run: str | None


@dataclass(frozen=True, slots=True)
class ConfigSwitch:
    """From here on this session uses `agent`'s resolved config (history kept)."""

    file: str
    line: int
    session: str
    agent: str


@dataclass(slots=True)
class SessionHeader:
    """A transcript's header: the session exists even if it never calls a tool."""

    file: str
    line: int
    session: str


@dataclass(slots=True)
class RunStart:
    """A new run begins (a user message, a reset)."""

    file: str
    line: int
    session: str
    run: str | None


@dataclass(slots=True)
class RunId:
    """The real OpenClaw run id of a run became known (7.3)."""

    file: str
    line: int
    session: str
    run: str | None
    run_id: str


@dataclass(frozen=True, slots=True)
class Malformed:
    """A line that could not be read; reported and skipped (or fatal with --strict). README
    decision 7: LC001 when it is not UTF-8, not JSON or too long to read; LC008 when it is JSON
    but not an object of the expected shape."""

    file: str
    line: int
    column: int
    message: str
    code: str = "LC001"
    # A store row's `<db>::<sessionId>@<seq>` (10.5); None for file lines (`file:line:col`).
    location: str | None = None

    def render(self) -> str:
        if self.location is None:
            return f"{self.file}:{self.line}:{self.column}: {self.code} error: {self.message}"
        column = f" (column {self.column})" if self.column > 0 else ""
        return f"{self.location}: {self.code} error: {self.message}{column}"


Event: TypeAlias = (
    Call
    | Batch
    | Outcome
    | Compaction
    | ConfigSwitch
    | SessionHeader
    | RunStart
    | RunId
    | Malformed
)


class OutputFailed(Exception):
    """Writing the output failed (a closed or full stream). Not a problem of the file being
    replayed: it passes through a file's own error handling and stops the run."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.error = error


class ReadError(Exception):
    """The input cannot be read at all (missing file, not UTF-8, bad header): exit 2."""

    def __init__(self, file: str, message: str) -> None:
        super().__init__(f"{file}: LC000 error: {message}")
        self.file = file
