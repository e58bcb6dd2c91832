"""The parser's fast paths (one regex for the usual member and its scalar, one for the usual
separator) give exactly what the general path gives: the same tree, with the same spans, raw
tokens, paths and comments, and the same error at the same place.

The general path is what the parser does when the fast patterns never match.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import loopcfg.source.json5 as json5_module
from loopcfg.source.errors import SourceError
from loopcfg.source.json5 import parse_json5
from loopcfg.source.nodes import ArrayNode, Node, ObjectNode

from .test_json5_oracle import documents

_NEVER = re.compile(r"(?!)")


def _dump(node: Node) -> object:
    shown = (type(node).__name__, node.span, node.path)
    if isinstance(node, ObjectNode):
        entries = [(e.key.name, e.key.span, _dump(e.value)) for e in node.entries]
        return (*shown, entries, [(a.key.span, b.key.span) for a, b in node.duplicates()])
    if isinstance(node, ArrayNode):
        return (*shown, [_dump(item) for item in node.items])
    return (*shown, repr(node.value), type(node.value), node.raw)


def _parse(text: str) -> object:
    try:
        document = parse_json5(text, "f.json5")
    except SourceError as error:
        found = error.diagnostic
        return ("error", found.message, found.span, found.hint, found.related)
    return (_dump(document.root), document.comments, document.duplicate_keys)


def _general(text: str) -> object:
    fast = (json5_module._MEMBER, json5_module._COMMA)
    json5_module._MEMBER = json5_module._COMMA = _NEVER
    try:
        return _parse(text)
    finally:
        json5_module._MEMBER, json5_module._COMMA = fast


@given(
    documents,
    st.integers(0, 10**6),
    st.sampled_from(["", ",", "}", ":", "'", '"', "\\", "0", "x", "/", "\n", " ", "e", ".", "-"]),
)
def test_fast_paths_give_what_the_general_path_gives(text: str, where: int, insert: str) -> None:
    index = where % (len(text) + 1)
    for candidate in (text, text[:index] + insert + text[index + 1 :]):
        assert _parse(candidate) == _general(candidate), candidate


@pytest.mark.parametrize(
    "text",
    [
        "{a: 1, 'b': 'x', \"c\": \"y\", d: true, e: false, f: null, g: -0, h: 123456789012345}",
        "{a: 1234567890123456, b: 1.5, c: 1e3, d: 0x1F, e: +1, f: .5, g: 1., h: Infinity}",
        "{a: truex, }",
        "{a: 'x'y}",
        "{a\u00a0: 1,\u2028b :\t2 , c: /* c */ 3, d: 4 // e\n}",
        "{a: 1 /* c */, b: 2,}",
        "[ 0,\u00a0 0,\u3000]",
        "{a:\u3000 1, b: 2,\u2028c:\x0b'x'\u00a0}",
        '{"a\\"b": 1, \'\': 2, $_: 3, a: 4}',
        "{a: 01}",
        "{a: -}",
        "{a: 'x\ny'}",
        "{a: 1 b: 2}",
        "{a: null",
        "{a: 12",
    ],
)
def test_hand_picked_members(text: str) -> None:
    assert _parse(text) == _general(text)
