"""Fuzzing the command line: whatever the input, no traceback reaches a user.

Every command runs in-process with `catch_exceptions=False`, so an exception fails the test.
Inputs are random bytes, mutated valid configs (JSON5 and YAML), deep nesting, huge numbers,
odd unicode, `$include` and `${VAR}` oddities, and JSONL traces of the wrong shapes. The checks:
the exit code is 0, 1 or 2; no traceback text; every text line has the documented shape;
json/sarif output parses and github output is workflow commands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

from loopcfg import cli as cli_module
from loopcfg.cli import cli
from loopcfg.render import printable
from tests.conftest import EXAMPLES

ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None, "HOME": None}

# One problem per line: `file:line:col: CODE severity: message` or `file: CODE severity: ...`.
PROBLEM = re.compile(r"^.+?(:\d+:\d+)?: LC\d{3} (error|warning|info): \S.*$")
SUMMARY = re.compile(
    r"^(Found \d+ errors? and \d+ warnings?( and \d+ infos?)?"
    r"|Found \d+ errors?, \d+ warnings? and \d+ infos?) in \d+ files?\.$"
    r"|^All checks passed \(\d+ files?\)\.$"
)
GITHUB = re.compile(r"^::(error|warning|notice) [^\n]*::[^\n]*$")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One folder for the whole module (hypothesis runs many examples per test function)."""
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "part.json5").write_text("{ warningThreshold: 4 }\n", encoding="utf-8")
    (folder / "sub").mkdir()
    yield folder


def invoke(args: list[str], stdin: bytes | None = None) -> Result:
    result = CliRunner().invoke(cli, args, input=stdin, env=ENV, catch_exceptions=False)
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    for stream in (result.stdout, result.stderr):
        assert "Traceback" not in stream, stream
    return result


def assert_text_shape(result: Result) -> None:
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    assert SUMMARY.match(lines[-1]), lines[-1]
    for line in lines[:-1]:
        assert PROBLEM.match(line), line


def _no_constant(name: str) -> Any:
    raise AssertionError(f"{name} is not JSON")


def strict_json(text: str) -> Any:
    """Parsed as any JSON parser would: Python's own also takes NaN and Infinity."""
    return json.loads(text, parse_constant=_no_constant)


def assert_format(result: Result, output_format: str) -> None:
    if output_format == "text":
        assert_text_shape(result)
    elif output_format == "json":
        document = strict_json(result.stdout)
        assert document["version"] == 1
    elif output_format == "sarif":
        document = strict_json(result.stdout)
        assert document["version"] == "2.1.0"
    else:
        *annotations, summary = result.stdout.splitlines()
        assert SUMMARY.match(summary), summary
        for line in annotations:
            assert GITHUB.match(line) or PROBLEM.match(line), line


# -- inputs ---------------------------------------------------------------------------------------

SEEDS = [
    (EXAMPLES / "openclaw.json5").read_text(encoding="utf-8"),
    '{tools: {loopDetection: {enabled: true, warningThreshold: 3, "criticalThreshold": 20,'
    " detectors: {pingPong: false}}}, agents: {list: [{id: '${AGENT}', default: true,"
    " tools: {loopDetection: {historySize: 0x1F, $include: './part.json5'}}}]}}\n",
    "tools:\n  loopDetection:\n    enabled: true\n    historySize: 30\n"
    "    detectors: {genericRepeat: yes}\nagents:\n  list:\n    - id: main\n"
    "      tools:\n        loopDetection:\n          warningThreshold: ${WARN}\n",
]

PIECES = [
    *"{}[]:,\"'\\/*#\n\t -+.$&!|>",
    "${",
    "${AGENT}",
    "${lower}",
    "$${X}",
    "${}",
    "$include",
    '$include: "part.json5"',
    '$include: "sub"',
    '$include: "../.."',
    '$include: "/dev/zero"',
    '$include: "a\\u0000b"',
    '$include: "\\ud800"',
    '$include: ["x", 1]',
    "\ufeff",
    "\x00",
    "\u2028",
    "\u202e",
    "\x1b[31m",
    "\\ud800",
    "\\udc00x",
    "\\u",
    "1e999",
    "-1e999",
    "99999999999999999999999999",
    "0x",
    "0xFFFFFFFFFFFFFFFFFFFF",
    "9" * 5000,
    "0x" + "f" * 4000,
    "NaN",
    "Infinity",
    "-0",
    ".5e-400",
    "null",
    "true",
    "&a",
    "*a",
    "!!binary",
    "? ",
    "%YAML 1.2\n---\n",
    "/*",
    "//",
    "é",
    "🦞",
    "\udcff",
]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(PIECES) | st.text(max_size=3))
        if op == "insert":
            text = text[:at] + piece + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)) :]
        else:
            text = text[:at] + piece + text[at + len(piece) :]
    return text


def nested(depth: int, open_: str, close: str) -> str:
    return open_ * depth + "1" + close * depth


DEEP = st.builds(
    nested,
    st.sampled_from([150, 199, 200, 201, 1000, 30000]),
    st.sampled_from(["[", "{a:", "{tools: {loopDetection: {x: [", "- "]),
    st.sampled_from(["]", "}", "]}}}", ""]),
)

CONFIG_TEXT = mutated() | DEEP


def as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def write(workdir: Path, name: str, data: bytes) -> str:
    path = workdir / name
    path.write_bytes(data)
    return str(path)


FORMATS = st.sampled_from(["text", "json", "sarif", "github"])
NAMES = st.sampled_from(
    ["openclaw.json5", "openclaw.json", "openclaw.yaml", "config", "caf\udcff.json5"]
)


# -- validate -------------------------------------------------------------------------------------


@given(st.binary(max_size=400), FORMATS)
def test_validate_random_bytes(data: bytes, output_format: str) -> None:
    result = invoke(["validate", "-", "--format", output_format], stdin=data)
    assert_format(result, output_format)


@given(CONFIG_TEXT, NAMES, FORMATS, st.booleans())
def test_validate_mutated_configs(
    workdir: Path, text: str, name: str, output_format: str, env_var: bool
) -> None:
    path = write(workdir, name, as_bytes(text))
    args = ["validate", path, "--format", output_format, "--verbose"]
    if env_var:
        env_file = write(
            workdir, "vars.env", "AGENT=é\u202e\nWARN=1e999\nlower=${AGENT}\n".encode()
        )
        args += ["--env-file", env_file]
    assert_format(invoke(args), output_format)


@given(CONFIG_TEXT, st.sampled_from(["json5", "json", "yaml"]), FORMATS)
def test_validate_stdin_with_forced_format(text: str, input_format: str, fmt: str) -> None:
    args = ["validate", "-", "--input-format", input_format, "--format", fmt]
    result = invoke([*args, "--stdin-filename", "in\u202e\n.json5"], stdin=as_bytes(text))
    assert_format(result, fmt)


@given(CONFIG_TEXT, NAMES, st.booleans())
def test_validate_on_a_terminal_shows_source_lines(
    workdir: Path, text: str, name: str, color: bool
) -> None:
    # Source lines and carets (tty) run other code: tabs, wide characters, long lines.
    path = write(workdir, name, as_bytes(text))
    with mock.patch.object(cli_module, "stdout_is_tty", lambda: True):
        result = invoke(["validate", path, "--verbose", *([] if color else ["--no-color"])])
    encodable(result)
    if not color:
        lines = result.stdout.splitlines()
        assert SUMMARY.match(lines[-1]), lines[-1]
        assert all(PROBLEM.match(line) or line.startswith(" ") or not line for line in lines[:-1])


# -- resolve --------------------------------------------------------------------------------------

AGENT_IDS = st.sampled_from(
    ["main", "", " ", "safe-runner", "\udcff", "a\nb", "\x1b[2J"]
) | st.text(max_size=12)


@given(CONFIG_TEXT, NAMES, AGENT_IDS, st.sampled_from(["json5", "json", "yaml", "explain", "all"]))
def test_resolve_mutated_configs(workdir: Path, text: str, name: str, agent: str, how: str) -> None:
    path = write(workdir, name, as_bytes(text))
    args = ["resolve", "--config", path]
    if how == "all":
        args += ["--all"]
    elif how == "explain":
        args += ["--agent", agent, "--explain"]
    else:
        args += ["--agent", agent, "--format", how]
    result = invoke(args)
    for line in result.stderr.splitlines():
        assert PROBLEM.match(line) or line.startswith(printable(path)), line


# -- replay ---------------------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELD_VALUES = JSON_VALUES | st.sampled_from(["read", "call_1", "toolCall", "user", "session"])


def shaped(keys: dict[str, list[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with the right field names and any values (the right ones or wrong types)."""
    return st.fixed_dictionaries(
        {}, optional={key: st.sampled_from(values) | FIELD_VALUES for key, values in keys.items()}
    )


TRACE_LINES = shaped(
    {
        "type": ["outcome", "compaction", "config", "call"],
        "session": ["s1", "default"],
        "run": ["r1"],
        "id": ["c1"],
        "tool": ["read", "exec"],
        "args": [{"path": "/a"}, {}],
        "result": ["ok"],
        "error": ["boom"],
        "agent": ["main"],
    }
)
TOOL_CALL = shaped({"type": ["toolCall"], "id": ["call_1"], "name": ["read"], "arguments": [{}]})
MESSAGE = shaped(
    {
        "role": ["user", "assistant", "toolResult", "bashExecution"],
        "content": [[], "hi"],
        "toolCallId": ["call_1"],
        "toolName": ["read"],
        "isError": [True, False],
        "details": [{"status": "error"}, {"status": "blocked", "deniedReason": "tool-loop"}],
        "stopReason": ["error", "toolUse"],
        "provider": ["openclaw"],
    }
)
TRANSCRIPT_LINES = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "compaction", "custom", "reset"]) | FIELD_VALUES},
    optional={
        "id": st.sampled_from(["a0000001", "a0000002"]) | FIELD_VALUES,
        "parentId": st.sampled_from([None, "a0000001"]) | FIELD_VALUES,
        "message": MESSAGE
        | FIELD_VALUES
        | MESSAGE.map(lambda m: {**m, "content": [{"type": "toolCall", "id": "call_1"}]})
        | st.lists(TOOL_CALL, max_size=2).map(lambda c: {"role": "assistant", "content": c}),
        "customType": st.sampled_from(["openclaw:run", "model-snapshot"]) | FIELD_VALUES,
        "data": FIELD_VALUES,
        "firstKeptEntryId": FIELD_VALUES,
    },
)
HEADER = st.sampled_from(
    [
        '{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}',
        '{"type": "session", "version": "3", "id": 5}',
        '{"type": "session"}',
    ]
)
LINE = (
    TRACE_LINES.map(json.dumps)
    | TRANSCRIPT_LINES.map(json.dumps)
    | JSON_VALUES.map(json.dumps)
    | st.sampled_from(["", "//", "{", "1e999999", "[" * 3000, '{"tool": "\\ud800"}', "\x00"])
)


@given(
    st.lists(LINE, max_size=12),
    st.sampled_from([[], [HEADER]]).flatmap(lambda h: st.tuples(*h)),
    st.sampled_from([None, "trace", "openclaw"]),
    st.sampled_from(["text", "json"]),
    st.booleans(),
    st.sampled_from([[], ["--branch", "active"], ["--no-run-scope"]]),
)
def test_replay_wrong_shapes(
    workdir: Path,
    lines: list[str],
    header: tuple[str, ...],
    input_format: str | None,
    output_format: str,
    strict: bool,
    more: list[str],
) -> None:
    data = as_bytes("\n".join([*header, *lines]) + "\n")
    path = write(workdir, "trace.jsonl", data)
    args = ["replay", path, "--jobs", "1", "--format", output_format, "--show-args"]
    args += ["--input", input_format] if input_format else []
    args += ["--strict"] if strict else []
    args += more
    result = invoke(args)
    assert "cannot replay" not in result.stderr, result.stderr  # an internal error, caught
    if result.exit_code != 2 and output_format == "json":
        strict_json(result.stdout)
    for line in result.stderr.splitlines():
        assert "\n" not in line and "\x1b" not in line


# -- explicit examples the fuzzing above found or can only rarely reach --------------------------


def encodable(result: Result) -> None:
    """What a real terminal or pipe gets is UTF-8: it must encode (no lone surrogates)."""
    result.stdout.encode("utf-8")
    result.stderr.encode("utf-8")


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github"])
def test_lone_surrogates_in_a_config_are_written_as_escapes(
    workdir: Path, output_format: str
) -> None:
    # JSON5 "\ud800" is a lone surrogate in the str; UTF-8 output of it raised before.
    text = '{tools: {loopDetection: {"\\udc00": 1}}, a: "\\ud800"}'
    path = write(workdir, "surrogate.json5", text.encode())
    result = invoke(["validate", path, "--format", output_format])
    assert result.exit_code == 1
    encodable(result)
    assert_format(result, output_format)
    # The escape reads back as the same key.
    message = 'unknown key "\udc00" in tools.loopDetection'
    if output_format == "json":
        assert json.loads(result.stdout)["files"][0]["diagnostics"][0]["message"] == message
    elif output_format == "sarif":
        assert json.loads(result.stdout)["runs"][0]["results"][0]["message"]["text"] == message
    else:
        assert 'unknown key "\\udc00"' in result.stdout


ODD_SESSION = (
    '{"tool": "\\ud800", "args": {"a": "\\udc00"}, "session": "\\u001b[31m\\nx", "result": 1}'
)


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_replay_output_escapes_what_the_trace_holds(workdir: Path, output_format: str) -> None:
    path = write(workdir, "odd.jsonl", ("\n".join([ODD_SESSION] * 12) + "\n").encode())
    args = ["replay", path, "--jobs", "1", "--show-args", "--format", output_format]
    result = invoke(args)
    assert result.exit_code == 0
    encodable(result)
    assert "\x1b" not in result.stdout
    if output_format == "json":
        assert json.loads(result.stdout)["sessions"][0]["session"] == "\x1b[31m\nx"
    else:
        assert "\\u001b[31m\\nx" in result.stdout and 'args={"a": "\\udc00"}' in result.stdout


def test_replay_notes_are_one_printable_line_each(workdir: Path) -> None:
    path = write(
        workdir, "mystery.jsonl", b'{"type": "\\u001b[2J\\n\\ud800"}\n{"tool": "a", "args": 1}\n'
    )
    result = invoke(["replay", path, "--jobs", "1"])
    encodable(result)
    for line in result.stderr.splitlines():
        assert "\x1b" not in line
    assert any(
        line.endswith('unknown line type "\\u001b[2J\\n\\ud800"')
        for line in result.stderr.splitlines()
    )


def test_resolve_unknown_agent_note_is_one_printable_line() -> None:
    config = str(EXAMPLES / "openclaw.json5")
    result = invoke(["resolve", "--config", config, "--agent", "a\nb\x1b[2J\udcff"])
    encodable(result)
    (note,) = result.stderr.splitlines()
    assert 'agent "a\\nb\\u001b[2J\\udcff" (normalised: "a-b-2j")' in note


def test_replay_json_writes_non_finite_arguments_as_strings(workdir: Path) -> None:
    # Python's JSON reads NaN and Infinity and wrote them back bare: not JSON for anyone else.
    line = '{"tool": "x", "args": {"a": NaN, "b": [Infinity, -Infinity, 1e999]}, "result": 1}'
    path = write(workdir, "nan.jsonl", ("\n".join([line] * 12) + "\n").encode())
    result = invoke(["replay", path, "--jobs", "1", "--show-args", "--format", "json"])
    assert result.exit_code == 0
    args = strict_json(result.stdout)["events"][0]["args"]
    assert args == {"a": "NaN", "b": ["Infinity", "-Infinity", "Infinity"]}


@pytest.mark.parametrize("how", [["--format", "json5"], ["--format", "yaml"], ["--explain"]])
def test_resolve_names_an_odd_file_name_printably(workdir: Path, how: list[str]) -> None:
    # A file name not UTF-8 on disk (surrogate escape) crashed the output; one with a line
    # break ended a `//` comment early.
    text = (EXAMPLES / "openclaw.json5").read_bytes()
    for name in ("caf\udcff.json5", "two\nlines.json5"):
        result = invoke(["resolve", "--config", write(workdir, name, text), *how])
        assert result.exit_code == 0
        encodable(result)
        escaped = name.replace("\udcff", "\\udcff").replace("\n", "\\n")
        assert f"{escaped}:8:7" in result.stdout
        assert len(result.stdout.splitlines()) == len(
            invoke(
                ["resolve", "--config", str(EXAMPLES / "openclaw.json5"), *how]
            ).stdout.splitlines()
        )
