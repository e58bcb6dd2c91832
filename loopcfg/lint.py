"""Semantic lints (03): LC101-LC108, LC201, LC202 on the global block and every agent's merge.

Each block lint looks at one *scope*: the global block alone (over the defaults), or one agent's
merged result (global block + the agent's override, 02 §2.2). A finding points at the written
value that is wrong to the user's eye, preferring the agent's own written values, then the
global block's, then the agent entry's id (03 "where a diagnostic points"). A finding of an
agent's scope that is identical to a finding of the global scope (same code, place and message)
is the global finding inherited: it is reported once, for the global block, without an agent.

Every scope comes from one `ResolvedConfig` (loopcfg/resolve.py), resolved once for the target
release; the lints read it and never call back into the resolver.

Which lints apply depends on the target (03, 08 §8.4): the threshold lints LC101, LC102, LC104
and LC105 need a line with thresholds (S1 - S2); LC103, LC201 and LC202 apply everywhere; LC106
concerns `agents.list` (on `agents.entries` a duplicate is the error LC007); LC108 reads list ids
and entries keys alike.

When lints run: errors hide only the lints that read the broken value (03, last paragraph). An
error at or above a block (the block is not an object, or `tools` is not), or at its `enabled`,
skips every lint of that scope; an error elsewhere inside the block (a broken threshold, a
retired key) leaves LC103 and LC201, which read only `enabled`. An agent scope reads the global
block too, so the global block's errors count for it as well. An error without a document path
(an `$include` refusal) skips all block lints. LC106 and LC108 read only well-formed agent ids,
and LC107 reads the documents, so those always run. `check.py` calls `lint_config` with the
result of `validate_config`; without it `lint_config` validates itself, so it is safe to call
on any loaded config.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, ParamSpec, TypeAlias, TypeVar

from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.keys import SETTINGS_BY_NAME
from loopcfg.releases import Target
from loopcfg.resolve import (
    GLOBAL_BLOCK,
    AgentEntry,
    ResolvedConfig,
    Scope,
    Written,
    resolve_config,
)
from loopcfg.settings import Adjustment, EffectiveSettings
from loopcfg.source.nodes import ArrayNode, DocPath, Node, ObjectNode, Span, format_path

T = TypeVar("T")
P = ParamSpec("P")

if TYPE_CHECKING:
    from loopcfg.config import LoadedConfig
    from loopcfg.memo import SubtreeMemo

__all__ = ["lint_config"]

DETECTOR_FLAGS = ("detectors.genericRepeat", "detectors.knownPollNoProgress", "detectors.pingPong")
# Settings that only matter while the rolling detectors run (`enabled` true), for LC103.
DETECTOR_SETTINGS = (
    "historySize",
    "warningThreshold",
    "criticalThreshold",
    "unknownToolThreshold",
    "globalCircuitBreakerThreshold",
    *DETECTOR_FLAGS,
)
GUARD_SETTINGS = ("postCompactionGuard.windowSize",)
_GLOBAL_PATH = format_path(GLOBAL_BLOCK)


_Identity = tuple[str, Span | None, str, str]  # what makes two findings the same one


class _Finding(NamedTuple):
    """A lint result before it becomes a Diagnostic (the agent prefix is added last)."""

    code: str
    message: str
    span: Span | None
    path: str
    hint: str | None = None
    related: tuple[Related, ...] = ()
    # The written value whose path `path` is (None: the scope's fallback, `_Scope.fallback`):
    # a finding kept for an agent that moved to another index reads its path again from it.
    written: Written | None = None

    def identity(self) -> _Identity:
        return (self.code, self.span, self.path, self.message)

    def moved_to(self, agent: AgentEntry) -> _Finding:
        """This finding of `agent`'s scope with its path as it is now: the written value's
        node has its path of now (the incremental parse renumbers what moved), the fallback
        is the agent's id as the entry of now places it."""
        written = self.written
        path = format_path(agent.id_path) if written is None else written.path
        if path == self.path:
            return self
        # (Not `_replace`: a NamedTuple's is several times slower, and this runs for every
        # finding of every agent below a pasted one.)
        return _Finding(self.code, self.message, self.span, path, self.hint, self.related, written)


class _Scope(NamedTuple):
    """One block as the runtime sees it: the global block alone, or one agent's merge."""

    agent: AgentEntry | None
    global_written: dict[str, Written]
    own: dict[str, Written]  # written in this scope's own block
    merged: dict[str, Written]
    settings: EffectiveSettings

    @classmethod
    def of(cls, scope: Scope, global_written: dict[str, Written]) -> _Scope:
        return cls(scope.agent, global_written, scope.own, scope.merged, scope.settings)

    def fallback(self) -> tuple[Span | None, str]:
        """Where a finding about defaults only points: the agent's id, else the global block."""
        if self.agent is not None:
            return self.agent.id_span, format_path(self.agent.id_path)
        return None, _GLOBAL_PATH

    def at(self, primary: str | None) -> Written | None:
        """The written value that `locate` found as `primary` (None: the fallback)."""
        return None if primary is None else self.merged[primary]

    def locate(self, names: Sequence[str]) -> tuple[Span | None, str, str | None]:
        """The agent's own written value among `names` first, then the global block's."""
        for origin in ("agent", "global"):
            for name in names:
                written = self.merged.get(name)
                if written is not None and written.origin == origin:
                    return written.span, written.path, name
        span, path = self.fallback()
        return span, path, None

    def label(self, name: str, primary: str | None) -> str:
        """How a value is named: `here`, `default`, `raised from 15 (here)`, `global at f:l:c`."""
        adjustment = _adjustment_of(self, name)
        if adjustment is not None:
            here = " here" if name == primary else ""
            return f"raised from {adjustment.written}{here}"
        if name == primary:
            return "here"
        written = self.merged.get(name)
        if written is None:
            return "default"
        return f"{written.origin} at {_where(written.span)}" if written.span else written.origin

    def related(self, names: Iterable[str], primary: str | None) -> tuple[Related, ...]:
        out: list[Related] = []
        for name in names:
            written = self.merged.get(name)
            if name == primary or written is None or written.span is None:
                continue
            out.append(Related(written.span, f"{name} is {_show(written.value)} here"))
        return tuple(out)


def _where(span: Span | None) -> str:
    if span is None:
        return ""
    if _NAMED.places is not None:
        _NAMED.places.append((span, span.start()))
    return f"{span.file}:{span.line}:{span.column}"


class _Named:
    """The places that messages wrote as `file:line:column` (`_where`) while lints computed
    for the memo ran. An edit in the language server can move a memoised scope's spans
    without making it new (`nodes.MovableSpan`): findings that wrote a place are reused only
    while each place is still where they wrote it. (Checks run one at a time.)"""

    places: list[tuple[Span, tuple[int, int]]] | None = None


_NAMED = _Named()
_Places: TypeAlias = tuple[tuple[Span, tuple[int, int]], ...]


def _memoised_lints(
    memo: SubtreeMemo,
    kind: str,
    anchors: tuple[object, ...],
    values: Hashable,
    compute: Callable[P, T],
    *args: P.args,
    **kwargs: P.kwargs,
) -> T:
    """`compute(*args, **kwargs)`, or what it gave for the same anchors and values if the
    places its messages named have not moved since."""
    kept = memo.peek(kind, anchors, values)
    if kept is not None:
        result, named = kept[0]
        if all(span.start() == start for span, start in named):
            memo.hits += 1
            return result  # type: ignore[no-any-return]
    memo.misses += 1
    outer, _NAMED.places = _NAMED.places, []
    try:
        result = compute(*args, **kwargs)
        places: _Places = tuple(_NAMED.places)
    finally:
        _NAMED.places = outer
    memo.put(kind, anchors, (result, places), values)
    return result


def _keep_lints(
    memo: SubtreeMemo, kind: str, anchors: tuple[object, ...], values: Hashable, result: object
) -> None:
    """Replace what `_memoised_lints` keeps for these anchors and values by `result`, with
    the places its messages named (the same places: only the paths changed)."""
    kept = memo.peek(kind, anchors, values)
    assert kept is not None
    memo.put(kind, anchors, (result, kept[0][1]), values)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- the lint functions: each reads one scope and returns its findings --


def _lc101_order_after_merge(scope: _Scope) -> list[_Finding]:
    """Each runtime raise of a threshold is an ordering the user broke (only) by merging."""
    findings: list[_Finding] = []
    values = {
        "warningThreshold": scope.settings.warning_threshold,
        "criticalThreshold": scope.settings.critical_threshold,
    }
    for adjustment in scope.settings.adjustments:
        lower = adjustment.raised_from
        involved = [adjustment.setting, lower]
        if lower == "criticalThreshold" and _was_adjusted(scope, "criticalThreshold"):
            involved.append("warningThreshold")
        span, path, primary = scope.locate(involved)
        lower_value = values[lower]
        message = (
            f"{lower} {lower_value} ({scope.label(lower, primary)}) is not below "
            f"{adjustment.setting} {adjustment.written} "
            f"({_written_label(scope, adjustment.setting, primary)}); "
            f"OpenClaw raises {adjustment.setting} to {adjustment.effective}"
        )
        source = [lower, *_raise_chain(scope, lower)][-1]  # what a user can lower
        hint = f"set {adjustment.setting} above {lower_value} or lower {source}"
        related = scope.related(involved, primary)
        findings.append(_Finding("LC101", message, span, path, hint, related, scope.at(primary)))
    return findings


def _adjustment_of(scope: _Scope, name: str) -> Adjustment | None:
    return next((a for a in scope.settings.adjustments if a.setting == name), None)


def _was_adjusted(scope: _Scope, name: str) -> bool:
    return _adjustment_of(scope, name) is not None


def _raise_chain(scope: _Scope, name: str) -> list[str]:
    """The settings a raised value derives from: critical <- warning; global <- critical (<-)."""
    adjustment = _adjustment_of(scope, name)
    if adjustment is None:
        return []
    return [adjustment.raised_from, *_raise_chain(scope, adjustment.raised_from)]


def _written_label(scope: _Scope, name: str, primary: str | None) -> str:
    """The label of the value as written (before the raise) of a raised setting."""
    if name == primary:
        return "here"
    written = scope.merged.get(name)
    if written is None:
        return "default"
    return f"{written.origin} at {_where(written.span)}" if written.span else written.origin


def _lc102_unreachable(scope: _Scope) -> list[_Finding]:
    """A threshold above the counts the history can hold can never fire (effective values).

    Only where the detectors run: while `enabled` is not true no threshold fires at all (04
    §4.6), and LC103 already reports the written settings; an agent that turns them on gets
    its own finding.
    """
    settings = scope.settings
    if not settings.detectors_active:
        return []
    history = settings.history_size
    findings: list[_Finding] = []
    checks = (
        ("warningThreshold", settings.warning_threshold, settings.ping_pong),
        ("criticalThreshold", settings.critical_threshold, settings.ping_pong),
        ("unknownToolThreshold", settings.unknown_tool_threshold, False),
        ("globalCircuitBreakerThreshold", settings.global_circuit_breaker_threshold, False),
    )
    for name, value, ping_pong in checks:
        limit = history + 1 if ping_pong else history
        if value <= limit:
            continue
        # The raise a value went through is part of the finding; the pingPong switch is
        # context (related), never the place to fix.
        involved = [name, "historySize", *_raise_chain(scope, name)]
        span, path, primary = scope.locate(involved)
        bound = f"historySize {history} ({scope.label('historySize', primary)})"
        if ping_pong:
            bound += " + 1, as a ping-pong count includes the current call"
        message = (
            f"{name} {value} ({scope.label(name, primary)}) can never fire: no count exceeds "
            f"{bound}"
        )
        need = value - 1 if ping_pong else value
        if _was_adjusted(scope, name):
            source = _raise_chain(scope, name)[-1]
            hint = (
                f"raise historySize to at least {need} or lower {source}, which the raise follows"
            )
        else:
            hint = f"lower {name} to at most {limit} or raise historySize to at least {need}"
        pair = name in ("warningThreshold", "criticalThreshold")  # the pingPong bound applies
        related_names = [*involved, "detectors.pingPong"] if pair else involved
        related = scope.related(related_names, primary)
        findings.append(_Finding("LC102", message, span, path, hint, related, scope.at(primary)))
    return findings


def _enabled_reason(scope: _Scope) -> str:
    written = scope.merged.get("enabled")
    if written is None:
        return "enabled is not set"
    where = f", {written.origin} at {_where(written.span)}" if written.span else ""
    return f"enabled: {_show(written.value)}{where}"


def _without_effect(
    scope: _Scope, name: str, what: str, everywhere: bool, has_agents: bool
) -> _Finding:
    written = scope.own[name]
    tail = " here and in every agent that inherits it" if everywhere and has_agents else ""
    message = (
        f"{name} {_show(written.value)} has no effect: {what} ({_enabled_reason(scope)}){tail}"
    )
    enabled = scope.merged.get("enabled")
    related = scope.related(["enabled"], None) if enabled is not None else ()
    if what.startswith("the post-compaction"):
        hint = "remove it, or remove enabled: false to keep the guard"
    else:
        hint = "set enabled: true to run the detectors, or remove the setting"
    return _Finding("LC103", message, written.span, written.path, hint, related, written)


_DETECTORS_OFF = "the rolling detectors are inactive"
_GUARD_OFF = "the post-compaction guard is off"


def _lc103_agent(scope: _Scope) -> list[_Finding]:
    """An agent's own written setting that its merged config never uses."""
    findings: list[_Finding] = []
    for name in scope.own:
        if name in DETECTOR_SETTINGS and not scope.settings.detectors_active:
            findings.append(_without_effect(scope, name, _DETECTORS_OFF, False, False))
        if name in GUARD_SETTINGS and not scope.settings.guard_active:
            findings.append(_without_effect(scope, name, _GUARD_OFF, False, False))
    return findings


def _lc103_global(scope: _Scope, agents: Sequence[Scope]) -> list[_Finding]:
    """A global setting without effect here and in every agent that inherits it."""
    findings: list[_Finding] = []
    for name in scope.own:
        if name in DETECTOR_SETTINGS and not _used(name, scope, agents, _detectors_on):
            findings.append(_without_effect(scope, name, _DETECTORS_OFF, True, bool(agents)))
        if name in GUARD_SETTINGS and not _used(name, scope, agents, _guard_on):
            findings.append(_without_effect(scope, name, _GUARD_OFF, True, bool(agents)))
    return findings


def _detectors_on(settings: EffectiveSettings) -> bool:
    return settings.detectors_active


def _guard_on(settings: EffectiveSettings) -> bool:
    return settings.guard_active


def _used(
    name: str,
    scope: _Scope,
    agents: Sequence[Scope],
    active: Callable[[EffectiveSettings], bool],
) -> bool:
    """Whether the global setting `name` takes effect: in the global scope, or in an agent
    that inherits it (the global scope first: then the agents need not be asked)."""
    if active(scope.settings):
        return True
    return any(active(agent.settings) for agent in agents if name not in agent.own)


def _lc104_all_detectors_off(scope: _Scope) -> list[_Finding]:
    settings = scope.settings
    flags = (settings.generic_repeat, settings.known_poll_no_progress, settings.ping_pong)
    if not settings.detectors_active or any(flags):
        return []
    involved = ["enabled", *DETECTOR_FLAGS]
    span, path, primary = scope.locate(involved)
    message = (
        "enabled is true but genericRepeat, knownPollNoProgress and pingPong are all off: only "
        "the unknown-tool and global circuit breakers remain"
    )
    hint = "turn one detector back on, or remove enabled: true if that is what you meant"
    related = scope.related(involved, primary)
    return [_Finding("LC104", message, span, path, hint, related, scope.at(primary))]


def _lc105_window_one(scope: _Scope) -> list[_Finding]:
    name = "postCompactionGuard.windowSize"
    written = scope.merged.get(name)
    if written is None or scope.settings.post_compaction_window_size != 1:
        return []
    if not scope.settings.guard_active:
        return []  # LC103 says it has no effect
    message = (
        f"{name} 1 makes the post-compaction guard abort the run on the first tool call after "
        "every compaction"
    )
    hint = "use 2 or more; the default is 3"
    return [_Finding("LC105", message, written.span, written.path, hint, (), written)]


def _lc201_enabled_false(scope: _Scope) -> list[_Finding]:
    written = scope.merged.get("enabled")
    if written is None or written.value is not False:
        return []
    message = "enabled: false also turns off the post-compaction guard"
    inherited = scope.global_written.get("enabled") if written.origin == "agent" else None
    if inherited is None:
        hint = "remove enabled to keep the guard while the rolling detectors stay off"
    elif inherited.value is True:
        # An agent cannot unset what it inherits: without false it runs the detectors too.
        hint = "without it the agent inherits enabled: true, which turns on the detectors too"
    else:
        hint = "remove enabled here and in the global block to keep the guard"
    return [_Finding("LC201", message, written.span, written.path, hint, (), written)]


def _lc202_redundant(scope: _Scope) -> list[_Finding]:
    findings: list[_Finding] = []
    for name, written in scope.own.items():
        inherited = scope.global_written.get(name)
        value = inherited.value if inherited is not None else SETTINGS_BY_NAME[name].default
        if value is None or value != written.value or type(value) is not type(written.value):
            continue
        if inherited is None:
            source = "the default"
        elif inherited.span is None:
            source = "the global block"
        else:
            source = f"the global block at {_where(inherited.span)}"
        message = f"{name} {_show(written.value)} equals what it inherits from {source}"
        related = (
            (Related(inherited.span, f"{name} is {_show(value)} here"),)
            if inherited is not None and inherited.span is not None
            else ()
        )
        hint = "remove it from the agent's block"
        findings.append(
            _Finding("LC202", message, written.span, written.path, hint, related, written)
        )
    return findings


ScopeLint = Callable[[_Scope], list[_Finding]]
_MERGED_LINTS: tuple[ScopeLint, ...] = (
    _lc101_order_after_merge,
    _lc102_unreachable,
    _lc104_all_detectors_off,
    _lc105_window_one,
    _lc201_enabled_false,
)


# -- agent ids and duplicate keys --


def _lc106_lc108_agent_ids(entries: Sequence[AgentEntry], file: str) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    first: dict[str, AgentEntry] = {}
    for entry in entries:
        if entry.raw_id != entry.id:
            where = format_path(entry.id_path)
            message = (
                f'agent id "{entry.raw_id}" is normalised by OpenClaw to "{entry.id}": session '
                "keys, folders and --agent use that"
            )
            if entry.entry_key is not None:
                hint = f'write the key as "{entry.id}"'
            else:
                hint = f'write id: "{entry.id}"'
            diagnostics.append(
                _diagnostic("LC108", message, entry.id_span, where, file, entry.id, hint)
            )
        earlier = first.setdefault(entry.id, entry)
        if earlier is entry or entry.entry_key is not None:
            continue  # a duplicate entries key is the error LC007 (08 §8.4), not LC106
        same = "" if earlier.raw_id == entry.raw_id else " after normalisation"
        message = (
            f'duplicate agent id "{entry.id}": agents.list[{earlier.index}] '
            f'("{earlier.raw_id}") has it already{same}, so OpenClaw ignores this entry'
        )
        related = (
            (Related(earlier.id_span, f'first entry with id "{entry.id}" (this one is used)'),)
            if earlier.id_span is not None
            else ()
        )
        hint = "give this agent its own id or merge the two entries"
        where = format_path(entry.id_path)
        diagnostics.append(
            _diagnostic("LC106", message, entry.id_span, where, file, entry.id, hint, related)
        )
    return diagnostics


def _lc107_duplicate_keys(loaded: LoadedConfig) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for name, document in loaded.documents.items():
        if document.duplicate_keys is False:
            continue  # the parser saw every object's keys: none written twice
        for node in _objects(document.root):
            for earlier, later in node.duplicates():
                # A parsed node's path is its path in its own document (set by the parser).
                path = node.path
                where = format_path((*path, later.key.name))
                container = format_path(path) or "the top level"
                line = f" (line {earlier.key.span.line})" if earlier.key.span else ""
                message = (
                    f'duplicate key "{later.key.name}" in {container}: the earlier value{line} '
                    "is ignored"
                )
                span = later.key.span or later.value.span
                related: tuple[Related, ...] = ()
                first = earlier.key.span or earlier.value.span
                if first is not None:
                    related = (Related(first, "first written here"),)
                hint = "remove one of them"
                diagnostics.append(
                    _diagnostic("LC107", message, span, where, name, None, hint, related)
                )
    return diagnostics


def _objects(root: Node) -> list[ObjectNode]:
    """Every object of a document (iterative: deep trees)."""
    found: list[ObjectNode] = []
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ObjectNode):
            found.append(node)
            stack.extend(entry.value for entry in node.entries)
        elif isinstance(node, ArrayNode):
            stack.extend(node.items)
    return found


def _diagnostic(
    code: str,
    message: str,
    span: Span | None,
    path: str,
    file: str,
    agent: str | None,
    hint: str | None = None,
    related: tuple[Related, ...] = (),
) -> Diagnostic:
    # The catalogue (every code's documentation) is loaded only once there is a finding.
    from loopcfg.catalogue import severity_of

    return Diagnostic.at(
        code,
        severity_of(code),
        message,
        span,
        file=file,
        path=path,
        hint=hint,
        agent=agent,
        related=related,
    )


# -- which parts are free of errors --


class _Errors:
    """The document paths of the errors, indexed so that asking about a block costs its depth.

    A block is tainted when an error lies in it or above it (`_within` either way); asking each
    agent about every error was quadratic: 17,000 agents with typos took minutes.
    """

    def __init__(self, error_paths: Iterable[str | None]) -> None:
        self.everywhere = False  # an error without a document path (an `$include` refusal)
        self.paths: set[str] = set()
        self.ancestors: set[str] = set()  # every error path and each path it lies within
        for path in error_paths:
            if not path:
                self.everywhere = True
                continue
            self.paths.add(path)
            self.ancestors.update(_prefixes(path))
        # Few errors (an editor's usual case: the value being typed) are compared with each
        # block's path directly; listing every prefix of every block's path cost more than
        # the rest of the lints of a 256-agent config. Many errors use the set.
        self.few = tuple(self.paths) if len(self.paths) <= _FEW_ERRORS else None

    def taint(self, block: DocPath) -> bool:
        """True when an error lies in, or above, the block (so it cannot be read whole)."""
        return self.state(block) != "clean"

    def state(self, block: DocPath) -> str:
        """ "clean"; "inside" when an error lies inside the block but not at `enabled` (the
        lints that read only `enabled` still run); "broken" when one lies at or above the
        block, or at its `enabled`."""
        if self.everywhere:
            return "broken"
        if not self.paths:
            return "clean"  # a valid config: no path to format for each of its blocks
        return self.state_at(format_path(block))

    def state_at(self, prefix: str) -> str:
        """`state` of the block whose path is formatted as `prefix`."""
        if self.everywhere:
            return "broken"
        if not self.paths:
            return "clean"
        if self._at_or_above(prefix):
            return "broken"
        if f"{prefix}.enabled" in self.ancestors:
            return "broken"
        return "inside" if prefix in self.ancestors else "clean"

    def _at_or_above(self, prefix: str) -> bool:
        """An error path is `prefix` or one of the paths it lies within (`_prefixes`)."""
        if self.few is None:
            return any(path in self.paths for path in _prefixes(prefix))
        return any(
            prefix == path or (prefix.startswith(path) and prefix[len(path)] in ".[")
            for path in self.few
        )


_FEW_ERRORS = 16


def _prefixes(path: str) -> list[str]:
    """`path` and every path it lies within: `a.b[0].c` -> `a`, `a.b`, `a.b[0]`, `a.b[0].c`."""
    return [path[:index] for index, char in enumerate(path) if char in ".["] + [path]


# -- the whole run --


_STATES = ("clean", "inside", "broken")


def _worst(*states: str) -> str:
    return max(states, key=_STATES.index)


def _scopes(
    resolved: ResolvedConfig, errors: _Errors, memo: SubtreeMemo | None = None
) -> tuple[str | None, list[tuple[Scope, str]]]:
    """How far its errors let the global scope be read ("clean", "inside"; None: broken),
    and each agent's scope with its own state; broken agent scopes are left out."""
    global_state = errors.state(GLOBAL_BLOCK)
    if global_state == "broken":
        return None, []
    if not errors.everywhere and not errors.paths:  # a valid config: every scope is clean
        return global_state, [(scope, "clean") for scope in resolved.agents]
    agents: list[tuple[Scope, str]] = []
    for scope in resolved.agents:
        assert scope.agent is not None
        agent = scope.agent
        if memo is None:
            prefix = format_path(agent.path)
        else:
            prefix = memo.get("agent path", (agent,), None, format_path, agent.path)
        state = _worst(
            global_state,
            errors.state_at(prefix),
            errors.state_at(f"{prefix}.tools"),
            errors.state_at(f"{prefix}.tools.loopDetection"),
        )
        if state != "broken":
            agents.append((scope, state))
    return global_state, agents


def _as_diagnostics(
    findings: Iterable[_Finding], entry: AgentEntry | None, file: str
) -> list[Diagnostic]:
    """The diagnostics of a scope's findings (`entry`: the agent's, None for the global)."""
    out: list[Diagnostic] = []
    agent = entry.id if entry is not None else None
    for finding in findings:
        message = f'agent "{agent}": {finding.message}' if agent else finding.message
        out.append(
            _diagnostic(
                finding.code,
                message,
                finding.span,
                finding.path,
                file,
                agent,
                finding.hint,
                finding.related,
            )
        )
    return out


# The lints that read only `enabled` (they run while a threshold of the block is broken).
_ENABLED_ONLY_LINTS: tuple[ScopeLint, ...] = (_lc201_enabled_false,)


def _lints_for(state: str, thresholds: bool) -> tuple[ScopeLint, ...]:
    """The merged-scope lints a scope in `state` gets (LC101-LC105 need thresholds: 03, 08
    §8.4)."""
    if state == "clean" and thresholds:
        return _MERGED_LINTS
    return _ENABLED_ONLY_LINTS


def _global_lints(scope: _Scope, state: str, thresholds: bool) -> list[_Finding]:
    """The merged-scope lints of the global block."""
    return [f for lint in _lints_for(state, thresholds) for f in lint(scope)]


def _agent_findings(
    scope: _Scope, state: str, thresholds: bool, inherited: frozenset[_Identity]
) -> list[_Finding]:
    """One agent's findings; those identical to the global block's are the global ones
    inherited, reported once for the global block."""
    findings = [f for lint in _lints_for(state, thresholds) for f in lint(scope)]
    findings = [f for f in findings if f.identity() not in inherited]
    findings.extend(_lc103_agent(scope))
    if state == "clean":
        findings.extend(_lc202_redundant(scope))
    return findings


class _AgentLints(NamedTuple):
    """An agent's lint findings as the memo keeps them: the diagnostics, made for `agent`
    (its roster entry then), and the findings they were made from, to make them again for
    the agent's entry of now when an agent added or removed above it changed its index."""

    agent: AgentEntry
    findings: list[_Finding]
    diagnostics: list[Diagnostic]

    def of(self, scope: Scope, file: str) -> _AgentLints:
        """These findings as reported for `scope`'s agent (itself when that is `agent`)."""
        agent = scope.agent
        assert agent is not None
        if agent is self.agent or not self.findings:
            return self
        findings = [finding.moved_to(agent) for finding in self.findings]
        return _AgentLints(agent, findings, _as_diagnostics(findings, agent, file))


def _scope_lints(
    scope: Scope,
    global_written: dict[str, Written],
    how: tuple[str, bool, frozenset[_Identity], str],
) -> _AgentLints:
    """`_agent_findings` of an agent's resolved scope (its `_Scope` made here)."""
    state, thresholds, inherited, file = how
    assert scope.agent is not None
    findings = _agent_findings(_Scope.of(scope, global_written), state, thresholds, inherited)
    return _AgentLints(scope.agent, findings, _as_diagnostics(findings, scope.agent, file))


def _block_lints(
    resolved: ResolvedConfig, errors: _Errors, file: str, memo: SubtreeMemo | None = None
) -> list[Diagnostic]:
    """The lints of every scope. With `memo`, a scope resolved to the same `Scope` as in the
    last check, in the same state, keeps that check's findings (`Scope`s are memoised by the
    nodes they are read from: the same object has the same values and positions)."""
    global_state, agents = _scopes(resolved, errors, memo)
    if global_state is None:
        return []
    global_written = resolved.global_written
    global_scope = _Scope.of(resolved.global_scope, global_written)
    thresholds = resolved.target.line.integers
    # Only the merged-scope lints of the global block can be inherited: LC103, its other
    # finding, is not among an agent's merged-scope lints.
    if memo is None:
        globals_ = _global_lints(global_scope, global_state, thresholds)
    else:
        globals_ = _memoised_lints(
            memo,
            "global lints",
            (resolved.global_scope,),
            (global_state, thresholds),
            _global_lints,
            global_scope,
            global_state,
            thresholds,
        )
    flat = [*globals_, *_lc103_global(global_scope, [scope for scope, _ in agents])]
    diagnostics = _as_diagnostics(flat, None, file)
    # Their identities hold spans, hashed by where they are: made in every check, since an
    # edit in the language server can move memoised findings (`nodes.MovableSpan`).
    inherited = frozenset(finding.identity() for finding in globals_)
    for scope, state in agents:
        how = (state, thresholds, inherited, file)
        if memo is None:
            diagnostics.extend(_scope_lints(scope, global_written, how).diagnostics)
            continue
        agent = scope.agent
        assert agent is not None
        # Keyed by what the findings are made from, which an agent added or removed above
        # this one does not change: its merged settings (the scope's own objects, kept with
        # it by `resolve`), the global scope, the places its id is written and its id. The
        # findings' paths, which the index is in, are given for the agent's entry of now.
        anchors = (scope.merged, resolved.global_scope, agent.id_key_span, agent.id_value_span)
        values = (state, global_state, thresholds, file, agent.id)
        # (`memo.get`-like, but the `_Scope` is made only when the findings are made again.)
        linted = _memoised_lints(
            memo, "agent lints", anchors, values, _scope_lints, scope, global_written, how
        )
        reported = linted.of(scope, file)
        if reported is not linted:
            _keep_lints(memo, "agent lints", anchors, values, reported)
        diagnostics.extend(reported.diagnostics)
    return diagnostics


@paused
def lint_config(
    loaded: LoadedConfig,
    validation: Sequence[Diagnostic] | None = None,
    target: Target | None = None,
    memo: SubtreeMemo | None = None,
) -> list[Diagnostic]:
    """LC101-LC108, LC201, LC202 of a loaded config for the target (unsorted; `check.py` sorts).

    `validation` is what `validate_config(loaded, target)` returned, when the caller has it
    already (`check.py` does): validation is the slow part of a check, so it must not run twice.
    `target` defaults to the config's own (`meta.lastTouchedVersion`, else none). `memo`
    (the language server's) keeps the scopes and findings of what an edit did not touch.
    """
    diagnostics = _lc107_duplicate_keys(loaded)
    if loaded.root is None:
        return diagnostics
    from loopcfg.validate import config_target, validate_config, with_missing_env

    chosen = config_target(loaded) if target is None else target
    if validation is None:
        validation = validate_config(loaded, chosen)
    found = (*with_missing_env(list(loaded.diagnostics), chosen), *validation)
    errors = _Errors(d.path for d in found if d.severity == "error")
    # An id whose `${VAR}` failed is already reported (LC006): what it normalises to, or which
    # other entry it collides with, says nothing about the id the user will actually have.
    unresolved = {d.path for d in loaded.diagnostics if d.code == "LC006"}
    resolved = resolve_config(loaded.root, chosen, memo)
    entries = [
        entry
        for entry in resolved.entries
        if not unresolved or format_path(entry.id_path) not in unresolved
    ]
    diagnostics.extend(_lc106_lc108_agent_ids(entries, loaded.file))
    diagnostics.extend(_block_lints(resolved, errors, loaded.file, memo))
    return diagnostics
