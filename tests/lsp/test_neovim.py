"""Neovim (Debian's package), headless, runs docs/editors.md's set-up block as written, opens a
config and receives loopcfg's diagnostics. Skipped where `nvim` is not installed (.ci/run
installs it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
NVIM = shutil.which("nvim")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"

HARNESS = """
vim.cmd("edit " .. vim.env.LOOPCFG_FILE)
vim.cmd("doautocmd BufReadPost")
local buf = vim.api.nvim_get_current_buf()
vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(lines, string.format("%d:%d:%s", d.lnum + 1, d.col + 1, tostring(d.code)))
end
vim.fn.writefile(lines, vim.env.LOOPCFG_OUT)
vim.cmd("qa!")
"""


def _documented_setup() -> str:
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(r"<!-- nvim-setup -->\n```lua\n(.*?)```\n<!-- /nvim-setup -->", text, re.S)
    assert found, "docs/editors.md has no nvim-setup block"
    return found.group(1)


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_attaches_and_shows_diagnostics(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(
        "{\n  tools: {\n    loopDetection: {\n      enabled: true,\n"
        "      warningThreshhold: 8,\n    },\n  },\n}\n",
        encoding="utf-8",
    )
    script = tmp_path / "test.lua"
    script.write_text(_documented_setup() + HARNESS, encoding="utf-8")
    out = tmp_path / "diagnostics.txt"
    # `loopcfg` on PATH is this checkout's (the venv's bin directory first).
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "LOOPCFG_FILE": str(config),
        "LOOPCFG_OUT": str(out),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    assert NVIM is not None
    subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {script}"],
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=True,
        capture_output=True,
    )
    assert out.read_text(encoding="utf-8").splitlines() == ["5:7:LC003"]
