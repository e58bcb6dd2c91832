"""docs/ci.md's workflows, run: every `run:` step of each, in order, with bash as GitHub runs
it, in a scratch folder holding examples/first-run/openclaw.json5 as the user's config, with
`LOOPCFG_GIT`/`LOOPCFG_COMMIT` pointing at this checkout and its HEAD commit. So the install
line really installs loopcfg from a git URL at a commit into a fresh virtual environment (one
for the module), and the validate steps run the installed command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.cli.test_docs import ci_samples
from tests.conftest import EXAMPLES, REPO


def _head() -> str | None:
    if shutil.which("git") is None:
        return None
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _head() is None:
        pytest.skip("not a git checkout: nothing to install from a git URL")
    folder = tmp_path_factory.mktemp("ci") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    return folder


def _steps(index: int) -> tuple[dict[str, str], list[str]]:
    workflow: Any = YAML(typ="safe").load(ci_samples("workflow")[index].body)
    (job,) = workflow["jobs"].values()
    runs = [step["run"] for step in job["steps"] if "run" in step]
    return {key: str(value) for key, value in job.get("env", {}).items()}, runs


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.mark.parametrize("index", range(len(ci_samples("workflow"))))
def test_workflow_steps_run_against_the_checkout(
    index: int, fresh_venv: Path, tmp_path: Path
) -> None:
    env_block, runs = _steps(index)
    assert set(env_block) == {"LOOPCFG_GIT", "LOOPCFG_COMMIT"}
    shutil.copy(EXAMPLES / "first-run" / "openclaw.json5", tmp_path / "openclaw.json5")
    env = {
        **os.environ,
        "PATH": f"{fresh_venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(fresh_venv),
        "LOOPCFG_GIT": f"file://{REPO}",
        "LOOPCFG_COMMIT": str(_head()),
        "NO_COLOR": "1",
    }
    env.pop("PYTHONPATH", None)
    for command in runs:
        done = subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert "Traceback" not in done.stderr
        if "loopcfg validate" in command:
            # The example's findings are warnings: exit 0, or 1 with --strict.
            assert done.returncode == (1 if "--strict" in command else 0), done.stderr
            assert "LC102" in done.stdout + _read(tmp_path / "loopcfg.sarif")
        else:
            assert done.returncode == 0, done.stderr[-2000:]
    assert (fresh_venv / "bin" / "loopcfg").exists()
    if (tmp_path / "loopcfg.sarif").exists():
        log = json.loads((tmp_path / "loopcfg.sarif").read_text())
        assert log["runs"][0]["automationDetails"]["id"].startswith("loopcfg/validate/")
