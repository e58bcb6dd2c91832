"""A container that an operation set empties is written `{}` / `[]` (what a user writes), not
a `{` and a `}` on lines of their own or `{ }`; one that keeps a comment inside, or gets
something inserted, stays as it is. Each deletion is computed alone, so this is a property of
the whole set (`Json5Editor.edits`)."""

from __future__ import annotations

import re
from typing import Any

import json5
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg.edit import Delete, Insert, Operation, Replace, TextEdit, apply_operations
from loopcfg.edit.json5 import Json5Editor
from loopcfg.edit.ops import locate
from loopcfg.edit.text import Positions
from loopcfg.source import parse_text
from loopcfg.source.nodes import ArrayNode, ObjectNode, to_python
from tests.edit.test_properties import DOCUMENTS, Writer, _get, documents


def _edit(text: str, *operations: Operation) -> str:
    return apply_operations(parse_text(text, "t.json5", "json5"), list(operations))


def test_an_emptied_object_on_lines_of_its_own_becomes_braces() -> None:
    text = "{\n  agent: {\n    tools: {\n      a: 1,\n    },\n  },\n  other: 2,\n}\n"
    assert _edit(text, Delete(("agent", "tools"))) == "{\n  agent: {},\n  other: 2,\n}\n"


def test_an_inline_object_emptied_of_its_last_member_loses_the_spaces_too() -> None:
    assert _edit('{ a: { id: "x" }, b: 1 }', Delete(("a", "id"))) == "{ a: {}, b: 1 }"


def test_every_member_deleted_by_several_operations() -> None:
    text = "{\n  a: [\n    1,\n    2,\n  ],\n  b: { c: 1, d: 2 },\n}\n"
    operations = [Delete(("a", 0)), Delete(("a", 1)), Delete(("b", "c")), Delete(("b", "d"))]
    assert _edit(text, *operations) == "{\n  a: [],\n  b: {},\n}\n"


def test_a_comment_left_inside_keeps_the_lines() -> None:
    text = "{\n  a: {\n    // why a is here\n    b: 1,\n  },\n}\n"
    assert _edit(text, Delete(("a", "b"))) == "{\n  a: {\n    // why a is here\n  },\n}\n"


def test_a_member_left_keeps_the_container() -> None:
    text = "{\n  a: {\n    b: 1,\n    c: 2,\n  },\n}\n"
    assert _edit(text, Delete(("a", "b"))) == "{\n  a: {\n    c: 2,\n  },\n}\n"


def test_text_inserted_inside_is_never_swallowed() -> None:
    # No operation set makes this today (an insertion beside deleted members overlaps them and
    # is refused), but if one did, collapsing the container would drop what was inserted.
    text = "{\n  a: {\n    b: 1,\n  },\n}\n"
    editor = Json5Editor(parse_text(text, "t.json5", "json5"))
    deleted = editor.edits_of(Delete(("a", "b")))
    opener, closer = text.index("{", 1), text.index("}")
    assert editor._emptied(deleted) == [TextEdit(opener + 1, closer, "")]
    inserted = TextEdit(closer, closer, "c: 2\n")
    assert editor._emptied([*deleted, inserted]) == []


def test_an_emptied_root_is_braces() -> None:
    assert _edit("// head\n{\n  a: 1,\n}\n", Delete(("a",))) == "// head\n{}\n"


def _containers(value: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of the non-empty objects and arrays in `value`."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict) and value:
        found.append(path)
        for key, item in value.items():
            found += _containers(item, (*path, key))
    elif isinstance(value, list) and value:
        found.append(path)
        for index, item in enumerate(value):
            found += _containers(item, (*path, index))
    return found


@st.composite
def emptied(draw: Any) -> tuple[str, tuple[Any, ...], list[Operation]]:
    text, value = draw(documents())
    path = draw(st.sampled_from(_containers(value)))
    container = _get(value, path)
    members = container.keys() if isinstance(container, dict) else range(len(container))
    operations: list[Operation] = [Delete((*path, member)) for member in members]
    return text, path, draw(st.permutations(operations))


@settings(max_examples=300, deadline=None)
@given(emptied())
def test_an_emptied_container_is_bare_brackets_unless_a_comment_stays_in_it(case: Any) -> None:
    text, path, operations = case
    result = _edit(text, *operations)
    document = parse_text(result, "t.json5", "json5")
    node = locate(document.root, path).node
    assert isinstance(node, ObjectNode | ArrayNode) and node.span is not None
    assert to_python(node) == ({} if isinstance(node, ObjectNode) else [])
    assert json5.loads(result) == to_python(document.root)
    span = node.span
    start = (span.line, span.column)
    end = (span.end_line, span.end_column)
    commented = any(
        start <= (c.span.line, c.span.column) and (c.span.end_line, c.span.end_column) <= end
        for c in document.comments
    )
    positions = Positions(result)
    written = result[positions.start(span) : positions.end(span)]
    assert (written in ("{}", "[]")) == (not commented), written


def test_plain_json_gets_no_trailing_comma_when_its_last_members_go() -> None:
    text = '{\n  "a": {\n    "keep": true,\n    "b": 1,\n    "c": 2\n  },\n  "d": [1, 2, 3]\n}\n'
    document = parse_text(text, "t.json", "json")
    operations = [Delete(("a", "b")), Delete(("a", "c")), Delete(("d", 1)), Delete(("d", 2))]
    result = apply_operations(document, list(operations))
    assert result == '{\n  "a": {\n    "keep": true\n  },\n  "d": [1]\n}\n'
    import json

    assert json.loads(result) == {"a": {"keep": True}, "d": [1]}


def test_a_file_that_writes_trailing_commas_keeps_its_habit() -> None:
    text = "{\n  a: 1,\n  b: 2,\n  c: 3,\n}\n"
    assert _edit(text, Delete(("b",)), Delete(("c",))) == "{\n  a: 1,\n}\n"


def test_a_flat_detector_switch_that_ends_its_block_is_fixed(tmp_path: Any) -> None:
    # The review's LC012 case: the switch was the block's last member, so its deletion took
    # the comma an insertion after it needed ("overlapping edits"); it goes first now, and
    # a block of that switch alone becomes the detectors block in place.
    from click.testing import CliRunner

    from loopcfg.cli import cli

    cases = {
        "a.json": (
            '{\n  "tools": {\n    "loopDetection": {\n      "enabled": true,\n'
            '      "pingPong": false\n    }\n  }\n}\n'
        ),
        "b.json5": "{ tools: { loopDetection: { pingPong: false } } }\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(cli, ["fix", str(path), "--write"])
        assert "LC012 fixed" in result.output, result.output
        value = json5.loads(path.read_text(encoding="utf-8"))
        assert value["tools"]["loopDetection"]["detectors"] == {"pingPong": False}
    assert (tmp_path / "b.json5").read_text(encoding="utf-8") == (
        "{ tools: { loopDetection: { detectors: { pingPong: false } } } }\n"
    )


TRAILING_COMMA = re.compile(r",(?:\s|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*[}\]]")


@st.composite
def deleted_without_trailing_commas(draw: Any) -> tuple[str, list[Operation]]:
    value = draw(DOCUMENTS)
    writer = Writer(False, draw(st.sampled_from("\"'")), draw(st.booleans()), draw)
    text = f"// head\n{writer.value(value, '')}\n// tail\n"
    path = draw(st.sampled_from(_containers(value)))
    container = _get(value, path)
    members = list(container.keys() if isinstance(container, dict) else range(len(container)))
    if draw(st.booleans()):  # the members from one on: the last comma kept is not the last
        chosen = members[draw(st.integers(0, len(members) - 1)) :]
    else:
        chosen = draw(st.lists(st.sampled_from(members), min_size=1, unique=True))
    return text, [Delete((*path, member)) for member in chosen]


@settings(max_examples=300, deadline=None)
@given(deleted_without_trailing_commas())
def test_a_file_without_trailing_commas_gets_none_from_deletions(case: Any) -> None:
    text, operations = case
    assert TRAILING_COMMA.search(text) is None
    result = _edit(text, *operations)
    assert TRAILING_COMMA.search(result) is None, result
    json5.loads(result)


def test_a_value_inserted_into_a_one_line_object_is_written_on_that_line() -> None:
    text = "{ a: { b: 1 }, c: 2 }\n"
    assert (
        _edit(text, Insert(("a",), "d", {"e": [1, 2]}))
        == "{ a: { b: 1, d: { e: [1, 2] } }, c: 2 }\n"
    )


def test_a_duplicated_flat_switch_in_plain_json_is_fixed_once_and_for_all(tmp_path: Any) -> None:
    # LC012 moved the winning `false` and LC107 then could not remove the ignored `true`,
    # which became the winner (flat, an error) for every later run; the combined edits also
    # left a trailing comma no JSON parser reads. The duplicate goes first now.
    import json

    from click.testing import CliRunner

    from loopcfg.cli import cli

    path = tmp_path / "a.json"
    path.write_text(
        '{\n  "tools": {\n    "loopDetection": {"pingPong": true, "pingPong": false}\n  }\n}\n',
        encoding="utf-8",
    )
    CliRunner().invoke(cli, ["fix", str(path), "--write"])
    fixed = path.read_text(encoding="utf-8")
    assert json.loads(fixed) == {"tools": {"loopDetection": {"detectors": {"pingPong": False}}}}
    again = CliRunner().invoke(cli, ["fix", str(path)])
    assert "0 fixes to apply" in again.output and path.read_text(encoding="utf-8") == fixed


def test_a_json_file_that_was_not_strict_json_can_still_be_edited() -> None:
    # Only a .json file that every JSON parser read must stay so; one with comments and
    # trailing commas (read as OpenClaw reads it) is edited as before.
    text = '{\n  // loop protection\n  "tools": {"loopDetection": {"historySize": "30",},},\n}\n'
    document = parse_text(text, "c.json", "json")
    edited = apply_operations(document, [Replace(("tools", "loopDetection", "historySize"), 30)])
    assert '"historySize": 30,' in edited
