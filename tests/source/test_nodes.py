"""The node and span classes keep their semantics.

`Span` and `Comment` are frozen slotted dataclasses, the nodes plain slotted classes; these tests
pin what callers rely on: frozen, hashable spans and comments compared by value,
nodes compared by identity, dataclass-style reprs, pickling and copying.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import pytest

from loopcfg.source import fresh_parse
from loopcfg.source.nodes import (
    ArrayNode,
    Comment,
    Document,
    Entry,
    Key,
    LineTable,
    MovableSpan,
    ObjectNode,
    ScalarNode,
    Span,
)


def test_span_is_a_frozen_value() -> None:
    span = Span("f", 1, 2, 3, 4)
    assert span == Span("f", 1, 2, 3, 4)
    assert span != Span("f", 1, 2, 3, 5)
    assert span != ("f", 1, 2, 3, 4)
    assert hash(span) == hash(Span("f", 1, 2, 3, 4))
    assert {span: "x"}[Span("f", 1, 2, 3, 4)] == "x"
    assert span.start() == (1, 2)
    assert repr(span) == "Span(file='f', line=1, column=2, end_line=3, end_column=4)"
    with pytest.raises(FrozenInstanceError):
        span.line = 5
    with pytest.raises(FrozenInstanceError):
        del span.line
    with pytest.raises(TypeError):
        _ = span < Span("f", 1, 2, 3, 5)  # type: ignore[operator]


def test_comment_is_a_frozen_value() -> None:
    comment = Comment("// x", Span("f", 1, 1, 1, 5))
    assert comment == Comment("// x", Span("f", 1, 1, 1, 5))
    assert comment != Comment("// y", Span("f", 1, 1, 1, 5))
    assert hash(comment) == hash(Comment("// x", Span("f", 1, 1, 1, 5)))
    assert repr(comment) == (
        "Comment(text='// x', span=Span(file='f', line=1, column=1, end_line=1, end_column=5))"
    )
    with pytest.raises(FrozenInstanceError):
        comment.text = "// y"


def test_values_survive_pickle_and_copy() -> None:
    span = Span("f", 1, 2, 3, 4)
    comment = Comment("/* c */", span)
    for value in (span, comment):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.copy(value) == value
        assert copy.deepcopy(value) == value


def test_nodes_compare_by_identity_and_repr_like_dataclasses() -> None:
    span = Span("f", 1, 1, 1, 2)
    first, second = ScalarNode(1, span, ("a",), "1"), ScalarNode(1, span, ("a",), "1")
    assert first == first and first != second
    assert len({first, second}) == 2
    root = ObjectNode([Entry(Key("a", span), ArrayNode([first], None))], span)
    assert root.get("a") is not None  # fills the private index, which repr leaves out
    assert repr(root) == (
        "ObjectNode(entries=[Entry(key=Key(name='a', span=" + repr(span) + "), "
        "value=ArrayNode(items=[ScalarNode(value=1, span=" + repr(span) + ", path=('a',), "
        "raw='1')], span=None, path=()))], span=" + repr(span) + ", path=())"
    )
    document = Document("f", "{a: [1]}", root, [], "json5")
    assert document.line_text(1) == "{a: [1]}"
    assert repr(document).startswith("Document(file='f', text='{a: [1]}', root=ObjectNode(")
    assert repr(document).endswith(", comments=[], format='json5')")


def test_match_args_follow_the_constructors() -> None:
    match ScalarNode(True, None):
        case ScalarNode(value, span, path, raw):
            assert (value, span, path, raw) == (True, None, (), None)
    match Span("f", 1, 2, 3, 4):
        case Span(file, line, column, end_line, end_column):
            assert (file, line, column, end_line, end_column) == ("f", 1, 2, 3, 4)


def test_a_place_becomes_the_span_an_eager_parse_gave() -> None:
    """Keys and values made by the parser carry a Place; the Span made from it on the first
    read is the one `Positions.span` gives, kept, and passed on by `place` unresolved."""
    from loopcfg.source.nodes import Positions

    text = "\ufeff{\n  a: [1,\r\n 'x'],\u2028b: 2 }"
    positions = Positions("f", text, 1)
    node = ScalarNode("x", (positions, 14, 17), ("a", 1), "'x'")
    assert node.place == (positions, 14, 17)
    assert node.span == Span("f", 3, 2, 3, 5)
    assert node.span is node.span and node.place is node.span
    spanning = ArrayNode([node], (positions, 8, 18), ("a",))
    assert spanning.span == Span("f", 2, 6, 3, 6)
    copy_ = ArrayNode(spanning.items, spanning.place)
    assert copy_.span == spanning.span
    key = Key("b", (positions, 20, 21))
    assert key.span == Span("f", 4, 1, 4, 2)
    key.span = None
    assert key.span is None and key.place is None
    match node:
        case ScalarNode(value, span, path, raw):
            assert (value, span, path, raw) == ("x", Span("f", 3, 2, 3, 5), ("a", 1), "'x'")


def test_parsed_spans_are_the_places_of_the_tokens() -> None:
    from loopcfg.source.json5 import parse_json5

    document = parse_json5("{\n  a: [1, 'x'],\n}", "f.json5")
    root = document.root
    assert isinstance(root, ObjectNode)
    entry = root.entries[0]
    assert entry.key.span == Span("f.json5", 2, 3, 2, 4)
    assert entry.value.span == Span("f.json5", 2, 6, 2, 14)
    assert isinstance(entry.value, ArrayNode)
    assert [item.span for item in entry.value.items] == [
        Span("f.json5", 2, 7, 2, 8),
        Span("f.json5", 2, 10, 2, 13),
    ]
    assert root.span == Span("f.json5", 1, 1, 3, 2)


def test_the_parser_indexes_each_object_and_says_whether_a_key_repeats() -> None:
    from loopcfg.source.json5 import parse_json5

    clean = parse_json5("{a: {b: 1, c: 2}, d: [{e: 1}]}", "f.json5")
    assert clean.duplicate_keys is False
    twice = parse_json5("{a: {b: 1, c: 2, b: 3}, d: 1}", "f.json5")
    assert twice.duplicate_keys is True
    inner = twice.root.get("a")  # type: ignore[union-attr]
    assert isinstance(inner, ObjectNode)
    assert inner.get("b").value == 3  # type: ignore[union-attr]  # the last one wins
    assert [(a.value.value, b.value.value) for a, b in inner.duplicates()] == [(1, 3)]  # type: ignore[union-attr]
    assert Document("f", "{}", ObjectNode([], None), [], "json5").duplicate_keys is None


def test_a_movable_span_reads_its_lines_from_the_table() -> None:
    table = LineTable(5)
    span = MovableSpan("f.json5", table, 2, 3, 4, 7)
    plain = Span("f.json5", 2, 3, 4, 7)
    assert span == plain and plain == span and hash(span) == hash(plain)
    assert repr(span) == repr(plain)
    table.shift(3, 2)  # two lines added below line 3: line 4 moves to 6, line 2 stays
    assert (span.line, span.column, span.end_line, span.end_column) == (2, 3, 6, 7)
    assert span == Span("f.json5", 2, 3, 6, 7) and span != plain
    table.shift(1, -1)  # a line removed below line 1
    assert span.start() == (1, 3) and span.end_line == 5
    # Copied or sent elsewhere it is the plain Span of where it is now.
    moved = pickle.loads(pickle.dumps(span))
    assert type(moved) is Span and moved == Span("f.json5", 1, 3, 5, 7)


def test_new_lines_get_ids_of_their_own() -> None:
    table = LineTable(3)
    ids = [table.new_line(2), table.new_line(3)]  # a value re-parsed over lines 2-3
    assert [table.numbers[i] for i in ids] == [2, 3] and min(ids) > 3
    table.shift(2, 1)
    assert [table.numbers[i] for i in ids] == [2, 4] and table.numbers[3] == 4


def test_a_movable_parse_spans_equal_a_plain_parse_spans() -> None:
    text = '{\n  a: [1,\n    2],\r\n  // c\n  "b": { c: true }\u2028}\n'
    plain, movable = fresh_parse(text, "f.json5"), fresh_parse(text, "f.json5", movable=True)
    assert plain.lines is None and movable.lines is not None
    assert movable.comments == plain.comments
    assert all(type(c.span) is MovableSpan for c in movable.comments)
    assert movable.root.span == plain.root.span
    assert movable.root.entries[1].key.span == plain.root.entries[1].key.span  # type: ignore[union-attr]
