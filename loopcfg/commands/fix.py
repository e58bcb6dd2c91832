"""`loopcfg fix`: apply the safe fixes of 05-cli (diff by default, `--write` to apply).

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


@click.command("fix", cls=OneLineUsage)
@click.argument("files", nargs=-1)
@click.option("--write", is_flag=True, help="Apply the fixes (default: print a diff).")
@click.option(
    "--select",
    "select_codes",
    multiple=True,
    metavar="CODES",
    help="Only fix these codes (prefixes, comma-separated: LC003,LC107).",
)
@click.option("--openclaw", "openclaw", metavar="VERSION", help="Target OpenClaw release.")
@click.option("--env-file", "env_file", metavar="FILE", help="dotenv file with ${VAR} values.")
@max_bytes_option("file")
def fix_command(
    files: tuple[str, ...],
    write: bool,
    select_codes: tuple[str, ...],
    openclaw: str | None,
    env_file: str | None,
    max_bytes: int,
) -> None:
    """Apply the safe fixes: typo'd keys with one candidate (LC003), well-known wrong keys
    (LC012), dead duplicate keys (LC107), quoted numbers and booleans (LC002), agent ids in
    OpenClaw's normal form (LC108). Comments and formatting are kept.

    Prints a diff and changes nothing unless --write; then the file is validated again and
    what remains is printed. Exit 0 no errors remain, 1 errors remain, 2 usage or I/O error.

    \b
    Examples:
      loopcfg fix openclaw.json5
      loopcfg fix openclaw.json5 --write
      loopcfg fix openclaw.json5 --select LC003 --write
    """
    from loopcfg.config import LoadedConfig, load_config
    from loopcfg.edit import EditError, unified_diff, write_atomic
    from loopcfg.fix import fix_config
    from loopcfg.render.edit import diagnostic_lines, fix_line, plural

    if "-" in files:
        raise click.UsageError("fix edits files: - (standard input) cannot be fixed")
    from loopcfg.suppress import unknown_prefixes

    for prefix in unknown_prefixes(select_codes):
        raise click.UsageError(f"--select {prefix}: no diagnostic code starts with it")
    paths = list(files)
    if not paths:
        from loopcfg.resolve import default_config_path

        found = default_config_path()
        if found is None:
            usage_exit(f"loopcfg fix: error: no config file named and none found ({LOOKUP})")
        paths = [str(found)]
    env = environment_or_exit(env_file)
    exit_code = 0
    fixed_total = 0
    out: list[str] = []
    for path in paths:

        def reload(path: str = path) -> LoadedConfig:
            return load_config(path, env=env, max_bytes=max_bytes)

        result = fix_config(reload(), select=select_codes, openclaw=openclaw, reload=reload)
        if result.unreadable:
            out += diagnostic_lines(result.found)
            exit_code = 2
            continue
        for name, (before, after) in result.plan.texts.items():
            if not write:
                out.append(unified_diff(before, after, name).rstrip("\n"))
        verb = "fixed" if write else "would fix"
        # One line per place and edit: a $include'd piece used at three places is one fix
        # in one file, whatever the three diagnostics found through it.
        done = list(
            dict.fromkeys(fix_line(f.diagnostic, verb, f.description) for f in result.plan.fixes)
        )
        out += done
        out += [fix_line(s.diagnostic, "not fixed", s.reason) for s in result.plan.skipped]
        remaining = result.remaining
        if write and result.plan.texts:
            try:
                top = os.path.dirname(os.path.abspath(path))
                for name, (_, after) in result.plan.texts.items():
                    write_atomic(name, after, within=top)
            except (EditError, OSError) as error:
                usage_exit(f"loopcfg fix: error: {error}")
            remaining = fix_config(
                reload(), openclaw=openclaw
            ).found  # validated again, from the written files
        fixed_total += len(done)
        out += diagnostic_lines(remaining)
        if any(d.severity == "error" for d in remaining):
            exit_code = max(exit_code, 1)
        left = len(remaining)
        out.append(
            f"{path}: {plural(len(done), 'fix')} "
            f"{'applied' if write else 'to apply'}, {plural(left, 'finding')} "
            f"{'remain' if left != 1 else 'remains'}."
        )
    if not write and fixed_total:
        out.append("Run with --write to apply.")
    click.echo("\n".join(line for line in out if line))
    sys.exit(exit_code)
