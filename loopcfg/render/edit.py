"""Output of `fix` and `migrate`: diffs, one line per fix or refusal, and the summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from loopcfg.diagnostics import Diagnostic
from loopcfg.render.diagnostics import diagnostic_line, printable

if TYPE_CHECKING:
    from loopcfg.migrate import MigratePlan

__all__ = ["diagnostic_lines", "fix_line", "plural", "render_migration", "where"]


def where(diagnostic: Diagnostic) -> str:
    span = diagnostic.span
    if span is None:
        return printable(diagnostic.file)
    return f"{printable(span.file)}:{span.line}:{span.column}"


def fix_line(diagnostic: Diagnostic, verb: str, text: str) -> str:
    """`file:line:col: CODE fixed: what was done` (or `not fixed: why`)."""
    return f"{where(diagnostic)}: {diagnostic.code} {verb}: {printable(text)}"


def plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {word}{'es' if word.endswith(('x', 's')) else 's'}"


def diagnostic_lines(diagnostics: Sequence[Diagnostic]) -> list[str]:
    return [diagnostic_line(d) for d in diagnostics]


def _shown(value: object) -> str:
    import json

    if value is None:
        return "(removed)"
    return json.dumps(value, ensure_ascii=False)


def render_migration(path: str, plan: MigratePlan, output_format: str, *, written: bool) -> str:
    """The diff (unless written), doctor-style change lines, and what cannot be kept."""
    from loopcfg.edit import unified_diff
    from loopcfg.render import json_text

    target = plan.target
    if output_format == "json":
        document = {
            "version": 1,
            "file": path,
            "target": target.name,
            "line": target.line.id,
            "refused": plan.refused,
            "written": written and not plan.refused and bool(plan.texts),
            "diff": "".join(unified_diff(a, b, name) for name, (a, b) in plan.texts.items()),
            "changes": [{"path": c.path, "message": c.message} for c in plan.changes],
            "report": [
                {"path": loss.path, "was": loss.was, "now": loss.now, "reason": loss.reason}
                for loss in plan.losses
            ],
            "refusals": [
                {"code": d.code, "message": d.message, "line": d.span.line if d.span else None,
                 "file": d.file}
                for d in plan.refusals
            ],
        }  # fmt: skip
        return json_text(document) + "\n"
    lines: list[str] = []
    if plan.refused:
        lines.append(f"{printable(path)}: not migrated to OpenClaw {target.name}: fix these first")
        lines += diagnostic_lines(list(plan.refusals))
        return "\n".join(lines) + "\n"
    if not written:
        lines += [unified_diff(a, b, name).rstrip("\n") for name, (a, b) in plan.texts.items()]
    lines += [printable(change.message) for change in plan.changes]
    for loss in plan.losses:
        where = loss.path or "(whole file)"
        lines.append(
            f"cannot keep {printable(where)}: {_shown(loss.was)} → {_shown(loss.now)} "
            f"({printable(loss.reason)})"
        )
    if not plan.texts:
        lines.append(f"{printable(path)}: nothing to migrate for OpenClaw {target.name}.")
    elif written:
        lines.append(f"{printable(path)}: migrated to OpenClaw {target.name} ({target.line.id}).")
    else:
        lines.append(f"Run with --write to migrate to OpenClaw {target.name} ({target.line.id}).")
    return "\n".join(line for line in lines if line) + "\n"
