"""Positions between spans and the editor (loopcfg/lsp/positions.py), against the parsers' own
line counting (nodes.Positions for JSON5, ruamel.yaml's reader for YAML) and the LSP's (lines
end at CR LF, LF, CR; characters in UTF-16 units)."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls")

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec
from ruamel.yaml.reader import Reader

from loopcfg.lsp.positions import LineMap
from loopcfg.source.nodes import Positions

UTF16 = PositionCodec(encoding=types.PositionEncodingKind.Utf16)
# Every line break either side knows, the characters `str.splitlines` also breaks at, a
# character outside the BMP (two UTF-16 units), and U+FEFF (which YAML's columns skip).
PIECES = ["a", "é", "😀", "\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\v", "\f", "\x1c"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def _client_position(text: str, offset: int) -> types.Position:
    """The LSP position of an offset, computed the plain way."""
    before = text[:offset].replace("\r\n", "\n").replace("\r", "\n")
    line = before.count("\n")
    column_text = before[before.rfind("\n") + 1 :]
    return types.Position(line=line, character=len(column_text.encode("utf-16-le")) // 2)


def _offsets(text: str, start: int) -> list[int]:
    """Every offset a span may start at (not inside a CR LF)."""
    return [i for i in range(start, len(text) + 1) if text[i - 1 : i + 1] != "\r\n"]


@given(texts, st.booleans())
def test_json5_spans_land_where_the_client_counts(body: str, bom: bool) -> None:
    text = ("\ufeff" if bom else "") + body
    parsed = Positions("f.json5", text, 1 if bom else 0)
    lines = LineMap(text, "json5")
    for offset in _offsets(text, 1 if bom else 0):
        span = parsed.span(offset, offset)
        client = lines.to_client(span.line, span.column, UTF16)
        assert client == _client_position(text, offset)
        assert lines.from_client(client, UTF16) == (span.line, span.column)


yaml_texts = st.lists(
    st.sampled_from(["a", "é", "😀", "\n", "\r", "\r\n", "\u2028", "\x85", "\ufeff"]), max_size=30
).map("".join)


@given(yaml_texts)
def test_yaml_marks_land_where_the_client_counts(text: str) -> None:
    reader = Reader(text)
    lines = LineMap(text, "yaml")
    while True:
        offset = reader.index
        # No token starts at a U+FEFF or between the CR and the LF of a line break.
        if text[offset : offset + 1] != "\ufeff" and text[offset - 1 : offset + 1] != "\r\n":
            line, column = reader.line + 1, reader.column + 1
            client = lines.to_client(line, column, UTF16)
            assert client == _client_position(text, offset)
            assert lines.from_client(client, UTF16) == (line, column)
        if reader.peek() == "\0":
            break
        reader.forward()


def test_a_replacement_of_the_whole_text_ends_past_its_last_line() -> None:
    assert LineMap("a\r\nb\u2028c", "json5").end() == types.Position(line=2, character=0)
