"""The cyclic garbage collector paused while a config's tree is built and read.

A 4,000-agent config is some 100,000 nodes, and the objects the checks make on top of them;
none of them form cycles that need collecting before the check ends. With the collector on,
each generation-0 collection during the build also rescans what the tree already holds, so a
check grew faster than linearly with the file (413 µs per agent at 1,000 agents, 778 at
8,000; see docs/performance.md). Reference counting still frees everything as before.

`paused` restores the collector's state on the way out, whatever happens inside, and does
nothing when the collector is off already (the CLI's short commands, or a caller's own pause).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["paused", "pausing"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def pausing() -> Iterator[None]:
    """The collector off for a block of code, then put back as it was (`paused` for a
    function). The language server holds it off from a change to its diagnostics being
    written, so that the collection the check's objects call for happens after them (on the
    next allocation), not between the check and the reply."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def paused(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run `function` with the cyclic collector off, then put it back as it was."""

    @functools.wraps(function)
    def without_collector(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with pausing():
            return function(*args, **kwargs)

    return without_collector
