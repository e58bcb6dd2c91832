"""`loopcfg schema`: print or write the JSON Schema.

Loaded only when the command is named (or `loopcfg --help` lists it): see `LazyGroup` in
loopcfg/cli.py, which wires it in.
"""

from __future__ import annotations

import click

from loopcfg.commandline import OneLineUsage, usage_exit


@click.command("schema", cls=OneLineUsage)
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
        usage_exit(f"{out}: LC000 error: cannot write the schema: {error.strerror}")
