"""Schema validation and the structural errors of a loaded config (LC002-LC004, LC007, LC008).

jsonschema finds what is wrong; this module says it the way a user reads it. Each jsonschema
error is placed by its `absolute_path`: an unknown key at the key token, a wrong value at the
value token, a container of the wrong kind at its value. The schema nests through
`properties`, so a container of the wrong type stops descent and nothing cascades below it;
the mapping below still keeps one diagnostic per problem. Orderings (LC004) are checked in code
with OpenClaw's messages, since JSON Schema cannot express them.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.fastcheck import is_valid
from loopcfg.includes import describe_value
from loopcfg.keys import GROUPS, SETTINGS_BY_NAME, THRESHOLD_ORDER, group_keys, top_level_keys
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

__all__ = ["block_paths", "suggest_key", "validate_config"]

_BLOCK_KEY = "loopDetection"


@cache
def _validator() -> Any:
    # jsonschema is imported here, not at module level: `loopcfg --version` must stay light.
    from jsonschema import Draft7Validator

    from loopcfg.schema import build_schema

    return Draft7Validator(build_schema())


def validate_config(loaded: LoadedConfig) -> list[Diagnostic]:
    """Every LC002, LC003, LC004, LC007 and LC008 of the global block and each agent's block."""
    root = loaded.root
    if root is None:
        return []
    # One diagnostic per problem, even where jsonschema reports a problem twice.
    found: dict[tuple[str, str, str], Diagnostic] = {}
    value = to_python(root)
    # The compiled check answers for valid configs without importing jsonschema; jsonschema
    # is asked only to find and word the errors of an invalid one (loopcfg/fastcheck.py).
    errors = () if is_valid(value) else _validator().iter_errors(value)
    for error in errors:
        for diagnostic in _diagnose(root, tuple(error.absolute_path), error, loaded.file):
            key = (diagnostic.code, diagnostic.path or "", diagnostic.message)
            found.setdefault(key, diagnostic)
    # A value whose `${VAR}` failed is already reported (LC006); its type follows from that.
    unresolved = {d.path for d in loaded.diagnostics if d.code == "LC006"}
    diagnostics = [d for d in found.values() if d.path not in unresolved]
    for block_path in block_paths(root):
        diagnostics.extend(_order_errors(root, block_path, loaded.file))
    return diagnostics


def block_paths(root: ObjectNode) -> list[DocPath]:
    """Paths of every block that is an object: the global one, then each agent's."""
    paths: list[DocPath] = []
    if isinstance(_at(root, ("tools", _BLOCK_KEY)), ObjectNode):
        paths.append(("tools", _BLOCK_KEY))
    agents = _at(root, ("agents", "list"))
    if isinstance(agents, ArrayNode):
        for index in range(len(agents.items)):
            path: DocPath = ("agents", "list", index, "tools", _BLOCK_KEY)
            if isinstance(_at(root, path), ObjectNode):
                paths.append(path)
    return paths


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
    if len(path) >= 5 and path[:2] == ("agents", "list") and path[3:5] == ("tools", _BLOCK_KEY):
        return path[:5], path[5:]
    return None


def _diagnose(root: ObjectNode, path: DocPath, error: Any, file: str) -> list[Diagnostic]:
    node = _at(root, path)
    if node is None:  # pragma: no cover - jsonschema only reports paths that exist
        return []
    split = _block_split(path)
    if split is not None:
        return _block_error(root, split[0], split[1], node, error, file)
    return _structure_error(root, path, node, error, file)


def _structure_error(
    root: ObjectNode, path: DocPath, node: Node, error: Any, file: str
) -> list[Diagnostic]:
    """Errors outside the blocks: containers of the wrong kind, malformed agent entries."""
    where = format_path(path)
    got = describe_value(node)
    in_agents = path[:2] == ("agents", "list")
    if path in (("tools",), ("agents",)) or (in_agents and path[3:] == ("tools",)):
        return [_at_node("LC008", f"{where} must be an object, got {got}", node, where, file)]
    if path == ("agents", "list"):
        message = f"agents.list must be an array of agent objects, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if in_agents and len(path) == 3:
        if error.validator == "required":
            message = f"{where} has no id: every agent entry needs a string id"
            hint = 'add an id, e.g. id: "main"'
            return [_at_node("LC007", message, node, where, file, hint=hint)]
        message = f"{where} must be an agent object with a string id, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if in_agents and path[3:] == ("id",):
        message = f"{where} must be a string, got {got}"
        return [_at_node("LC007", message, node, where, file)]
    if path and path[-1] == "$schema":
        return []  # an editor hint, not OpenClaw's business
    message = f"{where or 'the config'} is not valid here: {error.message}"  # pragma: no cover
    return [_at_node("LC002", message, node, where, file)]  # pragma: no cover


def _block_error(
    root: ObjectNode, block: DocPath, inner: DocPath, node: Node, error: Any, file: str
) -> list[Diagnostic]:
    """Errors inside one block: not an object, unknown keys, wrong values."""
    where = format_path((*block, *inner))
    got = describe_value(node)
    if error.validator == "additionalProperties" and isinstance(node, ObjectNode):
        return _unknown_keys(node, block, inner, file)
    if not inner:
        message = f"{where} must be an object, got {got}"
        return [_at_node("LC008", message, node, where, file)]
    name = ".".join(str(part) for part in inner)
    # Named with its block, like LC003's "unknown key ... in <block>": the same setting can be
    # wrong in the global block and in any agent's.
    subject = f"{name} in {format_path(block)}"
    if len(inner) == 1 and inner[0] in GROUPS:
        message = f"{subject} must be an object, got {got}"
        return [_at_node("LC002", message, node, where, file)]
    setting = SETTINGS_BY_NAME.get(name)
    if setting is None:  # pragma: no cover - the schema only types known settings
        return [_at_node("LC002", f"{subject} is not valid: {error.message}", node, where, file)]
    if setting.kind == "boolean":
        message = f"{subject} must be true or false, got {got}"
        hint = _boolean_hint(node)
    else:
        message = f"{subject} must be a positive integer, got {got}"
        hint = _integer_hint(node)
    return [_at_node("LC002", message, node, where, file, hint=hint)]


def _integer_hint(node: Node) -> str | None:
    if not isinstance(node, ScalarNode):
        return None
    value = node.value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return f"write {int(value)} without quotes"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if is_integer_value(value):
            return "the smallest value is 1"
        return "use a whole number, 1 or more"
    return None


def _boolean_hint(node: Node) -> str | None:
    if not (isinstance(node, ScalarNode) and isinstance(node.value, str)):
        return None
    if node.value.strip().lower() in ("true", "false"):
        return f"write {node.value.strip().lower()} without quotes"
    return None


def _unknown_keys(node: ObjectNode, block: DocPath, inner: DocPath, file: str) -> list[Diagnostic]:
    group = inner[0] if len(inner) == 1 and isinstance(inner[0], str) else None
    allowed = _allowed_keys(group)
    container = format_path((*block, *inner))
    diagnostics: list[Diagnostic] = []
    for entry in node.winning_entries():
        name = entry.key.name
        if name in allowed:
            continue
        suggestion = suggest_key(name, group)
        hint = f'did you mean "{suggestion}"?' if suggestion else None
        message = f'unknown key "{name}" in {container}'
        span = entry.key.span or entry.value.span
        path = format_path((*block, *inner, name))
        diagnostics.append(
            Diagnostic.at("LC003", "error", message, span, file=file, path=path, hint=hint)
        )
    return diagnostics


@cache
def _allowed_keys(group: str | None) -> frozenset[str]:
    """The keys written directly in the block (or in one of its groups), `$include` too."""
    keys = group_keys(group) if group is not None else top_level_keys()
    return frozenset((*keys, "$include"))


def _normalise(name: str) -> str:
    """`history_size`, `History-Size`, `historysize` all compare equal to `historySize`."""
    return re.sub(r"[_\-\s]", "", name).lower()


@cache
def _candidates(group: str | None) -> dict[str, str]:
    """Normalised key -> the key as suggested, for the block's top level or one group."""
    if group is not None:
        shown = {leaf: leaf for leaf in group_keys(group)}
    else:
        shown = {key: key for key in top_level_keys()}
        for group_name in GROUPS:
            for leaf in group_keys(group_name):
                shown.setdefault(leaf, f"{group_name}.{leaf}")
    return {_normalise(key): key_shown for key, key_shown in shown.items()}


def suggest_key(name: str, group: str | None = None) -> str | None:
    """The key the user probably meant, in the block (or in one of its groups), or None.

    At the block's top level a group's key is suggested with its group (`pingPong` ->
    `detectors.pingPong`), since it is a common slip to write it one level too high.
    """
    return _suggest(_normalise(name), group)


@lru_cache(maxsize=4096)
def _suggest(wanted: str, group: str | None) -> str | None:
    """One suggestion computation per normalised key text: a config that repeats a typo in
    thousands of blocks (or a huge file of unknown keys) must not repeat the search each time."""
    by_normalised = _candidates(group)
    if wanted in by_normalised:
        return by_normalised[wanted]
    import difflib  # only when a key is unknown

    close = difflib.get_close_matches(wanted, list(by_normalised), n=1, cutoff=0.75)
    return by_normalised[close[0]] if close else None


def _at_node(
    code: str, message: str, node: Node, where: str, file: str, *, hint: str | None = None
) -> Diagnostic:
    return Diagnostic.at(code, "error", message, node.span, file=file, path=where, hint=hint)


def _order_errors(root: ObjectNode, block: DocPath, file: str) -> list[Diagnostic]:
    """LC004: OpenClaw's own checks, only where both keys are written in this block."""
    node = _at(root, block)
    if not isinstance(node, ObjectNode):  # pragma: no cover - block_paths checked it
        return []
    prefix = format_path(block)
    diagnostics: list[Diagnostic] = []
    for lower, upper in THRESHOLD_ORDER:
        low, high = node.entry(lower), node.entry(upper)
        if low is None or high is None:
            continue
        low_value, high_value = _threshold(low.value), _threshold(high.value)
        if low_value is None or high_value is None or low_value < high_value:
            continue
        message = f"{prefix}.{lower} must be lower than {upper}."
        span = high.key.span or high.value.span
        related = _related(low, f"{lower} is {low_value} here")
        hint = f"{lower} is {low_value} and {upper} is {high_value}"
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


def _threshold(node: Node) -> int | None:
    """A valid threshold's value (LC002 reports the others, so they are not compared)."""
    if isinstance(node, ScalarNode) and is_integer_value(node.value):
        value = int(node.value)  # type: ignore[arg-type]
        return value if value > 0 else None
    return None


def _related(entry: Entry, message: str) -> tuple[Related, ...]:
    span: Span | None = entry.key.span or entry.value.span
    return () if span is None else (Related(span, message),)
