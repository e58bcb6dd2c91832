"""The `replay` command's body: options in, output and exit code out (cli.py wires click)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from loopcfg.replay.configs import ConfigRefused, load_table
from loopcfg.replay.driver import ReplayOptions
from loopcfg.replay.lines import STDIN
from loopcfg.replay.runner import FileReplay

if TYPE_CHECKING:
    from loopcfg.replay.parallel import ReplayInput
    from loopcfg.replay.store_inputs import Expansion

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
FailOn = Literal["warning", "critical", "abort"]


@dataclass(frozen=True, slots=True)
class CommandOptions:
    paths: tuple[str, ...]
    options: ReplayOptions
    agents: tuple[str, ...] = ()
    compare: str | None = None
    output_format: str = "text"
    fail_on: FailOn | None = None
    glob: str = "*.jsonl"
    include_bak: bool = False
    show_args: bool = False
    jobs: int | None = None
    # OpenClaw session stores (10.5).
    sessions: tuple[str, ...] = ()
    profile: str | None = None
    list_only: bool = False
    allow_newer_schema: bool = False


class UsageError(Exception):
    """A one-line problem with the options; exit 2."""


def run_replay(command: CommandOptions) -> tuple[str, list[str], int]:
    """Returns (stdout text, stderr lines, exit code); never raises for bad input."""
    from loopcfg.replay.parallel import default_jobs
    from loopcfg.replay.store_inputs import SelectionError

    notes: list[str] = []
    try:
        if command.list_only:
            return _list_sessions(command, notes)
        files = _inputs(command, notes)
        baseline, candidate = _configs(command, notes)
    except UsageError as error:  # the shape of click's own usage errors (cli.OneLineUsage)
        line = f"loopcfg replay: error: {error} (see loopcfg replay --help)"
        return "", [*notes, line], EXIT_USAGE
    except (SelectionError, InputError) as error:
        return "", [*notes, f"loopcfg replay: error: {error}"], EXIT_USAGE
    except ConfigRefused as refused:
        from loopcfg.render.diagnostics import diagnostic_line

        return "", [*notes, *(diagnostic_line(d) for d in refused.diagnostics)], EXIT_USAGE
    if not files:
        # Name where it looked and for what: a folder of *.log files is not a bug of loopcfg.
        where = ", ".join(command.paths)
        line = f"loopcfg replay: error: no session files found in {where} (--glob {command.glob})"
        return "", [*notes, line], EXIT_USAGE
    jobs = command.jobs or default_jobs()
    results = _replay(files, baseline, jobs, "replay" if candidate is None else "replay a")
    notes.extend(_problems(results))
    code = _input_code(results)
    if all(result.error is not None for result in results):
        # Nothing was read: a summary of zero sessions would only hide the errors above it.
        return "", notes, EXIT_USAGE
    if candidate is None:
        out = _render(results, command)
        return out, notes, max(code, _fail_code(results, command.fail_on))
    others = _replay(files, candidate, jobs, "replay b")
    from loopcfg.render.replay import render_compare_json, render_compare_text
    from loopcfg.replay.compare import compare_results

    assert baseline.table is not None and candidate.table is not None
    comparison = compare_results(results, others, baseline.table, candidate.table)
    if command.output_format == "json":
        text = render_compare_json(comparison)
    else:
        text = render_compare_text(comparison)
    return text, notes, max(code, _input_code(others))


class InputError(Exception):
    """No input to read (the default state dir is missing): exit 2, without --help."""


def _inputs(command: CommandOptions, notes: list[str]) -> list[ReplayInput]:
    """Files, store sessions and unreadable stores, in the order found (10.5)."""
    return _expansion(command, notes).inputs


def _expansion(command: CommandOptions, notes: list[str]) -> Expansion:
    from loopcfg.replay.store_inputs import expand_inputs, release_hints

    if command.profile is not None and command.paths:
        notes.append("loopcfg replay: --profile only chooses the state dir read without PATH")
    paths = command.paths or (_default_state_dir(command, notes),)
    expansion = expand_inputs(
        paths,
        sessions=command.sessions,
        glob=command.glob,
        include_bak=command.include_bak,
        allow_newer=command.allow_newer_schema,
    )
    notes.extend(expansion.notes)
    if not command.list_only:
        notes.extend(release_hints(expansion.app_versions, command.options))
    return expansion


def _default_state_dir(command: CommandOptions, notes: list[str]) -> str:
    """No PATH: OpenClaw's state directory (10.1), or `--profile`'s."""
    import os
    from pathlib import Path

    from loopcfg.statedir import ProfileError, state_dir

    try:
        home = Path.home()
    except RuntimeError:
        home = Path("~")
    try:
        folder = state_dir(os.environ, home=home, profile=command.profile)
    except ProfileError as error:
        raise UsageError(str(error)) from None
    if not folder.is_dir():
        raise InputError(
            f"no OpenClaw state directory at {folder}; name a PATH or set OPENCLAW_STATE_DIR"
        )
    notes.append(f"loopcfg replay: reading {folder}")
    return str(folder)


def _list_sessions(command: CommandOptions, notes: list[str]) -> tuple[str, list[str], int]:
    """`--list`: the sessions a replay would read; nothing is replayed."""
    from loopcfg.render.store_list import render_list_json, render_list_text
    from loopcfg.replay.store_inputs import StoreFailure

    expansion = _expansion(command, notes)
    failures = [item.message for item in expansion.inputs if isinstance(item, StoreFailure)]
    listings = expansion.listings
    text = (
        render_list_json(listings)
        if command.output_format == "json"
        else render_list_text(listings)
    )
    return text, [*notes, *failures], EXIT_USAGE if failures else EXIT_OK


def _replay(
    files: list[ReplayInput], options: ReplayOptions, jobs: int, label: str
) -> list[FileReplay]:
    from loopcfg.replay.parallel import input_size, replay_files, tty_progress

    progress = tty_progress(sum(input_size(path) for path in files), label=label)
    return replay_files(files, options, jobs=jobs, progress=progress)


def _configs(
    command: CommandOptions, notes: list[str]
) -> tuple[ReplayOptions, ReplayOptions | None]:
    """The baseline and the compared options, each with its config resolved once."""
    base = replace(command.options, keep_args=command.show_args)
    if len(command.agents) > 2:
        raise UsageError("--agent at most twice (the second one is compared with the first)")
    if command.compare is not None and len(command.agents) > 1:
        raise UsageError("use either --compare FILE or two --agent options, not both")
    compared = command.compare is not None or len(command.agents) == 2
    if compared and command.fail_on is not None:
        raise UsageError("--fail-on judges one config; run it without --compare")
    if STDIN in (base.config, command.compare) and STDIN in command.paths:
        raise UsageError("stdin (-) cannot be both a config and a session")
    if base.config is None:
        notes.append("loopcfg replay: no --config: OpenClaw's defaults with enabled: true")
    first = _resolved(replace(base, agent=command.agents[0] if command.agents else None), notes)
    if command.compare is not None:
        return first, _resolved(replace(first, config=command.compare, table=None), notes)
    if len(command.agents) == 2:
        return first, _resolved(replace(first, agent=command.agents[1], table=None), notes)
    return first, None


def _resolved(options: ReplayOptions, notes: list[str]) -> ReplayOptions:
    table, found = load_table(options.config, options.agent, options.max_bytes)
    notes.extend(found)
    return replace(options, table=table)


def _problems(results: Sequence[FileReplay]) -> list[str]:
    lines: list[str] = []
    for result in results:
        lines.extend(problem.render() for problem in result.problems)
        if result.stopped:
            lines.append(f"{result.file}: replay stopped at the first malformed line (--strict)")
        if result.error is not None:
            lines.append(result.error)
        if result.incomplete is not None:
            lines.append(result.incomplete)
    return lines


def _input_code(results: Sequence[FileReplay]) -> int:
    unusable = any(r.error is not None or r.stopped or r.incomplete for r in results)
    return EXIT_USAGE if unusable else EXIT_OK


def _fail_code(results: Sequence[FileReplay], fail_on: FailOn | None) -> int:
    if fail_on is None:
        return EXIT_OK
    aborted = any(r.aborts for r in results)
    critical = any(e.level == "critical" for r in results for e in r.events)
    warned = any(e.level == "warning" and e.emitted for r in results for e in r.events)
    failed = {
        "abort": aborted,
        "critical": aborted or critical,
        "warning": aborted or critical or warned,
    }[fail_on]
    return EXIT_PROBLEMS if failed else EXIT_OK


def _render(results: Sequence[FileReplay], command: CommandOptions) -> str:
    from loopcfg.render.replay import render_json, render_text

    readable = [r for r in results if r.error is None]
    if command.output_format == "json":
        return render_json(readable, show_args=command.show_args)
    return render_text(readable, show_args=command.show_args)


def emit(text: str, notes: Sequence[str]) -> None:
    from loopcfg.render import printable

    for note in notes:  # they quote file names and ids from the input: one printable line each
        sys.stderr.write(printable(note) + "\n")
    sys.stdout.write(text)
