"""2026.9 transcripts (07 §7.1, §7.3; 09 §9.4.6): run ids on messages, batches, the warning note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopcfg.replay.events import Call, Outcome, RunId
from loopcfg.replay.transcript import without_warning_note

from .helpers import jsonl, read_file

NOTE = (
    "[System note: Tool-loop warning after 10 repeated calls. Change your approach or stop if "
    "you are not making progress.]"
)


def user(entry_id: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "message": {"role": "user", "content": "go"}}


def assistant(entry_id: str, run_id: str | None, *calls: str) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {"type": "toolCall", "id": call, "name": "read", "arguments": {"p": call}}
            for call in calls
        ],
    }
    if run_id is not None:
        message["__openclaw"] = {"runId": run_id}
    return {"type": "message", "id": entry_id, "message": message}


def result(entry_id: str, call: str, run_id: str | None, text: str = "ok") -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": call,
        "toolName": "read",
        "content": [{"type": "text", "text": text}],
        "isError": False,
    }
    if run_id is not None:
        message["__openclaw"] = {"runId": run_id}
    return {"type": "message", "id": entry_id, "message": message}


def read(tmp_path: Path, *entries: dict[str, Any]) -> list[Any]:
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 4, "id": "sess", "timestamp": "t", "cwd": "/"}
    path.write_text(jsonl(header, *entries), encoding="utf-8")
    return read_file(path)


def test_run_ids_on_messages_scope_the_runs(tmp_path: Path) -> None:
    events = read(
        tmp_path,
        user("u1"),
        assistant("a1", " R1 ", "c1", "c2"),  # trimmed, binds the boundary run
        result("t1", "c1", "R1"),
        assistant("a2", "R2", "c3"),  # a second run before the next user message
        user("u2"),
        assistant("a3", "R1", "c4"),  # queued into R1: joins its run across the user message
        assistant("a4", None, "c5"),  # no id: the boundary run (run-3, opened by u2)
        result("t5", "c9", "R2"),  # an orphan with an id goes to that id's run
    )
    calls = {event.call_id: (event.run, event.batch) for event in events if isinstance(event, Call)}
    assert calls == {
        "c1": ("run-1", "a1"),
        "c2": ("run-1", "a1"),
        "c3": ("run-2", "a2"),
        "c4": ("run-1", "a3"),
        "c5": ("run-3", "a4"),
    }
    named = [(event.run, event.run_id) for event in events if isinstance(event, RunId)]
    assert named[:2] == [("run-1", "R1"), ("run-2", "R2")]
    orphan = [event for event in events if isinstance(event, Outcome) and event.orphan]
    assert [event.run for event in orphan] == ["run-2"]


def test_files_without_run_ids_replay_as_before(tmp_path: Path) -> None:
    events = read(tmp_path, user("u1"), assistant("a1", None, "c1"), user("u2"),
                  assistant("a2", None, "c2"))  # fmt: skip
    assert [e.run for e in events if isinstance(e, Call)] == ["run-1", "run-2"]
    assert not [e for e in events if isinstance(e, RunId)]


def test_the_warning_note_is_dropped_before_hashing(tmp_path: Path) -> None:
    events = read(tmp_path, user("u1"), assistant("a1", "R", "c1"),
                  result("t1", "c1", "R", "ok"))  # fmt: skip
    entry = result("t1", "c1", "R", "ok")
    entry["message"]["content"].append({"type": "text", "text": NOTE})
    noted = read(tmp_path, user("u1"), assistant("a1", "R", "c1"), entry)
    plain_result = [e.result for e in events if isinstance(e, Outcome)]
    noted_result = [e.result for e in noted if isinstance(e, Outcome)]
    assert plain_result == noted_result
    other = [{"type": "text", "text": "ok"}, {"type": "text", "text": NOTE + " more"}]
    assert without_warning_note(other) == other  # only the exact note, only last
