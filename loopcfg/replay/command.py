"""The `replay` command's body: options in, output and exit code out (cli.py wires click)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, TextIO, cast

from loopcfg.replay.configs import ConfigRefused, load_table
from loopcfg.replay.driver import ReplayOptions
from loopcfg.replay.events import Malformed, OutputFailed
from loopcfg.replay.lines import STDIN
from loopcfg.replay.runner import FileReplay

if TYPE_CHECKING:
    from loopcfg.replay.parallel import ReplayInput
    from loopcfg.replay.store_inputs import Expansion

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
FailOn = Literal["warning", "critical", "abort"]


@dataclass(frozen=True, slots=True)
class CommandOptions:
    """The replay command's options as parsed, for `run_replay`."""

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
    stats: bool = False
    # A Dask scheduler (tcp://HOST:PORT) or local:N; None replays with --jobs processes.
    scheduler: str | None = None
    # OpenClaw session stores (10.5).
    sessions: tuple[str, ...] = ()
    profile: str | None = None
    list_only: bool = False
    allow_newer_schema: bool = False
    # --openclaw VERSION (or `latest`): the target release, which picks the engine (09).
    openclaw: str | None = None


class UsageError(Exception):
    """A one-line problem with the options; exit 2."""


def run_replay(command: CommandOptions, out: TextIO, err: TextIO) -> int:
    """Replay, writing the output to `out` as it is found and notes to `err`; returns the exit
    code. Never raises for bad input."""
    from loopcfg.replay.store_inputs import SelectionError, release_hints

    notes = Notes(err)
    try:
        if command.list_only:
            return _list_sessions(command, notes, out)
        expansion = _expansion(command, notes)
        files = expansion.inputs
        baseline, candidate = _configs(command, notes)
        baseline, header = _target(command, baseline, notes)
        if candidate is not None:
            candidate = replace(candidate, openclaw=baseline.openclaw)
    except UsageError as error:  # the shape of click's own usage errors (cli.OneLineUsage)
        notes.add(f"loopcfg replay: error: {error} (see loopcfg replay --help)")
        return EXIT_USAGE
    except (SelectionError, InputError) as error:
        notes.add(f"loopcfg replay: error: {error}")
        return EXIT_USAGE
    except ConfigRefused as refused:
        from loopcfg.render.diagnostics import diagnostic_line

        notes.extend([diagnostic_line(d) for d in refused.diagnostics])
        return EXIT_USAGE
    notes.extend(release_hints(expansion.app_versions, header["target"]))
    if not files:
        # Name where it looked and for what: a folder of *.log files is not a bug of loopcfg.
        where = ", ".join(command.paths)
        notes.add(
            f"loopcfg replay: error: no session files found in {where} (--glob {command.glob})"
        )
        return EXIT_USAGE
    if candidate is None:
        return _replay_streamed(files, baseline, command, out, notes, header)
    return _replay_compared(files, baseline, candidate, command, out, notes)


class Notes:
    """Lines for stderr, written at once: they quote file names and ids from the input, so
    each is made one printable line."""

    def __init__(self, err: TextIO) -> None:
        self.err = err

    def add(self, line: str) -> None:
        from loopcfg.render import printable

        self.err.write(printable(line) + "\n")
        self.err.flush()

    def extend(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.add(line)

    append = add

    def problem(self, problem: Malformed) -> None:
        self.add(problem.render())


@dataclass(slots=True)
class Outcomes:
    """What decides the exit code, gathered file by file (the files themselves are not kept)."""

    notes: Notes
    files: int = 0
    errors: int = 0
    unusable: bool = False
    critical: bool = False
    warned: bool = False
    aborted: bool = False

    def add(self, result: FileReplay) -> None:
        self.notes.extend(_file_notes([result]))
        self.files += 1
        self.errors += result.error is not None
        self.unusable = self.unusable or _input_code([result]) != EXIT_OK
        self.critical = self.critical or result.critical
        self.warned = self.warned or result.warned
        self.aborted = self.aborted or result.aborted


def _replay_streamed(
    files: list[ReplayInput],
    options: ReplayOptions,
    command: CommandOptions,
    out: TextIO,
    notes: Notes,
    header: dict[str, str | None],
) -> int:
    try:
        guarded = cast(TextIO, _GuardedOutput(out))  # the renderers only write and flush
        return _stream(files, options, command, guarded, notes, header)
    except OutputFailed as failed:
        # One line and exit 2 from the command line (commandline.OutputError), once for the
        # run, instead of a "cannot replay" blamed on each file in turn.
        raise failed.error from None


class _GuardedOutput(io.TextIOBase):
    """The output as the renderers see it: a failed write is an OutputFailed, which a file's
    replay lets through (`parallel.safe_replay`) where any other error is that file's."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self._out = out

    def write(self, text: str) -> int:
        try:
            return self._out.write(text)
        except OSError as error:
            raise OutputFailed(error) from None

    def flush(self) -> None:
        try:
            self._out.flush()
        except OSError as error:
            raise OutputFailed(error) from None


def _stream(
    files: list[ReplayInput],
    options: ReplayOptions,
    command: CommandOptions,
    out: TextIO,
    notes: Notes,
    header: dict[str, str | None],
) -> int:
    from loopcfg.render.replay import JsonStream, TextStream
    from loopcfg.replay.parallel import input_size, stream_replays, tty_progress

    writer: JsonStream | TextStream
    if command.output_format == "json":
        writer = JsonStream(
            out, show_args=command.show_args, on_problem=notes.problem, openclaw=header
        )
    else:
        writer = TextStream(out, show_args=command.show_args, on_problem=notes.problem)
    progress = tty_progress(sum(input_size(path) for path in files), label="replay")
    outcomes = Outcomes(notes)
    if command.scheduler is not None:
        from loopcfg.replay.dask_backend import SchedulerError, stream_on_dask

        try:
            stream_on_dask(
                files, options, writer, command.scheduler, progress=progress, on_file=outcomes.add
            )
        except SchedulerError as error:
            notes.add(f"loopcfg replay: error: {error}")
            return EXIT_USAGE
    else:
        jobs = _jobs(command)
        stream_replays(files, options, writer, jobs=jobs, progress=progress, on_file=outcomes.add)
    if outcomes.errors == outcomes.files:
        # Nothing was read: a summary of zero sessions would only hide the errors above it.
        return EXIT_USAGE
    writer.finish()
    return max(EXIT_USAGE if outcomes.unusable else EXIT_OK, _fail_code(outcomes, command.fail_on))


def _replay_compared(
    files: list[ReplayInput],
    baseline: ReplayOptions,
    candidate: ReplayOptions,
    command: CommandOptions,
    out: TextIO,
    notes: Notes,
) -> int:
    """--compare pairs every session of both sides, so both are kept whole (not streamed)."""
    from loopcfg.render.replay import render_compare_json, render_compare_text
    from loopcfg.replay.compare import compare_results

    results = _replay(files, baseline, _jobs(command), "replay a")
    notes.extend(_problems(results))
    if all(result.error is not None for result in results):
        return EXIT_USAGE
    others = _replay(files, candidate, _jobs(command), "replay b")
    assert baseline.table is not None and candidate.table is not None
    comparison = compare_results(results, others, baseline.table, candidate.table)
    if command.output_format == "json":
        out.write(render_compare_json(comparison))
    else:
        out.write(render_compare_text(comparison))
    return max(_input_code(results), _input_code(others))


class InputError(Exception):
    """No input to read (the default state dir is missing): exit 2, without --help."""


def _expansion(command: CommandOptions, notes: Notes) -> Expansion:
    """Files, store sessions and unreadable stores, in the order found (10.5)."""
    from loopcfg.replay.store_inputs import expand_inputs

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
    return expansion


def _default_state_dir(command: CommandOptions, notes: Notes) -> str:
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


def _list_sessions(command: CommandOptions, notes: Notes, out: TextIO) -> int:
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
    notes.extend(failures)
    out.write(text)
    return EXIT_USAGE if failures else EXIT_OK


def _replay(
    files: list[ReplayInput], options: ReplayOptions, jobs: int, label: str
) -> list[FileReplay]:
    from loopcfg.replay.parallel import input_size, replay_files, tty_progress

    progress = tty_progress(sum(input_size(path) for path in files), label=label)
    return replay_files(files, options, jobs=jobs, progress=progress)


def _jobs(command: CommandOptions) -> int:
    from loopcfg.replay.parallel import default_jobs

    return command.jobs or default_jobs()


def _configs(command: CommandOptions, notes: Notes) -> tuple[ReplayOptions, ReplayOptions | None]:
    """The baseline and the compared options, each with its config resolved once."""
    base = replace(command.options, keep_args=command.show_args, stats=command.stats)
    if len(command.agents) > 2:
        raise UsageError("--agent at most twice (the second one is compared with the first)")
    if command.compare is not None and len(command.agents) > 1:
        raise UsageError("use either --compare FILE or two --agent options, not both")
    compared = command.compare is not None or len(command.agents) == 2
    if compared and command.fail_on is not None:
        raise UsageError("--fail-on judges one config; run it without --compare")
    if STDIN in (base.config, command.compare) and STDIN in command.paths:
        raise UsageError("stdin (-) cannot be both a config and a session")
    if command.scheduler is not None:
        _check_scheduler(command, compared)
    if base.config is None:
        notes.add("loopcfg replay: no --config: OpenClaw's defaults with enabled: true")
    first = _resolved(replace(base, agent=command.agents[0] if command.agents else None), notes)
    if command.compare is not None:
        return first, _resolved(replace(first, config=command.compare, table=None), notes)
    if len(command.agents) == 2:
        return first, _resolved(replace(first, agent=command.agents[1], table=None), notes)
    return first, None


def _check_scheduler(command: CommandOptions, compared: bool) -> None:
    """--scheduler ships paths to workers: stdin cannot go, and --compare stays local."""
    from loopcfg.replay.dask_backend import SchedulerError, check_installed, parse_scheduler

    if STDIN in command.paths:
        raise UsageError("--scheduler replays files on workers; stdin (-) cannot be sent")
    if compared:
        raise UsageError("--scheduler does not run --compare; compare with --jobs")
    try:
        check_installed()
        parse_scheduler(command.scheduler or "")
    except SchedulerError as error:
        raise UsageError(str(error)) from None


def _resolved(options: ReplayOptions, notes: Notes) -> ReplayOptions:
    table, found = load_table(options.config, options.agent, options.max_bytes)
    notes.extend(found)
    return replace(options, table=table)


def _problems(results: Sequence[FileReplay]) -> list[str]:
    """Kept results' malformed lines, then each file's own notes."""
    lines = [problem.render() for result in results for problem in result.problems]
    return lines + _file_notes(results)


def _file_notes(results: Sequence[FileReplay]) -> list[str]:
    lines: list[str] = []
    for result in results:
        if result.stopped:
            lines.append(f"{result.file}: replay stopped at the first malformed line (--strict)")
        elif result.unreadable:
            lines.append(
                f"{result.file}: LC000 error: no line of it could be read"
                f" ({result.malformed} malformed); nothing was replayed"
            )
        if result.error is not None:
            lines.append(result.error)
        if result.incomplete is not None:
            lines.append(result.incomplete)
    return lines


def _input_code(results: Sequence[FileReplay]) -> int:
    """2 when a file could not be read, stopped (--strict), yielded nothing readable (05: a
    CI gate never passes on nothing) or a store session ended early (10.6)."""
    unusable = any(
        r.error is not None or r.stopped or r.unreadable or r.incomplete for r in results
    )
    return EXIT_USAGE if unusable else EXIT_OK


def _fail_code(outcomes: Outcomes, fail_on: FailOn | None) -> int:
    if fail_on is None:
        return EXIT_OK
    aborted, critical, warned = outcomes.aborted, outcomes.critical, outcomes.warned
    failed = {
        "abort": aborted,
        "critical": aborted or critical,
        "warning": aborted or critical or warned,
    }[fail_on]
    return EXIT_PROBLEMS if failed else EXIT_OK


def _target(
    command: CommandOptions, options: ReplayOptions, notes: Notes
) -> tuple[ReplayOptions, dict[str, str | None]]:
    """The target release and its engine (README decision 2; 09): `--openclaw`, else the
    --config file's meta.lastTouchedVersion, else unknown (E6.5). Never a store's app_version."""
    from loopcfg.engine.generations import generation
    from loopcfg.releases import choose_target

    meta = options.table.meta_version if options.table is not None else None
    target = choose_target(command.openclaw, meta if options.config is not None else None)
    try:
        chosen = generation(target.release.name if target.release is not None else None)
    except ValueError as error:
        raise UsageError(str(error)) from None
    source = {"option": "--openclaw", "meta": "meta.lastTouchedVersion", "none": "none"}
    if target.release is None:
        what = (
            f"{target.requested} is not a release loopcfg knows"
            if target.requested
            else ("no target release (--openclaw, or meta.lastTouchedVersion in --config)")
        )
        notes.append(f"loopcfg replay: {what}: replaying with engine {chosen.name}")
    elif chosen.transitional:
        notes.append(
            f"loopcfg replay: OpenClaw {target.release.name} is a pre-release whose engine "
            f"loopcfg does not model (2026.7.2-beta.4 - 2026.8.1-beta.3): replaying with "
            f"{chosen.name}"
        )
    header = {
        "target": target.release.name if target.release is not None else None,
        "source": source[target.source],
        "engine": chosen.name,
    }
    return replace(options, openclaw=chosen.target), header
