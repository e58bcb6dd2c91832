"""Catalogue entries of the warnings LC101-LC109 and the information codes LC201-LC202."""

from __future__ import annotations

from loopcfg.catalogue import Rule

LINT_RULES: tuple[Rule, ...] = (
    Rule("LC101", "order-broken-after-merge", "warning",
         "threshold ordering broken only after merging an agent", "", "", "", ""),
    Rule("LC102", "unreachable-threshold", "warning",
         "threshold that can never fire", "", "", "", ""),
    Rule("LC103", "setting-without-effect", "warning",
         "setting written where it has no effect", "", "", "", ""),
    Rule("LC104", "all-detectors-off", "warning",
         "enabled with all three detectors off", "", "", "", ""),
    Rule("LC105", "guard-window-one", "warning",
         "postCompactionGuard.windowSize 1 aborts on the first call", "", "", "", ""),
    Rule("LC106", "duplicate-agent-id", "warning",
         "duplicate agent id after normalisation", "", "", "", ""),
    Rule("LC107", "duplicate-key", "warning", "duplicate key in one object", "", "", "", ""),
    Rule("LC108", "agent-id-normalised", "warning",
         "agent id that OpenClaw normalises to something else", "", "", "", ""),
    Rule("LC109", "unused-suppression", "warning",
         "inline suppression that suppressed nothing", "", "", "", ""),
    Rule("LC201", "enabled-false-disables-guard", "info",
         "explicit enabled: false also turns off the post-compaction guard", "", "", "", ""),
    Rule("LC202", "redundant-override", "info",
         "agent override equal to what it inherits", "", "", "", ""),
)
