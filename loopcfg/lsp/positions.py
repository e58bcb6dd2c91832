"""Positions between loopcfg's spans and the editor's.

A span counts lines as its parser does: JSON5 ends a line at CR LF, LF, CR, U+2028 and U+2029
(the JSON5 spec's line terminators); YAML's spans are ruamel.yaml's marks, which end a line at
CR LF, LF and CR and do not count a U+FEFF in a column. An LSP client ends lines at CR LF, LF
and CR only, and counts characters in the negotiated encoding (UTF-16 by default). So a span is
turned into an offset in the text by the parser's lines, and the offset into a position by the
client's lines, and back the same way; Python's `str.splitlines` agrees with neither (it also
breaks at VT, FF, U+001C-U+001E and U+0085).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument, Workspace

from loopcfg.source.nodes import line_starts

_CLIENT_BREAKS = re.compile("\r\n|[\n\r]")
_LINE_FEEDS = re.compile("\n")
_BOM = "\ufeff"


def _client_starts(text: str) -> list[int]:
    # Line feeds only (most texts): searched for alone, ten times faster than the alternation.
    breaks = _CLIENT_BREAKS if "\r" in text else _LINE_FEEDS
    return [0, *(match.end() for match in breaks.finditer(text))]


def _lines_at(text: str, starts: list[int]) -> list[str]:
    ends = [*starts[1:], len(text)]
    return [text[a:b] for a, b in zip(starts, ends, strict=True)]


def client_lines(text: str) -> list[str]:
    """The text's lines as an LSP client has them, each with its line break."""
    return _lines_at(text, _client_starts(text))


class LineMap:
    """One text's lines as the parser counted them and as the client counts them."""

    __slots__ = ("_bom_blind", "_client", "_client_lines", "_parser", "text")

    def __init__(self, text: str, format: str) -> None:
        self.text = text
        self._client = _client_starts(text)
        self._client_lines: list[str] | None = None
        self._bom_blind = format == "yaml" and _BOM in text
        if format == "yaml":
            self._parser = self._client
        else:
            # The JSON5 parser's own line starts; a leading byte order mark is not part of
            # line 1, column 1 (source/json5.py).
            origin = 1 if text.startswith(_BOM) else 0
            same = not origin and "\r" not in text and "\u2028" not in text
            if same and "\u2029" not in text:
                self._parser = self._client  # line feeds only: the same lines
            else:
                self._parser = line_starts(text, origin)

    @property
    def client_lines(self) -> list[str]:
        """The text's lines as the client has them, each with its line break."""
        if self._client_lines is None:
            self._client_lines = _lines_at(self.text, self._client)
        return self._client_lines

    def offset(self, line: int, column: int) -> int:
        """The offset of a span's 1-based (line, code-point column), clamped to the text."""
        start = self._parser[min(max(line, 1), len(self._parser)) - 1]
        if not self._bom_blind:
            return min(start + max(column, 1) - 1, len(self.text))
        offset, counted = start, 1
        while offset < len(self.text) and (counted < column or self.text[offset] == _BOM):
            counted += self.text[offset] != _BOM
            offset += 1
        return offset

    def _column(self, start: int, offset: int) -> int:
        if not self._bom_blind:
            return offset - start + 1
        return offset - start - self.text.count(_BOM, start, offset) + 1

    def to_client(self, line: int, column: int, codec: PositionCodec) -> types.Position:
        offset = self.offset(line, column)
        client_line = bisect_right(self._client, offset) - 1
        code_points = types.Position(line=client_line, character=offset - self._client[client_line])
        return codec.position_to_client_units(self.client_lines, code_points)

    def from_client(self, position: types.Position, codec: PositionCodec) -> tuple[int, int]:
        """A client position as a span's 1-based (line, code-point column)."""
        point = codec.position_from_client_units(self.client_lines, position)
        client_line = min(point.line, len(self._client) - 1)
        offset = min(self._client[client_line] + point.character, len(self.text))
        line = max(bisect_right(self._parser, offset), 1)
        return line, self._column(self._parser[line - 1], offset)

    def end(self) -> types.Position:
        """Past the last character: a range from (0, 0) to here replaces the whole text."""
        return types.Position(line=len(self._client), character=0)


class _EditorLinesDocument(TextDocument):
    """pygls' open document with the editor's lines. pygls splits with `str.splitlines`, so a
    ranged change after a VT, FF, U+0085 or U+2028 was applied lines too low: the server's
    copy of the buffer went wrong, and a code action (which rewrites it whole) with it."""

    @property
    def lines(self) -> Sequence[str]:
        return client_lines(self.source)


class EditorLinesWorkspace(Workspace):
    """A workspace whose open documents are `_EditorLinesDocument`s (swapped in for the one
    pygls makes at `initialize`, before any document is opened)."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        document = super()._create_text_document(doc_uri, source, version, language_id)
        document.__class__ = _EditorLinesDocument  # adds no state: only how lines are split
        return document
