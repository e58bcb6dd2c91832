"""Catalogue entries of the warnings LC101-LC112 and the information codes LC201-LC203.

Each example is a whole config (JSON5) that triggers its code through the real pipeline, and
each fix that is a config is clean of it (tests/config/test_catalogue.py runs both).
"""

from __future__ import annotations

from loopcfg.catalogue import Rule

LINT_RULES: tuple[Rule, ...] = (
    Rule(
        "LC101",
        "order-broken-after-merge",
        "warning",
        "threshold ordering broken only after merging an agent",
        what=(
            "Reports a threshold ordering (warningThreshold < criticalThreshold < "
            "globalCircuitBreakerThreshold) that no single block breaks, but the merged result "
            "does: an agent's value over an inherited one, or a written value over a default. "
            "The message names both values, where each comes from, and what the runtime will "
            "use instead."
        ),
        why=(
            "OpenClaw refuses a block that breaks the ordering itself (LC004), but it does not "
            "check the merged result. At run time it silently raises criticalThreshold to "
            "warningThreshold + 1, then globalCircuitBreakerThreshold to criticalThreshold + 1, "
            "so the agent runs with thresholds nobody wrote."
        ),
        example=(
            "{\n  tools: { loopDetection: { enabled: true } },\n  agents: {\n    list: [\n"
            '      { id: "safe-runner", tools: { loopDetection: { warningThreshold: 25 } } },\n'
            "    ],\n  },\n}\n"
        ),
        fix=(
            "{\n  tools: { loopDetection: { enabled: true } },\n  agents: {\n    list: [\n"
            '      {\n        id: "safe-runner",\n'
            "        tools: { loopDetection: { warningThreshold: 25, criticalThreshold: 28 } },\n"
            "      },\n    ],\n  },\n}\n"
        ),
    ),
    Rule(
        "LC102",
        "unreachable-threshold",
        "warning",
        "threshold that can never fire",
        what=(
            "Reports a threshold larger than any count the detectors can reach, judged on the "
            "effective values: globalCircuitBreakerThreshold or unknownToolThreshold above "
            "historySize, or warningThreshold / criticalThreshold above historySize (above "
            "historySize + 1 while the pingPong detector is on)."
        ),
        why=(
            "The detectors count within the last historySize tool calls, so no streak can be "
            "longer than the history kept; only a ping-pong count includes the current call on "
            "top. Such a threshold silently never warns or blocks."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: { enabled: true, historySize: 15 },\n  },\n}\n"
        ),
        fix=("{\n  tools: {\n    loopDetection: { enabled: true, historySize: 40 },\n  },\n}\n"),
    ),
    Rule(
        "LC103",
        "setting-without-effect",
        "warning",
        "setting written where it has no effect",
        what=(
            "Reports historySize, a threshold or a detectors.* switch written where the rolling "
            "detectors are inactive (enabled is not true after the merge) for that block and "
            "every agent that inherits the value; and postCompactionGuard.windowSize written "
            "where the guard is off (enabled explicitly false)."
        ),
        why=(
            "The rolling detectors run only when enabled is explicitly true; unset counts as "
            "false. Tuning them without enabling them is the most common reason a user "
            "believes loop protection is on when it is not."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: { warningThreshold: 5, criticalThreshold: 8 },\n"
            "  },\n}\n"
        ),
        fix=(
            "{\n  tools: {\n    loopDetection: { enabled: true, warningThreshold: 5, "
            "criticalThreshold: 8 },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC104",
        "all-detectors-off",
        "warning",
        "enabled with all three detectors off",
        what=(
            "Reports a block (or an agent's merged result) with enabled: true whose three "
            "detectors genericRepeat, knownPollNoProgress and pingPong are all false."
        ),
        why=(
            "With every detector off, only the unknown-tool breaker and the global circuit "
            "breaker remain: repeated identical calls and ping-pong loops are never warned "
            "about, although the config says loop detection is enabled."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n      detectors: "
            "{ genericRepeat: false, knownPollNoProgress: false, pingPong: false },\n    },\n"
            "  },\n}\n"
        ),
        fix=(
            "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n      detectors: "
            "{ knownPollNoProgress: false, pingPong: false },\n    },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC105",
        "guard-window-one",
        "warning",
        "postCompactionGuard.windowSize 1 aborts on the first call",
        what=(
            "Reports postCompactionGuard.windowSize: 1 where the guard is active (enabled not "
            "explicitly false)."
        ),
        why=(
            "After a compaction retry the guard watches windowSize calls and aborts the run when "
            "windowSize identical (tool, args, result) triples are seen. With 1, the very first "
            "tool call after every compaction is such a triple: every compacted run is aborted."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: { postCompactionGuard: { windowSize: 1 } },\n"
            "  },\n}\n"
        ),
        fix=(
            "{\n  tools: {\n    loopDetection: { postCompactionGuard: { windowSize: 3 } },\n"
            "  },\n}\n"
        ),
    ),
    Rule(
        "LC106",
        "duplicate-agent-id",
        "warning",
        "duplicate agent id after normalisation",
        what=(
            "Reports an entry of agents.list whose id, after OpenClaw's normalisation (trim, "
            "lower-case, runs of other characters become '-'), equals an earlier entry's id. "
            "It points at the later id, with the first as a related location."
        ),
        why=(
            "OpenClaw uses the first matching entry and ignores the later ones entirely, so "
            "the later entry's settings never apply to anything."
        ),
        example=(
            '{\n  agents: {\n    list: [\n      { id: "main" },\n      { id: "Main", tools: '
            "{ loopDetection: { enabled: true } } },\n    ],\n  },\n}\n"
        ),
        fix=(
            '{\n  agents: {\n    list: [\n      { id: "main", tools: { loopDetection: '
            "{ enabled: true } } },\n    ],\n  },\n}\n"
        ),
    ),
    Rule(
        "LC107",
        "duplicate-key",
        "warning",
        "duplicate key in one object",
        what=(
            "Reports a key written twice in one object, anywhere in every file read (includes "
            "too). It points at the later key, with the first as a related location."
        ),
        why=(
            "JSON5 (and OpenClaw) keeps the last value silently; the earlier one looks "
            "effective to a reader but is ignored."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n      warningThreshold: 5,"
            "\n      warningThreshold: 8,\n    },\n  },\n}\n"
        ),
        fix=(
            "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n      warningThreshold: 8,"
            "\n    },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC108",
        "agent-id-normalised",
        "warning",
        "agent id that OpenClaw normalises to something else",
        what=(
            "Reports an agent id that OpenClaw's normalisation changes: surrounding spaces, "
            'upper case, or characters outside [a-z0-9_-] ("Safe Runner" -> safe-runner). The '
            "hint gives the normalised id."
        ),
        why=(
            "OpenClaw addresses the agent by its normalised id in session keys, folders and "
            "--agent; writing it differently makes logs, folders and the config disagree."
        ),
        example=(
            '{\n  agents: {\n    list: [{ id: "Safe Runner", tools: { loopDetection: '
            "{ enabled: true } } }],\n  },\n}\n"
        ),
        fix=(
            '{\n  agents: {\n    list: [{ id: "safe-runner", tools: { loopDetection: '
            "{ enabled: true } } }],\n  },\n}\n"
        ),
    ),
    Rule(
        "LC109",
        "unused-suppression",
        "warning",
        "inline suppression that suppressed nothing",
        what=(
            "Reports a `loopcfg: ignore[...]` comment (// or /* */ in JSON5, # in YAML) that "
            "suppressed nothing on its own line or the line below, naming the unused codes. A "
            "suppression of an error code (LC0xx) is always unused: errors cannot be "
            "suppressed."
        ),
        why=(
            "A stale suppression hides the next real problem at that place; removing it keeps "
            "the config honest (ruff reports unused noqa comments the same way)."
        ),
        example=(
            "{\n  tools: {\n    // loopcfg: ignore[LC102]\n    loopDetection: { enabled: true },"
            "\n  },\n}\n"
        ),
        fix="{\n  tools: {\n    loopDetection: { enabled: true },\n  },\n}\n",
    ),
    Rule(
        "LC110",
        "target-release-unknown",
        "warning",
        "no known target release, and keys the newest release rejects",
        what=(
            "Warns once per file when no target release is given (`--openclaw`, "
            "`meta.lastTouchedVersion`) or the given one is not in loopcfg's table, and the "
            "config writes keys that the newest known release rejects: the knobs retired in "
            "2026.8.1, in the global block or any agent's, and `agents.list` where the newest "
            "release expects `agents.entries`. The config is checked as the full-knob line "
            "(2026.5.4 - 2026.7.x); the warning points at the first such key and lists the "
            "others as related locations."
        ),
        why=(
            "The same file is valid for 2026.7.x and refused by 2026.9.6 (exit 78): without "
            "knowing the release, loopcfg cannot say which one the user runs."
        ),
        example="{\n  tools: {\n    loopDetection: { enabled: true, historySize: 40 },\n  },\n}\n",
        fix=(
            '{\n  meta: { lastTouchedVersion: "2026.7.1-2" },\n  tools: {\n    loopDetection: '
            "{ enabled: true, historySize: 40 },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC111",
        "agents-list-converted",
        "warning",
        "`agents.list` that a 2026.8.1+ release converts on read",
        what=(
            "Warns about an `agents.list` on a 2026.8.1+ target (from 2026.7.2-beta.7) that "
            "OpenClaw converts to `agents.entries` when it reads the config: well-formed, "
            "normalised, unique ids, and one agent, one `default: true` or "
            '`agents.ownership: "explicit"`. Its blocks are checked with the target\'s keys.'
        ),
        why=(
            'The config is valid, but OpenClaw warns "Moved agents.list to keyed '
            'agents.entries." on every read, and `openclaw doctor --fix` rewrites the file.'
        ),
        example=(
            '{\n  meta: { lastTouchedVersion: "2026.9.6" },\n  agents: {\n    list: '
            '[{ id: "main" }],\n  },\n}\n'
        ),
        fix=(
            '{\n  meta: { lastTouchedVersion: "2026.9.6" },\n  agents: {\n    entries: '
            "{ main: {} },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC112",
        "missing-env-var-warning",
        "warning",
        "`${VAR}` unset or empty where the target release only warns",
        what=(
            "Reports an unset or empty `${VAR}` in the parts loopcfg reads, on a target release "
            "that accepts the config anyway and only warns (2026.7.1-2 and later of the "
            'full-knob line). The message is OpenClaw\'s: `<path>: Missing env var "NAME" - '
            "feature using this value will be unavailable`. Where the target refuses the "
            "config, the same finding is the error LC006."
        ),
        why=(
            "The value is missing at run time: the feature that reads it does not work, "
            "though OpenClaw starts."
        ),
        example=(
            '{\n  meta: { lastTouchedVersion: "2026.7.1-2" },\n  agents: {\n    list: '
            '[{ id: "${AGENT_ID}" }],\n  },\n}\n'
        ),
        fix="Set the variable in the environment, or pass a file with it: `--env-file FILE`.",
    ),
    Rule(
        "LC201",
        "enabled-false-disables-guard",
        "info",
        "explicit enabled: false also turns off the post-compaction guard",
        what=(
            "Notes an explicit enabled: false (in the global block or an agent's merge). Shown "
            "with --verbose."
        ),
        why=(
            "enabled is tri-state: unset leaves the rolling detectors off but keeps the "
            "post-compaction guard on; false turns both off. Users who write false to be "
            "explicit usually lose the guard without meaning to."
        ),
        example="{\n  tools: {\n    loopDetection: { enabled: false },\n  },\n}\n",
        fix="{\n  tools: {\n    loopDetection: {},\n  },\n}\n",
    ),
    Rule(
        "LC202",
        "redundant-override",
        "info",
        "agent override equal to what it inherits",
        what=(
            "Notes a setting in an agent's block whose value equals what the agent would "
            "inherit anyway (the global block's value, or the default). Shown with --verbose."
        ),
        why=(
            "A redundant override does nothing today but pins the value: a later change of the "
            "global block no longer reaches that agent, which is rarely intended."
        ),
        example=(
            "{\n  tools: { loopDetection: { enabled: true, historySize: 40 } },\n  agents: {\n"
            '    list: [{ id: "main", tools: { loopDetection: { historySize: 40 } } }],\n'
            "  },\n}\n"
        ),
        fix=(
            "{\n  tools: { loopDetection: { enabled: true, historySize: 40 } },\n  agents: {\n"
            '    list: [{ id: "main" }],\n  },\n}\n'
        ),
    ),
    Rule(
        "LC203",
        "target-release",
        "info",
        "the target release, where it came from and its line",
        what=(
            "Says which OpenClaw release the config is checked for, where that came from "
            "(`--openclaw`, `meta.lastTouchedVersion`, or none) and its release line. Shown "
            "with --verbose."
        ),
        why=(
            "What a config may contain depends on the release; a surprising finding is often "
            "explained by a target the user did not expect (an old `meta.lastTouchedVersion`)."
        ),
        example='{\n  meta: { lastTouchedVersion: "2026.9.6" },\n}\n',
        fix="Nothing to fix; name another release with `--openclaw VERSION` to check for it.",
    ),
)
