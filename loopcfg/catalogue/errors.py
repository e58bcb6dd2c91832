"""Catalogue entries of the errors LC000-LC012 (OpenClaw would refuse the config)."""

from __future__ import annotations

from loopcfg.catalogue import Rule

ERROR_RULES: tuple[Rule, ...] = (
    Rule(
        "LC000",
        "unreadable-file",
        "error",
        "the file cannot be read",
        what=(
            "Reports a config file that cannot be read at all: it does not exist, it is a "
            "directory, it cannot be opened, or it is larger than the size limit (2 MiB by "
            "default, `--max-bytes` to change it). The command exits with status 2, as for a "
            "usage error."
        ),
        why=(
            "OpenClaw cannot start without reading its config; nothing else can be checked "
            "either, so this is the only diagnostic for that file."
        ),
        example="// loopcfg validate ./missing/openclaw.json5\n",
        fix=(
            "Name an existing, readable config file; for a very large one, raise the limit with "
            "`loopcfg validate --max-bytes N`."
        ),
    ),
    Rule(
        "LC001",
        "syntax-error",
        "error",
        "syntax error in JSON5/YAML",
        what=(
            "Reports the first syntax error in a JSON5, JSON or YAML file, at the offending "
            "character, with what was expected there. An empty file, text that is not UTF-8, "
            "binary data and nesting deeper than 200 levels are reported the same way (so is "
            "a dict passed to the library that nests deeper, or holds itself). Parsing "
            "stops there, so there is one LC001 per file. In `replay`, a session line (or store "
            "row) that is not UTF-8, not JSON or longer than `--max-line-bytes` is an LC001 "
            "too: it is skipped, and the replay goes on."
        ),
        why="OpenClaw parses its config with JSON5 and refuses to start when that fails.",
        example=(
            "{\n  tools: {\n    loopDetection: { enabled: true warningThreshold: 5 },\n  },\n}\n"
        ),
        fix="{\n  tools: {\n    loopDetection: { enabled: true, warningThreshold: 5 },\n  },\n}\n",
    ),
    Rule(
        "LC002",
        "invalid-value",
        "error",
        "wrong type or range",
        what=(
            "Reports a setting whose value has the wrong type or range: a threshold or size "
            'that is not a whole number of at least 1 (`1.5`, `0`, `-3`, `"10"`, `true`, '
            "`null`), or a switch that is not `true`/`false`, and names the block it is in (the "
            "global block or an agent's). `1.0` counts as the integer 1, as it does in JSON5 and "
            "JavaScript. A `meta.lastTouchedVersion` that is not a string is one too: loopcfg "
            "reads it to pick the target release, and OpenClaw rejects it."
        ),
        why=(
            "OpenClaw validates the block with a strict schema and refuses to start on a wrong "
            "type; a quoted number is not converted."
        ),
        example=(
            '{\n  tools: {\n    loopDetection: { enabled: true, warningThreshold: "5" },\n  },\n}\n'
        ),
        fix="{\n  tools: {\n    loopDetection: { enabled: true, warningThreshold: 5 },\n  },\n}\n",
    ),
    Rule(
        "LC003",
        "unknown-key",
        "error",
        "unknown key inside the block",
        what=(
            "Reports a key inside `tools.loopDetection` (or `detectors`, `postCompactionGuard`, "
            "or an agent's block) that OpenClaw does not know, with the closest known key as a "
            "suggestion: case and `snake_case` are ignored (`history_size` -> `historySize`) and "
            "small typos are matched (`warningThreshhold` -> `warningThreshold`)."
        ),
        why=(
            "Every object in the block is strict: OpenClaw refuses to start on an unknown key, "
            "and a misspelt key would otherwise silently keep the default."
        ),
        example="{\n  tools: {\n    loopDetection: { enabled: true, history_size: 40 },\n  },\n}\n",
        fix="{\n  tools: {\n    loopDetection: { enabled: true, historySize: 40 },\n  },\n}\n",
    ),
    Rule(
        "LC004",
        "threshold-order",
        "error",
        "threshold ordering violated in one block",
        what=(
            "Reports a block that writes both thresholds of a pair in the wrong order: "
            "`warningThreshold` must be lower than `criticalThreshold`, and `criticalThreshold` "
            "lower than `globalCircuitBreakerThreshold`. The diagnostic points at the key that "
            "must be larger, with OpenClaw's own message, and names the other as related."
        ),
        why=(
            "OpenClaw rejects such a config with `tools.loopDetection.warningThreshold must be "
            "lower than criticalThreshold.` (or the criticalThreshold message). Orders that only "
            "break after merging an agent over the global block are LC101 instead."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n"
            "      warningThreshold: 20,\n      criticalThreshold: 10,\n    },\n  },\n}\n"
        ),
        fix=(
            "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n"
            "      warningThreshold: 10,\n      criticalThreshold: 20,\n    },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC005",
        "include-error",
        "error",
        "`$include` problem",
        what=(
            "Reports an `$include` that OpenClaw would refuse: a missing file, a file that does "
            "not parse, a path that is not a string (or an array of strings), a cycle (shown as "
            "`a -> b -> a`), a path that leaves the top-level config's directory (symlinks "
            "resolved), includes nested deeper than 10 levels, a file over 2 MiB or not a "
            "regular file, and sibling keys next to `$include` when the included content is not "
            "an object. The message names the include path and the resolved path. loopcfg also "
            "refuses content that would nest the merged config deeper than 200 levels where it "
            "is included, the limit each file is held to."
        ),
        why="OpenClaw resolves every `$include` when it loads the config and refuses to start "
        "when one fails, wherever in the file it is.",
        example=(
            '{\n  tools: {\n    loopDetection: { $include: "./loop-detection.json5" },\n  },\n}\n'
        ),
        fix=(
            "Create ./loop-detection.json5 next to the config (inside its directory), or write "
            "the block inline:\n{\n  tools: {\n    loopDetection: { enabled: true },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC006",
        "unset-variable",
        "error",
        "`${VAR}` unset or empty",
        what=(
            "Reports a `${NAME}` reference (NAME in capitals, digits and `_`) in an agent id or "
            "in a string inside a block whose environment variable is unset or empty. Write "
            "`$${NAME}` for a literal `${NAME}`. `--env-file` can supply variables; the real "
            "environment wins over the file."
        ),
        why=(
            "OpenClaw substitutes variables when it loads the config and stops with `Missing env "
            'var "NAME" referenced at config path: ...` when one is unset or empty.'
        ),
        example='{\n  agents: {\n    list: [{ id: "${AGENT_ID}" }],\n  },\n}\n',
        fix="AGENT_ID=main loopcfg validate openclaw.json5   # or: --env-file .env\n",
    ),
    Rule(
        "LC007",
        "malformed-agents-list",
        "error",
        "the agent roster (`agents.list` or `agents.entries`) malformed",
        what=(
            "Reports an `agents.list` that is not an array, an entry of it that is not an "
            "object, an entry without a string `id` and a `default` marker that is not "
            "`true`/`false`. On a 2026.8.1+ target it covers `agents.entries` with OpenClaw's "
            "own messages: not an object, an entry that is not an object or that has an `id` "
            "key of its own, a key that is not a valid agent id (`Invalid key in record`), two "
            "keys that normalise to the same id, more than one `default: true`, "
            '`agents.ownership: "explicit"` with a `default: true` marker, and several agents '
            "with no marker at all (named at `agents.ownership`, as OpenClaw names it). These "
            "rules also apply to an `agents.list` that the target converts on read."
        ),
        why=(
            "OpenClaw finds an agent's override by its id in `agents.list`; it refuses a list "
            "it cannot read, and an entry without an id can never be addressed."
        ),
        example='{\n  agents: {\n    list: [{ name: "main", tools: {} }],\n  },\n}\n',
        fix='{\n  agents: {\n    list: [{ id: "main", tools: {} }],\n  },\n}\n',
    ),
    Rule(
        "LC008",
        "not-an-object",
        "error",
        "a container that must be an object is not",
        what=(
            "Reports a config whose top level is not an object, and `tools`, `agents`, "
            "`tools.loopDetection`, an agent's `tools` or an agent's `tools.loopDetection` that "
            "is present but not an object. Nothing below it is checked, so there is one "
            "diagnostic for it. In `replay`, a session line (or store row) that is JSON but "
            "not an object of the expected shape is an LC008: it is skipped."
        ),
        why="OpenClaw's schema requires these to be objects and refuses to start otherwise.",
        example="{\n  tools: {\n    loopDetection: true,\n  },\n}\n",
        fix="{\n  tools: {\n    loopDetection: { enabled: true },\n  },\n}\n",
    ),
    Rule(
        "LC009",
        "key-not-in-target-release",
        "error",
        "a key the target OpenClaw release does not accept",
        what=(
            "Reports a key of `tools.loopDetection` (or an agent's block) that the target "
            "release does not accept: retired there (the numeric knobs, `detectors` and "
            "`postCompactionGuard` left in 2026.8.1) or not yet introduced (e.g. "
            "`postCompactionGuard` before 2026.5.4). The message names the target, the key, "
            "and either the release that retired it with the built-in value that applies, or "
            "the first release that accepts it. Before 2026.2.17 the whole block is reported."
        ),
        why=(
            "Every OpenClaw schema is strict: a key the release does not know makes it refuse "
            "the config (exit 78 at start). `openclaw config validate` says only "
            '"Unrecognized key"; this says why and what applies instead.'
        ),
        example=(
            '{\n  meta: { lastTouchedVersion: "2026.9.6" },\n  tools: {\n    loopDetection: '
            "{ enabled: true, historySize: 40 },\n  },\n}\n"
        ),
        fix=(
            '{\n  meta: { lastTouchedVersion: "2026.9.6" },\n  tools: {\n    loopDetection: '
            "{ enabled: true },\n  },\n}\n"
        ),
    ),
    Rule(
        "LC010",
        "roster-of-another-release",
        "error",
        "the agent roster layout of another release",
        what=(
            "Reports `agents.entries` and `agents.ownership` on a target before 2026.8.1 "
            "(those read `agents.list`), and an `agents.list` on a 2026.8.1+ target that "
            "OpenClaw cannot convert on read: malformed, duplicate or non-normalised ids, a "
            "`default` that is not `true`/`false`, `agents.entries` present too; or that it "
            "converts and then refuses: several agents with neither a `default: true` nor "
            '`agents.ownership: "explicit"`.'
        ),
        why=(
            "OpenClaw's `agents` object is strict: the other layout is an unknown key and the "
            "config is refused."
        ),
        example=(
            '{\n  meta: { lastTouchedVersion: "2026.7.1-2" },\n  agents: {\n    entries: '
            "{ main: {} },\n  },\n}\n"
        ),
        fix=(
            '{\n  meta: { lastTouchedVersion: "2026.7.1-2" },\n  agents: {\n    list: '
            '[{ id: "main" }],\n  },\n}\n'
        ),
    ),
    Rule(
        "LC011",
        "misplaced-loop-detection",
        "error",
        "a `loopDetection` block in the wrong place",
        what=(
            "Reports a `loopDetection` block where OpenClaw never reads one: at the root, "
            "under `tool`, under `tools.<anything>` (e.g. `tools.exec`), under `agents` or "
            "`agents.defaults` (or its `tools`), an agent's own `loopDetection` outside its "
            '`tools`, and a root key with dots such as `"tools.loopDetection"` or a `tools` key '
            'such as `"loopDetection.enabled"` (OpenClaw does not expand dotted keys). The '
            "message says where the block belongs."
        ),
        why=(
            "Every release rejects these places, and `openclaw doctor --fix` deletes such a "
            "block with its `enabled: true`: the protection the user asked for is lost."
        ),
        example='{\n  "tools.loopDetection": { enabled: true },\n}\n',
        fix="{\n  tools: {\n    loopDetection: { enabled: true },\n  },\n}\n",
    ),
    Rule(
        "LC012",
        "well-known-wrong-key",
        "error",
        "a well-known wrong key, with the intended one",
        what=(
            "Reports keys that no OpenClaw release ever accepted but people write: "
            "`repeatThreshold` (from unofficial mirror docs), `detectorCooldownMs`, a flat "
            "`windowSize`, flat `genericRepeat`/`knownPollNoProgress`/`pingPong`, and "
            "`postCompactionGuard.enabled`. The message names the intended key, or says that "
            "the target has none. It takes precedence over LC009 and LC003."
        ),
        why=(
            'OpenClaw refuses them like any unknown key, and a plain "did you mean" cannot '
            "point from `repeatThreshold` to `warningThreshold`."
        ),
        example=(
            "{\n  tools: {\n    loopDetection: { enabled: true, repeatThreshold: 5 },\n  },\n}\n"
        ),
        fix="{\n  tools: {\n    loopDetection: { enabled: true, warningThreshold: 5 },\n  },\n}\n",
    ),
)
