"""The command line: wires click to the library and hands results to renderers.

Commands import what they use inside their own function body, so `loopcfg --version` and
`loopcfg validate` load only what they need (import time is measured, see docs/performance.md).
Each command is one function below; keep finding and rendering out of this file.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

import click

from loopcfg import __version__

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


def stdout_is_tty() -> bool:
    """Whether standard output is a terminal (one place, so tests can say it is)."""
    return sys.stdout.isatty()


def color_enabled(no_color: bool) -> bool:
    """Colour only on a tty, and never with --no-color or a non-empty NO_COLOR (no-color.org)."""
    return not no_color and not os.environ.get("NO_COLOR") and stdout_is_tty()


class OneLineUsage(click.Command):
    """A command whose usage errors are one line, `loopcfg CMD: error: ...`, exit 2.

    click's default is a usage block and a "Try ..." line; for a checker run in CI, one line
    that says what is wrong reads better in a log.
    """

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as error:
            raise _OneLineError(error, info_name or self.name or "") from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise _OneLineError(error, ctx.info_name or "") from None


class _OneLineError(click.ClickException):
    exit_code = EXIT_USAGE

    def __init__(self, error: click.UsageError, command: str) -> None:
        super().__init__(error.format_message())
        self.command = command

    def show(self, file: Any = None) -> None:
        click.echo(
            f"loopcfg {self.command}: error: {self.format_message()} "
            f"(see loopcfg {self.command} --help)",
            err=True,
        )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="loopcfg")
@click.option("--no-color", is_flag=True, help="Never colour output (NO_COLOR is honoured too).")
@click.pass_context
def cli(ctx: click.Context, no_color: bool) -> None:
    """Validate, resolve, run and replay OpenClaw's tools.loopDetection.

    \b
    Examples:
      loopcfg validate openclaw.json5
      loopcfg resolve --agent safe-runner --explain
      loopcfg schema --out openclaw.schema.json
      loopcfg replay ~/.openclaw/agents/main/sessions/ --config openclaw.json5
    """
    ctx.ensure_object(dict)
    ctx.obj["color"] = color_enabled(no_color)
    ctx.obj["tty"] = stdout_is_tty()


# -- commands: each helper adds its command below this line, one function per command --

_F = TypeVar("_F", bound=Callable[..., Any])
MAX_BYTES = 2 * 1024 * 1024  # loopcfg.source.DEFAULT_MAX_BYTES, without importing it here


def max_bytes_option(what: str) -> Callable[[_F], _F]:
    """`--max-bytes N`: validate, resolve and replay read configs with the same size limit."""
    return click.option(
        "--max-bytes",
        type=click.IntRange(min=1),
        metavar="N",
        default=MAX_BYTES,
        show_default=True,
        help=f"Size limit per {what}; larger files are refused (LC000).",
    )


@cli.command("validate", cls=OneLineUsage)
@click.argument("files", nargs=-1)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "sarif", "github"]),
    default="text",
    show_default=True,
    help="Output format (text shows source lines and carets on a terminal).",
)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option(
    "--select",
    "select_codes",
    multiple=True,
    metavar="CODES",
    help="Only these codes (prefixes, comma-separated: LC1,LC201).",
)
@click.option(
    "--ignore", "ignore_codes", multiple=True, metavar="CODES", help="Drop these codes (prefixes)."
)
@click.option("--verbose", is_flag=True, help="Also show information (LC2xx).")
@click.option(
    "--input-format",
    type=click.Choice(["json5", "json", "yaml"]),
    default=None,
    help="Parse as this format whatever the file name says.",
)
@click.option(
    "--stdin-filename", default=None, metavar="NAME", help="Name of `-` (stdin) in messages."
)
@click.option(
    "--env-file", "env_file", metavar="FILE", help="dotenv file with ${VAR} values (env wins)."
)
@max_bytes_option("file")
@click.option("--no-color", is_flag=True, help="Never colour output (NO_COLOR is honoured too).")
@click.pass_context
def validate_command(
    ctx: click.Context,
    files: tuple[str, ...],
    output_format: str,
    strict: bool,
    select_codes: tuple[str, ...],
    ignore_codes: tuple[str, ...],
    verbose: bool,
    input_format: str | None,
    stdin_filename: str | None,
    env_file: str | None,
    max_bytes: int,
    no_color: bool,
) -> None:
    """Check syntax, schema and every lint of config files.

    With no FILE: $OPENCLAW_CONFIG_PATH, ./openclaw.json5, ./openclaw.json, then
    ~/.openclaw/openclaw.json. `-` reads standard input. Exit 0 no errors, 1 problems found
    (warnings too with --strict), 2 usage or I/O error.

    \b
    Examples:
      loopcfg validate openclaw.json5
      loopcfg validate openclaw.json5 --format sarif > loopcfg.sarif
      cat openclaw.json5 | loopcfg validate - --stdin-filename openclaw.json5
    """
    from loopcfg.check import CheckOptions, check_paths
    from loopcfg.render.diagnostics import RENDERERS, RenderOptions

    if files.count("-") > 1:  # the second read finds stdin drained: "the file is empty"
        raise click.UsageError("- (standard input) can be named only once")
    _check_codes("--select", select_codes)
    _check_codes("--ignore", ignore_codes)
    paths = list(files)
    if not paths:
        from loopcfg.resolve import default_config_path

        found = default_config_path()
        if found is None:
            _usage_exit(f"loopcfg validate: error: no config file named and none found ({LOOKUP})")
        paths = [str(found)]
    env = _environment_or_exit(env_file)
    options = CheckOptions(
        select=tuple(select_codes),
        ignore=tuple(ignore_codes),
        strict=strict,
        verbose=verbose,
        input_format=input_format,  # type: ignore[arg-type]
        stdin_filename=stdin_filename,
        env=env,
        max_bytes=max_bytes,
    )
    reports = check_paths(paths, options)
    obj = ctx.obj or {}
    color = bool(obj.get("color", False)) and color_enabled(no_color)
    render = RenderOptions(source=bool(obj.get("tty", False)), color=color)
    click.echo(RENDERERS[output_format](reports, render), nl=False, color=color)
    sys.exit(max(report.exit_code for report in reports))


# Where validate and resolve look for a config when none is named (05-cli).
LOOKUP = "$OPENCLAW_CONFIG_PATH, ./openclaw.json5, ./openclaw.json, ~/.openclaw/openclaw.json"


def _usage_exit(line: str) -> NoReturn:
    click.echo(line, err=True)
    sys.exit(EXIT_USAGE)


def _environment_or_exit(env_file: str | None) -> Mapping[str, str]:
    """The environment overlaid on `--env-file`; a bad env file is one line and exit 2."""
    from loopcfg.envvars import EnvFileError, environment_with
    from loopcfg.render.diagnostics import diagnostic_line

    try:
        return environment_with(env_file)
    except EnvFileError as error:
        _usage_exit(diagnostic_line(error.diagnostic))


def _check_codes(option: str, values: tuple[str, ...]) -> None:
    """A usage error for a code prefix that names no diagnostic (`--select LC999`)."""
    from loopcfg.suppress import unknown_prefixes

    for prefix in unknown_prefixes(values):
        from loopcfg.explain import suggest_codes  # difflib: only when there is a typo

        close = suggest_codes(prefix)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise click.UsageError(f"{option} {prefix}: no diagnostic code starts with it{hint}")


@cli.command("schema", cls=OneLineUsage)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the schema to FILE instead of stdout.",
)
@click.option("--block-only", is_flag=True, help="Only the tools.loopDetection block's schema.")
def schema_command(out: str | None, block_only: bool) -> None:
    """Print the JSON Schema (draft-07) for editors and other validators.

    \b
    Examples:
      loopcfg schema --out schema/openclaw-loopdetection.schema.json
      loopcfg schema --block-only
    """
    from loopcfg.schema import block_schema, build_schema, dump_schema

    text = dump_schema(block_schema() if block_only else build_schema())
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        with open(out, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
    except OSError as error:
        # No position: the file was not written (the documented `file: CODE ...` shape).
        _usage_exit(f"{out}: LC000 error: cannot write the schema: {error.strerror}")


@cli.command("replay", cls=OneLineUsage)
@click.argument("traces", nargs=-1, required=True)
@click.option("--config", "config", help="Config file to resolve (default: defaults, enabled).")
@click.option("--agent", "agents", multiple=True, help="Agent id; twice compares two agents.")
@click.option("--compare", "compare", help="A second config to compare with, side by side.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--fail-on", type=click.Choice(["warning", "critical", "abort"]), default=None)
@click.option("--strict", is_flag=True, help="Stop at the first malformed line (exit 2).")
@click.option("--input", "input_format", type=click.Choice(["trace", "openclaw"]), default=None)
@click.option("--glob", "glob", default="*.jsonl", show_default=True, help="Folder walk pattern.")
@click.option("--include-bak", is_flag=True, help="Also replay *.bak-* copies in folders.")
@click.option("--no-run-scope", is_flag=True, help="Treat each session as one run.")
@click.option("--branch", type=click.Choice(["file", "active"]), default="file")
@click.option("--trajectory", type=click.Path(dir_okay=False), help="Run ids from a sidecar.")
@click.option("--show-args", is_flag=True, help="Print tool arguments (may be personal data).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Processes (default: cores)")
@max_bytes_option("config (--config, --compare)")
def replay_command(
    traces: tuple[str, ...],
    config: str | None,
    agents: tuple[str, ...],
    compare: str | None,
    output_format: str,
    fail_on: str | None,
    strict: bool,
    input_format: str | None,
    glob: str,
    include_bak: bool,
    no_run_scope: bool,
    branch: str,
    trajectory: str | None,
    show_args: bool,
    jobs: int | None,
    max_bytes: int,
) -> None:
    """Replay recorded sessions through the engine: what would be warned, blocked, aborted.

    \b
    Examples:
      loopcfg replay ~/.openclaw/agents/main/sessions/ --config openclaw.json5 --agent main
      loopcfg replay trace.jsonl --format json --fail-on critical
      loopcfg replay sessions/ --config openclaw.json5 --compare tuned.json5
    """
    gc.enable()  # replay runs long and holds many objects: it gets its collector back (main())
    from loopcfg.replay.command import CommandOptions, emit, run_replay
    from loopcfg.replay.driver import ReplayOptions

    options = ReplayOptions(
        config=config,
        input_format=input_format,  # type: ignore[arg-type]
        run_scope=not no_run_scope,
        branch_active=branch == "active",
        trajectory=trajectory,
        strict=strict,
        max_bytes=max_bytes,
    )
    command = CommandOptions(
        paths=traces,
        options=options,
        agents=agents,
        compare=compare,
        output_format=output_format,
        fail_on=fail_on,  # type: ignore[arg-type]
        glob=glob,
        include_bak=include_bak,
        show_args=show_args,
        jobs=jobs,
    )
    text, notes, code = run_replay(command)
    emit(text, notes)
    sys.exit(code)


@cli.command("resolve", cls=OneLineUsage)
@click.option("--config", "config", help="Config file (default: the usual lookup, see docs).")
@click.option("--agent", "agent", help="Agent id (normalised as OpenClaw does).")
@click.option("--all", "every", is_flag=True, help="Resolve every agent of agents.list.")
@click.option("--explain", is_flag=True, help="A table: setting, value, source, location.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json5", "json", "yaml"]),
    default="json5",
    show_default=True,
)
@click.option("--strict", is_flag=True, help="Exit 1 when the agent is not in agents.list.")
@click.option("--env-file", "env_file", help="dotenv file with ${VAR} values (env wins).")
@click.option("--input-format", type=click.Choice(["json5", "json", "yaml"]), default=None)
@click.option("--stdin-filename", default=None, help="Name shown for a config read from -.")
@max_bytes_option("config file")
def resolve_command(
    config: str | None,
    agent: str | None,
    every: bool,
    explain: bool,
    output_format: str,
    strict: bool,
    env_file: str | None,
    input_format: str | None,
    stdin_filename: str | None,
    max_bytes: int,
) -> None:
    """Print the settings an agent really runs with, and where each value comes from.

    \b
    Examples:
      loopcfg resolve --agent safe-runner
      loopcfg resolve --agent safe-runner --explain
      loopcfg resolve --all --format json
    """
    from loopcfg.config import load_config
    from loopcfg.resolve import default_config_path, run_resolve

    if every and agent is not None:
        raise click.UsageError("--agent and --all exclude each other")
    if explain and output_format != "json5":
        raise click.UsageError(
            "--explain prints a table; it cannot be combined with --format json or yaml"
        )
    path = config or default_config_path()
    if path is None:
        _usage_exit(f"loopcfg resolve: error: no config found ({LOOKUP}); name one with --config")
    env = _environment_or_exit(env_file)
    loaded = load_config(
        path,
        env=env,
        input_format=input_format,  # type: ignore[arg-type]
        stdin_filename=stdin_filename,
        max_bytes=max_bytes,
    )
    outcome = run_resolve(
        loaded,
        agent=agent,
        every=every,
        output_format="explain" if explain else output_format,
        strict=strict,
    )
    for line in outcome.stderr:
        click.echo(line, err=True)
    click.echo(outcome.stdout, nl=False)
    sys.exit(outcome.exit_code)


@cli.command("explain", cls=OneLineUsage)
@click.argument("code", required=False)
def explain_command(code: str | None) -> None:
    """Explain a diagnostic code: what it means, why, an example and the fix.

    \b
    Examples:
      loopcfg explain LC102
      loopcfg explain
    """
    from loopcfg.explain import find_rule, render_index, render_rule, suggest_codes

    if code is None:
        click.echo(render_index(), nl=False)
        return
    rule = find_rule(code)
    if rule is None:
        close = suggest_codes(code)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        _usage_exit(
            f"loopcfg explain: error: unknown code {code!r}{hint}; `loopcfg explain` lists all"
        )
    click.echo(render_rule(rule), nl=False)


def main() -> None:
    # validate, resolve, schema and explain are short runs that create few reference cycles,
    # yet the collector keeps scanning the objects their imports create: off, a cold validate
    # is about 5 % faster (bench/validate_cold.py). `replay` turns it back on.
    gc.disable()
    cli(prog_name="loopcfg")
