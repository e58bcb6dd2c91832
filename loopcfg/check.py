"""The `validate` pipeline for one file: load, validate, lint, suppress, select, sort.

A `FileReport` carries what was found and, for the text renderer's source lines, the text of
every file the diagnostics point into; nothing here formats anything (see loopcfg/render/).
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import BinaryIO, NamedTuple

from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.source import DEFAULT_MAX_BYTES
from loopcfg.source.nodes import Format

# NamedTuples, not dataclasses: a frozen dataclass costs about 2 ms of code generation when the
# module is imported, on every `loopcfg validate`; a NamedTuple about 0.2 ms.


class CheckOptions(NamedTuple):
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    verbose: bool = False
    input_format: Format | None = None
    stdin_filename: str | None = None
    env: Mapping[str, str] | None = None
    max_bytes: int = DEFAULT_MAX_BYTES


class FileReport(NamedTuple):
    """The findings for one named file (sorted), and the source texts they point into.

    `sources` maps a file name as the diagnostics spell it (`Diagnostic.file`, `Span.file`) to
    that file's text: every document read, plus the text of a file that failed to parse (LC001)
    so its syntax error can be shown under a caret too.
    """

    path: str
    diagnostics: Sequence[Diagnostic] = ()
    strict: bool = False
    sources: Mapping[str, str] = MappingProxyType({})

    @property
    def unreadable(self) -> bool:
        return any(d.code == "LC000" for d in self.diagnostics)

    @property
    def valid(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)

    @property
    def exit_code(self) -> int:
        """2 when the file could not be read, 1 for errors (or warnings with --strict), else 0."""
        if self.unreadable:
            return 2
        if not self.valid:
            return 1
        if self.strict and any(d.severity == "warning" for d in self.diagnostics):
            return 1
        return 0


def check_file(
    path: str, options: CheckOptions | None = None, *, stdin: BinaryIO | None = None
) -> FileReport:
    """Run every check on `path` (`-` reads `stdin`, by default the process's standard input)."""
    from loopcfg.config import load_config
    from loopcfg.lint import lint_config
    from loopcfg.suppress import apply_suppressions, select
    from loopcfg.validate import validate_config

    opts = options or CheckOptions()
    stdin_data: bytes | None = None
    if path == "-":
        # Read it here (at most one byte over the limit, which the loader then refuses) so the
        # text is still at hand for the source line of a syntax error.
        stdin_data = _read_stdin(stdin, opts.max_bytes)
    loaded = load_config(
        path,
        env=opts.env,
        input_format=opts.input_format,
        stdin_filename=opts.stdin_filename,
        max_bytes=opts.max_bytes,
        stdin=None if stdin_data is None else io.BytesIO(stdin_data),
    )
    found = list(loaded.diagnostics)
    if loaded.root is not None:
        validation = validate_config(loaded)
        found += validation
        found += lint_config(loaded, validation)  # validated once: the slow part of a check
    found = apply_suppressions(found, loaded.documents)
    found = select(found, opts.select, opts.ignore, verbose=opts.verbose)
    sources = {name: document.text for name, document in loaded.documents.items()}
    for diagnostic in found:
        if diagnostic.code == "LC001" and diagnostic.file not in sources:
            text = _unparsed_text(diagnostic.file, loaded.file, stdin_data, opts.max_bytes)
            if text is not None:
                sources[diagnostic.file] = text
    return FileReport(loaded.file, sort_diagnostics(found), opts.strict, sources)


def check_paths(
    paths: Sequence[str], options: CheckOptions | None = None, *, stdin: BinaryIO | None = None
) -> list[FileReport]:
    return [check_file(path, options, stdin=stdin) for path in paths]


def _read_stdin(stream: BinaryIO | None, max_bytes: int) -> bytes | None:
    source = stream if stream is not None else getattr(sys.stdin, "buffer", None)
    if source is None:
        return None  # no byte stream: the loader reads (and reports) standard input itself
    try:
        return source.read(max_bytes + 1)
    except OSError:
        return None  # the loader reads again and reports the error as LC000


def _unparsed_text(name: str, top: str, stdin_data: bytes | None, max_bytes: int) -> str | None:
    """The text of a file that did not parse, for its source line; None when unavailable."""
    if stdin_data is not None and name == top:
        data: bytes | None = stdin_data[:max_bytes]
    else:
        data = _read_regular_file(name, max_bytes)
    return None if data is None else data.decode("utf-8", "replace")


def _read_regular_file(name: str, max_bytes: int) -> bytes | None:
    try:
        info = os.stat(name)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        with open(name, "rb") as stream:
            return stream.read(max_bytes)
    except OSError:
        return None
