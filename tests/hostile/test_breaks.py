"""Each red-team break of issue 13, reproduced: every test here failed before the fix."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.config import load_config
from loopcfg.includes import MAX_INCLUDE_LOADS
from loopcfg.source.yaml import MAX_ALIAS_NODES
from tests.conftest import REPO
from tests.hostile.helpers import HANG, loopcfg_process, no_traceback

ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None}
CONFIG = "{ tools: { loopDetection: { enabled: true } } }\n"


def run(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, args, input=stdin, env=ENV, catch_exceptions=False)
    no_traceback(result.stdout, result.stderr)
    return result.exit_code, result.stdout, result.stderr


def alias_bomb(levels: int, fan: int = 9) -> str:
    """`levels` anchors, each a list of `fan` aliases of the one before: fan**levels values."""
    lines = [f"a0: &a0 [{', '.join(['x'] * fan)}]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * fan)}]" for n in range(1, levels)]
    return "\n".join([*lines, "tools: {loopDetection: {enabled: true}}", ""])


# -- 1. YAML alias bomb ---------------------------------------------------------------------------


def test_yaml_alias_bomb_is_refused_with_a_located_lc001(tmp_path: Path) -> None:
    # 9**6 = 531,441 values from 300 bytes (the 520-byte one of the report never finished).
    path = tmp_path / "openclaw.yaml"
    path.write_text(alias_bomb(6), encoding="utf-8")
    loaded = load_config(path)
    assert [d.code for d in loaded.diagnostics] == ["LC001"]
    found = loaded.diagnostics[0]
    assert "alias" in found.message and str(MAX_ALIAS_NODES) in found.message
    assert found.span is not None and found.span.line >= 1


def test_yaml_aliases_within_the_budget_still_expand(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.yaml"
    path.write_text(
        "base: &base {warningThreshold: 4, criticalThreshold: 8}\n"
        "tools:\n  loopDetection:\n    <<: *base\n    enabled: true\n"
        "agents:\n  list:\n    - id: a\n      tools: {loopDetection: *base}\n",
        encoding="utf-8",
    )
    loaded = load_config(path)
    assert loaded.ok, loaded.diagnostics
    assert loaded.root is not None
    block = loaded.root.get("tools").get("loopDetection")  # type: ignore[union-attr]
    assert block.get("criticalThreshold").value == 8  # type: ignore[union-attr]


def test_an_included_yaml_alias_bomb_is_refused_at_the_include(tmp_path: Path) -> None:
    (tmp_path / "part.yaml").write_text(alias_bomb(6), encoding="utf-8")
    top = tmp_path / "openclaw.json5"
    top.write_text('{ $include: "./part.yaml" }\n', encoding="utf-8")
    loaded = load_config(top)
    assert [d.code for d in loaded.diagnostics] == ["LC005"]
    assert "alias" in loaded.diagnostics[0].message


def merge_bomb(levels: int, fan: int = 10) -> str:
    """`levels` anchors, each a mapping that `<<` merges `fan` aliases of the one before, the
    first an empty mapping: fan**levels walks and no value to count (the 636-byte one of the
    issue 15 red-team never finished)."""
    lines = ["a0: &a0 {}"]
    lines += [f"a{n}: &a{n} {{<<: [{', '.join([f'*a{n - 1}'] * fan)}]}}" for n in range(1, levels)]
    return "\n".join([*lines, "tools: {loopDetection: {enabled: true}}", ""])


@pytest.mark.parametrize("levels", [6, 10])
def test_yaml_merge_bomb_is_refused_by_the_alias_budget(tmp_path: Path, levels: int) -> None:
    path = tmp_path / "openclaw.yaml"
    path.write_text(merge_bomb(levels), encoding="utf-8")
    loaded = load_config(path)
    assert [d.code for d in loaded.diagnostics] == ["LC001"]
    assert str(MAX_ALIAS_NODES) in loaded.diagnostics[0].message


@pytest.mark.parametrize(
    "text",
    [
        "a: &a\n  x: 1\n  <<: *a\ntools: {}\n",  # merges itself
        "a: &a\n  x: 1\n  <<: [*a]\ntools: {}\n",
        # through a mapping it holds: the value loop is met first, as nesting
        "a: &a\n  x: 1\n  b: &b\n    <<: *a\n  <<: *b\n",
    ],
)
def test_a_mapping_that_merges_itself_is_one_lc001(tmp_path: Path, text: str) -> None:
    path = tmp_path / "openclaw.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(["validate", str(path)])
    assert code == 1
    assert out.count("LC001 error:") == 1
    assert "<< merge takes in the mapping" in out or "nesting deeper than 200" in out


# -- 2. $include fan-out --------------------------------------------------------------------------


def fan_out(folder: Path, files: int = 12, times: int = 10) -> Path:
    """Each file includes the next `times` times: times**files loads without a budget."""
    for n in range(files):
        names = ", ".join([f'"f{n + 1}.json5"'] * times)
        body = f"{{ a{n}: {{ $include: [{names}] }} }}" if n < files - 1 else "{ leaf: 1 }"
        (folder / f"f{n}.json5").write_text(body, encoding="utf-8")
    top = folder / "openclaw.json5"
    top.write_text('{ tools: { loopDetection: {} }, x: { $include: "f0.json5" } }\n')
    return top


def test_include_fan_out_stops_at_the_budget_with_one_lc005(tmp_path: Path) -> None:
    loaded = load_config(fan_out(tmp_path, files=6))  # 10**5 loads before the fix
    budget = [d for d in loaded.diagnostics if "add up to more than" in d.message]
    assert len(budget) == 1, loaded.diagnostics
    assert budget[0].code == "LC005" and str(MAX_INCLUDE_LOADS) in budget[0].message
    assert budget[0].span is not None


def test_each_included_file_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import loopcfg.source as source

    (tmp_path / "part.json5").write_text("{ warningThreshold: 4 }\n", encoding="utf-8")
    items = ", ".join(['{ $include: "part.json5" }'] * 20)
    top = tmp_path / "openclaw.json5"
    top.write_text(f"{{ tools: {{ loopDetection: {{}} }}, many: [{items}] }}\n")
    parsed: list[str] = []
    real_parse = source.parse_text

    def counting(text: str, file: str, format: str = "json5") -> object:
        parsed.append(file)
        return real_parse(text, file, format)

    monkeypatch.setattr(source, "parse_text", counting)
    loaded = load_config(top)
    assert loaded.ok, loaded.diagnostics
    assert sum(name.endswith("part.json5") for name in parsed) == 1


# -- 3. tracebacks --------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [str(2**62), str(2**63), str(10**30)])
def test_huge_max_bytes_is_a_one_line_usage_error(tmp_path: Path, value: str) -> None:
    path = tmp_path / "openclaw.json5"
    path.write_text(CONFIG)
    code, out, err = run(["validate", str(path), "--max-bytes", value])
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "--max-bytes" in err


def test_env_file_dev_zero_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json5"
    path.write_text(CONFIG)
    code, _, err = run(["validate", str(path), "--env-file", "/dev/zero"])
    assert code == 2
    assert err.splitlines() == ["/dev/zero: LC000 error: env file /dev/zero is larger than 1 MiB"]


def test_stdout_closed_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json5").write_text(CONFIG)
    done = loopcfg_process(["validate", "openclaw.json5"], tmp_path, shell_redirect=">&-")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["loopcfg: error: standard output is closed"]


def test_stdout_full_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json5").write_text(CONFIG)
    for args in (["validate", "openclaw.json5"], ["schema"], ["explain", "LC102"]):
        done = loopcfg_process(args, tmp_path, shell_redirect="> /dev/full")
        assert done.returncode == 2, (args, done.stderr)
        [line] = done.stderr.splitlines()
        assert "cannot write the output: No space left on device" in line


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["validate", "--help"]])
def test_help_and_version_to_a_full_stdout_are_one_line_exit_2(
    tmp_path: Path, args: list[str]
) -> None:
    # click writes these itself, before any command runs.
    done = loopcfg_process(args, tmp_path, shell_redirect="> /dev/full")
    assert done.returncode == 2, done.stderr
    assert done.stderr == "loopcfg: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_replay_to_a_full_stdout_is_one_line_exit_2(
    tmp_path: Path, jobs: str, output_format: str
) -> None:
    # In this process (--jobs 1) the output is written while a file replays: its failure must
    # not pass for that file's problem ("cannot replay"), once per file, but stop the run.
    traces = []
    for number in range(3):
        trace = tmp_path / f"t{number}.jsonl"
        calls = [{"session": "s", "tool": "read", "args": {"path": "a"}}] * 12
        trace.write_text("".join(json.dumps(call) + "\n" for call in calls))
        traces.append(trace.name)
    args = ["replay", *traces, "--jobs", jobs, "--format", output_format]
    done = loopcfg_process(args, tmp_path, shell_redirect="> /dev/full")
    assert done.returncode == 2, done.stderr
    no_traceback(done.stderr)
    assert "cannot replay" not in done.stderr
    [line] = [line for line in done.stderr.splitlines() if "error" in line]
    assert line == "loopcfg replay: error: cannot write the output: No space left on device"


def test_stdin_closed_is_lc000_exit_2(tmp_path: Path) -> None:
    done = loopcfg_process(["validate", "-"], tmp_path, shell_redirect="<&-")
    assert done.returncode == 2
    no_traceback(done.stdout, done.stderr)
    assert "<stdin>: LC000 error: standard input is closed" in done.stdout


def test_replay_on_an_ascii_stdout_escapes_instead_of_failing(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"type":"session","id":"sé🦞"}\n', encoding="utf-8")
    for output_format in ("text", "json"):
        done = loopcfg_process(
            ["replay", "t.jsonl", "--format", output_format],
            tmp_path,
            env={"PYTHONIOENCODING": "ascii"},
        )
        no_traceback(done.stdout, done.stderr)
        assert done.returncode == 0, done.stderr
        assert done.stdout.isascii()
        if output_format == "json":  # the escapes keep the JSON valid and the id the same
            assert "sé🦞" in json.dumps(json.loads(done.stdout), ensure_ascii=False)


def test_fifo_with_no_writer_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "openclaw.json5").write_text(CONFIG)
    (tmp_path / "t.jsonl").write_text('{"type":"session","id":"s"}\n')
    for args in (
        ["validate", "openclaw.json5", "--env-file", "pipe"],
        ["validate", "pipe"],
        ["replay", "t.jsonl", "--trajectory", "pipe"],
        ["replay", "pipe"],
    ):
        done = loopcfg_process(args, tmp_path)  # a hang fails by the subprocess timeout
        assert done.returncode in (0, 1, 2), (args, done.stderr)
        no_traceback(done.stdout, done.stderr)


# -- 4. $include symlink race ---------------------------------------------------------------------


def test_include_swapped_to_an_outside_link_after_the_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link is swapped exactly between the check of the name and the open: the check on
    the opened descriptor must see the outside file (before the fix, its text was read)."""
    import loopcfg.files as files

    config_dir, outside = tmp_path / "config", tmp_path / "secret.json5"
    config_dir.mkdir()
    outside.write_text('{ SECRET: "outside" }\n')
    (config_dir / "inner.json5").write_text("{ warningThreshold: 4 }\n")
    link = config_dir / "part.json5"
    link.symlink_to("inner.json5")
    top = config_dir / "openclaw.json5"
    top.write_text('{ tools: { loopDetection: { $include: "./part.json5" } } }\n')
    real_open = files.open_nonblocking

    def swap_then_open(path: str | os.PathLike[str], *, follow: bool = True) -> int:
        if Path(path).name == "part.json5":
            link.unlink()
            link.symlink_to(outside)
        return real_open(path, follow=follow)

    monkeypatch.setattr(files, "open_nonblocking", swap_then_open)
    loaded = load_config(top)
    assert [d.code for d in loaded.diagnostics] == ["LC005"]
    assert "outside the config directory" in loaded.diagnostics[0].message
    assert all("SECRET" not in document.text for document in loaded.documents.values())


# -- 5. workflow-command injection ----------------------------------------------------------------


def test_no_text_line_starts_with_two_colons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "::stop-commands::x.json5"
    (tmp_path / name).write_text('{ tools: { loopDetection: { warningThreshold: "x" } } }\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["validate", name])
    assert code == 1
    assert not [line for line in out.splitlines() if line.lstrip().startswith("::")]
    assert out.startswith("./::stop-commands::x.json5:1:")


def test_github_overflow_lines_do_not_start_with_two_colons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "::error::x.json5"
    keys = ", ".join(f"bad{n}: 1" for n in range(12))
    (tmp_path / name).write_text(f"{{ tools: {{ loopDetection: {{ {keys} }} }} }}\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["validate", name, "--format", "github"])
    assert code == 1
    lines = out.splitlines()
    plain = [line for line in lines if not line.startswith(("::error ", "::notice title="))]
    assert len(plain) >= 3  # two overflow lines and the summary
    assert not [line for line in plain if line.lstrip().startswith("::")]


def test_replay_session_names_do_not_start_lines_with_two_colons(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text('{"type":"session","id":"::error::boom"}\n')
    code, out, _ = run(["replay", str(tmp_path / "t.jsonl")])
    assert code == 0
    assert not [line for line in out.splitlines() if line.lstrip().startswith("::")]


# -- 6. Ctrl-C ------------------------------------------------------------------------------------


def _blocked_in_read(pid: int) -> bool:
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False
    return "pipe" in wchan or wchan == "do_select"


def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "loopcfg", "validate", "-"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Wait until it is reading its (never ending) input, so the signal meets loopcfg's
        # handler and not the interpreter's start-up.
        for _ in range(HANG * 10):
            if _blocked_in_read(process.pid):
                break
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=HANG)
    finally:
        process.kill()
    assert process.returncode == 130
    assert err.splitlines() == ["loopcfg: interrupted"]
    assert out == ""


# -- 7. smaller -----------------------------------------------------------------------------------


def test_a_100_kb_agent_id_is_shortened_in_lc106_and_lc108(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json5"
    path.write_text(
        '{ agents: { list: [ { id: "${BIG}", tools: { loopDetection: { enabled: true } } },'
        ' { id: "${BIG}" } ] } }\n'
    )
    big = "A" * 100_000
    result = CliRunner().invoke(
        cli, ["validate", str(path)], env={**ENV, "BIG": big}, catch_exceptions=False
    )
    codes = {line.split(": ")[1].split()[0] for line in result.stdout.splitlines()[:-1]}
    assert {"LC106", "LC108"} <= codes, result.stdout
    for line in result.stdout.splitlines():
        assert len(line) < 1000, line[:200]
    assert "characters)…" in result.stdout


def test_a_bom_before_the_transcript_header_is_not_malformed(tmp_path: Path) -> None:
    trace = tmp_path / "s.jsonl"
    header = '{"type":"session","version":3,"id":"sess-1","timestamp":"2026-01-01T00:00:00Z"}\n'
    trace.write_bytes(b"\xef\xbb\xbf" + header.encode())
    code, out, err = run(["replay", str(trace), "--input", "openclaw", "--format", "json"])
    assert code == 0, err
    assert "LC001" not in err + out
    document = json.loads(out)
    assert "sess-1" in json.dumps(document)


def test_a_set_in_arguments_hashes_the_same_in_every_process(tmp_path: Path) -> None:
    script = (
        "from loopcfg.hashing import args_hash;"
        "print(args_hash('t', {'a': {'alpha', 'beta', 'gamma', 'delta'}, 'b': frozenset({1})}))"
    )
    hashes = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
            timeout=HANG,
        ).stdout
        for seed in range(6)
    }
    assert len(hashes) == 1, hashes
