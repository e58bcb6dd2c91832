"""`loopcfg schema`: print or write the JSON Schema of a release line.

Loaded only when the command is named (or `loopcfg --help` lists it): see `LazyGroup` in
loopcfg/cli.py, which wires it in.
"""

from __future__ import annotations

import click

from loopcfg.commandline import OneLineUsage, openclaw_option, usage_exit


@click.command("schema", cls=OneLineUsage)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the schema to FILE instead of stdout.",
)
@click.option("--block-only", is_flag=True, help="Only the tools.loopDetection block's schema.")
@openclaw_option()
def schema_command(out: str | None, block_only: bool, openclaw: str | None) -> None:
    """Print the JSON Schema (draft-07) for editors and other validators.

    Without --openclaw: the full-knob line (2026.5.4 - 2026.7.x), whose keys retired in
    2026.8.1 carry a deprecation message. Each line's schema is also in schema/.

    \b
    Examples:
      loopcfg schema --out schema/openclaw-loopdetection.schema.json
      loopcfg schema --openclaw 2026.9.6
      loopcfg schema --block-only
    """
    from loopcfg.keys import DEFAULT_LINE
    from loopcfg.releases import KEY_LIFE, choose_target
    from loopcfg.schema import block_schema, build_schema, dump_schema

    line = DEFAULT_LINE
    if openclaw is not None:
        target = choose_target(openclaw)
        if target.release is None:
            usage_exit(f"loopcfg schema: error: --openclaw {target.describe()}")
        line = target.line.id
        if target.line.schema_file is None:
            first = KEY_LIFE["enabled"].first
            usage_exit(
                f"loopcfg schema: error: OpenClaw {target.name} has no tools.loopDetection "
                f"block (it arrived in {first})"
            )
    text = dump_schema(block_schema(line) if block_only else build_schema(line))
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        with open(out, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
    except OSError as error:
        # No position: the file was not written (the documented `file: CODE ...` shape).
        usage_exit(f"{out}: LC000 error: cannot write the schema: {error.strerror}")
