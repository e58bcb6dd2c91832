"""`loopcfg explain`: what a diagnostic code means.

Loaded only when the command is named (or `loopcfg --help` lists it): see `LazyGroup` in
loopcfg/cli.py, which wires it in.
"""

from __future__ import annotations

import click

from loopcfg.commandline import OneLineUsage, usage_exit


@click.command("explain", cls=OneLineUsage)
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
        usage_exit(
            f"loopcfg explain: error: unknown code {code!r}{hint}; `loopcfg explain` lists all"
        )
    click.echo(render_rule(rule), nl=False)
