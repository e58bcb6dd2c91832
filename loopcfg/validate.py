"""Validation of a loaded config for one target release (LC002-LC004, LC007-LC012, LC110-LC112,
LC203).

The target (`loopcfg.releases.Target`, 08 §8.3) decides the schema (its line's: accepted keys,
roster layout, integer bound), what an unknown key is (retired or not yet introduced: LC009; a
well-known wrong key: LC012; a typo: LC003 with suggestions among the target's keys only), which
roster layout is right (LC010, LC111, LC007 for `agents.entries`) and how a missing `${VAR}` is
reported (LC006 or LC112). Nothing here compares versions: every release fact is read from the
release table.

jsonschema finds what is wrong; this module says it the way a user reads it. Each jsonschema
error is placed by its `absolute_path`: an unknown key at the key token, a wrong value at the
value token, a container of the wrong kind at its value. The schema nests through
`properties`, so a container of the wrong type stops descent and nothing cascades below it;
the mapping below still keeps one diagnostic per problem. Orderings (LC004) are checked in code
with OpenClaw's messages, since JSON Schema cannot express them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from loopcfg.agent_ids import is_entry_key, normalize_agent_id
from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.fastcheck import is_valid, is_valid_block
from loopcfg.includes import describe_value
from loopcfg.keys import (
    DEFAULT_LINE,
    GROUPS,
    SETTINGS_BY_NAME,
    THRESHOLD_ORDER,
    WRONG_KEYS_BY_NAME,
    group_keys,
    top_level_keys,
)
from loopcfg.releases import (
    FEATURES_BY_NAME,
    FULL_KNOBS,
    KEY_LIFE,
    MAX_SAFE_INTEGER,
    Line,
    Release,
    Target,
    choose_target,
    key_status,
    line_settings,
    newest_release,
    release_info,
)
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
    to_python,
)

if TYPE_CHECKING:
    from loopcfg.config import LoadedConfig
    from loopcfg.memo import SubtreeMemo

__all__ = [
    "block_paths",
    "build_validators",
    "config_target",
    "roster_reads",
    "suggest_key",
    "target_findings",
    "validate_config",
    "with_missing_env",
]

_BLOCK_KEY = "loopDetection"


@cache
def _validator(line: str = DEFAULT_LINE) -> Any:
    # jsonschema is imported here, not at module level: `loopcfg --version` must stay light.
    from jsonschema import Draft7Validator

    from loopcfg.schema import build_schema

    return Draft7Validator(build_schema(line))


@cache
def _block_validator(line: str) -> Any:
    """One block alone, for an `agents.list` that an `agents.entries` release converts."""
    from jsonschema import Draft7Validator

    from loopcfg.schema import block_schema

    return Draft7Validator(block_schema(line))


def build_validators(target: Target) -> None:
    """Make the jsonschema validators of the target's line now: they are made (and jsonschema
    imported, some 60 ms) when the first invalid config is checked. A long-running caller (the
    language server) calls this between edits, so that no edit waits for it."""
    _validator(target.line.id)
    _block_validator(target.line.id)


def config_target(loaded: LoadedConfig, option: str | None = None) -> Target:
    """The target release of a loaded config: `--openclaw`, else its `meta.lastTouchedVersion`
    (read after `$include`, like any other key), else none (08 §8.3)."""
    meta = _at(loaded.root, ("meta", "lastTouchedVersion")) if loaded.root is not None else None
    version = meta.value if isinstance(meta, ScalarNode) else None
    return choose_target(option, version)


@paused
def validate_config(
    loaded: LoadedConfig, target: Target | None = None, memo: SubtreeMemo | None = None
) -> list[Diagnostic]:
    """Every error of the config for `target` (default: the config's own, `config_target`).
    With `memo`, the checks of one block are made again only for an edited block."""
    root = loaded.root
    if root is None:
        return []
    chosen = config_target(loaded) if target is None else target
    line = chosen.line.id
    reads = roster_reads(root, chosen)
    # One diagnostic per problem, even where jsonschema reports a problem twice.
    found: dict[tuple[str, str, str], Diagnostic] = {}

    def keep(diagnostics: list[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            key = (diagnostic.code, diagnostic.path or "", diagnostic.message)
            found.setdefault(key, diagnostic)

    checker = _Checker(root, loaded.file, chosen)
    for path, error in _schema_errors_of(root, chosen.line, memo):
        keep(checker.diagnose(path, error))
    if reads.converted_list:
        keep(_converted_list_shapes(root, loaded.file))
        for path, node in _written_list_blocks(root):
            for error in _block_validator(line).iter_errors(to_python(node)):
                keep(checker.diagnose((*path, *error.absolute_path), error))
    keep(list(reads.diagnostics))
    keep(_misplaced_blocks(root, chosen, loaded.file))
    if not line_settings(line):
        keep(_unknown_block(root, chosen, loaded.file))
    # A value whose `${VAR}` failed is already reported (LC006) where the target refuses a
    # missing variable; its type follows from that. Where the target only warns (LC112), it
    # validates the text left in the value, as OpenClaw does (`env.*.unset`, `env.*.empty`).
    refuses = chosen.release is None or chosen.release.missing_env == "error"
    unresolved = {d.path for d in loaded.diagnostics if d.code == "LC006"} if refuses else set()
    diagnostics = [d for d in found.values() if d.path not in unresolved]
    diagnostics += _meta_version_type(root, loaded.file)
    for block_path, block in _blocks(root, chosen, reads):
        if memo is None:
            diagnostics.extend(_order_errors(block, block_path, loaded.file, line))
        else:
            diagnostics.extend(_memoised_order_errors(memo, block, block_path, loaded.file, line))
    return diagnostics


def _memoised_order_errors(
    memo: SubtreeMemo, block: ObjectNode, path: DocPath, file: str, line: str
) -> list[Diagnostic]:
    """`_order_errors` of a block kept from the last check, keyed by the block's node: a
    block that an agent added above it moved to another index keeps an empty result (most
    blocks'); findings, whose paths and messages name the index, are made again."""
    kept = memo.peek("order errors", (block,), (file, line))
    if kept is not None:
        made_at, found = kept[0]
        if not found or made_at == path:
            memo.hits += 1
            return found  # type: ignore[no-any-return]
    memo.misses += 1
    found = _order_errors(block, path, file, line)
    memo.put("order errors", (block,), (path, found), (file, line))
    return found


def _schema_errors(value: Any, line: Line) -> Iterable[tuple[DocPath, Any]]:
    """jsonschema's errors of `value` by `line`'s whole-config schema, each with its absolute
    path; `value` (a fresh `to_python`) may be changed. The order is jsonschema's, except
    that the blocks of `agents.entries` may come in the config's order: jsonschema walks them
    in a set's order, which changes with the hash seed, and every report sorts by position.

    The compiled check answers for valid configs without importing jsonschema; jsonschema is
    asked only to find and word the errors of an invalid one (loopcfg/fastcheck.py). A line
    without a compiled check (None) asks jsonschema. Most of an invalid config is valid too,
    and jsonschema's walk over every agent's block was most of the time an editor waits after
    an edit: each block is checked by the compiled block schema instead, and a valid one is
    replaced by `{}`, which the schema accepts without an error. A block's errors depend on
    the block alone (the schema reaches it by one `$ref` to the block schema, and nothing
    outside reads into it), so the errors left are the same, at the same paths, in the same
    order. When the config with every block emptied is valid, all errors are inside the
    wrong blocks, and the block schema words them without the walk.
    """
    if is_valid(value, line.id) is True:
        return
    wrong = _wrong_blocks(value, line)
    if wrong is None:
        yield from _with_paths(_validator(line.id).iter_errors(value), ())
        return
    for container, key, _path, _block in wrong:
        container[key] = {}
    rest_valid = is_valid(value, line.id) is True
    for container, key, _path, block in wrong:
        container[key] = block
    if not rest_valid:
        yield from _with_paths(_validator(line.id).iter_errors(value), ())
        return
    for _container, _key, path, block in wrong:
        yield from _with_paths(_block_validator(line.id).iter_errors(block), path)


def _schema_errors_of(
    root: ObjectNode, line: Line, memo: SubtreeMemo | None
) -> Iterable[tuple[DocPath, Any]]:
    """`_schema_errors(to_python(root), line)`. With `memo`, the roster's agents are checked
    one by one, each in a config of its own, and an unchanged agent is not checked again.

    The whole-config schema checks each roster item by the same definition, and nothing in it
    relates one item to another or to anything outside the roster (no `uniqueItems`, no
    counts; `propertyNames` reads each key alone). So the config's errors are those of the
    config with an empty roster plus those of each item at its place (in another order than
    the plain run's, which every report sorts by position).
    """
    if memo is not None:
        split = _roster_items(root, line)
        if split is not None:
            found = _errors_by_item(root, split, line, memo)
            if found is not None:
                return found
    return _schema_errors(to_python(root), line)


# The roster checked item by item: its node, its key in `agents` ("list" or "entries"), and
# each item's index or key with its node.
_Roster = tuple[Node, str, list[tuple[int | str, Node]]]


def _roster_items(root: ObjectNode, line: Line) -> _Roster | None:
    """The roster of `line`'s schema when it can be checked item by item (a compiled check,
    a roster of the right kind, no `$include` in it), else None."""
    if is_valid({}, line.id) is None:
        return None
    agents = root.get("agents")
    if not isinstance(agents, ObjectNode):
        return None
    kind = "entries" if line.roster == "entries" else "list"
    roster = agents.get(kind)
    if kind == "entries":
        if not isinstance(roster, ObjectNode) or roster.entry("$include") is not None:
            return None
        named: list[tuple[int | str, Node]] = [
            (e.key.name, e.value) for e in roster.winning_entries()
        ]
        return roster, kind, named
    if not isinstance(roster, ArrayNode):
        return None
    return roster, kind, list(enumerate(roster.items))


def _errors_by_item(
    root: ObjectNode, split: _Roster, line: Line, memo: SubtreeMemo
) -> list[tuple[DocPath, Any]] | None:
    """The schema errors of the config with an empty roster, then those of each item checked
    alone; None if an item's check finds an error outside the item (not expected)."""
    roster, kind, items = split
    empty: list[Any] | dict[str, Any] = {} if kind == "entries" else []
    found = list(_schema_errors(_plain_replacing(root, roster, empty), line))
    for name, item in items:
        anchors = (item,)
        values = (line.id, kind, name if kind == "entries" else None)
        if memo.get("item valid", anchors, values, _item_valid, kind, name, item, line):
            continue
        alone = _alone(kind, name, to_python(item))
        for path, error in _schema_errors(alone, line):
            if path[:3] != ("agents", kind, 0 if kind == "list" else name):
                return None  # not expected (the rest of `alone` is valid): the plain way
            found.append((("agents", kind, name, *path[3:]), error))
    return found


def _item_valid(kind: str, name: int | str, item: Node, line: Line) -> bool:
    return is_valid(_alone(kind, name, to_python(item)), line.id) is True


def _alone(kind: str, name: int | str, plain: Any) -> dict[str, Any]:
    """A config whose roster holds only this item (as the first of a list, or by its key)."""
    return {"agents": {kind: [plain] if kind == "list" else {name: plain}}}


def _plain_replacing(node: Node, replaced: Node, by: Any) -> Any:
    """`to_python(node)` with the value of the node `replaced` given as `by`."""
    if node is replaced:
        return by
    if isinstance(node, ScalarNode):
        return node.value
    if isinstance(node, ArrayNode):
        return [_plain_replacing(item, replaced, by) for item in node.items]
    return {entry.key.name: _plain_replacing(entry.value, replaced, by) for entry in node.entries}


def _with_paths(errors: Iterable[Any], prefix: DocPath) -> Iterator[tuple[DocPath, Any]]:
    for error in errors:
        yield (*prefix, *error.absolute_path), error


# A block in the plain value: the dict or list holding it, its key there, its path, the block.
_PlainBlock = tuple[Any, Any, DocPath, Any]


def _wrong_blocks(value: Any, line: Line) -> list[_PlainBlock] | None:
    """The blocks that the whole-config schema reaches and the block schema rejects, in the
    order jsonschema walks them; every valid one is replaced by `{}` in `value`. None (and
    `value` unchanged) when `line` has no compiled block check."""
    if is_valid_block({}, line.id) is None:
        return None
    wrong: list[_PlainBlock] = []
    for container, path in _plain_block_holders(value, line):
        block = container[_BLOCK_KEY]
        if is_valid_block(block, line.id) is True:
            container[_BLOCK_KEY] = {}
        else:
            wrong.append((container, _BLOCK_KEY, path, block))
    return wrong


def _plain_block_holders(value: Any, line: Line) -> Iterator[tuple[dict[str, Any], DocPath]]:
    """Each `tools` object that holds a block where the schema of `line` checks one: the
    global one, then the roster's agents (`agents.list[i]` or `agents.entries.<id>`, as the
    line's schema has it), in the schema's order."""
    if not isinstance(value, dict):
        return
    tools = value.get("tools")
    if isinstance(tools, dict) and _BLOCK_KEY in tools:
        yield tools, ("tools", _BLOCK_KEY)
    agents = value.get("agents")
    if not isinstance(agents, dict):
        return
    if line.roster == "entries":
        roster = agents.get("entries")
        named = roster.items() if isinstance(roster, dict) else ()
        agent_items = [(name, agent) for name, agent in named if name != "$include"]
    else:
        roster = agents.get("list")
        agent_items = list(enumerate(roster)) if isinstance(roster, list) else []
    kind = "entries" if line.roster == "entries" else "list"
    for name, agent in agent_items:
        tools = agent.get("tools") if isinstance(agent, dict) else None
        if isinstance(tools, dict) and _BLOCK_KEY in tools:
            yield tools, ("agents", kind, name, "tools", _BLOCK_KEY)


def _meta_version_type(root: ObjectNode, file: str) -> list[Diagnostic]:
    """LC002 for a `meta.lastTouchedVersion` that is not a string: loopcfg reads it to pick
    the target (08 §8.3) and every recorded release rejects it (`meta.version_number`)."""
    node = _at(root, ("meta", "lastTouchedVersion"))
    if node is None or (isinstance(node, ScalarNode) and isinstance(node.value, str)):
        return []
    where = "meta.lastTouchedVersion"
    message = f"{where} must be a string (the OpenClaw version), got {describe_value(node)}"
    hint = 'quote it, e.g. "2026.9.6"'
    return [_at_node("LC002", message, node, where, file, hint=hint)]


def block_paths(root: ObjectNode, target: Target | None = None) -> list[DocPath]:
    """Paths of every block that is an object and that the target reads: the global one, then
    each agent's (`agents.list[i]` or `agents.entries.<id>`, as the target's roster is)."""
    return [path for path, _ in _blocks(root, target)]


def _blocks(
    root: ObjectNode, target: Target | None = None, reads: RosterReads | None = None
) -> list[tuple[DocPath, ObjectNode]]:
    """`block_paths` with each block's node (`reads`: `roster_reads` of the target, if known)."""
    chosen = target if target is not None else choose_target(None)
    found: list[tuple[DocPath, ObjectNode]] = []
    own = _at(root, ("tools", _BLOCK_KEY))
    if isinstance(own, ObjectNode):
        found.append((("tools", _BLOCK_KEY), own))
    if reads is None:
        reads = roster_reads(root, chosen)
    if reads.list:
        found += _list_block_nodes(root)
    if reads.entries:
        found += _entry_block_nodes(root)
    return found


def _written_list_blocks(root: ObjectNode) -> list[tuple[DocPath, Node]]:
    """Each `agents.list[i].tools.loopDetection` written, whatever its value."""
    agents = _at(root, ("agents", "list"))
    if not isinstance(agents, ArrayNode):
        return []
    found: list[tuple[DocPath, Node]] = []
    for index, agent in enumerate(agents.items):
        tools = agent.get("tools") if isinstance(agent, ObjectNode) else None
        block = tools.get(_BLOCK_KEY) if isinstance(tools, ObjectNode) else None
        if block is not None:
            found.append((("agents", "list", index, "tools", _BLOCK_KEY), block))
    return found


def _converted_list_shapes(root: ObjectNode, file: str) -> list[Diagnostic]:
    """LC008 for an agent `tools` that is not an object in an `agents.list` that an entries
    release converts on read: the whole-config schema of that line has no `agents.list`."""
    found: list[Diagnostic] = []
    agents = _at(root, ("agents", "list"))
    for index, item in enumerate(agents.items if isinstance(agents, ArrayNode) else ()):
        tools = item.get("tools") if isinstance(item, ObjectNode) else None
        if tools is not None and not isinstance(tools, ObjectNode):
            where = f"agents.list[{index}].tools"
            message = f"{where} must be an object, got {describe_value(tools)}"
            found.append(_at_node("LC008", message, tools, where, file))
    return found


def _list_block_nodes(root: ObjectNode) -> list[tuple[DocPath, ObjectNode]]:
    return [
        (path, block) for path, block in _written_list_blocks(root) if isinstance(block, ObjectNode)
    ]


def _entry_block_nodes(root: ObjectNode) -> list[tuple[DocPath, ObjectNode]]:
    entries = _at(root, ("agents", "entries"))
    if not isinstance(entries, ObjectNode):
        return []
    found: list[tuple[DocPath, ObjectNode]] = []
    for entry in entries.winning_entries():
        if entry.key.name == "$include":
            continue
        path: DocPath = ("agents", "entries", entry.key.name, "tools", _BLOCK_KEY)
        block = _at(root, path)
        if isinstance(block, ObjectNode):
            found.append((path, block))
    return found


def _at(root: Node, path: DocPath) -> Node | None:
    node: Node | None = root
    for part in path:
        if isinstance(part, str) and isinstance(node, ObjectNode):
            node = node.get(part)
        elif isinstance(part, int) and isinstance(node, ArrayNode):
            node = node.items[part] if 0 <= part < len(node.items) else None
        else:
            return None
    return node


def _entry_at(root: Node, path: DocPath) -> Entry | None:
    """The winning entry whose value lives at `path` (for the key token)."""
    if not path or not isinstance(path[-1], str):
        return None
    parent = _at(root, path[:-1])
    return parent.entry(path[-1]) if isinstance(parent, ObjectNode) else None


def _block_split(path: DocPath) -> tuple[DocPath, DocPath] | None:
    """(block path, path inside the block) when `path` is in a block, else None."""
    if path[:2] == ("tools", _BLOCK_KEY):
        return path[:2], path[2:]
    roster = path[:2] in (("agents", "list"), ("agents", "entries"))
    if len(path) >= 5 and roster and path[3:5] == ("tools", _BLOCK_KEY):
        return path[:5], path[5:]
    return None


class _Checker:
    """Turns one jsonschema error into what a user reads, for one target."""

    def __init__(self, root: ObjectNode, file: str, target: Target) -> None:
        self.root = root
        self.file = file
        self.target = target
        self.line = target.line.id

    def diagnose(self, path: DocPath, error: Any) -> list[Diagnostic]:
        node = _at(self.root, path)
        if node is None:  # pragma: no cover - jsonschema only reports paths that exist
            return []
        split = _block_split(path)
        if split is not None:
            if not line_settings(self.line):
                return []  # the whole block is LC009 (`_unknown_block`)
            return self._block_error(split[0], split[1], node, error)
        return _structure_error(path, node, error, self.file)

    def _block_error(
        self, block: DocPath, inner: DocPath, node: Node, error: Any
    ) -> list[Diagnostic]:
        """Errors inside one block: not an object, unknown keys, wrong values."""
        file = self.file
        where = format_path((*block, *inner))
        got = describe_value(node)
        if error.validator == "additionalProperties" and isinstance(node, ObjectNode):
            return _unknown_keys(node, block, inner, file, self.target)
        if not inner:
            message = f"{where} must be an object, got {got}"
            return [_at_node("LC008", message, node, where, file)]
        name = ".".join(str(part) for part in inner)
        # Named with its block, like LC003's "unknown key ... in <block>": the same setting can
        # be wrong in the global block and in any agent's.
        subject = f"{name} in {format_path(block)}"
        if len(inner) == 1 and inner[0] in GROUPS:
            message = f"{subject} must be an object, got {got}"
            return [_at_node("LC002", message, node, where, file)]
        setting = SETTINGS_BY_NAME.get(name)
        if setting is None:  # pragma: no cover - the schema only types known settings
            message = f"{subject} is not valid: {error.message}"
            return [_at_node("LC002", message, node, where, file)]
        if setting.kind == "boolean":
            message = f"{subject} must be true or false, got {got}"
            hint = _boolean_hint(node)
        elif error.validator == "maximum":
            if not (isinstance(node, ScalarNode) and is_integer_value(node.value)):
                return []  # Infinity: its type error says it (one diagnostic per problem)
            # zod 4's .int() accepts safe integers only (08 §8.1 "Integers").
            message = f"{subject} must be at most {MAX_SAFE_INTEGER} (2^53-1), got {got}"
            hint = "OpenClaw refuses integers it cannot represent exactly"
        else:
            message = f"{subject} must be a positive integer, got {got}"
            hint = _integer_hint(node)
        return [_at_node("LC002", message, node, where, file, hint=hint)]


def _structure_error(path: DocPath, node: Node, error: Any, file: str) -> list[Diagnostic]:
    """Errors outside the blocks: containers of the wrong kind, malformed agent entries."""
    where = format_path(path)
    got = describe_value(node)
    in_list = path[:2] == ("agents", "list")
    in_entries = path[:2] == ("agents", "entries")
    if in_entries and len(path) <= 3:
        return []  # the roster check says it in OpenClaw's words (`_entries_errors`)
    in_agents = in_list or in_entries
    if path in (("tools",), ("agents",)) or (in_agents and path[3:] == ("tools",)):
        return [_at_node("LC008", f"{where} must be an object, got {got}", node, where, file)]
    if in_entries and path[3:] == ("default",):
        message = f"{where} must be true or false, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if path == ("agents", "ownership"):
        message = f'agents.ownership must be "explicit", got {got}'
        return [_at_node("LC007", message, node, where, file)]
    if path == ("agents", "list"):
        message = f"agents.list must be an array of agent objects, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if in_list and len(path) == 3:
        if error.validator == "required":
            message = f"{where} has no id: every agent entry needs a string id"
            hint = 'add an id, e.g. id: "main"'
            # Named at the missing key, as OpenClaw does (`agents.list.0.id`), shown at the entry.
            return [_at_node("LC007", message, node, f"{where}.id", file, hint=hint)]
        message = f"{where} must be an agent object with a string id, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if in_list and path[3:] == ("id",):
        message = f"{where} must be a string, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if path and path[-1] == "$schema":
        return []  # an editor hint, not OpenClaw's business
    message = f"{where or 'the config'} is not valid here: {error.message}"  # pragma: no cover
    return [_at_node("LC002", message, node, where, file)]  # pragma: no cover


def _integer_hint(node: Node) -> str | None:
    if not isinstance(node, ScalarNode):
        return None
    value = node.value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return _substituted_hint(node, str(int(value))) or f"write {int(value)} without quotes"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if is_integer_value(value):
            return "the smallest value is 1"
        return "use a whole number, 1 or more"
    return None


def _boolean_hint(node: Node) -> str | None:
    if not (isinstance(node, ScalarNode) and isinstance(node.value, str)):
        return None
    if node.value.strip().lower() in ("true", "false"):
        meant = node.value.strip().lower()
        return _substituted_hint(node, meant) or f"write {meant} without quotes"
    return None


def _substituted_hint(node: ScalarNode, meant: str) -> str | None:
    """For a value a `${VAR}` gave: a substitution is always a string (01 §1.5), so neither
    unquoting nor the variable's value can make it a number or a boolean."""
    if node.raw is None or "${" not in node.raw:
        return None
    return f"a ${{VAR}} always gives a string: write {meant} in place of {node.raw.strip()}"


def _unknown_keys(
    node: ObjectNode, block: DocPath, inner: DocPath, file: str, target: Target
) -> list[Diagnostic]:
    """Each key the target does not accept: a well-known wrong key (LC012, first), a setting
    retired there or not yet introduced (LC009), else a typo (LC003)."""
    line = target.line.id
    group = inner[0] if len(inner) == 1 and isinstance(inner[0], str) else None
    allowed = _allowed_keys(group, line)
    container = format_path((*block, *inner))
    diagnostics: list[Diagnostic] = []
    for entry in node.winning_entries():
        name = entry.key.name
        if name in allowed:
            continue
        dotted = f"{group}.{name}" if group else name
        path = format_path((*block, *inner, name))
        span = entry.key.span or entry.value.span
        wrong = WRONG_KEYS_BY_NAME.get(dotted)
        if wrong is not None:
            message, hint = _wrong_key_message(dotted, target)
            diagnostics.append(
                Diagnostic.at("LC012", "error", message, span, file=file, path=path, hint=hint)
            )
        elif dotted in KEY_LIFE and target.release is not None:
            diagnostics.append(_not_accepted(dotted, entry, path, file, target))
        elif group is None and name in GROUPS and target.release is not None:
            diagnostics.extend(_group_not_accepted(name, entry, block, file, target))
        else:
            suggestion = suggest_key(name, group, line)
            typo_hint = f'did you mean "{suggestion}"?' if suggestion else None
            message = f'unknown key "{name}" in {container}'
            diagnostics.append(
                Diagnostic.at("LC003", "error", message, span, file=file, path=path, hint=typo_hint)
            )
    return diagnostics


def _not_accepted(setting: str, entry: Entry, path: str, file: str, target: Target) -> Diagnostic:
    """LC009 of one setting (08 §8.4), with the facts the release table gives."""
    release = target.release
    assert release is not None
    status = key_status(setting, release)
    assert status is not None
    head = f'"{setting}" is not accepted by OpenClaw {release.name}'
    if status.introduced_in is not None:
        message = f"{head}: introduced in {status.introduced_in}"
        hint = f"remove it, or target OpenClaw {status.introduced_in} or later"
    else:
        default = SETTINGS_BY_NAME[setting].default
        shown = json.dumps(default)
        message = (
            f'{head}: retired in {status.retired_in}; "openclaw doctor --fix" removes it and the '
            f"built-in value {shown} applies"
        )
        hint = f"loopcfg migrate --openclaw {release.name} removes it too"
    span = entry.key.span or entry.value.span
    return Diagnostic.at("LC009", "error", message, span, file=file, path=path, hint=hint)


def _group_not_accepted(
    group: str, entry: Entry, block: DocPath, file: str, target: Target
) -> list[Diagnostic]:
    """A group the target does not know: each known setting in it (LC009) and each wrong key
    (LC012); the group itself when it holds neither or is not yet introduced."""
    release = target.release
    assert release is not None
    leaves = [f"{group}.{leaf}" for leaf in group_keys(group, FULL_KNOBS.id)]
    introduced_later = all(
        (status := key_status(leaf, release)) is not None and status.introduced_in is not None
        for leaf in leaves
    )
    found: list[Diagnostic] = []
    if isinstance(entry.value, ObjectNode) and not introduced_later:
        for inner in entry.value.winning_entries():
            dotted = f"{group}.{inner.key.name}"
            path = format_path((*block, group, inner.key.name))
            if dotted in KEY_LIFE:
                found.append(_not_accepted(dotted, inner, path, file, target))
            elif dotted in WRONG_KEYS_BY_NAME:
                message, hint = _wrong_key_message(dotted, target)
                span = inner.key.span or inner.value.span
                found.append(
                    Diagnostic.at("LC012", "error", message, span, file=file, path=path, hint=hint)
                )
    if found:
        return found
    status = key_status(leaves[0], release)
    assert status is not None
    head = f'"{group}" is not accepted by OpenClaw {release.name}'
    if status.introduced_in is not None:
        message, hint = f"{head}: introduced in {status.introduced_in}", "remove it"
    else:
        message = f'{head}: retired in {status.retired_in}; "openclaw doctor --fix" removes it'
        hint = "its settings use built-in values there"
    span = entry.key.span or entry.value.span
    path = format_path((*block, group))
    return [Diagnostic.at("LC009", "error", message, span, file=file, path=path, hint=hint)]


def _wrong_key_message(dotted: str, target: Target) -> tuple[str, str]:
    """LC012's message and hint (08 §8.4.1): the intended key the target accepts, or why none."""
    wrong = WRONG_KEYS_BY_NAME[dotted]
    accepted = line_settings(target.line.id)
    usable = [key for key in wrong.intended if key in accepted or key == "enabled"]
    head = f'"{dotted}" is not an OpenClaw key'
    if usable:
        choices = " or ".join(f'"{key}"' for key in usable)
        return f"{head}: use {choices}", wrong.note
    if wrong.intended:
        choices = " or ".join(f'"{key}"' for key in wrong.intended)
        release = target.name or "the target"
        message = (
            f"{head}: use {choices} on {FULL_KNOBS.releases}; OpenClaw {release} has no such "
            'setting ("openclaw doctor --fix" deletes it)'
        )
        return message, wrong.note
    return f"{head}: {wrong.note}", "remove it"


@cache
def _allowed_keys(group: str | None, line: str = DEFAULT_LINE) -> frozenset[str]:
    """The keys written directly in the block (or in one of its groups), `$include` too."""
    keys = group_keys(group, line) if group is not None else top_level_keys(line)
    return frozenset((*keys, "$include"))


def _normalise(name: str) -> str:
    """`history_size`, `History-Size`, `historysize` all compare equal to `historySize`."""
    return re.sub(r"[_\-\s]", "", name).lower()


@cache
def _candidates(group: str | None, line: str) -> dict[str, str]:
    """Normalised key -> the key as suggested, for the block's top level or one group, among
    the keys of the target's line only."""
    if group is not None:
        shown = {leaf: leaf for leaf in group_keys(group, line)}
    else:
        shown = {key: key for key in top_level_keys(line)}
        for group_name in GROUPS:
            for leaf in group_keys(group_name, line):
                shown.setdefault(leaf, f"{group_name}.{leaf}")
    return {_normalise(key): key_shown for key, key_shown in shown.items()}


def suggest_key(name: str, group: str | None = None, line: str = DEFAULT_LINE) -> str | None:
    """The key the user probably meant, in the block (or in one of its groups), or None.

    At the block's top level a group's key is suggested with its group (`pingPong` ->
    `detectors.pingPong`), since it is a common slip to write it one level too high. Only keys
    of `line` (the target's) are suggested.
    """
    return _suggest(_normalise(name), group, line)


@lru_cache(maxsize=4096)
def _suggest(wanted: str, group: str | None, line: str) -> str | None:
    """One suggestion computation per normalised key text: a config that repeats a typo in
    thousands of blocks (or a huge file of unknown keys) must not repeat the search each time."""
    by_normalised = _candidates(group, line)
    if wanted in by_normalised:
        return by_normalised[wanted]
    import difflib  # only when a key is unknown

    close = difflib.get_close_matches(wanted, list(by_normalised), n=1, cutoff=0.75)
    return by_normalised[close[0]] if close else None


def _at_node(
    code: str, message: str, node: Node, where: str, file: str, *, hint: str | None = None
) -> Diagnostic:
    return Diagnostic.at(code, "error", message, node.span, file=file, path=where, hint=hint)


def _order_errors(
    node: ObjectNode, block: DocPath, file: str, line: str = DEFAULT_LINE
) -> list[Diagnostic]:
    """LC004: OpenClaw's own checks, only where both keys are written in this block and the
    target's line has them."""
    accepted = line_settings(line)
    diagnostics: list[Diagnostic] = []
    for lower, upper in THRESHOLD_ORDER:
        if lower not in accepted or upper not in accepted:
            continue
        low, high = node.entry(lower), node.entry(upper)
        if low is None or high is None:
            continue
        low_value, high_value = _threshold(low.value), _threshold(high.value)
        if low_value is None or high_value is None or low_value < high_value:
            continue
        prefix = format_path(block)
        message = f"{prefix}.{lower} must be lower than {upper}."
        span = high.key.span or high.value.span
        low_shown, high_shown = _number_shown(low.value), _number_shown(high.value)
        related = _related(low, f"{lower} is {low_shown} here")
        hint = f"{lower} is {low_shown} and {upper} is {high_shown}"
        diagnostics.append(
            Diagnostic.at(
                "LC004",
                "error",
                message,
                span,
                file=file,
                path=f"{prefix}.{upper}",
                hint=hint,
                related=related,
            )
        )
    return diagnostics


def _number_shown(node: Node) -> str:
    """A compared threshold as written: `1e+300` stays short, `10.0` reads `10`."""
    value = node.value if isinstance(node, ScalarNode) else None
    if isinstance(value, float) and abs(value) > MAX_SAFE_INTEGER:
        return repr(value)
    return str(_threshold(node))


def _threshold(node: Node) -> int | None:
    """A threshold's value when it is a whole number (other values are not compared)."""
    # OpenClaw's refinement compares every whole number, including those LC002 rejects (0,
    # negatives, above 2^53-1): recorded in `order.*` and `random.*` on every full-knob release.
    if isinstance(node, ScalarNode) and is_integer_value(node.value):
        return int(node.value)  # type: ignore[arg-type]
    return None


def _related(entry: Entry, message: str) -> tuple[Related, ...]:
    span: Span | None = entry.key.span or entry.value.span
    return () if span is None else (Related(span, message),)


# -- the roster layout of the target (LC010, LC111, LC007 on agents.entries) --


class RosterReads(NamedTuple):
    """Which roster the target reads its agents from, and what is wrong with the layout."""

    list: bool  # agents.list[i] blocks are agents (S0 - S2, or a list converted on read)
    entries: bool  # agents.entries.<id> blocks are agents (S3beta / S3)
    converted_list: bool  # an agents.list that an entries release converts on read (LC111)
    diagnostics: tuple[Diagnostic, ...]


def roster_reads(root: ObjectNode, target: Target) -> RosterReads:
    """08 §8.1 "Per-agent blocks": the layout the target expects, and the other one."""
    agents = root.get("agents")
    if not isinstance(agents, ObjectNode):
        return RosterReads(True, False, False, ())
    file = root.span.file if root.span is not None else "<config>"
    list_entry, entries_entry = agents.entry("list"), agents.entry("entries")
    early = _ownership_too_early(agents, target, file)
    if target.line.roster != "entries":
        found = [*early, *_list_defaults(agents, file)]
        if entries_entry is None:
            return RosterReads(True, False, False, tuple(found))
        message = (
            f"agents.entries is the roster of OpenClaw {_entries_releases()}; "
            f"{_target_phrase(target)} reads agents.list and rejects agents.entries"
        )
        found.append(
            _key_diagnostic("LC010", message, entries_entry, "agents.entries", file, target)
        )
        return RosterReads(True, False, False, tuple(found))
    found = [*early, *_entries_errors(agents, target, file)]
    if list_entry is None:
        return RosterReads(False, True, False, tuple(found))
    reason = _unconvertible(agents, target)
    if reason is None:
        rejected = _converted_list_errors(agents, list_entry, target, file)
        found += rejected
        if rejected:  # converted, then refused: LC111's "the config is valid" would be wrong
            return RosterReads(True, True, True, tuple(found))
        message = (
            f"{_target_phrase(target)} converts agents.list to agents.entries on read: the config "
            'is valid, but OpenClaw warns "Moved agents.list to keyed agents.entries."'
        )
        hint = f'"openclaw doctor --fix" or "loopcfg migrate --openclaw {target.name}" rewrites it'
        span = list_entry.key.span or list_entry.value.span
        found.append(
            Diagnostic.at(
                "LC111", "warning", message, span, file=file, path="agents.list", hint=hint
            )
        )
        return RosterReads(True, True, True, tuple(found))
    message = (
        f"agents.list is the roster of OpenClaw before {_entries_releases(first_only=True)}; "
        f"{_target_phrase(target)} expects agents.entries and cannot convert this list: {reason}"
    )
    found.append(_key_diagnostic("LC010", message, list_entry, "agents.list", file, target))
    return RosterReads(False, True, False, tuple(found))


def _entries_releases(*, first_only: bool = False) -> str:
    """Where `agents.entries` starts, from the table: the first regular release of a line with
    that roster, and the first pre-release."""
    from loopcfg.releases import LINES, parse_version

    lines = [line for line in LINES if line.roster == "entries"]
    stable = next(
        line
        for line in lines
        if (version := parse_version(line.first)) is not None and not version.is_prerelease
    )
    if first_only:
        return stable.first
    return f"{stable.first} and later (pre-releases from {lines[0].first})"


def _target_phrase(target: Target) -> str:
    if target.release is not None:
        return f"OpenClaw {target.release.name}"
    return f"OpenClaw {target.line.releases} (what loopcfg checks without a known target)"


def _key_diagnostic(
    code: str, message: str, entry: Entry, path: str, file: str, target: Target
) -> Diagnostic:
    version = target.name if target.release is not None else "VERSION"
    hint = f'loopcfg migrate --openclaw {version}, or "openclaw doctor --fix"'
    span = entry.key.span or entry.value.span
    return Diagnostic.at(code, "error", message, span, file=file, path=path, hint=hint)


def _unconvertible(agents: ObjectNode, target: Target) -> str | None:
    """Why OpenClaw cannot convert `agents.list` on read (None: it converts, 08 §8.1)."""
    release = target.release
    conversion = FEATURES_BY_NAME["list_conversion"]
    if release is None or not release.has("list_conversion"):
        return f"OpenClaw converts agents.list on read only from {conversion.first}"
    if agents.entry("entries") is not None:
        return "agents.entries is present too"
    items = agents.get("list")
    if not isinstance(items, ArrayNode):
        return "it is not an array of agent objects"
    # An empty list is converted too (recorded: 2026.9.6 `roster.list.empty`, valid).
    seen: set[str] = set()
    for index, item in enumerate(items.items):
        if not isinstance(item, ObjectNode):
            return f"agents.list[{index}] is not an object"
        raw = _scalar(item.get("id"))
        if not isinstance(raw, str) or not raw.strip():
            return f"agents.list[{index}] has no id"
        if raw != normalize_agent_id(raw):
            return f'the id "{raw}" is not in normalised form ("{normalize_agent_id(raw)}")'
        if raw in seen:
            return f'the id "{raw}" appears twice'
        marker = item.entry("default")
        if marker is not None and not isinstance(_scalar(marker.value), bool):
            # Recorded (2026.9.6 `roster.list.default_string`); not in 08 §8.1's list.
            return f"agents.list[{index}].default is not true or false"
        seen.add(raw)
    return None


def _converted_list_errors(
    agents: ObjectNode, list_entry: Entry, target: Target, file: str
) -> list[Diagnostic]:
    """The `agents.entries` refinements that a converted `agents.list` then fails (08 §8.1:
    several agents without a marker; recorded on 2026.9.6: two `default: true` markers, and a
    marker beside `agents.ownership: "explicit"`)."""
    items = agents.get("list")
    assert isinstance(items, ArrayNode)
    defaults = [
        item
        for item in items.items
        if isinstance(item, ObjectNode) and _scalar(item.get("default")) is True
    ]
    found: list[Diagnostic] = []
    if len(defaults) > 1:
        message = (
            f"agents.entries must contain at most one default=true entry (found {len(defaults)})"
        )
        found.append(_entry_error(message, list_entry, "agents.entries", file))
    release = target.release
    if release is None or not release.has("ownership"):
        return found
    ownership = agents.entry("ownership")
    explicit = ownership is not None and _scalar(ownership.value) == "explicit"
    if explicit and defaults and ownership is not None:
        message = "agents.ownership=explicit cannot be combined with a legacy default=true marker"
        found.append(_entry_error(message, ownership, "agents.ownership", file))
    elif len(items.items) > 1 and not defaults and not explicit:
        # LC010 (08 §8.4): the list layout is what fails; `openclaw doctor --fix` stamps
        # agents.ownership while converting. OpenClaw names agents.ownership.
        rule = _multi_agent_error(list_entry, file).message
        message = (
            f"{_target_phrase(target)} converts agents.list to agents.entries on read, then "
            f"rejects it: {rule}"
        )
        found.append(
            _key_diagnostic("LC010", message, list_entry, "agents.ownership", file, target)
        )
    return found


def _multi_agent_error(holder: Entry, file: str) -> Diagnostic:
    """OpenClaw names the ownership rule at `agents.ownership`, which the config has not."""
    message = (
        'multi-agent rosters require agents.ownership="explicit" or one legacy default=true '
        'marker; add agents.ownership="explicit" or run openclaw doctor'
    )
    return _entry_error(message, holder, "agents.ownership", file)


def _ownership_too_early(agents: ObjectNode, target: Target, file: str) -> list[Diagnostic]:
    """LC010 for `agents.ownership` on a target before it exists (2026.8.1, FEATURES): the
    releases before reject it (`agents: Unrecognized key: "ownership"`, era B `Invalid input`)."""
    ownership = agents.entry("ownership")
    release = target.release
    if ownership is None or (release is not None and release.has("ownership")):
        return []
    first = FEATURES_BY_NAME["ownership"].first
    message = (
        f"agents.ownership is part of the agents.entries roster of OpenClaw {first} and later; "
        f"{_target_phrase(target)} rejects it"
    )
    return [_key_diagnostic("LC010", message, ownership, "agents.ownership", file, target)]


def _list_defaults(agents: ObjectNode, file: str) -> list[Diagnostic]:
    """LC007 for an `agents.list` entry whose `default` marker is not a boolean."""
    items = agents.get("list")
    if not isinstance(items, ArrayNode):
        return []
    found: list[Diagnostic] = []
    for index, item in enumerate(items.items):
        marker = item.entry("default") if isinstance(item, ObjectNode) else None
        if marker is not None and not isinstance(_scalar(marker.value), bool):
            where = f"agents.list[{index}].default"
            got = describe_value(marker.value)
            message = f"{where} must be true or false, got {got}"
            found.append(_at_node("LC007", message, marker.value, where, file))
    return found


def _scalar(node: Node | None) -> object:
    return node.value if isinstance(node, ScalarNode) else None


def _entries_errors(agents: ObjectNode, target: Target, file: str) -> list[Diagnostic]:
    """LC007 for `agents.entries`, with OpenClaw's messages (08 §8.1 refinements)."""
    holder = agents.entry("entries")
    if holder is None:
        return []
    node = holder.value
    if not isinstance(node, ObjectNode):
        got = describe_value(node)
        message = f"agents.entries must be an object keyed by agent id, got {got}"
        return [_at_node("LC007", message, node, "agents.entries", file)]
    found: list[Diagnostic] = []
    # No "at least one configured agent" here: recorded on 2026.9.6, an empty agents.entries
    # is valid (`roster.entries.empty`); OpenClaw says it only after a failed list conversion,
    # which is LC010 on agents.list (docs/conformance.md).
    keys = [entry for entry in node.winning_entries() if entry.key.name != "$include"]
    first: dict[str, str] = {}
    defaults: list[Entry] = []
    for entry in keys:
        key = entry.key.name
        where = format_path(("agents", "entries", key))
        if not is_entry_key(key):
            # OpenClaw's words as recorded on 2026.9.6 (`roster.entries.key=*`); 08 §8.1 has
            # `Invalid agent id` from the schema source, which the CLI does not print.
            message = (
                f'"{key}": Invalid key in record (an agent id is 1-64 letters, digits, "_" or '
                '"-", not starting with "-")'
            )
            found.append(_entry_error(message, entry, where, file))
            continue
        if not isinstance(entry.value, ObjectNode):
            got = describe_value(entry.value)
            message = f"{where} must be an agent object, got {got}"
            found.append(_at_node("LC007", message, entry.value, where, file))
            continue
        own_id = entry.value.entry("id")
        if own_id is not None:
            message = f"{where} has an id key: an agents.entries entry takes its id from its key"
            hint = f"remove id; the key {key!r} is the agent's id"
            span = own_id.key.span or own_id.value.span
            found.append(
                Diagnostic.at(
                    "LC007", "error", message, span, file=file, path=f"{where}.id", hint=hint
                )
            )
        normalised = normalize_agent_id(key)
        earlier = first.setdefault(normalised, key)
        if earlier != key:
            message = (
                f'agents.entries keys "{earlier}" and "{key}" resolve to the same agent id '
                f'"{normalised}"; rename one key so each agent has a unique id'
            )
            found.append(_entry_error(message, entry, where, file))
        if _scalar(entry.value.get("default")) is True:
            defaults.append(entry)
    if len(defaults) > 1:
        message = (
            f"agents.entries must contain at most one default=true entry (found {len(defaults)})"
        )
        found.append(_entry_error(message, defaults[1], "agents.entries", file))
    release = target.release
    if release is None or not release.has("ownership"):
        return found
    ownership = agents.entry("ownership")
    explicit = ownership is not None and _scalar(ownership.value) == "explicit"
    if explicit and defaults and ownership is not None:
        message = "agents.ownership=explicit cannot be combined with a legacy default=true marker"
        found.append(_entry_error(message, ownership, "agents.ownership", file))
    elif len(first) > 1 and not defaults and not explicit:
        found.append(_multi_agent_error(holder, file))
    return found


def _entry_error(message: str, entry: Entry, path: str, file: str) -> Diagnostic:
    span = entry.key.span or entry.value.span
    return Diagnostic.at("LC007", "error", message, span, file=file, path=path)


# -- misplaced blocks (LC011) and a target without the block (S0, LC009) --


def _misplaced_blocks(root: ObjectNode, target: Target, file: str) -> list[Diagnostic]:
    """Every `loopDetection` in one of the wrong places of 08 §8.4 (LC011)."""
    places: list[tuple[Entry, DocPath, str]] = []
    agent_place = (
        "agents.entries.<id>.tools.loopDetection"
        if target.line.roster == "entries"
        else "agents.list[i].tools.loopDetection"
    )
    everyone = f"tools.loopDetection (every agent) or {agent_place} (one agent)"
    for entry in root.winning_entries():
        name = entry.key.name
        if name == _BLOCK_KEY or (("." in name) and _BLOCK_KEY in name.split(".")):
            dotted = " (OpenClaw does not expand dotted keys)" if "." in name else ""
            places.append((entry, (name,), everyone + dotted))
    tool = root.get("tool")
    if isinstance(tool, ObjectNode) and tool.entry(_BLOCK_KEY) is not None:
        places.append((tool.entry(_BLOCK_KEY), ("tool", _BLOCK_KEY), everyone))  # type: ignore[arg-type]
    places += _nested_in_tools(root.get("tools"), ("tools",), everyone)
    agents = root.get("agents")
    if isinstance(agents, ObjectNode):
        own = agents.entry(_BLOCK_KEY)
        if own is not None:
            places.append((own, ("agents", _BLOCK_KEY), everyone))
        defaults = agents.get("defaults")
        no_defaults = f"{everyone}; there is no defaults-level place"
        if isinstance(defaults, ObjectNode):
            here = defaults.entry(_BLOCK_KEY)
            if here is not None:
                places.append((here, ("agents", "defaults", _BLOCK_KEY), no_defaults))
            tools = defaults.get("tools")
            if isinstance(tools, ObjectNode):
                if tools.entry(_BLOCK_KEY) is not None:
                    path: DocPath = ("agents", "defaults", "tools", _BLOCK_KEY)
                    places.append((tools.entry(_BLOCK_KEY), path, no_defaults))  # type: ignore[arg-type]
                places += _nested_in_tools(tools, ("agents", "defaults", "tools"), no_defaults)
        for agent_path, agent in _agent_objects(agents):
            here = agent.entry(_BLOCK_KEY)
            nested = _nested_in_tools(agent.get("tools"), (*agent_path, "tools"), "")
            if here is None and not nested:
                continue  # nearly every agent: no path to format
            belongs = format_path((*agent_path, "tools", _BLOCK_KEY))
            if here is not None:
                places.append((here, (*agent_path, _BLOCK_KEY), belongs))
            places += [(entry, path, belongs) for entry, path, _ in nested]
    diagnostics: list[Diagnostic] = []
    for entry, path, belongs in places:
        where = format_path(path)
        message = f"misplaced loopDetection block at {where}: OpenClaw reads it only at {belongs}"
        hint = "move its settings there; every OpenClaw release rejects it here"
        span = entry.key.span or entry.value.span
        diagnostics.append(
            Diagnostic.at("LC011", "error", message, span, file=file, path=where, hint=hint)
        )
    return diagnostics


def _nested_in_tools(
    tools: Node | None, base: DocPath, belongs: str
) -> list[tuple[Entry, DocPath, str]]:
    """`tools.<any object>.loopDetection` (e.g. `tools.exec.loopDetection`)."""
    if not isinstance(tools, ObjectNode):
        return []
    found: list[tuple[Entry, DocPath, str]] = []
    for entry in tools.winning_entries():
        name = entry.key.name
        if name == _BLOCK_KEY:
            continue  # where it belongs (and nearly every agent's only key here)
        if name.split(".")[0] == _BLOCK_KEY:
            # `tools: {"loopDetection.enabled": true}`: OpenClaw does not expand dotted keys.
            found.append(
                (entry, (*base, name), f"{belongs} (OpenClaw does not expand dotted keys)")
            )
            continue
        if not isinstance(entry.value, ObjectNode):
            continue
        nested = entry.value.entry(_BLOCK_KEY)
        if nested is not None:
            found.append((nested, (*base, entry.key.name, _BLOCK_KEY), belongs))
    return found


def _agent_objects(agents: ObjectNode) -> list[tuple[DocPath, ObjectNode]]:
    found: list[tuple[DocPath, ObjectNode]] = []
    items = agents.get("list")
    if isinstance(items, ArrayNode):
        for index, item in enumerate(items.items):
            if isinstance(item, ObjectNode):
                found.append((("agents", "list", index), item))
    entries = agents.get("entries")
    if isinstance(entries, ObjectNode):
        for entry in entries.winning_entries():
            if isinstance(entry.value, ObjectNode):
                found.append((("agents", "entries", entry.key.name), entry.value))
    return found


def _unknown_block(root: ObjectNode, target: Target, file: str) -> list[Diagnostic]:
    """A target before the block existed (S0): each block is LC009 as a whole."""
    first = KEY_LIFE["enabled"].first
    diagnostics: list[Diagnostic] = []
    for path in block_paths(root, target):
        entry = _entry_at(root, path)
        if entry is None:  # pragma: no cover - block_paths found it
            continue
        where = format_path(path)
        message = f"{where} is not accepted by OpenClaw {target.name}: introduced in {first}"
        hint = f"remove it, or target OpenClaw {first} or later"
        span = entry.key.span or entry.value.span
        diagnostics.append(
            Diagnostic.at("LC009", "error", message, span, file=file, path=where, hint=hint)
        )
    return diagnostics


# -- the target itself: LC203, LC110 and LC112 --


def target_findings(
    loaded: LoadedConfig, target: Target, memo: SubtreeMemo | None = None
) -> list[Diagnostic]:
    """LC203 (the target and its source) and, without a known target, LC110 (08 §8.3).
    With `memo`, what a block writes that LC110 names is read again only from edited blocks."""
    root = loaded.root
    if root is None:
        return []
    from loopcfg.source.nodes import Span as SourceSpan

    start = SourceSpan(loaded.file, 1, 1, 1, 1)
    found = [
        Diagnostic.at("LC203", "info", f"target release: {target.describe()}", start, path=None)
    ]
    if not target.known:
        lc110 = _unknown_target_warning(root, target, loaded.file, memo)
        if lc110 is not None:
            found.append(lc110)
    return found


class _Rejected(NamedTuple):
    """A setting written in a block that the newest known release rejects (for LC110)."""

    setting: str
    span: Span | None  # its key's (or value's)
    path: str
    related: Related | None  # how LC110 points at it when it is not the first


def _unknown_target_warning(
    root: ObjectNode, target: Target, file: str, memo: SubtreeMemo | None = None
) -> Diagnostic | None:
    """LC110: the written keys the newest known release rejects, with their retirement.
    With `memo`, each block is read again only when it changed, and the warning is made
    again only when a block or the place of `agents.list` changed."""
    newest = newest_release()
    agents = root.get("agents")
    roster = agents.entry("list") if isinstance(agents, ObjectNode) else None
    if memo is None:
        pieces = [_rejected_in(block, path, newest) for path, block in _blocks(root, target)]
        return _lc110(pieces, roster, target, newest, file)
    name = newest.name
    pieces = [
        _memoised_rejected(memo, block, path, newest, name) for path, block in _blocks(root, target)
    ]
    # The roster's key is where the warning may point; its value only when the key has no span.
    where = (
        () if roster is None else (roster.key,) if roster.key.span else (roster.key, roster.value)
    )
    anchors = (*pieces, *where)
    values = (target.requested, name, file, len(pieces), roster is None)
    return memo.get("LC110", anchors, values, _lc110, pieces, roster, target, newest, file)


def _lc110(
    pieces: list[list[_Rejected]],
    roster: Entry | None,
    target: Target,
    newest: Release,
    file: str,
) -> Diagnostic | None:
    """LC110 from what each block writes that `newest` rejects (`pieces`, in block order)."""
    written = list(chain.from_iterable(pieces))
    if not written:
        return None  # an agents.list alone is converted on read by the newest release
    if target.requested is None:
        head = "no target release given (--openclaw or meta.lastTouchedVersion)"
    else:
        head = (
            f"target {target.requested} is not in loopcfg's release table (newest known: "
            f"{newest.name})"
        )
    by_release: dict[str, list[str]] = {}
    for setting in dict.fromkeys(map(_SETTING, written)):  # each setting once
        status = key_status(setting, newest)
        retired = status.retired_in if status is not None else None
        names = by_release.setdefault(retired or "?", [])
        if setting not in names:
            names.append(setting)
    rejects = "; ".join(
        ", ".join(f'"{name}"' for name in names) + f" (retired in {retired})"
        for retired, names in by_release.items()
    )
    parts = [f"{head}; checked as {FULL_KNOBS.releases}"]
    if rejects:
        parts.append(f"OpenClaw {newest.name} rejects {rejects}")
    if roster is not None:
        parts.append(f"OpenClaw {newest.name} expects agents.entries instead of agents.list")
    message = "; ".join(parts)
    hint = "name the release: --openclaw VERSION, or meta.lastTouchedVersion in the config"
    located = list(written)
    if roster is not None:
        located.append(_rejected("agents.list", roster, "agents.list", newest.name))
    # (C-level `map`, `filter` and keys: a large roster names a thousand places here.)
    spans = sorted(filter(_SPAN, located), key=_start)
    primary, where_first = (spans[0].span, spans[0].path) if spans else (None, located[0].path)
    related = tuple(map(_RELATED, spans[1:]))  # each has a span, so a Related
    return Diagnostic.at(
        "LC110",
        "warning",
        message,
        primary,
        file=file,
        path=where_first,
        hint=hint,
        related=related,
    )


def _memoised_rejected(
    memo: SubtreeMemo, block: ObjectNode, path: DocPath, newest: Release, name: str
) -> list[_Rejected]:
    """`_rejected_in` kept from the last check, keyed by the block's node: a block that an
    agent added or removed above it moved to another index gets its places again with the
    new path (`_moved`), its keys are not read again. (`name`: `newest.name`.)"""
    kept = memo.peek("rejected keys", (block,), name)
    if kept is not None:
        made_at, prefix, found = kept[0]
        if made_at == path:
            memo.hits += 1
            return found  # type: ignore[no-any-return]
        now = format_path(path)
        found = _moved(found, prefix, now, name)
    else:
        memo.misses += 1
        now = format_path(path)
        found = _rejected_in(block, path, newest)
    memo.put("rejected keys", (block,), (path, now, found), name)
    return found


def _moved(found: list[_Rejected], before: str, now: str, release: str) -> list[_Rejected]:
    """Places of one block read at the path `before`, at the path `now` (`_rejected`'s
    wording; a place's path is its block's followed by the key's: `format_path` of a longer
    path starts with that of its beginning)."""
    moved: list[_Rejected] = []
    for rejected in found:
        where = now + rejected.path[len(before) :]
        related = (
            None
            if rejected.span is None
            else Related(rejected.span, f"{where} is rejected by OpenClaw {release}")
        )
        moved.append(_Rejected(rejected.setting, rejected.span, where, related))
    return moved


def _rejected_in(block: ObjectNode, path: DocPath, newest: Release) -> list[_Rejected]:
    """The settings written in one block that `newest` rejects, in the block's order."""
    release = newest.name  # a property: read once, not per key
    rejected = _rejected_settings(release)
    written: list[_Rejected] = []
    for entry in block.winning_entries():
        name = entry.key.name
        if name in GROUPS and isinstance(entry.value, ObjectNode):
            for leaf in entry.value.winning_entries():
                dotted = f"{name}.{leaf.key.name}"
                if dotted in rejected:
                    where = format_path((*path, name, leaf.key.name))
                    written.append(_rejected(dotted, leaf, where, release))
        elif name in rejected:
            written.append(_rejected(name, entry, format_path((*path, name)), release))
    return written


def _rejected(setting: str, entry: Entry, where: str, release: str) -> _Rejected:
    span = entry.key.span or entry.value.span
    if span is None:
        return _Rejected(setting, None, where, None)
    related = Related(span, f"{where} is rejected by OpenClaw {release}")
    return _Rejected(setting, span, where, related)


def _start(rejected: _Rejected) -> tuple[int, int]:
    """Where a place with a span starts, read when sorting: an edit in the language server
    moves the lines of memoised places (`nodes.MovableSpan`)."""
    assert rejected.span is not None
    return rejected.span.start()


_SPAN = attrgetter("span")  # a Span is always true; None is not
_SETTING = attrgetter("setting")
_RELATED = attrgetter("related")


@cache
def _rejected_settings(release: str) -> frozenset[str]:
    """The settings of the key-lifecycle table that `release` does not accept."""
    found = release_info(release)
    assert found is not None
    return frozenset(setting for setting in KEY_LIFE if not found.accepts(setting))


_MISSING_NAME = re.compile(r'Missing env var "(.*)" referenced')


def with_missing_env(diagnostics: list[Diagnostic], target: Target) -> list[Diagnostic]:
    """README decision 5: where the target only warns about an unset or empty `${VAR}`, LC006
    becomes the warning LC112 with OpenClaw's own words."""
    release = target.release
    if release is None or release.missing_env != "warning":
        return diagnostics
    out: list[Diagnostic] = []
    for diagnostic in diagnostics:
        match = _MISSING_NAME.match(diagnostic.message) if diagnostic.code == "LC006" else None
        if match is None:
            out.append(diagnostic)
            continue
        message = (
            f'{diagnostic.path}: Missing env var "{match.group(1)}" - feature using this value '
            "will be unavailable"
        )
        out.append(
            Diagnostic(
                "LC112",
                "warning",
                message,
                diagnostic.file,
                diagnostic.span,
                diagnostic.path,
                diagnostic.hint,
                diagnostic.agent,
                diagnostic.related,
            )
        )
    return out
