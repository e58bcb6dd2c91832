"""`replay --scheduler`: replay files on a Dask cluster (`distributed`, the `dask` extra).

The cluster gets paths, never file contents: each task runs `replay_task(path, options)`, a
pure function of the file and the options, on a worker that can read that path (a shared
volume, the same machine with `local:N`). The options carry the config resolved once here;
they are scattered to the workers once, not sent with every task. Results come back as the
same `FileReplay` values `--jobs` produces and are handed to the sink in input order, so the
output is byte for byte the output of `--jobs 1`. A task that fails (its worker died, the
file vanished in between) becomes that file's one-line error and the run goes on.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from loopcfg.replay.driver import ReplayOptions
from loopcfg.replay.parallel import Progress, ReplayInput, input_size, safe_replay
from loopcfg.replay.runner import FileReplay, ReplaySink

INSTALL_HINT = "--scheduler needs Dask's distributed package: pip install 'loopcfg[dask]'"
LOCAL_PREFIX = "local:"
Task = Callable[[ReplayInput, ReplayOptions], FileReplay]


class SchedulerError(Exception):
    """A one-line problem with --scheduler (not installed, bad address, unreachable): exit 2."""


def replay_task(path: ReplayInput, options: ReplayOptions) -> FileReplay:
    """What a worker runs for one file: the same replay as `--jobs`, never raising."""
    return safe_replay(path, options)


def parse_scheduler(value: str) -> tuple[str, int | None]:
    """("local", N) for `local:N`, (address, None) for a scheduler address."""
    if value.startswith(LOCAL_PREFIX):
        count = value[len(LOCAL_PREFIX) :]
        if not count.isdigit() or int(count) < 1:
            raise SchedulerError(f"--scheduler {value}: local:N needs a number of workers >= 1")
        return "local", int(count)
    if "://" not in value:
        raise SchedulerError(
            f"--scheduler {value}: expected tcp://HOST:PORT (a Dask scheduler) or local:N"
        )
    return value, None


def check_installed() -> Any:
    """The `distributed` module (typed Any: much of its API is untyped)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise SchedulerError(INSTALL_HINT) from None


@contextmanager
def connect(scheduler: str) -> Iterator[Any]:
    """A `distributed.Client` for `scheduler`, and the local cluster it needs (closed after)."""
    distributed = check_installed()
    address, workers = parse_scheduler(scheduler)
    # Dask logs every worker start and stop at INFO; a replay's stderr is for its findings.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    cluster = None
    try:
        if workers is not None:
            cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = distributed.Client(cluster)
        else:
            client = distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError) as error:
        if cluster is not None:
            cluster.close()
        raise SchedulerError(f"--scheduler {scheduler}: cannot connect: {error}") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def dask_replays(
    files: Sequence[ReplayInput],
    options: ReplayOptions,
    client: Any,
    *,
    progress: Progress | None = None,
    task: Task = replay_task,
) -> Iterator[FileReplay]:
    """Each file's result in input order; `progress(done, total)` counts the bytes of files
    whose futures finished, in whatever order they finish."""
    as_completed = check_installed().as_completed
    shipped = client.scatter(options, broadcast=True)
    futures = client.map(task, list(files), options=shipped, pure=False)
    index = {future.key: position for position, future in enumerate(futures)}
    sizes = [input_size(path) for path in files]
    total, done = sum(sizes), 0
    ready: dict[int, FileReplay] = {}
    next_up = 0
    for future in as_completed(futures):
        position = index[future.key]
        ready[position] = _result(files[position], future)
        done += sizes[position]
        if progress is not None:
            progress(done, total)
        while next_up in ready:
            yield ready.pop(next_up)
            next_up += 1


def _result(item: ReplayInput, future: Any) -> FileReplay:
    """The task's result, or the file's one-line error when the task itself failed."""
    if future.status == "finished":
        result: FileReplay = future.result()
        return result
    try:
        error = future.exception()
    except Exception as problem:  # a cancelled future has no exception to give
        error = problem
    reason = str(error) or type(error).__name__
    path = item if isinstance(item, str) else str(getattr(item, "path", getattr(item, "db", item)))
    return FileReplay(path, error=f"{path}: LC000 error: replay task failed on Dask: {reason}")


def stream_on_dask(
    files: Sequence[ReplayInput],
    options: ReplayOptions,
    sink: ReplaySink,
    scheduler: str,
    *,
    progress: Progress | None = None,
    on_file: Callable[[FileReplay], None] | None = None,
) -> None:
    """`parallel.stream_replays` with the files replayed on the cluster at `scheduler`."""
    with connect(scheduler) as client:
        for result in dask_replays(files, options, client, progress=progress):
            result.feed(sink)
            if on_file is not None:
                on_file(result.counts_only())
