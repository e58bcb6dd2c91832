"""The JSON Schema (draft-07) of an OpenClaw config's loop-detection parts, built from keys.py.

One schema serves the validator and editors (01 §1.3), so it is editor-grade: every field has a
description, a markdownDescription and a default; the root and every object outside the block
accept other keys (they belong to OpenClaw); an object holding `$include` is accepted where an
object is expected. The block itself is strict, as OpenClaw is. Orderings between thresholds
cannot be said in JSON Schema; `loopcfg.validate` checks them in code with OpenClaw's messages.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from loopcfg.keys import GROUPS, THRESHOLD_ORDER, Setting, group_keys, settings_for, top_level_keys

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
SCHEMA_FILE = "schema/openclaw-loopdetection.schema.json"
INCLUDE_KEY = "$include"

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
    integer = {"type": "integer", "minimum": 1}
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
    return _with_docs(schema, description)


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


def _group_schema(group: str, settings: dict[str, Setting]) -> dict[str, Any]:
    properties: dict[str, Any] = {
        leaf: _setting_schema(settings[f"{group}.{leaf}"]) for leaf in group_keys(group)
    }
    properties[INCLUDE_KEY] = {"$ref": "#/definitions/includePath"}
    defaults = {leaf: properties[leaf]["default"] for leaf in group_keys(group)}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "default": defaults,
    }
    return _with_docs(schema, _GROUP_DESCRIPTIONS.get(group, group))


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


def block_schema() -> dict[str, Any]:
    """One `tools.loopDetection` block as a standalone draft-07 document (`--block-only`)."""
    block: dict[str, Any] = json.loads(json.dumps(_block_schema()))
    return {
        "$schema": DRAFT_07,
        **block,
        "definitions": {"include": _include_definition(), "includePath": _include_property()},
    }


@cache
def _block_schema() -> dict[str, Any]:
    settings = {setting.name: setting for setting in settings_for()}
    properties: dict[str, Any] = {}
    for key in top_level_keys():
        if key in GROUPS:
            properties[key] = _group_schema(key, settings)
        else:
            properties[key] = _setting_schema(settings[key])
    properties[INCLUDE_KEY] = {"$ref": "#/definitions/includePath"}
    schema: dict[str, Any] = {
        "title": "tools.loopDetection",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "default": {},
        "examples": [_EXAMPLE_BLOCK, {"enabled": True}],
        "defaultSnippets": [
            {
                "label": "Loop detection on (defaults)",
                "description": "Turn the detectors on with OpenClaw's default thresholds.",
                "body": _SNIPPET_BODY,
            },
            {
                "label": "Loop detection on, minimal",
                "body": {"enabled": True},
            },
        ],
    }
    return _with_docs(schema, _BLOCK_DESCRIPTION)


def _loose_object(description: str, properties: dict[str, Any]) -> dict[str, Any]:
    """An object outside the block: other keys belong to OpenClaw and are allowed."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {**properties, INCLUDE_KEY: {"$ref": "#/definitions/includePath"}},
        "additionalProperties": True,
        "default": {},
    }
    return _with_docs(schema, description)


def _agent_entry_schema() -> dict[str, Any]:
    tools = _loose_object(
        "This agent's tool settings; only loopDetection is checked by loopcfg.",
        {"loopDetection": _block_ref("This agent's override, merged over the global block.")},
    )
    agent_id: dict[str, Any] = _with_docs(
        {"type": "string", "default": ""},
        "The agent's id. OpenClaw normalises it (lower case, dashes) for session keys and --agent.",
    )
    schema = _loose_object("One agent.", {"id": agent_id, "tools": tools})
    # An entry that is only an `$include` gets its id from the included file.
    schema["if"] = {"required": [INCLUDE_KEY]}
    schema["else"] = {"required": ["id"]}
    return schema


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


def build_schema() -> dict[str, Any]:
    """The whole-config schema, as exported to `schema/` and printed by `loopcfg schema`."""
    return json.loads(json.dumps(_build_schema()))  # type: ignore[no-any-return]


@cache
def _build_schema() -> dict[str, Any]:
    tools = _loose_object(
        "OpenClaw's tool settings; only loopDetection is checked by loopcfg.",
        {"loopDetection": _block_ref("The global loop-detection block, for every agent.")},
    )
    agents = _loose_object("OpenClaw's agents.", {"list": _agent_list_schema()})
    schema_key = _with_docs(
        {"type": "string", "default": ""}, "The JSON Schema this file is checked against."
    )
    return {
        "$schema": DRAFT_07,
        "title": "OpenClaw config: tools.loopDetection",
        "description": (
            "The parts of an OpenClaw config (openclaw.json) that loopcfg checks: "
            "tools.loopDetection and agents.list[].tools.loopDetection. Other keys are allowed."
        ),
        "type": "object",
        "allowComments": True,
        "allowTrailingCommas": True,
        "properties": {"$schema": schema_key, "tools": tools, "agents": agents},
        "additionalProperties": True,
        "definitions": {
            "include": _include_definition(),
            "includePath": _include_property(),
            "loopDetection": _block_schema(),
            "agent": _agent_entry_schema(),
        },
    }


def dump_schema(schema: dict[str, Any]) -> str:
    """Stable text: 2-space indent, keys in build order, non-ASCII kept, trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
