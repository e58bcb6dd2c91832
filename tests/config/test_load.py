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


def _paths(node: object) -> list[tuple[object, ...]]:
    from loopcfg.source.nodes import ArrayNode, ObjectNode

    assert isinstance(node, ObjectNode | ArrayNode) or hasattr(node, "value")
    found = [node.path]  # type: ignore[attr-defined]
    if isinstance(node, ObjectNode):
        for entry in node.entries:
            found += _paths(entry.value)
    elif isinstance(node, ArrayNode):
        for item in node.items:
            found += _paths(item)
    return found


@pytest.mark.parametrize(
    "text",
    [
        "{ tools: { loopDetection: { enabled: true } }, agents: { list: [{ id: 'a' }] } }",
        "tools:\n  loopDetection:\n    enabled: true\nagents:\n  list:\n    - id: a\n",
    ],
)
def test_a_file_without_dollar_is_loaded_as_parsed(write: Write, text: str) -> None:
    """Nothing to include or substitute: the parsed tree is the loaded one, with the paths
    a copy would have been given."""
    from loopcfg.config import set_paths
    from loopcfg.includes import IncludeResolver

    name = "openclaw.yaml" if text.startswith("tools:") else "openclaw.json5"
    loaded = load_config(write(name, text), env={})
    assert loaded.document is not None and loaded.root is loaded.document.root
    copy = IncludeResolver(Path(name), name, {}, []).resolve_top(loaded.root)
    set_paths(copy)
    assert _paths(loaded.root) == _paths(copy)
    assert to_python(loaded.root) == to_python(copy)


@pytest.mark.parametrize(
    "key", ["$include", "\\u0024include", "'\\u0024include'", '"\\x24include"', "'\\X24include'"]
)
def test_an_escaped_dollar_still_includes_and_substitutes(write: Write, key: str) -> None:
    """An unquoted key with a \\u escape, quoted keys with \\u and \\x escapes: each spells
    `$include` without a literal "$" (a \\X that JSON5 reads as X is merely copied)."""
    write("ld.json5", "{ enabled: true }")
    text = f'{{ tools: {{ loopDetection: {{ {key}: "ld.json5" }} }}, a: 1 }}'
    loaded = load_config(write("openclaw.json5", text), env={})
    includes = key != "'\\X24include'"
    assert loaded.document is not None
    # What an include replaced is new; with nothing to include, the parsed tree is kept.
    assert (loaded.root is not loaded.document.root) is includes
    block = {"enabled": True} if includes else {"X24include": "ld.json5"}
    assert to_python(loaded.root) == {"tools": {"loopDetection": block}, "a": 1}  # type: ignore[arg-type]


def test_an_escaped_dollar_still_substitutes(write: Write) -> None:
    text = '{ agents: { list: [{ id: "\\u0024{A}" }] } }'
    loaded = load_config(write("openclaw.json5", text), env={"A": "main"})
    assert to_python(loaded.root) == {"agents": {"list": [{"id": "main"}]}}  # type: ignore[arg-type]


def test_yaml_escapes_of_dollar_are_noticed(write: Write) -> None:
    write("ld.json5", "{ enabled: true }")
    text = 'tools:\n  loopDetection:\n    "\\U00000024include": ld.json5\n'
    loaded = load_config(write("openclaw.yaml", text), env={})
    assert loaded.diagnostics == []
    assert to_python(loaded.root) == {"tools": {"loopDetection": {"enabled": True}}}  # type: ignore[arg-type]
