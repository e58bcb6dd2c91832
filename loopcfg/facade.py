"""The public LoopDetector: the engine's detector plus `from_config` (loads and resolves)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from os import PathLike
from typing import Any

from loopcfg.engine import detector as _engine


class LoopDetector(_engine.LoopDetector):
    @classmethod
    def from_config(
        cls,
        config: str | PathLike[str] | Mapping[str, Any] | Any,
        agent: str | None = None,
        *,
        max_sessions: int | None = None,
        send_tools: Iterable[str] = (),
        poll_tools: Iterable[str] = (),
        openclaw: str | None = None,
        normalize_tool_names: bool = True,
    ) -> LoopDetector:
        """A detector for `agent` of a whole config (a path, a LoadedConfig or a dict).
        `openclaw` picks the engine generation (09), as for `LoopDetector`."""
        from loopcfg.resolve import resolve_agent

        settings = resolve_agent(config, agent)
        return cls(
            settings,
            max_sessions=max_sessions,
            send_tools=send_tools,
            poll_tools=poll_tools,
            openclaw=openclaw,
            normalize_tool_names=normalize_tool_names,
        )
