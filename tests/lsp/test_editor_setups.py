"""docs/editors.md's Helix and VS Code set-ups, tested as far as they can be without the
editors (neither runs here: Helix is not packaged for this machine, VS Code is a desktop
program). Each block is read from the page as written; its settings are checked for what the
editor reads from them, and the server command it names is started as the editor starts it
and must answer `initialize` and publish the diagnostics of a config opened under the
language id that editor sends. Neovim, which does run here, is tested in test_neovim.py.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from loopcfg.source import parse_text
from loopcfg.source.nodes import to_python

DOCS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"
HUNG = 60.0  # only a server that stopped answering takes this long
CONFIG = "{\n  tools: {\n    loopDetection: {\n      warningThreshhold: 8,\n    },\n  },\n}\n"


def _block(marker: str, language: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    pattern = rf"<!-- {marker} -->\n```{language}\n(.*?)```\n<!-- /{marker} -->"
    found = re.search(pattern, text, re.S)
    assert found, f"docs/editors.md has no {marker} block"
    return found.group(1)


def _executable(command: str) -> str:
    """`command` as the editor finds it on PATH, this checkout's venv first."""
    bin_dir = str(Path(sys.executable).parent)
    found = shutil.which(command, path=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    assert found, f"{command} is not installed"
    return found


def _diagnostics_from(
    command: list[str], folder: Path, config: Path, language_ids: list[str]
) -> list[list[str]]:
    """Start `command` as an editor does, open `config` under each language id in turn and
    return the diagnostic codes published for it each time."""

    async def main() -> list[list[str]]:
        client = LanguageClient("editor-setup-test", "1")
        published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            published.put_nowait(params)

        await client.start_io(command[0], *command[1:], cwd=str(folder))
        try:
            result = await client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(folder))
                )
            )
            capabilities = result.capabilities
            assert capabilities.hover_provider and capabilities.completion_provider
            assert capabilities.code_action_provider and capabilities.text_document_sync
            client.initialized(types.InitializedParams())
            uri = from_fs_path(str(config)) or ""
            codes = []
            for language_id in language_ids:
                item = types.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=CONFIG
                )
                client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
                while True:
                    params = await asyncio.wait_for(published.get(), HUNG)
                    if params.uri == uri and params.diagnostics:
                        break
                codes.append(sorted(str(d.code) for d in params.diagnostics))
                client.text_document_did_close(
                    types.DidCloseTextDocumentParams(
                        text_document=types.TextDocumentIdentifier(uri=uri)
                    )
                )
            await client.shutdown_async(None)
            client.exit(None)
            return codes
        finally:
            await client.stop()

    return asyncio.run(main())


# -- Helix ----------------------------------------------------------------------------------------


def _helix() -> dict[str, Any]:
    return tomllib.loads(_block("helix-setup", "toml"))


def test_the_helix_setup_names_loopcfg_lsp_for_openclaw_files() -> None:
    setup = _helix()
    servers = setup["language-server"]
    assert servers["loopcfg"] == {"command": "loopcfg", "args": ["lsp"]}
    languages = setup["language"]
    for language in languages:  # what Helix needs of a language it does not know yet
        assert {"name", "scope", "grammar", "file-types", "language-servers"} <= set(language)
        assert set(language["language-servers"]) <= set(servers)
    served = [lang for lang in languages if "loopcfg" in lang["language-servers"]]
    globs = [(lang["grammar"], kind["glob"]) for lang in served for kind in lang["file-types"]]
    grammars = {"openclaw.json": "json5", "openclaw.json5": "json5", "openclaw.yaml": "yaml"}
    for name, grammar in grammars.items():
        matching = [g for g, pattern in globs if fnmatch.fnmatchcase(name, pattern)]
        assert matching == [grammar], name
    assert not any(fnmatch.fnmatchcase("package.json", pattern) for _, pattern in globs)


def test_the_helix_server_command_starts_and_checks_a_config(tmp_path: Path) -> None:
    server = _helix()["language-server"]["loopcfg"]
    config = tmp_path / "openclaw.json"
    config.write_text(CONFIG, encoding="utf-8")
    command = [_executable(server["command"]), *server["args"]]
    languages = [lang["name"] for lang in _helix()["language"]]
    assert _diagnostics_from(command, tmp_path, config, languages[:1]) == [["LC003"]]


# -- VS Code --------------------------------------------------------------------------------------


def _vscode() -> dict[str, Any]:
    settings = to_python(parse_text(_block("vscode-setup", "jsonc"), "settings.json").root)
    assert isinstance(settings, dict)
    return settings


def test_the_vscode_settings_are_what_the_generic_client_reads() -> None:
    settings = _vscode()
    # The extension's settings: a command string, argument strings, a non-empty list of ids.
    command = settings["glspc.server.command"]
    arguments = settings["glspc.server.commandArguments"]
    language_ids = settings["glspc.server.languageId"]
    assert isinstance(command, str) and command == "loopcfg"
    assert arguments == ["lsp"]
    assert isinstance(language_ids, list) and language_ids
    assert all(isinstance(item, str) for item in language_ids)
    # openclaw.json opens as jsonc (the schema set-up's files.associations), YAML as yaml.
    assert {"json", "jsonc", "yaml"} <= set(language_ids)


def test_the_vscode_server_command_checks_a_config_of_each_language(tmp_path: Path) -> None:
    settings = _vscode()
    config = tmp_path / "openclaw.json"
    config.write_text(CONFIG, encoding="utf-8")
    command = [
        _executable(settings["glspc.server.command"]),
        *settings["glspc.server.commandArguments"],
    ]
    language_ids = settings["glspc.server.languageId"]
    codes = _diagnostics_from(command, tmp_path, config, language_ids)
    assert codes == [["LC003"]] * len(language_ids)
