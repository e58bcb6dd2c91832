"""Resolve what an agent really runs with: lookup (02 §2.1), merge (§2.2), provenance (§2.4).

The merge works on the *written* settings of each block, flattened to dotted names
(`detectors.pingPong`): an agent's written setting replaces the global one, everything else is
inherited. Flattening is exactly OpenClaw's rule (every key written in the agent block wins;
`detectors` and `postCompactionGuard` merge one level deep), because the groups are the only
nested objects of the block. `loopcfg.settings.settings_from_block` then applies defaults and the
runtime's threshold raises (§2.3).

Positions: every written value's `Source` carries the position of its **key token**
(`warningThreshold` in `warningThreshold: 8`), the same place the lints point at for "a problem of
one written setting" (03). Plain-dict configs have no positions (all None).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from loopcfg.diagnostics import Diagnostic
from loopcfg.keys import SETTINGS
from loopcfg.settings import EffectiveSettings, Origin, Source, settings_from_block
from loopcfg.source.nodes import (
    ArrayNode,
    DocPath,
    Entry,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    format_path,
    is_integer_value,
)

if TYPE_CHECKING:
    from loopcfg.config import LoadedConfig

__all__ = [
    "GLOBAL_BLOCK",
    "AgentEntry",
    "ConfigError",
    "Written",
    "agent_entries",
    "as_loaded",
    "block_settings",
    "find_agent",
    "merge_written",
    "normalize_agent_id",
    "resolve_agent",
    "resolve_all",
    "settings_for",
    "suggest_agents",
]

ConfigInput: TypeAlias = "LoadedConfig | str | os.PathLike[str] | Mapping[str, Any]"

GLOBAL_BLOCK: DocPath = ("tools", "loopDetection")
_VALID_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
_INVALID_RUN = re.compile(r"[^a-z0-9_-]+")  # only for ids that are not valid as written
_MAX_ID = 64
_DEFAULT_AGENT = "main"


class ConfigError(Exception):
    """The config cannot be resolved: it has errors (LC0xx); `.diagnostics` says which."""

    def __init__(self, file: str, diagnostics: list[Diagnostic]) -> None:
        self.file = file
        self.diagnostics = diagnostics
        first = diagnostics[0].message if diagnostics else "invalid config"
        super().__init__(f"{file}: {len(diagnostics)} error(s) in the config; first: {first}")


def normalize_agent_id(raw: str) -> str:
    """OpenClaw's agent id normalisation (02 §2.1): `" Safe Runner "` -> `safe-runner`."""
    text = raw.strip()
    if not text:
        return _DEFAULT_AGENT
    text = text.lower()
    if _VALID_ID.match(text):
        return text
    text = _INVALID_RUN.sub("-", text).strip("-")[:_MAX_ID]
    return text or _DEFAULT_AGENT


class Written(NamedTuple):
    """One setting as written in one block: its value and where (key token, value token)."""

    name: str
    value: bool | int
    origin: Origin  # "global" or "agent"
    key_span: Span | None
    value_span: Span | None
    path: str

    @property
    def span(self) -> Span | None:
        """Where a written value is pointed at: its key token (the value's if there is no key)."""
        return self.key_span or self.value_span

    def source(self) -> Source:
        span = self.span
        if span is None:
            return Source(self.origin)
        return Source(self.origin, span.file, span.line, span.column)


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One entry of `agents.list` with a string id (a frozen value, loopcfg/frozen.py)."""

    index: int
    raw_id: str
    id: str  # normalised
    node: ObjectNode
    id_key_span: Span | None
    id_value_span: Span | None

    @property
    def path(self) -> DocPath:
        return ("agents", "list", self.index)

    @property
    def block_path(self) -> DocPath:
        return (*self.path, "tools", "loopDetection")

    @property
    def id_span(self) -> Span | None:
        """Where an agent-level finding without a written value points: the id's value."""
        return self.id_value_span or self.id_key_span


def as_loaded(config: ConfigInput, *, env: Mapping[str, str] | None = None) -> LoadedConfig:
    """A `LoadedConfig` for any accepted input; paths and dicts are loaded and validated.

    Raises `ConfigError` when a path or dict has errors. A `LoadedConfig` passed in is used as
    it is (the caller has validated it); values of the wrong type are then ignored.
    """
    from loopcfg.config import LoadedConfig, load_config, loaded_from_python

    if isinstance(config, LoadedConfig):
        return config
    if isinstance(config, Mapping):
        loaded = loaded_from_python(dict(config), env=env)  # ${VAR} only when env is given
    elif isinstance(config, str | os.PathLike):
        loaded = load_config(Path(config) if not isinstance(config, str) else config, env=env)
    else:
        raise TypeError(f"cannot resolve a {type(config).__name__}: pass a path, dict or config")
    errors = config_errors(loaded)
    if errors:
        raise ConfigError(loaded.file, errors)
    return loaded


def config_errors(loaded: LoadedConfig) -> list[Diagnostic]:
    """Every error of loading and validation (what makes OpenClaw refuse the config)."""
    from loopcfg.diagnostics import sort_diagnostics
    from loopcfg.validate import validate_config

    found = [*loaded.diagnostics, *validate_config(loaded)]
    return sort_diagnostics([d for d in found if d.severity == "error"])


def _child(node: Node | None, name: str) -> Node | None:
    return node.get(name) if isinstance(node, ObjectNode) else None


def _at(root: Node | None, path: DocPath) -> Node | None:
    node = root
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, ArrayNode) or not 0 <= part < len(node.items):
                return None
            node = node.items[part]
        else:
            node = _child(node, part)
    return node


def global_block(root: ObjectNode | None) -> ObjectNode | None:
    block = _at(root, GLOBAL_BLOCK)
    return block if isinstance(block, ObjectNode) else None


def agent_block(root: ObjectNode | None, agent: AgentEntry) -> ObjectNode | None:
    block = _at(root, agent.block_path)
    return block if isinstance(block, ObjectNode) else None


def agent_entries(root: ObjectNode | None) -> list[AgentEntry]:
    """Every entry of `agents.list` that is an object with a string id, in order."""
    agents = _at(root, ("agents", "list"))
    if not isinstance(agents, ArrayNode):
        return []
    entries: list[AgentEntry] = []
    for index, item in enumerate(agents.items):
        if not isinstance(item, ObjectNode):
            continue
        id_entry = item.entry("id")
        if id_entry is None or not isinstance(id_entry.value, ScalarNode):
            continue
        raw = id_entry.value.value
        if not isinstance(raw, str):
            continue
        entries.append(
            AgentEntry(
                index,
                raw,
                normalize_agent_id(raw),
                item,
                id_entry.key.span,
                id_entry.value.span,
            )
        )
    return entries


def find_agent(root: ObjectNode | None, agent: str) -> AgentEntry | None:
    """The **first** entry whose normalised id equals the normalised `agent` (02 §2.1)."""
    wanted = normalize_agent_id(agent)
    return next((entry for entry in agent_entries(root) if entry.id == wanted), None)


def _setting_value(kind: str, node: Node) -> bool | int | None:
    """The usable value of a written setting, or None for a value validation refuses."""
    if not isinstance(node, ScalarNode):
        return None
    value = node.value
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if is_integer_value(value):
        number = int(value)  # type: ignore[arg-type]
        return number if number > 0 else None
    return None


def _written_entry(block: ObjectNode, name: str) -> Entry | None:
    if "." not in name:
        return block.entry(name)
    group, leaf = name.split(".", 1)
    node = block.get(group)
    return node.entry(leaf) if isinstance(node, ObjectNode) else None


def block_settings(block: ObjectNode | None, origin: Origin) -> dict[str, Written]:
    """The settings written in one block, by dotted name (the last duplicate key wins)."""
    if block is None:
        return {}
    written: dict[str, Written] = {}
    for setting in SETTINGS:
        entry = _written_entry(block, setting.name)
        if entry is None:
            continue
        value = _setting_value(setting.kind, entry.value)
        if value is None:
            continue
        path = format_path(entry.value.path) if entry.value.path else setting.name
        written[setting.name] = Written(
            setting.name, value, origin, entry.key.span, entry.value.span, path
        )
    return written


def merge_written(
    global_written: Mapping[str, Written], agent_written: Mapping[str, Written]
) -> dict[str, Written]:
    """02 §2.2 on flattened settings: the agent's written settings win, the rest is inherited."""
    return {**global_written, **agent_written}


def _as_block(merged: Mapping[str, Written]) -> dict[str, Any]:
    block: dict[str, Any] = {}
    for name, written in merged.items():
        if "." in name:
            group, leaf = name.split(".", 1)
            block.setdefault(group, {})[leaf] = written.value
        else:
            block[name] = written.value
    return block


def settings_for(
    merged: Mapping[str, Written], *, agent: str | None = None, found: bool | None = None
) -> EffectiveSettings:
    """Effective settings (defaults, adjustments) of a merged written block, with provenance."""
    sources = {name: written.source() for name, written in merged.items()}
    return settings_from_block(_as_block(merged), sources=sources, agent=agent, found=found)


def _written_for(root: ObjectNode | None, agent: AgentEntry | None) -> dict[str, Written]:
    global_written = block_settings(global_block(root), "global")
    if agent is None:
        return global_written
    return merge_written(global_written, block_settings(agent_block(root, agent), "agent"))


def resolve_agent(
    config: ConfigInput, agent: str | None = None, *, env: Mapping[str, str] | None = None
) -> EffectiveSettings:
    """The settings `agent` runs with (None: the global view, `agent`/`found` None).

    `config` is a `LoadedConfig`, a path (loaded; `ConfigError` when invalid) or a plain dict of
    the whole config (no positions). An id that no entry has gives `found=False` and the global
    block alone; `suggest_agents` names close ids.
    """
    root = as_loaded(config, env=env).root
    if agent is None:
        return settings_for(_written_for(root, None))
    entry = find_agent(root, agent)
    wanted = normalize_agent_id(agent)
    return settings_for(_written_for(root, entry), agent=wanted, found=entry is not None)


def resolve_all(
    config: ConfigInput, *, env: Mapping[str, str] | None = None
) -> list[EffectiveSettings]:
    """Every agent of `agents.list` in order; a later duplicate id is skipped (it is ignored)."""
    root = as_loaded(config, env=env).root
    results: list[EffectiveSettings] = []
    seen: set[str] = set()
    for entry in agent_entries(root):
        if entry.id in seen:
            continue
        seen.add(entry.id)
        results.append(settings_for(_written_for(root, entry), agent=entry.id, found=True))
    return results


def suggest_agents(config: ConfigInput, agent: str, *, limit: int = 3) -> list[str]:
    """Agent ids of the config close to `agent` (for "did you mean"), best first."""
    root = as_loaded(config).root
    ids = list(dict.fromkeys(entry.id for entry in agent_entries(root)))
    wanted = normalize_agent_id(agent)
    import difflib  # only for an unknown agent; validate and lint import this module

    close = difflib.get_close_matches(wanted, ids, n=limit, cutoff=0.6)
    prefixed = [i for i in ids if (i.startswith(wanted) or wanted.startswith(i)) and i not in close]
    return [*close, *prefixed][:limit]


# -- support for the `resolve` command (the CLI stays wiring only) --

CONFIG_CANDIDATES = ("openclaw.json5", "openclaw.json")


def default_config_path(
    env: Mapping[str, str] | None = None, cwd: Path | None = None, home: Path | None = None
) -> str | None:
    """05-cli's lookup: `$OPENCLAW_CONFIG_PATH`, ./openclaw.json5, ./openclaw.json, ~/.openclaw."""
    environ = os.environ if env is None else env
    named = environ.get("OPENCLAW_CONFIG_PATH")
    if named:
        return named
    here = Path.cwd() if cwd is None else cwd
    for name in CONFIG_CANDIDATES:
        if (here / name).is_file():
            return name if cwd is None else str(here / name)
    fallback = (Path.home() if home is None else home) / ".openclaw" / "openclaw.json"
    return str(fallback) if fallback.is_file() else None


class ResolveOutcome(NamedTuple):
    """What the command prints and its exit code."""

    stdout: str
    stderr: tuple[str, ...]
    exit_code: int


def run_resolve(
    loaded: LoadedConfig,
    *,
    agent: str | None,
    every: bool,
    output_format: str,
    strict: bool,
) -> ResolveOutcome:
    """Refuse invalid configs (exit 1; exit 2 when unreadable), else resolve and render.

    A refusal prints the errors exactly as `validate` prints them (the same renderer).
    """
    from loopcfg.render import printable
    from loopcfg.render.diagnostics import diagnostic_line
    from loopcfg.render.resolve import render

    errors = config_errors(loaded)
    if errors:
        unreadable = any(d.code == "LC000" for d in errors)
        return ResolveOutcome("", tuple(diagnostic_line(d) for d in errors), 2 if unreadable else 1)
    if every:
        return ResolveOutcome(render(resolve_all(loaded), output_format, every=True), (), 0)
    settings = resolve_agent(loaded, agent)
    notes: list[str] = []
    code = 0
    if agent is not None and not settings.found:
        # The id comes straight from the command line: one printable line whatever it holds.
        notes.append(printable(_unknown_agent_note(loaded, agent)))
        code = 1 if strict else 0
    return ResolveOutcome(render([settings], output_format, every=False), tuple(notes), code)


def _unknown_agent_note(loaded: LoadedConfig, agent: str) -> str:
    wanted = normalize_agent_id(agent)
    shown = f'"{agent}"' if wanted == agent else f'"{agent}" (normalised: "{wanted}")'
    note = f"{loaded.file}: agent {shown} is not in agents.list; showing the global block alone"
    close = suggest_agents(loaded, agent)
    if close:
        note += " (did you mean " + " or ".join(close) + "?)"
    return note
