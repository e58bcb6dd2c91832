"""docs/resolve.md stays true: each config it shows is the case file of tests/resolve/cases/, and
each `$ loopcfg resolve ...` sample is exactly what the command prints (stderr, then stdout) in
that case's directory, with the exit code the marker states.

Markers in the Markdown: `<!-- file: CASE/NAME -->` before a config block, `<!-- run: CASE -->`
(or `<!-- run: CASE, exit N -->`) before a console block. With LOOPCFG_UPDATE_GOLDEN=1 the
console blocks are rewritten from real runs; review the diff before committing.
"""

from __future__ import annotations

import re
import shlex

import pytest

from tests.conftest import REPO
from tests.golden import updating_golden
from tests.resolve.test_cli_resolve import CASES, run_in

DOC = REPO / "docs" / "resolve.md"
FILE_BLOCK = re.compile(r"<!-- file: (\S+) -->\n```\w+\n(.*?)```\n", re.DOTALL)
RUN_BLOCK = re.compile(
    r"<!-- run: (?P<case>[\w-]+)(?:, exit (?P<exit>\d))? -->\n```console\n"
    r"\$ loopcfg resolve (?P<args>[^\n]*)\n(?P<output>.*?)```\n",
    re.DOTALL,
)


def _run(case: str, args: str) -> tuple[int, str]:
    code, stdout, stderr = run_in(case, *shlex.split(args))
    return code, stderr + stdout


def test_configs_shown_are_the_case_files() -> None:
    text = DOC.read_text(encoding="utf-8")
    shown = FILE_BLOCK.findall(text)
    assert len(shown) >= 5
    for name, body in shown:
        assert body == (CASES / name).read_text(encoding="utf-8"), name


def test_every_sample_is_what_the_command_prints() -> None:
    text = DOC.read_text(encoding="utf-8")
    runs = list(RUN_BLOCK.finditer(text))
    assert len(runs) >= 7
    if updating_golden():

        def fill(match: re.Match[str]) -> str:
            _, output = _run(match["case"], match["args"])
            head = match.group(0).split("\n$ ", 1)[0]
            return f"{head}\n$ loopcfg resolve {match['args']}\n{output}```\n"

        text = RUN_BLOCK.sub(fill, text)
        DOC.write_text(text, encoding="utf-8", newline="\n")
        runs = list(RUN_BLOCK.finditer(text))
    for match in runs:
        code, output = _run(match["case"], match["args"])
        assert code == int(match["exit"] or 0), match["args"]
        assert output == match["output"], f"docs/resolve.md sample differs: {match['args']}"


@pytest.mark.parametrize("option", ["--agent", "--all", "--explain", "--format", "--strict"])
def test_every_option_is_documented(option: str) -> None:
    assert f"`{option}" in DOC.read_text(encoding="utf-8")
