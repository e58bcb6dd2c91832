"""The LSP wiring (pygls): documents in, diagnostics, hovers, completions and code actions out.

Every check reads the editor's open buffers instead of the disk (`source.unsaved_texts`), so an
unsaved included file counts. An open file that an open config includes gets its diagnostics
from that config's check (its `$include` context); other open files are checked as configs.
A change (typing, open, save, a watched file) is checked at once when no check runs; changes
that arrive while one runs (in a worker thread, so that the server keeps reading) are collapsed
into one re-check of the newest texts when it ends: slow typing never waits for a timer, fast
typing never piles up checks. A check covers every open config that includes the changed file,
and parses again only what changed (loopcfg/lsp/incremental.py). Hover, completion and code
actions wait for the re-check in progress, so they answer for the text the editor shows.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO, cast
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from loopcfg import __version__
from loopcfg.collector import pausing
from loopcfg.diagnostics import Diagnostic
from loopcfg.lsp import analysis
from loopcfg.lsp.incremental import ParseCache
from loopcfg.lsp.positions import EditorLinesWorkspace, LineMap
from loopcfg.lsp.transport import BoundedInput, quiet_pygls_log, raised_at
from loopcfg.source import format_for
from loopcfg.source.nodes import Span

_LOG = logging.getLogger(__name__)
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
    def __init__(self, openclaw: str | None = None, *, own_process: bool = False) -> None:
        super().__init__("loopcfg", __version__)
        self.openclaw = openclaw
        self.own_process = own_process  # the process is the server's: it may tune its GC
        self.checked: dict[str, analysis.Checked] = {}  # top config (real path) -> its check
        self.published: dict[str, set[str]] = {}  # top config -> files it published for
        # Top configs whose last check raised: their entry in `checked` still says which files
        # they include, but its results are for a text that is gone (`check_failed`).
        self.failed: set[str] = set()
        self.parses = ParseCache()  # used by the check thread only
        self.dirty: dict[str, None] = {}  # files changed since the checks running or done
        self.draining: asyncio.Task[None] | None = None
        self.prepared = False  # `prepare` ran (once per server)
        # One thread: checks run one at a time, and the event loop goes on reading changes.
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loopcfg-check")

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

    def schedule(self, real: str) -> None:
        """Check `real` (and the configs that include it) now, or after the running check."""
        self.dirty[real] = None
        if self.draining is None or self.draining.done():
            self.draining = asyncio.ensure_future(self.drain())

    async def drain(self) -> None:
        """Check until no file is dirty; what changes meanwhile is checked once, afterwards."""
        while self.dirty:
            files = list(self.dirty)
            self.dirty.clear()
            tops = dict.fromkeys(top for real in files for top in self.tops_for(real))
            for top in tops:
                try:
                    await self.check_top(top)
                except Exception as error:  # one broken check must not stop the session
                    _LOG.exception("checking %s failed", top)
                    self.check_failed(top, error)

    async def settled(self) -> None:
        """Return when no check is running or waiting."""
        while self.draining is not None and not self.draining.done():
            await asyncio.shield(self.draining)

    async def check_top(self, top: str) -> None:
        buffers = self.buffers()
        if not os.path.exists(top) and top not in buffers:
            return
        loop = asyncio.get_running_loop()
        previous = None if top in self.failed else self.checked.get(top)
        with pausing():  # the collection the check calls for comes after its diagnostics
            checked = await loop.run_in_executor(
                self.checker, analysis.check, top, buffers, self.openclaw, self.parses, previous
            )
            if self.still_open(top, checked):  # closed while checked: nothing to publish
                self.record(top, checked)
                self.prepare(checked)

    def prepare(self, checked: analysis.Checked) -> None:
        """Once, after the first check is published, in the check thread (a change that
        arrives meanwhile waits for it once): what later edits would otherwise pay for."""
        if not self.prepared:
            self.prepared = True
            self.checker.submit(_prepare, checked, self.openclaw, self.own_process)

    def still_open(self, top: str, checked: analysis.Checked) -> bool:
        """Whether `top` or a file its check read is still open in the editor."""
        open_files = self.buffers()
        return top in open_files or any(real in open_files for real in checked.files)

    def record(self, top: str, checked: analysis.Checked) -> None:
        self.checked[top] = checked
        self.failed.discard(top)
        # An open file that this config includes is checked in its context from now on.
        for real in checked.files:
            if real != top:
                self.checked.pop(real, None)
                self.failed.discard(real)
        grouped = analysis.diagnostics_by_file(checked)
        old = self.published.get(top, set())
        for real in old - set(grouped):
            self.publish(real, [], checked)
        for real, found in grouped.items():
            self.publish(real, found, checked)
        self.published[top] = set(grouped)

    def check_failed(self, top: str, error: Exception) -> None:
        """After a check that raised (a loopcfg bug, logged): the last good check no longer
        matches the text, so hover, completion and code actions stop reading it, the next
        check starts afresh, and the editor shows one error instead of findings for a text
        that is gone. Its entry stays in `checked`, which routes the edits of the files it
        includes to it."""
        self.parses = ParseCache()  # no check runs now: the next one parses everything again
        for real in self.published.pop(top, set()) - {top}:
            self.publish_items(real, [])
        last = self.checked.get(top)
        if top not in self.buffers() and (last is None or not self.still_open(top, last)):
            self.checked.pop(top, None)  # closed while checked: nothing to show or route
            self.failed.discard(top)
            return
        self.failed.add(top)
        where = raised_at(error)
        failure = types.Diagnostic(
            range=types.Range(start=_position(0, 0), end=_position(0, 0)),
            message=f"loopcfg could not check this file: an internal error "
            f"({type(error).__name__}: {error}{f', at {where}' if where else ''}; please report "
            "it); the next edit checks it again",
            severity=types.DiagnosticSeverity.Error,
            source="loopcfg",
        )
        self.publish_items(top, [failure])

    def publish(self, real: str, found: list[Diagnostic], checked: analysis.Checked) -> None:
        lines = self.lines_of(real, checked)
        self.publish_items(real, [self.to_lsp(d, lines) for d in found])

    def publish_items(self, real: str, items: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=from_fs_path(real) or real, diagnostics=items)
        )

    def lines_of(self, real: str, checked: analysis.Checked) -> LineMap:
        """The lines of the text that `checked` read (the buffer may have changed since)."""
        document = checked.document_for(real)
        if document is not None:
            return LineMap(document.text, document.format)
        return LineMap(self.buffers().get(real, ""), format_for(real))

    def to_lsp(self, diagnostic: Diagnostic, lines: LineMap) -> types.Diagnostic:
        message = diagnostic.message + (f" ({diagnostic.hint})" if diagnostic.hint else "")
        return types.Diagnostic(
            range=self.range_of(diagnostic.span, lines),
            message=message,
            severity=_SEVERITY[diagnostic.severity],
            code=diagnostic.code,
            source="loopcfg",
        )

    def range_of(self, span: Span | None, lines: LineMap) -> types.Range:
        if span is None:
            return types.Range(start=_position(0, 0), end=_position(0, 0))
        codec = self.workspace.position_codec
        return types.Range(
            start=lines.to_client(span.line, span.column, codec),
            end=lines.to_client(span.end_line, span.end_column, codec),
        )

    # -- positions from the client ----------------------------------------------------------------

    def cursor(self, uri: str, position: types.Position) -> tuple[str, int, int]:
        """(real path, 1-based line, 1-based code-point column)."""
        real = _path(uri)
        document = self.workspace.get_text_document(uri)
        lines = LineMap(document.source, format_for(real))
        line, column = lines.from_client(position, self.workspace.position_codec)
        return real, line, column

    def checked_for(self, real: str) -> analysis.Checked | None:
        for top in self.tops_for(real):
            if top in self.checked:
                return None if top in self.failed else self.checked[top]
        return None


def _prepare(checked: analysis.Checked, openclaw: str | None, own_process: bool) -> None:
    """The jsonschema validators of the config's target made before its first invalid text;
    in a process of its own, the objects of the first check (the parsed tree, the modules)
    frozen: the cyclic collector then no longer scans them in every later collection (a
    generation-1 collection during a check took up to 15 ms with them, 4 ms without; nothing
    of a check forms cycles to collect, loopcfg/collector.py). Not collected first: a full
    collection of the server's heap would keep the first edit waiting, and what cyclic
    garbage there is at that moment (the start-up's, once) is small."""
    try:
        analysis.prepare(checked, openclaw)
    except Exception:  # only a head start: the check makes them when it needs them
        _LOG.exception("preparing the validators failed")
    if own_process:
        gc.freeze()


def build_server(openclaw: str | None = None, *, own_process: bool = False) -> LoopcfgServer:
    server = LoopcfgServer(openclaw, own_process=own_process)

    @server.feature(types.INITIALIZE)
    def initialize(ls: LoopcfgServer, params: types.InitializeParams) -> None:
        # pygls made the workspace just now; documents are opened in it only after this.
        ls.workspace.__class__ = EditorLinesWorkspace

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LoopcfgServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LoopcfgServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LoopcfgServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(_path(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LoopcfgServer, params: types.DidCloseTextDocumentParams) -> None:
        real = _path(params.text_document.uri)
        if real in ls.failed and not ls.included_elsewhere(real):
            ls.failed.discard(real)
            ls.publish_items(real, [])  # the failure's error goes with the file
        if real in ls.checked and not ls.included_elsewhere(real):
            for file in ls.published.pop(real, set()):
                ls.publish(file, [], ls.checked[real])
            ls.checked.pop(real, None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: LoopcfgServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            ls.schedule(_path(change.uri))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: LoopcfgServer, params: types.HoverParams) -> types.Hover | None:
        await ls.settled()
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
    async def completion(ls: LoopcfgServer, params: types.CompletionParams) -> types.CompletionList:
        await ls.settled()
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
    async def code_action(
        ls: LoopcfgServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        await ls.settled()
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
        whole = types.Range(start=_position(0, 0), end=ls.lines_of(real, checked).end())
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


def serve(openclaw: str | None = None) -> str | None:
    """Run the server on standard input and output until the client says exit (or stdin
    ends); the problem that stopped it early, if one did."""
    if sys.stdin is None:
        return "standard input is closed"
    quiet_pygls_log()
    # The CLI holds the cyclic collector off for its short commands; a server runs for hours
    # and its framework (asyncio futures, exceptions) makes cycles: collected again, outside
    # the checks (`pausing`), and without the start-up's objects (`_prepare` freezes them).
    gc.enable()
    stdin = BoundedInput(sys.stdin.buffer)
    # pygls reads only `readline()` and `read(n)` of it.
    build_server(openclaw, own_process=True).start_io(stdin=cast(BinaryIO, stdin))
    return stdin.refused


__all__: list[Any] = ["LoopcfgServer", "build_server", "serve"]
