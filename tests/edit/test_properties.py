"""Property tests of the edit layer: generated JSON5 documents with comments everywhere, one
random operation, and the promises of loopcfg/edit: the result parses (by loopcfg and by the
`json5` package) to the expected value, every comment outside the removed member survives, and
no byte changes outside the region of the edited member."""

from __future__ import annotations

import copy
from typing import Any

import json5
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg.edit import Delete, Insert, Rename, Replace, apply_operations
from loopcfg.edit.json5 import Json5Editor
from loopcfg.source import parse_text
from loopcfg.source.nodes import to_python

KEYS = st.sampled_from(["alpha", "beta", "gamma", "delta", "with space", "x1", "$y"])
SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(alphabet="abc '\"\\é", max_size=6),
    st.none(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.dictionaries(KEYS, inner, max_size=4) | st.lists(inner, max_size=3),
    max_leaves=12,
)
DOCUMENTS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=5)


class Writer:
    """Writes a value as JSON5 in one of several styles, with a comment before every member."""

    def __init__(self, trailing: bool, quote: str, inline: bool, draw: Any) -> None:
        self.trailing, self.quote, self.inline, self.draw = trailing, quote, inline, draw
        self.count = 0

    def comment(self) -> str:
        self.count += 1
        return f"// note {self.count}" if self.draw(st.booleans()) else f"/* c{self.count} */"

    def key(self, name: str) -> str:
        if name.replace("$", "a").isidentifier() and self.draw(st.booleans()):
            return name
        return self.string(name)

    def string(self, value: str) -> str:
        body = value.replace("\\", "\\\\").replace(self.quote, "\\" + self.quote)
        return f"{self.quote}{body}{self.quote}"

    def value(self, value: object, indent: str) -> str:
        if isinstance(value, str):
            return self.string(value)
        if value is None or isinstance(value, bool):
            return {None: "null", True: "true", False: "false"}[value]
        if isinstance(value, int):
            return str(value)
        inner = indent + "  "
        if isinstance(value, dict):
            parts = [f"{self.key(k)}: {self.value(v, inner)}" for k, v in value.items()]
            opener, closer = "{", "}"
        else:
            assert isinstance(value, list)
            parts = [self.value(v, inner) for v in value]
            opener, closer = "[", "]"
        if not parts:
            return opener + closer
        if self.inline and len(parts) < 3 and indent:
            return opener + " " + ", ".join(parts) + " " + closer
        lines = [f"{inner}{self.comment()}\n{inner}{part}" for part in parts]
        body = ",\n".join(lines) + ("," if self.trailing else "")
        return f"{opener}\n{body}\n{indent}{closer}"


@st.composite
def documents(draw: Any) -> tuple[str, dict[str, Any]]:
    value = draw(DOCUMENTS)
    writer = Writer(draw(st.booleans()), draw(st.sampled_from("\"'")), draw(st.booleans()), draw)
    text = f"// head\n{writer.value(value, '')}\n// tail\n"
    return text, value


def _member_paths(value: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((*path, key))
            found += _member_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.append((*path, index))
            found += _member_paths(item, (*path, index))
    return found


def _objects(value: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if isinstance(value, dict) else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _objects(item, (*path, index))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _comments(text: str) -> list[str]:
    return sorted(comment.text for comment in parse_text(text, "t.json5", "json5").comments)


@st.composite
def edited(draw: Any) -> tuple[str, Any, Any, tuple[Any, ...]]:
    text, value = draw(documents())
    expected = copy.deepcopy(value)
    kind = draw(st.sampled_from(["delete", "rename", "replace", "insert"]))
    if kind == "insert":
        path = draw(st.sampled_from(_objects(value)))
        key = draw(KEYS.filter(lambda k: k not in _get(value, path)))
        new = draw(VALUES)
        _get(expected, path)[key] = new
        return text, Insert(path, key, new, first=draw(st.booleans())), expected, path
    path = draw(st.sampled_from(_member_paths(value)))
    parent = _get(expected, path[:-1])
    if kind == "rename" and isinstance(path[-1], str):
        name = draw(KEYS.filter(lambda k: k not in parent))
        parent[name] = parent.pop(path[-1])
        return text, Rename(path, name), expected, path
    if kind == "replace":
        new = draw(VALUES)
        parent[path[-1]] = new
        return text, Replace(path, new), expected, path
    del parent[path[-1]]
    return text, Delete(path), expected, path


def _same_content(actual: Any, expected: Any) -> bool:
    """Equal values; key order is not compared (an insertion may go first)."""
    return bool(actual == expected)


@settings(max_examples=300, deadline=None)
@given(edited())
def test_an_edit_parses_to_the_expected_value_and_keeps_comments(case: Any) -> None:
    text, operation, expected, _ = case
    document = parse_text(text, "t.json5", "json5")
    result = apply_operations(document, [operation])
    assert _same_content(to_python(parse_text(result, "t.json5", "json5").root), expected)
    assert _same_content(json5.loads(result), expected)
    kept = _comments(result)
    if isinstance(operation, Delete | Replace):
        assert set(kept) <= set(_comments(text))
    else:
        assert kept == _comments(text)


@settings(max_examples=300, deadline=None)
@given(edited())
def test_no_byte_changes_outside_the_edited_member(case: Any) -> None:
    text, operation, _, path = case
    document = parse_text(text, "t.json5", "json5")
    editor = Json5Editor(document)
    edits = editor.edits([operation])
    # The region an edit may touch: the lines of the parent container of the edited member.
    container = _locate_span(document, path if isinstance(operation, Insert) else path[:-1])
    low = editor.positions.line_start(editor.positions.start(container))
    high = editor.positions.after_line_break(editor.positions.end(container) - 1)
    for edit in edits:
        assert low <= edit.start <= edit.end <= high
    result = apply_operations(document, [operation])
    assert result[:low] == text[:low]
    assert result[len(result) - (len(text) - high) :] == text[high:]


def _locate_span(document: Any, path: tuple[Any, ...]) -> Any:
    from loopcfg.edit.ops import locate

    return locate(document.root, path).node.span


def test_plain_json_stays_plain_json() -> None:
    import json

    text = '{\n  "a": 1,\n  "b": {\n    "c": true\n  }\n}\n'
    document = parse_text(text, "t.json", "json")
    result = apply_operations(
        document, [Insert(("b",), "d", {"e": [1, "x"]}), Delete(("a",)), Rename(("b",), "bb")]
    )
    assert json.loads(result) == {"bb": {"c": True, "d": {"e": [1, "x"]}}}
    expected = (
        '{\n  "bb": {\n    "c": true,\n    "d": {\n      "e": [\n        1,\n        "x"\n'
        "      ]\n    }\n  }\n}\n"
    )
    assert result == expected
