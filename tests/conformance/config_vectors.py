"""The config conformance vectors (recorded from real OpenClaw releases) and how to hold loopcfg
against them. Recorded by `conformance/record_config.py`; see docs/conformance.md.

A vector is one config put to one release: `id`, `release`, `main` (the top file's name), `files`
(name → text, includes beside it), `env` (the variables set), and OpenClaw's answer: `valid`
(null when OpenClaw could not answer, then `error`), `issues` and `warnings`, each a list of
`{"path", "message"}` as `openclaw config validate --json` prints them.

**Path mapping.** OpenClaw names a problem by a dotted path (`agents.list.1.tools.loopDetection`,
`""` or `<root>` for the top level) and, for unknown keys, names the keys in the message
(`Unrecognized keys: "foo", "bar"`) at the object that holds them. loopcfg names the value or key
itself (`agents.list[1].tools.loopDetection.foo`). Both are turned into tuples of segments:
- an OpenClaw segment of digits after `list` is an array index; every other segment is a key
  (so an `agents.entries` key with a dot in it is split; no vector has one that is valid);
- `Unrecognized key(s): "a", "b"` at P becomes P+a and P+b, the keys loopcfg points at;
- warnings written with brackets (`agents.list[0].id`) are read like loopcfg's paths.
An OpenClaw path *covers* a loopcfg path at it or below it: OpenClaw reports at the outermost
rejected key (`agents.defaults: Unrecognized key: "tools"`; era B's bare `Invalid input` at the
block), loopcfg at the key the user has to change (`agents.defaults.tools.loopDetection`).
Two answers have the same problem paths when every OpenClaw path covers some loopcfg error path
and every loopcfg error path is covered by some OpenClaw path.

**Codes.** What loopcfg code an OpenClaw issue corresponds to, by its message (`issue_codes`):
`Unrecognized key` → LC003, LC009, LC010, LC011 or LC012 (which one depends on the key and the
release); type, `Too small`, `Too big`, `expected int`, `received NaN` → LC002; `must be lower
than` → LC004; `Invalid agent id`, the `agents.entries` refinements → LC007 or LC010 (the
ownership rule on a converted list); `Missing env var` (a warning) → LC112, or LC006 where the
release refuses; a bare era-B `Invalid input` → any of LC002, LC003, LC008–LC012.
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parent / "vectors" / "config"

Segment = str | int
DocPath = tuple[Segment, ...]

_UNRECOGNIZED = re.compile(
    r'^Unrecognized keys?: (?P<keys>"(?:[^"\\]|\\.)*"(?:, "(?:[^"\\]|\\.)*")*)$'
)
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_LOOPCFG_PART = re.compile(r'\.?([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


def releases() -> list[str]:
    """The releases that have vectors, in file-name order."""
    return sorted(p.name.removesuffix(".jsonl.gz") for p in VECTORS.glob("*.jsonl.gz"))


def load_vectors(release: str) -> list[dict[str, Any]]:
    with gzip.open(VECTORS / f"{release}.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def manifest() -> dict[str, Any]:
    path = VECTORS / "MANIFEST.json"
    return json.loads(path.read_text()) if path.exists() else {}


def issue_line(issue: Mapping[str, str]) -> str:
    """`<path>: <message>` as `openclaw config validate` prints it (`<root>` for the top)."""
    return f"{issue['path'] or '<root>'}: {issue['message']}"


def openclaw_path(dotted: str) -> DocPath:
    """OpenClaw's dotted issue path as segments (see the module text for the rules)."""
    if dotted in ("", "<root>"):
        return ()
    if "[" in dotted:
        return loopcfg_path(dotted)
    parts: list[Segment] = []
    for part in dotted.split("."):
        parts.append(int(part) if part.isdigit() and parts and parts[-1] == "list" else part)
    return tuple(parts)


def loopcfg_path(text: str) -> DocPath:
    """loopcfg's document path (`agents.list[2]["Ops Team"].id`) as segments."""
    parts: list[Segment] = []
    for match in _LOOPCFG_PART.finditer(text):
        name, index, quoted = match.groups()
        if index is not None:
            parts.append(int(index))
        elif quoted is not None:
            parts.append(json.loads(f'"{quoted}"'))
        else:
            parts.append(name)
    return tuple(parts)


def issue_paths(issue: Mapping[str, str]) -> list[DocPath]:
    """The loopcfg-style paths one OpenClaw issue names: its path, or each unknown key in it."""
    base = openclaw_path(issue["path"])
    found = _UNRECOGNIZED.match(issue["message"])
    if not found:
        return [base]
    return [(*base, json.loads(f'"{key}"')) for key in _QUOTED.findall(found.group("keys"))]


def issue_codes(issue: Mapping[str, str]) -> frozenset[str]:
    """The loopcfg codes that may correspond to one OpenClaw issue (module text, **Codes**)."""
    message = issue["message"]
    if message.startswith("Unrecognized key"):
        return frozenset({"LC003", "LC009", "LC010", "LC011", "LC012"})
    if "must be lower than" in message:
        return frozenset({"LC004"})
    if message.startswith("Missing env var"):
        return frozenset({"LC006", "LC112"})
    if (
        message == "Invalid agent id"
        or "agents.entries" in message
        or "agents.ownership" in message
    ):
        return frozenset({"LC007", "LC010"})
    if message == "Invalid input":
        return frozenset({"LC002", "LC003", "LC008", "LC009", "LC010", "LC011", "LC012"})
    return frozenset({"LC002", "LC008"})


def openclaw_problem_paths(vector: Mapping[str, Any]) -> set[DocPath]:
    return {path for issue in vector["issues"] for path in issue_paths(issue)}


def covers(outer: DocPath, inner: DocPath) -> bool:
    return inner[: len(outer)] == outer


def finds_all(openclaw: set[DocPath], loopcfg: set[DocPath]) -> bool:
    """Every OpenClaw path covers a loopcfg path: loopcfg finds what OpenClaw finds."""
    return all(any(covers(o, mine) for mine in loopcfg) for o in openclaw)


def same_paths(openclaw: set[DocPath], loopcfg: set[DocPath]) -> bool:
    """Every OpenClaw path covers a loopcfg path and every loopcfg path is covered."""
    return finds_all(openclaw, loopcfg) and all(
        any(covers(o, mine) for o in openclaw) for mine in loopcfg
    )


def materialise(vector: Mapping[str, Any], folder: Path) -> Path:
    """Writes the vector's files into `folder`; returns the top file."""
    for name, text in vector["files"].items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder / str(vector["main"])


def loopcfg_error_paths(diagnostics: Sequence[Mapping[str, Any]]) -> set[DocPath]:
    """The document paths of loopcfg's errors (warnings and information are not OpenClaw's
    issues: a config with only warnings is valid for both)."""
    return {loopcfg_path(d["path"] or "") for d in diagnostics if d["severity"] == "error"}


def run_loopcfg(vector: Mapping[str, Any]) -> tuple[bool, set[DocPath], set[DocPath]]:
    """Runs loopcfg's `validate` pipeline on one vector, with exactly the vector's variables as
    the environment. Returns (same valid/invalid answer as OpenClaw, loopcfg's error paths,
    OpenClaw's problem paths). loopcfg checks against its one release line as it stands; once
    it takes a target release, the vector's `release` is what it must be given."""
    from loopcfg.check import CheckOptions, check_file

    with tempfile.TemporaryDirectory(prefix="loopcfg-vector-") as scratch:
        main = materialise(vector, Path(scratch))
        report = check_file(str(main), CheckOptions(env=dict(vector["env"])))
        diagnostics = [
            {"severity": d.severity, "path": d.path or "", "code": d.code}
            for d in report.diagnostics
        ]
        valid = report.valid
    return (
        valid == vector["valid"],
        loopcfg_error_paths(diagnostics),
        openclaw_problem_paths(vector),
    )


def iter_all() -> Iterator[dict[str, Any]]:
    for release in releases():
        yield from load_vectors(release)
