"""`loopcfg migrate`: rewrite the loop-related parts of a config for a target release (08 §8.5).

Loaded only when the command is named (see `LazyGroup` in loopcfg/cli.py).
"""

from __future__ import annotations

import os
import sys

import click

from loopcfg.commandline import (
    LOOKUP,
    OneLineUsage,
    environment_or_exit,
    max_bytes_option,
    usage_exit,
)


@click.command("migrate", cls=OneLineUsage)
@click.argument("file", required=False)
@click.option(
    "--openclaw", "openclaw", required=True, metavar="VERSION", help="Target release (or latest)."
)
@click.option("--write", is_flag=True, help="Rewrite the file (default: print a diff).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format: the diff and report as text, or one JSON document.",
)
@click.option("--env-file", "env_file", metavar="FILE", help="dotenv file with ${VAR} values.")
@max_bytes_option("file")
def migrate_command(
    file: str | None,
    openclaw: str,
    write: bool,
    output_format: str,
    env_file: str | None,
    max_bytes: int,
) -> None:
    """Rewrite the loop-related parts of a config for another OpenClaw release, keeping
    comments, formatting and key order everywhere else (08 §8.5).

    Prints a unified diff and the values that cannot be kept; --write applies it (atomically).
    Exit 0 migrated or nothing to do, 1 refused (nothing written), 2 usage or I/O error.

    \b
    Examples:
      loopcfg migrate openclaw.json5 --openclaw 2026.9.6
      loopcfg migrate openclaw.json5 --openclaw 2026.7.1-2 --write
      loopcfg migrate --openclaw latest --format json
    """
    from loopcfg.config import load_config
    from loopcfg.edit import EditError, write_atomic
    from loopcfg.fix import findings
    from loopcfg.migrate import plan_migration
    from loopcfg.releases import NEWEST, choose_target
    from loopcfg.render.edit import render_migration

    if file == "-":
        raise click.UsageError("migrate rewrites a file: - (standard input) cannot be migrated")
    target = choose_target(openclaw)
    if target.release is None:
        raise click.UsageError(
            f"--openclaw {openclaw}: not a release in loopcfg's table (newest known: {NEWEST})"
        )
    path = file
    if path is None:
        from loopcfg.resolve import default_config_path

        found = default_config_path()
        if found is None:
            usage_exit(f"loopcfg migrate: error: no config file named and none found ({LOOKUP})")
        path = str(found)
    env = environment_or_exit(env_file)
    loaded = load_config(path, env=env, max_bytes=max_bytes)
    diagnostics = findings(loaded, openclaw)
    if any(d.code == "LC000" for d in diagnostics):
        from loopcfg.render.diagnostics import diagnostic_line

        usage_exit("\n".join(diagnostic_line(d) for d in diagnostics if d.code == "LC000"))
    plan = plan_migration(loaded, target.release, diagnostics)
    if write and not plan.refused:
        try:
            top = os.path.dirname(os.path.abspath(path))
            for name, (_, after) in plan.texts.items():
                write_atomic(name, after, within=top)
        except (EditError, OSError) as error:
            usage_exit(f"loopcfg migrate: error: {error}")
    click.echo(render_migration(path, plan, output_format, written=write), nl=False)
    sys.exit(1 if plan.refused else 0)
