"""Bounded replay (05, Decision 8): memory follows the configured history and the sessions
alive, never the number of events or the length of a line. Measured with tracemalloc as a
ratio between inputs of different sizes, never with a clock."""

from __future__ import annotations

import gc
import io
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.render.replay import JsonStream, TextStream
from loopcfg.replay.driver import ReplayOptions, replay_file
from loopcfg.replay.lines import numbered
from loopcfg.replay.parallel import stream_replays


class Discard(io.StringIO):
    """An output stream that keeps nothing (the terminal or a pipe)."""

    def write(self, text: str) -> int:
        return len(text)


def peak_bytes(work: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def stuck_loop(path: Path, calls: int) -> Path:
    """One session stuck on one failing call, with distinct verdict counts now and then."""
    line = json.dumps({"tool": "exec", "args": {"command": "npm test"}, "error": "exit 1"})
    path.write_text((line + "\n") * calls)
    return path


def replay_streamed(path: Path, stream_class: type[Any]) -> None:
    writer = stream_class(Discard())
    replay_file(str(path), ReplayOptions(), sink=writer)
    writer.finish()


def test_a_stuck_loop_four_times_longer_needs_no_more_memory(tmp_path: Path) -> None:
    short = stuck_loop(tmp_path / "short.jsonl", 2_000)
    long = stuck_loop(tmp_path / "long.jsonl", 8_000)
    for stream_class in (JsonStream, TextStream):
        small = peak_bytes(lambda c=stream_class: replay_streamed(short, c))
        large = peak_bytes(lambda c=stream_class: replay_streamed(long, c))
        # Every call of the long file is an event (6,000 more): kept, they would cost MBs.
        assert large < small * 1.25 + 64_000, (stream_class.__name__, small, large)


def one_call_sessions(folder: Path, count: int) -> list[str]:
    folder.mkdir()
    paths = []
    for index in range(count):
        path = folder / f"s{index:04d}.jsonl"
        header = {"type": "session", "version": 3, "id": f"session-{index}"}
        call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}
        message = {"role": "assistant", "content": [call]}
        path.write_text(
            json.dumps(header) + "\n" + json.dumps({"type": "message", "message": message}) + "\n"
        )
        paths.append(str(path))
    return paths


def test_many_finished_sessions_are_not_held(tmp_path: Path) -> None:
    """Each transcript's session ends with its file: its state is dropped and its summary row
    spooled, so four times the sessions cost no more memory."""
    few = one_call_sessions(tmp_path / "few", 100)
    many = one_call_sessions(tmp_path / "many", 400)

    def run(paths: list[str]) -> None:
        writer = TextStream(Discard())
        stream_replays(paths, ReplayOptions(), writer, jobs=1, on_file=lambda result: None)
        writer.finish()

    small = peak_bytes(lambda: run(few))
    large = peak_bytes(lambda: run(many))
    assert large < small * 1.25 + 64_000, (small, large)


def test_a_file_without_newlines_costs_one_chunk(tmp_path: Path) -> None:
    def flat(megabytes: int) -> Path:
        path = tmp_path / f"flat{megabytes}.jsonl"
        path.write_bytes(b"x" * (megabytes << 20))
        return path

    def read(path: Path) -> None:
        with path.open("rb") as stream:
            assert [number for number, _ in numbered(stream, max_line_bytes=64 << 10)] == [1]

    small, large = flat(4), flat(16)
    small_peak = peak_bytes(lambda: read(small))
    large_peak = peak_bytes(lambda: read(large))
    assert large_peak < small_peak * 1.25 + 64_000, (small_peak, large_peak)
    assert large_peak < (16 << 20) // 8  # never the line: a chunk


def test_long_lines_are_reported_once_and_skipped(tmp_path: Path) -> None:
    call = json.dumps({"tool": "read", "args": {"p": "x" * 5_000}})
    short = json.dumps({"tool": "read", "args": {}})
    path = tmp_path / "t.jsonl"
    path.write_text(f"{short}\n{call}\n{short}\n")
    result = CliRunner().invoke(cli, ["replay", str(path), "--max-line-bytes", "1000"])
    assert result.exit_code == 0
    message = f"line of {len(call) + 1} bytes is longer than --max-line-bytes; skipped"
    assert f"{path}:2:1: LC001 error: {message}" in result.stderr
    assert "2 calls, nothing detected" in result.stdout
    strict = CliRunner().invoke(cli, ["replay", str(path), "--max-line-bytes", "1000", "--strict"])
    assert strict.exit_code == 2


def test_a_line_at_the_limit_is_read(tmp_path: Path) -> None:
    line = json.dumps({"tool": "read", "args": {}}).encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(line + b"\n" + line)
    with path.open("rb") as stream:
        assert [raw for _, raw in numbered(stream, max_line_bytes=len(line))] == [
            line + b"\n",
            line,
        ]


def test_garbage_exits_2_even_with_fail_on(tmp_path: Path) -> None:
    """05: a CI gate never passes on nothing."""
    path = tmp_path / "garbage.jsonl"
    path.write_text("not json\n{also not\n[1, 2]\n")
    for extra in ([], ["--fail-on", "warning"], ["--format", "json"]):
        result = CliRunner().invoke(cli, ["replay", str(path), *extra])
        assert result.exit_code == 2, extra
        assert "no line of it could be read (3 malformed)" in result.stderr


def test_garbage_beside_a_good_file_still_exits_2(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"tool": "read", "args": {}}) + "\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    result = CliRunner().invoke(cli, ["replay", str(good), str(bad)])
    assert result.exit_code == 2
    assert "good.jsonl::default" in result.stdout


def test_an_empty_file_is_not_garbage(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n// a comment\n")
    assert CliRunner().invoke(cli, ["replay", str(path)]).exit_code == 0
