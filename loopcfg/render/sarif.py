"""SARIF 2.1.0 output of validate, for GitHub code scanning and other SARIF viewers.

One run; the driver lists one rule per catalogue code (so `ruleIndex` is stable across runs),
with its name, short description and help from the catalogue. Each diagnostic with a position
is a result with a region in Unicode code points (`columnKind`); `endColumn` is exclusive, as
SARIF defines it and as loopcfg's spans are. A file that cannot be read at all (LC000) is not a
finding in the config but a failure to analyse it: it becomes a tool execution notification
and marks the invocation unsuccessful.

For code scanning: each result has `partialFingerprints` (code, file, config path, agent and
which occurrence of those it is; no line numbers, so a finding keeps its identity when lines
are added above it), and the run an `automationDetails.id` naming the target release, so that
runs against different OpenClaw releases are separate analyses and do not close each other's
alerts.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from loopcfg import __version__
from loopcfg.catalogue import RULES, Rule
from loopcfg.check import FileReport
from loopcfg.diagnostics import Diagnostic
from loopcfg.render import json_text
from loopcfg.source.nodes import Span

if TYPE_CHECKING:
    from loopcfg.render.diagnostics import RenderOptions

__all__ = [
    "FINGERPRINT",
    "INFORMATION_URI",
    "SARIF_SCHEMA",
    "artifact_uri",
    "automation_id",
    "fingerprint",
    "render_sarif",
    "sarif_log",
]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/loopcfg/"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(name: str) -> str:
    """A URI reference for a file name: relative paths stay relative (GitHub resolves them from
    the repository root), absolute ones become `file://` URIs; both percent-encoded."""
    path = PurePath(name)
    # A name that is not UTF-8 on disk holds surrogate escapes (`\udcff` for the byte 0xff):
    # its bytes are percent-encoded as they are, as Path.as_uri does for absolute paths.
    try:
        if path.is_absolute():
            return Path(name).as_uri()
        return quote(os.fsencode(path.as_posix()), safe="/")
    except UnicodeEncodeError:  # a surrogate no file system name can hold
        return quote(path.as_posix().encode("utf-8", "backslashreplace"), safe="/")


def _fix_markdown(fix: str) -> str:
    """The fix as Markdown: prose as it is, a config (from its first `{` or `//` line) fenced."""
    lines = fix.rstrip().splitlines()
    start = next(
        (n for n, line in enumerate(lines) if line.lstrip().startswith(("{", "//"))), len(lines)
    )
    prose = "\n".join(lines[:start]).strip()
    code = "\n".join(lines[start:])
    fenced = f"```json5\n{code}\n```" if code else ""
    return "\n\n".join(part for part in (prose, fenced) if part)


def _help_markdown(rule: Rule) -> str:
    return (
        f"{rule.what}\n\n**Why it matters:** {rule.why}\n\n"
        f"**Example**\n\n```json5\n{rule.example.rstrip()}\n```\n\n"
        f"**Fix**\n\n{_fix_markdown(rule.fix)}\n\n"
        f"`loopcfg explain {rule.code}` prints this entry."
    )


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what},
        "help": {
            "text": f"{rule.what}\n\nWhy it matters: {rule.why}\n\nFix:\n{rule.fix.rstrip()}",
            "markdown": _help_markdown(rule),
        },
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": ["openclaw", "loopDetection"]},
    }


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def _physical(file: str, span: Span | None) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(file)}}
    if span is not None:
        location["region"] = _region(span)
    return location


def _message(diagnostic: Diagnostic) -> str:
    hint = f" ({diagnostic.hint})" if diagnostic.hint else ""
    return f"{diagnostic.message}{hint}"


FINGERPRINT = "loopcfg/v1"


def fingerprint(diagnostic: Diagnostic, occurrence: int) -> str:
    """What identifies a finding across commits: not its line, which moves with every edit."""
    parts = (
        diagnostic.code,
        diagnostic.file,
        diagnostic.path or "",
        diagnostic.agent or "",
        str(occurrence),
    )
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def automation_id(target: str | None = None) -> str:
    """The run's category: `loopcfg/validate/openclaw-<release>/`, `default` for no target
    (checked as the full-settings line, 08 §8.3). GitHub keeps one analysis per category."""
    return f"loopcfg/validate/openclaw-{target or 'default'}/"


def _result(diagnostic: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "ruleIndex": index[diagnostic.code],
        "level": _LEVEL[diagnostic.severity],
        "message": {"text": _message(diagnostic)},
        "locations": [{"physicalLocation": _physical(diagnostic.file, diagnostic.span)}],
    }
    if diagnostic.related:
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": _physical(related.span.file, related.span),
                "message": {"text": related.message},
            }
            for number, related in enumerate(diagnostic.related, start=1)
        ]
    properties = {"documentPath": diagnostic.path, "agent": diagnostic.agent}
    if any(value is not None for value in properties.values()):
        result["properties"] = {k: v for k, v in properties.items() if v is not None}
    return result


def _notification(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "level": _LEVEL[diagnostic.severity],
        "message": {"text": _message(diagnostic)},
        "locations": [{"physicalLocation": _physical(diagnostic.file, diagnostic.span)}],
        "descriptor": {"id": diagnostic.code},
    }


def sarif_log(reports: Sequence[FileReport]) -> dict[str, Any]:
    """The SARIF log of all reports, as a JSON-ready value: one run per target release the
    files were checked for, each with its own `automationDetails.id`, so code scanning keeps
    the alerts of each release apart (a run for no target first)."""
    rules = list(RULES.values())
    index = {rule.code: number for number, rule in enumerate(rules)}
    by_target: dict[str | None, list[FileReport]] = {}
    for report in reports:
        by_target.setdefault(report.target, []).append(report)
    if not by_target:
        by_target[None] = []
    driver = {
        "name": "loopcfg",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [_rule(rule) for rule in rules],
    }
    order = sorted(by_target, key=lambda target: (target is not None, target or ""))
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [_run(by_target[target], target, driver, index) for target in order],
    }


def _run(
    reports: Sequence[FileReport],
    target: str | None,
    driver: dict[str, Any],
    index: dict[str, int],
) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    seen: dict[str, int] = {}  # occurrences of the same (code, file, path, agent) so far
    for report in reports:
        for diagnostic in report.diagnostics:
            if diagnostic.code == "LC000":
                notifications.append(_notification(diagnostic))
                continue
            result = _result(diagnostic, index)
            key = fingerprint(diagnostic, 0)
            occurrence = seen[key] = seen.get(key, -1) + 1
            result["partialFingerprints"] = {FINGERPRINT: fingerprint(diagnostic, occurrence)}
            results.append(result)
    invocation: dict[str, Any] = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "tool": {"driver": driver},
        "automationDetails": {"id": automation_id(target)},
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }


def render_sarif(reports: Sequence[FileReport], options: RenderOptions | None = None) -> str:
    return json_text(sarif_log(reports)) + "\n"
