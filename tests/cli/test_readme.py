"""README.md's set-up: exactly two commands a newcomer copies (`.ci/run` runs them); the first
installs only what running loopcfg needs and runs it on an example with warnings worth seeing."""

from __future__ import annotations

import re
import subprocess

from click.testing import CliRunner

from loopcfg.cli import cli
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def setup_command(name: str) -> str:
    """What `.ci/run` reads: the first line of the block after `<!-- setup:NAME -->`."""
    found = re.search(rf"<!-- setup:{name} -->\n```sh\n(.*)\n```", README)
    assert found, name
    assert "\n" not in found.group(1)
    return found.group(1)


def test_the_ci_script_reads_the_same_two_commands() -> None:
    script = REPO / ".ci" / "run"
    body = script.read_text(encoding="utf-8")
    define = body[body.index("readme_command() {") : body.index("install_cmd=")]
    for name in ("install", "test"):
        shown = subprocess.run(
            ["bash", "-c", f"{define}\nreadme_command {name}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert shown == setup_command(name)
    assert README.count("<!-- setup:") == 2


def test_install_installs_no_dev_tools_and_runs_the_first_run_example() -> None:
    install = setup_command("install")
    assert "pip install -e . " in install and "[dev]" not in install
    example = install.rsplit("loopcfg validate ", 1)[1]
    assert example == "examples/first-run/openclaw.json5"
    result = CliRunner().invoke(cli, ["validate", str(REPO / example)], catch_exceptions=False)
    assert result.exit_code == 0
    assert " warning: " in result.stdout  # findings that teach something, not "all passed"


def test_test_command_installs_the_dev_extra_then_runs_pytest() -> None:
    assert (
        setup_command("test") == ".venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest"
    )


def test_use_it_section_installs_with_pipx_from_a_path_or_git() -> None:
    section = README.split("## Use it", 1)[1].split("\n## ", 1)[0]
    assert "pipx install ./" in section and 'pipx install "git+' in section
    assert "pip install loopcfg" not in README
