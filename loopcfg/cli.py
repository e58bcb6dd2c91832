"""The command line: wires click to the library and hands results to renderers.

Commands import what they use inside their own function body, so `loopcfg --version` and
`loopcfg validate` load only what they need (import time is measured, see docs/performance.md).
Each command is one function below; keep finding and rendering out of this file.
"""

from __future__ import annotations

import os
import sys

import click

from loopcfg import __version__

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


def color_enabled(no_color: bool) -> bool:
    """Colour only on a tty, and never with --no-color or NO_COLOR set."""
    return not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()


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


# -- commands: each helper adds its command below this line, one function per command --


@cli.command("schema")
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
        click.echo(f"{out}:1:1: LC000 error: cannot write the schema: {error.strerror}", err=True)
        sys.exit(EXIT_USAGE)


def main() -> None:
    cli(prog_name="loopcfg")
