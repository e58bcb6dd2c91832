"""loopcfg: validate, resolve, run and replay OpenClaw's tool-call loop protection.

The public API is named here and loaded on first use, so `import loopcfg` (and
`loopcfg --version`) does no work beyond reading this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Diagnostic": "loopcfg.diagnostics",
    "EffectiveSettings": "loopcfg.settings",
    "LoopDetector": "loopcfg.facade",
    "CompactionLoopPersisted": "loopcfg.engine",
    "LoopBlocked": "loopcfg.engine",
    "Verdict": "loopcfg.engine",
    "LoopEvent": "loopcfg.engine",
    "resolve_agent": "loopcfg.resolve",
    "ConfigError": "loopcfg.resolve",
    "normalize_agent_id": "loopcfg.resolve",
    "load_config": "loopcfg.config",
}

__all__ = ["__version__", *_EXPORTS]

if TYPE_CHECKING:
    from loopcfg.config import load_config as load_config
    from loopcfg.diagnostics import Diagnostic as Diagnostic
    from loopcfg.engine import CompactionLoopPersisted as CompactionLoopPersisted
    from loopcfg.engine import LoopBlocked as LoopBlocked
    from loopcfg.engine import LoopEvent as LoopEvent
    from loopcfg.engine import Verdict as Verdict
    from loopcfg.facade import LoopDetector as LoopDetector
    from loopcfg.resolve import ConfigError as ConfigError
    from loopcfg.resolve import normalize_agent_id as normalize_agent_id
    from loopcfg.resolve import resolve_agent as resolve_agent
    from loopcfg.settings import EffectiveSettings as EffectiveSettings


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'loopcfg' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
