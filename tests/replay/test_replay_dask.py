"""`replay --scheduler` on a real `distributed.LocalCluster` of two worker processes: paths go
out, results come back in input order, byte-identical to `--jobs 1`; a failing task is that
file's error and the run goes on. The cluster is started once for the module."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.replay.dask_backend import (
    INSTALL_HINT,
    SchedulerError,
    dask_replays,
    parse_scheduler,
    replay_task,
)
from loopcfg.replay.driver import ReplayOptions
from tests.conftest import EXAMPLES

from .helpers import DATA

REPLAY = EXAMPLES / "replay"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client


def inputs(tmp_path: Path) -> list[str]:
    """Transcripts, traces, a file of garbage and a missing file, as absolute paths (the
    workers read them from their own working directory)."""
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n")
    files = [
        *sorted(str(p) for p in REPLAY.glob("*.jsonl")),
        str(REPLAY / "fetch-retry.trace"),
        *sorted(str(p) for p in DATA.glob("*.jsonl")),
        str(garbage),
        str(tmp_path / "missing.jsonl"),
    ]
    return files


def run(*args: str) -> Any:
    result = CliRunner().invoke(cli, ["replay", *args])
    assert "Traceback" not in result.stderr
    return result


@pytest.mark.parametrize("output", ["text", "json"])
def test_byte_identical_to_one_job(cluster: Any, tmp_path: Path, output: str) -> None:
    files = inputs(tmp_path)
    config = str(REPLAY / "current.json5")
    common = [*files, "--config", config, "--format", output, "--stats"]
    local = run(*common, "--jobs", "1")
    on_dask = run(*common, "--scheduler", cluster.scheduler.address)
    assert on_dask.stdout == local.stdout
    assert on_dask.stderr == local.stderr
    assert on_dask.exit_code == local.exit_code == 2  # the garbage and the missing file
    assert "missing.jsonl: LC000 error: cannot read" in on_dask.stderr
    if output == "json":
        assert len(json.loads(on_dask.stdout)["sessions"]) > 4


def test_a_failing_task_is_that_files_error(cluster: Any, tmp_path: Path) -> None:
    files = inputs(tmp_path)[:3]

    def task(path: str, options: ReplayOptions) -> Any:
        if path == files[1]:
            raise RuntimeError("worker lost its disk")
        return replay_task(path, options)

    seen: list[tuple[int, int]] = []
    results = list(
        dask_replays(
            files, ReplayOptions(), cluster, task=task, progress=lambda d, t: seen.append((d, t))
        )
    )
    assert [r.file for r in results] == files
    assert results[1].error == (
        f"{files[1]}: LC000 error: replay task failed on Dask: worker lost its disk"
    )
    assert results[0].error is None and results[2].error is None
    assert results[0].sessions and results[2].sessions
    total = sum(Path(f).stat().st_size for f in files)
    assert len(seen) == 3 and seen[-1] == (total, total)


def test_config_is_resolved_once_and_shipped(cluster: Any, tmp_path: Path) -> None:
    """The workers never read the config: a table resolved here is what they replay with."""
    from loopcfg.replay.configs import load_table

    table, _notes = load_table(str(REPLAY / "current.json5"), "ops", 1 << 20)
    options = ReplayOptions(table=table)
    (result,) = dask_replays([str(REPLAY / "stuck-edit.jsonl")], options, cluster)
    (local,) = dask_replays([str(REPLAY / "stuck-edit.jsonl")], ReplayOptions(), cluster)
    assert result.events != local.events  # ops has tighter thresholds than the defaults


def test_without_distributed_the_option_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.import_module

    def no_distributed(name: str, *args: Any) -> Any:
        if name == "distributed":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_distributed)
    result = run(str(REPLAY / "stuck-edit.jsonl"), "--scheduler", "local:2")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        f"loopcfg replay: error: {INSTALL_HINT} (see loopcfg replay --help)"
    )


def test_scheduler_values() -> None:
    assert parse_scheduler("local:3") == ("local", 3)
    assert parse_scheduler("tcp://10.0.0.5:8786") == ("tcp://10.0.0.5:8786", None)
    for bad in ("local:0", "local:x", "10.0.0.5:8786"):
        with pytest.raises(SchedulerError):
            parse_scheduler(bad)


def test_stdin_and_compare_stay_local() -> None:
    stdin = run("-", "--scheduler", "local:1")
    assert stdin.exit_code == 2 and "stdin (-) cannot be sent" in stdin.stderr
    path = str(REPLAY / "stuck-edit.jsonl")
    config = str(REPLAY / "current.json5")
    compared = run(path, "--config", config, "--compare", config, "--scheduler", "local:1")
    assert compared.exit_code == 2 and "--scheduler does not run --compare" in compared.stderr
