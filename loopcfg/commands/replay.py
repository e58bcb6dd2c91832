"""`loopcfg replay`: replay recorded sessions through the engine.

Loaded only when the command is named (or `loopcfg --help` lists it): see `LazyGroup` in
loopcfg/cli.py, which wires it in.
"""

from __future__ import annotations

import gc
import sys

import click

from loopcfg.commandline import OneLineUsage, max_bytes_option


@click.command("replay", cls=OneLineUsage)
@click.argument("traces", nargs=-1)
@click.option("--config", "config", help="Config file to resolve (default: defaults, enabled).")
@click.option("--agent", "agents", multiple=True, help="Agent id; twice compares two agents.")
@click.option("--compare", "compare", help="A second config to compare with, side by side.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format (json: one document with every event).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["warning", "critical", "abort"]),
    default=None,
    help="Exit 1 when an event of this level or above occurs (for CI).",
)
@click.option("--strict", is_flag=True, help="Stop at the first malformed line (exit 2).")
@click.option(
    "--input",
    "input_format",
    type=click.Choice(["trace", "openclaw"]),
    default=None,
    help="Input kind (default: detected from the first line).",
)
@click.option("--glob", "glob", default="*.jsonl", show_default=True, help="Folder walk pattern.")
@click.option("--include-bak", is_flag=True, help="Also replay *.bak-* copies in folders.")
@click.option("--no-run-scope", is_flag=True, help="Treat each session as one run.")
@click.option(
    "--branch",
    type=click.Choice(["file", "active"]),
    default="file",
    show_default=True,
    help="Transcript entries: all in file order, or the active branch only.",
)
@click.option("--trajectory", type=click.Path(dir_okay=False), help="Run ids from a sidecar.")
@click.option("--show-args", is_flag=True, help="Print tool arguments (may be personal data).")
@click.option(
    "--max-line-bytes",
    type=click.IntRange(min=1),
    default=64 << 20,
    show_default="64 MiB",
    help="Longer lines are reported and skipped unread.",
)
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT|local:N",
    help="Replay the files on a Dask cluster (pip install 'loopcfg[dask]').",
)
@click.option("--stats", is_flag=True, help="Per session and tool: streaks and detector peaks.")
@click.option(
    "--jobs", type=click.IntRange(min=1, max=1024), default=None, help="Processes (default: cores)"
)
@click.option("--session", "sessions", multiple=True, help="Only this session key or id.")
@click.option("--profile", help="No PATH: read the state dir of this OpenClaw profile.")
@click.option("--list", "list_only", is_flag=True, help="List the sessions; replay nothing.")
@click.option("--allow-newer-schema", is_flag=True, help="Read stores newer than schema 23.")
@click.option("--openclaw", "openclaw", help="Target OpenClaw release (picks the engine).")
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
    max_line_bytes: int,
    scheduler: str | None,
    stats: bool,
    sessions: tuple[str, ...],
    profile: str | None,
    list_only: bool,
    allow_newer_schema: bool,
    max_bytes: int,
    openclaw: str | None,
) -> None:
    """Replay recorded sessions through the engine: what would be warned, blocked, aborted.

    \b
    Examples:
      loopcfg replay ~/.openclaw/agents/main/sessions/ --config openclaw.json5 --agent main
      loopcfg replay trace.jsonl --format json --fail-on critical
      loopcfg replay sessions/ --config openclaw.json5 --compare tuned.json5
      loopcfg replay ~/.openclaw --list
      loopcfg replay agents/main/agent/openclaw-agent.sqlite::agent:main:main

    \b
    Without PATH, OpenClaw's state directory ($OPENCLAW_STATE_DIR, else ~/.openclaw) is read.
    """
    # Replay runs long and holds many objects: it gets its collector back (main() turned it
    # off), after its modules are imported. What exists then (the imports' modules, classes and
    # functions, ~2/3 of the objects of the start) is frozen first when main() turned it off:
    # no collection during the run or on the way out scans it again (a sixteenth of a
    # replay's start-up instructions). Called otherwise (a test's CliRunner), nothing is frozen.
    collecting = gc.isenabled()
    from loopcfg.replay.command import CommandOptions, run_replay
    from loopcfg.replay.driver import ReplayOptions

    if not collecting:
        gc.freeze()
    gc.enable()

    options = ReplayOptions(
        config=config,
        input_format=input_format,  # type: ignore[arg-type]
        run_scope=not no_run_scope,
        branch_active=branch == "active",
        trajectory=trajectory,
        strict=strict,
        max_bytes=max_bytes,
        openclaw=openclaw,  # the option as given; replay resolves the target (command.py)
        max_line_bytes=max_line_bytes,
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
        stats=stats,
        scheduler=scheduler,
        sessions=sessions,
        profile=profile,
        list_only=list_only,
        allow_newer_schema=allow_newer_schema,
        openclaw=openclaw,
    )
    sys.exit(run_replay(command, sys.stdout, sys.stderr))
