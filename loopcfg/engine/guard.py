"""The post-compaction guard of one run (04 §4.9)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from loopcfg.engine.verdicts import CompactionLoopPersisted

guard_log = logging.getLogger("loopcfg.guard")


@dataclass(slots=True)
class Guard:
    """A run's post-compaction guard: the attempts left in its window and what they saw."""

    window_size: int
    remaining: int = 0
    # How often each (tool, argsHash, resultHash) was seen in the current window.
    window: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def arm(self) -> None:
        self.remaining = self.window_size
        self.window = {}
        guard_log.info("post-compaction guard armed for %d attempts", self.window_size)

    def observe(self, tool: str, args_hash: str, result_hash: str) -> None:
        if self.remaining <= 0:
            return
        self.remaining -= 1
        entry = (tool, args_hash, result_hash)
        matches = self.window[entry] = self.window.get(entry, 0) + 1
        if matches >= self.window_size:
            self.remaining = 0
            guard_log.error(
                "post-compaction loop persisted: tool=%s repeated %d times with identical "
                "args+result post-compaction",
                tool,
                matches,
            )
            raise CompactionLoopPersisted(tool, matches, self.window_size)
