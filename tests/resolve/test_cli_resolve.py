"""`loopcfg resolve` end to end: every output format, the global view, --all, unknown agents,
refusals and exit codes, compared with golden files under tests/golden/resolve/.

Each case runs inside its directory of tests/resolve/cases/ with `--config` naming the file, so
the positions in the goldens read `openclaw.json5:5:7` wherever the repository lives. A golden
holds the command, the exit code, stderr and stdout.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import json5
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from loopcfg.cli import cli
from loopcfg.keys import SETTINGS
from tests.golden import assert_golden

CASES = Path(__file__).resolve().parent / "cases"


def run_in(case: str, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run `loopcfg resolve ARGS` inside tests/resolve/cases/CASE: (exit code, stdout, stderr)."""
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(CASES / case)
        patch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
        result = runner.invoke(cli, ["resolve", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def transcript(args: tuple[str, ...], code: int, stdout: str, stderr: str) -> str:
    return (
        f"$ loopcfg resolve {shlex.join(args)}\n[exit {code}]\n"
        f"--- stderr\n{stderr}--- stdout\n{stdout}"
    )


# (golden name, case directory, arguments, exit code)
GOLDEN_RUNS: list[tuple[str, str, tuple[str, ...], int]] = [
    ("agent-json5", "agents", ("--config", "openclaw.json5", "--agent", "safe-runner"), 0),
    (
        "agent-json",
        "agents",
        ("--config", "openclaw.json5", "--agent", "safe-runner", "--format", "json"),
        0,
    ),
    (
        "agent-yaml",
        "agents",
        ("--config", "openclaw.json5", "--agent", "safe-runner", "--format", "yaml"),
        0,
    ),
    (
        "agent-explain",
        "agents",
        ("--config", "openclaw.json5", "--agent", "safe-runner", "--explain"),
        0,
    ),
    ("normalised-id", "agents", ("--config", "openclaw.json5", "--agent", " OPS team "), 0),
    ("all-json5", "agents", ("--config", "openclaw.json5", "--all"), 0),
    ("all-json", "agents", ("--config", "openclaw.json5", "--all", "--format", "json"), 0),
    ("all-yaml", "agents", ("--config", "openclaw.json5", "--all", "--format", "yaml"), 0),
    ("all-explain", "disabled", ("--config", "openclaw.json5", "--all", "--explain"), 0),
    ("all-no-agents", "no-agents", ("--config", "openclaw.json5", "--all"), 0),
    (
        "all-no-agents-json",
        "no-agents",
        ("--config", "openclaw.json5", "--all", "--format", "json"),
        0,
    ),
    ("global-json5", "agents", ("--config", "openclaw.json5"), 0),
    ("global-json", "agents", ("--config", "openclaw.json5", "--format", "json"), 0),
    ("unknown-agent", "agents", ("--config", "openclaw.json5", "--agent", "saferunner"), 0),
    (
        "unknown-agent-strict-json",
        "agents",
        ("--config", "openclaw.json5", "--agent", "saferunner", "--strict", "--format", "json"),
        1,
    ),
    ("adjusted-json5", "adjusted", ("--config", "openclaw.json5", "--agent", "eager"), 0),
    (
        "adjusted-json",
        "adjusted",
        ("--config", "openclaw.json5", "--agent", "eager", "--format", "json"),
        0,
    ),
    (
        "adjusted-explain",
        "adjusted",
        ("--config", "openclaw.json5", "--agent", "eager", "--explain"),
        0,
    ),
    ("unset-json5", "unset", ("--config", "openclaw.json5", "--agent", "main"), 0),
    ("unset-yaml", "unset", ("--config", "openclaw.json5", "--format", "yaml"), 0),
    ("unset-explain", "unset", ("--config", "openclaw.json5", "--explain"), 0),
    ("disabled-json5", "disabled", ("--config", "openclaw.json5", "--agent", "main"), 0),
    (
        "disabled-agent-on-json",
        "disabled",
        ("--config", "openclaw.json5", "--agent", "night", "--format", "json"),
        0,
    ),
    ("yaml-input-json5", "yaml", ("--config", "openclaw.yaml", "--agent", "builder"), 0),
    # Per target release (08 §8.1 merge S3): agents.entries, {enabled} merge, builtin knobs.
    ("entries-explain", "entries", ("openclaw.json5", "--agent", "replay-bot", "--explain"), 0),
    ("entries-all-json", "entries", ("openclaw.json5", "--all", "--format", "json"), 0),
    ("entries-inherits-json5", "entries", ("openclaw.json5", "--agent", "main"), 0),
    (
        "entries-refused-for-2026.7",
        "entries",
        ("openclaw.json5", "--openclaw", "2026.7.1-2", "--agent", "main"),
        1,
    ),
    (
        "knobs-refused-for-2026.9.6",
        "agents",
        ("--config", "openclaw.json5", "--openclaw", "2026.9.6", "--agent", "safe-runner"),
        1,
    ),
    (
        "verbose-target",
        "entries",
        ("openclaw.json5", "--verbose", "--agent", "main", "--format", "json"),
        0,
    ),
    (
        "yaml-input-yaml",
        "yaml",
        ("--config", "openclaw.yaml", "--agent", "builder", "--format", "yaml"),
        0,
    ),
    (
        "include-explain",
        "include",
        ("--config", "openclaw.json5", "--agent", "builder", "--explain"),
        0,
    ),
    ("invalid", "invalid", ("--config", "openclaw.json5", "--agent", "a"), 1),
    ("invalid-json", "invalid", ("--config", "openclaw.json5", "--format", "json"), 1),
    ("unreadable", "agents", ("--config", "missing.json5"), 2),
]


@pytest.mark.parametrize(
    ("name", "case", "args", "code"), GOLDEN_RUNS, ids=[run[0] for run in GOLDEN_RUNS]
)
def test_resolve_golden(name: str, case: str, args: tuple[str, ...], code: int) -> None:
    got, stdout, stderr = run_in(case, *args)
    assert got == code, stderr
    assert_golden(f"resolve/{name}.txt", transcript(args, got, stdout, stderr))


# -- properties of the outputs that the goldens show, asserted directly --


def _json(case: str, *args: str) -> dict[str, object]:
    code, stdout, _ = run_in(case, "--config", "openclaw.json5", "--format", "json", *args)
    assert code == 0
    result: dict[str, object] = json.loads(stdout)
    return result


def test_json_shape_is_02_section_2_5() -> None:
    document = _json("agents", "--agent", "safe-runner")
    assert list(document) == [
        "version",
        "agent",
        "found",
        "effective",
        "detectorsActive",
        "postCompactionGuardActive",
        "sources",
        "adjustments",
        "target",  # README Decision 10: null when no target release was given
    ]
    assert document["target"] is None
    assert (document["version"], document["agent"], document["found"]) == (1, "safe-runner", True)
    effective = document["effective"]
    assert isinstance(effective, dict)
    assert list(effective) == [
        "enabled",
        "historySize",
        "warningThreshold",
        "criticalThreshold",
        "unknownToolThreshold",
        "globalCircuitBreakerThreshold",
        "detectors",
        "postCompactionGuard",
    ]
    assert list(effective["detectors"]) == ["genericRepeat", "knownPollNoProgress", "pingPong"]
    assert list(effective["postCompactionGuard"]) == ["windowSize"]
    sources = document["sources"]
    assert isinstance(sources, dict)
    assert list(sources) == [setting.name for setting in SETTINGS]
    for source in sources.values():
        assert list(source) == ["from", "file", "line", "column"]
        assert source["from"] in ("default", "global", "agent", "adjusted")
        if source["from"] == "default":
            assert (source["file"], source["line"], source["column"]) == (None, None, None)
        else:
            assert source["file"] == "openclaw.json5" and source["line"] and source["column"]
    assert sources["warningThreshold"] == {
        "from": "agent",
        "file": "openclaw.json5",
        "line": 17,
        "column": 13,
    }
    assert sources["detectors.pingPong"]["from"] == "global"


def test_global_view_has_null_agent_and_found() -> None:
    document = _json("agents")
    assert (document["agent"], document["found"]) == (None, None)
    assert document["effective"]["warningThreshold"] == 8  # type: ignore[index]


def test_all_is_one_object_with_every_agent_once_in_order() -> None:
    document = _json("agents", "--all")
    assert list(document) == ["version", "target", "agents"] and document["version"] == 1
    agents = document["agents"]
    assert isinstance(agents, list)
    # "SAFE-RUNNER" repeats safe-runner: OpenClaw ignores it, so --all shows the first only.
    assert [a["agent"] for a in agents] == ["safe-runner", "ops-team", "researcher"]
    assert all(a["found"] is True and a["version"] == 1 for a in agents)
    assert agents[0]["effective"]["enabled"] is True


@pytest.mark.parametrize(
    ("case", "agent", "enabled", "detectors", "guard"),
    [
        ("unset", "main", None, False, True),
        ("disabled", "main", False, False, False),
        ("disabled", "night", True, True, True),
    ],
)
def test_tri_state_enabled_in_json(
    case: str, agent: str, enabled: bool | None, detectors: bool, guard: bool
) -> None:
    document = _json(case, "--agent", agent)
    assert document["effective"]["enabled"] is enabled  # type: ignore[index]
    assert document["detectorsActive"] is detectors
    assert document["postCompactionGuardActive"] is guard


@pytest.mark.parametrize(
    ("case", "agent", "detectors", "guard"),
    [
        (
            "unset",
            "main",
            "rolling detectors: inactive (enabled is not set; only enabled: true turns them on)",
            "post-compaction guard: active (enabled is not set; only enabled: false turns it off)",
        ),
        (
            "disabled",
            "main",
            "rolling detectors: inactive (enabled: false, global openclaw.json5:3:29)",
            "post-compaction guard: inactive (enabled: false turns it off too, "
            "global openclaw.json5:3:29)",
        ),
        (
            "disabled",
            "night",
            "rolling detectors: active (enabled: true, agent openclaw.json5:7:48)",
            "post-compaction guard: active (enabled: true, agent openclaw.json5:7:48)",
        ),
    ],
)
@pytest.mark.parametrize(("fmt", "prefix"), [("json5", "// "), ("yaml", "# "), ("explain", "")])
def test_every_text_format_states_both_switches_and_why(
    case: str, agent: str, detectors: str, guard: str, fmt: str, prefix: str
) -> None:
    args = ["--explain"] if fmt == "explain" else ["--format", fmt]
    code, stdout, _ = run_in(case, "--config", "openclaw.json5", "--agent", agent, *args)
    assert code == 0
    lines = stdout.splitlines()
    assert prefix + detectors in lines
    assert prefix + guard in lines


@pytest.mark.parametrize(
    ("case", "config", "agent"),
    [
        ("agents", "openclaw.json5", "safe-runner"),
        ("adjusted", "openclaw.json5", "eager"),
        ("unset", "openclaw.json5", None),
        ("yaml", "openclaw.yaml", "builder"),
    ],
)
def test_json5_and_yaml_outputs_parse_back_to_the_effective_block(
    case: str, config: str, agent: str | None
) -> None:
    chosen = ("--agent", agent) if agent else ()
    code, as_json, _ = run_in(case, "--config", config, "--format", "json", *chosen)
    assert code == 0
    effective = json.loads(as_json)["effective"]
    written = {k: v for k, v in effective.items() if v is not None}  # unset enabled: no key
    _, as_json5, _ = run_in(case, "--config", config, *chosen)
    _, as_yaml, _ = run_in(case, "--config", config, "--format", "yaml", *chosen)
    assert json5.loads(as_json5) == written
    assert YAML(typ="safe").load(as_yaml) == written


def test_unknown_agent_names_close_ids_and_strict_fails() -> None:
    code, stdout, stderr = run_in("agents", "--config", "openclaw.json5", "--agent", "Safe_Runner")
    assert code == 0
    assert stderr == (
        'openclaw.json5: agent "Safe_Runner" (normalised: "safe_runner") is not in agents.list; '
        "showing the global block alone (did you mean safe-runner?)\n"
    )
    assert stdout.startswith('// agent "safe_runner": not in agents.list')
    strict = run_in("agents", "--config", "openclaw.json5", "--agent", "Safe_Runner", "--strict")
    assert strict[0] == 1 and strict[1] == stdout and strict[2] == stderr


def test_first_matching_entry_wins_over_a_later_duplicate() -> None:
    document = _json("agents", "--agent", "SAFE-RUNNER")
    # agents.list[3] ("SAFE-RUNNER", enabled: false) is ignored: the first entry is the agent.
    assert document["agent"] == "safe-runner"
    assert document["effective"]["enabled"] is True  # type: ignore[index]
    assert document["sources"]["warningThreshold"]["line"] == 17  # type: ignore[index]


def test_invalid_config_prints_validate_lines_only() -> None:
    code, stdout, stderr = run_in("invalid", "--config", "openclaw.json5", "--format", "json")
    assert (code, stdout) == (1, "")
    lines = stderr.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["openclaw.json5:3:22:", "LC003"],
        ["openclaw.json5:3:57:", "LC002"],
        ["openclaw.json5:5:66:", "LC002"],
    ]


def test_stdin_config_with_a_name() -> None:
    code, stdout, stderr = run_in(
        "agents",
        "--config",
        "-",
        "--stdin-filename",
        "piped.json5",
        "--format",
        "json",
        stdin="{tools: {loopDetection: {enabled: false}}}",
    )
    assert (code, stderr) == (0, "")
    document = json.loads(stdout)
    assert document["sources"]["enabled"]["file"] == "piped.json5"
    assert document["postCompactionGuardActive"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--all", "--agent", "x"), "--agent and --all exclude each other"),
        (("--explain", "--format", "json"), "--explain prints a table"),
        (("--format", "toml"), "Invalid value for '--format'"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    code, stdout, stderr = run_in("agents", "--config", "openclaw.json5", *args)
    assert code == 2 and stdout == ""
    assert message in stderr and "Traceback" not in stderr
