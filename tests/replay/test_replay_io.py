"""Inputs and throughput: folder walks, streaming, parallel jobs, the tty progress bar."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.replay import lines as lines_module
from loopcfg.replay import parallel
from loopcfg.replay.driver import ReplayOptions, replay_file
from loopcfg.replay.events import Call, RunId
from loopcfg.replay.parallel import collect_inputs, replay_files, tty_progress
from loopcfg.replay.transcript import TranscriptOptions, read_transcript, trajectory_run_ids

from .helpers import DATA, jsonl, read_file


def replay_json(*args: str) -> tuple[dict[str, Any], Any]:
    result = CliRunner().invoke(cli, ["replay", "--format", "json", *args])
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout) if result.stdout else {}, result


def transcript(session: str, calls: int, tool: str = "read") -> str:
    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": session},
        {"type": "message", "id": "u", "message": {"role": "user", "content": "go"}},
    ]
    for i in range(calls):
        call = {"type": "toolCall", "id": f"c{i}", "name": tool, "arguments": {"p": 1}}
        entries.append({"type": "message", "message": {"role": "assistant", "content": [call]}})
        result = {"role": "toolResult", "toolCallId": f"c{i}", "toolName": tool, "isError": False}
        entries.append({"type": "message", "message": {**result, "content": "same"}})
    return jsonl(*entries)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    names = {
        "a.jsonl": ("a", 1),
        "b.jsonl": ("b", 2),
        "b.jsonl.bak-2026-01-01": ("b-bak", 1),
        "b.trajectory.jsonl": None,
        "notes.txt": None,
        "c.log": ("c", 3),
    }
    for name, shape in names.items():
        text = transcript(*shape) if shape else '{"traceSchema":"openclaw-trajectory"}\n'
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def sessions_of(document: dict[str, Any]) -> list[str]:
    return [s["session"] for s in document["sessions"]]


def test_folder_walk_default_glob_skips_backups_sidecars_and_others(folder: Path) -> None:
    assert sessions_of(replay_json(str(folder))[0]) == ["a", "b"]


def test_folder_walk_include_bak_and_glob(folder: Path) -> None:
    assert sessions_of(replay_json(str(folder), "--include-bak")[0]) == ["a", "b", "b-bak"]
    assert sessions_of(replay_json(str(folder), "--glob", "*.log")[0]) == ["c"]


def test_named_files_are_replayed_as_given(folder: Path) -> None:
    document, _ = replay_json(str(folder / "b.jsonl.bak-2026-01-01"), str(folder / "a.jsonl"))
    assert sessions_of(document) == ["b-bak", "a"]


def test_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    _, result = replay_json(str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"loopcfg replay: error: no session files found in {tmp_path} (--glob *.jsonl)"
    )
    (tmp_path / "a.log").write_text("{}\n", encoding="utf-8")
    _, result = replay_json(str(tmp_path), "--glob", "*.txt")
    assert result.stderr.splitlines()[-1].endswith(f"found in {tmp_path} (--glob *.txt)")


def test_jobs_do_not_change_the_output(tmp_path: Path) -> None:
    for index in range(4):
        text = transcript(f"s{index}", 12 + 5 * index)
        (tmp_path / f"s{index}.jsonl").write_text(text, encoding="utf-8")
    serial = CliRunner().invoke(cli, ["replay", str(tmp_path), "--jobs", "1"])
    parallel_run = CliRunner().invoke(cli, ["replay", str(tmp_path), "--jobs", "2"])
    assert serial.exit_code == parallel_run.exit_code == 0
    assert serial.stdout == parallel_run.stdout
    assert "s0" in serial.stdout and "s3" in serial.stdout and "warning" in serial.stdout


def test_collect_inputs_order_is_sorted_and_stable(folder: Path) -> None:
    first = collect_inputs([str(folder)], include_bak=True)
    assert first == sorted(first) == collect_inputs([str(folder)], include_bak=True)


# -- streaming -------------------------------------------------------------------------------


def test_reader_pulls_lines_only_as_it_yields_events() -> None:
    """Each event is yielded before the line after it is read: nothing is buffered."""
    pulled = 0

    def source() -> Iterator[tuple[int, bytes]]:
        nonlocal pulled
        text = transcript("lazy", 50).encode()
        for number, line in enumerate(text.splitlines(keepends=True), start=1):
            pulled = number
            yield number, line

    seen = 0
    for event in read_transcript("f", source()):
        assert pulled == event.line
        seen += 1
    assert seen > 100


def test_replaying_a_big_file_holds_one_line_at_a_time(tmp_path: Path) -> None:
    """A 12 MB transcript of 200 KB results replays with far less memory than its size."""
    big = "x" * 200_000
    entries: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "big"}]
    for i in range(60):
        call = {"type": "toolCall", "id": f"c{i}", "name": "read", "arguments": {"p": i}}
        entries.append({"type": "message", "message": {"role": "assistant", "content": [call]}})
        content = [{"type": "text", "text": big}]
        result = {"role": "toolResult", "toolCallId": f"c{i}", "toolName": "read"}
        entries.append({"type": "message", "message": {**result, "content": content}})
    path = tmp_path / "big.jsonl"
    path.write_text(jsonl(*entries), encoding="utf-8")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        result = replay_file(str(path), ReplayOptions())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.sessions[0].calls == 60
    assert size > 12_000_000 and peak < size // 6


# -- progress ----------------------------------------------------------------------------------


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_tty_and_for_large_inputs() -> None:
    big = parallel.PROGRESS_MIN_BYTES
    assert tty_progress(big, io.StringIO()) is None
    assert tty_progress(big - 1, FakeTty()) is None
    assert tty_progress(big, FakeTty()) is not None


def test_progress_moves_within_a_single_huge_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lines_module, "PROGRESS_STEP", 2_000)
    path = tmp_path / "one.jsonl"
    path.write_text(transcript("one", 200), encoding="utf-8")
    size = path.stat().st_size
    tty = FakeTty()
    monkeypatch.setattr(parallel, "PROGRESS_MIN_BYTES", size)
    bar = tty_progress(size, tty)
    assert bar is not None
    replay_files([str(path)], ReplayOptions(), jobs=4, progress=bar)
    frames = tty.getvalue().split("\r")[1:]
    percents = [int(frame.split("]")[1].split("%")[0]) for frame in frames]
    # Several distinct steps inside the one file, increasing, ending at 100% with a newline.
    assert len(percents) > 5 and percents == sorted(set(percents)) and percents[-1] == 100
    assert tty.getvalue().endswith("\n") and tty.getvalue().count("\n") == 1


def test_progress_across_files_in_worker_processes(tmp_path: Path) -> None:
    paths = []
    for index in range(3):
        path = tmp_path / f"s{index}.jsonl"
        path.write_text(transcript(f"s{index}", 5), encoding="utf-8")
        paths.append(str(path))
    reports: list[tuple[int, int]] = []
    replay_files(paths, ReplayOptions(), jobs=2, progress=lambda d, t: reports.append((d, t)))
    total = sum(Path(p).stat().st_size for p in paths)
    assert [t for _, t in reports] == [total] * 3 and reports[-1][0] == total


def test_no_progress_bar_when_stderr_is_not_a_tty(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(transcript("s", 3), encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert "[" not in result.stderr and "%" not in result.stderr


# -- trajectory --------------------------------------------------------------------------------


def compiled(run_id: str, leaf: str) -> dict[str, Any]:
    return {"type": "context.compiled", "runId": run_id, "data": {"transcriptLeafId": leaf}}


def test_trajectory_names_the_runs(tmp_path: Path) -> None:
    """`context.compiled` names the entry a run started from: the user message itself (run 1)
    or the entry before it (run 2); the sidecar's id wins over later transcript hints."""
    sidecar = tmp_path / "s.trajectory.jsonl"
    sidecar.write_text(
        jsonl(
            {"traceSchema": "openclaw-trajectory", "type": "session.start", "runId": "t0"},
            compiled("traj-1", "a0000002"),
            compiled("traj-2", "a0000010"),
            {"type": "context.compiled", "data": {"transcriptLeafId": "a0000017"}},
        ),
        encoding="utf-8",
    )
    mapping = trajectory_run_ids(str(sidecar))
    assert mapping == {"a0000002": "traj-1", "a0000010": "traj-2"}
    events = read_file(DATA / "every-shape.v3.jsonl", TranscriptOptions(trajectory=mapping))
    named = [(e.line, e.run, e.run_id) for e in events if isinstance(e, RunId)]
    assert named[:2] == [(3, "run-1", "traj-1"), (9, "run-1", "real-run-1")]
    assert (12, "run-2", "traj-2") in named


def test_trajectory_through_the_cli_reports_run_ids(tmp_path: Path) -> None:
    sidecar = tmp_path / "s.trajectory.jsonl"
    sidecar.write_text(
        jsonl(compiled("traj-1", "u")),
        encoding="utf-8",
    )
    path = tmp_path / "s.jsonl"
    path.write_text(transcript("s", 12), encoding="utf-8")
    document, _ = replay_json(str(path), "--trajectory", str(sidecar))
    assert {(e["run"], e["runId"]) for e in document["events"]} == {("run-1", "traj-1")}
    without, _ = replay_json(str(path))
    assert {(e["run"], e["runId"]) for e in without["events"]} == {("run-1", None)}


def test_missing_trajectory_is_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(transcript("s", 1), encoding="utf-8")
    _, result = replay_json(str(path), "--trajectory", str(tmp_path / "none.jsonl"))
    assert result.exit_code == 2 and "Traceback" not in result.stderr


def test_calls_keep_file_order(tmp_path: Path) -> None:
    events = list(read_transcript("f", enumerate(transcript("o", 3).encode().splitlines(), 1)))
    assert [e.line for e in events if isinstance(e, Call)] == [3, 5, 7]


def test_branch_active_through_the_cli() -> None:
    path = str(DATA / "branches.v3.jsonl")
    every, _ = replay_json(path)
    active, _ = replay_json(path, "--branch", "active")
    assert [s["calls"] for s in every["sessions"]] == [2]
    assert [s["calls"] for s in active["sessions"]] == [1]


def test_stdin_is_read_as_one_file() -> None:
    trace = jsonl(*[{"tool": "read", "args": {}, "result": 1}] * 11)
    result = CliRunner().invoke(cli, ["replay", "-", "--format", "json"], input=trace)
    document = json.loads(result.stdout)
    assert result.exit_code == 0 and document["sessions"][0]["file"] == "-"
    assert [(e["call"], e["level"]) for e in document["events"]] == [(11, "warning")]
