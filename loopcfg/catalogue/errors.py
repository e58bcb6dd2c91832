"""Catalogue entries of the errors LC000-LC008 (OpenClaw would refuse the config)."""

from __future__ import annotations

from loopcfg.catalogue import Rule

ERROR_RULES: tuple[Rule, ...] = (
    Rule("LC000", "unreadable-file", "error", "the file cannot be read", "", "", "", ""),
    Rule("LC001", "syntax-error", "error", "syntax error in JSON5/YAML", "", "", "", ""),
    Rule("LC002", "invalid-value", "error", "wrong type or range", "", "", "", ""),
    Rule("LC003", "unknown-key", "error", "unknown key inside the block", "", "", "", ""),
    Rule("LC004", "threshold-order", "error", "threshold ordering violated in one block",
         "", "", "", ""),
    Rule("LC005", "include-error", "error", "`$include` problem", "", "", "", ""),
    Rule("LC006", "unset-variable", "error", "`${VAR}` unset or empty", "", "", "", ""),
    Rule("LC007", "malformed-agents-list", "error", "`agents.list` malformed", "", "", "", ""),
    Rule("LC008", "not-an-object", "error", "a container that must be an object is not",
         "", "", "", ""),
)
