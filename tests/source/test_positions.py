"""Spans: every line terminator, the BOM, code-point columns, and span text re-parsing."""

from __future__ import annotations

import pytest
from hypothesis import given

from loopcfg.source.json5 import parse_json5
from loopcfg.source.nodes import ArrayNode, Node, ObjectNode, Span, split_lines, to_python
from tests.source.test_json5_oracle import documents, same


def _start(node: Node | None) -> tuple[int, int]:
    assert node is not None and node.span is not None
    return node.span.start()


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r", "\u2028", "\u2029"])
def test_every_line_terminator_starts_a_line(newline: str) -> None:
    text = f"{{{newline}  a: 1,{newline}{newline}   bb: 'x',{newline}}}"
    root = parse_json5(text, "f").root
    assert isinstance(root, ObjectNode)
    a, bb = root.entries
    assert a.key.span == Span("f", 2, 3, 2, 4)
    assert a.value.span == Span("f", 2, 6, 2, 7)
    assert bb.key.span == Span("f", 4, 4, 4, 6)
    assert bb.value.span == Span("f", 4, 8, 4, 11)
    assert root.span == Span("f", 1, 1, 5, 2)


def test_bom_is_not_counted() -> None:
    root = parse_json5("\ufeff{a: 1}", "f").root
    assert root.span == Span("f", 1, 1, 1, 7)
    assert isinstance(root, ObjectNode) and _start(root.get("a")) == (1, 5)


def test_columns_count_code_points() -> None:
    root = parse_json5("{'😀é': 'ü', b: 2}", "f").root
    assert isinstance(root, ObjectNode)
    assert root.entries[0].value.span == Span("f", 1, 8, 1, 11)
    assert _start(root.get("b")) == (1, 16)


def test_paths_and_raw_tokens() -> None:
    root = parse_json5("{agents: {list: [{id: 'x', n: 0x1F}]}}", "f").root
    assert isinstance(root, ObjectNode)
    agents = root.get("agents")
    assert isinstance(agents, ObjectNode)
    items = agents.get("list")
    assert isinstance(items, ArrayNode) and items.path == ("agents", "list")
    entry = items.items[0]
    assert isinstance(entry, ObjectNode)
    number = entry.get("n")
    assert number is not None and number.path == ("agents", "list", 0, "n")
    assert getattr(number, "raw", None) == "0x1F" and to_python(number) == 31


def test_multiline_string_span_ends_on_its_last_line() -> None:
    root = parse_json5("['a\\\nbc']", "f").root
    assert isinstance(root, ArrayNode)
    assert root.items[0].span == Span("f", 1, 2, 2, 4)


def test_comments_are_kept_with_positions() -> None:
    text = "// top\n{\n  a: 1, // loopcfg: ignore[LC102]\n  /* b\n */ b: 2,\n}"
    comments = parse_json5(text, "f").comments
    assert [c.text for c in comments] == ["// top", "// loopcfg: ignore[LC102]", "/* b\n */"]
    assert [c.span for c in comments] == [
        Span("f", 1, 1, 1, 7),
        Span("f", 3, 9, 3, 34),
        Span("f", 4, 3, 5, 4),
    ]


def test_duplicate_keys_are_kept_last_wins() -> None:
    root = parse_json5("{a: 1, b: 2, a: 3}", "f").root
    assert isinstance(root, ObjectNode)
    assert to_python(root) == {"a": 3, "b": 2}
    [(first, later)] = root.duplicates()
    assert first.key.span == Span("f", 1, 2, 1, 3)
    assert later.key.span == Span("f", 1, 14, 1, 15)


def _slice(text: str, span: Span) -> str:
    lines = split_lines(text)
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    # Rebuild with the original terminators: find the offsets line by line.
    body = text[1:] if text.startswith("\ufeff") else text
    starts = [0]
    index = 0
    for line in lines[:-1]:
        index += len(line)
        index += 2 if body.startswith("\r\n", index) else 1
        starts.append(index)
    start = starts[span.line - 1] + span.column - 1
    end = starts[span.end_line - 1] + span.end_column - 1
    return body[start:end]


def _nodes(node: Node) -> list[Node]:
    found = [node]
    if isinstance(node, ArrayNode):
        for item in node.items:
            found.extend(_nodes(item))
    elif isinstance(node, ObjectNode):
        for entry in node.entries:
            found.extend(_nodes(entry.value))
    return found


@given(documents)
def test_every_span_text_reparses_to_the_same_value(text: str) -> None:
    document = parse_json5(text, "f")
    for node in _nodes(document.root):
        assert node.span is not None
        piece = _slice(text, node.span)
        assert same(to_python(parse_json5(piece, "f").root), to_python(node)), piece
    for comment in document.comments:
        assert _slice(text, comment.span) == comment.text
