"""`loopcfg lsp`: the Language Server on stdio (needs the `lsp` extra: pygls).

Loaded only when the command is named (see `LazyGroup` in loopcfg/cli.py).
"""

from __future__ import annotations

import click

from loopcfg.commandline import OneLineUsage, usage_exit


@click.command("lsp", cls=OneLineUsage)
@click.option("--openclaw", "openclaw", metavar="VERSION", help="Target OpenClaw release.")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default; for editors).")
def lsp_command(openclaw: str | None, stdio: bool) -> None:
    """Run the Language Server (stdio) for OpenClaw configs: validate's diagnostics as you
    type, hover, completion, and fix/migrate as code actions. See docs/editors.md.

    \b
    Examples:
      loopcfg lsp
      loopcfg lsp --openclaw 2026.9.6
    """
    try:
        from loopcfg.lsp.server import serve
    except ImportError:
        usage_exit("loopcfg lsp: error: the LSP needs pygls: pip install 'loopcfg[lsp]'")
    del stdio
    problem = serve(openclaw)
    if problem is not None:
        usage_exit(f"loopcfg lsp: error: {problem}")
