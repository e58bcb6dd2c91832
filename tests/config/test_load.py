"""load_config never raises: what the reader refuses comes back as one diagnostic."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from loopcfg.config import load_config, loaded_from_python
from loopcfg.source.nodes import to_python

Write = Callable[[str, str], Path]


def test_unreadable_and_unparsable_top_level_files(write: Write, tmp_path: Path) -> None:
    missing = load_config(tmp_path / "nope.json5", env={})
    assert [d.code for d in missing.diagnostics] == ["LC000"]
    assert (missing.root, missing.document) == (None, None)
    broken = load_config(write("openclaw.json5", "{ tools: "), env={})
    assert [d.code for d in broken.diagnostics] == ["LC001"]
    assert broken.root is None and not broken.ok


def test_stdin_with_includes_relative_to_the_current_directory(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write("ld.json5", "{ enabled: true }")
    monkeypatch.chdir(tmp_path)
    text = (
        '{ tools: { loopDetection: { $include: "ld.json5" } }, agents: { list: [{ id: "${A}" }] } }'
    )
    loaded = load_config("-", env={"A": "main"}, stdin=io.StringIO(text), stdin_filename="x.json5")
    assert loaded.diagnostics == []
    assert loaded.file == "x.json5"
    assert to_python(loaded.root) == {  # type: ignore[arg-type]
        "tools": {"loopDetection": {"enabled": True}},
        "agents": {"list": [{"id": "main"}]},
    }
    from_bytes = load_config("-", env={}, stdin=io.BytesIO(b"{ a: 1 }"))
    assert (from_bytes.file, to_python(from_bytes.root)) == ("<stdin>", {"a": 1})  # type: ignore[arg-type]


def test_plain_dicts() -> None:
    loaded = loaded_from_python({"tools": {"loopDetection": {"enabled": True}}})
    assert loaded.ok and loaded.root is not None and loaded.documents == {}
    block = loaded.root.get("tools").get("loopDetection")  # type: ignore[union-attr]
    assert block.get("enabled").path == ("tools", "loopDetection", "enabled")  # type: ignore[union-attr]
    assert [d.code for d in loaded_from_python("text").diagnostics] == ["LC008"]


def test_unparsed_top_file_keeps_its_text_read_once(tmp_path: Path) -> None:
    broken = tmp_path / "openclaw.json5"
    broken.write_text("{a: 1 b: 2}\n")
    loaded = load_config(str(broken), env={})
    assert [d.code for d in loaded.diagnostics] == ["LC001"]
    assert loaded.unparsed_text == "{a: 1 b: 2}\n"  # for the caret under the syntax error
    from_stdin = load_config("-", env={}, stdin=io.BytesIO(b"{a: \xff}"))
    assert from_stdin.unparsed_text == "{a: \ufffd}"  # not UTF-8: shown with replacements
    assert load_config(str(tmp_path / "missing.json5"), env={}).unparsed_text is None
    assert load_config(str(tmp_path), env={}).unparsed_text is None  # a directory: LC000
