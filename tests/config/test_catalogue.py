"""The catalogue: every code of 03 documented (what, why, example, fix); each example triggers
its code and each fix is clean; `loopcfg explain` prints it; docs/lints.md is generated from it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg.catalogue import RULES
from loopcfg.check import CheckOptions, check_file
from loopcfg.cli import cli
from loopcfg.config import load_config
from loopcfg.explain import main as explain_main
from loopcfg.explain import render_lints_md, render_rule
from loopcfg.validate import validate_config
from tests.conftest import REPO

Write = Callable[[str, str], Path]
CODES = [f"LC00{n}" for n in range(1, 10)] + ["LC010", "LC011", "LC012"]


def _codes(path: Path) -> set[str]:
    loaded = load_config(path, env={})
    return {d.code for d in loaded.diagnostics + validate_config(loaded)}


@pytest.mark.parametrize("code", CODES)
def test_example_triggers_its_code(code: str, write: Write) -> None:
    rule = RULES[code]
    assert all((rule.what, rule.why, rule.example, rule.fix)), code
    assert code in _codes(write("example.json5", rule.example))


@pytest.mark.parametrize("code", [c for c in CODES if RULES[c].fix.lstrip().startswith("{")])
def test_fix_is_clean(code: str, write: Write) -> None:
    assert _codes(write("fixed.json5", RULES[code].fix)) == set()


def test_lc000_entry_is_documented() -> None:
    rule = RULES["LC000"]
    assert rule.severity == "error" and all((rule.what, rule.why, rule.example, rule.fix))
    assert "--max-bytes" in rule.what and "--max-bytes" in rule.fix  # the way past the limit


# -- every code of 03, its documentation, LC1xx/LC2xx examples, `explain` and docs/lints.md --

# 03's tables, as the spec writes them: code -> severity.
SPEC_SEVERITIES = {
    **{f"LC00{n}": "error" for n in range(10)},
    **{f"LC01{n}": "error" for n in range(3)},
    **{f"LC10{n}": "warning" for n in range(1, 10)},
    **{f"LC11{n}": "warning" for n in range(3)},
    "LC201": "info",
    "LC202": "info",
    "LC203": "info",
}
# Findings about the target release itself: LC203 is on every verbose run, and LC110 on every
# config without a target that writes a knob; an example is judged without them unless it is
# theirs.
TARGET_CODES = ("LC110", "LC203")
LINT_CODES = [code for code in SPEC_SEVERITIES if code >= "LC1"]


def test_the_catalogue_is_exactly_03s_codes_and_severities() -> None:
    assert {code: rule.severity for code, rule in RULES.items()} == SPEC_SEVERITIES
    assert list(RULES) == sorted(RULES)


@pytest.mark.parametrize("code", sorted(SPEC_SEVERITIES))
def test_every_entry_has_what_why_example_and_fix(code: str) -> None:
    rule = RULES[code]
    assert rule.code == code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
    assert rule.summary and "\n" not in rule.summary
    for text in (rule.what, rule.why, rule.example, rule.fix):
        assert len(text.strip()) > 20, (code, text)
    assert len({r.name for r in RULES.values()}) == len(RULES)


def _reported(path: Path, code: str) -> list[str]:
    report = check_file(str(path), CheckOptions(verbose=True, env={}))
    return [d.code for d in report.diagnostics if d.code == code or d.code not in TARGET_CODES]


@pytest.mark.parametrize("code", LINT_CODES)
def test_lint_example_triggers_its_code_and_its_fix_is_clean(code: str, write: Write) -> None:
    rule = RULES[code]
    assert code in _reported(write("example.json5", rule.example), code)
    if rule.fix.lstrip().startswith("{"):
        assert _reported(write("fixed.json5", rule.fix), code) == []


def _explain(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["explain", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("code", sorted(SPEC_SEVERITIES))
def test_explain_prints_the_entry(code: str) -> None:
    rule = RULES[code]
    exit_code, stdout, _ = _explain(code.lower())
    assert exit_code == 0 and stdout == render_rule(rule)
    headings = [line for line in stdout.splitlines() if line and not line.startswith(" ")]
    assert headings == [
        f"{code} ({rule.name}) {rule.severity}: {rule.summary}",
        "What it does",
        "Why it matters",
        "Example",
        "Fix",
    ]
    example = stdout.split("\nExample\n", 1)[1].split("\nFix\n", 1)[0]
    assert example == "".join(
        f"    {line}" if line.strip() else line for line in rule.example.splitlines(True)
    )


def test_explain_by_rule_name() -> None:
    assert _explain("unreachable-threshold")[1] == render_rule(RULES["LC102"])


def test_explain_alone_lists_every_code_once() -> None:
    exit_code, stdout, _ = _explain()
    assert exit_code == 0
    listed = [line.split()[0] for line in stdout.splitlines() if line.startswith("LC")]
    assert listed == sorted(SPEC_SEVERITIES)
    assert "loopcfg explain CODE" in stdout


def test_explain_unknown_code_suggests_and_exits_2() -> None:
    exit_code, stdout, stderr = _explain("LC12")
    assert (exit_code, stdout) == (2, "")
    assert stderr == (
        "loopcfg explain: error: unknown code 'LC12' (did you mean LC112 or LC102 or LC012?); "
        "`loopcfg explain` lists all\n"
    )


def test_docs_lints_md_is_generated_from_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    committed = (REPO / "docs" / "lints.md").read_text(encoding="utf-8")
    assert committed == render_lints_md(), (
        "docs/lints.md is stale: .venv/bin/python -m loopcfg.explain --markdown > docs/lints.md"
    )
    assert explain_main(["--markdown"]) == 0
    assert capsys.readouterr().out == committed
    for code, rule in RULES.items():
        assert f"### {code} `{rule.name}` ({rule.severity})" in committed
        assert rule.example.rstrip() in committed


def test_explain_module_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert explain_main(["--nope"]) == 2
    assert "usage" in capsys.readouterr().err
    assert explain_main(["LC105"]) == 0
    assert capsys.readouterr().out == render_rule(RULES["LC105"])
