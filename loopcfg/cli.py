"""The command line: wires click to the library and hands results to renderers.

`validate`, the command CI runs on every change, is defined below; `schema`, `replay`, `resolve`
and `explain` live in loopcfg/commands/, one module each, and are imported only when named (or
listed by `loopcfg --help`): click's lazily loading group (`LazyGroup`). Commands import what
they use inside their own function body, so `loopcfg --version` and `loopcfg validate` load
only what they need (import time is measured, see docs/performance.md). What the commands
share (one-line usage errors, --max-bytes, --env-file) is in loopcfg/commandline.py, which
both import. Keep finding and rendering out of the commands.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from importlib import import_module

import click

from loopcfg import __version__
from loopcfg.commandline import (
    OneLineUsage,
    discovered_config,
    environment_or_exit,
    max_bytes_option,
    openclaw_option,
    profile_option,
)
from loopcfg.releases import NEWEST


def stdout_is_tty() -> bool:
    """Whether standard output is a terminal (one place, so tests can say it is)."""
    return sys.stdout.isatty()


def color_enabled(no_color: bool) -> bool:
    """Colour only on a tty, and never with --no-color or a non-empty NO_COLOR (no-color.org)."""
    return not no_color and not os.environ.get("NO_COLOR") and stdout_is_tty()


class LazyGroup(click.Group):
    """A group whose commands are imported when first named (click's documented pattern).

    `LAZY_COMMANDS` maps a command name to `module:attribute`; `--help` lists them (importing
    each for its short help). An unknown name loads them all, so that click's "did you mean"
    (which looks at the loaded commands) suggests them as before.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is not None:
            return _load_command(target)
        command = super().get_command(ctx, cmd_name)
        if command is None:
            for name, lazy in LAZY_COMMANDS.items():
                self.add_command(_load_command(lazy), name)
        return command


def _load_command(target: str) -> click.Command:
    module, attribute = target.split(":")
    command = getattr(import_module(module), attribute)
    if not isinstance(command, click.Command):  # pragma: no cover - a wiring mistake
        raise TypeError(f"{target} is not a click command")
    return command


# name -> "module:attribute" of the commands LazyGroup imports when they are named.
LAZY_COMMANDS: dict[str, str] = {
    "explain": "loopcfg.commands.explain:explain_command",
    "fix": "loopcfg.commands.fix:fix_command",
    "lsp": "loopcfg.commands.lsp:lsp_command",
    "migrate": "loopcfg.commands.migrate:migrate_command",
    "replay": "loopcfg.commands.replay:replay_command",
    "resolve": "loopcfg.commands.resolve:resolve_command",
    "schema": "loopcfg.commands.schema:schema_command",
}


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__,
    "--version",
    prog_name="loopcfg",
    message=f"%(prog)s %(version)s (knows OpenClaw releases up to {NEWEST})",
)
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


# -- `validate` --


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
@openclaw_option()
@profile_option()
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
    openclaw: str | None,
    profile: str | None,
    max_bytes: int,
    no_color: bool,
) -> None:
    """Check syntax, schema and every lint of config files.

    With no FILE: $OPENCLAW_CONFIG_PATH, ./openclaw.json5, ./openclaw.json, then
    openclaw.json in OpenClaw's state directory ($OPENCLAW_STATE_DIR, else ~/.openclaw or
    ~/.openclaw-NAME with --profile NAME). `-` reads standard input. The target release is
    --openclaw, else the config's meta.lastTouchedVersion, else none (checked as 2026.5.4 -
    2026.7.x, with a warning when OpenClaw's newest release rejects a key). Exit 0 no errors,
    1 problems found (warnings too with --strict), 2 usage or I/O error.

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
    missing = "no config file named and none found (LOOKUP)"
    paths = list(files) or [discovered_config("validate", profile, verbose, missing=missing)]
    env = environment_or_exit(env_file)
    options = CheckOptions(
        select=tuple(select_codes),
        ignore=tuple(ignore_codes),
        strict=strict,
        verbose=verbose,
        input_format=input_format,  # type: ignore[arg-type]
        stdin_filename=stdin_filename,
        env=env,
        max_bytes=max_bytes,
        openclaw=openclaw,
    )
    reports = check_paths(paths, options)
    obj = ctx.obj or {}
    color = bool(obj.get("color", False)) and color_enabled(no_color)
    render = RenderOptions(source=bool(obj.get("tty", False)), color=color)
    click.echo(RENDERERS[output_format](reports, render), nl=False, color=color)
    sys.exit(max(report.exit_code for report in reports))


def _check_codes(option: str, values: tuple[str, ...]) -> None:
    """A usage error for a code prefix that names no diagnostic (`--select LC999`)."""
    from loopcfg.suppress import unknown_prefixes

    for prefix in unknown_prefixes(values):
        from loopcfg.explain import suggest_codes  # difflib: only when there is a typo

        close = suggest_codes(prefix)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise click.UsageError(f"{option} {prefix}: no diagnostic code starts with it{hint}")


class Interrupted(BaseException):
    """Ctrl-C. Not KeyboardInterrupt: click turns that into "Aborted!" and exit 1, the code
    that also means "problems found"; 05-cli wants one line and exit 130."""


EXIT_INTERRUPTED = 130


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted


def _json_safe_escape(error: UnicodeError) -> tuple[str, int]:
    """Characters the output encoding lacks (an ASCII locale) as `\\uXXXX`: readable in text,
    and still the same string inside JSON and SARIF, where such characters only stand in strings."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    units: list[str] = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:  # a UTF-16 surrogate pair, as JSON writes astral characters
            code -= 0x10000
            units += [f"\\u{0xD800 + (code >> 10):04x}", f"\\u{0xDC00 + (code & 0x3FF):04x}"]
        else:
            units.append(f"\\u{code:04x}")
    return "".join(units), error.end


def _prepare_streams() -> str | None:
    """Make the standard streams safe to write; the reason they cannot be used, if so."""
    import codecs

    if sys.stdout is None:  # started with stdout closed (`>&-`)
        return "standard output is closed"
    codecs.register_error("loopcfg-escape", _json_safe_escape)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="loopcfg-escape")
    return None


def _flush_stdout() -> str | None:
    """Write what is buffered now, so a full disk is reported here and not by the interpreter's
    exit ("Exception ignored ..."); the reason it failed, if so."""
    if sys.stdout.closed:
        # Closed by the command itself: the language server's transport closes it on `exit`.
        return None
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as error:
        from loopcfg.commandline import silence_stdout

        silence_stdout()
        return getattr(error, "strerror", None) or str(error)
    return None


def main() -> None:
    """The console script: exit codes 0, 1, 2 from the commands, 130 for Ctrl-C; one line for
    a stream that cannot be written, never a traceback."""
    from loopcfg.commandline import EXIT_USAGE, write_error_line

    problem = _prepare_streams()
    if problem is not None:
        write_error_line(f"loopcfg: error: {problem}")
        sys.exit(EXIT_USAGE)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    # validate, resolve, schema and explain are short runs that create few reference cycles,
    # yet the collector keeps scanning the objects their imports create: off, a cold validate
    # is about 5 % faster (bench/validate_cold.py). `replay` turns it back on.
    gc.disable()
    code: int | str | None = 0
    try:
        cli(prog_name="loopcfg")
    except SystemExit as done:
        code = done.code
    except (Interrupted, KeyboardInterrupt):
        write_error_line("loopcfg: interrupted")
        code = EXIT_INTERRUPTED
    except OSError as error:
        # Only click's own output gets here (--help, --version, before any command runs, which
        # turns its failed writes into OutputError): stdout is closed or full.
        from loopcfg.commandline import silence_stdout

        silence_stdout()
        write_error_line(f"loopcfg: error: cannot write the output: {error.strerror or error}")
        code = EXIT_USAGE
    finally:
        if not gc.isenabled():
            # On the way out the interpreter still collects, twice, scanning every object the
            # imports made (about 24 M instructions, 5 % of a cold validate) for cycles that do
            # not matter to a process about to end. Frozen objects are left out of those scans;
            # the process ends and releases them as it would have.
            gc.freeze()
    failed = _flush_stdout()
    if failed is not None:
        write_error_line(f"loopcfg: error: cannot write the output: {failed}")
        code = EXIT_USAGE
    sys.exit(code)
