"""What the real releases answered where loopcfg used to answer otherwise (issue 11 item 8;
docs/conformance.md "What the recording found beyond the spec"). Each test names the vector
(`tests/conformance/vectors/config/<release>.jsonl.gz`, `id`) whose recorded answer it follows;
tests/conformance/test_config_agreement.py holds loopcfg against all of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopcfg.check import CheckOptions, check_file
from loopcfg.diagnostics import Diagnostic


def errors(
    tmp_path: Path, text: str, openclaw: str, env: dict[str, str] | None = None
) -> list[Diagnostic]:
    config = tmp_path / "openclaw.json5"
    config.write_text(text, encoding="utf-8")
    report = check_file(str(config), CheckOptions(env=env or {}, openclaw=openclaw))
    return [d for d in report.diagnostics if d.severity == "error"]


def found(tmp_path: Path, text: str, openclaw: str, env: dict[str, str] | None = None) -> set:
    return {(d.code, d.path) for d in errors(tmp_path, text, openclaw, env)}


FULL_KNOBS = ("2026.5.4", "2026.6.5", "2026.7.1-2", "2026.7.35")


@pytest.mark.parametrize("release", FULL_KNOBS)
def test_agents_ownership_before_it_exists_is_lc010(tmp_path: Path, release: str) -> None:
    """`random.*` with `ownership`: 5.4 `agents: Unrecognized key: "ownership"`, era B
    `agents: Invalid input`."""
    text = '{agents: {list: [{id: "main"}], ownership: "explicit"}}'
    assert found(tmp_path, text, release) == {("LC010", "agents.ownership")}
    assert found(tmp_path, text, "2026.9.6") == set()


@pytest.mark.parametrize("release", FULL_KNOBS)
def test_a_list_default_that_is_not_a_boolean_is_lc007(tmp_path: Path, release: str) -> None:
    """`roster.list.default_string`: `agents.list.0.default: Invalid input ...`."""
    text = '{agents: {list: [{id: "main", default: "yes"}]}}'
    assert found(tmp_path, text, release) == {("LC007", "agents.list[0].default")}
    assert found(tmp_path, '{agents: {list: [{id: "main", default: true}]}}', release) == set()


def test_a_list_default_that_is_not_a_boolean_blocks_the_conversion(tmp_path: Path) -> None:
    """`roster.list.default_string` on 2026.9.6: `agents: Unrecognized key: "list"`."""
    text = '{agents: {list: [{id: "main", default: "yes"}]}}'
    (diagnostic,) = errors(tmp_path, text, "2026.9.6")
    assert diagnostic.code == "LC010" and "default is not true or false" in diagnostic.message


@pytest.mark.parametrize("release", (*FULL_KNOBS, "2026.9.6"))
def test_a_dotted_tools_key_naming_the_block_is_lc011(tmp_path: Path, release: str) -> None:
    """`misplaced.dotted_in_tools.*`: `tools: Unrecognized key: "loopDetection.enabled"`."""
    text = '{tools: {"loopDetection.enabled": true}}'
    assert found(tmp_path, text, release) == {("LC011", 'tools["loopDetection.enabled"]')}


@pytest.mark.parametrize("release", (*FULL_KNOBS, "2026.9.6"))
def test_a_version_that_is_not_a_string_is_lc002(tmp_path: Path, release: str) -> None:
    """`meta.version_number`: `meta.lastTouchedVersion: Invalid input ...`."""
    text = "{meta: {lastTouchedVersion: 2026.9}}"
    assert found(tmp_path, text, release) == {("LC002", "meta.lastTouchedVersion")}


@pytest.mark.parametrize("release", (*FULL_KNOBS, "2026.9.6"))
@pytest.mark.parametrize("env", [{}, {"V": ""}], ids=["unset", "empty"])
def test_the_text_a_missing_variable_leaves_is_validated(
    tmp_path: Path, release: str, env: dict[str, str]
) -> None:
    """`env.enabled.*`, `env.unknown_key_value.*`: the release warns about the variable and
    then rejects what is left in the value (or the key around it)."""
    enabled = '{tools: {loopDetection: {enabled: "${V}"}}}'
    assert found(tmp_path, enabled, release, env) == {("LC002", "tools.loopDetection.enabled")}
    unknown = '{tools: {loopDetection: {foo: "${V}"}}}'
    assert found(tmp_path, unknown, release, env) == {("LC003", "tools.loopDetection.foo")}


def test_a_release_that_refuses_a_missing_variable_says_only_that(tmp_path: Path) -> None:
    """Before 2026.5.4 (not recorded; MISSING_ENV keeps the refusal) LC006 alone."""
    text = '{tools: {loopDetection: {enabled: "${V}"}}}'
    assert found(tmp_path, text, "2026.4.14") == {("LC006", "tools.loopDetection.enabled")}


@pytest.mark.parametrize("release", FULL_KNOBS)
@pytest.mark.parametrize(
    ("written", "larger"),
    [
        ("warningThreshold: 9007199254740992, criticalThreshold: 9", "criticalThreshold"),
        ("criticalThreshold: 9, globalCircuitBreakerThreshold: 0", "globalCircuitBreakerThreshold"),
        ("warningThreshold: 1e21, criticalThreshold: 26", "criticalThreshold"),
    ],
)
def test_the_ordering_compares_every_whole_number(
    tmp_path: Path, release: str, written: str, larger: str
) -> None:
    """`random.0376`, `random.0608`: OpenClaw's refinement compares values its own integer
    checks reject (0, above 2^53-1), so both are reported."""
    text = f"{{tools: {{loopDetection: {{{written}}}}}}}"
    codes = found(tmp_path, text, release)
    assert ("LC004", f"tools.loopDetection.{larger}") in codes
    assert any(code == "LC002" for code, _ in codes)


def test_the_ordering_hint_shows_a_huge_number_as_written(tmp_path: Path) -> None:
    text = "{tools: {loopDetection: {criticalThreshold: 1e300, globalCircuitBreakerThreshold: 5}}}"
    (ordering,) = [d for d in errors(tmp_path, text, "2026.7.1-2") if d.code == "LC004"]
    assert ordering.hint == "criticalThreshold is 1e+300 and globalCircuitBreakerThreshold is 5"


def test_an_empty_roster_is_valid_on_2026_9_6(tmp_path: Path) -> None:
    """`roster.entries.empty` and `roster.list.empty`: no "at least one configured agent"."""
    assert errors(tmp_path, "{agents: {entries: {}}}", "2026.9.6") == []
    assert errors(tmp_path, "{agents: {list: []}}", "2026.9.6") == []


def test_an_entry_with_its_own_id_is_lc007(tmp_path: Path) -> None:
    """`roster.entries.entry_with_id`: `agents.entries.main: Unrecognized key: "id"`."""
    text = '{agents: {entries: {main: {id: "main"}}}}'
    assert found(tmp_path, text, "2026.9.6") == {("LC007", "agents.entries.main.id")}


@pytest.mark.parametrize(
    ("agent", "code", "path"),
    [
        ('tools: {loopDetection: "on"}', "LC008", "agents.list[0].tools.loopDetection"),
        ('tools: "x"', "LC008", "agents.list[0].tools"),
    ],
)
def test_a_converted_list_is_checked_whole(
    tmp_path: Path, agent: str, code: str, path: str
) -> None:
    """`value.list.block=str_on`, `roster.list.agent_tools_not_object` on 2026.9.6."""
    text = f'{{agents: {{list: [{{id: "main", {agent}}}]}}}}'
    assert found(tmp_path, text, "2026.9.6") == {(code, path)}


def test_the_roster_rules_after_a_conversion(tmp_path: Path) -> None:
    """`roster.list.two`: converted, then the ownership rule at agents.ownership (LC010, no
    LC111); `roster.list.two_defaults`: only "at most one default"; `random.0002`: a marker
    beside `ownership: "explicit"`."""
    two = '{agents: {list: [{id: "main"}, {id: "ops"}]}}'
    assert found(tmp_path, two, "2026.9.6") == {("LC010", "agents.ownership")}
    config = tmp_path / "openclaw.json5"
    report = check_file(str(config), CheckOptions(env={}, openclaw="2026.9.6"))
    assert "LC111" not in {d.code for d in report.diagnostics}
    two_defaults = '{agents: {list: [{id: "main", default: true}, {id: "ops", default: true}]}}'
    assert found(tmp_path, two_defaults, "2026.9.6") == {("LC007", "agents.entries")}
    marked = '{agents: {list: [{id: "main", default: true}], ownership: "explicit"}}'
    assert found(tmp_path, marked, "2026.9.6") == {("LC007", "agents.ownership")}
    one = '{agents: {list: [{id: "main", default: true}, {id: "ops"}]}}'
    assert found(tmp_path, one, "2026.9.6") == set()


def test_the_entries_ownership_rule_is_named_at_agents_ownership(tmp_path: Path) -> None:
    """`roster.entries.two`: `agents.ownership: multi-agent rosters require ...`, and not with
    two markers (`roster.entries.two_defaults`)."""
    two = "{agents: {entries: {main: {}, ops: {}}}}"
    assert found(tmp_path, two, "2026.9.6") == {("LC007", "agents.ownership")}
    two_defaults = "{agents: {entries: {main: {default: true}, ops: {default: true}}}}"
    assert found(tmp_path, two_defaults, "2026.9.6") == {("LC007", "agents.entries")}


def test_a_list_entry_without_id_is_named_at_its_id(tmp_path: Path) -> None:
    """`roster.list.no_id`: `agents.list.0.id: Invalid input ...`."""
    text = "{agents: {list: [{tools: {}}]}}"
    assert found(tmp_path, text, "2026.5.4") == {("LC007", "agents.list[0].id")}
