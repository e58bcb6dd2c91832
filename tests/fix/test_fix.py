"""`loopcfg fix` through the CLI (goldens of the diff, the fixes and what remains), `--write`
with idempotence, and the safety rules of each fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import cli as cli_module
from loopcfg.config import load_config
from loopcfg.diagnostics import Diagnostic
from loopcfg.fix import fix_config, fixes_for
from loopcfg.source.nodes import Span
from tests.golden import assert_golden

CASES = Path(__file__).parent / "cases"
CLEAN_ENV: dict[str, str | None] = {
    "NO_COLOR": None,
    "OPENCLAW_CONFIG_PATH": None,
    "CRITICAL": None,
}


def _run(folder: Path, *args: str) -> tuple[int, str]:
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        result = runner.invoke(cli_module.cli, ["fix", *args], env=CLEAN_ENV)
    return result.exit_code, result.output


@pytest.fixture()
def cases(tmp_path: Path) -> Path:
    shutil.copytree(CASES, tmp_path / "cases")
    return tmp_path / "cases"


@pytest.mark.parametrize(
    ("name", "exit_code"),
    [
        ("mixed.json5", 0),
        ("unsafe.json5", 1),
        ("included.json5", 0),
        ("config.yaml", 0),
        ("wrong-keys.json5", 1),
    ],
)
def test_fix_diff_golden(cases: Path, name: str, exit_code: int) -> None:
    before = {p.name: p.read_bytes() for p in cases.iterdir()}
    code, output = _run(cases, name)
    assert code == exit_code, output
    assert_golden(f"fix/{name}.diff.txt", output)
    assert {p.name: p.read_bytes() for p in cases.iterdir()} == before  # a diff writes nothing


@pytest.mark.parametrize(
    "name", ["mixed.json5", "unsafe.json5", "included.json5", "config.yaml", "wrong-keys.json5"]
)
def test_fix_write_then_nothing_left_to_fix(cases: Path, name: str) -> None:
    code, output = _run(cases, name, "--write")
    assert_golden(f"fix/{name}.write.txt", output)
    texts = {p.name: p.read_text(encoding="utf-8") for p in cases.iterdir()}
    assert_golden(f"fix/{name}.fixed", texts[name])
    again_code, again = _run(cases, name, "--write")
    assert not re.search(r": LC\d+ fixed:", again)  # idempotent: nothing left to fix
    assert {p.name: p.read_text(encoding="utf-8") for p in cases.iterdir()} == texts
    assert again_code == code


def test_select_limits_the_fixes(cases: Path) -> None:
    _, output = _run(cases, "mixed.json5", "--select", "LC003")
    assert "LC003 would fix" in output
    assert "LC002 would fix" not in output and "LC107 would fix" not in output


def test_standard_input_cannot_be_fixed(cases: Path) -> None:
    code, output = _run(cases, "-")
    assert code == 2 and "cannot be fixed" in output


def _loaded(tmp_path: Path, text: str) -> object:
    path = tmp_path / "c.json5"
    path.write_text(text, encoding="utf-8")
    return load_config(str(path))


def test_lc012_fixes_follow_the_table(tmp_path: Path) -> None:
    text = "{tools: {loopDetection: {repeatThreshold: 7, pingPong: false}}}"
    loaded = _loaded(tmp_path, text)
    file = str(tmp_path / "c.json5")
    repeat = Diagnostic("LC012", "error", "x", file, Span(file, 1, 26, 1, 41))
    ping = Diagnostic("LC012", "error", "x", file, Span(file, 1, 46, 1, 54))
    fixes, skipped = fixes_for(loaded, [repeat, ping], line_id="S2")  # type: ignore[arg-type]
    assert [f.description for f in fixes] == [
        'renamed "repeatThreshold" to "warningThreshold"',
        'moved "pingPong" to "detectors.pingPong"',
    ]
    assert skipped == []
    fixes, skipped = fixes_for(loaded, [repeat], line_id="S3")  # type: ignore[arg-type]
    assert fixes == [] and "retired" in skipped[0].reason


KNOBS = ["historySize", "warningThreshold", "criticalThreshold", "globalCircuitBreakerThreshold"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([*KNOBS, "warningThreshhold", "histrySize", "enabled"]),
            st.sampled_from(["5", '"7"', "40", '"true"', "true", '"${X}"']),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_fix_is_idempotent_and_only_removes_what_it_fixes(
    tmp_path_factory: pytest.TempPathFactory, members: list[tuple[str, str]]
) -> None:
    folder = tmp_path_factory.mktemp("fix")
    body = ",\n".join(f"      {key}: {value} // c{i}" for i, (key, value) in enumerate(members))
    text = f"// top\n{{\n  tools: {{\n    loopDetection: {{\n{body}\n    }},\n  }},\n}}\n"
    path = folder / "c.json5"
    path.write_text(text, encoding="utf-8")
    result = fix_config(load_config(str(path)), reload=lambda: load_config(str(path)))
    fixed = {fix.diagnostic for fix in result.plan.fixes}
    if not result.plan.texts:
        return
    after = result.plan.texts[str(path)][1]
    path.write_text(after, encoding="utf-8")
    again = fix_config(load_config(str(path)), reload=lambda: load_config(str(path)))
    assert again.plan.texts == {}  # idempotent
    for comment in [f"// c{i}" for i in range(len(members))] + ["// top"]:
        assert comment in after  # every comment kept
    remaining_codes = {(d.code, d.message) for d in again.found}
    for diagnostic in fixed:  # no finding it claims to fix is left
        assert (
            diagnostic.code,
            diagnostic.message,
        ) not in remaining_codes or diagnostic.code == "LC107"


def test_a_quoted_number_from_a_variable_is_not_fixed(tmp_path: Path) -> None:
    path = tmp_path / "c.json5"
    path.write_text('{tools: {loopDetection: {criticalThreshold: "${CRITICAL}"}}}', "utf-8")
    loaded = load_config(str(path), env={"CRITICAL": "25"})
    result = fix_config(loaded)
    assert result.plan.texts == {}
    assert [s.diagnostic.code for s in result.plan.skipped] == ["LC002"]
    assert "${VAR}" in result.plan.skipped[0].reason
    # Neither unquoting nor the variable can make a substitution a number (01 §1.5): the hint
    # says what can, instead of "write 25 without quotes".
    hint = result.plan.skipped[0].diagnostic.hint
    assert hint == 'a ${VAR} always gives a string: write 25 in place of "${CRITICAL}"'


def test_unsaved_texts_stand_in_for_files(tmp_path: Path) -> None:
    from loopcfg.source import unsaved_texts

    path = tmp_path / "c.json5"
    path.write_text("{tools: {loopDetection: {enabled: true}}}", "utf-8")
    with unsaved_texts({str(path): "{tools: {loopDetection: {enabled: false}}}"}):
        inside = load_config(str(path))
    outside = load_config(str(path))
    assert inside.root is not None and outside.root is not None
    assert "false" in inside.document.text and "true" in outside.document.text  # type: ignore[union-attr]
