"""`loopcfg resolve`: the settings an agent really runs with, and where each comes from.

Loaded only when the command is named (or `loopcfg --help` lists it): see `LazyGroup` in
loopcfg/cli.py, which wires it in.
"""

from __future__ import annotations

import sys

import click

from loopcfg.commandline import (
    LOOKUP,
    OneLineUsage,
    environment_or_exit,
    max_bytes_option,
    usage_exit,
)


@click.command("resolve", cls=OneLineUsage)
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
    help="Output format of the resolved settings.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when the agent is not in agents.list.")
@click.option("--env-file", "env_file", help="dotenv file with ${VAR} values (env wins).")
@click.option(
    "--input-format",
    type=click.Choice(["json5", "json", "yaml"]),
    default=None,
    help="Parse the config as this format whatever its name says.",
)
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
        usage_exit(f"loopcfg resolve: error: no config found ({LOOKUP}); name one with --config")
    env = environment_or_exit(env_file)
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
