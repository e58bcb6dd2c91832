"""The pre-commit hooks (`.pre-commit-hooks.yaml`): their definitions, and a real `pre-commit`
run of both in a temporary git repository (issue 13 item 5).

The run uses a `repo: local` config holding the hooks exactly as defined (id, `files`,
`pass_filenames`, entry, args), only with `language: system` and the entry pointed at this
checkout's `loopcfg`: what is tested is pre-commit's own matching and loopcfg's verdicts,
without pre-commit building a virtual environment from the network for `language: python`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from loopcfg.check import CONFIG_NAMES
from tests.conftest import REPO

IDS = ["loopcfg-validate", "loopcfg-validate-root"]


def hooks() -> dict[str, dict[str, Any]]:
    entries = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(entries, list)
    assert [entry["id"] for entry in entries] == IDS
    return {entry["id"]: dict(entry) for entry in entries}


def test_hook_fields() -> None:
    for entry in hooks().values():
        assert entry["entry"] == "loopcfg validate"
        assert entry["language"] == "python"
        assert entry["name"] and entry["description"]
    assert hooks()["loopcfg-validate-root"]["pass_filenames"] is False


def test_entry_is_a_console_script_of_the_project() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    for entry in hooks().values():
        assert scripts[entry["entry"].split()[0]] == "loopcfg.cli:main"


def test_files_pattern_matches_config_names_not_folder_names() -> None:
    # pre-commit matches `files` with re.search against the path relative to the repository.
    pattern = re.compile(hooks()["loopcfg-validate"]["files"])
    for name in CONFIG_NAMES:  # the names `validate DIR` looks for: one list
        for folder in ("", "config/", "deploy/prod/"):
            assert pattern.search(folder + name), folder + name
    for path in (
        "roles/openclaw/tasks/main.yml",  # an Ansible role named after OpenClaw
        "openclaw/settings.json5",
        "my-openclaw.json5",
        "openclaw.json5.bak",
        "openclaw.jsonl",
        "package.json",
        "tsconfig.json5",
    ):
        assert not pattern.search(path), path


def test_root_variant_matches_every_fragment_kind() -> None:
    pattern = re.compile(hooks()["loopcfg-validate-root"]["files"])
    for path in ("fragments/agents.json5", "a.json", "x/y.yaml", "z.yml", "openclaw.json5"):
        assert pattern.search(path), path
    for path in ("README.md", "trace.jsonl"):
        assert not pattern.search(path), path


# -- a real pre-commit run ------------------------------------------------------------------------

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
LOOPCFG = Path(sys.executable).with_name("loopcfg")
GOOD = "{ tools: { loopDetection: { enabled: true } } }\n"


def _local_config(args: dict[str, list[str]]) -> str:
    lines = ["repos:", "  - repo: local", "    hooks:"]
    for hook_id, entry in hooks().items():
        lines += [
            f"      - id: {hook_id}",
            f"        name: {entry['name']}",
            f"        entry: {LOOPCFG} validate",
            "        language: system",
            f"        files: '{entry['files']}'",
            f"        pass_filenames: {str(entry.get('pass_filenames', True)).lower()}",
            f"        args: {args.get(hook_id, [])}",
        ]
    return "\n".join(lines) + "\n"


class Repository:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {
            **os.environ,
            "PRE_COMMIT_HOME": str(root.parent / "pre-commit-home"),
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
            "NO_COLOR": "1",
        }
        self.git("init", "-q")

    def git(self, *args: str) -> None:
        subprocess.run(["git", *args], cwd=self.root, env=self.env, check=True, timeout=60)

    def write(self, name: str, text: str) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.git("add", name)

    def commit(self) -> None:
        self.git("commit", "-q", "--no-verify", "-m", "state")

    def pre_commit(self) -> subprocess.CompletedProcess[str]:
        """`pre-commit run` on what is staged, as the git hook would."""
        return subprocess.run(
            [str(PRE_COMMIT), "run", "--color", "never"],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


@pytest.fixture
def repository(tmp_path: Path) -> Repository:
    if not PRE_COMMIT.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit (the dev extra) or git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    made = Repository(root)
    made.write(".pre-commit-config.yaml", _local_config({"loopcfg-validate-root": ["site"]}))
    made.write("site/openclaw.json5", '{ $include: "./fragments/loop.json5" }\n')
    made.write("site/fragments/loop.json5", "{ tools: { loopDetection: { enabled: true } } }\n")
    made.commit()
    return made


def _hook_result(output: str, name: str) -> str:
    line = next(line for line in output.splitlines() if line.startswith(name + "."))
    return line.rsplit(".", 1)[-1].strip().split()[0] if "Skipped" not in line else "Skipped"


def test_pre_commit_checks_a_changed_config_by_its_name(repository: Repository) -> None:
    repository.write("deploy/openclaw.json5", '{ tools: { loopDetection: { enabled: "yes" } } }')
    done = repository.pre_commit()
    assert done.returncode == 1, done.stdout
    assert _hook_result(done.stdout, "loopcfg validate") == "Failed"
    assert "deploy/openclaw.json5:1:38: LC002 error: enabled in tools.loopDetection" in done.stdout


def test_pre_commit_leaves_an_ansible_role_named_openclaw_alone(repository: Repository) -> None:
    repository.write("roles/openclaw/tasks/main.md", "not a config\n")
    repository.write("roles/openclaw/tasks/main.yml", "- name: install openclaw\n  apt: {}\n")
    done = repository.pre_commit()
    # The root variant runs (a YAML file changed) and finds the root config fine; the
    # per-file hook does not take the role's tasks for a config (it used to: LC008).
    assert done.returncode == 0, done.stdout
    assert "LC008" not in done.stdout
    assert _hook_result(done.stdout, "loopcfg validate") == "Skipped"


def test_root_variant_catches_a_broken_fragment_committed_alone(repository: Repository) -> None:
    repository.write(
        "site/fragments/loop.json5", "{ tools: { loopDetection: { historySize: -1 } } }\n"
    )
    done = repository.pre_commit()
    assert done.returncode == 1, done.stdout
    assert "site/fragments/loop.json5:1:42: LC002 error" in done.stdout
    assert _hook_result(done.stdout, "loopcfg validate (root config and its includes)") == "Failed"


def test_the_hooks_as_published_install_and_run(tmp_path: Path) -> None:
    # What a user's .pre-commit-config.yaml does (docs/ci.md): `repo:` this repository at a
    # commit, `language: python`, so pre-commit clones it, builds its own virtual environment
    # with `pip install .` and runs the console script from there.
    if not PRE_COMMIT.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit (the dev extra) or git is not installed")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    root = tmp_path / "repo"
    root.mkdir()
    user = Repository(root)
    user.write(
        ".pre-commit-config.yaml",
        f"repos:\n  - repo: {REPO}\n    rev: {head.stdout.strip()}\n"
        "    hooks:\n      - id: loopcfg-validate\n",
    )
    user.write("deploy/openclaw.json5", '{ tools: { loopDetection: { enabled: "yes" } } }')
    user.write("roles/openclaw/tasks/main.yml", "- name: install openclaw\n  apt: {}\n")
    done = user.pre_commit()
    assert done.returncode == 1, done.stdout + done.stderr
    assert _hook_result(done.stdout, "loopcfg validate") == "Failed"
    assert "deploy/openclaw.json5:1:38: LC002 error" in done.stdout
    assert "LC008" not in done.stdout  # the Ansible role's YAML is not taken for a config
