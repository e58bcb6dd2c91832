"""Bounded replay (05, Decision 8): memory follows the configured history and the sessions
alive, never the number of events or the length of a line. Measured with tracemalloc as a
ratio between inputs of different sizes, never with a clock."""

from __future__ import annotations

import gc
import io
import json
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from loopcfg.cli import cli
from loopcfg.render.replay import JsonStream, TextStream
from loopcfg.replay import spool
from loopcfg.replay.configs import ConfigTable
from loopcfg.replay.driver import ReplayOptions, replay_file
from loopcfg.replay.lines import numbered
from loopcfg.replay.parallel import stream_replays
from loopcfg.settings import settings_from_block


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


def interleaved(
    path: Path, sessions: int, calls_each: int = 1, *, repeat: bool = False, burst: int = 1
) -> Path:
    """`sessions` sessions in one trace, their calls interleaved round robin, `burst` calls of
    a session at a time; with `repeat` each session repeats one call (warnings, then blocks)."""
    with path.open("w") as out:
        for first in range(0, calls_each, burst):
            for index in range(sessions):
                for call in range(first, min(first + burst, calls_each)):
                    args = {"p": 0 if repeat else call}
                    line = {"session": f"s{index}", "tool": "read", "args": args, "result": 1}
                    out.write(json.dumps(line) + "\n")
    return path


def test_four_times_more_interleaved_sessions_need_no_more_memory(tmp_path: Path) -> None:
    """In one trace every session is alive until the last line; beyond the budget the least
    recently used wait in the spool (a temporary file), so 4x the sessions cost no 4x memory.
    Without the budget the same runs grow with the sessions (the check below can fail)."""
    few = interleaved(tmp_path / "few.jsonl", 1_500)
    many = interleaved(tmp_path / "many.jsonl", 6_000)

    def run(path: Path, budget: int | None) -> None:
        writer = TextStream(Discard())
        replay_file(str(path), ReplayOptions(live_sessions=budget), sink=writer)
        writer.finish()

    small = peak_bytes(lambda: run(few, 500))
    large = peak_bytes(lambda: run(many, 500))
    assert large < small * 1.25 + 64_000, (small, large)
    unbounded = peak_bytes(lambda: run(many, None))
    assert unbounded > small * 2, (small, unbounded)


def test_open_timeline_lines_go_to_the_spool_with_their_sessions(tmp_path: Path) -> None:
    """Each session's third call warns (threshold 2), so each has an open line in the text
    timeline until its end: spooled with the session, it costs no memory while on disk."""
    few = interleaved(tmp_path / "few.jsonl", 1_000, calls_each=3, repeat=True)
    many = interleaved(tmp_path / "many.jsonl", 4_000, calls_each=3, repeat=True)

    def run(path: Path) -> None:
        writer = TextStream(Discard())
        replay_file(str(path), ReplayOptions(table=TABLE, live_sessions=300), sink=writer)
        writer.finish()

    small = peak_bytes(lambda: run(few))
    large = peak_bytes(lambda: run(many))
    assert large < small * 1.25 + 64_000, (small, large)


# -- spooling changes nothing: a tiny budget against none, on every engine generation ---------

TIGHT = settings_from_block(
    {"enabled": True, "warningThreshold": 2, "criticalThreshold": 4,
     "postCompactionGuard": {"windowSize": 2}}
)  # fmt: skip
TABLE = ConfigTable("tight", TIGHT, TIGHT, {"loose": settings_from_block({"enabled": True})})
# E5.4, E5.12, E6.5 and E8.1 (whose thresholds are constants: 10 and 20).
GENERATIONS = ["2026.5.4", "2026.5.12", "2026.6.5", "2026.9.6"]

# Skewed towards one session, one signature and one result, so that identical calls pile up
# (warnings, blocks, E8.1's second block in a run) while other sessions push it out.
names = st.sampled_from(["a", "a", "a", "a", "b", "c", "d"])
# Compactions (a guard abort skips the rest of the run) and config lines (loose thresholds)
# are rare, or they would end detection early.
line_kinds = st.sampled_from(
    ["call+result"] * 24 + ["call"] * 12 + ["outcome"] * 12 + ["compaction", "config"]
)
outcomes = st.sampled_from([0, 0, 0, 1])


@st.composite
def interleaved_traces(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Lines of a few sessions in any order: repeated calls (warnings, blocks), late outcomes
    of the session's earlier calls by id (blocked ones too), runs, batches (E8.1), compactions
    (guard aborts) and config lines."""
    lines: list[dict[str, Any]] = []
    ids: dict[str, list[str]] = {}
    for index in range(draw(st.integers(1, 150))):
        kind = draw(line_kinds)
        session = draw(names)
        line: dict[str, Any] = {"session": session}
        run = draw(st.sampled_from([None, None, None, "r1", "r2"]))
        if run is not None:
            line["run"] = run
        if kind in ("compaction", "config"):
            line["type"] = kind
            if kind == "config":
                line["agent"] = "loose"
            lines.append(line)
            continue
        line.update(tool=draw(st.sampled_from(["read", "read", "read", "exec"])), args={})
        if draw(st.integers(0, 4)) == 0:
            line["args"] = {"p": 1}
        earlier = ids.setdefault(session, [])
        if kind == "outcome":
            if earlier and draw(st.integers(0, 3)):
                line["id"] = earlier[-draw(st.integers(1, min(len(earlier), 4)))]
            line.update(type="outcome", result=draw(outcomes))
        else:
            line["id"] = f"c{index}"
            earlier.append(line["id"])
            if kind == "call+result":
                line["result"] = draw(outcomes)
            if draw(st.booleans()):
                line["batch"] = f"b{index // 3}"
        lines.append(line)
    return lines


def rendered(
    path: Path, openclaw: str, budget: int | None, records: int | None = None
) -> tuple[str, str]:
    options = ReplayOptions(
        table=TABLE,
        openclaw=openclaw,
        stats=True,
        keep_args=True,
        live_sessions=budget,
        live_records=records,
    )
    outputs = []
    for stream_class in (TextStream, JsonStream):
        out = io.StringIO()
        writer = stream_class(out, show_args=True)
        replay_file(str(path), options, sink=writer)
        writer.finish()
        outputs.append(out.getvalue())
    return outputs[0], outputs[1]


def _call(session: str, index: int, **more: Any) -> dict[str, Any]:
    return {"session": session, "tool": "read", "args": {}, "id": f"c{index}", **more}


# Spooled between a blocked call and an outcome naming its id: the outcome is still dropped.
BLOCKED_THEN_SPOOLED = [
    *(_call("a", index, result=0) for index in range(6)),
    _call("b", 6),
    {"session": "a", "type": "outcome", "tool": "read", "args": {}, "id": "c5", "result": 0},
]
# E8.1: spooled after a run's first block (its recovery), the second block ends the run.
RECOVERY_THEN_SPOOLED = [
    *(_call("a", index, result=0) for index in range(21)),
    _call("b", 21),
    _call("a", 22, result=0),
]


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(GENERATIONS),
    interleaved_traces(),
    st.integers(1, 3),
    st.sampled_from([None, 1, 8]),
    st.sampled_from([1, 2]),
)
@example("2026.6.5", BLOCKED_THEN_SPOOLED, 1, None, 1)
@example("2026.9.6", RECOVERY_THEN_SPOOLED, 1, None, 2)
def test_a_tiny_budget_replays_exactly_as_no_budget(
    openclaw: str,
    lines: list[dict[str, Any]],
    budget: int,
    records: int | None,
    write_batch: int,
) -> None:
    """A budget of 1-3 sessions and of 1 or 8 history records (or none); `write_batch`:
    sessions go to SQLite after 1 or 2 (not 256), so rows are written, replaced and read back,
    not only held in the spool's write buffer."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        unbounded = rendered(path, openclaw, None)
        with small_writes(write_batch):
            assert rendered(path, openclaw, budget, records) == unbounded


@contextmanager
def small_writes(batch: int) -> Iterator[None]:
    saved = spool.WRITE_BATCH
    spool.WRITE_BATCH = batch
    try:
        yield
    finally:
        spool.WRITE_BATCH = saved


def test_many_spooled_sessions_replay_exactly_as_in_memory(tmp_path: Path) -> None:
    """Hundreds of sessions through the spool at its real write batch, each back four times
    (with a warning, a block and an open timeline line to carry)."""
    path = interleaved(tmp_path / "t.jsonl", 700, calls_each=5, repeat=True)
    assert rendered(path, "2026.6.5", 50) == rendered(path, "2026.6.5", None)


def test_long_histories_are_spooled_by_their_records(tmp_path: Path) -> None:
    """With historySize 3000 a session may hold 3000 records: the record budget spools sessions
    long before the session budget would, so 4x the sessions cost no 4x memory."""
    long_history = settings_from_block({"enabled": True, "historySize": 3000})
    table = ConfigTable("long", long_history, long_history, {})
    few = interleaved(tmp_path / "few.jsonl", 20, calls_each=200, burst=50)
    many = interleaved(tmp_path / "many.jsonl", 80, calls_each=200, burst=50)

    def run(path: Path, records: int | None) -> None:
        options = ReplayOptions(table=table, live_sessions=1024, live_records=records)
        replay_file(str(path), options, sink=TextStream(Discard()))

    small = peak_bytes(lambda: run(few, 1_000))
    large = peak_bytes(lambda: run(many, 1_000))
    assert large < small * 1.25 + 64_000, (small, large)
    unbounded = peak_bytes(lambda: run(many, None))
    assert unbounded > small * 2, (small, unbounded)


def test_the_spool_is_used_and_keeps_the_order_of_first_appearance(tmp_path: Path) -> None:
    """Sessions end in the order they first appeared, spooled or not; a spooled session that
    comes back keeps its history (its second identical call counts 2)."""
    path = interleaved(tmp_path / "t.jsonl", 5, calls_each=1)
    with path.open("a") as out:  # s0 comes back after the others pushed it out
        out.write(json.dumps({"session": "s0", "tool": "read", "args": {"p": 0}}) + "\n")
    options = ReplayOptions(table=TABLE, live_sessions=2, stats=True)
    result = replay_file(str(path), options)
    assert [s.session for s in result.sessions] == ["s0", "s1", "s2", "s3", "s4"]
    probe = result.sessions[0].probe
    assert probe is not None and probe.tools["read"].max_identical == 1
    assert result.sessions[0].calls == 2
