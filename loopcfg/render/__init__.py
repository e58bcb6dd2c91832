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
    same string.
    """
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
