"""Which files to replay, and replaying them across processes in deterministic order."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from loopcfg.replay.driver import ReplayOptions, replay_file
from loopcfg.replay.events import OutputFailed, ReadError
from loopcfg.replay.lines import STDIN
from loopcfg.replay.runner import FileReplay, ReplaySink

if TYPE_CHECKING:
    from loopcfg.replay.store_inputs import StoreFailure
    from loopcfg.replay.store_session import AgentFile, StoreSession

    # A file (or stdin), a state dir's transcript of a known agent, one session of an OpenClaw
    # store, or a store that cannot be read.
    ReplayInput = str | AgentFile | StoreSession | StoreFailure
else:
    ReplayInput = object

TRAJECTORY_SUFFIX = ".trajectory.jsonl"
BACKUP_MARK = ".bak-"


def collect_inputs(
    paths: Sequence[str], *, glob: str = "*.jsonl", include_bak: bool = False
) -> list[str]:
    """Named files as given; folders walked (sorted) for `glob`, without backups and sidecars.

    A `.bak-*` copy is a prefix of the live file, so replaying both double-counts (07).
    """
    files: list[str] = []
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            files.extend(_walk(Path(path), glob, include_bak))
        else:
            files.append(path)
    return files


def _walk(folder: Path, glob: str, include_bak: bool) -> Iterator[str]:
    for candidate in sorted(folder.rglob("*")):
        if candidate.is_file() and _wanted(candidate.name, glob, include_bak):
            yield str(candidate)


def _wanted(name: str, glob: str, include_bak: bool) -> bool:
    """`glob` matches; sidecars never; a `<name>.bak-<time>` copy only with `include_bak`,
    when `glob` matches it or the name it copies (`s.jsonl.bak-1` for `*.jsonl`)."""
    if name.endswith(TRAJECTORY_SUFFIX):
        return False
    if BACKUP_MARK in name:
        copied = name.split(BACKUP_MARK, 1)[0]
        return include_bak and (fnmatch.fnmatch(name, glob) or fnmatch.fnmatch(copied, glob))
    return fnmatch.fnmatch(name, glob)


def safe_replay(
    path: ReplayInput,
    options: ReplayOptions,
    on_bytes: Callable[[int], None] | None = None,
    sink: ReplaySink | None = None,
) -> FileReplay:
    """Never raises: an unreadable file becomes a result carrying its one-line error."""
    if not isinstance(path, str):
        return _safe_store_replay(path, options)
    try:
        return replay_file(path, options, on_bytes, sink)
    except ReadError as error:
        return FileReplay(path, error=str(error))
    except OutputFailed:  # the output's problem, not this file's: the run stops
        raise
    except Exception as error:  # no traceback may reach a user
        return FileReplay(path, error=f"{path}: LC000 error: cannot replay: {error}")


def _safe_store_replay(
    item: AgentFile | StoreSession | StoreFailure, options: ReplayOptions
) -> FileReplay:
    from loopcfg.replay.store_inputs import StoreFailure
    from loopcfg.replay.store_session import AgentFile, replay_agent_file, replay_store_session

    if isinstance(item, StoreFailure):
        return FileReplay(item.db, error=item.message)
    if isinstance(item, AgentFile):
        try:
            return replay_agent_file(item, options)
        except ReadError as error:
            return FileReplay(item.path, error=str(error))
        except Exception as error:  # no traceback may reach a user
            return FileReplay(item.path, error=f"{item.path}: LC000 error: cannot replay: {error}")
    try:
        return replay_store_session(item, options)
    except ReadError as error:
        return FileReplay(item.db, error=str(error))
    except Exception as error:  # no traceback may reach a user
        return FileReplay(item.db, error=f"{item.where}: LC000 error: cannot replay: {error}")


Progress = Callable[[int, int], None]


def input_size(path: ReplayInput) -> int:
    """Bytes to read from `path` (0 for stdin or when unknown): the progress bar's unit."""
    path = getattr(path, "path", path) if not isinstance(path, str) else path
    if not isinstance(path, str) or path == STDIN:
        return 0
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def replay_files(
    files: Sequence[ReplayInput],
    options: ReplayOptions,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[FileReplay]:
    """Replay every file and keep what each found; results in input order whatever `jobs`."""
    return list(iter_replays(files, options, jobs=jobs, progress=progress))


def stream_replays(
    files: Sequence[ReplayInput],
    options: ReplayOptions,
    sink: ReplaySink,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    on_file: Callable[[FileReplay], None] | None = None,
) -> None:
    """Replay every file into `sink` in input order; `on_file` gets each file's result (its
    counts and error) when the file is done, and nothing of it is kept here.

    In this process the sink sees everything as it is found. A worker process keeps one
    file's findings and the sink gets them when that file is done, then they are dropped.
    """
    for result in iter_replays(files, options, jobs=jobs, progress=progress, sink=sink):
        result.feed(sink)
        if on_file is not None:
            on_file(result.counts_only())


def iter_replays(
    files: Sequence[ReplayInput],
    options: ReplayOptions,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    sink: ReplaySink | None = None,
) -> Iterator[FileReplay]:
    """Each file's result in input order, as soon as it and those before it are done.

    `progress(done, total)` counts bytes: within a file when replaying in this process (so a
    single huge file moves the bar too), per finished file across worker processes. A `sink`
    is used only in this process (workers cannot write to it).
    """
    report = progress or (lambda done, total: None)
    sizes = [input_size(path) for path in files]
    total = sum(sizes)
    done = 0
    if jobs <= 1 or len(files) <= 1 or STDIN in files:
        for path, size in zip(files, sizes, strict=True):

            def within(read: int, base: int = done, cap: int = size) -> None:
                report(base + min(read, cap or read), total)

            yield safe_replay(path, options, within if progress else None, sink)
            done += size
            report(done, total)
        return
    # Imported here: concurrent.futures.process brings multiprocessing (tens of ms at start),
    # which a replay in this process never uses.
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
        for size, result in zip(
            sizes, pool.map(safe_replay, files, [options] * len(files)), strict=True
        ):
            done += size
            report(done, total)
            yield result


def default_jobs() -> int:
    return os.cpu_count() or 1


PROGRESS_MIN_BYTES = 8 << 20
BAR_WIDTH = 30


def tty_progress(
    total_bytes: int, stream: TextIO | None = None, label: str = "replay"
) -> Progress | None:
    """A progress bar on `stream` (stderr), only on a tty and only for large inputs."""
    out = stream if stream is not None else sys.stderr
    if total_bytes < PROGRESS_MIN_BYTES or not out.isatty():
        return None
    shown = -1

    def show(done: int, total: int) -> None:
        nonlocal shown
        percent = 100 * done // total if total else 100
        if percent == shown:
            return
        shown = percent
        filled = BAR_WIDTH * percent // 100
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        megabytes = f"{done / 1e6:.1f}/{total / 1e6:.1f} MB"
        end = "\n" if percent >= 100 else ""
        out.write(f"\r{label} [{bar}] {percent:3d}% {megabytes}{end}")
        out.flush()

    return show
