"""The command guides are tested: every sample in them is what the command prints today.

docs/validate.md, docs/fix.md and docs/migrate.md (GUIDES) share one harness.

The guide marks its blocks with HTML comments:

- `<!-- file: NAME -->` before a block: the block is written to NAME in a scratch folder;
- `<!-- run: exit=N [tty] -->` before a `console` block: its `$ ` line is run there (with
  `cat FILE | ` fed as standard input; `tty` as on a terminal without colour) and must print
  the rest of the block and exit N;
- `<!-- excerpt: a/0/b of: COMMAND -->` before a `json` block: the block equals that part of
  the command's JSON output;
- `<!-- workflow -->` / `<!-- pre-commit -->` before a `yaml` block (in docs/ci.md): a GitHub
  workflow whose `loopcfg` commands must parse with validate's options, and a pre-commit config
  that uses the repository's hooks. tests/cli/test_ci_snippets.py runs the workflows' steps.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from loopcfg import cli as cli_module
from tests.conftest import REPO

GUIDE = REPO / "docs" / "validate.md"
GUIDES = [GUIDE, REPO / "docs" / "fix.md", REPO / "docs" / "migrate.md"]
CI_GUIDE = REPO / "docs" / "ci.md"
_BLOCK = re.compile(r"<!-- (?P<marker>[^>]*?) -->\n```(?P<lang>\w*)\n(?P<body>.*?)```\n", re.S)
CLEAN_ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None}


@dataclass(frozen=True)
class Block:
    marker: str
    lang: str
    body: str


def blocks(guide: Path = GUIDE) -> list[Block]:
    text = guide.read_text(encoding="utf-8")
    return [Block(m["marker"], m["lang"], m["body"]) for m in _BLOCK.finditer(text)]


def kind(block: Block) -> str:
    return block.marker.split(":")[0].split()[0]


def write_workspace(guide: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scratch folder with every `file:` block of the guide written into it."""
    for block in blocks(guide):
        if kind(block) == "file":
            (folder / block.marker.split(":", 1)[1].strip()).write_text(block.body, "utf-8")
    monkeypatch.chdir(folder)


def run(command: str, monkeypatch: pytest.MonkeyPatch, *, tty: bool = False) -> tuple[int, str]:
    stdin = None
    piped = re.fullmatch(r"cat (\S+) \| (.*)", command)
    if piped:
        stdin = Path(piped[1]).read_text(encoding="utf-8")
        command = piped[2]
    words = shlex.split(command)
    assert words[0] == "loopcfg", command
    monkeypatch.setattr(cli_module, "stdout_is_tty", lambda: tty)
    env = {**CLEAN_ENV, "NO_COLOR": "1"} if tty else CLEAN_ENV
    result = CliRunner().invoke(cli_module.cli, words[1:], env=env, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout + result.stderr


def samples(name: str, guide: Path = GUIDE) -> list[Block]:
    return [block for block in blocks(guide) if kind(block) == name]


def all_samples(name: str) -> list[tuple[Path, int]]:
    """Every `name` sample of every guide, as (guide, index) pairs for parametrize."""
    return [(guide, index) for guide in GUIDES for index in range(len(samples(name, guide)))]


def sample_id(case: tuple[Path, int]) -> str:
    return f"{case[0].stem}-{case[1]}"


def test_the_guide_has_samples_of_every_format() -> None:
    commands = " ".join(block.body.splitlines()[0] for block in samples("run"))
    for output_format in ("json", "github"):
        assert f"--format {output_format}" in commands
    assert any("tty" in block.marker for block in samples("run"))
    assert "--format sarif" in " ".join(block.marker for block in samples("excerpt"))
    assert len(ci_samples("workflow")) == 2 and len(ci_samples("pre-commit")) == 1


@pytest.mark.parametrize("guide", GUIDES[1:], ids=lambda guide: guide.stem)
def test_every_command_guide_has_a_tested_example(guide: Path) -> None:
    assert samples("run", guide) and samples("file", guide)


@pytest.mark.parametrize("case", all_samples("run"), ids=sample_id)
def test_run_samples(
    case: tuple[Path, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide, index = case
    write_workspace(guide, tmp_path, monkeypatch)
    block = samples("run", guide)[index]
    options = dict(part.partition("=")[::2] for part in block.marker.split(":", 1)[1].split())
    first, *expected = block.body.splitlines(keepends=True)
    assert first.startswith("$ ")
    exit_code, output = run(first[2:].strip(), monkeypatch, tty="tty" in options)
    assert output == "".join(expected)
    assert exit_code == int(options["exit"])


@pytest.mark.parametrize("case", all_samples("excerpt"), ids=sample_id)
def test_excerpt_samples(
    case: tuple[Path, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide, index = case
    write_workspace(guide, tmp_path, monkeypatch)
    block = samples("excerpt", guide)[index]
    pointer, _, command = block.marker.split(":", 1)[1].partition(" of: ")
    _, output = run(command.strip(), monkeypatch)
    value: Any = json.loads(output)
    for part in pointer.strip().split("/"):
        value = value[int(part)] if part.isdigit() else value[part]
    assert json.loads(block.body) == value


def _validate_args(command: str) -> list[str]:
    """The arguments of `loopcfg validate ...` in a shell line, up to a redirection or `|`."""
    words = shlex.split(command)
    start = words.index("loopcfg")
    args: list[str] = []
    for word in words[start + 2 :]:
        if word in (">", "|", "||", "&&", ";"):
            break
        args.append(word)
    assert words[start + 1] == "validate", command
    return args


def ci_samples(name: str) -> list[Block]:
    return [block for block in blocks(CI_GUIDE) if kind(block) == name]


@pytest.mark.parametrize("index", range(len(ci_samples("workflow"))))
def test_workflow_samples(index: int) -> None:
    workflow = YAML(typ="safe").load(ci_samples("workflow")[index].body)
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    runs = [step["run"] for step in steps if "loopcfg validate" in step.get("run", "")]
    assert runs
    for command in runs:
        args = _validate_args(command)
        # Parses with validate's real options (a renamed option would fail here).
        context = cli_module.validate_command.make_context("validate", args)
        assert context.params["files"] == ("openclaw.json5",)
        uploads = [s for s in steps if "upload-sarif" in s.get("uses", "")]
        if context.params["output_format"] == "sarif":
            (upload,) = uploads
            assert command.endswith(f"> {upload['with']['sarif_file']}")
            assert upload["if"] == "always()"


def test_pre_commit_sample_uses_the_repository_hooks() -> None:
    config = YAML(typ="safe").load(ci_samples("pre-commit")[0].body)
    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    (repo,) = config["repos"]
    assert re.fullmatch(r"[0-9a-f]{40}", repo["rev"]), "rev must be a commit hash, not a tag"
    assert [hook["id"] for hook in repo["hooks"]] == [entry["id"] for entry in hooks]
    for hook in repo["hooks"]:
        cli_module.validate_command.make_context("validate", [*hook["args"], "openclaw.json5"])


def test_options_table_lists_every_option() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    table = text.split("## Options", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| (?:`-\w`, )?`(--[a-z-]+)", table, re.M))
    real = {
        name
        for param in cli_module.validate_command.params
        if isinstance(param, click.Option)
        for name in param.opts
        if name.startswith("--")
    }
    real.add("--help")
    assert documented == real
