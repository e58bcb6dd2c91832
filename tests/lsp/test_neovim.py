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

# `edit` fires BufReadPost, which the set-up's autocommand attaches on; firing it once more
# would start a second client and show every diagnostic twice.
HARNESS = """
vim.cmd("edit " .. vim.env.LOOPCFG_FILE)
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


def _run_nvim(script: Path, config: Path, out: Path, tmp_path: Path) -> None:
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
    _run_nvim(script, config, out, tmp_path)
    assert out.read_text(encoding="utf-8").splitlines() == ["5:7:LC003"]


EDITING = """
vim.cmd("edit " .. vim.env.LOOPCFG_FILE)  -- BufReadPost: the set-up's autocommand attaches
local buf = vim.api.nvim_get_current_buf()
local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(found, tostring(d.code)) end
  table.sort(found)
  return table.concat(found, ",")
end
local seen = {}
local function wait_for(wanted)
  vim.wait(30000, function() return codes() == wanted end, 20)
  table.insert(seen, codes())
end
wait_for("LC003")
-- line 6 is `      warningThreshhold: 8,`: fix the typo as typed (one character removed)
vim.api.nvim_buf_set_text(buf, 5, 19, 5, 20, {})
wait_for("")
-- then type a wrong value over the 8
vim.api.nvim_buf_set_text(buf, 5, 24, 5, 25, {'"8"'})
wait_for("LC002")
vim.fn.writefile(seen, vim.env.LOOPCFG_OUT)
vim.cmd("qa!")
"""


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_rechecks_as_the_buffer_is_edited(tmp_path: Path) -> None:
    """Edits in the buffer (Neovim sends them as ranged changes) update the diagnostics."""
    config = tmp_path / "openclaw.json5"
    config.write_text(
        '{\n  meta: { lastTouchedVersion: "2026.7.1-2" },\n  tools: {\n    loopDetection: {\n'
        "      enabled: true,\n      warningThreshhold: 8,\n    },\n  },\n}\n",
        encoding="utf-8",
    )
    script = tmp_path / "test.lua"
    script.write_text(_documented_setup() + EDITING, encoding="utf-8")
    out = tmp_path / "seen.txt"
    _run_nvim(script, config, out, tmp_path)
    assert out.read_text(encoding="utf-8").splitlines() == ["LC003", "", "LC002"]
