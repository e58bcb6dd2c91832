"""The `validate` pipeline for one file: load, validate, lint, suppress, select, sort.

A `FileReport` carries what was found and, for the text renderer's source lines, the text of
every file the diagnostics point into; nothing here formats anything (see loopcfg/render/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from loopcfg.collector import paused
from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.source import DEFAULT_MAX_BYTES
from loopcfg.source.nodes import Format

if TYPE_CHECKING:
    from loopcfg.config import LoadedConfig
    from loopcfg.memo import SubtreeMemo
    from loopcfg.releases import Target

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
    openclaw: str | None = None  # --openclaw VERSION (or `latest`); else meta.lastTouchedVersion


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
    # The OpenClaw release the file was checked for, as named (`--openclaw` or its
    # meta.lastTouchedVersion); None: no target. SARIF makes one run (category) per target.
    target: str | None = None

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


@paused
def check_file(
    path: str, options: CheckOptions | None = None, *, stdin: BinaryIO | None = None
) -> FileReport:
    """Run every check on `path` (`-` reads `stdin`, by default the process's standard input)."""
    from loopcfg.config import load_config

    opts = options or CheckOptions()
    loaded = load_config(
        path,
        env=opts.env,
        input_format=opts.input_format,
        stdin_filename=opts.stdin_filename,
        max_bytes=opts.max_bytes,
        stdin=stdin,
    )
    from loopcfg.validate import config_target

    target = config_target(loaded, opts.openclaw)
    found = loaded_findings(loaded, opts, target)
    sources = {name: document.text for name, document in loaded.documents.items()}
    if loaded.unparsed_text is not None:  # a syntax error (LC001) is shown under a caret too
        sources.setdefault(loaded.file, loaded.unparsed_text)
    diagnostics = sort_diagnostics(found)
    return FileReport(loaded.file, diagnostics, opts.strict, sources, target.name)


@paused
def loaded_findings(
    loaded: LoadedConfig,
    options: CheckOptions | None = None,
    target: Target | None = None,
    *,
    memo: SubtreeMemo | None = None,
) -> list[Diagnostic]:
    """Every finding of a loaded config for its target, suppressed and selected as `options`
    say (unsorted): what `validate` reports, and what `fix`, `migrate` and the LSP start from.
    `memo` (the language server's, one per open config) keeps what depends only on the parts
    of the config that the last edit did not touch (loopcfg/memo.py)."""
    from loopcfg.lint import lint_config
    from loopcfg.suppress import apply_suppressions, select
    from loopcfg.validate import (
        config_target,
        target_findings,
        validate_config,
        with_missing_env,
    )

    opts = options or CheckOptions()
    if target is None:
        target = config_target(loaded, opts.openclaw)
    found = with_missing_env(list(loaded.diagnostics), target)
    if loaded.root is not None:
        validation = validate_config(loaded, target, memo)
        found += validation
        # validated once: the slow part of a check
        found += lint_config(loaded, validation, target, memo)
        found += target_findings(loaded, target, memo)
    found = apply_suppressions(found, loaded.documents)
    return select(found, opts.select, opts.ignore, verbose=opts.verbose)


# The file names of OpenClaw configs: what `validate DIR` looks for, and what the pre-commit
# hook's `files` pattern matches (tests/cli/test_precommit.py holds the two together).
CONFIG_NAMES = ("openclaw.json", "openclaw.json5", "openclaw.yaml", "openclaw.yml")


def configs_in(directory: str) -> list[str]:
    """The OpenClaw configs under `directory`, sorted; hidden folders (.git) and symlinked
    folders (which may loop) are not entered."""
    import os

    found: list[str] = []
    for folder, subfolders, files in os.walk(directory):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".") and not os.path.islink(os.path.join(folder, name))
        )
        found.extend(os.path.join(folder, name) for name in sorted(files) if name in CONFIG_NAMES)
    return found


def _no_config_report(directory: str) -> FileReport:
    names = ", ".join(CONFIG_NAMES)
    message = f"is a directory with no OpenClaw config in it (looked for {names})"
    return FileReport(directory, (Diagnostic.at("LC000", "error", message, None, file=directory),))


def check_paths(
    paths: Sequence[str], options: CheckOptions | None = None, *, stdin: BinaryIO | None = None
) -> list[FileReport]:
    """Every named file; a directory stands for the OpenClaw configs found in it."""
    import os

    reports: list[FileReport] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = configs_in(path)
            if not found:
                reports.append(_no_config_report(path))
            reports.extend(check_file(config, options) for config in found)
            continue
        reports.append(check_file(path, options, stdin=stdin))
    return reports
