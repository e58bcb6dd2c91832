"""What the language server knows, without any LSP type: the check of a config (the `validate`
pipeline, reading the editor's unsaved buffers), hover facts, completion candidates and the
edits of `fix` and `migrate`. The server (loopcfg/lsp/server.py) only converts to LSP.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import nullcontext
from typing import NamedTuple

from loopcfg.check import CheckOptions, loaded_findings
from loopcfg.config import LoadedConfig, load_config
from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.edit import EditError, apply_operations
from loopcfg.fix import Fix, fixes_for, plan_fixes, target_line
from loopcfg.keys import SETTINGS, SETTINGS_BY_NAME, group_keys, top_level_keys
from loopcfg.lsp.incremental import ParseCache
from loopcfg.memo import SubtreeMemo
from loopcfg.releases import KEY_LIFE, choose_target
from loopcfg.source import parsing_with, unsaved_texts
from loopcfg.source.nodes import ArrayNode, Document, Entry, Node, ObjectNode, ScalarNode, Span


class Checked(NamedTuple):
    """One config checked: the loaded tree, every finding, and the files it read (real paths);
    `memo` keeps what the next check of the same config can reuse from this one."""

    path: str
    loaded: LoadedConfig
    diagnostics: list[Diagnostic]
    files: dict[str, str]  # real path -> the name its diagnostics and spans use
    memo: SubtreeMemo

    def document_for(self, real: str) -> Document | None:
        name = self.files.get(real)
        return self.loaded.documents.get(name) if name is not None else None


def check(
    path: str,
    buffers: Mapping[str, str],
    openclaw: str | None = None,
    parses: ParseCache | None = None,
    previous: Checked | None = None,
) -> Checked:
    """`validate`'s findings for the config at `path`, reading open buffers instead of disk.

    With `parses`, what did not change since the last check is not parsed again; with
    `previous` (the last check of `path` for the same `openclaw`), a config whose files all
    read as they did then (a save, a watched file that did not change) keeps its findings,
    and otherwise what depends only on values the edits did not touch is taken from that
    check (`previous.memo`: the parse cache hands over those values as the same objects)."""
    with unsaved_texts(buffers), parsing_with(parses.parse) if parses else nullcontext():
        loaded = load_config(path)
    same_config = previous is not None and previous.path == path
    memo = previous.memo if previous is not None and same_config else SubtreeMemo()
    if previous is not None and same_config and _same_input(previous.loaded, loaded):
        found = previous.diagnostics
    else:
        memo.new_round()
        options = CheckOptions(openclaw=openclaw)
        with unsaved_texts(buffers):
            found = sort_diagnostics(loaded_findings(loaded, options, memo=memo))
    names = set(loaded.documents) | {loaded.file}
    files = {os.path.realpath(name): name for name in names}
    return Checked(path, loaded, found, files, memo)


def prepare(checked: Checked, openclaw: str | None = None) -> None:
    """What the first invalid text of `checked`'s config would otherwise wait for: the
    jsonschema validators of its target's line (loopcfg.validate.build_validators)."""
    from loopcfg.validate import build_validators, config_target

    build_validators(config_target(checked.loaded, openclaw))


def _same_input(before: LoadedConfig, now: LoadedConfig) -> bool:
    """Whether two loads read the same texts and found the same (so their findings agree: the
    rest of the pipeline is a function of these and of the process's environment)."""
    return (
        before.file == now.file
        and before.unparsed_text == now.unparsed_text
        and before.diagnostics == now.diagnostics
        and before.documents.keys() == now.documents.keys()
        and all(before.documents[name].text == doc.text for name, doc in now.documents.items())
    )


def diagnostics_by_file(checked: Checked) -> dict[str, list[Diagnostic]]:
    """Findings grouped by the real path of the file they point into (every read file listed)."""
    grouped: dict[str, list[Diagnostic]] = {real: [] for real in checked.files}
    reals = {name: real for real, name in checked.files.items()}  # realpath costs syscalls
    for diagnostic in checked.diagnostics:
        real = reals.get(diagnostic.file) or os.path.realpath(diagnostic.file)
        grouped.setdefault(real, []).append(diagnostic)
    return grouped


# -- positions ------------------------------------------------------------------------------------


def contains(span: Span | None, line: int, column: int) -> bool:
    """Whether 1-based (line, column) is inside `span` (its end column included: the caret
    right after a key still hovers it)."""
    if span is None:
        return False
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


class Member(NamedTuple):
    entry: Entry
    parent: ObjectNode


def member_at(root: Node, line: int, column: int) -> Member | None:
    """The innermost object member whose key or value is at the position."""
    found: Member | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ObjectNode):
            for entry in node.entries:
                if contains(entry.key.span, line, column) or (
                    isinstance(entry.value, ScalarNode) and contains(entry.value.span, line, column)
                ):
                    found = Member(entry, node)
                if contains(entry.value.span, line, column):
                    stack.append(entry.value)
        elif isinstance(node, ArrayNode):
            stack.extend(item for item in node.items if contains(item.span, line, column))
    return found


def object_at(root: Node, line: int, column: int) -> ObjectNode | None:
    """The innermost object whose braces hold the position."""
    found: ObjectNode | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ObjectNode) and contains(node.span, line, column):
            found = node
            stack.extend(entry.value for entry in node.entries)
        elif isinstance(node, ArrayNode) and contains(node.span, line, column):
            stack.extend(node.items)
    return found


# -- hover ----------------------------------------------------------------------------------------


def _block_of(path: tuple[object, ...]) -> tuple[tuple[object, ...], str | None] | None:
    """(the loopDetection block's path, the group) when `path` is inside a block."""
    for index in range(len(path) - 1, 0, -1):
        if path[index] == "loopDetection" and path[index - 1] == "tools":
            inner = path[index + 1 :]
            group = inner[0] if len(inner) == 2 and isinstance(inner[0], str) else None
            return path[: index + 1], group
    return None


def setting_name(path: tuple[object, ...]) -> str | None:
    """The dotted setting a merged-tree path names (`detectors.pingPong`), if any."""
    found = _block_of(path)
    if found is None:
        return None
    block, _ = found
    inner = ".".join(str(part) for part in path[len(block) :])
    return inner if inner in SETTINGS_BY_NAME else None


def _merged_member(checked: Checked, span: Span) -> tuple[tuple[object, ...], Entry] | None:
    """The merged-tree member whose key has `span` (its path includes what `$include` adds)."""
    root = checked.loaded.root
    if root is None:
        return None
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ObjectNode):
            for entry in node.entries:
                if entry.key.span == span:
                    return (*node.path, entry.key.name), entry
                stack.append(entry.value)
        elif isinstance(node, ArrayNode):
            stack.extend(node.items)
    return None


def hover_text(checked: Checked, real: str, line: int, column: int, openclaw: str | None) -> str:
    """Markdown for the key under the cursor ('' when it is not a loop setting)."""
    from loopcfg.resolve import agent_entries, resolve_agent

    document = checked.document_for(real)
    if document is None:
        return ""
    member = member_at(document.root, line, column)
    if member is None or member.entry.key.span is None:
        return ""
    merged = _merged_member(checked, member.entry.key.span)
    if merged is None:
        return ""
    path, _ = merged
    name = setting_name(path)
    if name is None:
        return ""
    setting = SETTINGS_BY_NAME[name]
    lines = [f"**{name}** ({setting.kind})", "", setting.description, ""]
    default = "unset" if setting.default is None else str(setting.default).lower()
    lines.append(f"Default: `{default}`")
    agent_id = None
    if path[:2] == ("agents", "list") and isinstance(path[2], int):
        agent_id = next(
            (a.id for a in agent_entries(checked.loaded.root) if a.index == path[2]), None
        )
    if not any(d.severity == "error" for d in checked.diagnostics):
        effective = resolve_agent(checked.loaded, agent_id)
        source = effective.sources.get(name)
        where = "" if source is None else f" (from {_source_text(source)})"
        who = f'agent "{agent_id}"' if agent_id else "agents without their own block"
        lines.append(f"In effect for {who}: `{_shown(effective.value(name))}`{where}")
    life = KEY_LIFE.get(name)
    if life is not None:
        until = f"; retired in {life.retired}" if life.retired else ""
        lines.append(f"Accepted by OpenClaw {life.first} and later{until}")
    target = choose_target(openclaw, _meta_version(checked.loaded))
    if target.release is not None and not target.release.accepts(name):
        lines.append(f"Not accepted by the target, OpenClaw {target.release.name}")
    return "\n".join(lines)


def _source_text(source: object) -> str:
    origin = getattr(source, "origin", "default")
    file, line = getattr(source, "file", None), getattr(source, "line", None)
    return f"{origin} at {file}:{line}" if file and line else str(origin)


def _shown(value: object) -> str:
    if value is None:
        return "unset"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _meta_version(loaded: LoadedConfig) -> object:
    meta = loaded.root.get("meta") if loaded.root is not None else None
    version = meta.get("lastTouchedVersion") if isinstance(meta, ObjectNode) else None
    return version.value if isinstance(version, ScalarNode) else None


# -- completion -----------------------------------------------------------------------------------


class Candidate(NamedTuple):
    label: str
    detail: str
    documentation: str
    is_key: bool


def completions(
    checked: Checked, real: str, line: int, column: int, openclaw: str | None
) -> list[Candidate]:
    """Keys the target accepts in the block under the cursor (not yet written), or the values of
    a boolean setting."""
    document = checked.document_for(real)
    if document is None:
        return []
    line_id = target_line(checked.loaded, openclaw)
    member = member_at(document.root, line, column)
    on_value = (
        member is not None
        and member.entry.key.span is not None
        and contains(member.entry.value.span, line, column)
    )
    if member is not None and on_value and member.entry.key.span is not None:
        merged = _merged_member(checked, member.entry.key.span)
        name = setting_name(merged[0]) if merged else None
        if name is not None and SETTINGS_BY_NAME[name].kind == "boolean":
            return [Candidate(v, name, "", False) for v in ("true", "false")]
    node = object_at(document.root, line, column)
    if node is None or node.span is None:
        return []
    merged_object = _merged_object(checked, node)
    if merged_object is None:
        return []
    found = _block_of((*merged_object.path, "x"))
    if found is None:
        return []
    block = found[0]
    inner = merged_object.path[len(block) :]
    if not inner:
        keys = list(top_level_keys(line_id))
        prefix = ""
    elif len(inner) == 1 and isinstance(inner[0], str):
        keys = group_keys(inner[0], line_id)
        prefix = f"{inner[0]}."
    else:
        return []
    written = set(node.keys())
    out = []
    for key in keys:
        if key in written:
            continue
        setting = SETTINGS_BY_NAME.get(prefix + key)
        detail = setting.kind if setting else "object"
        doc = setting.description if setting else ""
        out.append(Candidate(key, detail, doc, True))
    return out


def _merged_object(checked: Checked, node: ObjectNode) -> ObjectNode | None:
    root = checked.loaded.root
    if root is None or node.span is None:
        return None
    stack: list[Node] = [root]
    while stack:
        current = stack.pop()
        if isinstance(current, ObjectNode):
            if current.span == node.span:
                return current
            stack.extend(entry.value for entry in current.entries)
        elif isinstance(current, ArrayNode):
            stack.extend(current.items)
    return None


# -- code actions ---------------------------------------------------------------------------------


class Action(NamedTuple):
    title: str
    kind: str  # "quickfix", "source.fixAll", "refactor.rewrite"
    texts: dict[str, str]  # document name -> its whole new text
    diagnostic: Diagnostic | None


def fix_actions(checked: Checked, openclaw: str | None, real: str, line: int) -> list[Action]:
    """`fix`'s quick fix for each finding on `line` of the file, and one "fix all"."""
    line_id = target_line(checked.loaded, openclaw)
    here = [
        d
        for d in checked.diagnostics
        if d.span is not None
        and os.path.realpath(d.span.file) == real
        and d.span.line <= line <= d.span.end_line
    ]
    fixes, _ = fixes_for(checked.loaded, here, line_id=line_id)
    actions = [a for a in (_quick_fix(checked, fix) for fix in fixes) if a is not None]
    plan = plan_fixes(checked.loaded, checked.diagnostics, line_id=line_id)
    if plan.texts:
        texts = {name: after for name, (_, after) in plan.texts.items()}
        title = f"loopcfg: fix all ({len(plan.fixes)} safe fixes)"
        actions.append(Action(title, "source.fixAll", texts, None))
    return actions


def _quick_fix(checked: Checked, fix: Fix) -> Action | None:
    document = checked.loaded.documents[fix.file]
    try:
        text = apply_operations(document, list(fix.operations))
    except EditError:
        return None
    return Action(f"loopcfg: {fix.description}", "quickfix", {fix.file: text}, fix.diagnostic)


def migrate_actions(checked: Checked) -> list[Action]:
    """ "Migrate to OpenClaw <newest>" when the config is written for an older line."""
    from loopcfg.migrate import plan_migration
    from loopcfg.releases import newest_release

    newest = newest_release()
    plan = plan_migration(checked.loaded, newest, checked.diagnostics)
    if plan.refused or not plan.texts:
        return []
    texts = {name: after for name, (_, after) in plan.texts.items()}
    title = f"loopcfg: migrate to OpenClaw {newest.name} ({len(plan.losses)} values cannot be kept)"
    return [Action(title, "refactor.rewrite", texts, None)]


__all__ = [
    "SETTINGS",
    "Action",
    "Candidate",
    "Checked",
    "check",
    "completions",
    "diagnostics_by_file",
    "fix_actions",
    "hover_text",
    "migrate_actions",
]
