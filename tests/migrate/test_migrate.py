"""`loopcfg migrate` (08 §8.5): goldens of the CLI, the rules per direction, refusals, and
properties on generated configs (idempotent, comments kept, only accepted keys left)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import cli as cli_module
from loopcfg.config import load_config
from loopcfg.fix import findings
from loopcfg.migrate import RETIRED_PATHS, plan_migration
from loopcfg.releases import line_settings, release_info
from loopcfg.source import parse_text
from loopcfg.source.nodes import to_python
from tests.golden import assert_golden

CASES = Path(__file__).parent / "cases"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openclaw.json5"
CLEAN_ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None}


def _run(folder: Path, *args: str) -> tuple[int, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        result = CliRunner().invoke(cli_module.cli, ["migrate", *args], env=CLEAN_ENV)
    return result.exit_code, result.output


@pytest.fixture()
def cases(tmp_path: Path) -> Path:
    shutil.copytree(CASES, tmp_path / "cases")
    shutil.copy(EXAMPLE, tmp_path / "cases" / "openclaw.json5")
    return tmp_path / "cases"


GOLDEN_RUNS = [
    ("openclaw.json5", "2026.9.6", "text", 0),
    ("openclaw.json5", "2026.9.6", "json", 0),
    ("openclaw.json5", "2026.4.12", "text", 0),
    ("openclaw.json5", "2026.1.1", "text", 0),
    ("roster.json5", "2026.9.6", "text", 0),
    ("roster.json5", "2026.8.1-beta.1", "text", 0),
    ("config.yaml", "latest", "text", 0),
    ("typo.json5", "2026.9.6", "text", 1),
    ("both.json5", "2026.9.6", "json", 1),
]


@pytest.mark.parametrize(("name", "version", "fmt", "exit_code"), GOLDEN_RUNS)
def test_migrate_golden(cases: Path, name: str, version: str, fmt: str, exit_code: int) -> None:
    before = {p.name: p.read_bytes() for p in cases.iterdir()}
    code, output = _run(cases, name, "--openclaw", version, "--format", fmt)
    assert code == exit_code, output
    assert_golden(f"migrate/{name}.{version}.{fmt}", output)
    assert {p.name: p.read_bytes() for p in cases.iterdir()} == before  # nothing written


def _blocks(value: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    block = value.get("tools", {}).get("loopDetection")
    if isinstance(block, dict):
        found.append(block)
    agents = value.get("agents", {})
    members = list(agents.get("entries", {}).values()) + list(agents.get("list", []))
    for agent in members:
        block = agent.get("tools", {}).get("loopDetection") if isinstance(agent, dict) else None
        if isinstance(block, dict):
            found.append(block)
    return found


def _keys(block: dict[str, Any]) -> set[str]:
    keys = set()
    for key, value in block.items():
        if isinstance(value, dict):
            keys |= {f"{key}.{leaf}" for leaf in value}
        else:
            keys.add(key)
    return keys


@pytest.mark.parametrize("version", ["2026.9.6", "2026.8.1", "2026.7.2-beta.5"])
def test_written_result_has_only_what_the_target_accepts(cases: Path, version: str) -> None:
    code, _ = _run(cases, "roster.json5", "--openclaw", version, "--write")
    assert code == 0
    text = (cases / "roster.json5").read_text(encoding="utf-8")
    value = to_python(parse_text(text, "roster.json5").root)
    assert isinstance(value, dict)
    accepted = line_settings("S3")
    for block in _blocks(value):
        assert _keys(block) <= accepted
    agents = value["agents"]
    assert "list" not in agents
    assert list(agents["entries"]) == ["main", "main-2", "ops-team"]
    assert agents["entries"]["ops-team"] == {"tools": {"loopDetection": {"enabled": False}}}
    assert agents["defaults"] == {"workspace": "~/work"}  # not loop-related: untouched
    assert value["meta"]["lastTouchedVersion"] == release_info(version).name  # type: ignore[union-attr]
    assert ("ownership" in agents) == (version != "2026.7.2-beta.5")  # 2026.8.1 introduced it
    loaded = load_config(str(cases / "roster.json5"))
    assert not [d for d in findings(loaded, version) if d.code.startswith("LC0")]
    for comment in ("// only the switch survives", "// the first main", "// Doctor's hard case"):
        assert comment in text
    # Idempotent: a second run has nothing to do.
    code, output = _run(cases, "roster.json5", "--openclaw", version)
    assert code == 0 and "nothing to migrate" in output


def test_both_directions_give_back_the_roster(cases: Path) -> None:
    _run(cases, "openclaw.json5", "--openclaw", "2026.9.6", "--write")
    _run(cases, "openclaw.json5", "--openclaw", "2026.7.1-2", "--write")
    value = to_python(parse_text((cases / "openclaw.json5").read_text("utf-8"), "x").root)
    assert value["agents"] == {  # type: ignore[index]
        "list": [{"id": "main", "default": True}, {"id": "safe-runner"}, {"id": "researcher"}]
    }
    loaded = load_config(str(cases / "openclaw.json5"))
    assert not [d for d in findings(loaded, "2026.7.1-2") if d.severity == "error"]


BACK_TO_LIST = """{
  meta: { lastTouchedVersion: "2026.9.6" },
  agents: {
    entries: {
      main: { // the default agent
        // why main is off
        tools: { loopDetection: { enabled: false } },
      },
      quiet: {
        /* no comment
           between */ tools: { loopDetection: { enabled: true } },
      },
    },
  },
}
"""


def test_an_id_goes_above_the_comments_written_for_the_first_member(tmp_path: Path) -> None:
    # A comment above a member is about that member: the inserted `id` must not come between
    # them. Where a block comment shares the first member's line, `id` goes on that line.
    (tmp_path / "openclaw.json5").write_text(BACK_TO_LIST, "utf-8")
    code, _output = _run(tmp_path, "openclaw.json5", "--openclaw", "2026.7.1-2", "--write")
    assert code == 0
    text = (tmp_path / "openclaw.json5").read_text("utf-8")
    assert (
        '      { // the default agent\n        id: "main",\n        // why main is off\n'
        "        tools: { loopDetection: { enabled: false } },\n"
    ) in text
    assert '           between */ id: "quiet", tools: { loopDetection' in text
    value = to_python(parse_text(text, "x").root)
    assert [agent["id"] for agent in value["agents"]["list"]] == ["main", "quiet"]  # type: ignore[index]


def test_refusal_writes_nothing(cases: Path) -> None:
    before = (cases / "typo.json5").read_bytes()
    code, output = _run(cases, "typo.json5", "--openclaw", "2026.9.6", "--write")
    assert code == 1 and "LC003" in output
    assert (cases / "typo.json5").read_bytes() == before


def test_an_unknown_target_is_a_usage_error(cases: Path) -> None:
    code, output = _run(cases, "openclaw.json5", "--openclaw", "2027.1.1")
    assert code == 2 and "not a release" in output


# -- properties on generated configs ---------------------------------------------------------

KNOBS = {
    "historySize": st.integers(1, 60),
    "warningThreshold": st.integers(1, 30),
    "criticalThreshold": st.integers(1, 40),
    "unknownToolThreshold": st.integers(1, 30),
    "globalCircuitBreakerThreshold": st.integers(1, 60),
    "enabled": st.booleans(),
}


@st.composite
def configs(draw: Any) -> str:
    def block() -> str:
        chosen = draw(st.dictionaries(st.sampled_from(sorted(KNOBS)), st.just(0), max_size=4))
        members = [f"{k}: {json.dumps(draw(KNOBS[k]))}" for k in chosen]
        if draw(st.booleans()):
            members.append(f"detectors: {{ pingPong: {json.dumps(draw(st.booleans()))} }}")
        if draw(st.booleans()):
            members.append(f"postCompactionGuard: {{ windowSize: {draw(st.integers(1, 9))} }}")
        return "{ " + ", ".join(f"{m} /* k{i} */" for i, m in enumerate(members)) + " }"

    ids = draw(st.lists(st.sampled_from(["main", "ops", "Night Owl", "x"]), max_size=4))
    agents = []
    for index, agent in enumerate(ids):
        tools = f", tools: {{ loopDetection: {block()} }}" if draw(st.booleans()) else ""
        agents.append(f'    // agent {index}\n    {{ id: "{agent}"{tools} }},')
    roster = "\n".join(agents)
    return (
        "// generated\n{\n  tools: {\n    // the global block\n"
        f"    loopDetection: {block()},\n  }},\n"
        f"  agents: {{\n    list: [\n{roster}\n    ],\n  }},\n}}\n"
    )


def _comments(text: str) -> list[str]:
    return [c.text for c in parse_text(text, "c.json5").comments]


@settings(max_examples=60, deadline=None)
@given(configs(), st.sampled_from(["2026.9.6", "2026.4.12", "2026.2.17", "2026.5.4"]))
def test_generated_configs_migrate_idempotently_keeping_comments(
    tmp_path_factory: pytest.TempPathFactory, text: str, version: str
) -> None:
    folder = tmp_path_factory.mktemp("migrate")
    path = folder / "c.json5"
    path.write_text(text, encoding="utf-8")
    target = release_info(version)
    assert target is not None
    loaded = load_config(str(path))
    plan = plan_migration(loaded, target, findings(loaded, version))
    if plan.refused:  # only a config with errors (ordering, LC004) is refused
        assert any(d.severity == "error" for d in findings(loaded))
        return
    after = plan.texts.get(str(path), (text, text))[1]
    value = to_python(parse_text(after, "c.json5").root)
    kept = _comments(after)
    # Comments outside every loopDetection block stay; those inside a member the migration
    # removes (a knob, or a `tools` the purge empties) may go: apply_operations checks that
    # exact rule on every edit, this checks the ones that can never be inside a removal.
    for comment in _comments(text):
        if comment.startswith(("// generated", "// agent")):
            assert comment in kept
    accepted = line_settings(target.line.id)
    for block in _blocks(value):  # type: ignore[arg-type]
        assert _keys(block) <= accepted
        if target.line.id == "S3":
            assert not set(block) & set(RETIRED_PATHS)
    path.write_text(after, encoding="utf-8")
    again = load_config(str(path))
    second = plan_migration(again, target, findings(again, version))
    assert second.texts == {}  # idempotent
    # The result validates for the target (08 §8.5): no LC0xx error at all.
    errors = [d for d in findings(again, version) if d.code.startswith("LC0")]
    assert not [d for d in errors if d.severity == "error"], errors


@st.composite
def yaml_configs(draw: Any) -> str:
    """The same configs as `configs`, written as YAML with a comment on every knob."""

    def block(indent: str) -> list[str]:
        chosen = draw(st.dictionaries(st.sampled_from(sorted(KNOBS)), st.just(0), max_size=4))
        lines = [f"{indent}{k}: {json.dumps(draw(KNOBS[k]))}  # k{k}" for k in chosen]
        if draw(st.booleans()):
            switch = json.dumps(draw(st.booleans()))
            lines += [f"{indent}detectors:", f"{indent}  pingPong: {switch}"]
        if draw(st.booleans()):
            window = draw(st.integers(1, 9))
            lines += [f"{indent}postCompactionGuard:", f"{indent}  windowSize: {window}"]
        return lines

    ids = draw(st.lists(st.sampled_from(["main", "ops", "Night Owl", "x"]), max_size=4))
    lines = ["# generated", "tools:", "  # the global block", "  loopDetection:"]
    lines += block("    ") or ["    enabled: true"]
    if ids:
        lines += ["agents:", "  list:"]
    for index, agent in enumerate(ids):
        lines += [f"    # agent {index}", f"    - id: {json.dumps(agent)}"]
        knobs = block("          ") if draw(st.booleans()) else []
        if knobs:
            lines += ["      tools:", "        loopDetection:", *knobs]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(yaml_configs(), st.sampled_from(["2026.9.6", "2026.4.12", "2026.5.4"]))
def test_generated_yaml_configs_migrate_idempotently(
    tmp_path_factory: pytest.TempPathFactory, text: str, version: str
) -> None:
    # Paths name the file as written for YAML too: knobs inside agents.list items are deleted
    # while the list becomes agents.entries (ruamel's round trip applies them one by one).
    path = tmp_path_factory.mktemp("migrate") / "c.yaml"
    path.write_text(text, encoding="utf-8")
    target = release_info(version)
    assert target is not None
    loaded = load_config(str(path))
    plan = plan_migration(loaded, target, findings(loaded, version))
    if plan.refused:  # only a config with errors of its own (ordering) is refused
        assert any(d.severity == "error" for d in findings(loaded)), plan.refusals
        return
    after = plan.texts.get(str(path), (text, text))[1]
    value = to_python(parse_text(after, "c.yaml", "yaml").root)
    assert "# generated" in after
    accepted = line_settings(target.line.id)
    for block in _blocks(value):  # type: ignore[arg-type]
        assert _keys(block) <= accepted
    path.write_text(after, encoding="utf-8")
    again = load_config(str(path))
    assert plan_migration(again, target, findings(again, version)).texts == {}
    errors = [d for d in findings(again, version) if d.code.startswith("LC0")]
    assert not [d for d in errors if d.severity == "error"], errors
