"""A small, fast JSON5 parser that keeps the position of every key, value and comment.

One recursive-descent pass over the text, driven by compiled regexes matched at a position
(whitespace, simple strings, numbers and words are each one `match`; the usual member, `name:
scalar` with plain whitespace, and the usual `, ` separator are one match each, anything else
goes the general way). Keys and values get a `Place` (offsets); the line/column `Span` is made
only when someone reads `.span`, by bisecting into the file's line starts. The grammar is the
JSON5 1.0.0 spec (https://spec.json5.org); where the python-json5 package differs from it we
follow the spec (see docs/performance.md and tests/source/test_json5_oracle.py for the list).

Errors stop the parse: `SourceError` with an LC001 diagnostic whose message says what was found
and what was expected, at the offending token (a missing "," is reported where it belongs).
"""

from __future__ import annotations

import re

from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.source.errors import SourceError
from loopcfg.source.nodes import (
    MAX_DEPTH,
    ArrayNode,
    Comment,
    DocPath,
    Document,
    Entry,
    Format,
    Key,
    Node,
    ObjectNode,
    Positions,
    Scalar,
    ScalarNode,
    Span,
    decimal_integer,
    integer_value,
)

__all__ = ["MAX_DEPTH", "parse_json5"]

# JSON5 WhiteSpace (TAB VT FF SP NBSP BOM and every Zs) and LineTerminator (LF CR LS PS).
_WS_CHARS = "\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS = re.compile(f"[{_WS_CHARS}]*")
_LINE_COMMENT = re.compile("//[^\n\r\u2028\u2029]*")

# Strings without escapes (nearly all of them) are one match; the rest go through chunks.
# Escapes, non-ASCII keys and error messages need the patterns below.
_SIMPLE_STRING = {'"': re.compile(r'"([^"\\\n\r]*)"'), "'": re.compile(r"'([^'\\\n\r]*)'")}
_STRING_CHUNK = {'"': re.compile(r'[^"\\\n\r]+'), "'": re.compile(r"[^'\\\n\r]+")}
_NUMBER = re.compile(
    r"[+-]?(?:0[xX][0-9a-fA-F]+|Infinity|NaN"
    r"|(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
)
# What the user probably meant as one token, for messages ("invalid number "01"").
_LOOSE_NUMBER = re.compile(r"[+-]?(?:[0-9A-Za-z_$.]|(?<=[eE])[+-])*")
_ASCII_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
# An unquoted key as written: ASCII name characters, \uXXXX escapes, any non-ASCII character
# that is not whitespace; checked against ID_Start/ID_Continue afterwards.
_LOOSE_KEY = re.compile(f"(?:[A-Za-z0-9_$]|\\\\(?:u[0-9A-Fa-f]{{4}})?|[^\\x00-\\x7f{_WS_CHARS}])+")
# The usual start of a member, `name: ` or `"name": ` with only plain whitespace around the
# colon, and the usual scalar value after it (a string without escapes, true, false, null, an
# integer of up to 15 digits, ending where a token must end): one match instead of a key token,
# two skips, a colon check and a value. Anything else (a comment, other whitespace, an escape, a
# non-ASCII key, a float, an object, an error) goes the general way from where the match stopped,
# or from the key. ASCII whitespace only: the full class costs a millisecond to compile at start.
_MEMBER = re.compile(
    "(?:([A-Za-z_$][A-Za-z0-9_$]*)|\"([^\"\\\\\n\r]*)\"|'([^'\\\\\n\r]*)')"
    "[ \t\n\r]*:[ \t\n\r]*"
    "(?:(?:\"([^\"\\\\\n\r]*)\"|'([^'\\\\\n\r]*)'|(true|false|null|-?(?:0|[1-9][0-9]{0,14})))"
    "(?=[ \t\n\r,}\\]/]|\\Z))?"
)
# The usual end of an item: whitespace, a comma, whitespace (comments go the general way).
_COMMA = re.compile("[ \t\n\r]*,[ \t\n\r]*")
# What may follow those plain-whitespace matches and still be skipped: a comment, or the rest of
# JSON5's whitespace.
_SKIP_AFTER_FAST = frozenset("/\v\f\xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | {
    chr(code) for code in range(0x2000, 0x200B)
}
_KEY_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")

_ID_START = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl"})
_ID_CONTINUE = _ID_START | {"Mn", "Mc", "Nd", "Pc"}
_SINGLE_ESCAPES = {
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    '"': '"',
    "'": "'",
    "\\": "\\",
}
_LINE_CONTINUATIONS = frozenset("\n\r\u2028\u2029")
_WORDS: dict[str, bool | float | None] = {
    "true": True,
    "false": False,
    "null": None,
    "Infinity": float("inf"),
    "NaN": float("nan"),
}
_VALUE_STARTS = frozenset("{[\"'0123456789+-.")
_CLOSERS = {"object": "}", "array": "]"}


@paused
def parse_json5(
    text: str, file: str, format: Format = "json5", *, movable: bool = False
) -> Document:
    """Parse JSON5 (or plain JSON) text into a Document; raises SourceError (LC001).
    `movable`: spans an edit can move (`nodes.LineTable`), for the language server."""
    parser = _Parser(text, file, movable)
    root = parser.document()
    return Document(
        file,
        text,
        root,
        parser.comments,
        format,
        duplicate_keys=parser.duplicate_keys,
        lines=parser.positions.lines,
    )


def _is_key_char(char: str, first: bool) -> bool:
    if char in "$_" or ("a" <= char <= "z") or ("A" <= char <= "Z"):
        return True
    if not first and ("0" <= char <= "9" or char in "\u200c\u200d"):
        return True
    import unicodedata  # only for non-ASCII keys

    return unicodedata.category(char) in (_ID_START if first else _ID_CONTINUE)


def _quote(token: str) -> str:
    """A token as messages show it: in double quotes, control characters spelled out."""
    shown = "".join(
        ch if ch.isprintable() or ch == " " else f"\\u{ord(ch):04x}" for ch in token[:40]
    )
    return f'"{shown}…"' if len(token) > 40 else f'"{shown}"'


class _Parser:
    __slots__ = ("comments", "duplicate_keys", "end", "file", "open", "positions", "start", "text")

    def __init__(self, text: str, file: str, movable: bool = False) -> None:
        self.text = text
        self.file = file
        # A leading BOM is not part of the document: positions start after it.
        self.start = 1 if text.startswith("\ufeff") else 0
        self.end = len(text)
        # Keys and values get a Place; their Span is made only when someone reads it.
        self.positions = Positions(file, text, self.start, movable=movable)
        self.comments: list[Comment] = []
        self.duplicate_keys = False  # an object wrote a key twice (LC107 then looks for it)
        # The containers being parsed, innermost last: (kind, position of the bracket).
        self.open: list[tuple[str, int]] = []

    # -- positions -----------------------------------------------------------------------

    def span(self, start: int, end: int) -> Span:
        return self.positions.span(start, end)

    def where(self, position: int) -> str:
        span = self.span(position, position)
        return f"{span.line}:{span.column}"

    # -- errors --------------------------------------------------------------------------

    def fail(
        self,
        message: str,
        start: int,
        end: int | None = None,
        *,
        hint: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> SourceError:
        span = self.span(start, start if end is None else end)
        diagnostic = Diagnostic.at("LC001", "error", message, span, hint=hint, related=related)
        return SourceError(diagnostic)

    def token_end(self, position: int) -> int:
        """Where the token starting at `position` ends (for the span of an error)."""
        text = self.text
        if position >= self.end:
            return position
        char = text[position]
        if char in "+-.0123456789":
            return _LOOSE_NUMBER.match(text, position).end()  # type: ignore[union-attr]
        found = _LOOSE_KEY.match(text, position)
        if found is not None and char != "\\":
            return found.end()
        return position + 1

    def found(self, position: int) -> str:
        """What stands at `position`, for "found ..." in messages."""
        if position >= self.end:
            return "end of file"
        if self.text[position] in "\"'":
            return "a string"
        return _quote(self.text[position : self.token_end(position)])

    def unexpected_end(self) -> SourceError:
        kind, opened = self.open[-1]
        return self.fail(
            f"unexpected end of file ({kind} started at {self.where(opened)} is not closed)",
            self.end,
            related=(Related(self.span(opened, opened + 1), f"the {kind} starts here"),),
        )

    # -- whitespace and comments -----------------------------------------------------------

    def skip(self, position: int) -> int:
        text = self.text
        while True:
            position = _WS.match(text, position).end()  # type: ignore[union-attr]
            if text[position : position + 1] != "/":  # nearly always: no comment here
                return position
            if text.startswith("//", position):
                end = _LINE_COMMENT.match(text, position).end()  # type: ignore[union-attr]
            elif text.startswith("/*", position):
                close = text.find("*/", position + 2)
                if close < 0:
                    raise self.fail(
                        f"unterminated comment started at {self.where(position)}",
                        position,
                        self.end,
                    )
                end = close + 2
            else:
                return position
            self.comments.append(Comment(text[position:end], self.span(position, end)))
            position = end

    # -- the document ----------------------------------------------------------------------

    def document(self) -> Node:
        position = self.skip(self.start)
        if position >= self.end:
            message = (
                "the file has no value, only comments"
                if self.comments
                else "the file is empty (only whitespace)"
            )
            raise self.fail(message, position)
        root, position = self.value(position, (), 0)
        position = self.skip(position)
        if position < self.end:
            raise self.fail(
                f"unexpected {self.found(position)} after the root value",
                position,
                self.token_end(position),
                hint="a file holds exactly one value",
            )
        return root

    def value(self, position: int, path: DocPath, depth: int) -> tuple[Node, int]:
        text = self.text
        char = text[position : position + 1]
        if char == "{":
            return self.object(position, path, depth + 1)
        if char == "[":
            return self.array(position, path, depth + 1)
        if char == '"' or char == "'":
            simple = _SIMPLE_STRING[char].match(text, position)  # no escapes: one match
            if simple is not None:
                end = simple.end()
                return ScalarNode(
                    simple.group(1), (self.positions, position, end), path, text[position:end]
                ), end
            value, end = self.string(position)
            return ScalarNode(value, (self.positions, position, end), path, text[position:end]), end
        if char in _VALUE_STARTS and char:
            return self.number(position, path)
        word = _ASCII_WORD.match(text, position)
        if word is not None and word.group() in _WORDS and not self.continues_word(word.end()):
            raw, end = word.group(), word.end()
            return ScalarNode(_WORDS[raw], (self.positions, position, end), path, raw), end
        raise self.not_a_value(position)

    def continues_word(self, position: int) -> bool:
        """True when the character at `position` would continue a name (`truex`, `1e5x`)."""
        if position >= self.end:
            return False
        char = self.text[position]
        if char.isascii():
            return char.isalnum() or char in "_$"
        return _is_key_char(char, False)

    def not_a_value(self, position: int) -> SourceError:
        if position >= self.end and self.open:
            return self.unexpected_end()
        found = self.found(position)
        hint = None
        if found.startswith('"') and self.text[position].isalpha():
            word = self.text[position : self.token_end(position)]
            known = {name.lower(): name for name in _WORDS}.get(word.lower())
            hint = f'did you mean "{known}"?' if known else "strings need quotes"
        return self.fail(
            f"expected a value, found {found}", position, self.token_end(position), hint=hint
        )

    # -- scalars ---------------------------------------------------------------------------

    def number(self, position: int, path: DocPath) -> tuple[Node, int]:
        text = self.text
        found = _NUMBER.match(text, position)
        end = found.end() if found is not None else position
        if found is None or self.continues_word(end) or text.startswith(".", end):
            loose_end = max(_LOOSE_NUMBER.match(text, position).end(), position + 1)  # type: ignore[union-attr]
            token = text[position:loose_end]
            hint = "leading zeros are not allowed" if re.match(r"[+-]?0[0-9]", token) else None
            raise self.fail(f"invalid number {_quote(token)}", position, loose_end, hint=hint)
        raw = found.group()
        value: int | float
        if "x" in raw or "X" in raw:
            value = integer_value(int(raw, 16))
        elif "." in raw or "e" in raw or "E" in raw or raw[-1] in "yN":
            value = float(raw)
        else:
            value = decimal_integer(raw)
        return ScalarNode(value, (self.positions, position, end), path, raw), end

    def string(self, position: int) -> tuple[str, int]:
        """The decoded string whose opening quote is at `position`, and the end of its token."""
        text = self.text
        quote = text[position]
        simple = _SIMPLE_STRING[quote].match(text, position)
        if simple is not None:
            return simple.group(1), simple.end()
        chunk = _STRING_CHUNK[quote]
        parts: list[str] = []
        cursor = position + 1
        while True:
            piece = chunk.match(text, cursor)
            if piece is not None:
                parts.append(piece.group())
                cursor = piece.end()
            char = text[cursor : cursor + 1]
            if char == quote:
                return "".join(parts), cursor + 1
            if char == "\\":
                decoded, cursor = self.escape(cursor, position)
                parts.append(decoded)
                continue
            raise self.unclosed_string(position, cursor)

    def unclosed_string(self, position: int, stop: int) -> SourceError:
        return self.fail(
            f"string started at {self.where(position)} is not closed",
            position,
            stop,
            hint="a line break inside a string must be escaped (\\n) or continued with \\",
        )

    def escape(self, backslash: int, string_start: int) -> tuple[str, int]:
        """Decode the escape sequence at `backslash`: (its text, the position after it)."""
        text = self.text
        char = text[backslash + 1 : backslash + 2]
        after = backslash + 2
        if char in _SINGLE_ESCAPES:
            return _SINGLE_ESCAPES[char], after
        if char == "0" and not text[after : after + 1].isdigit():
            return "\0", after
        if char == "x":
            if _HEX2.match(text, after):
                return chr(int(text[after : after + 2], 16)), after + 2
        elif char == "u":
            if _HEX4.match(text, after):
                return self.unicode_escape(after)
        elif char in _LINE_CONTINUATIONS:
            if char == "\r" and text.startswith("\n", after):
                return "", after + 1
            return "", after
        elif char == "":
            raise self.unclosed_string(string_start, self.end)
        elif not char.isdigit() or not char.isascii():
            return char, after  # any other character stands for itself: \q is q
        end = after + 1 if char in "0xu" and text[after : after + 1].isdigit() else after
        while end < self.end and char in "xu" and text[end] in "0123456789abcdefABCDEF":
            end += 1
        raise self.fail(
            f"invalid escape {_quote(text[backslash:end])}",
            backslash,
            end,
            hint="escapes are \\n \\t \\r \\b \\f \\v \\0 \\xHH \\uHHHH, or \\ before a character",
        )

    def unicode_escape(self, digits: int) -> tuple[str, int]:
        """\\uXXXX, joining a surrogate pair into one code point; a lone surrogate stays."""
        text = self.text
        code = int(text[digits : digits + 4], 16)
        after = digits + 4
        if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", after):
            low = _HEX4.match(text, after + 2)
            if low is not None:
                low_code = int(low.group(), 16)
                if 0xDC00 <= low_code <= 0xDFFF:
                    joined = 0x10000 + ((code - 0xD800) << 10) + (low_code - 0xDC00)
                    return chr(joined), after + 6
        return chr(code), after

    # -- containers ------------------------------------------------------------------------

    def enter(self, kind: str, position: int, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH} levels", position, position + 1)
        self.open.append((kind, position))

    def after_item(self, kind: str, end_of_item: int, opened: int) -> tuple[bool, int]:
        """After an item: (True, next item) on ",", (False, past the closer) on the closer."""
        text = self.text
        position = _WS.match(text, end_of_item).end()  # type: ignore[union-attr]
        if text.startswith("/", position):
            position = self.skip(position)
        char = text[position : position + 1]
        if char == ",":
            position = _WS.match(text, position + 1).end()  # type: ignore[union-attr]
            if text.startswith("/", position):
                position = self.skip(position)
            return True, position
        closer = _CLOSERS[kind]
        if char == closer:
            return False, position + 1
        if not char:
            raise self.unexpected_end()
        starts_item = char in _VALUE_STARTS or _LOOSE_KEY.match(text, position) is not None
        if starts_item and char != "\\":
            # Where the "," belongs: right after the previous item (an insertion point).
            raise self.fail('missing "," between values', end_of_item)
        raise self.fail(
            f'unexpected {self.found(position)}, expected "," or "{closer}"',
            position,
            self.token_end(position),
            related=(Related(self.span(opened, opened + 1), f"the {kind} starts here"),),
        )

    def object(self, opened: int, path: DocPath, depth: int) -> tuple[Node, int]:
        self.enter("object", opened, depth)
        text = self.text
        entries: list[Entry] = []
        # Each object's index by name (the last entry wins), made here rather than on its
        # first look-up: it also tells whether a key was written twice.
        index: dict[str, Entry] = {}
        position = self.skip(opened + 1)
        more = True
        while more:
            if text.startswith("}", position):
                position += 1
                break
            member = _MEMBER.match(text, position)
            if member is not None:
                identifier, double, single, double_value, single_value, word = member.groups()
                if identifier is not None:
                    name, key_end = identifier, position + len(identifier)
                else:  # no escapes: the token is the name in its quotes
                    name = double if double is not None else single
                    key_end = position + len(name) + 2
                key = Key(name, (self.positions, position, key_end))
                position = member.end()
                scalar = self.member_scalar(
                    position, (*path, name), double_value, single_value, word
                )
                if scalar is not None:
                    entry = Entry(key, scalar)
                    entries.append(entry)
                    index[name] = entry
                    comma = _COMMA.match(text, position)
                    if comma is not None:
                        position = comma.end()
                        if text[position : position + 1] in _SKIP_AFTER_FAST:
                            position = self.skip(position)
                        continue
                    more, position = self.after_item("object", position, opened)
                    continue
                if text[position : position + 1] in _SKIP_AFTER_FAST:
                    position = self.skip(position)
            else:
                key, position = self.key(position)
                position = self.skip(position)
                if not text.startswith(":", position):
                    if position >= self.end:
                        raise self.unexpected_end()
                    raise self.fail(
                        f'expected ":" after key {_quote(key.name)}, found {self.found(position)}',
                        position,
                        self.token_end(position),
                    )
                position = self.skip(position + 1)
            value, position = self.value(position, (*path, key.name), depth)
            entry = Entry(key, value)
            entries.append(entry)
            index[key.name] = entry
            comma = _COMMA.match(text, position)
            if comma is not None:
                position = comma.end()
                if text[position : position + 1] in _SKIP_AFTER_FAST:
                    position = self.skip(position)
                continue
            more, position = self.after_item("object", position, opened)
        self.open.pop()
        if len(index) != len(entries):
            self.duplicate_keys = True
        return ObjectNode(entries, (self.positions, opened, position), path, index), position

    def member_scalar(
        self,
        end: int,
        path: DocPath,
        double: str | None,
        single: str | None,
        word: str | None,
    ) -> ScalarNode | None:
        """The scalar `_MEMBER` matched, ending at `end` (None when it matched none): the node
        `value` would have made of the same token."""
        if word is not None:
            start = end - len(word)
            scalar: Scalar = _WORDS[word] if word in _WORDS else int(word)
            return ScalarNode(scalar, (self.positions, start, end), path, word)
        string = double if double is not None else single
        if string is None:
            return None
        start = end - len(string) - 2
        return ScalarNode(string, (self.positions, start, end), path, self.text[start:end])

    def array(self, opened: int, path: DocPath, depth: int) -> tuple[Node, int]:
        self.enter("array", opened, depth)
        text = self.text
        items: list[Node] = []
        position = self.skip(opened + 1)
        more = True
        while more:
            if text.startswith("]", position):
                position += 1
                break
            item, position = self.value(position, (*path, len(items)), depth)
            items.append(item)
            comma = _COMMA.match(text, position)
            if comma is not None:
                position = comma.end()
                if text[position : position + 1] in _SKIP_AFTER_FAST:
                    position = self.skip(position)
                continue
            more, position = self.after_item("array", position, opened)
        self.open.pop()
        return ArrayNode(items, (self.positions, opened, position), path), position

    def key(self, position: int) -> tuple[Key, int]:
        text = self.text
        char = text[position : position + 1]
        if char == '"' or char == "'":
            name, end = self.string(position)
            return Key(name, (self.positions, position, end)), end
        word = _ASCII_WORD.match(text, position)
        if word is not None and not self.continues_key(word.end()):
            return Key(word.group(), (self.positions, position, word.end())), word.end()
        loose = _LOOSE_KEY.match(text, position)
        if loose is None or char.isdigit():
            if position >= self.end:
                raise self.unexpected_end()
            raise self.fail(
                f'expected a key or "}}", found {self.found(position)}',
                position,
                self.token_end(position),
            )
        return Key(
            self.identifier(position, loose.end()), (self.positions, position, loose.end())
        ), (loose.end())

    def continues_key(self, position: int) -> bool:
        char = self.text[position : position + 1]
        return bool(char) and (char == "\\" or not char.isascii())

    def identifier(self, start: int, end: int) -> str:
        """Decode and check an unquoted key with escapes or non-ASCII characters."""
        text = self.text
        name: list[str] = []
        position = start
        while position < end:
            escape = _KEY_ESCAPE.match(text, position)
            if escape is not None:
                char, width = chr(int(escape.group(1), 16)), 6
            elif text[position] == "\\":
                raise self.fail(
                    f"invalid escape {_quote(text[position : position + 2])} in a key",
                    position,
                    position + 1,
                    hint="only \\uXXXX escapes are allowed in unquoted keys",
                )
            else:
                char, width = text[position], 1
            if not _is_key_char(char, not name):
                written = _quote(text[position : position + width])
                raise self.fail(
                    f"{written} is not allowed in an unquoted key",
                    position,
                    position + width,
                    hint="put the key in quotes",
                )
            name.append(char)
            position += width
        return "".join(name)
