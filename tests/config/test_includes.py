"""`$include` (01 §1.4): every refusal, the merge semantics, and where values came from."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopcfg.config import load_config
from loopcfg.includes import BLOCKED_MERGE_KEYS, deep_merge
from loopcfg.source.nodes import from_python, to_python

Write = Callable[[str, str], Path]


def _codes(loaded: Any) -> list[str]:
    return [d.code for d in loaded.diagnostics]


def _only(loaded: Any, code: str = "LC005") -> Any:
    assert _codes(loaded) == [code], [d.message for d in loaded.diagnostics]
    return loaded.diagnostics[0]


def test_include_replaces_the_object_with_the_file(write: Write) -> None:
    write("ld.json5", "{ enabled: true, historySize: 40 }")
    top = write("openclaw.json5", '{ tools: { loopDetection: { $include: "./ld.json5" } } }')
    loaded = load_config(top, env={})
    assert loaded.diagnostics == []
    assert to_python(loaded.root) == {
        "tools": {"loopDetection": {"enabled": True, "historySize": 40}}
    }
    assert set(loaded.documents) == {str(top), str(top.parent / "ld.json5")}


def test_siblings_win_over_included_content(write: Write) -> None:
    write("ld.json5", "{ enabled: false, historySize: 40, detectors: { pingPong: false } }")
    top = write(
        "openclaw.json5",
        '{ tools: { loopDetection: { $include: "ld.json5", enabled: true,'
        " detectors: { genericRepeat: false } } } }",
    )
    block = to_python(load_config(top, env={}).root)["tools"]["loopDetection"]  # type: ignore[index]
    assert block == {
        "enabled": True,
        "historySize": 40,
        "detectors": {"pingPong": False, "genericRepeat": False},
    }


def test_array_of_paths_merges_in_order_and_arrays_concatenate(write: Write) -> None:
    write("a.json5", '{ list: [{ id: "a" }], x: 1, o: { p: 1 } }')
    write("b.json5", '{ list: [{ id: "b" }], x: 2, o: { q: 2 } }')
    top = write("openclaw.json5", '{ agents: { $include: ["a.json5", "b.json5"] } }')
    agents = to_python(load_config(top, env={}).root)["agents"]  # type: ignore[index]
    assert agents == {"list": [{"id": "a"}, {"id": "b"}], "x": 2, "o": {"p": 1, "q": 2}}


def test_nested_includes_resolve_relative_to_the_including_file(write: Write) -> None:
    write("parts/agents.json5", '{ list: [{ $include: "./main.json5" }] }')
    write("parts/main.json5", '{ id: "main", tools: { loopDetection: { enabled: true } } }')
    top = write("openclaw.json5", '{ agents: { $include: "parts/agents.json5" } }')
    loaded = load_config(top, env={})
    assert loaded.diagnostics == []
    assert to_python(loaded.root)["agents"]["list"][0]["id"] == "main"  # type: ignore[index]
    # Paths are those of the merged document, spans point into the file that wrote the value.
    agent = loaded.root.get("agents").get("list").items[0]  # type: ignore[union-attr]
    assert agent.path == ("agents", "list", 0)
    block = agent.get("tools").get("loopDetection")
    assert block.get("enabled").path == ("agents", "list", 0, "tools", "loopDetection", "enabled")
    assert block.get("enabled").span.file == str(top.parent / "parts" / "main.json5")


def test_blocked_keys_are_dropped_when_merging(write: Write) -> None:
    write("a.json5", "{ x: 1 }")
    top = write(
        "openclaw.json5",
        '{ $include: "a.json5", constructor: 1, prototype: 2, __proto__: 3, y: 4 }',
    )
    assert to_python(load_config(top, env={}).root) == {"x": 1, "y": 4}


def test_missing_file_names_include_and_resolved_path(write: Write, tmp_path: Path) -> None:
    top = write("openclaw.json5", '{ tools: { $include: "./nope.json5" } }')
    diagnostic = _only(load_config(top, env={}))
    resolved = os.path.realpath(tmp_path / "nope.json5")
    assert (
        diagnostic.message == f'`$include` "./nope.json5" (resolved to {resolved}) does not exist'
    )
    assert diagnostic.file == str(top)


def test_parse_error_in_included_file(write: Write, tmp_path: Path) -> None:
    write("bad.json5", "{ enabled: ")
    top = write("openclaw.json5", '{ tools: { loopDetection: { $include: "bad.json5" } } }')
    loaded = load_config(top, env={})
    diagnostic = _only(loaded)
    resolved = os.path.realpath(tmp_path / "bad.json5")
    assert diagnostic.message.startswith(
        f'`$include` "bad.json5" (resolved to {resolved}) cannot be parsed: '
    )
    assert diagnostic.related and diagnostic.related[0].span.file == str(tmp_path / "bad.json5")
    # The failed include contributes nothing: the block is empty, not broken.
    assert to_python(loaded.root) == {"tools": {"loopDetection": {}}}


def test_non_string_paths(write: Write) -> None:
    top = write("openclaw.json5", "{ tools: { $include: 3 } }")
    message = _only(load_config(top, env={})).message
    assert message == "`$include` must be a path or an array of paths (strings), got 3"
    top = write("other.json5", '{ tools: { $include: ["ok.json5", null] } }')
    write("ok.json5", "{ a: 1 }")
    loaded = load_config(top, env={})
    assert _only(loaded).message == "`$include` array items must be paths (strings), got null"
    assert to_python(loaded.root) == {"tools": {"a": 1}}


def test_cycle_shows_the_chain(write: Write, tmp_path: Path) -> None:
    write("a.json5", '{ $include: "b.json5" }')
    write("b.json5", '{ $include: "a.json5" }')
    top = write("openclaw.json5", '{ tools: { $include: "a.json5" } }')
    a, b = str(tmp_path / "a.json5"), str(tmp_path / "b.json5")
    assert _only(load_config(top, env={})).message == f"`$include` cycle: {a} -> {b} -> {a}"


def test_including_the_top_level_file_is_a_cycle(write: Write, tmp_path: Path) -> None:
    top = write("openclaw.json5", '{ tools: { $include: "openclaw.json5" } }')
    assert _only(load_config(top, env={})).message == f"`$include` cycle: {top} -> {top}"


def test_escaping_the_config_directory(write: Write, tmp_path: Path) -> None:
    write("outside.json5", "{ a: 1 }")
    top = write("conf/openclaw.json5", '{ tools: { $include: "../outside.json5" } }')
    message = _only(load_config(top, env={})).message
    assert message.endswith(f"is outside the config directory {os.path.realpath(top.parent)}")
    absolute = write(
        "conf/abs.json5", '{ tools: { $include: "%s" } }' % (tmp_path / "outside.json5")
    )
    assert "is outside the config directory" in _only(load_config(absolute, env={})).message


def test_a_symlink_that_leads_outside_is_refused(write: Write, tmp_path: Path) -> None:
    write("outside.json5", "{ a: 1 }")
    top = write("conf/openclaw.json5", '{ tools: { $include: "link.json5" } }')
    (top.parent / "link.json5").symlink_to(tmp_path / "outside.json5")
    assert "is outside the config directory" in _only(load_config(top, env={})).message


def _nested(depth: int, inner: str) -> str:
    return "{ a: " * (depth - 1) + "{ " + inner + " }" + " }" * (depth - 1)


def test_content_nested_past_the_parsers_limit_where_it_lands_is_refused(write: Write) -> None:
    """Each file is held to 200 levels by the parser, and so is the config their includes
    build, which every later step walks."""
    from loopcfg.source.json5 import MAX_DEPTH

    write("f0.json5", _nested(120, '$include: "./f1.json5"'))
    write("f1.json5", _nested(120, "last: true"))
    top = write("openclaw.json5", '{ tools: { $include: "./f0.json5" } }')
    diagnostic = _only(load_config(top, env={}))
    assert diagnostic.message == (
        '`$include` "./f1.json5": its content (120 levels deep) placed here, 120 levels down, '
        f"would nest the config deeper than {MAX_DEPTH} levels"
    )
    assert diagnostic.file == str(top.parent / "f0.json5") and diagnostic.span is not None
    # The limit itself: a config nested exactly 200 levels is loaded, one more is not (the
    # included root takes the place of the object that holds the `$include`).
    write("deep.json5", _nested(MAX_DEPTH - 1, "x: 1"))
    exact = write("exact.json5", '{ x: { $include: "./deep.json5" } }')
    assert load_config(exact, env={}).diagnostics == []
    write("deeper.json5", _nested(MAX_DEPTH, "x: 1"))
    assert load_config(write("whole.json5", '{ $include: "./deeper.json5" }')).diagnostics == []
    over = write("over.json5", '{ x: { $include: "./deeper.json5" } }')
    assert "deeper than 200 levels" in _only(load_config(over, env={})).message


@pytest.mark.parametrize("suffix", ["json5", "yaml"])
def test_a_chain_of_deep_files_is_one_finding_not_a_crash(write: Write, suffix: str) -> None:
    """Files of 190 levels including each other (this raised a RecursionError out of
    `load_config` and `check_file`): one LC005 at the include that would nest too deep, the
    same for YAML, whose parser had run out of stack there and blamed the file."""
    from loopcfg.check import check_file

    def text(index: int) -> str:
        inner = f'$include: "./f{index + 1}.{suffix}"' if index < 3 else "last: true"
        return _nested(190, inner)  # JSON5's flow style is YAML too

    for index in range(4):
        write(f"f{index}.{suffix}", text(index))
    top = write("openclaw.json5", f'{{ tools: {{ $include: "./f0.{suffix}" }} }}')
    assert _only(load_config(top, env={})).message == (
        f'`$include` "./f1.{suffix}": its content (190 levels deep) placed here, 190 levels '
        "down, would nest the config deeper than 200 levels"
    )
    assert [d.code for d in check_file(str(top)).diagnostics].count("LC005") == 1


def test_an_array_of_includes_is_not_counted_as_a_level(write: Write) -> None:
    """The `$include` value is replaced when resolved: a config of exactly 200 levels through
    an array of includes is loaded, as through a single one."""
    write("leaf.json5", "{ x: 1 }")
    # 199 objects, the innermost holding the array: 200 levels for the parser, 199 once
    # the array is replaced; placed one level down, with the leaf's object: 200 in all.
    write("mid.json5", _nested(199, '$include: ["./leaf.json5"]'))
    top = write("openclaw.json5", '{ a: { $include: "./mid.json5" } }')
    assert load_config(top, env={}).diagnostics == []
    write("leaf.json5", "{ x: { y: 1 } }")  # one more: 201
    assert "deeper than 200 levels" in _only(load_config(top, env={})).message


def test_depth_ten_is_allowed_eleven_is_not(write: Write) -> None:
    for level in range(1, 12):
        write(f"d{level}.json5", f'{{ $include: "d{level + 1}.json5", level: {level} }}')
    write("d12.json5", "{ last: true }")
    top = write("openclaw.json5", '{ tools: { $include: "d1.json5" } }')
    diagnostic = _only(load_config(top, env={}))
    assert "d11.json5" in diagnostic.message
    assert "nests includes deeper than 10 levels" in diagnostic.message
    write("d10.json5", "{ last: true }")  # now the deepest file is at depth 10
    assert load_config(top, env={}).diagnostics == []


def test_not_a_regular_file_and_too_large(write: Write, tmp_path: Path) -> None:
    (tmp_path / "dir.json5").mkdir()
    top = write("openclaw.json5", '{ tools: { $include: "dir.json5" } }')
    assert _only(load_config(top, env={})).message.endswith("is not a regular file")
    write("big.json5", "{ a: '" + "x" * (2 * 1024 * 1024) + "' }")
    top = write("big-top.json5", '{ tools: { $include: "big.json5" } }')
    assert "is larger than 2 MiB" in _only(load_config(top, env={})).message


def test_siblings_need_object_content(write: Write) -> None:
    write("list.json5", "[1, 2]")
    top = write("openclaw.json5", '{ tools: { $include: "list.json5", a: 1 } }')
    loaded = load_config(top, env={})
    assert _only(loaded).message == (
        "`$include` has sibling keys, so the included content must be an object, got an array"
    )
    assert to_python(loaded.root) == {"tools": {"a": 1}}
    top = write("alone.json5", '{ agents: { list: { $include: "list.json5" } } }')
    loaded = load_config(top, env={})
    assert loaded.diagnostics == []
    assert to_python(loaded.root) == {"agents": {"list": [1, 2]}}


def test_documents_keep_their_own_trees(write: Write) -> None:
    write("ld.json5", "{ enabled: true }")
    top = write("openclaw.json5", '{ tools: { loopDetection: { $include: "ld.json5" } } }')
    loaded = load_config(top, env={})
    assert to_python(loaded.documents[str(top)].root) == {
        "tools": {"loopDetection": {"$include": "ld.json5"}}
    }


# -- deep merge against a straightforward reference ------------------------------------------

_keys = st.sampled_from(["a", "b", "c", "constructor", "__proto__", "prototype"])
_scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
_trees = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=12,
)


def _reference_merge(target: Any, source: Any) -> Any:
    if isinstance(target, list) and isinstance(source, list):
        return target + source
    if isinstance(target, dict) and isinstance(source, dict):
        result = dict(target)
        for key, value in source.items():
            if key in BLOCKED_MERGE_KEYS:
                continue
            result[key] = _reference_merge(result[key], value) if key in result else value
        return result
    return source


@given(_trees, _trees)
def test_deep_merge_agrees_with_the_reference(target: Any, source: Any) -> None:
    merged = deep_merge(from_python(target), from_python(source))
    assert to_python(merged) == _reference_merge(target, source)


@given(st.lists(st.dictionaries(_keys, _trees, max_size=3), min_size=1, max_size=3))
def test_array_include_merges_like_the_reference(tmp_path_factory: Any, parts: list[Any]) -> None:
    import json

    folder = tmp_path_factory.mktemp("inc")
    names = []
    for index, part in enumerate(parts):
        (folder / f"p{index}.json").write_text(
            json.dumps(part, ensure_ascii=False), encoding="utf-8"
        )
        names.append(f"p{index}.json")
    top = folder / "openclaw.json5"
    top.write_text(json.dumps({"x": {"$include": names}}), encoding="utf-8")
    expected: Any = parts[0]
    for part in parts[1:]:
        expected = _reference_merge(expected, part)
    loaded = load_config(top, env={})
    assert loaded.diagnostics == []
    assert to_python(loaded.root) == {"x": expected}


def test_yaml_configs_include_json5_files(write: Write) -> None:
    write("ld.json5", "{ enabled: true, historySize: 40 }")
    top = write(
        "openclaw.yaml",
        "tools:\n  loopDetection:\n    $include: ./ld.json5\n    warningThreshold: 5\n",
    )
    loaded = load_config(top, env={})
    assert loaded.diagnostics == []
    assert to_python(loaded.root) == {
        "tools": {"loopDetection": {"enabled": True, "historySize": 40, "warningThreshold": 5}}
    }
    assert loaded.root.get("tools").get("loopDetection").get("warningThreshold").span.line == 4  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("written", "words"),
    [
        ("a\\u0000b", "is not a usable path: it holds a NUL"),  # os.path raised ValueError
        ("\\ud800.json5", "is not a usable path"),  # UnicodeEncodeError
        ("a" * 5000, "cannot be read: File name too long"),  # OSError from stat
        ("ld.json5/x", "does not exist"),  # a path under a file
        ("sub", "is not a regular file"),
    ],
)
def test_include_paths_the_system_refuses_are_lc005(write: Write, written: str, words: str) -> None:
    write("ld.json5", "{}")
    write("sub/x.json5", "{}")
    top = write("openclaw.json5", f'{{ $include: "{written}" }}')
    diagnostic = _only(load_config(top, env={}))
    assert diagnostic.message.startswith("`$include` ") and words in diagnostic.message
