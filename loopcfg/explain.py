"""`loopcfg explain` and `docs/lints.md`, both rendered from the catalogue (no drift).

The entry shape follows ruff's rule docs: what it does, why it matters (the OpenClaw behaviour
behind it), an example that triggers it, and the fix.
"""

from __future__ import annotations

import difflib
import sys
import textwrap
from collections.abc import Mapping, Sequence

from loopcfg.catalogue import RULES, Rule

__all__ = [
    "find_rule",
    "main",
    "render_index",
    "render_lints_md",
    "render_rule",
    "suggest_codes",
]

_SEVERITY_TITLE = {"error": "Errors", "warning": "Warnings", "info": "Information"}
_SEVERITY_NOTE = {
    "error": "OpenClaw would refuse the config; `validate` exits 1 (LC000: exit 2).",
    "warning": "Valid for OpenClaw, but probably not what was meant; exit 0, or 1 with --strict.",
    "info": "Never fails; shown with --verbose.",
}


def find_rule(code: str, rules: Mapping[str, Rule] = RULES) -> Rule | None:
    """The rule of `code` (case-insensitive, `lc102` works) or of its name, or None."""
    wanted = code.strip()
    found = rules.get(wanted.upper())
    if found is None:
        found = next((r for r in rules.values() if r.name == wanted.lower()), None)
    return found


def suggest_codes(code: str, rules: Mapping[str, Rule] = RULES) -> list[str]:
    """Codes close to a mistyped one (`LC12` -> LC102, LC112...), best first."""
    wanted = code.strip().upper()
    if wanted.isdigit():
        wanted = f"LC{wanted.zfill(3)}"
    close = difflib.get_close_matches(wanted, list(rules), n=3, cutoff=0.6)
    by_name = [r.code for r in rules.values() if r.name == code.strip().lower()]
    return list(dict.fromkeys([*by_name, *close]))


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(True))


def _paragraph(text: str) -> str:
    """Prose wrapped for a terminal (examples keep their lines)."""
    return textwrap.fill(text, width=88, initial_indent="    ", subsequent_indent="    ")


def render_rule(rule: Rule) -> str:
    """The terminal text of one entry (what `loopcfg explain CODE` prints)."""
    fix = rule.fix if rule.fix.endswith("\n") else rule.fix + "\n"
    return (
        f"{rule.code} ({rule.name}) {rule.severity}: {rule.summary}\n\n"
        f"What it does\n{_paragraph(rule.what)}\n\n"
        f"Why it matters\n{_paragraph(rule.why)}\n\n"
        f"Example\n{_indent(rule.example)}\n"
        f"Fix\n{_indent(fix)}"
    )


def render_index(rules: Mapping[str, Rule] = RULES) -> str:
    """One line per code: code, severity, summary (what `loopcfg explain` alone prints)."""
    width = max((len(rule.severity) for rule in rules.values()), default=0)
    lines = [f"{r.code}  {r.severity:<{width}}  {r.summary}" for r in rules.values()]
    lines.append("")
    lines.append("Run `loopcfg explain CODE` for an entry's explanation, example and fix.")
    return "\n".join(lines) + "\n"


def _is_config(text: str) -> bool:
    return text.lstrip().startswith("{")


def _markdown_rule(rule: Rule) -> str:
    example_lang = "json5" if _is_config(rule.example) else "text"
    fix = (
        f"```json5\n{rule.fix.rstrip()}\n```\n" if _is_config(rule.fix) else f"{rule.fix.strip()}\n"
    )
    return (
        f"### {rule.code} `{rule.name}` ({rule.severity})\n\n"
        f"{rule.summary[0].upper()}{rule.summary[1:]}.\n\n"
        f"**What it does.** {rule.what}\n\n"
        f"**Why it matters.** {rule.why}\n\n"
        f"**Example.**\n\n```{example_lang}\n{rule.example.rstrip()}\n```\n\n"
        f"**Fix.**\n\n{fix}"
    )


def render_lints_md(rules: Mapping[str, Rule] = RULES) -> str:
    """The whole of `docs/lints.md` (tests compare the committed file with this text)."""
    parts = [
        "# Diagnostic codes\n\n"
        "Generated from `loopcfg/catalogue/` by `loopcfg.explain.render_lints_md()`; do not edit "
        "by hand. Regenerate with\n"
        "`.venv/bin/python -m loopcfg.explain --markdown > docs/lints.md` (a test fails when "
        "this file and the catalogue differ).\n"
        "The same text is printed by `loopcfg explain CODE`; `loopcfg explain` lists the codes.\n\n"
        "| code | name | severity | summary |\n|---|---|---|---|\n"
        + "".join(
            f"| [{r.code}](#{r.code.lower()}-{r.name}-{r.severity}) | `{r.name}` | {r.severity} "
            f"| {r.summary} |\n"
            for r in rules.values()
        )
    ]
    for severity in ("error", "warning", "info"):
        chosen = [rule for rule in rules.values() if rule.severity == severity]
        if not chosen:
            continue
        parts.append(f"## {_SEVERITY_TITLE[severity]}\n\n{_SEVERITY_NOTE[severity]}\n")
        parts.extend(_markdown_rule(rule) for rule in chosen)
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m loopcfg.explain --markdown` prints docs/lints.md; `CODE` prints one entry."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--markdown"]:
        sys.stdout.write(render_lints_md())
        return 0
    if len(args) == 1 and (rule := find_rule(args[0])) is not None:
        sys.stdout.write(render_rule(rule))
        return 0
    sys.stderr.write("usage: python -m loopcfg.explain --markdown | CODE\n")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
