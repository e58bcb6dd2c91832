"""From replay's PATH arguments to what is replayed (10.5): stores, state directories, their
registry, the sessions chosen with `PATH::SESSION` and `--session`, and what `--list` shows.

Discovery runs once, in the parent process: it opens each store briefly to list its sessions
(no transaction is held) and hands the workers one `StoreSession` per transcript.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from loopcfg.replay.driver import SQLITE_MAGIC
from loopcfg.replay.lines import DEFAULT_MAX_LINE_BYTES, STDIN, decode, loads

# The store modules (and sqlite3) load when a path is a store or may be one: replaying a folder
# of transcripts needs none of them (a sixth of the replay process's start-up instructions).
if TYPE_CHECKING:
    import sqlite3

    from loopcfg.replay.store import SessionRow
    from loopcfg.replay.store_session import AgentFile, StoreSession

STORE_NAME = "openclaw-agent.sqlite"
STATE_DB = os.path.join("state", "openclaw.sqlite")
SEPARATOR = "::"
MIN_PREFIX = 8
PASTED_SEQ = re.compile(r"@\d+$")


@dataclass(frozen=True, slots=True)
class StoreFailure:
    """A store that cannot be read: replayed as a file with this one-line error (exit 2)."""

    db: str
    message: str


@dataclass(slots=True)
class StoreListing:
    """One store's sessions for `--list`."""

    db: str
    agent: str | None
    sessions: list[SessionRow]
    archived: int


@dataclass(slots=True)
class Expansion:
    """What the PATH arguments name, in the order found."""

    inputs: list[str | AgentFile | StoreSession | StoreFailure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    listings: list[StoreListing] = field(default_factory=list)
    # store name -> the OpenClaw release that created or last migrated it (Decision 2).
    app_versions: dict[str, str] = field(default_factory=dict)


class SelectionError(Exception):
    """`--session`/`PATH::SESSION` matched nothing or more than one id: exit 2."""


@dataclass(slots=True)
class Selector:
    """One `--session` or `PATH::SESSION` selection, and where it matched."""

    text: str
    # The argument it was pasted onto (`PATH::SESSION`); None for `--session` (every input).
    argument: int | None
    matched: bool = False
    where: list[str] = field(default_factory=list)

    def applies(self, argument: int) -> bool:
        return self.argument is None or self.argument == argument


def split_argument(argument: str) -> tuple[str, str | None]:
    """`PATH::SESSION` at the first `::`, unless the whole argument is an existing file."""
    if SEPARATOR not in argument or os.path.exists(argument):
        return argument, None
    path, session = argument.split(SEPARATOR, 1)
    return path, session or None


def is_state_dir(path: Path) -> bool:
    return (path / STATE_DB).is_file() or (path / "agents").is_dir()


@dataclass(slots=True)
class _Expander:
    """Turns the PATH arguments into inputs (`Expansion`), one argument at a time."""

    glob: str
    include_bak: bool
    allow_newer: bool
    max_line_bytes: int
    selectors: list[Selector]
    result: Expansion = field(default_factory=Expansion)
    seen: set[tuple[int, int]] = field(default_factory=set)
    argument: int = 0

    # -- arguments ------------------------------------------------------------------------

    def add(self, path: str) -> None:
        if path != STDIN and os.path.isdir(path):
            folder = Path(path)
            if is_state_dir(folder):
                self.state_dir(path)
            else:
                self.folder(path)
        elif path != STDIN and os.path.isfile(path):
            self.file(path)
        else:
            self.jsonl([path])

    def file(self, path: str) -> None:
        if not path.endswith(".sqlite") and not _starts_like_sqlite(path):
            self.jsonl([path])  # a transcript or trace (an unreadable one: the reader says so)
            return
        from loopcfg.replay.store import NotSQLite, read_header

        try:
            read_header(path)
        except NotSQLite as refusal:
            if path.endswith(".sqlite"):
                self.fail(path, str(refusal))
            else:
                self.jsonl([path])
            return
        except OSError:
            self.jsonl([path])  # the file reader reports it
            return
        self.sqlite(path, path, named=True)

    def folder(self, path: str) -> None:
        """Any other directory: its transcripts for `--glob`, and every agent store in it."""
        from loopcfg.replay.parallel import collect_inputs

        self.jsonl(collect_inputs([path], glob=self.glob, include_bak=self.include_bak))
        for store in sorted(Path(path).rglob(STORE_NAME)):
            if store.is_file():
                self.sqlite(str(store), str(store), named=False)

    def state_dir(self, path: str) -> None:
        """The registry's stores, every `agents/*/agent/` store, and the legacy JSONL files of
        `agents/*/sessions/` and `sessions/` (nothing else: workspaces are not transcripts)."""
        from loopcfg.replay.parallel import collect_inputs

        root = Path(path)
        if (root / STATE_DB).is_file():
            self.sqlite(os.path.join(path, STATE_DB), os.path.join(path, STATE_DB), named=True)
        for store in sorted(root.glob(f"agents/*/agent/{STORE_NAME}")):
            if store.is_file():
                self.sqlite(str(store), str(store), named=False)
        for folder in sorted(root.glob("agents/*/sessions")):
            if folder.is_dir():
                found = collect_inputs([str(folder)], glob=self.glob, include_bak=self.include_bak)
                self.jsonl(found, agent=folder.parent.name)
        if (root / "sessions").is_dir():
            legacy = [str(root / "sessions")]
            self.jsonl(collect_inputs(legacy, glob=self.glob, include_bak=self.include_bak))

    # -- stores ---------------------------------------------------------------------------

    def first_visit(self, path: str) -> bool:
        """A store reached twice (named twice, registry plus walk, a symlink) is read once."""
        try:
            stat = os.stat(path)
        except OSError:
            return True
        identity = (stat.st_dev, stat.st_ino)
        if identity in self.seen:
            return False
        self.seen.add(identity)
        return True

    def sqlite(self, path: str, name: str, *, named: bool, agent: str | None = None) -> None:
        import sqlite3

        from loopcfg.replay.store import NotSQLite, StoreError, open_store, sqlite_problem

        if not self.first_visit(path):
            return
        try:
            with open_store(path, name) as store:
                self.result.notes.extend(store.notes)
                self.read_store(store.connection, path, name, named=named, agent=agent)
        except NotSQLite as refusal:
            self.fail(name, str(refusal))
        except StoreError as error:
            self.result.inputs.append(StoreFailure(name, str(error)))
        except sqlite3.Error as error:
            self.fail(name, sqlite_problem(error))

    def read_store(
        self,
        connection: sqlite3.Connection,
        path: str,
        name: str,
        *,
        named: bool,
        agent: str | None,
    ) -> None:
        from loopcfg.replay.store import (
            archived_transcripts,
            check_agent_schema,
            holds_sessions,
            list_sessions,
            no_sessions_message,
            read_meta,
            required_tables_missing,
        )

        meta = read_meta(connection)
        if meta.role == "global":
            self.registry(connection, path, name)
            return
        if meta.role != "agent":
            self.fail(name, "not an OpenClaw agent or state database")
            return
        if not holds_sessions(meta):
            message = no_sessions_message(meta)
            if named:
                self.fail(name, message)
            else:
                self.result.notes.append(f"{name}: note: {message}; skipped")
            return
        self.result.notes.extend(check_agent_schema(meta, name, allow_newer=self.allow_newer))
        missing = required_tables_missing(meta, connection)
        if missing is not None:
            self.fail(name, f"not a readable OpenClaw agent store: {missing}")
            return
        owner = meta.agent_id or agent or _agent_of(path)
        if meta.app_version is not None:
            self.result.app_versions[name] = meta.app_version
        rows = list_sessions(connection, meta)
        chosen = [row for row in rows if self.wanted(name, row, rows)]
        if chosen or len(chosen) == len(rows):  # a store the selection left out is not listed
            archived = archived_transcripts(connection, meta)
            self.result.listings.append(StoreListing(name, owner, chosen, archived))
        if not rows and not named:
            self.result.notes.append(f"{name}: note: no sessions in this store")
        for row in chosen:
            if row.state != "empty":
                self.add_session(path, name, owner, row)

    def add_session(self, path: str, name: str, agent: str | None, row: SessionRow) -> None:
        from loopcfg.replay.store_session import StoreSession

        if row.cold:
            self.result.notes.append(
                f"{name}::{row.session_id}: note: the transcript is read from its cold archive"
            )
        self.result.inputs.append(
            StoreSession(name, path, agent, row, self.allow_newer, self.max_line_bytes)
        )

    def registry(self, connection: sqlite3.Connection, path: str, name: str) -> None:
        """The state database: every store its `agent_databases` table lists (10.1)."""
        import sqlite3

        query = "SELECT agent_id, path FROM agent_databases ORDER BY agent_id, path"
        try:
            rows = connection.execute(query).fetchall()
        except sqlite3.OperationalError:
            self.fail(name, "a state database without an agent_databases table")
            return
        home = _state_home(path)
        shown_home = _state_home(name)
        for agent, registered in rows:
            if not isinstance(registered, str) or not registered:
                continue
            absolute = os.path.isabs(registered)
            store = registered if absolute else os.path.join(home, registered)
            shown = registered if absolute else os.path.join(shown_home, registered)
            if not os.path.isfile(store):
                self.result.notes.append(
                    f"{name}: note: registered store {shown} (agent {agent}) does not exist"
                )
                continue
            self.sqlite(store, shown, named=True, agent=agent if isinstance(agent, str) else None)

    def fail(self, name: str, message: str) -> None:
        self.result.inputs.append(StoreFailure(name, f"{name}: LC000 error: {message}"))

    # -- JSONL and selection ----------------------------------------------------------------

    def jsonl(self, files: Sequence[str], agent: str | None = None) -> None:
        """Transcript or trace files; those of a state dir's agent folder carry its agent."""
        applying = [s for s in self.selectors if s.applies(self.argument)]
        for file in files:
            if applying:
                header = _header_id(file)
                hits = [s for s in applying if header is not None and _id_matches(s.text, header)]
                for selector in hits:
                    selector.matched = True
                if not hits:
                    continue
            self.result.inputs.append(file if agent is None else _agent_file(file, agent))

    def wanted(self, name: str, row: SessionRow, rows: Sequence[SessionRow]) -> bool:
        applying = [s for s in self.selectors if s.applies(self.argument)]
        if not applying:
            return True
        wanted = False
        for selector in applying:
            selector.where.append(name)
            if _row_matches(selector.text, row, rows):
                selector.matched = wanted = True
        return wanted


def _starts_like_sqlite(path: str) -> bool:
    """The file starts with SQLite's magic bytes (False when it cannot be read)."""
    try:
        with open(path, "rb") as stream:
            return stream.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _agent_file(file: str, agent: str) -> AgentFile:
    from loopcfg.replay.store_session import AgentFile

    return AgentFile(file, agent)


def _state_home(db: str) -> str:
    """D for a state database: the parent of its `state/` directory, else its own directory."""
    folder = os.path.dirname(db)
    if os.path.basename(folder) == "state":
        return os.path.dirname(folder)
    return folder


def _agent_of(path: str) -> str | None:
    parts = Path(path).parts
    for index in range(len(parts) - 1):
        if parts[index] == "agents":
            return parts[index + 1]
    return None


def _strip_pasted(selector: str) -> str:
    return PASTED_SEQ.sub("", selector)


def _id_matches(selector: str, session_id: str) -> bool:
    for text in (selector, _strip_pasted(selector)):
        if text == session_id or (len(text) >= MIN_PREFIX and session_id.startswith(text)):
            return True
    return False


def _row_matches(selector: str, row: SessionRow, rows: Sequence[SessionRow]) -> bool:
    """A key exactly, an id exactly, or a prefix (>= 8) of exactly one id; `@<digits>` after
    an id is a pasted location (10.5)."""
    if row.key is not None and selector == row.key:
        return True
    for text in dict.fromkeys((selector, _strip_pasted(selector))):
        if text == row.session_id:
            return True
        if len(text) >= MIN_PREFIX and row.session_id.startswith(text):
            candidates = [r.session_id for r in rows if r.session_id.startswith(text)]
            if len(candidates) > 1:
                raise SelectionError(f"session {selector} is ambiguous: {', '.join(candidates)}")
            return True
    return False


def _header_id(file: str) -> str | None:
    """A JSONL transcript's header id (its first line), or None."""
    if file == STDIN:
        return None
    try:
        with open(file, "rb") as stream:
            first = stream.readline(DEFAULT_MAX_LINE_BYTES)
    except OSError:
        return None
    text = decode(first)
    try:
        value = loads(text) if text else None
    except ValueError:
        return None
    if isinstance(value, dict) and value.get("type") == "session":
        header = value.get("id")
        return header if isinstance(header, str) else None
    return None


def expand_inputs(
    arguments: Sequence[str],
    *,
    sessions: Sequence[str] = (),
    glob: str = "*.jsonl",
    include_bak: bool = False,
    allow_newer: bool = False,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Expansion:
    """Everything the arguments name; raises SelectionError when a session choice fails."""
    split = [split_argument(argument) for argument in arguments]
    selectors = [Selector(text, None) for text in sessions]
    selectors += [Selector(text, index) for index, (_, text) in enumerate(split) if text]
    expander = _Expander(glob, include_bak, allow_newer, max_line_bytes, selectors)
    for index, (path, _) in enumerate(split):
        expander.argument = index
        try:
            expander.add(path)
        except OSError as error:  # an unreadable folder met while walking
            expander.fail(path, f"cannot read: {error.strerror or error}")
    for selector in selectors:
        if not selector.matched:
            where = ", ".join(dict.fromkeys(selector.where)) or ", ".join(p for p, _ in split)
            first = selector.where[0] if selector.where else "PATH"
            raise SelectionError(
                f"no session matches {selector.text} in {where}; "
                f"see `loopcfg replay {first} --list`"
            )
    return expander.result


def release_hints(app_versions: Mapping[str, str], target_version: str | None) -> list[str]:
    """Decision 2: a store's `app_version` never picks the target; when its release line
    differs from the target's (`--openclaw`, else the config's meta.lastTouchedVersion; None:
    unknown, checked as the full-knob line), say how to replay as that release would."""
    from loopcfg.releases import choose_target

    target = choose_target(target_version)
    hints: list[str] = []
    for version, stores in _by_version(app_versions).items():
        if release_line(version) == target.line.id:
            continue
        hints.append(
            f"loopcfg replay: note: {stores[0]} was written by OpenClaw {version}; "
            f"to replay as that release would, add --openclaw {version}"
        )
    return hints


def release_line(version: str) -> str | None:
    """The release line (08 §8.1) of a version, None when the table does not know it."""
    from loopcfg.releases import release_info

    release = release_info(version)
    return release.line.id if release is not None else None


def _by_version(app_versions: Mapping[str, str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for store, version in app_versions.items():
        grouped.setdefault(version, []).append(store)
    return grouped
