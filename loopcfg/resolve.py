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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from loopcfg.agent_ids import normalize_agent_id
from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic
from loopcfg.keys import DEFAULT_LINE, SETTINGS
from loopcfg.keys import settings_for as settings_of_line
from loopcfg.releases import MAX_SAFE_INTEGER, Target, choose_target, line_settings
from loopcfg.settings import (
    EffectiveSettings,
    Origin,
    PlacedSource,
    Source,
    settings_from_written,
)
from loopcfg.source.nodes import (
    ArrayNode,
    DocPath,
    Entry,
    Key,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    format_path,
    is_integer_value,
)

if TYPE_CHECKING:
    from loopcfg.config import LoadedConfig
    from loopcfg.memo import SubtreeMemo

__all__ = [
    "GLOBAL_BLOCK",
    "AgentEntry",
    "ConfigError",
    "ResolvedConfig",
    "Scope",
    "Written",
    "agent_entries",
    "agent_settings",
    "as_loaded",
    "block_settings",
    "find_agent",
    "merge_written",
    "normalize_agent_id",
    "resolve_agent",
    "resolve_all",
    "resolve_config",
    "resolve_one",
    "settings_for",
    "suggest_agents",
]

ConfigInput: TypeAlias = "LoadedConfig | str | os.PathLike[str] | Mapping[str, Any]"

GLOBAL_BLOCK: DocPath = ("tools", "loopDetection")


class ConfigError(Exception):
    """The config cannot be resolved: it has errors (LC0xx); `.diagnostics` says which."""

    def __init__(self, file: str, diagnostics: list[Diagnostic]) -> None:
        self.file = file
        self.diagnostics = diagnostics
        first = diagnostics[0].message if diagnostics else "invalid config"
        super().__init__(f"{file}: {len(diagnostics)} error(s) in the config; first: {first}")


class Written(NamedTuple):
    """One setting as written in one block: its value, and its key and value as parsed (their
    spans and the path are read from them when a finding or a source needs them)."""

    name: str
    value: bool | int
    origin: Origin  # "global" or "agent"
    key: Key | None
    node: Node  # the value as written

    @property
    def key_span(self) -> Span | None:
        return None if self.key is None else self.key.span

    @property
    def value_span(self) -> Span | None:
        return self.node.span

    @property
    def span(self) -> Span | None:
        """Where a written value is pointed at: its key token (the value's if there is no key)."""
        return self.key_span or self.value_span

    @property
    def path(self) -> str:
        """The value's document path (`agents.list[2].tools.loopDetection.historySize`)."""
        return format_path(self.node.path) if self.node.path else self.name

    def source(self) -> Source:
        span = self.span
        if span is None:
            return Source(self.origin)
        return PlacedSource(self.origin, span)


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One agent of the roster: an `agents.list` entry with a string id, or an
    `agents.entries.<id>` entry (`entry_key` set; its key is its id)."""

    index: int
    raw_id: str
    id: str  # normalised
    node: ObjectNode
    id_key_span: Span | None
    id_value_span: Span | None
    entry_key: str | None = None  # the `agents.entries` key; None for an `agents.list` entry

    @property
    def path(self) -> DocPath:
        if self.entry_key is not None:
            return ("agents", "entries", self.entry_key)
        return ("agents", "list", self.index)

    @property
    def id_path(self) -> DocPath:
        """Where the id is written: the `id` key, or the entry's own key."""
        return self.path if self.entry_key is not None else (*self.path, "id")

    @property
    def block_path(self) -> DocPath:
        return (*self.path, "tools", "loopDetection")

    @property
    def id_span(self) -> Span | None:
        """Where an agent-level finding without a written value points: the id's value."""
        return self.id_value_span or self.id_key_span


def as_loaded(
    config: ConfigInput, *, env: Mapping[str, str] | None = None, openclaw: str | None = None
) -> LoadedConfig:
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
    errors = config_errors(loaded, openclaw)
    if errors:
        raise ConfigError(loaded.file, errors)
    return loaded


def config_errors(loaded: LoadedConfig, openclaw: str | None = None) -> list[Diagnostic]:
    """Every error of loading and validation for the target (what makes OpenClaw refuse the
    config): a missing `${VAR}` is one only where the target refuses it (LC006, not LC112)."""
    from loopcfg.diagnostics import sort_diagnostics
    from loopcfg.validate import validate_config, with_missing_env

    target = _target_of(loaded, openclaw)
    found = [*with_missing_env(list(loaded.diagnostics), target), *validate_config(loaded, target)]
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


def _own_block(agent: AgentEntry) -> ObjectNode | None:
    """`agent_block` for an entry of the root being resolved: read from the agent's own node
    rather than walked to from the root again."""
    block = _child(_child(agent.node, "tools"), "loopDetection")
    return block if isinstance(block, ObjectNode) else None


def agent_entries(
    root: ObjectNode | None, target: Target | None = None, memo: SubtreeMemo | None = None
) -> list[AgentEntry]:
    """Every agent of the roster the target reads (08 §8.1), in order: `agents.list` entries
    that are objects with a string id, and/or `agents.entries` entries that are objects.
    With `memo`, an entry whose node is unchanged since the last check is that check's."""
    if root is None:
        return []
    from loopcfg.validate import roster_reads

    reads = roster_reads(root, choose_target(None) if target is None else target)
    found = _list_entries(root, memo=memo) if reads.list else []
    if reads.entries:
        found += _keyed_entries(root, memo=memo)
    return found


def _keyed_entries(
    root: ObjectNode, wanted: str | None = None, memo: SubtreeMemo | None = None
) -> list[AgentEntry]:
    """The `agents.entries` agents; with `wanted`, only the first whose id it is."""
    entries = _at(root, ("agents", "entries"))
    if not isinstance(entries, ObjectNode):
        return []
    found: list[AgentEntry] = []
    for index, entry in enumerate(entries.winning_entries()):
        key = entry.key.name
        if key == "$include" or not isinstance(entry.value, ObjectNode):
            continue
        normalised = normalize_agent_id(key)
        if wanted is not None and normalised != wanted:
            continue
        if memo is None:
            found.append(_keyed_entry(index, entry))
        else:
            anchors = (entry.key, entry.value)
            made = _memoised_entry(
                memo, "keyed entry", anchors, index, partial(_keyed_entry, index, entry)
            )
            assert made is not None
            found.append(made)
        if wanted is not None:
            break
    return found


def _keyed_entry(index: int, entry: Entry) -> AgentEntry:
    assert isinstance(entry.value, ObjectNode)
    key = entry.key.name
    normalised = normalize_agent_id(key)
    return AgentEntry(index, key, normalised, entry.value, entry.key.span, None, key)


def _list_entries(
    root: ObjectNode, wanted: str | None = None, memo: SubtreeMemo | None = None
) -> list[AgentEntry]:
    """The `agents.list` agents; with `wanted`, only the first whose id it is (the others'
    entries, and the spans they carry, are not made)."""
    agents = _at(root, ("agents", "list"))
    if not isinstance(agents, ArrayNode):
        return []
    entries: list[AgentEntry] = []
    for index, item in enumerate(agents.items):
        if memo is None:
            entry = _list_entry(index, item, wanted)
        else:
            entry = _memoised_entry(
                memo, "list entry", (item,), index, partial(_list_entry, index, item)
            )
            if entry is not None and wanted is not None and entry.id != wanted:
                entry = None
        if entry is None:
            continue
        entries.append(entry)
        if wanted is not None:
            break
    return entries


def _memoised_entry(
    memo: SubtreeMemo,
    kind: str,
    anchors: tuple[object, ...],
    index: int,
    make: Callable[[], AgentEntry | None],
) -> AgentEntry | None:
    """The roster entry of an item (`make()`), or the one the memo kept for the same nodes,
    at the item's index now: an agent added or removed above it moves it without changing
    it. What is kept for its agent is keyed by its node, not by this entry, and finds its
    path when reported."""
    kept = memo.peek(kind, anchors)
    if kept is None:
        made = make()
        memo.put(kind, anchors, made)
        return made
    entry: AgentEntry | None = kept[0]
    if entry is None or entry.index == index:
        memo.hits += 1
        return entry
    memo.misses += 1
    moved = AgentEntry(
        index,
        entry.raw_id,
        entry.id,
        entry.node,
        entry.id_key_span,
        entry.id_value_span,
        entry.entry_key,
    )  # (not `dataclasses.replace`: a quarter of the time, for each agent that moved)
    memo.put(kind, anchors, moved)
    return moved


def _list_entry(index: int, item: Node, wanted: str | None = None) -> AgentEntry | None:
    """The roster entry of `agents.list[index]`; None when it is not an agent (or not `wanted`)."""
    if not isinstance(item, ObjectNode):
        return None
    id_entry = item.entry("id")
    if id_entry is None or not isinstance(id_entry.value, ScalarNode):
        return None
    raw = id_entry.value.value
    if not isinstance(raw, str):
        return None
    normalised = normalize_agent_id(raw)
    if wanted is not None and normalised != wanted:
        return None
    return AgentEntry(index, raw, normalised, item, id_entry.key.span, id_entry.value.span)


def find_agent(
    root: ObjectNode | None, agent: str, target: Target | None = None
) -> AgentEntry | None:
    """The **first** entry whose normalised id equals the normalised `agent` (02 §2.1)."""
    if root is None:
        return None
    from loopcfg.validate import roster_reads

    wanted = normalize_agent_id(agent)
    reads = roster_reads(root, choose_target(None) if target is None else target)
    found = _list_entries(root, wanted) if reads.list else []
    if not found and reads.entries:
        found = _keyed_entries(root, wanted)
    return found[0] if found else None


def _setting_value(kind: str, node: Node) -> bool | int | None:
    """The usable value of a written setting, or None for a value validation refuses."""
    if not isinstance(node, ScalarNode):
        return None
    value = node.value
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if is_integer_value(value):
        number = int(value)  # type: ignore[arg-type]
        return number if 0 < number <= MAX_SAFE_INTEGER else None
    return None


def _written_entry(block: ObjectNode, name: str) -> Entry | None:
    if "." not in name:
        return block.entry(name)
    group, leaf = name.split(".", 1)
    node = block.get(group)
    return node.entry(leaf) if isinstance(node, ObjectNode) else None


def block_settings(
    block: ObjectNode | None, origin: Origin, line: str = DEFAULT_LINE
) -> dict[str, Written]:
    """The settings written in one block that the line accepts, by dotted name (the last
    duplicate key wins)."""
    if block is None:
        return {}
    written: dict[str, Written] = {}
    for setting in settings_of_line(line):
        entry = _written_entry(block, setting.name)
        if entry is None:
            continue
        value = _setting_value(setting.kind, entry.value)
        if value is None:
            continue
        written[setting.name] = Written(setting.name, value, origin, entry.key, entry.value)
    return written


def merge_written(
    global_written: Mapping[str, Written], agent_written: Mapping[str, Written]
) -> dict[str, Written]:
    """02 §2.2 on flattened settings: the agent's written settings win, the rest is inherited."""
    return {**global_written, **agent_written}


def settings_for(
    merged: Mapping[str, Written],
    *,
    agent: str | None = None,
    found: bool | None = None,
    line: str = DEFAULT_LINE,
) -> EffectiveSettings:
    """Effective settings (defaults, adjustments) of a merged written block, with provenance.

    On a line without a setting (the knobs retired in 2026.8.1) its built-in value applies;
    its source says `builtin` (README Decision 10), not `default`.
    """
    sources = {name: written.source() for name, written in merged.items()}
    return _scope_settings(merged, sources, agent, found, line)


def _scope_settings(
    merged: Mapping[str, Written],
    sources: Mapping[str, Source],
    agent: str | None,
    found: bool | None,
    line: str,
) -> EffectiveSettings:
    # The written values were checked when they were read (`_setting_value`): no second check.
    return settings_from_written(
        {name: written.value for name, written in merged.items()},
        sources=sources,
        agent=agent,
        found=found,
        fixed_sources=_builtin_sources(line),
    )


@cache
def _builtin_sources(line: str) -> Mapping[str, Source]:
    accepted = line_settings(line)
    return MappingProxyType({s.name: Source("builtin") for s in SETTINGS if s.name not in accepted})


class Scope(NamedTuple):
    """One block as the runtime sees it: the global block alone, or one agent's merge."""

    agent: AgentEntry | None
    own: dict[str, Written]  # written in this scope's own block
    merged: dict[str, Written]
    settings: EffectiveSettings


class ResolvedConfig(NamedTuple):
    """Every scope of a config resolved once for one target (the design note of issue 11):
    lint, `resolve`'s output, the engine and `migrate` consume this value."""

    target: Target
    global_written: dict[str, Written]
    global_scope: Scope
    agents: tuple[Scope, ...]  # one per distinct normalised id; the first entry wins (02 §2.1)
    entries: tuple[AgentEntry, ...]  # every roster entry, later duplicates too

    def agent(self, agent: str) -> Scope | None:
        wanted = normalize_agent_id(agent)
        return next((s for s in self.agents if s.agent and s.agent.id == wanted), None)


@paused
def resolve_config(
    root: ObjectNode | None, target: Target | None = None, memo: SubtreeMemo | None = None
) -> ResolvedConfig:
    """Resolve the global block and every agent of the target's roster, with provenance.

    With `memo` (the language server's), an agent whose roster entry and the global block are
    the same nodes as in the last check gets that check's scope: only edited scopes are merged.
    """
    chosen = choose_target(None) if target is None else target
    line = chosen.line.id
    block = global_block(root)
    if memo is None:
        globals_ = _global_scope(block, line)
    else:
        globals_ = memo.get("global scope", (block,), line, _global_scope, block, line)
    global_scope, global_sources = globals_
    entries = tuple(agent_entries(root, chosen, memo))
    scopes: list[Scope] = []
    seen: set[str] = set()
    for entry in entries:
        if entry.id in seen:
            continue  # ignored at runtime (LC106)
        seen.add(entry.id)
        if memo is None:
            own = _agent_own(entry, line)
            scopes.append(_agent_scope(entry, own, global_scope, global_sources, line))
        else:
            scopes.append(_memoised_agent_scope(memo, entry, global_scope, global_sources, line))
    return ResolvedConfig(chosen, global_scope.own, global_scope, tuple(scopes), entries)


def _global_scope(block: ObjectNode | None, line: str) -> tuple[Scope, dict[str, Source]]:
    """The global block's scope, and its sources (every agent's scope inherits them)."""
    global_written = block_settings(block, "global", line)
    global_sources = {name: written.source() for name, written in global_written.items()}
    global_settings = _scope_settings(global_written, global_sources, None, None, line)
    return Scope(None, global_written, dict(global_written), global_settings), global_sources


_Own = tuple[dict[str, Written], dict[str, Source]]  # an agent's own written settings, sources


def _agent_own(entry: AgentEntry, line: str) -> _Own:
    own = block_settings(_own_block(entry), "agent", line)
    return own, {name: written.source() for name, written in own.items()}


def _agent_scope(
    entry: AgentEntry,
    own: _Own,
    global_scope: Scope,
    global_sources: Mapping[str, Source],
    line: str,
) -> Scope:
    """One agent's merge of its own block over the global block (02 §2.2)."""
    written, own_sources = own
    merged = merge_written(global_scope.own, written)
    sources = {**global_sources, **own_sources}
    settings = _scope_settings(merged, sources, entry.id, True, line)
    return Scope(entry, written, merged, settings)


def _memoised_agent_scope(
    memo: SubtreeMemo,
    entry: AgentEntry,
    global_scope: Scope,
    global_sources: Mapping[str, Source],
    line: str,
) -> Scope:
    """`_agent_scope` from the last check when the agent's node and the global block are
    the same nodes; after an edit of the global block, only the merge is made again (the
    agent's own settings are read from its unchanged block once). Keyed by the agent's node
    and id, not its roster entry: an agent that an addition above it moved to another index
    keeps its scope (the same `own` and `merged` objects, which lint keys its findings by),
    given its entry of now."""
    anchors, values = (entry.node,), (line, entry.id, entry.raw_id, entry.entry_key)
    kept = memo.peek("agent scope", anchors, values)
    if kept is not None:
        merged_with, scope, own = kept[0]
        if merged_with is global_scope:
            if scope.agent is not entry:
                scope = Scope(entry, scope.own, scope.merged, scope.settings)  # not `_replace`
                memo.put("agent scope", anchors, (global_scope, scope, own), values)
            return scope  # type: ignore[no-any-return]
    else:
        own = _agent_own(entry, line)
    scope = _agent_scope(entry, own, global_scope, global_sources, line)
    memo.put("agent scope", anchors, (global_scope, scope, own), values)
    return scope


def _target_of(loaded: LoadedConfig, openclaw: str | None) -> Target:
    from loopcfg.validate import config_target

    return config_target(loaded, openclaw)


def resolve_agent(
    config: ConfigInput,
    agent: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    openclaw: str | None = None,
) -> EffectiveSettings:
    """The settings `agent` runs with (None: the global view, `agent`/`found` None).

    `config` is a `LoadedConfig`, a path (loaded; `ConfigError` when invalid) or a plain dict of
    the whole config (no positions). An id that no entry has gives `found=False` and the global
    block alone; `suggest_agents` names close ids. The target release is `openclaw`, else the
    config's `meta.lastTouchedVersion` (08 §8.3).
    """
    loaded = as_loaded(config, env=env, openclaw=openclaw)
    return resolve_one(loaded.root, agent, _target_of(loaded, openclaw))


def resolve_one(
    root: ObjectNode | None, agent: str | None, target: Target | None = None
) -> EffectiveSettings:
    """`agent_settings(resolve_config(root, target), agent)` without merging the other agents:
    the global block and the first roster entry with the agent's id (02 §2.1), nothing else.
    What `resolve --agent` and `resolve_agent` print for one agent of thousands."""
    chosen = choose_target(None) if target is None else target
    line = chosen.line.id
    global_written = block_settings(global_block(root), "global", line)
    global_sources = {name: written.source() for name, written in global_written.items()}
    if agent is None:
        return _scope_settings(global_written, global_sources, None, None, line)
    entry = find_agent(root, agent, chosen)
    if entry is None:
        return settings_for(global_written, agent=normalize_agent_id(agent), found=False, line=line)
    own = block_settings(_own_block(entry), "agent", line)
    sources = {**global_sources, **{name: w.source() for name, w in own.items()}}
    return _scope_settings(merge_written(global_written, own), sources, entry.id, True, line)


def agent_settings(resolved: ResolvedConfig, agent: str | None) -> EffectiveSettings:
    """One agent's settings from a resolved config (the global view for None)."""
    if agent is None:
        return resolved.global_scope.settings
    scope = resolved.agent(agent)
    if scope is not None:
        return scope.settings
    line = resolved.target.line.id
    wanted = normalize_agent_id(agent)
    return settings_for(resolved.global_written, agent=wanted, found=False, line=line)


def resolve_all(
    config: ConfigInput,
    *,
    env: Mapping[str, str] | None = None,
    openclaw: str | None = None,
) -> list[EffectiveSettings]:
    """Every agent of the roster in order; a later duplicate id is skipped (it is ignored)."""
    loaded = as_loaded(config, env=env, openclaw=openclaw)
    resolved = resolve_config(loaded.root, _target_of(loaded, openclaw))
    return [scope.settings for scope in resolved.agents]


def suggest_agents(config: ConfigInput, agent: str, *, limit: int = 3) -> list[str]:
    """Agent ids of the config close to `agent` (for "did you mean"), best first."""
    loaded = as_loaded(config)
    root = loaded.root
    ids = list(dict.fromkeys(entry.id for entry in agent_entries(root, _target_of(loaded, None))))
    wanted = normalize_agent_id(agent)
    import difflib  # only for an unknown agent; validate and lint import this module

    close = difflib.get_close_matches(wanted, ids, n=limit, cutoff=0.6)
    prefixed = [i for i in ids if (i.startswith(wanted) or wanted.startswith(i)) and i not in close]
    return [*close, *prefixed][:limit]


# -- the config OpenClaw would read (README Decision 6; the rules are loopcfg/statedir.py's) --


def default_config_path(
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
    profile: str | None = None,
) -> str | None:
    """`$OPENCLAW_CONFIG_PATH`, ./openclaw.json5, ./openclaw.json, then the state directory's
    openclaw.json (`$OPENCLAW_STATE_DIR`, else ~/.openclaw or ~/.openclaw-NAME)."""
    from loopcfg.statedir import discover_config

    found = discover_config(
        os.environ if env is None else env,
        home=Path.home() if home is None else home,
        cwd=Path(".") if cwd is None else cwd,
        profile=profile,
    )
    if found is None:
        return None
    return str(found)
