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

        The target release, which picks the engine generation (09), is `openclaw`, else the
        config's own `meta.lastTouchedVersion` (08 §8.3), as for `validate` and `replay`."""
        from loopcfg.resolve import agent_settings, as_loaded, resolve_config
        from loopcfg.validate import config_target

        loaded = as_loaded(config, openclaw=openclaw)  # loaded and validated once
        target = config_target(loaded, openclaw)
        settings = agent_settings(resolve_config(loaded.root, target), agent)
        return cls(
            settings,
            max_sessions=max_sessions,
            send_tools=send_tools,
            poll_tools=poll_tools,
            openclaw=target.release.name if target.release is not None else None,
            normalize_tool_names=normalize_tool_names,
        )
