"""Writing an edited config: atomically, keeping its mode, never through a link that leaves the
config's directory (05-cli `migrate`); and the unified diff shown instead of writing."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

from loopcfg.edit.text import EditError


def write_atomic(path: str, text: str, *, within: str | None = None) -> None:
    """Replace the file at `path` with `text` (UTF-8) through a temporary file and a rename.

    `within` is the directory the file must stay in after resolving links (the top-level
    config's directory); by default the directory `path` is named in. A symlink inside it is
    followed and the file it names is replaced, so the link stays a link.
    """
    named = Path(path)
    real = Path(os.path.realpath(named))
    boundary = Path(os.path.realpath(within if within is not None else named.parent or "."))
    if not real.is_relative_to(boundary):
        raise EditError(f"{path} links to {real}, outside {boundary}: not written")
    try:
        mode = os.stat(real).st_mode & 0o7777
    except OSError as error:
        raise EditError(f"{path}: {error.strerror}") from None
    handle, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text.encode("utf-8", "surrogatepass"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def unified_diff(before: str, after: str, name: str) -> str:
    """`--- a/NAME` / `+++ b/NAME` hunks with three lines of context ('' when equal)."""
    if before == after:
        return ""
    relative = not name.startswith("/")
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{name}" if relative else name,
        f"b/{name}" if relative else name,
    )
    out = []
    for line in lines:
        out.append(
            line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        )
    return "".join(out)
