"""The command line's layers import one way (docs/architecture.md): cli.py wires the group and
`validate`, loopcfg/commands/ the other commands; both use loopcfg/commandline.py, and no
command module imports cli.py (which loads the commands by name)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "loopcfg"


def imported_modules(path: Path) -> set[str]:
    """Every module an `import` or `from ... import` in the file names, at any depth."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_command_module_imports_the_cli() -> None:
    commands = sorted((PACKAGE / "commands").glob("*.py"))
    assert len(commands) >= 5
    for path in commands:
        assert "loopcfg.cli" not in imported_modules(path), path.name


def test_commandline_imports_no_command() -> None:
    names = imported_modules(PACKAGE / "commandline.py")
    assert not {n for n in names if n == "loopcfg.cli" or n.startswith("loopcfg.commands")}


# The command line's own modules, and the renderers themselves: everything else is the library.
_COMMAND_LINE = {"cli.py", "commandline.py", "__main__.py"}


def _library_modules() -> list[Path]:
    found: list[Path] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in ("commands", "render") or relative.name in _COMMAND_LINE:
            continue
        if relative.parts[0] == "replay" and relative.name == "command.py":
            continue  # replay's command module: wiring, like loopcfg/commands/
        found.append(path)
    return found


def test_nothing_below_the_command_line_imports_a_renderer() -> None:
    """docs/architecture.md: the library returns values; only commands hand them to renderers.
    (resolve.py imported render.diagnostics, which imports check.py: a circle.)"""
    modules = _library_modules()
    assert any(path.name == "resolve.py" for path in modules)
    for path in modules:
        renderers = {n for n in imported_modules(path) if n.startswith("loopcfg.render")}
        assert not renderers, (path.relative_to(PACKAGE), renderers)
