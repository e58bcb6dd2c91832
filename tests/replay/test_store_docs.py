"""docs/replay.md's store section: every ```console store block is run, in a folder holding
copies of the three corpus stores (the corpus itself is never opened), and must print exactly
what the doc shows. Blocks are read as test_replay_docs.py reads its own."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from tests.replay.store_helpers import CLEAN_ENV, stores
from tests.replay.test_replay_docs import DOC, commands

__all__ = ["stores"]

STORE_BLOCK = "```console store\n"


def store_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [part.split("```\n", 1)[0] for part in text.split(STORE_BLOCK)[1:]]


def test_the_doc_has_store_examples() -> None:
    blocks = store_blocks()
    assert len(blocks) >= 3
    assert sum(len(commands(block)) for block in blocks) >= 6


@pytest.mark.parametrize("block", store_blocks())
def test_doc_store_block(stores: Path, block: str) -> None:
    last_code = 0
    for command, expected in commands(block):
        words = shlex.split(command)
        if words == ["echo", "$?"]:
            assert expected == f"{last_code}\n", command
            continue
        assert words[0] == "loopcfg", command
        discard = words[-2:] == [">", "/dev/null"]
        args = words[1:-2] if discard else words[1:]
        result = CliRunner().invoke(cli, args, env=CLEAN_ENV)
        assert "Traceback" not in result.stderr, result.stderr
        last_code = result.exit_code
        assert ("" if discard else result.stdout) == expected, command
