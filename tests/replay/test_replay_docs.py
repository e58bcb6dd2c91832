"""docs/replay.md: every ```console block is run and must print exactly what the doc shows.

A block is a shell session: `$ cd DIR` (relative to the repository), `$ loopcfg ...` (run
through click, stdout compared; `> /dev/null` discards it) and `$ echo $?` (the last exit code).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from tests.conftest import REPO

DOC = REPO / "docs" / "replay.md"
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def console_blocks() -> list[str]:
    return BLOCK.findall(DOC.read_text(encoding="utf-8"))


def commands(block: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of one block."""
    pairs: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            pairs.append((line[2:].strip(), ""))
        else:
            command, output = pairs[-1]
            pairs[-1] = (command, output + line)
    return pairs


def test_the_doc_has_examples_to_run() -> None:
    blocks = console_blocks()
    assert len(blocks) >= 3
    assert sum(len(commands(b)) for b in blocks) >= 8


@pytest.mark.parametrize("block", console_blocks())
def test_doc_console_block(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    last_code = 0
    for command, expected in commands(block):
        words = shlex.split(command)
        if words[0] == "cd":
            monkeypatch.chdir(REPO / words[1])
            assert expected == ""
            continue
        if words == ["echo", "$?"]:
            assert expected == f"{last_code}\n", command
            continue
        assert words[0] == "loopcfg", command
        discard = words[-2:] == [">", "/dev/null"]
        args = words[1:-2] if discard else words[1:]
        result = CliRunner().invoke(cli, args)
        assert "Traceback" not in result.stderr, result.stderr
        last_code = result.exit_code
        assert ("" if discard else result.stdout) == expected, command


def test_doc_examples_exist_and_are_used() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in ("stuck-edit.jsonl", "long-build.jsonl", "current.json5", "tuned.json5"):
        assert (Path(REPO) / "examples" / "replay" / name).is_file()
        assert name in text
