"""The JSON Schema (draft-07) of an OpenClaw config's loop-detection parts, one per release line.

Built from keys.py and the release table (loopcfg/releases.py): a line's accepted keys, its
roster layout (`agents.list[]` or `agents.entries.<id>`) and its integer bound all come from
there, and the file each line is exported to is the table's `schema_file` column. One schema
per line serves the validator and editors (01 §1.3, README Decision 10), so it is
editor-grade: every field has a description, a markdownDescription and a default; the root
and every object outside the block accept other keys (they belong to OpenClaw); an object
holding `$include` is accepted where an
object is expected. The block itself is strict, as OpenClaw is. Orderings between thresholds
cannot be said in JSON Schema; `loopcfg.validate` checks them in code with OpenClaw's messages.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from loopcfg.keys import (
    DEFAULT_LINE,
    GROUPS,
    THRESHOLD_ORDER,
    Setting,
    group_keys,
    settings_for,
    top_level_keys,
)
from loopcfg.releases import KEY_LIFE, LINES, LINES_BY_ID, MAX_SAFE_INTEGER, Line

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
SCHEMA_FILE = "schema/openclaw-loopdetection.schema.json"  # the full-knob line's (S2)
BLOCK_SCHEMA_FILE = "schema/openclaw-loopdetection-block.schema.json"
INCLUDE_KEY = "$include"
# An agents.entries key, as OpenClaw checks it (08 §8.1; case-insensitive there).
ENTRY_KEY_PATTERN = "^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$"

_GROUP_DESCRIPTIONS: dict[str, str] = {
    "detectors": "Switches for the three rolling-history detectors (each defaults to true).",
    "postCompactionGuard": (
        "The guard that watches the first tool calls after a compaction retry and aborts the "
        "run when they repeat identically. An explicit `enabled: false` turns it off too."
    ),
}

_BLOCK_DESCRIPTION = (
    "OpenClaw's tool-call loop detection. Every key is optional; unknown keys are an error "
    "(OpenClaw refuses to start). Thresholds must keep warningThreshold < criticalThreshold < "
    "globalCircuitBreakerThreshold within one block."
)

_INCLUDE_DESCRIPTION = (
    "Replace this object by the content of another file (a path relative to this file), or "
    "deep-merge several files in order. Sibling keys are merged over the included content."
)


def _with_docs(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """Add the plain and the markdown description (VS Code shows the latter when present)."""
    schema["description"] = description
    schema["markdownDescription"] = description
    return schema


def _order_note(name: str) -> str:
    """How a threshold relates to the others, for its description."""
    notes: list[str] = []
    for lower, upper in THRESHOLD_ORDER:
        if name == lower:
            notes.append(f"must be lower than {upper}")
        if name == upper:
            notes.append(f"must be higher than {lower}")
    if not notes:
        return ""
    return " Within one block it " + " and ".join(notes) + "."


def _setting_schema(setting: Setting) -> dict[str, Any]:
    # JSON5 cannot tell 1 from 1.0, and draft-07's "integer" accepts 1.0 as well.
    integer = {"type": "integer", "minimum": 1, "maximum": MAX_SAFE_INTEGER}
    schema: dict[str, Any] = {"type": "boolean"} if setting.kind == "boolean" else integer
    description = setting.description
    note = _order_note(setting.name)
    if note and "Must be" not in description:
        description += note
    if setting.default is None:
        # `enabled` has no default value in OpenClaw; editors still need one to offer.
        schema["default"] = False
        description += " Default: unset (acts as false)."
    else:
        schema["default"] = setting.default
        description += f" Default: {json.dumps(setting.default)}."
    _with_docs(schema, description)
    return _deprecated(schema, setting.name, setting.default)


def retirement_note(name: str, default: object = None) -> str | None:
    """What an editor says about a key the newest releases retired (None: not retired)."""
    life = KEY_LIFE.get(name)
    if life is None or life.retired is None:
        return None
    applies = "" if default is None else f" and the built-in value {json.dumps(default)} applies"
    return (
        f"Retired in OpenClaw {life.retired} (pre-release {life.retired_pre}): those releases "
        f'refuse it; "openclaw doctor --fix" removes it{applies}.'
    )


def _deprecated(schema: dict[str, Any], name: str, default: object = None) -> dict[str, Any]:
    note = retirement_note(name, default)
    if note is not None:
        schema["deprecationMessage"] = note
        schema["markdownDeprecationMessage"] = note.replace(
            '"openclaw doctor --fix"', "`openclaw doctor --fix`"
        )
    return schema


def _include_property() -> dict[str, Any]:
    schema: dict[str, Any] = {
        "anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}},
        ]
    }
    return _with_docs(schema, _INCLUDE_DESCRIPTION)


def _include_definition() -> dict[str, Any]:
    return {
        "type": "object",
        "required": [INCLUDE_KEY],
        "properties": {INCLUDE_KEY: {"$ref": "#/definitions/includePath"}},
    }


def _group_schema(group: str, settings: dict[str, Setting], line: str) -> dict[str, Any]:
    leaves = group_keys(group, line)
    properties: dict[str, Any] = {
        leaf: _setting_schema(settings[f"{group}.{leaf}"]) for leaf in leaves
    }
    properties[INCLUDE_KEY] = {"$ref": "#/definitions/includePath"}
    defaults = {leaf: properties[leaf]["default"] for leaf in leaves}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "default": defaults,
    }
    _with_docs(schema, _GROUP_DESCRIPTIONS.get(group, group))
    # A group retires with its keys: its own note names the release (without one value).
    return _deprecated(schema, f"{group}.{leaves[0]}") if leaves else schema


_EXAMPLE_BLOCK: dict[str, Any] = {
    "enabled": True,
    "historySize": 30,
    "warningThreshold": 10,
    "criticalThreshold": 20,
    "globalCircuitBreakerThreshold": 30,
    "detectors": {"genericRepeat": True, "knownPollNoProgress": True, "pingPong": True},
}

_SNIPPET_BODY: dict[str, Any] = {
    "enabled": True,
    "historySize": "^${1:30}",
    "warningThreshold": "^${2:10}",
    "criticalThreshold": "^${3:20}",
    "globalCircuitBreakerThreshold": "^${4:30}",
}


def block_schema(line: str = DEFAULT_LINE) -> dict[str, Any]:
    """One `tools.loopDetection` block as a standalone draft-07 document (`--block-only`)."""
    block: dict[str, Any] = json.loads(json.dumps(_block_schema(line)))
    return {
        "$schema": DRAFT_07,
        **block,
        "definitions": {"include": _include_definition(), "includePath": _include_property()},
    }


@cache
def _block_schema(line: str) -> dict[str, Any]:
    settings = {setting.name: setting for setting in settings_for(line)}
    properties: dict[str, Any] = {}
    for key in top_level_keys(line):
        if key in GROUPS:
            properties[key] = _group_schema(key, settings, line)
        else:
            properties[key] = _setting_schema(settings[key])
    properties[INCLUDE_KEY] = {"$ref": "#/definitions/includePath"}
    full = "historySize" in settings
    example = _EXAMPLE_BLOCK if full else {"enabled": True}
    snippets: list[dict[str, Any]] = [
        {"label": "Loop detection on, minimal", "body": {"enabled": True}},
    ]
    if full:
        snippets.insert(
            0,
            {
                "label": "Loop detection on (defaults)",
                "description": "Turn the detectors on with OpenClaw's default thresholds.",
                "body": _SNIPPET_BODY,
            },
        )
    schema: dict[str, Any] = {
        "title": "tools.loopDetection",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "default": {},
        "examples": [example, {"enabled": True}] if full else [example],
        "defaultSnippets": snippets,
    }
    description = _BLOCK_DESCRIPTION if full else _ENABLED_ONLY_DESCRIPTION
    return _with_docs(schema, description)


_ENABLED_ONLY_DESCRIPTION = (
    "OpenClaw's tool-call loop detection. Only `enabled` is accepted (the numeric knobs were "
    "retired in 2026.8.1 and use built-in values); any other key is an error (OpenClaw "
    "refuses to start)."
)


def _loose_object(description: str, properties: dict[str, Any]) -> dict[str, Any]:
    """An object outside the block: other keys belong to OpenClaw and are allowed."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {**properties, INCLUDE_KEY: {"$ref": "#/definitions/includePath"}},
        "additionalProperties": True,
        "default": {},
    }
    return _with_docs(schema, description)


def _agent_tools() -> dict[str, Any]:
    return _loose_object(
        "This agent's tool settings; only loopDetection is checked by loopcfg.",
        {"loopDetection": _block_ref("This agent's override, merged over the global block.")},
    )


def _agent_entry_schema() -> dict[str, Any]:
    agent_id: dict[str, Any] = _with_docs(
        {"type": "string", "default": ""},
        "The agent's id. OpenClaw normalises it (lower case, dashes) for session keys and --agent.",
    )
    schema = _loose_object("One agent.", {"id": agent_id, "tools": _agent_tools()})
    # An entry that is only an `$include` gets its id from the included file.
    schema["if"] = {"required": [INCLUDE_KEY]}
    schema["else"] = {"required": ["id"]}
    return schema


def _keyed_entry_schema() -> dict[str, Any]:
    default: dict[str, Any] = _with_docs(
        {"type": "boolean", "default": False},
        "Legacy marker of the default agent; at most one entry may set it.",
    )
    return _loose_object(
        "One agent; its key is its id.", {"default": default, "tools": _agent_tools()}
    )


def _block_ref(description: str) -> dict[str, Any]:
    return _with_docs({"$ref": "#/definitions/loopDetection", "default": {}}, description)


def _agent_list_schema() -> dict[str, Any]:
    array: dict[str, Any] = {
        "type": "array",
        "items": {"$ref": "#/definitions/agent"},
        "default": [],
    }
    schema: dict[str, Any] = {
        # `list: {"$include": "./agents.json5"}` is replaced by the array in that file.
        "if": {"type": "object"},
        "then": {"$ref": "#/definitions/include"},
        "else": array,
        "default": [],
    }
    return _with_docs(schema, "The agents, each an object with a string id.")


def _agent_entries_schema() -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "propertyNames": {"pattern": ENTRY_KEY_PATTERN},
        "additionalProperties": {"$ref": "#/definitions/agent"},
        "properties": {INCLUDE_KEY: {"$ref": "#/definitions/includePath"}},
        "default": {},
    }
    return _with_docs(schema, "The agents, keyed by agent id (`agents.entries.<id>`).")


def _agents_schema(line: Line) -> dict[str, Any]:
    if line.roster == "entries":
        ownership: dict[str, Any] = _with_docs(
            {"type": "string", "enum": ["explicit"]},
            'Per-surface agent ownership (2026.8.1 on): "explicit" instead of a default=true '
            "marker, required for a multi-agent roster without one.",
        )
        properties = {"entries": _agent_entries_schema(), "ownership": ownership}
    else:
        properties = {"list": _agent_list_schema()}
    return _loose_object("OpenClaw's agents.", properties)


def build_schema(line: str = DEFAULT_LINE) -> dict[str, Any]:
    """The whole-config schema of a release line, as exported to `schema/` (the line's
    `schema_file`) and printed by `loopcfg schema`."""
    return json.loads(json.dumps(_build_schema(line)))  # type: ignore[no-any-return]


@cache
def _build_schema(line_id: str) -> dict[str, Any]:
    line = LINES_BY_ID[line_id]
    tools = _loose_object(
        "OpenClaw's tool settings; only loopDetection is checked by loopcfg.",
        {"loopDetection": _block_ref("The global loop-detection block, for every agent.")},
    )
    schema_key = _with_docs(
        {"type": "string", "default": ""}, "The JSON Schema this file is checked against."
    )
    roster = "agents.entries.<id>" if line.roster == "entries" else "agents.list[]"
    agent = _keyed_entry_schema() if line.roster == "entries" else _agent_entry_schema()
    # Lines with the same key set and roster share one file: it names them all.
    sharing = [other for other in LINES if other.schema_file == line.schema_file]
    releases = "; ".join(other.releases for other in sharing)
    ids = "/".join(other.id for other in sharing)
    return {
        "$schema": DRAFT_07,
        "title": f"OpenClaw config: tools.loopDetection ({releases})",
        "description": (
            "The parts of an OpenClaw config (openclaw.json) that loopcfg checks for OpenClaw "
            f"{releases} (line {ids}): tools.loopDetection and "
            f"{roster}.tools.loopDetection. Other keys are allowed."
        ),
        "type": "object",
        "allowComments": True,
        "allowTrailingCommas": True,
        "properties": {"$schema": schema_key, "tools": tools, "agents": _agents_schema(line)},
        "additionalProperties": True,
        "definitions": {
            "include": _include_definition(),
            "includePath": _include_property(),
            "loopDetection": _block_schema(line_id),
            "agent": agent,
        },
    }


def schema_files() -> dict[str, str]:
    """Each file of `schema/` (repository-relative) -> the line it is generated from; lines
    that share a key set and roster layout share a file (the table's `schema_file`)."""
    files: dict[str, str] = {}
    for line in LINES:
        if line.schema_file is not None:
            files.setdefault(line.schema_file, line.id)
    return files


def dump_schema(schema: dict[str, Any]) -> str:
    """Stable text: 2-space indent, keys in build order, non-ASCII kept, trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
