"""Hostile file systems and option values, generated: whatever a path names (a FIFO with no
writer, /dev/zero, a directory, a dangling or looping link, a link out of the config folder)
and wherever it is named (the config, an `$include`, `--env-file`, a trace, `--trajectory`),
every command ends, with exit 0, 1 or 2, no traceback, and nothing read from outside the
config folder. Commands run in-process; an alarm turns a hang into a failure."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg.cli import cli
from loopcfg.config import load_config
from tests.hostile.helpers import loopcfg_process, no_traceback

ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None}
HANG_SECONDS = 60
KINDS = [
    "good",
    "garbage",
    "empty",
    "fifo",
    "dev-zero",
    "directory",
    "dangling",
    "loop",
    "outside",
    "missing",
]
GOOD_CONFIG = "{ tools: { loopDetection: { enabled: true } } }\n"
GOOD_TRACE = '{"type":"session","id":"s"}\n'


class Hang(Exception):
    pass


@contextmanager
def no_hang() -> Iterator[None]:
    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {HANG_SECONDS} s: a read that waits forever")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def make(folder: Path, name: str, kind: str, good: str) -> str:
    """A path `name` in `folder` of the given kind; returns how to name it on the command line."""
    path = folder / name
    if kind == "good":
        path.write_text(good)
    elif kind == "garbage":
        path.write_bytes(b"\x00\xff{[::")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "dangling":
        path.symlink_to(folder / "nowhere")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "outside":
        path.symlink_to(folder.parent / "secret.json5")
    return str(path)


def invoke(args: list[str], *, outside_named: bool = False) -> Result:
    """Run one command; unless the user named the outside file themselves (`outside_named`:
    an `--env-file` may be anywhere), nothing of it may be shown."""
    with no_hang():
        result = CliRunner().invoke(cli, args, env=ENV, catch_exceptions=False)
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
    no_traceback(result.stdout, result.stderr)
    if not outside_named:
        assert "SECRET" not in result.output
    return result


@pytest.fixture
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "secret.json5").write_text('{ SECRET: "outside the config folder" }\n')
    folder = root / "config"
    folder.mkdir()
    return folder


@settings(max_examples=40)
@given(config=st.sampled_from(KINDS), part=st.sampled_from(KINDS), env=st.sampled_from(KINDS))
def test_validate_on_hostile_paths(
    tmp_path_factory: pytest.TempPathFactory, config: str, part: str, env: str
) -> None:
    root = tmp_path_factory.mktemp("v")
    (root / "secret.json5").write_text('{ SECRET: "outside the config folder" }\n')
    folder = root / "config"
    folder.mkdir()
    make(folder, "part.json5", part, "{ warningThreshold: 4 }\n")
    top = '{ tools: { loopDetection: { $include: "./part.json5" } } }\n'
    named = make(folder, "openclaw.json5", config, top)
    env_file = make(folder, "vars.env", env, "X=1\n")
    named_outside = env == "outside" or config == "outside"  # named by the user: may be read
    for output_format in ("text", "github"):
        args = ["validate", named, "--env-file", env_file, "--format", output_format]
        invoke(args, outside_named=named_outside)
    invoke(["resolve", "--config", named, "--env-file", env_file], outside_named=named_outside)


@settings(max_examples=30)
@given(trace=st.sampled_from(KINDS), trajectory=st.sampled_from(KINDS))
def test_replay_on_hostile_paths(
    tmp_path_factory: pytest.TempPathFactory, trace: str, trajectory: str
) -> None:
    folder = tmp_path_factory.mktemp("r")
    named = make(folder, "t.jsonl", trace, GOOD_TRACE)
    side = make(folder, "t.trajectory.jsonl", trajectory, "{}\n")
    invoke(["replay", named, "--trajectory", side, "--jobs", "1"])


BIG = st.integers(min_value=-(2**70), max_value=2**70)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    folder = tmp_path_factory.mktemp("options")
    return make(folder, "c.json5", "good", GOOD_CONFIG), make(folder, "t.jsonl", "good", GOOD_TRACE)


@settings(max_examples=40)
@given(max_bytes=BIG, jobs=BIG)
def test_integer_options_of_every_command(
    inputs: tuple[str, str], max_bytes: int, jobs: int
) -> None:
    config, trace = inputs
    for args in (
        ["validate", config, "--max-bytes", str(max_bytes)],
        ["resolve", "--config", config, "--max-bytes", str(max_bytes)],
        ["replay", trace, "--max-bytes", str(max_bytes), "--jobs", str(jobs)],
    ):
        result = invoke(args)
        if result.exit_code == 2 and not result.stdout:
            assert len(result.stderr.splitlines()) == 1, result.stderr  # one-line usage error


def test_include_link_swapped_concurrently_never_reads_outside(sandbox: Path) -> None:
    """The race of the red-team report (33 leaks in 800 runs): a thread swaps the include's
    link between a file inside and one outside the config folder while configs load."""
    (sandbox / "inner.json5").write_text("{ warningThreshold: 4 }\n")
    link = sandbox / "part.json5"
    link.symlink_to("inner.json5")
    top = sandbox / "openclaw.json5"
    top.write_text('{ tools: { loopDetection: { $include: "./part.json5" } } }\n')
    stop = threading.Event()
    targets = ["inner.json5", str(sandbox.parent / "secret.json5")]

    def swap() -> None:
        flip = 0
        spare = sandbox / ".swap"
        while not stop.is_set():
            spare.unlink(missing_ok=True)
            spare.symlink_to(targets[flip])
            spare.replace(link)
            flip ^= 1

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        outcomes = set()
        for _ in range(300):
            loaded = load_config(top, env={})
            assert all("SECRET" not in doc.text for doc in loaded.documents.values())
            outcomes.add(tuple(d.code for d in loaded.diagnostics))
    finally:
        stop.set()
        thread.join()
    assert outcomes <= {(), ("LC005",)}, outcomes


@pytest.mark.parametrize(
    "args",
    [["validate", "openclaw.json5"], ["resolve", "--config", "openclaw.json5"], ["schema"],
     ["replay", "t.jsonl"]],
)  # fmt: skip
@pytest.mark.parametrize("redirect", ["> /dev/full", ">&-", "<&-"])
def test_closed_and_full_streams(tmp_path: Path, args: list[str], redirect: str) -> None:
    (tmp_path / "openclaw.json5").write_text(GOOD_CONFIG)
    (tmp_path / "t.jsonl").write_text(GOOD_TRACE)
    done = loopcfg_process(args, tmp_path, shell_redirect=redirect)
    no_traceback(done.stdout, done.stderr)
    if redirect == "<&-":  # nothing here reads standard input
        assert done.returncode == 0, done.stderr
        return
    assert done.returncode == 2, (args, redirect, done.stderr)
    assert len(done.stderr.splitlines()) <= 2, done.stderr  # replay adds its no --config note
