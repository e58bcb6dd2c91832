"""The settings a replay runs with: one config resolved once, before any file is read.

The config is loaded, validated and resolved in the parent process, for the `--agent` and for
every agent of `agents.list` (a trace's `{"type":"config","agent":X}` line may name any of
them); worker processes receive only these settings (they pickle) and never read the config
again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from loopcfg.files import DEFAULT_MAX_BYTES
from loopcfg.keys import SETTINGS
from loopcfg.settings import EffectiveSettings, settings_from_block

if TYPE_CHECKING:
    from loopcfg.diagnostics import Diagnostic


class ConfigRefused(Exception):
    """The config cannot be used: `diagnostics` say why (the command prints them as validate's
    own lines; the library imports no renderer); exit 2."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "invalid config")
        self.diagnostics = diagnostics


@dataclass(frozen=True, slots=True)
class ConfigTable:
    """One config's settings: the replayed agent's, every listed agent's, the global block's."""

    label: str
    base: EffectiveSettings
    global_settings: EffectiveSettings
    agents: Mapping[str, EffectiveSettings] = field(default_factory=dict)
    # The config's meta.lastTouchedVersion (any JSON value; None when absent): replay's target
    # when there is no --openclaw (README decision 2).
    meta_version: object = None

    def for_agent(self, agent: str) -> EffectiveSettings:
        """A config line's agent; an id `agents.list` lacks runs with the global block alone."""
        from loopcfg.resolve import normalize_agent_id

        return self.agents.get(normalize_agent_id(agent), self.global_settings)


def defaults_table(agent: str | None = None) -> ConfigTable:
    """No --config: OpenClaw's defaults with the detectors switched on (05 replay)."""
    settings = settings_from_block({"enabled": True})
    return ConfigTable(label_for(None, agent), settings, settings)


def label_for(config: str | None, agent: str | None) -> str:
    name = config if config is not None else "defaults"
    return f"{name} --agent {agent}" if agent else name


def load_table(
    config: str | None, agent: str | None, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[ConfigTable, list[str]]:
    """The table of `config` for `agent`, and notes for stderr; raises `ConfigRefused`."""
    if config is None:
        unused = f"loopcfg replay: no --config, so --agent {agent} changes nothing"
        return defaults_table(agent), [unused] if agent else []
    from loopcfg.config import load_config
    from loopcfg.resolve import config_errors, resolve_agent, resolve_all

    loaded = load_config(config, max_bytes=max_bytes)
    errors = config_errors(loaded)
    if errors:
        raise ConfigRefused(errors)
    global_settings = resolve_agent(loaded, None)
    base = resolve_agent(loaded, agent) if agent is not None else global_settings
    agents = {s.agent: s for s in resolve_all(loaded) if s.agent is not None}
    notes: list[str] = []
    if agent is not None and not base.found:
        notes.append(
            f"loopcfg replay: {config}: agent {agent!r} is not in agents.list; "
            "replaying with the global block alone"
        )
    if not base.detectors_active:
        notes.append(
            f"loopcfg replay: {config}: enabled is not true for "
            f"{'agent ' + repr(agent) if agent else 'the global block'}: the detectors are off, "
            "only the post-compaction guard runs (as in OpenClaw)"
        )
    table = ConfigTable(
        label_for(config, agent), base, global_settings, agents, _meta_version(loaded)
    )
    return table, notes


def _meta_version(loaded: Any) -> object:
    from loopcfg.source.nodes import ObjectNode, to_python

    meta = loaded.root.get("meta") if loaded.root is not None else None
    if not isinstance(meta, ObjectNode):
        return None
    version = meta.get("lastTouchedVersion")
    return None if version is None else to_python(version)


def changed_settings(a: EffectiveSettings, b: EffectiveSettings) -> list[tuple[str, Any, Any]]:
    """(setting, value under a, value under b) for every setting that differs, in key order."""
    changes: list[tuple[str, Any, Any]] = []
    for setting in SETTINGS:
        left, right = getattr(a, setting.attr), getattr(b, setting.attr)
        if left != right:
            changes.append((setting.name, left, right))
    return changes
