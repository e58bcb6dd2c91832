"""Which files to replay, and replaying them across processes in deterministic order."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from loopcfg.replay.driver import ReplayOptions, replay_file
from loopcfg.replay.events import ReadError
from loopcfg.replay.lines import STDIN
from loopcfg.replay.runner import FileReplay

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
        name = candidate.name
        if not candidate.is_file() or not fnmatch.fnmatch(name, glob):
            continue
        if name.endswith(TRAJECTORY_SUFFIX):
            continue
        if BACKUP_MARK in name and not include_bak:
            continue
        yield str(candidate)


def safe_replay(path: str, options: ReplayOptions) -> FileReplay:
    """Never raises: an unreadable file becomes a result carrying its one-line error."""
    try:
        return replay_file(path, options)
    except ReadError as error:
        return FileReplay(path, error=str(error))
    except Exception as error:  # no traceback may reach a user
        return FileReplay(path, error=f"{path}: LC000 error: cannot replay: {error}")


def replay_files(
    files: Sequence[str],
    options: ReplayOptions,
    *,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> list[FileReplay]:
    """Replay every file; results in input order whatever the number of jobs."""
    report = progress or (lambda done, total: None)
    if jobs <= 1 or len(files) <= 1 or STDIN in files:
        results = []
        for index, path in enumerate(files, start=1):
            results.append(safe_replay(path, options))
            report(index, len(files))
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = []
        for index, result in enumerate(pool.map(safe_replay, files, [options] * len(files))):
            results.append(result)
            report(index + 1, len(files))
        return results


def default_jobs() -> int:
    return os.cpu_count() or 1


def tty_progress(total_files: int) -> Callable[[int, int], None] | None:
    """A progress bar on stderr, only on a tty and only when there is something to wait for."""
    if total_files < 2 or not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // total
        bar = "#" * filled + "." * (width - filled)
        end = "\n" if done == total else ""
        sys.stderr.write(f"\rreplay [{bar}] {done}/{total} files{end}")
        sys.stderr.flush()

    return show
