"""Renderers of resolved settings: JSON5 with a source comment per line, a table, JSON, YAML.

Every format says whether the rolling detectors and the post-compaction guard are active and
why (the tri-state `enabled`): a comment in JSON5 and YAML, a line under the table, and the
`detectorsActive` / `postCompactionGuardActive` fields in JSON (02 §2.5).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from loopcfg.keys import SETTINGS
from loopcfg.render import json_text
from loopcfg.settings import EffectiveSettings, Source

__all__ = [
    "RENDERERS",
    "render",
    "render_explain",
    "render_json",
    "render_json5",
    "render_yaml",
    "status_lines",
    "to_json",
]

JSON_VERSION = 1
_YAML_COMMENT_COLUMN = 36  # past the longest "key: value" line


def _position(source: Source) -> str:
    """`file:line:col`, printable: a file name may hold a line break (which would end a `//`
    comment and turn the rest into JSON5) or, not UTF-8 on disk, a surrogate escape."""
    from loopcfg.render import printable

    if source.file is None:
        return ""
    return printable(f"{source.file}:{source.line}:{source.column}")


def _enabled_where(settings: EffectiveSettings) -> str:
    source = settings.sources.get("enabled", Source("default"))
    where = _position(source)
    return f"{source.origin} {where}".rstrip() if source.origin != "default" else "default"


def status_lines(settings: EffectiveSettings) -> tuple[str, str]:
    """Plain statements: are the rolling detectors / is the guard active, and why."""
    if settings.enabled is None:
        return (
            "rolling detectors: inactive (enabled is not set; only enabled: true turns them on)",
            "post-compaction guard: active (enabled is not set; only enabled: false turns it off)",
        )
    where = _enabled_where(settings)
    if settings.enabled:
        return (
            f"rolling detectors: active (enabled: true, {where})",
            f"post-compaction guard: active (enabled: true, {where})",
        )
    return (
        f"rolling detectors: inactive (enabled: false, {where})",
        f"post-compaction guard: inactive (enabled: false turns it off too, {where})",
    )


def _heading(settings: EffectiveSettings) -> str:
    if settings.agent is None:
        return "global view (no --agent): tools.loopDetection over the defaults"
    if settings.found and _has_override(settings):
        return f'agent "{settings.agent}": its override merged over tools.loopDetection'
    if settings.found:
        return f'agent "{settings.agent}": no override, so tools.loopDetection over the defaults'
    return f'agent "{settings.agent}": not in agents.list, so the global block alone'


def _has_override(settings: EffectiveSettings) -> bool:
    """True when the agent's own block wrote any setting (an adjusted one included)."""
    written = [a.written_source for a in settings.adjustments if a.written_source is not None]
    origins = [source.origin for source in (*settings.sources.values(), *written)]
    return "agent" in origins


def _adjustment_text(settings: EffectiveSettings, name: str) -> str:
    """`from written 15 (global f:3:29): raised to warningThreshold 29 + 1`."""
    for adjustment in settings.adjustments:
        if adjustment.setting != name:
            continue
        written = adjustment.written_source
        if written is None or written.origin == "default":
            was = f"default {adjustment.written}"
        else:
            where = f"{written.origin} {_position(written)}".rstrip()
            was = f"written {adjustment.written} ({where})"
        lower = adjustment.raised_from or adjustment.rule
        return f"from {was}: raised to {lower} {adjustment.effective - 1} + 1"
    return ""  # pragma: no cover - an adjusted source always has its adjustment


def _source_text(settings: EffectiveSettings, name: str) -> str:
    """`default`, `agent openclaw.json5:12:31`, `adjusted from written 15 (...): raised ...`."""
    source = settings.sources.get(name, Source("default"))
    if source.origin == "adjusted":
        return f"adjusted {_adjustment_text(settings, name)}"
    return f"{source.origin} {_position(source)}".rstrip()


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def render_json5(settings: EffectiveSettings) -> str:
    """The effective block as JSON5, one `// source` comment per line."""
    detectors, guard = status_lines(settings)
    lines = [f"// {_heading(settings)}", f"// {detectors}", f"// {guard}", "{"]
    if settings.enabled is None:
        lines.append("  // enabled: not set (default)")
    group: str | None = None
    for setting in SETTINGS:
        value = settings.value(setting.name)
        if setting.name == "enabled" and value is None:
            continue
        if setting.group != group:
            if group is not None:
                lines.append("  },")
            if setting.group is not None:
                lines.append(f"  {setting.group}: {{")
            group = setting.group
        indent = "    " if setting.group else "  "
        comment = _source_text(settings, setting.name)
        lines.append(f"{indent}{setting.leaf}: {_literal(value)}, // {comment}")
    if group is not None:
        lines.append("  },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_explain(settings: EffectiveSettings) -> str:
    """A table: setting, effective value, source, location; then the two status lines."""
    rows = [("setting", "value", "source", "location")]
    for setting in SETTINGS:
        value = settings.value(setting.name)
        source = settings.sources.get(setting.name, Source("default"))
        if source.origin == "adjusted":
            location = _adjustment_text(settings, setting.name)
        else:
            location = _position(source) or "-"
        shown = "(not set)" if value is None else _literal(value)
        rows.append((setting.name, shown, source.origin, location))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    table = [
        "  ".join([*(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])), row[3]]).rstrip()
        for row in rows
    ]
    return "\n".join([_heading(settings), "", *table, "", *status_lines(settings)]) + "\n"


def to_json(settings: EffectiveSettings) -> dict[str, Any]:
    """The 02 §2.5 object of one resolution (`agent`/`found` null for the global view)."""
    return {
        "version": JSON_VERSION,
        "agent": settings.agent,
        "found": settings.found,
        "effective": settings.effective_block(),
        "detectorsActive": settings.detectors_active,
        "postCompactionGuardActive": settings.guard_active,
        "sources": {
            setting.name: settings.sources.get(setting.name, Source("default")).to_json()
            for setting in SETTINGS
        },
        "adjustments": [adjustment.to_json() for adjustment in settings.adjustments],
    }


def _dump_json(value: object) -> str:
    return json_text(value) + "\n"


def render_json(settings: EffectiveSettings) -> str:
    return _dump_json(to_json(settings))


def render_yaml(settings: EffectiveSettings) -> str:
    """The effective block as YAML (ruamel.yaml), with the same source comments as JSON5."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    block = CommentedMap()
    groups: dict[str, Any] = {}
    for setting in SETTINGS:
        value = settings.value(setting.name)
        if value is None:
            continue
        comment = _source_text(settings, setting.name)
        # ruamel places comments by absolute column; one column keeps them aligned.
        if setting.group is None:
            block[setting.name] = value
            block.yaml_add_eol_comment(comment, setting.name, column=_YAML_COMMENT_COLUMN)
            continue
        if setting.group not in groups:
            groups[setting.group] = block[setting.group] = CommentedMap()
        groups[setting.group][setting.leaf] = value
        groups[setting.group].yaml_add_eol_comment(
            comment, setting.leaf, column=_YAML_COMMENT_COLUMN
        )
    yaml = YAML()
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump(block, stream)
    detectors, guard = status_lines(settings)
    header = [f"# {_heading(settings)}", f"# {detectors}", f"# {guard}"]
    if settings.enabled is None:
        header.append("# enabled: not set (default)")
    return "\n".join(header) + "\n" + stream.getvalue()


Renderer = Callable[[EffectiveSettings], str]
RENDERERS: dict[str, Renderer] = {
    "json5": render_json5,
    "yaml": render_yaml,
    "explain": render_explain,
}


def render(
    results: Sequence[EffectiveSettings],
    output_format: str,
    *,
    every: bool,
    target: Mapping[str, Any] | None = None,
) -> str:
    """Render one result, or (`every`: --all) each agent's; JSON --all is one object.

    `target` is the JSON `target` member (README Decision 10: null when none was given)."""
    if output_format == "json":
        if every:
            agents = [to_json(r) for r in results]
            return _dump_json({"version": JSON_VERSION, "target": target, "agents": agents})
        return _dump_json({**to_json(results[0]), "target": target})
    renderer = RENDERERS[output_format]
    if not every:
        return renderer(results[0])
    if not results:
        comment = "#" if output_format == "yaml" else "//"
        return f"{comment} agents.list has no agents\n"
    separator = "---\n" if output_format == "yaml" else "\n"
    return separator.join(renderer(result) for result in results)
