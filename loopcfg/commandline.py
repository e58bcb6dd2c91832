"""What every command shares: one-line usage and I/O errors, `--max-bytes`, the config lookup
list and the `--env-file` overlay.

Its own module so that loopcfg/cli.py (the group and `validate`) and loopcfg/commands/ (the
other commands) both import it, and neither imports the other's definitions.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

import click

from loopcfg.files import DEFAULT_MAX_BYTES

EXIT_USAGE = 2


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
        except OSError as error:
            # Reads report their own problems as diagnostics; what reaches here is a write to a
            # closed or full standard output (EPIPE, ENOSPC), which click would turn into exit 1
            # (EPIPE) or a traceback (anything else). 05-cli: an I/O error is one line, exit 2.
            raise OutputError(ctx.info_name or "", error) from None


class OutputError(click.ClickException):
    """The output could not be written: one line on stderr, exit 2."""

    exit_code = EXIT_USAGE

    def __init__(self, command: str, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.command = command
        silence_stdout()

    def show(self, file: Any = None) -> None:
        write_error_line(f"loopcfg {self.command}: error: cannot write the output: {self.message}")


def silence_stdout() -> None:
    """Point standard output at /dev/null: what is still buffered for a closed or full stream
    would fail again when the interpreter flushes it at exit, and print its own error."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def write_error_line(line: str) -> None:
    """One line on stderr, even when stderr itself is closed or full (then nothing is said)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


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


_F = TypeVar("_F", bound=Callable[..., Any])
MAX_BYTES = DEFAULT_MAX_BYTES  # the default of --max-bytes
# The largest --max-bytes: the parsed tree takes about 40 times the text, so 64 MiB is already
# gigabytes of memory; beyond it (2^62 and up) the read buffer itself cannot be allocated.
MAX_BYTES_LIMIT = 64 * 1024 * 1024


def max_bytes_option(what: str) -> Callable[[_F], _F]:
    """`--max-bytes N`: validate, resolve and replay read configs with the same size limit."""
    return click.option(
        "--max-bytes",
        type=click.IntRange(min=1, max=MAX_BYTES_LIMIT),
        metavar="N",
        default=MAX_BYTES,
        show_default=True,
        help=f"Size limit per {what}; larger files are refused (LC000).",
    )


# Where validate and resolve look for a config when none is named (05-cli, README Decision 6).
LOOKUP = (
    "$OPENCLAW_CONFIG_PATH, ./openclaw.json5, ./openclaw.json, openclaw.json in the state "
    "directory ($OPENCLAW_STATE_DIR, else ~/.openclaw or ~/.openclaw-NAME with --profile NAME)"
)


def openclaw_option() -> Callable[[_F], _F]:
    """`--openclaw VERSION`: the target release (08 §8.3); `latest` is the newest known."""
    return click.option(
        "--openclaw",
        "openclaw",
        metavar="VERSION",
        default=None,
        help="Target OpenClaw release (`latest` = newest known); default: the config's "
        "meta.lastTouchedVersion.",
    )


def profile_option() -> Callable[[_F], _F]:
    """`--profile NAME`: OpenClaw's profile, for the state directory's config (10 §10.1)."""
    return click.option(
        "--profile",
        "profile",
        metavar="NAME",
        default=None,
        help="OpenClaw profile: look for the config in ~/.openclaw-NAME.",
    )


def discovered_config(
    command: str, profile: str | None, verbose: bool, *, missing: str = "none found"
) -> str:
    """The config OpenClaw itself would read (README Decision 6), or a usage error; named on
    stderr with --verbose."""
    import os
    from pathlib import Path

    from loopcfg.statedir import ProfileError, discover_config

    try:
        found = discover_config(os.environ, home=Path.home(), cwd=Path("."), profile=profile)
    except ProfileError as error:
        usage_exit(f"loopcfg {command}: error: {error}")
    if found is None:
        usage_exit(f"loopcfg {command}: error: {missing.replace('LOOKUP', LOOKUP)}")
    if verbose:
        click.echo(f"loopcfg {command}: using {found}", err=True)
    return str(found)


def usage_exit(line: str) -> NoReturn:
    click.echo(line, err=True)
    sys.exit(EXIT_USAGE)


def environment_or_exit(env_file: str | None) -> Mapping[str, str]:
    """The environment overlaid on `--env-file`; a bad env file is one line and exit 2."""
    from loopcfg.envvars import EnvFileError, environment_with
    from loopcfg.render.diagnostics import diagnostic_line

    try:
        return environment_with(env_file)
    except EnvFileError as error:
        usage_exit(diagnostic_line(error.diagnostic))
