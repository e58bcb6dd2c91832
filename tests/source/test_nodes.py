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

from loopcfg.source.nodes import (
    ArrayNode,
    Comment,
    Document,
    Entry,
    Key,
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
