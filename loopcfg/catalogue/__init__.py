"""The diagnostic catalogue: every code's severity and documentation, as data.

`loopcfg explain`, the SARIF rules and `docs/lints.md` are all generated from these entries,
so code, CLI help and docs cannot drift (the ruff pattern: one rule, one documented entry).
"""

from __future__ import annotations

from typing import NamedTuple

from loopcfg.diagnostics import Severity


class Rule(NamedTuple):
    code: str
    name: str  # kebab-case, stable: SARIF rule name
    severity: Severity
    summary: str  # one line: what it reports
    what: str  # What it does
    why: str  # Why it matters: the OpenClaw behaviour behind it
    example: str  # a config (JSON5) that triggers it
    fix: str  # Use instead: the fixed config or the action to take


def _collect() -> dict[str, Rule]:
    from loopcfg.catalogue.errors import ERROR_RULES
    from loopcfg.catalogue.lints import LINT_RULES

    rules = {rule.code: rule for rule in (*ERROR_RULES, *LINT_RULES)}
    return dict(sorted(rules.items()))


RULES: dict[str, Rule] = _collect()


def rule(code: str) -> Rule:
    return RULES[code]


def severity_of(code: str) -> Severity:
    return RULES[code].severity
