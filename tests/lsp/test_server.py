"""`loopcfg lsp` as an editor meets it: the server runs as a subprocess (`python -m loopcfg
lsp`) and a real LSP client (pygls') talks to it over stdio: open, edit, save, an included file
changing, hover, completion and code actions. Waits are for messages, never for a clock limit
that a slow machine could miss (a generous ceiling only stops a hung server)."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

HUNG = 60.0  # only a server that stopped answering takes this long

CONFIG = """\
// loop protection
{
  meta: { lastTouchedVersion: "2026.7.1-2" },
  tools: {
    loopDetection: {
      enabled: true,
      warningThreshhold: 8,
    },
  },
  agents: {
    list: [
      { id: "main", tools: { loopDetection: { $include: "./agent.json5" } } },
    ],
  },
}
"""
AGENT = "{\n  historySize: 40,\n}\n"


def _at(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


class Session:
    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.changed = asyncio.Event()

    async def until(self, condition: Callable[[], bool]) -> None:
        async def wait() -> None:
            while not condition():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), HUNG)

    def codes(self, path: Path) -> list[str]:
        uri = from_fs_path(str(path.resolve())) or ""
        return sorted(str(d.code) for d in self.diagnostics.get(uri, []))


async def _start(folder: Path, *command: str) -> Session:
    """The server started as `command` (default: `python -m loopcfg lsp`), initialised."""
    client = LanguageClient("loopcfg-tests", "1")
    session = Session(client)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        session.diagnostics[params.uri] = list(params.diagnostics)
        session.changed.set()

    command = command or (sys.executable, "-m", "loopcfg", "lsp")
    await client.start_io(*command, cwd=str(folder))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=from_fs_path(str(folder)),
        )
    )
    client.initialized(types.InitializedParams())
    return session


async def _stop(session: Session) -> None:
    await session.client.shutdown_async(None)
    session.client.exit(None)
    await session.client.stop()


def _open(session: Session, path: Path, text: str | None = None) -> str:
    """Open `path` with `text` (default: the file as Python reads it, newlines translated)."""
    uri = from_fs_path(str(path.resolve())) or ""
    if text is None:
        text = path.read_text(encoding="utf-8")
    item = types.TextDocumentItem(uri=uri, language_id="json5", version=1, text=text)
    session.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    return uri


def _replace_all(session: Session, uri: str, text: str, version: int) -> None:
    session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _run(test: Callable[[Session, Path], Any], folder: Path) -> None:
    async def main() -> None:
        session = await _start(folder)
        try:
            await test(session, folder)
        finally:
            await _stop(session)

    asyncio.run(main())


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "openclaw.json5").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "agent.json5").write_text(AGENT, encoding="utf-8")
    return tmp_path


def test_open_edit_and_include_changes(folder: Path) -> None:
    config, agent = folder / "openclaw.json5", folder / "agent.json5"

    async def test(session: Session, folder: Path) -> None:
        uri = _open(session, config)
        await session.until(lambda: session.codes(config) == ["LC003"])
        # Typing: the typo fixed in the buffer (not saved) clears the diagnostic.
        _replace_all(session, uri, CONFIG.replace("Threshhold", "Threshold"), 2)
        await session.until(lambda: session.codes(config) == [])
        # The included file, opened and edited: its finding is published for it, in the
        # including config's context, and re-checked as it changes.
        agent_uri = _open(session, agent)
        _replace_all(session, agent_uri, "{\n  historySize: 0,\n}\n", 2)
        await session.until(lambda: session.codes(agent) == ["LC002"])
        # Saved to disk and closed: a watched-file change re-checks the config.
        agent.write_text("{\n  historySize: 40,\n  bogus: 1,\n}\n", encoding="utf-8")
        session.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=agent_uri)
            )
        )
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=agent_uri, type=types.FileChangeType.Changed)]
            )
        )
        await session.until(lambda: session.codes(agent) == ["LC003"])
        agent.write_text(AGENT, encoding="utf-8")
        session.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        await session.until(lambda: session.codes(agent) == [])

    _run(test, folder)


def test_hover_completion_and_code_actions(folder: Path) -> None:
    config = folder / "openclaw.json5"

    async def test(session: Session, folder: Path) -> None:
        uri = _open(session, config)
        await session.until(lambda: session.codes(config) == ["LC003"])
        doc = types.TextDocumentIdentifier(uri=uri)
        hover = await session.client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=_at(5, 8))  # on `enabled`
        )
        assert hover is not None
        text = hover.contents.value  # type: ignore[union-attr]
        assert "**enabled**" in text and "Accepted by OpenClaw 2026.2.17" in text
        completion = await session.client.text_document_completion_async(
            types.CompletionParams(text_document=doc, position=_at(6, 6))  # inside the global block
        )
        labels = {item.label for item in completion.items}  # type: ignore[union-attr]
        assert {"historySize", "criticalThreshold", "detectors"} <= labels
        assert "enabled" not in labels  # written already
        actions = await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=doc,
                range=types.Range(start=_at(6, 6), end=_at(6, 6)),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        titles = [a.title for a in actions or []]  # type: ignore[union-attr]
        assert 'loopcfg: renamed "warningThreshhold" to "warningThreshold"' in titles
        assert any(t.startswith("loopcfg: fix all") for t in titles)
        assert any(t.startswith("loopcfg: migrate to OpenClaw 2026.9.6") for t in titles) is False
        quick = next(a for a in actions or [] if a.kind == "quickfix")  # type: ignore[union-attr]
        edit = quick.edit.changes[uri][0]  # type: ignore[union-attr, index]
        assert "warningThreshold: 8" in edit.new_text and "// loop protection" in edit.new_text

    _run(test, folder)


def test_migrate_is_offered_for_an_older_layout(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(
        "{ tools: { loopDetection: { enabled: true, historySize: 40 } } }\n", encoding="utf-8"
    )

    async def test(session: Session, folder: Path) -> None:
        uri = _open(session, config)
        await session.until(lambda: uri in session.diagnostics)
        actions = await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=_at(0, 0), end=_at(0, 0)),
                context=types.CodeActionContext(
                    diagnostics=[], only=[types.CodeActionKind.RefactorRewrite]
                ),
            )
        )
        assert [a.title for a in actions or []] == [  # type: ignore[union-attr]
            "loopcfg: migrate to OpenClaw 2026.9.6 (2 values cannot be kept)"
        ]
        new = actions[0].edit.changes[uri][0].new_text  # type: ignore[index, union-attr]
        assert "historySize" not in new and "enabled: true" in new

    _run(test, tmp_path)


def test_positions_follow_the_editors_lines_not_the_parsers(tmp_path: Path) -> None:
    # JSON5 ends a line at a raw U+2028 (here inside a string), an editor does not; VT and FF
    # end no line for either (Python's splitlines breaks at both). The finding is on the
    # editor's line 3, after an emoji that takes two UTF-16 units.
    text = (
        '{\n  note: "a\u2028b\vc\fd",\n  /*😀*/ tools: { loopDetection: { enabled: "yes" } },\n}\n'
    )
    config = tmp_path / "openclaw.json5"
    config.write_bytes(text.encode("utf-8"))

    async def test(session: Session, folder: Path) -> None:
        uri = _open(session, config, text)
        await session.until(lambda: "LC002" in session.codes(config))
        [found] = [d for d in session.diagnostics[uri] if d.code == "LC002"]
        column = text.split("\n")[2].index('"yes"') + 1  # +1: the emoji's second unit
        assert found.range.start == _at(2, column)
        assert found.range.end == _at(2, column + len('"yes"'))
        # And back: hovering on the value finds the key there (the cursor's line is the
        # editor's too).
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=_at(2, column + 1)
            )
        )
        assert hover is not None and "enabled" in str(hover.contents)

    _run(test, tmp_path)


def test_a_ranged_edit_after_a_form_feed_lands_where_the_editor_made_it(tmp_path: Path) -> None:
    # pygls applies a ranged change by str.splitlines' lines, which a FF or U+2028 splits:
    # the server's copy of the buffer would go wrong (and a quick fix rewrite the file from it).
    text = '{\n  note: "a\fb\u2028c",\n  tools: { loopDetection: { enabled: "yes" } },\n}\n'
    config = tmp_path / "openclaw.json5"
    config.write_bytes(text.encode("utf-8"))

    async def test(session: Session, folder: Path) -> None:
        uri = _open(session, config, text)
        await session.until(lambda: session.codes(config) == ["LC002"])
        column = text.split("\n")[2].index('"yes"')
        session.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=_at(2, column), end=_at(2, column + 5)),
                        text="true",
                    )
                ],
            )
        )
        await session.until(lambda: session.codes(config) == [])

    _run(test, tmp_path)


# `loopcfg lsp` whose check raises for a text holding BROKEN: a bug as a user would meet it.
_BROKEN_SERVER = """
import runpy, sys
from loopcfg.lsp import analysis
plain = analysis.check
def check(top, buffers, *rest):
    if any("BROKEN" in text for text in buffers.values()):
        raise RuntimeError("a planted bug")
    return plain(top, buffers, *rest)
analysis.check = check
sys.argv = ["loopcfg", "lsp"]
runpy.run_module("loopcfg", run_name="__main__")
"""


def test_a_check_that_raises_is_one_error_and_one_line_on_stderr(folder: Path) -> None:
    config = folder / "openclaw.json5"

    async def main() -> None:
        session = await _start(folder, sys.executable, "-c", _BROKEN_SERVER)
        try:
            uri = _open(session, config)
            await session.until(lambda: session.codes(config) == ["LC003"])
            # a line above everything: what the last good check had on line 6 is on line 7
            _replace_all(session, uri, "// BROKEN\n" + CONFIG, 2)
            await session.until(lambda: session.codes(config) == ["None"])
            [failure] = session.diagnostics[uri]
            assert failure.severity == types.DiagnosticSeverity.Error
            # where: the innermost of loopcfg's own frames (the planted check is not one)
            assert re.fullmatch(
                r"loopcfg could not check this file: an internal error \(RuntimeError: a "
                r"planted bug, at loopcfg/lsp/server\.py:\d+; please report it\); the next "
                r"edit checks it again",
                failure.message,
            )
            document = types.TextDocumentIdentifier(uri=uri)
            on_line_6 = types.HoverParams(text_document=document, position=_at(5, 8))
            hover = await session.client.text_document_hover_async(on_line_6)
            assert hover is None  # nothing read from the check of a text that is gone
            _replace_all(session, uri, CONFIG, 3)
            await session.until(lambda: session.codes(config) == ["LC003"])
            hover = await session.client.text_document_hover_async(on_line_6)
            assert hover is not None and "enabled" in str(hover.contents)
        finally:
            await _stop(session)
        server = session.client._server
        assert server is not None and server.stderr is not None
        stderr = (await server.stderr.read()).decode()
        assert re.fullmatch(
            f"loopcfg lsp: error: checking {re.escape(str(config.resolve()))} failed: "
            r"RuntimeError: a planted bug \(at loopcfg/lsp/server\.py:\d+\)\n",
            stderr,
        )
        assert server.returncode == 0

    asyncio.run(main())
