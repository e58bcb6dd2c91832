"""`loopcfg lsp` against a broken or hostile client on stdio: one line on stderr, never a
traceback, memory bounded, and exit 2 when the session could not go on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loopcfg.lsp.transport import MAX_MESSAGE_BYTES
from tests.conftest import REPO

pytest.importorskip("pygls")

# Peak memory of a server that holds no message: far below the endless line sent below.
QUIET_PEAK_BYTES = 150 << 20
ENDLESS_LINE_BYTES = 256 << 20


# Started by a small Python process, so that the server's peak (which Linux counts from the
# process it was forked from) is its own and not pytest's.
_MEASURED = """
import os, resource, subprocess, sys
with open(sys.argv[1], "rb") as stdin:
    code = subprocess.call(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(code, peak)
"""


def _lsp(stdin: bytes | Path | None, tmp_path: Path) -> tuple[int, str, int]:
    """(exit code, stderr, peak RSS in bytes) of `loopcfg lsp` fed `stdin` (bytes or a file;
    None: stdin closed)."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "loopcfg", "lsp"]
    if stdin is None:
        quoted = " ".join(f"'{part}'" for part in command)
        command = ["bash", "-c", f"exec {quoted} <&-"]
        stdin = b""
    if isinstance(stdin, bytes):
        (tmp_path / "stdin").write_bytes(stdin)
        stdin = tmp_path / "stdin"
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, str(stdin), *command],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=True,
    )
    code, peak = done.stdout.split()
    return int(code), done.stderr, int(peak)


def test_a_closed_stdin_is_one_line_exit_2(tmp_path: Path) -> None:
    code, stderr, _peak = _lsp(None, tmp_path)
    assert code == 2
    assert stderr == "loopcfg lsp: error: standard input is closed\n"


def test_an_announced_body_over_the_limit_ends_the_session_exit_2(tmp_path: Path) -> None:
    code, stderr, _peak = _lsp(b"Content-Length: 99999999999\r\n\r\n{}", tmp_path)
    assert code == 2
    assert stderr == (
        f"loopcfg lsp: error: a message of 99999999999 bytes is over the limit of "
        f"{MAX_MESSAGE_BYTES} bytes; the session ends\n"
    )


def test_a_message_that_is_not_json_is_one_log_line_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    body = b'{"a":1}xxx'
    exit_request = b'{"jsonrpc":"2.0","method":"exit"}'
    stdin = _message(body) + _message(exit_request)
    code, stderr, _peak = _lsp(stdin, tmp_path)
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert lines == [
        "loopcfg lsp: error: Unable to handle message: JSONDecodeError: Extra data: "
        "line 1 column 8 (char 7)"
    ]
    assert code in (0, 1)  # exit without shutdown first: LSP says 1, and the server got there


def test_an_endless_header_line_is_read_in_bounded_pieces(tmp_path: Path) -> None:
    endless = tmp_path / "endless"
    with endless.open("wb") as out:
        for _ in range(ENDLESS_LINE_BYTES >> 20):
            out.write(b"a" * (1 << 20))
    code, stderr, peak = _lsp(endless, tmp_path)
    assert "Traceback" not in stderr and "MemoryError" not in stderr
    assert code == 0  # stdin ended: the session is over
    assert peak < QUIET_PEAK_BYTES


def _message(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_a_session_ended_by_shutdown_and_exit_exits_0_saying_nothing(tmp_path: Path) -> None:
    # pygls closes stdout on `exit`: that is not an output the command failed to write.
    stdin = b"".join(
        _message(body)
        for body in (
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}',
            b'{"jsonrpc":"2.0","method":"initialized","params":{}}',
            b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}',
            b'{"jsonrpc":"2.0","method":"exit"}',
        )
    )
    assert _lsp(stdin, tmp_path)[:2] == (0, "")


def test_the_server_runs_with_the_cyclic_collector_on(tmp_path: Path) -> None:
    # The CLI turns the collector off for its short commands; a server runs for hours and its
    # framework makes reference cycles (asyncio futures, handled exceptions' tracebacks).
    script = (
        "import gc, sys; gc.disable()\n"
        "from loopcfg.lsp.server import serve\n"
        "serve()\n"
        "print(gc.isenabled(), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=b"",
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
        check=True,
    )
    assert done.stderr.decode().splitlines()[-1] == "True"


def test_a_length_with_thousands_of_digits_ends_the_session_exit_2(tmp_path: Path) -> None:
    # pygls would give all the digits to int(), which refuses more than 4,300.
    code, stderr, _peak = _lsp(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}", tmp_path)
    assert code == 2
    assert stderr == (
        "loopcfg lsp: error: a message announced with a length of more than 19 digits is over "
        f"the limit of {MAX_MESSAGE_BYTES} bytes; the session ends\n"
    )


def test_the_end_of_a_header_line_too_long_to_read_is_not_a_header(tmp_path: Path) -> None:
    # Read 8 KiB at a time, the junk line's last piece would read "Content-Length: 2".
    junk = b"X-Junk: " + b"a" * 8184 + b"Content-Length: 2\r\n\r\n{}"
    code, stderr, _peak = _lsp(junk, tmp_path)
    assert (code, stderr) == (0, "")  # nothing was taken for a message


def test_a_traceback_pygls_writes_into_its_message_is_cut_to_its_last_line(
    tmp_path: Path,
) -> None:
    _code, stderr, _peak = _lsp(_message(b'{"jsonrpc":"2.0","id":1,"method":5}'), tmp_path)
    assert "Traceback" not in stderr and "File " not in stderr
    assert stderr.splitlines()[0].startswith(
        "loopcfg lsp: error: Unable to deserialize message: TypeError: "
    )
    assert all(line.startswith("loopcfg lsp: ") for line in stderr.splitlines())


def test_raised_at_names_the_innermost_of_loopcfgs_own_frames() -> None:
    """The one line of a bug report: where loopcfg raised, or where it called what raised;
    nothing for an error that never passed through loopcfg (pygls reading a bad message)."""
    import json

    from loopcfg.lsp import transport
    from loopcfg.source import nodes

    try:
        nodes.from_python({"a": object()})  # raises inside loopcfg
    except Exception as error:
        own = transport.raised_at(error)
    assert own.startswith("loopcfg/source/nodes.py:")
    try:
        json.loads("{")  # raised in the standard library, called from here (not loopcfg)
    except ValueError as error:
        outside = transport.raised_at(error)
    assert outside is None  # no frame of loopcfg's: a client's message, not a bug of ours
    assert transport.raised_at(RuntimeError("never raised")) is None
