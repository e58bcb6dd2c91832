"""`loopcfg migrate`: rewrite the loop-related parts of a config for another release line
(08 §8.5), as edits that keep comments, formatting and key order everywhere else.

To S3 (2026.7.2-beta.4 and later): delete exactly the retired paths of doctor's step 3 under
every `tools.loopDetection` (global, `agents.defaults`, each agent), pruning parents the
deletion empties (never an agent entry); move `agents.list` to `agents.entries` with doctor's id
normalisation, `-N` suffixes and ownership stamp. To S0-S2: `agents.entries` back to
`agents.list`, `agents.ownership` dropped, keys the target does not know yet removed. Each value
that cannot be kept is reported with the value it had in effect and the one that applies now.
A config with an error the migration does not itself remove is refused, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from loopcfg.config import LoadedConfig
from loopcfg.diagnostics import Diagnostic
from loopcfg.edit import (
    Delete,
    EditError,
    EntriesToList,
    Insert,
    ListToEntries,
    Operation,
    Replace,
    apply_operations,
)
from loopcfg.edit.text import covered_by
from loopcfg.keys import SETTINGS
from loopcfg.releases import Release, choose_target, key_status
from loopcfg.source.nodes import (
    ArrayNode,
    DocPath,
    Entry,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    format_path,
    to_python,
)

__all__ = ["RETIRED_PATHS", "Change", "Loss", "MigratePlan", "plan_migration"]

# Doctor's step 3 (`runtime.tuning-knobs-purge`, 08 §8.5): deleted under every loopDetection.
RETIRED_PATHS = (
    "genericRepeat",
    "knownPollNoProgress",
    "pingPong",
    "windowSize",
    "historySize",
    "warningThreshold",
    "unknownToolThreshold",
    "criticalThreshold",
    "globalCircuitBreakerThreshold",
    "detectors",
    "postCompactionGuard",
)
_S3_LINES = ("S3beta", "S3")
# Errors that only say "written for another release": the migration is what removes them.
_VERSION_CODES = ("LC009", "LC010", "LC111")


class Loss(NamedTuple):
    """A value that cannot be kept (08 §8.5 "What cannot be kept"); JSON: path, was, now, reason."""

    path: str
    was: object
    now: object
    reason: str


class Change(NamedTuple):
    """One thing the migration does, in doctor's words where doctor has them."""

    path: str
    message: str


class MigratePlan(NamedTuple):
    target: Release
    changes: tuple[Change, ...]
    losses: tuple[Loss, ...]
    refusals: tuple[Diagnostic, ...]
    texts: dict[str, tuple[str, str]]  # document name -> (before, after), changed files only

    @property
    def refused(self) -> bool:
        return bool(self.refusals)


class _Plan:
    """The operations per document, and what the report says, while they are collected."""

    def __init__(self, loaded: LoadedConfig, target: Release) -> None:
        self.loaded = loaded
        self.target = target
        self.deleted: set[Span | None] = (
            set()
        )  # key spans of the entries to delete (before pruning)
        self.operations: dict[str, list[Operation]] = {}
        self.changes: list[Change] = []
        self.losses: list[Loss] = []
        self.refusals: list[Diagnostic] = []

    def note(self, path: str, message: str) -> None:
        self.changes.append(Change(path, message))

    def lose(self, path: str, was: object, now: object, reason: str) -> None:
        self.losses.append(Loss(path, was, now, reason))

    def add(self, file: str, operation: Operation) -> None:
        self.operations.setdefault(file, []).append(operation)

    def refuse(self, message: str, span: Span | None, path: str = "") -> None:
        self.refusals.append(
            Diagnostic.at("LC010", "error", message, span, file=self.loaded.file, path=path)
        )


def plan_migration(
    loaded: LoadedConfig, target: Release, diagnostics: list[Diagnostic]
) -> MigratePlan:
    """What migrating `loaded` to `target` does; `diagnostics` are validate's findings."""
    plan = _Plan(loaded, target)
    root = loaded.root
    if root is None:
        return MigratePlan(
            target, (), (), tuple(d for d in diagnostics if d.severity == "error"), {}
        )
    to_s3 = target.line.id in _S3_LINES
    if to_s3:
        _purge_retired(plan, root)
        _move_roster_to_entries(plan, root)
    else:
        _remove_unintroduced(plan, root)
        _move_roster_to_list(plan, root)
    _engine_note(plan, root)
    _refuse_unremoved_errors(plan, diagnostics)
    if plan.refusals:
        return MigratePlan(
            target, tuple(plan.changes), tuple(plan.losses), tuple(plan.refusals), {}
        )
    _prune_and_delete(plan)
    texts: dict[str, tuple[str, str]] = {}
    for name, operations in plan.operations.items():
        document = loaded.documents[name]
        try:
            after = apply_operations(document, operations)
        except EditError as error:
            plan.refuse(f"{name} cannot be rewritten safely: {error}", None)
            continue
        if after != document.text:
            texts[name] = (document.text, after)
    if plan.refusals:
        texts = {}
    return MigratePlan(target, tuple(plan.changes), tuple(plan.losses), tuple(plan.refusals), texts)


# -- the loopDetection blocks ---------------------------------------------------------------------


class _Block(NamedTuple):
    node: ObjectNode
    path: str  # where it is in the merged config, for the report
    agent: ObjectNode | None  # the agent entry (None: global or defaults)


def _blocks(root: ObjectNode) -> Iterator[_Block]:
    tools = _object(root.get("tools"))
    if tools is not None and (block := _object(tools.get("loopDetection"))) is not None:
        yield _Block(block, "tools.loopDetection", None)
    agents = _object(root.get("agents"))
    if agents is None:
        return
    defaults = _object(agents.get("defaults"))
    if defaults is not None:
        block = _object(_get(defaults, "tools", "loopDetection"))
        if block is not None:
            yield _Block(block, "agents.defaults.tools.loopDetection", None)
    entries = _object(agents.get("entries"))
    if entries is not None:
        for entry in entries.winning_entries():
            agent = _object(entry.value)
            block = _object(_get(agent, "tools", "loopDetection")) if agent else None
            if block is not None:
                where = format_path(("agents", "entries", entry.key.name, "tools", "loopDetection"))
                yield _Block(block, where, agent)
        return
    roster = agents.get("list")
    if isinstance(roster, ArrayNode):
        for index, item in enumerate(roster.items):
            agent = _object(item)
            block = _object(_get(agent, "tools", "loopDetection")) if agent else None
            if block is not None:
                yield _Block(block, f"agents.list[{index}].tools.loopDetection", agent)


def _purge_retired(plan: _Plan, root: ObjectNode) -> None:
    removed: list[str] = []
    for block in _blocks(root):
        for entry in block.node.entries:
            if entry.key.name in RETIRED_PATHS:
                plan.deleted.add(entry.key.span)
                removed.append(f"{block.path}.{entry.key.name}")
    if removed:
        plan.changes.append(
            Change(
                "",
                f"Removed retired runtime tuning knobs: {', '.join(dict.fromkeys(removed))}; "
                "built-in defaults now apply.",
            )
        )
    _report_knob_losses(plan, root)


def _report_knob_losses(plan: _Plan, root: ObjectNode) -> None:
    """Each retired value whose effective value differs from the built-in one (02 §2.3: the
    values in effect, after OpenClaw's ordering bumps)."""
    from loopcfg.resolve import (
        agent_block,
        agent_entries,
        block_settings,
        global_block,
        merge_written,
        settings_for,
    )

    reason = f"retired in 2026.8.1: OpenClaw {plan.target.name} uses the built-in value"
    global_written = block_settings(global_block(root), "global")
    scopes = [("tools.loopDetection", settings_for(global_written), set(global_written))]
    for agent in agent_entries(root):
        own = block_settings(agent_block(root, agent), "agent")
        if own:
            effective = settings_for(merge_written(global_written, own))
            scopes.append((format_path(agent.block_path), effective, set(own)))
    for where, effective, written in scopes:
        adjusted = {adjustment.setting for adjustment in effective.adjustments}
        for setting in SETTINGS:
            if setting.name == "enabled" or setting.name not in written | adjusted:
                continue
            was = effective.value(setting.name)
            if was == setting.default:
                continue
            why = reason
            if setting.group == "detectors":
                why = "the detector is active again: S3 has no per-detector switch"
            elif where != "tools.loopDetection":
                why = "per-agent tuning: only the per-agent enabled survives; " + reason
            plan.lose(f"{where}.{setting.name}", was, setting.default, why)


def _remove_unintroduced(plan: _Plan, root: ObjectNode) -> None:
    from loopcfg.resolve import agent_entries, block_settings, global_block, settings_for

    target = plan.target
    effective = settings_for(block_settings(global_block(root), "global"))
    if target.line.id == "S0":
        for block in _blocks(root):
            entry = _entry_holding(root, block.node)
            if entry is not None:
                plan.deleted.add(entry.key.span)
                plan.losses.append(
                    Loss(
                        block.path,
                        to_python(block.node),
                        None,
                        f"tools.loopDetection is not accepted by OpenClaw {target.name}: "
                        "introduced in 2026.2.17",
                    )
                )
        return
    del agent_entries
    for block in _blocks(root):
        for entry in block.node.entries:
            name = entry.key.name
            settings = [s for s in SETTINGS if s.name == name or s.group == name]
            statuses = [key_status(s.name, target) for s in settings if s.name in _life_names()]
            introduced = [s for s in statuses if s is not None and s.introduced_in]
            if not introduced or len(introduced) < len(settings):
                continue
            plan.deleted.add(entry.key.span)
            was = to_python(entry.value)
            if block.path == "tools.loopDetection" and not isinstance(was, dict):
                was = effective.value(name) if name in {s.name for s in SETTINGS} else was
            plan.losses.append(
                Loss(
                    f"{block.path}.{name}",
                    was,
                    None,
                    f'"{name}" is not accepted by OpenClaw {target.name}: introduced in '
                    f"{introduced[0].introduced_in}",
                )
            )


def _life_names() -> set[str]:
    from loopcfg.releases import KEY_LIFE

    return set(KEY_LIFE)


# -- the roster ---------------------------------------------------------------------------------


def _move_roster_to_entries(plan: _Plan, root: ObjectNode) -> None:
    from loopcfg.resolve import normalize_agent_id

    agents = _object(root.get("agents"))
    list_entry = agents.entry("list") if agents is not None else None
    if agents is None or list_entry is None:
        return
    if "entries" in agents:
        plan.refuse(
            "agents.list and agents.entries are both written: OpenClaw's doctor would drop the "
            "list unread; keep one of them",
            list_entry.key.span,
            "agents.list",
        )
        return
    roster = list_entry.value
    file = _file_of(list_entry)
    if not isinstance(roster, ArrayNode) or any(_file_of_node(i) != file for i in roster.items):
        plan.refuse("agents.list is not written as one list in one file", list_entry.key.span)
        return
    keys: list[str | None] = []
    taken: set[str] = set()
    for index, item in enumerate(roster.items):
        if not isinstance(item, ObjectNode):
            keys.append(None)
            plan.note(f"agents.list[{index}]", f"Removed malformed agents.list[{index}] entry.")
            plan.lose(
                f"agents.list[{index}]", to_python(item), None, "not an agent entry (an object)"
            )
            continue
        raw = item.get("id")
        written = raw.value if isinstance(raw, ScalarNode) and isinstance(raw.value, str) else ""
        key = normalize_agent_id(written) if written.strip() else "agent"
        if key != written:
            plan.note(
                f"agents.list[{index}].id",
                f'Normalized agents.list id "{written}" → agents.entries.{key}.',
            )
            plan.lose(
                f"agents.list[{index}].id",
                written,
                key,
                "a renamed id: bindings and session folders that use the old id are not rewritten",
            )
        base, suffix = key, 2
        while key in taken:
            key, suffix = f"{base}-{suffix}", suffix + 1
        if key != base:
            plan.note(
                f"agents.list[{index}].id",
                f'Moved duplicate agents.list id "{base}" to agents.entries.{key}.',
            )
            plan.lose(
                f"agents.list[{index}]",
                base,
                key,
                "a later duplicate agent id, ignored before, becomes a separate agent",
            )
        taken.add(key)
        keys.append(key)
    agents_path = _doc_path(plan, agents)
    if all(key is None for key in keys):  # S3 refuses an empty agents.entries: no roster at all
        plan.deleted.add(list_entry.key.span)
        plan.note("agents.list", "Removed agents.list: it holds no agent entry.")
        return
    plan.add(file, ListToEntries((*agents_path, "list"), tuple(keys)))
    plan.note("agents.list", "Moved agents.list → keyed agents.entries.")
    kept = [item for item, key in zip(roster.items, keys, strict=True) if key is not None]
    marked = any(_is_true(_get(_object(item), "default")) for item in kept)
    if len(kept) >= 2 and not marked and "ownership" not in agents:
        if plan.target.has("ownership"):
            plan.add(file, Insert(agents_path, "ownership", "explicit"))
            plan.note(
                "agents.ownership",
                "Stamped the multi-agent roster for explicit per-surface ownership.",
            )
        first = _object(kept[0])
        if first is not None and "workspace" not in first:
            plan.note(
                "agents.entries",
                "openclaw doctor also pins the first entry's workspace; "
                "run `openclaw doctor` for non-loop settings",
            )


def _move_roster_to_list(plan: _Plan, root: ObjectNode) -> None:
    agents = _object(root.get("agents"))
    entries_entry = agents.entry("entries") if agents is not None else None
    if agents is None:
        return
    ownership = agents.entry("ownership")
    if ownership is not None:
        plan.deleted.add(ownership.key.span)
        plan.lose(
            "agents.ownership",
            to_python(ownership.value),
            None,
            "per-surface ownership cannot be expressed before 2026.8.1",
        )
    if entries_entry is None:
        return
    if "list" in agents:
        plan.refuse(
            "agents.list and agents.entries are both written; keep one of them",
            entries_entry.key.span,
            "agents.entries",
        )
        return
    record = entries_entry.value
    if not isinstance(record, ObjectNode) or record.duplicates():
        plan.refuse(
            "agents.entries must be one object without repeated keys to convert",
            entries_entry.key.span,
            "agents.entries",
        )
        return
    if any(
        not isinstance(e.value, ObjectNode) or _file_of_node(e.value) != _file_of(entries_entry)
        for e in record.entries
    ):
        plan.refuse(
            "every agents.entries value must be an object written in the same file",
            entries_entry.key.span,
            "agents.entries",
        )
        return
    plan.add(_file_of(entries_entry), EntriesToList((*_doc_path(plan, agents), "entries")))
    plan.note("agents.entries", "Moved agents.entries → agents.list.")


# -- refusals, pruning, notes ----------------------------------------------------------------------


def _refuse_unremoved_errors(plan: _Plan, diagnostics: list[Diagnostic]) -> None:
    removed = covered_by(_removed_spans(plan))
    for diagnostic in diagnostics:
        if diagnostic.severity != "error" or diagnostic.code in _VERSION_CODES:
            continue
        span = diagnostic.span
        if span is not None and removed(span):
            continue  # inside what the migration deletes
        plan.refusals.append(diagnostic)


def _removed_spans(plan: _Plan) -> list[Span]:
    spans: list[Span] = []
    for document in plan.loaded.documents.values():
        for entry in _document_entries(document.root):
            if entry.key.span in plan.deleted and entry.key.span and entry.value.span:
                start, end = entry.key.span, entry.value.span
                spans.append(
                    Span(start.file, start.line, start.column, end.end_line, end.end_column)
                )
    return spans


def _prune_and_delete(plan: _Plan) -> None:
    """Delete the marked entries; an object emptied by them goes too, up to (not including) an
    agent entry, `agents` or a file's root (08 §8.5: "Parents left empty are deleted too")."""
    for name, document in plan.loaded.documents.items():
        root = document.root
        if isinstance(root, ObjectNode):
            _prune(plan, name, root, protected=True)


def _prune(plan: _Plan, file: str, node: ObjectNode, *, protected: bool) -> bool:
    """Queue deletions under `node`; True when every entry of `node` goes."""
    gone = 0
    doomed: list[Entry] = []
    for entry in node.entries:
        if entry.key.span is not None and entry.key.span in plan.deleted:
            gone += 1
            doomed.append(entry)
            continue
        value = entry.value
        keep_value = (protected and entry.key.name == "agents") or node.path[-1:] == ("entries",)
        if isinstance(value, ObjectNode) and value.entries:
            if _prune(plan, file, value, protected=keep_value):
                if keep_value:
                    continue
                gone += 1
                doomed.append(entry)
                # The children's deletions are replaced by this one.
                plan.operations[file] = [
                    op
                    for op in plan.operations.get(file, [])
                    if not (
                        isinstance(op, Delete)
                        and op.path[: len(value.path)] == value.path
                        and len(op.path) > len(value.path)
                    )
                ]
        elif isinstance(value, ArrayNode):
            for item in value.items:
                if isinstance(item, ObjectNode):
                    _prune(plan, file, item, protected=True)
    for entry in doomed:
        same = [e for e in node.entries if e.key.name == entry.key.name]
        occurrence = [id(e) for e in same].index(id(entry))
        plan.add(file, Delete((*node.path, entry.key.name), occurrence if len(same) > 1 else None))
    return bool(node.entries) and gone == len(node.entries) and not protected


def _engine_note(plan: _Plan, root: ObjectNode) -> None:
    meta = _object(root.get("meta"))
    version = meta.entry("lastTouchedVersion") if meta is not None else None
    written = version.value.value if version and isinstance(version.value, ScalarNode) else None
    source = choose_target(None, written).release
    agents = _object(root.get("agents"))
    from_s3 = agents is not None and "entries" in agents
    was_engine = source.engine if source is not None else ("E8.1" if from_s3 else "E6.5")
    now_engine = plan.target.engine or "not modelled"
    if was_engine != now_engine:
        plan.losses.append(
            Loss(
                "",
                was_engine,
                now_engine,
                "the detector engine changes (09): message texts, argument churn and batch "
                "blocking differ",
            )
        )
    if meta is not None and version is not None and written != plan.target.name:
        where = (*_doc_path(plan, meta), "lastTouchedVersion")
        plan.add(_file_of(version), Replace(where, plan.target.name))
        plan.note(
            "meta.lastTouchedVersion",
            f"meta.lastTouchedVersion {written} → {plan.target.name}, so "
            "later checks pick the migrated release",
        )


# -- small helpers -----------------------------------------------------------------------------


def _object(node: Node | None) -> ObjectNode | None:
    return node if isinstance(node, ObjectNode) else None


def _get(node: ObjectNode | None, *names: str) -> Node | None:
    current: Node | None = node
    for name in names:
        current = current.get(name) if isinstance(current, ObjectNode) else None
    return current


def _is_true(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.value is True


def _entry_holding(root: ObjectNode, node: Node) -> Entry | None:
    for entry in _document_entries(root):
        if entry.value is node:
            return entry
    return None


def _document_entries(node: Node) -> Iterator[Entry]:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ObjectNode):
            for entry in current.entries:
                yield entry
                stack.append(entry.value)
        elif isinstance(current, ArrayNode):
            stack.extend(current.items)


def _file_of(entry: Entry) -> str:
    span = entry.key.span or entry.value.span
    if span is None:
        raise EditError("a value without a file")
    return span.file


def _file_of_node(node: Node) -> str | None:
    return node.span.file if node.span is not None else None


def _doc_path(plan: _Plan, node: Node) -> DocPath:
    """A merged-tree node's path inside the file it is written in: the merged tree is a copy
    whose nodes keep their spans, so the node is found again in its document by its span."""
    span = node.span
    document = plan.loaded.documents.get(span.file) if span is not None else None
    if span is None or document is None:
        raise EditError("a value without a file")
    stack = [document.root]
    while stack:
        current = stack.pop()
        if current.span == span and type(current) is type(node):
            return current.path
        if isinstance(current, ObjectNode):
            stack.extend(entry.value for entry in current.entries)
        elif isinstance(current, ArrayNode):
            stack.extend(current.items)
    raise EditError(f"{format_path(node.path)} is not found in {span.file}")
