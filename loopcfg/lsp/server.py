"""The LSP wiring (pygls): documents in, diagnostics, hovers, completions and code actions out.

Every check reads the editor's open buffers instead of the disk (`source.unsaved_texts`), so an
unsaved included file counts. An open file that an open config includes gets its diagnostics
from that config's check (its `$include` context); other open files are checked as configs.
Re-checks after typing wait for a pause (DEBOUNCE seconds); open, save and watched-file changes
re-check at once, including every open config that includes the changed file.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from loopcfg import __version__
from loopcfg.diagnostics import Diagnostic
from loopcfg.lsp import analysis
from loopcfg.source.nodes import Span

DEBOUNCE = 0.15  # seconds of quiet typing before a re-check
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
_CONFIG_SUFFIXES = (".json5", ".json", ".yaml", ".yml")


def _position(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def _path(uri: str) -> str:
    return os.path.realpath(unquote(urlparse(uri).path))


class LoopcfgServer(LanguageServer):
    def __init__(self, openclaw: str | None = None) -> None:
        super().__init__("loopcfg", __version__)
        self.openclaw = openclaw
        self.checked: dict[str, analysis.Checked] = {}  # top config (real path) -> its check
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.published: dict[str, set[str]] = {}  # top config -> files it published for

    # -- state ------------------------------------------------------------------------------------

    def buffers(self) -> dict[str, str]:
        docs = self.workspace.text_documents
        return {_path(uri): doc.source for uri, doc in docs.items() if uri.startswith("file:")}

    def open_paths(self) -> list[str]:
        return [p for p in self.buffers() if p.endswith(_CONFIG_SUFFIXES)]

    def included_elsewhere(self, real: str) -> bool:
        return any(real in c.files and top != real for top, c in self.checked.items())

    def tops_for(self, real: str) -> list[str]:
        """The configs whose check covers `real`: those that include it, else itself."""
        tops = [top for top, c in self.checked.items() if real in c.files and top != real]
        return tops or [real]

    # -- checking ---------------------------------------------------------------------------------

    def recheck(self, real: str) -> None:
        for top in self.tops_for(real):
            self.check_top(top)

    def check_top(self, top: str) -> None:
        if not os.path.exists(top) and top not in self.buffers():
            return
        checked = analysis.check(top, self.buffers(), self.openclaw)
        self.checked[top] = checked
        # An open file that this config includes is checked in its context from now on.
        for real in checked.files:
            if real != top and real in self.checked:
                self.checked.pop(real, None)
        grouped = analysis.diagnostics_by_file(checked)
        old = self.published.get(top, set())
        for real in old - set(grouped):
            self.publish(real, [], checked)
        for real, found in grouped.items():
            self.publish(real, found, checked)
        self.published[top] = set(grouped)

    def publish(self, real: str, found: list[Diagnostic], checked: analysis.Checked) -> None:
        lines = self.lines_of(real, checked)
        items = [self.to_lsp(d, lines) for d in found]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=from_fs_path(real) or real, diagnostics=items)
        )

    def lines_of(self, real: str, checked: analysis.Checked) -> list[str]:
        text = self.buffers().get(real)
        if text is None:
            document = checked.document_for(real)
            text = document.text if document is not None else ""
        return text.splitlines(keepends=True) or [""]

    def to_lsp(self, diagnostic: Diagnostic, lines: list[str]) -> types.Diagnostic:
        message = diagnostic.message + (f" ({diagnostic.hint})" if diagnostic.hint else "")
        return types.Diagnostic(
            range=self.range_of(diagnostic.span, lines),
            message=message,
            severity=_SEVERITY[diagnostic.severity],
            code=diagnostic.code,
            source="loopcfg",
        )

    def range_of(self, span: Span | None, lines: list[str]) -> types.Range:
        if span is None:
            return types.Range(start=_position(0, 0), end=_position(0, 0))
        code_points = types.Range(
            start=_position(span.line - 1, span.column - 1),
            end=_position(span.end_line - 1, span.end_column - 1),
        )
        codec = self.workspace.position_codec
        return codec.range_to_client_units(lines, code_points)

    def schedule(self, real: str) -> None:
        task = self.pending.pop(real, None)
        if task is not None:
            task.cancel()

        async def later() -> None:
            await asyncio.sleep(DEBOUNCE)
            self.pending.pop(real, None)
            self.recheck(real)

        self.pending[real] = asyncio.ensure_future(later())

    # -- positions from the client ----------------------------------------------------------------

    def cursor(self, uri: str, position: types.Position) -> tuple[str, int, int]:
        """(real path, 1-based line, 1-based code-point column)."""
        real = _path(uri)
        document = self.workspace.get_text_document(uri)
        lines = document.source.splitlines(keepends=True) or [""]
        point = self.workspace.position_codec.position_from_client_units(lines, position)
        return real, point.line + 1, point.character + 1

    def checked_for(self, real: str) -> analysis.Checked | None:
        for top in self.tops_for(real):
            if top in self.checked:
                return self.checked[top]
        return None


def build_server(openclaw: str | None = None) -> LoopcfgServer:
    server = LoopcfgServer(openclaw)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LoopcfgServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.recheck(_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LoopcfgServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LoopcfgServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.recheck(_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LoopcfgServer, params: types.DidCloseTextDocumentParams) -> None:
        real = _path(params.text_document.uri)
        if real in ls.checked and not ls.included_elsewhere(real):
            for file in ls.published.pop(real, set()):
                ls.publish(file, [], ls.checked[real])
            ls.checked.pop(real, None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: LoopcfgServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            ls.recheck(_path(change.uri))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LoopcfgServer, params: types.HoverParams) -> types.Hover | None:
        real, line, column = ls.cursor(params.text_document.uri, params.position)
        checked = ls.checked_for(real)
        if checked is None:
            return None
        text = analysis.hover_text(checked, real, line, column, ls.openclaw)
        if not text:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "'"])
    )
    def completion(ls: LoopcfgServer, params: types.CompletionParams) -> types.CompletionList:
        real, line, column = ls.cursor(params.text_document.uri, params.position)
        checked = ls.checked_for(real)
        found = analysis.completions(checked, real, line, column, ls.openclaw) if checked else []
        items = [
            types.CompletionItem(
                label=c.label,
                kind=types.CompletionItemKind.Property
                if c.is_key
                else types.CompletionItemKind.Value,
                detail=c.detail,
                documentation=c.documentation or None,
            )
            for c in found
        ]
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                types.CodeActionKind.SourceFixAll,
                types.CodeActionKind.RefactorRewrite,
            ]
        ),
    )
    def code_action(ls: LoopcfgServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        real, line, _ = ls.cursor(params.text_document.uri, params.range.start)
        checked = ls.checked_for(real)
        if checked is None:
            return []
        actions = analysis.fix_actions(checked, ls.openclaw, real, line)
        actions += analysis.migrate_actions(checked)
        wanted = params.context.only
        out = []
        for action in actions:
            if wanted and not any(action.kind.startswith(str(kind)) for kind in wanted):
                continue
            out.append(ls_action(ls, checked, action))
        return out

    return server


def ls_action(
    ls: LoopcfgServer, checked: analysis.Checked, action: analysis.Action
) -> types.CodeAction:
    changes: dict[str, list[types.TextEdit]] = {}
    for name, text in action.texts.items():
        real = os.path.realpath(name)
        lines = ls.lines_of(real, checked)
        whole = types.Range(start=_position(0, 0), end=_position(len(lines), 0))
        changes[from_fs_path(real) or real] = [types.TextEdit(range=whole, new_text=text)]
    diagnostics: list[types.Diagnostic] | None = None
    if action.diagnostic is not None:
        span = action.diagnostic.span
        real = os.path.realpath(span.file) if span else ""
        diagnostics = [ls.to_lsp(action.diagnostic, ls.lines_of(real, checked))]
    return types.CodeAction(
        title=action.title,
        kind=action.kind,
        diagnostics=diagnostics,
        edit=types.WorkspaceEdit(changes=changes),
        is_preferred=action.kind == "quickfix" or None,
    )


def serve(openclaw: str | None = None) -> None:
    """Run the server on standard input and output until the client says exit."""
    build_server(openclaw).start_io()


__all__: list[Any] = ["DEBOUNCE", "LoopcfgServer", "build_server", "serve"]
