"""`loopcfg resolve`: the settings an agent really runs with, and where each comes from.

Loaded only when the command is named (or `loopcfg --help` lists it): see `LazyGroup` in
loopcfg/cli.py, which wires it in. The library resolves (`loopcfg.resolve.resolve_config`); this
module refuses invalid configs with validate's lines and hands the result to a renderer, so the
library never imports a renderer.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from loopcfg.commandline import (
    OneLineUsage,
    discovered_config,
    environment_or_exit,
    max_bytes_option,
    openclaw_option,
    profile_option,
)

if TYPE_CHECKING:
    from loopcfg.config import LoadedConfig
    from loopcfg.releases import Target


@click.command("resolve", cls=OneLineUsage)
@click.argument("file", required=False)
@click.option("--config", "config", help="Config file (default: the usual lookup, see docs).")
@click.option("--agent", "agent", help="Agent id (normalised as OpenClaw does).")
@click.option("--all", "every", is_flag=True, help="Resolve every agent of the roster.")
@click.option("--explain", is_flag=True, help="A table: setting, value, source, location.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json5", "json", "yaml"]),
    default="json5",
    show_default=True,
    help="Output format of the resolved settings.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when the agent is not in the roster.")
@click.option("--env-file", "env_file", help="dotenv file with ${VAR} values (env wins).")
@click.option(
    "--input-format",
    type=click.Choice(["json5", "json", "yaml"]),
    default=None,
    help="Parse the config as this format whatever its name says.",
)
@click.option("--stdin-filename", default=None, help="Name shown for a config read from -.")
@openclaw_option()
@profile_option()
@click.option("--verbose", is_flag=True, help="Name the config file used and the target.")
@max_bytes_option("config file")
def resolve_command(
    file: str | None,
    config: str | None,
    agent: str | None,
    every: bool,
    explain: bool,
    output_format: str,
    strict: bool,
    env_file: str | None,
    input_format: str | None,
    stdin_filename: str | None,
    openclaw: str | None,
    profile: str | None,
    verbose: bool,
    max_bytes: int,
) -> None:
    """Print the settings an agent really runs with, and where each value comes from.

    FILE (or --config, not both) is the config; without either, the file OpenClaw would read.
    On a 2026.8.1+ target agents come from agents.entries and the retired knobs show their
    built-in values (source "builtin").

    \b
    Examples:
      loopcfg resolve openclaw.json5 --agent safe-runner
      loopcfg resolve --agent safe-runner --explain
      loopcfg resolve --all --format json --openclaw 2026.9.6
    """
    from loopcfg.config import load_config

    if file is not None and config is not None:
        raise click.UsageError("name the config once: FILE or --config, not both")
    if every and agent is not None:
        raise click.UsageError("--agent and --all exclude each other")
    if explain and output_format != "json5":
        raise click.UsageError(
            "--explain prints a table; it cannot be combined with --format json or yaml"
        )
    missing = "no config found (LOOKUP); name one with FILE or --config"
    path = file or config or discovered_config("resolve", profile, verbose, missing=missing)
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
        openclaw=openclaw,
        verbose=verbose,
    )
    for line in outcome.stderr:
        click.echo(line, err=True)
    click.echo(outcome.stdout, nl=False)
    sys.exit(outcome.exit_code)


class ResolveOutcome(NamedTuple):
    """What the command prints and its exit code."""

    stdout: str
    stderr: tuple[str, ...]
    exit_code: int


def run_resolve(
    loaded: LoadedConfig,
    *,
    agent: str | None,
    every: bool,
    output_format: str,
    strict: bool,
    openclaw: str | None = None,
    verbose: bool = False,
) -> ResolveOutcome:
    """Refuse invalid configs (exit 1; exit 2 when unreadable), else resolve and render.

    A refusal prints the errors exactly as `validate` prints them (the same renderer).
    """
    from loopcfg.render import printable
    from loopcfg.render.diagnostics import diagnostic_line
    from loopcfg.render.resolve import render
    from loopcfg.resolve import config_errors, resolve_config, resolve_one
    from loopcfg.validate import config_target

    errors = config_errors(loaded, openclaw)
    if errors:
        unreadable = any(d.code == "LC000" for d in errors)
        return ResolveOutcome("", tuple(diagnostic_line(d) for d in errors), 2 if unreadable else 1)
    target = config_target(loaded, openclaw)
    notes: list[str] = []
    if verbose:
        notes.append(printable(f"{loaded.file}: target release: {target.describe()}"))
    shown = _target_json(target)
    if every:
        resolved = resolve_config(loaded.root, target)
        settings = [scope.settings for scope in resolved.agents]
        text = render(settings, output_format, every=True, target=shown)
        return ResolveOutcome(text, tuple(notes), 0)
    # One agent: its scope alone, not every agent's merge (docs/resolve.md, "One agent of many").
    one = resolve_one(loaded.root, agent, target)
    code = 0
    if agent is not None and not one.found:
        # The id comes straight from the command line: one printable line whatever it holds.
        notes.append(printable(_unknown_agent_note(loaded, agent, target.line.roster)))
        code = 1 if strict else 0
    text = render([one], output_format, every=False, target=shown)
    return ResolveOutcome(text, tuple(notes), code)


def _target_json(target: Target) -> dict[str, Any] | None:
    """The JSON `target`: null when none was given (README Decision 10)."""
    if target.source == "none":
        return None
    return {
        "requested": target.requested,
        "source": target.source,
        "release": target.release.name if target.release is not None else None,
        "line": target.line.id,
        "known": target.known,
    }


def _unknown_agent_note(loaded: LoadedConfig, agent: str, roster: str) -> str:
    from loopcfg.resolve import normalize_agent_id, suggest_agents

    wanted = normalize_agent_id(agent)
    shown = f'"{agent}"' if wanted == agent else f'"{agent}" (normalised: "{wanted}")'
    where = "agents.entries" if roster == "entries" else "agents.list"
    note = f"{loaded.file}: agent {shown} is not in {where}; showing the global block alone"
    close = suggest_agents(loaded, agent)
    if close:
        note += " (did you mean " + " or ".join(close) + "?)"
    return note
