"""Renderers: turn result values (diagnostics, resolved settings, replay reports) into text."""

from __future__ import annotations

import json
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: object, indent: int | None = 2) -> str:
    """`json.dumps` with non-ASCII kept as it is, but lone surrogates written as `\\udXXX`.

    A JSON5 or JSON string may hold a lone surrogate (`"\\ud800"`) and Python keeps it in the
    str; UTF-8 cannot encode it, so writing the output would fail. In JSON text such a
    character can only stand inside a string, where the escape is valid and reads back as the
    same string. Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".
    """
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    if "NaN" in text or "Infinity" in text:
        text = _NON_FINITE.sub(_quoted_non_finite, text)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# A JSON string token (skipped as it is), or a bare non-finite number Python wrote outside one.
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN')


def _quoted_non_finite(match: re.Match[str]) -> str:
    """`NaN`, `Infinity`, `-Infinity` (recorded tool arguments may hold them: Python's JSON
    reads them) are not JSON: other parsers refuse the whole output. Written as strings."""
    token = match.group()
    return token if token.startswith('"') else f'"{token}"'


# Characters that must not reach a terminal or a log as they are: line breaks (one problem is
# one line; a key named "x\n::error::..." must not become a workflow command), escape sequences
# and bidirectional overrides (which reorder what is shown); lone surrogates (a JSON5 string
# may hold one) because UTF-8 cannot encode them: writing them would fail.
UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """`text` with control, line-break and bidi characters written as escapes (`\\n`, `\\u001b`)."""
    return UNPRINTABLE.sub(
        lambda m: _SHORT_ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), text
    )


def not_a_workflow_command(line: str) -> str:
    """`line`, prefixed with `./` when it would start with `::` (leading blanks ignored, as the
    GitHub Actions runner ignores them): a file named `::stop-commands::x.json5` must not turn
    a log line into a workflow command. For a relative file name `./` names the same file.
    Only loopcfg's own annotations (`--format github`) start with `::`."""
    return "./" + line if line.lstrip().startswith("::") else line
