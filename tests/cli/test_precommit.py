"""The pre-commit hook definition (`.pre-commit-hooks.yaml`, issue 2 part 7)."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from ruamel.yaml import YAML

from tests.conftest import REPO


def hook() -> dict[str, Any]:
    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list)
    assert [entry["id"] for entry in hooks] == ["loopcfg-validate"]
    return dict(hooks[0])


def test_hook_fields_are_as_the_issue_says() -> None:
    entry = hook()
    assert entry["entry"] == "loopcfg validate"
    assert entry["language"] == "python"
    assert entry["types_or"] == ["json", "json5", "yaml"]
    assert entry["files"] == "openclaw"
    assert entry["name"]


def test_entry_is_a_console_script_of_the_project() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    command = hook()["entry"].split()[0]
    assert scripts[command] == "loopcfg.cli:main"


def test_files_pattern_picks_openclaw_configs_only() -> None:
    # pre-commit matches `files` with re.search against the path relative to the repository.
    pattern = re.compile(hook()["files"])
    for path in ("openclaw.json5", "config/openclaw.yaml", "deploy/openclaw.json"):
        assert pattern.search(path), path
    for path in ("package.json", "config/settings.yaml", "tsconfig.json5"):
        assert not pattern.search(path), path
