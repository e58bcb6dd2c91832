"""Golden files of `loopcfg validate` for every diagnostic code, through the CLI.

Each folder in `tests/cli/cases/<CODE>/` holds a small, realistic config that triggers that
code; CASES below says how the case is run and which exit code it must give. The command runs
with the case folder as the working directory and relative file names, so the goldens do not
depend on the checkout's location (the one absolute path that reaches a message, an include's
resolved path, is replaced by `<case>`). The library-level goldens of tests/config check where
each error points; these check what a user reads: the text (plain and as on a terminal), the
JSON, and for a few codes SARIF and GitHub annotations.

Regenerate after a deliberate change with
`LOOPCFG_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_golden.py` and review it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg import cli as cli_module
from loopcfg.catalogue import RULES
from tests.golden import assert_golden

CASES_DIR = Path(__file__).parent / "cases"

# Variables a case reads or the CLI honours: unset for every run, so the goldens do not depend
# on the developer's environment.
CLEAN_ENV: dict[str, str | None] = {
    "NO_COLOR": None,
    "OPENCLAW_CONFIG_PATH": None,
    "OPENCLAW_STATE_DIR": None,
    "OPENCLAW_HOME": None,
    "AGENT_ID": None,
    "OPENCLAW_AGENT_ID": None,
    "RUNNER_ID": None,
    "LOOP_PROFILE": None,
}


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    exit_code: int


_FILE = ("openclaw.json5",)
CASES: dict[str, Case] = {
    "LC000": Case(("openclaw.json5", "missing.json5", "--max-bytes", "256"), 2),
    "LC001": Case(_FILE, 1),
    "LC002": Case(_FILE, 1),
    "LC003": Case(_FILE, 1),
    "LC004": Case(_FILE, 1),
    "LC005": Case(_FILE, 1),
    "LC006": Case(("openclaw.json5", "--env-file", "loopcfg.env"), 1),
    "LC007": Case(_FILE, 1),
    "LC008": Case(_FILE, 1),
    "LC009": Case(_FILE, 1),
    "LC010": Case(_FILE, 1),
    "LC011": Case(_FILE, 1),
    "LC012": Case(_FILE, 1),
    "LC101": Case(_FILE, 0),
    "LC102": Case(_FILE, 0),
    "LC103": Case(_FILE, 0),
    "LC104": Case(_FILE, 0),
    "LC105": Case(_FILE, 0),
    "LC106": Case(_FILE, 0),
    "LC107": Case(_FILE, 0),
    "LC108": Case(_FILE, 0),
    "LC109": Case(_FILE, 0),
    "LC110": Case(_FILE, 0),
    "LC111": Case(_FILE, 0),
    "LC112": Case(("openclaw.json5", "--env-file", "loopcfg.env"), 0),
    "LC201": Case(("openclaw.json5", "--verbose"), 0),
    "LC202": Case(("openclaw.json5", "--verbose"), 0),
    "LC203": Case(("openclaw.json5", "--verbose"), 0),
}

# Codes whose SARIF and GitHub output is kept too: an error with a related location, a file
# that cannot be read (a SARIF notification), a warning and an info.
MORE_FORMATS = ("LC000", "LC004", "LC102", "LC202")


def run_case(
    code: str, output_format: str, monkeypatch: pytest.MonkeyPatch, *, tty: bool = False
) -> tuple[int, str]:
    folder = CASES_DIR / code
    monkeypatch.chdir(folder)
    monkeypatch.setattr(cli_module, "stdout_is_tty", lambda: tty)
    args = ["validate", *CASES[code].args, "--format", output_format]
    if tty:
        args.append("--no-color")
    result = CliRunner().invoke(cli_module.cli, args, env=CLEAN_ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    text = result.stdout
    for where in {str(folder), os.path.realpath(folder)}:
        text = text.replace(where, "<case>")
    return result.exit_code, text


def test_every_code_has_a_case() -> None:
    assert sorted(CASES) == sorted(RULES)
    assert sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir()) == sorted(RULES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_text(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exit_code, text = run_case(code, "text", monkeypatch)
    assert exit_code == CASES[code].exit_code
    assert f" {code} " in text  # the case triggers its code
    assert_golden(f"validate/{code}.txt", text)


@pytest.mark.parametrize("code", sorted(CASES))
def test_text_on_a_terminal(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exit_code, text = run_case(code, "text", monkeypatch, tty=True)
    assert exit_code == CASES[code].exit_code
    assert "\x1b[" not in text  # --no-color
    assert_golden(f"validate/{code}.tty.txt", text)


@pytest.mark.parametrize("code", sorted(CASES))
def test_json(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exit_code, text = run_case(code, "json", monkeypatch)
    assert exit_code == CASES[code].exit_code
    document = json.loads(text)
    codes = {d["code"] for f in document["files"] for d in f["diagnostics"]}
    assert code in codes
    assert_golden(f"validate/{code}.json", text)


@pytest.mark.parametrize("code", MORE_FORMATS)
@pytest.mark.parametrize("output_format", ["sarif", "github"])
def test_sarif_and_github(code: str, output_format: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exit_code, text = run_case(code, output_format, monkeypatch)
    assert exit_code == CASES[code].exit_code
    assert code in text
    suffix = "sarif" if output_format == "sarif" else "github.txt"
    assert_golden(f"validate/{code}.{suffix}", text)


@pytest.mark.parametrize("code", sorted(CASES))
def test_formats_agree(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every format reports the same problems at the same places as the JSON output."""
    _, json_text = run_case(code, "json", monkeypatch)
    found = [
        (d["file"], d["line"], d["column"], d["code"])
        for f in json.loads(json_text)["files"]
        for d in f["diagnostics"]
    ]
    _, text = run_case(code, "text", monkeypatch)
    lines = text.splitlines()[:-1]
    assert len(lines) == len(found)
    for (file, line, column, diag_code), rendered in zip(found, lines, strict=True):
        where = f"{file}:{line}:{column}" if line is not None else file
        assert rendered.startswith(f"{where}: {diag_code} ")
    _, github = run_case(code, "github", monkeypatch)
    annotations = [line for line in github.splitlines() if line.startswith("::")]
    assert len(annotations) == len(found)
    for (_, _, _, diag_code), annotation in zip(found, annotations, strict=True):
        assert f"title={diag_code}::" in annotation
