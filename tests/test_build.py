"""setup.py: which builds compile replay's hot path (mypyc), and what may be compiled.

That the compiled modules behave as the source does is checked by CI, which runs the tests of
replay, the engine and conformance against a build in place (.ci/run); these are the rules
that keep that build safe to make."""

from __future__ import annotations

import ast
import importlib.util
from types import ModuleType

import pytest

from tests.conftest import REPO


def load_setup() -> ModuleType:
    spec = importlib.util.spec_from_file_location("loopcfg_setup", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() runs only as __main__
    return module


SETUP = load_setup()


@pytest.mark.parametrize(
    ("argv", "compiled"),
    [
        (["setup.py", "bdist_wheel", "--dist-dir", "d"], True),  # pip install ., python -m build
        (["setup.py", "build_ext", "--inplace"], True),  # CI's and bench's copies
        (["setup.py", "editable_wheel", "--dist-dir", "d"], False),  # pip install -e .
        (["setup.py", "egg_info"], False),  # metadata only
        (["setup.py", "dist_info", "--output-dir", "d"], False),
        (["setup.py", "sdist"], False),
    ],
)
def test_only_a_build_of_code_compiles(
    argv: list[str], compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOOPCFG_PURE", raising=False)
    assert SETUP.wants_compiled(argv) is compiled


def test_loopcfg_pure_turns_compiling_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPCFG_PURE", "1")
    assert not SETUP.wants_compiled(["setup.py", "bdist_wheel"])


def self_calls(tree: ast.Module) -> list[str]:
    """Functions that call themselves: by name (a module function) or through `self`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            target = call.func
            by_name = isinstance(target, ast.Name) and target.id == node.name
            by_self = (
                isinstance(target, ast.Attribute)
                and target.attr == node.name
                and isinstance(target.value, ast.Name)
                and target.value.id in ("self", "cls")
            )
            if by_name or by_self:
                found.append(f"{node.name} (line {node.lineno})")
    return found


@pytest.mark.parametrize("path", SETUP.COMPILED)
def test_no_compiled_module_recurses(path: str) -> None:
    """Compiled code has no recursion limit: a function recursing into a caller's value (a
    cyclic or very deep one) would overflow the C stack instead of raising RecursionError.
    Such modules (hashing, the memo, v4_hashing) stay Python."""
    assert self_calls(ast.parse((REPO / path).read_text())) == []


def test_the_check_finds_recursion() -> None:
    """The check above on a module that does recurse (so it can fail)."""
    hashing = ast.parse((REPO / "loopcfg" / "hashing.py").read_text())
    assert any(found.startswith("_fast_size") for found in self_calls(hashing))


def test_compiled_modules_exist() -> None:
    assert SETUP.COMPILED and all((REPO / path).is_file() for path in SETUP.COMPILED)
