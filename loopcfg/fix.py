"""`loopcfg fix`: the safe fixes of diagnostics that have exactly one right answer (05-cli).

A fix is an edit operation (loopcfg/edit) derived from one diagnostic of the `validate`
pipeline, located in the file where the value is written (`Span.file`). Only fixes that change
nothing an agent runs with beyond the intended correction are offered:
- LC003: an unknown key with exactly one "did you mean" candidate, renamed, unless the block
  already writes that key (the rename would then override a value the user set);
- LC012: a well-known wrong key with one intended key (08 §8.4.1) on S1-S2 targets:
  `repeatThreshold` becomes `warningThreshold`, a flat detector switch moves under `detectors`;
- LC107: the dead earlier entry of a key written twice (the later one wins, so nothing runs
  differently: checked by comparing the loaded values before and after);
- LC002: a number or boolean written in quotes (`"10"`, `"true"`), unless it came from `${VAR}`;
- LC108: an agent id in the form OpenClaw normalises it to, when nothing else in the config
  refers to the id as written.
The LSP offers the same fixes as quick fixes (`fixes_for`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from loopcfg.config import LoadedConfig
from loopcfg.diagnostics import Diagnostic
from loopcfg.edit import Delete, EditError, Insert, Operation, Rename, Replace, apply_operations
from loopcfg.source.nodes import (
    ArrayNode,
    DocPath,
    Document,
    Entry,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    to_python,
)

__all__ = ["FIXABLE", "Fix", "FixPlan", "Skipped", "fixes_for", "plan_fixes"]

FIXABLE = ("LC002", "LC003", "LC012", "LC107", "LC108")

_DID_YOU_MEAN = re.compile(r'^did you mean "([^"]+)"\?$')
_WITHOUT_QUOTES = re.compile(r"^write (\S+) without quotes$")
_WRITE_ID = re.compile(r'^write id: "(.*)"$')
# 08 §8.4.1: the well-known wrong keys with one intended key (S1-S2 only; S3 has neither).
_LC012_RENAMES = {"repeatThreshold": "warningThreshold"}
_FLAT_DETECTORS = ("genericRepeat", "knownPollNoProgress", "pingPong")


class Fix(NamedTuple):
    """One safe fix: the diagnostic, the file it edits, the operation and what it does."""

    diagnostic: Diagnostic
    file: str
    operations: tuple[Operation, ...]
    description: str


class Skipped(NamedTuple):
    """A fixable diagnostic whose fix is not safe here, and why."""

    diagnostic: Diagnostic
    reason: str


class FixPlan(NamedTuple):
    """What fixing one config does: the fixes, those left alone, and each changed file's text."""

    fixes: tuple[Fix, ...]
    skipped: tuple[Skipped, ...]
    texts: Mapping[str, tuple[str, str]]  # document name -> (before, after), changed files only


def fixes_for(
    loaded: LoadedConfig, diagnostics: Iterable[Diagnostic], *, line_id: str | None = None
) -> tuple[list[Fix], list[Skipped]]:
    """The safe fix of each diagnostic that has one (`line_id`: the target's release line)."""
    fixes: list[Fix] = []
    skipped: list[Skipped] = []
    for diagnostic in diagnostics:
        if diagnostic.code not in FIXABLE or diagnostic.span is None:
            continue
        document = loaded.documents.get(diagnostic.span.file)
        if document is None:
            continue
        found = _fix_one(loaded, document, diagnostic, line_id)
        if isinstance(found, Fix):
            fixes.append(found)
        elif found is not None:
            skipped.append(Skipped(diagnostic, found))
    return fixes, skipped


def plan_fixes(
    loaded: LoadedConfig, diagnostics: Sequence[Diagnostic], *, line_id: str | None = None
) -> FixPlan:
    """Every safe fix, applied together per file; a fix whose edit collides with another one
    or cannot be made safely (e.g. a comment would be lost) is left out and listed as skipped."""
    fixes, skipped = fixes_for(loaded, diagnostics, line_id=line_id)
    applied: list[Fix] = []
    texts: dict[str, tuple[str, str]] = {}
    position = {id(fix): index for index, fix in enumerate(fixes)}
    for name in dict.fromkeys(fix.file for fix in fixes):
        document = loaded.documents[name]
        kept: list[Fix] = []
        # The ignored earlier duplicates go first (LC107: removing them never changes what
        # the config means); a fix of the winning key that collides with one waits for the
        # next round, instead of moving the winner and leaving the loser to win.
        ordered = sorted((fix for fix in fixes if fix.file == name), key=_duplicates_first)
        for fix in ordered:
            try:
                _apply(document, [*kept, fix])
            except EditError as error:
                skipped.append(Skipped(fix.diagnostic, str(error)))
                continue
            kept.append(fix)
        if kept:
            after = _apply(document, kept)
            if after != document.text:
                texts[name] = (document.text, after)
            applied += sorted(kept, key=lambda fix: position[id(fix)])  # reported in file order
    return FixPlan(tuple(applied), tuple(skipped), texts)


def _duplicates_first(fix: Fix) -> bool:
    return fix.diagnostic.code != "LC107"


def _apply(document: Document, fixes: list[Fix]) -> str:
    return apply_operations(document, [op for fix in fixes for op in fix.operations])


# -- one diagnostic ---------------------------------------------------------------------------


def _fix_one(
    loaded: LoadedConfig, document: Document, diagnostic: Diagnostic, line_id: str | None
) -> Fix | str | None:
    span = diagnostic.span
    assert span is not None
    code = diagnostic.code
    if code == "LC003":
        return _fix_typo(document, diagnostic, span)
    if code == "LC012":
        return _fix_wrong_key(document, diagnostic, span, line_id)
    if code == "LC107":
        return _fix_duplicate(document, diagnostic, span)
    if code == "LC002":
        return _fix_quoted(document, diagnostic, span)
    return _fix_agent_id(loaded, document, diagnostic, span)


def _fix_typo(document: Document, diagnostic: Diagnostic, span: Span) -> Fix | str | None:
    found = _DID_YOU_MEAN.match(diagnostic.hint or "")
    if found is None:
        return None  # no single candidate: nothing to offer
    member = _member_at(document.root, span)
    if member is None:
        return "the key is not written in this file"
    parent, entry, occurrence = member
    intended = found.group(1)
    if intended in parent:
        return f'"{intended}" is written in the same block already'
    operation = Rename(_entry_path(parent, entry), intended, occurrence)
    text = f'renamed "{entry.key.name}" to "{intended}"'
    return Fix(diagnostic, document.file, (operation,), text)


def _fix_wrong_key(
    document: Document, diagnostic: Diagnostic, span: Span, line_id: str | None
) -> Fix | str | None:
    member = _member_at(document.root, span)
    if member is None:
        return None
    parent, entry, occurrence = member
    name = entry.key.name
    if line_id in ("S3", "S3beta"):
        return "the intended key is retired on the target release too"
    path = _entry_path(parent, entry)
    if name in _LC012_RENAMES:
        intended = _LC012_RENAMES[name]
        if intended in parent:
            return f'"{intended}" is written in the same block already'
        text = f'renamed "{name}" to "{intended}"'
        return Fix(diagnostic, document.file, (Rename(path, intended, occurrence),), text)
    if name not in _FLAT_DETECTORS or not parent.path or parent.path[-1] != "loopDetection":
        return None  # no single intended key (windowSize, detectorCooldownMs, ...)
    detectors = parent.get("detectors")
    value = to_python(entry.value)
    if detectors is None and document.format == "yaml":
        # Added first, then the key deleted: its comments stay before the next key, which
        # then is `detectors` when it was the only one (the round trip applies them in turn).
        operations: tuple[Operation, ...] = (
            Insert(parent.path, "detectors", {name: value}),
            Delete(path, occurrence),
        )
    elif detectors is None and len(parent.entries) == 1:  # the only member becomes the block
        operations = (
            Replace(path, {name: value}, occurrence),
            Rename(path, "detectors", occurrence),
        )
    elif detectors is None:
        # Added after the last member, or first when the key moved is the last member (the
        # edit that removes it takes the place an insertion after it would need).
        last = entry is parent.entries[-1]
        operations = (
            Delete(path, occurrence),
            Insert(parent.path, "detectors", {name: value}, first=last),
        )
    elif isinstance(detectors, ObjectNode) and name not in detectors:
        operations = (Delete(path, occurrence), Insert(detectors.path, name, value))
    else:
        return f'"detectors.{name}" is written already'
    text = f'moved "{name}" to "detectors.{name}"'
    return Fix(diagnostic, document.file, operations, text)


def _fix_duplicate(document: Document, diagnostic: Diagnostic, span: Span) -> Fix | str | None:
    member = _member_at(document.root, span)
    if member is None:
        return None
    parent, entry, occurrence = member
    if occurrence == 0:
        return None
    earlier = [e for e in parent.entries if e.key.name == entry.key.name][occurrence - 1]
    operation = Delete(_entry_path(parent, entry), occurrence - 1)
    line = earlier.key.span.line if earlier.key.span else "?"
    text = f'removed the ignored earlier "{entry.key.name}" (line {line})'
    fix = Fix(diagnostic, document.file, (operation,), text)
    try:
        from loopcfg.source import parse_text

        after = parse_text(apply_operations(document, [operation]), document.file, document.format)
    except EditError as error:
        return str(error)
    if to_python(after.root) != to_python(document.root):  # pragma: no cover - a bug guard
        return "removing it would change the loaded config"
    return fix


def _fix_quoted(document: Document, diagnostic: Diagnostic, span: Span) -> Fix | str | None:
    node = _node_at(document.root, span)
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return None
    if "${" in node.value:  # the file's own text, before substitution
        return "the value comes from ${VAR}, which always gives a string: write the value itself"
    found = _WITHOUT_QUOTES.match(diagnostic.hint or "")
    if found is None:
        return None
    written = found.group(1)
    value: object = {"true": True, "false": False}.get(written)
    if value is None:
        value = int(written)
    text = f"wrote {written} without quotes"
    return Fix(diagnostic, document.file, (Replace(node.path, value),), text)


def _fix_agent_id(
    loaded: LoadedConfig, document: Document, diagnostic: Diagnostic, span: Span
) -> Fix | str | None:
    found = _WRITE_ID.match(diagnostic.hint or "")
    node = _node_at(document.root, span)
    if found is None or not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return None
    if "${" in node.value:
        return "the id comes from ${VAR}"
    written = node.value
    references = sum(_mentions(doc.root, written) for doc in loaded.documents.values())
    if references > 1:
        return f'"{written}" is referred to elsewhere in the config; rename it by hand'
    normalised = found.group(1)
    text = f'wrote the agent id "{written}" as "{normalised}"'
    return Fix(diagnostic, document.file, (Replace(node.path, normalised),), text)


# -- finding what a span points at ------------------------------------------------------------


def _entry_path(parent: ObjectNode, entry: Entry) -> DocPath:
    return (*parent.path, entry.key.name)


def _children(node: Node) -> list[Node]:
    if isinstance(node, ObjectNode):
        return [entry.value for entry in node.entries]
    if isinstance(node, ArrayNode):
        return list(node.items)
    return []


def _member_at(root: Node, span: Span) -> tuple[ObjectNode, Entry, int] | None:
    """The object member whose key (or value) is at `span`, with its occurrence index."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ObjectNode):
            for entry in node.entries:
                if entry.key.span == span or entry.value.span == span:
                    same = [e for e in node.entries if e.key.name == entry.key.name]
                    return node, entry, [id(e) for e in same].index(id(entry))
        stack.extend(_children(node))
    return None


def _node_at(root: Node, span: Span) -> Node | None:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.span == span:
            return node
        stack.extend(_children(node))
    return None


def _mentions(root: Node, text: str) -> int:
    """How often `text` is written as a string value or an object key in a tree."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ScalarNode) and node.value == text:
            count += 1
        elif isinstance(node, ObjectNode):
            count += sum(1 for entry in node.entries if entry.key.name == text)
        stack.extend(_children(node))
    return count


# -- one config, as `loopcfg fix` runs it --------------------------------------------------------


class FixResult(NamedTuple):
    """`fix` on one config: its findings before, the plan, and the findings that remain."""

    path: str
    found: tuple[Diagnostic, ...]
    plan: FixPlan
    remaining: tuple[Diagnostic, ...]
    sources: Mapping[str, str]

    @property
    def unreadable(self) -> bool:
        return any(d.code == "LC000" for d in self.found)


def target_line(loaded: LoadedConfig, option: str | None) -> str:
    """The release line fixes are chosen for: `--openclaw`, else meta.lastTouchedVersion."""
    from loopcfg.releases import choose_target

    meta = loaded.root.get("meta") if loaded.root is not None else None
    version = meta.get("lastTouchedVersion") if isinstance(meta, ObjectNode) else None
    written = version.value if isinstance(version, ScalarNode) else None
    return choose_target(option, written).line.id


def findings(loaded: LoadedConfig, openclaw: str | None = None) -> list[Diagnostic]:
    """What `validate` reports for a loaded config and its target (suppressions honoured,
    infos left out): the same pipeline, `check.loaded_findings`."""
    from loopcfg.check import CheckOptions, loaded_findings
    from loopcfg.diagnostics import sort_diagnostics

    return sort_diagnostics(loaded_findings(loaded, CheckOptions(openclaw=openclaw)))


_ROUNDS = 5  # a fix can uncover another (a typo'd key holding a quoted number): fix again


def fix_config(
    loaded: LoadedConfig,
    *,
    select: Sequence[str] = (),
    openclaw: str | None = None,
    reload: Callable[[], LoadedConfig] | None = None,
) -> FixResult:
    """Plan the safe fixes of one loaded config; `remaining` is what they leave unfixed.

    With `reload` (loads the same config again), the fixed texts are checked again in memory
    and fixed again until nothing changes, so running `fix` twice changes nothing the second
    time; `remaining` is then what validate reports on the fixed files.
    """
    from loopcfg.source import unsaved_texts

    found = _chosen(findings(loaded, openclaw), select)
    line_id = target_line(loaded, openclaw)
    plan = plan_fixes(loaded, found[1], line_id=line_id)
    originals = {name: doc.text for name, doc in loaded.documents.items()}
    fixes, skipped, texts = list(plan.fixes), list(plan.skipped), dict(plan.texts)
    remaining = tuple(d for d in found[0] if d not in {fix.diagnostic for fix in fixes})
    for _ in range(_ROUNDS if reload is not None and texts else 0):
        assert reload is not None
        with unsaved_texts({name: after for name, (_, after) in texts.items()}):
            again = reload()
        every, chosen = _chosen(findings(again, openclaw), select)
        more = plan_fixes(again, chosen, line_id=line_id)
        remaining = tuple(d for d in every if d not in {fix.diagnostic for fix in more.fixes})
        if not more.texts:
            skipped = list(more.skipped)  # what is still there and cannot be fixed
            break
        fixes += more.fixes
        for name, (_, after) in more.texts.items():
            texts[name] = (originals[name], after)
    sources = dict(originals)
    final = FixPlan(tuple(fixes), tuple(skipped), texts)
    return FixResult(loaded.file, tuple(found[0]), final, remaining, sources)


def _chosen(
    found: list[Diagnostic], select: Sequence[str]
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(every finding, those `--select` names)."""
    from loopcfg.suppress import matches

    codes = [part for value in select for part in value.split(",")]
    return found, [d for d in found if matches(d.code, codes)] if codes else found
