"""Effective settings: what an agent really runs with, and where each value came from.

This module imports nothing of the loader, so the engine can depend on it. `settings_from_block`
applies OpenClaw's runtime steps (02 §2.3) to an already merged block; `loopcfg.resolve` does the
merge and supplies provenance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol, TypeAlias

from loopcfg.keys import GROUPS, SETTINGS, SETTINGS_BY_NAME, group_keys, top_level_keys

# "builtin": a knob the target release no longer accepts, whose built-in value applies (S3).
Origin: TypeAlias = Literal["default", "global", "agent", "adjusted", "builtin"]


@dataclass(frozen=True, slots=True)
class Source:
    """Where one effective value came from; position fields are None for defaults and dicts."""

    origin: Origin
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"from": self.origin, "file": self.file, "line": self.line, "column": self.column}

    def with_origin(self, origin: Origin) -> Source:
        """The same place, come to the value another way (a written value adjusted)."""
        return Source(origin, self.file, self.line, self.column)


class _Place(Protocol):
    """A place in a file (a `source.nodes.Span`; settings do not import the loader's types)."""

    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...


class PlacedSource(Source):
    """A `Source` whose position is read from the written value's span when asked: in the
    language server an edit moves the lines of spans that scopes kept from the last check
    hold (`nodes.MovableSpan`), and a position copied out of them would go stale. Equal to
    the plain `Source` of the same place; pickled as one."""

    __slots__ = ("span",)
    span: _Place

    def __init__(self, origin: Origin, span: _Place) -> None:
        object.__setattr__(self, "origin", origin)  # Source is frozen
        object.__setattr__(self, "span", span)

    @property
    def file(self) -> str:
        return self.span.file

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def plain(self) -> Source:
        return Source(self.origin, self.file, self.line, self.column)

    def with_origin(self, origin: Origin) -> Source:
        return PlacedSource(origin, self.span)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Source):
            return NotImplemented
        return (self.origin, self.file, self.line, self.column) == (
            other.origin,
            other.file,
            other.line,
            other.column,
        )

    def __hash__(self) -> int:
        return hash(self.plain())

    def __repr__(self) -> str:
        return repr(self.plain())

    def __reduce__(self) -> tuple[type[Source], tuple[Origin, str, int, int]]:
        return Source, (self.origin, self.file, self.line, self.column)


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A value the runtime changed: the user wrote (or inherited) `written`, gets `effective`.

    `raised_from` names the setting the new value derives from (`effective` is its value + 1);
    `written_source` says where `written` came from (a default, or a block's key token). Neither
    is part of equality: the same adjustment read from a file or from a dict is the same.
    """

    setting: str
    written: int
    effective: int
    rule: str
    raised_from: str = field(default="", compare=False)
    written_source: Source | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "written": self.written,
            "effective": self.effective,
            "rule": self.rule,
        }


_EMPTY_SOURCES: Mapping[str, Source] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class EffectiveSettings:
    """All ten settings after merge, defaults and adjustments, plus provenance."""

    enabled: bool | None = None
    history_size: int = 30
    warning_threshold: int = 10
    critical_threshold: int = 20
    unknown_tool_threshold: int = 10
    global_circuit_breaker_threshold: int = 30
    generic_repeat: bool = True
    known_poll_no_progress: bool = True
    ping_pong: bool = True
    post_compaction_window_size: int = 3
    # Which agent these are for (None: the global view) and whether `agents.list` had it.
    agent: str | None = None
    found: bool | None = None
    # Read-only; left out of the hash (a mapping has none), so settings can key a cache.
    sources: Mapping[str, Source] = field(default_factory=lambda: _EMPTY_SOURCES, hash=False)
    adjustments: tuple[Adjustment, ...] = ()

    @property
    def detectors_active(self) -> bool:
        """The rolling detectors run only when `enabled` is explicitly true."""
        return self.enabled is True

    @property
    def guard_active(self) -> bool:
        """The post-compaction guard runs unless `enabled` is explicitly false."""
        return self.enabled is not False

    def value(self, name: str) -> bool | int | None:
        """The effective value of a dotted setting name (`detectors.pingPong`)."""
        result: bool | int | None = getattr(self, SETTINGS_BY_NAME[name].attr)
        return result

    def effective_block(self) -> dict[str, Any]:
        """The effective values in the block's own shape (`enabled` None when unset)."""
        block: dict[str, Any] = {}
        for setting in SETTINGS:
            value = getattr(self, setting.attr)
            if setting.group is None:
                block[setting.name] = value
            else:
                block.setdefault(setting.group, {})[setting.leaf] = value
        return block

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # `sources` is a read-only MappingProxyType, which pickle refuses; carried as a dict and
        # made read-only again, so settings cross to worker processes (replay --jobs) whole.
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        values["sources"] = dict(self.sources)
        return _unpickle_settings, (values,)


def _unpickle_settings(values: dict[str, Any]) -> EffectiveSettings:
    return EffectiveSettings(**{**values, "sources": MappingProxyType(values["sources"])})


def _flatten(block: Mapping[str, Any]) -> dict[str, Any]:
    """{"detectors": {"pingPong": false}} -> {"detectors.pingPong": False} (known keys only)."""
    flat: dict[str, Any] = {}
    for setting in SETTINGS:
        if setting.group is None:
            if setting.name in block:
                flat[setting.name] = block[setting.name]
        else:
            group = block.get(setting.group)
            if isinstance(group, Mapping) and setting.leaf in group:
                flat[setting.name] = group[setting.leaf]
    return flat


def _as_int(value: Any) -> int:
    # 1.0 is an integer in JSON5; _check_block has refused anything that is not.
    return int(value)


def _check_block(block: Mapping[str, Any]) -> None:
    """Refuse what OpenClaw refuses (01 §1.2) in a block handed over as a plain dict.

    Blocks from a config file were validated by the loader already; a host building the engine
    from a dict gets the same strictness, so a typo or a 0 cannot silently become a default or a
    threshold that fires on every call.
    """
    allowed = top_level_keys()
    problems = [f"unknown key {key!r}" for key in block if key not in allowed]
    for group in GROUPS:
        value = block.get(group)
        if group in block and not isinstance(value, Mapping):
            problems.append(f"{group} must be an object, got {value!r}")
        elif isinstance(value, Mapping):
            known = group_keys(group)
            problems += [f"unknown key '{group}.{key}'" for key in value if key not in known]
    for name, value in _flatten(block).items():
        if SETTINGS_BY_NAME[name].kind == "boolean":
            if not isinstance(value, bool):
                problems.append(f"{name} must be true or false, got {value!r}")
        elif not _is_positive_integer(value):
            problems.append(f"{name} must be a positive integer, got {value!r}")
    if problems:
        raise ValueError("invalid tools.loopDetection block: " + "; ".join(problems))


def _is_positive_integer(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return float(value).is_integer() and value > 0


# The runtime's raises, in order (02 §2.3): (setting raised, setting it must exceed).
_RAISES = (
    ("criticalThreshold", "warningThreshold"),
    ("globalCircuitBreakerThreshold", "criticalThreshold"),
)


def settings_from_block(
    block: Mapping[str, Any] | None,
    *,
    sources: Mapping[str, Source] | None = None,
    agent: str | None = None,
    found: bool | None = None,
    fixed_sources: Mapping[str, Source] | None = None,
) -> EffectiveSettings:
    """Apply 02 §2.3 to a merged block: defaults, then the runtime's threshold raises.

    `fixed_sources` names the source of unwritten settings that are not defaults but the
    release's built-in values (`builtin`, README Decision 10).

    Raises ValueError for a block OpenClaw would refuse (unknown key, wrong type, not > 0).

    `sources` gives the provenance of written values; unwritten ones become `default`, raised
    ones `adjusted`.
    """
    _check_block(block or {})
    return settings_from_written(
        _flatten(block or {}),
        sources=sources,
        agent=agent,
        found=found,
        fixed_sources=fixed_sources,
    )


_DEFAULT = Source("default")
_GLOBAL = Source("global")


def settings_from_written(
    flat: Mapping[str, Any],
    *,
    sources: Mapping[str, Source] | None = None,
    agent: str | None = None,
    found: bool | None = None,
    fixed_sources: Mapping[str, Source] | None = None,
) -> EffectiveSettings:
    """`settings_from_block` for values already checked, by dotted name (`detectors.pingPong`):
    what the resolver hands over for each of a config's scopes, whose written values validation
    and `resolve.block_settings` have checked (checking and flattening again was a third of
    resolving a 4,000-agent config)."""
    written_sources = sources or _EMPTY_SOURCES
    fixed = fixed_sources or _EMPTY_SOURCES
    values: dict[str, Any] = {}
    origin: dict[str, Source] = {}
    for setting in SETTINGS:
        name = setting.name
        if name in flat:
            raw = flat[name]
            values[setting.attr] = raw if setting.kind == "boolean" else _as_int(raw)
            origin[name] = written_sources.get(name, _GLOBAL)
        else:
            values[setting.attr] = setting.default
            origin[name] = fixed.get(name, _DEFAULT)

    adjustments: list[Adjustment] = []
    for higher, lower in _RAISES:
        high, low = SETTINGS_BY_NAME[higher].attr, SETTINGS_BY_NAME[lower].attr
        if values[high] > values[low]:
            continue
        written = origin[higher]
        rule = f"{higher} <= {lower}: raised to {lower} + 1"
        raised = values[low] + 1
        adjustments.append(Adjustment(higher, values[high], raised, rule, lower, written))
        values[high] = raised
        # An adjusted value keeps the position of what was written (None for a default).
        origin[higher] = written.with_origin("adjusted")

    return EffectiveSettings(
        **values,
        agent=agent,
        found=found,
        sources=MappingProxyType(origin),
        adjustments=tuple(adjustments),
    )
