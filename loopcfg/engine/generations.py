"""Engine generations (09): which detector engine a target OpenClaw release runs.

A generation is a handful of switches read from the release table (`loopcfg.releases`), never a
copy of the engine: E5.4, E5.12 and E6.5 are the 04 engine with switches, E8.1 is the engine of
09 §9.4 (`engine/v4.py`). The table is the one place that knows which release runs which.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from loopcfg import releases
from loopcfg.hashing import OutcomeRules, args_hash, js_trim, legacy_args_hash

FIRST_MODELLED = "2026.5.4"
MAX_KNOWN_NAMES = 1024


@dataclass(frozen=True, slots=True)
class Generation:
    """The switches of one engine generation, for one target release."""

    name: str  # "E5.4", "E5.12", "E6.5" or "E8.1"
    target: str | None  # the release's name; None: no target or an unknown one
    # A pre-release of 09 §9.3, run as E8.1 (replay says so on stderr).
    transitional: bool
    generic_critical: bool
    v4: bool
    rules: OutcomeRules
    aliases: Mapping[str, str] = field(default_factory=dict)

    @property
    def args_hash(self) -> Callable[[str, Any], str]:
        return legacy_args_hash if self.rules.legacy_json else args_hash

    def normalize_tool(self, name: Any) -> str:
        """The host's tool-name normalisation (09 §9.5): the raw name (or `tool` when it is
        empty or absent), trimmed, lower-cased as JavaScript does, then the aliases."""
        raw = name if isinstance(name, str) and name else "tool"
        lowered = js_trim(raw).lower()
        return self.aliases.get(lowered, lowered)

    def name_table(self, normalize: bool = True) -> ToolNames:
        """What the host methods look names up in: normalised (or as given), remembered."""
        return ToolNames(self.normalize_tool if normalize else str)


class ToolNames(dict[str, str]):
    """Raw tool name -> the name detection uses, computed once per name: normalising runs on
    every host call, and a session uses a few dozen tools."""

    def __init__(self, normalize: Callable[[str], str]) -> None:
        super().__init__()
        self.normalize = normalize

    def __missing__(self, name: str) -> str:
        normalised = self.normalize(name)
        if len(self) >= MAX_KNOWN_NAMES:
            self.clear()
        self[name] = normalised
        return normalised


def generation(openclaw: str | None = None) -> Generation:
    """The generation a target release runs; an absent or unknown target runs E6.5.

    Raises ValueError for a release before 2026.5.4 (not modelled, 09)."""
    release = releases.release_info(openclaw) if openclaw is not None else None
    if release is None:
        return _build(releases.DEFAULT_ENGINE, None, None)
    if release.engine is None:
        raise ValueError(
            f"OpenClaw {release.name} is older than {FIRST_MODELLED}, the first release whose "
            "detector engine loopcfg models"
        )
    return _build(release.engine, release, release.name)


def _build(engine: str, release: releases.Release | None, target: str | None) -> Generation:
    switches = releases.ENGINE_SWITCHES[engine]
    rules = OutcomeRules(
        hash_veto=switches.hash_veto,
        strip_sends=switches.strip_sends,
        conversations_send=release is not None and release.has("conversations_send"),
        legacy_json=switches.legacy_json,
    )
    return Generation(
        name="E8.1" if engine == "transitional" else engine,
        target=target,
        transitional=engine == "transitional",
        generic_critical=switches.generic_critical,
        v4=switches.v4,
        rules=rules,
        aliases=MappingProxyType(releases.tool_aliases(release)),
    )


DEFAULT_GENERATION = generation(None)
