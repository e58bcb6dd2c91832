"""The build's one addition to pyproject.toml: replay's hot path compiled with mypyc.

A wheel (`pip install .`, `pipx install`, `python -m build`) compiles the modules below to C
extensions with mypyc, from the same typed source; `replay` then reads about a third more per
CPU-second (docs/performance.md). Everything else stays Python, as does every module that walks
a caller's values recursively (hashing, the memo, v4_hashing): compiled code has no recursion
limit, so a cyclic or very deep value would overflow the C stack instead of raising
RecursionError.

No compiling where it would mislead or cannot work, and the package is the same pure Python:
- an editable install (`pip install -e .`, the development set-up): a stale compiled module
  would shadow the source being edited;
- LOOPCFG_PURE=1 in the environment;
- no mypyc in the build environment, or no working C compiler (a warning, then pure Python).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    "loopcfg/engine/history.py",
    "loopcfg/engine/session.py",
    "loopcfg/engine/v4.py",
    "loopcfg/replay/lines.py",
    "loopcfg/replay/runner.py",
    "loopcfg/replay/transcript.py",
]


# The commands that build code: pip also runs this file for metadata (egg_info, dist_info),
# where running mypyc would only cost seconds, and editable_wheel would build in place.
BUILDS = frozenset({"bdist_wheel", "build", "build_ext", "install"})


def wants_compiled(argv: list[str]) -> bool:
    if os.environ.get("LOOPCFG_PURE") == "1":
        return False
    commands = set(argv[1:])
    return bool(commands & BUILDS) and "editable_wheel" not in commands


class OptionalBuildExt(build_ext):
    """All the compiled modules or none: a module whose C extension failed would import its
    half-built neighbours' shared library and fail at import time."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # CompileError, LinkError, a missing compiler
            for output in self.get_outputs():
                if os.path.exists(output):
                    os.remove(output)
            self.extensions = []
            print(f"loopcfg: not compiled ({error}); installing pure Python", file=sys.stderr)

    def get_outputs(self) -> list[str]:
        return super().get_outputs() if self.extensions else []


def extensions() -> list[Any]:
    if not wants_compiled(sys.argv):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("loopcfg: mypyc not found; installing pure Python", file=sys.stderr)
        return []
    # The build environment has none of loopcfg's dependencies: their modules are untyped
    # (Any) to mypyc, as orjson's results are anyway; pyproject's mypy settings (strict) are
    # for the type check of CI, not for this.
    flags = ["--config-file=", "--ignore-missing-imports"]
    # One shared library, named for the package (else a hash names it in site-packages).
    return list(mypycify([*flags, *COMPILED], opt_level="3", group_name="loopcfg"))


if __name__ == "__main__":  # setuptools runs this file; tests/test_build.py imports it
    setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
