"""Golden outputs of the real engine on examples/replay, and the 06 §6.3 JSON shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from tests.conftest import EXAMPLES

from .helpers import check_golden

FILES = ("long-build.jsonl", "stuck-edit.jsonl", "fetch-retry.trace")
# 06 §6.3, plus `runId` (07 §7.3: the real run id once known).
EVENT_KEYS = {
    "file", "line", "session", "run", "runId", "call", "tool", "level", "detector", "count",
    "message", "key", "emitted",
}  # fmt: skip
ABORT_KEYS = {"file", "line", "session", "run", "runId", "tool", "count", "code", "message"}
SESSION_KEYS = {
    "file", "session", "calls", "skipped", "warnings", "blocks", "firstBlockLine", "aborted",
    "orphanResults",
}  # fmt: skip


@pytest.fixture(autouse=True)
def in_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES / "replay")


def replay(*args: str) -> Any:
    result = CliRunner().invoke(cli, ["replay", *FILES, "--config", "current.json5", *args])
    assert "Traceback" not in result.stderr
    return result


def test_json_golden() -> None:
    result = replay("--format", "json")
    assert result.exit_code == 0
    check_golden("examples.json", result.stdout)


def test_json_has_exactly_the_spec_fields() -> None:
    document = json.loads(replay("--format", "json").stdout)
    assert set(document) == {"version", "openclaw", "events", "aborts", "sessions"}
    assert document["version"] == 1
    # 06 §6.3.1: the target and its engine, once (here: none given, so E6.5).
    assert document["openclaw"] == {"target": None, "source": "none", "engine": "E6.5"}
    assert document["events"] and document["aborts"] and document["sessions"]
    assert all(set(e) == EVENT_KEYS for e in document["events"])
    assert all(set(a) == ABORT_KEYS for a in document["aborts"])
    assert all(set(s) == SESSION_KEYS for s in document["sessions"])
    (abort,) = document["aborts"]
    assert (abort["line"], abort["tool"], abort["code"]) == (
        58,
        "exec",
        "compaction_loop_persisted",
    )


def test_json_show_args_adds_only_args() -> None:
    document = json.loads(replay("--format", "json", "--show-args").stdout)
    assert all(set(e) == EVENT_KEYS | {"args"} for e in document["events"])
    assert document["events"][0]["args"] == {"action": "poll", "sessionId": "s1"}


def test_text_golden_and_privacy() -> None:
    result = replay()
    check_golden("examples.txt", result.stdout)
    for private in ("notes.md", "npm test", "status.example.com", "Could not find"):
        assert private not in result.stdout
    assert "notes.md" in replay("--show-args").stdout


def test_compare_json_golden() -> None:
    result = replay("--compare", "tuned.json5", "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["summary"]["gains a block"] == 1
    check_golden("compare.json", result.stdout)


def test_compare_two_agents_text_golden() -> None:
    result = CliRunner().invoke(
        cli,
        ["replay", *FILES, "--config", "current.json5", "--agent", "main", "--agent", "ops"],
    )
    assert result.exit_code == 0
    check_golden("compare-agents.txt", result.stdout)
