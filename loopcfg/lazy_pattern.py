"""A regex compiled on first use, for patterns that most runs never need.

Compiling a pattern runs Python's regex compiler (pure Python): a few hundred microseconds for
a character class with wide Unicode ranges. A module-level `re.compile` pays that on every start
of every command that imports the module, even when no text ever reaches the pattern (a valid
config prints no diagnostic, so nothing is escaped for a terminal). See docs/performance.md,
"Validate (cold start)".
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["LazyPattern"]


class LazyPattern:
    """`re.compile(pattern, flags)`, done the first time the pattern is used."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().match(text, pos)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().search(text, pos)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled().sub(replacement, text)
