"""The `validate` pipeline for one file: load, validate, lint, suppress, select, sort."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.source.nodes import Format


@dataclass(frozen=True, slots=True)
class CheckOptions:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    verbose: bool = False
    input_format: Format | None = None
    stdin_filename: str | None = None
    env: Mapping[str, str] | None = None
    max_bytes: int = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    strict: bool = False

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


def check_file(path: str, options: CheckOptions | None = None) -> FileReport:
    from loopcfg.config import load_config
    from loopcfg.lint import lint_config
    from loopcfg.suppress import apply_suppressions, select
    from loopcfg.validate import validate_config

    opts = options or CheckOptions()
    loaded = load_config(
        path,
        env=opts.env,
        input_format=opts.input_format,
        stdin_filename=opts.stdin_filename,
        max_bytes=opts.max_bytes,
    )
    found = list(loaded.diagnostics)
    if loaded.root is not None:
        found += validate_config(loaded)
        found += lint_config(loaded)
    found = apply_suppressions(found, loaded.documents)
    found = select(found, opts.select, opts.ignore, verbose=opts.verbose)
    return FileReport(loaded.file, sort_diagnostics(found), opts.strict)


def check_paths(paths: Sequence[str], options: CheckOptions | None = None) -> list[FileReport]:
    return [check_file(path, options) for path in paths]
