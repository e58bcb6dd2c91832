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
  (an `agents.entries` key with a dot in it is joined again when the config has that key);
- `Unrecognized key(s): "a", "b"` at P becomes P+a and P+b, the keys loopcfg points at;
- warnings written with brackets (`agents.list[0].id`) are read like loopcfg's paths.

**Roster.** Where the release converted the config's `agents.list` on read (its warning
`Moved agents.list to keyed agents.entries.`), OpenClaw names an agent `agents.entries.<id>`
and loopcfg names it where the user wrote it, `agents.list[i]` (i: the first entry with that
id). Where the conversion failed, OpenClaw says `agents: Unrecognized key: "list"` and then
`agents.entries must contain at least one configured agent`: one problem, the list, which
loopcfg reports once (LC010 at `agents.list`).
An OpenClaw path *covers* a loopcfg path at it or below it: OpenClaw reports at the outermost
rejected key (`agents.defaults: Unrecognized key: "tools"`; era B's bare `Invalid input` at the
block), loopcfg at the key the user has to change (`agents.defaults.tools.loopDetection`).
Two answers have the same problem paths when every OpenClaw path covers some loopcfg error path
and every loopcfg error path is covered by some OpenClaw path.

**Codes.** What loopcfg code an OpenClaw issue corresponds to, by its message (`issue_codes`):
`Unrecognized key` → LC003, LC009, LC010, LC011 or LC012 (which one depends on the key and the
release); type, `Too small`, `Too big`, `expected int`, `received NaN` → LC002; `must be lower
than` → LC004; `Invalid agent id` or 9.6's `Invalid key in record`, the `agents.entries`
refinements → LC007 or LC010 (the ownership rule on a converted list); `Missing env var` (a
warning) → LC112, or LC006 where the release refuses; a bare era-B `Invalid input` → any of
LC002, LC003, LC008–LC012.

**Agreement** (`verdict`): the same valid/invalid answer and the same problem paths, or one
of the two deliberate differences of docs/conformance.md, each recognised by a rule:
loopcfg reports more (an LC004 beside another problem OpenClaw reports in that block, or a
roster rule beside another problem in `agents`, which OpenClaw skips), or the difference is
outside the loop parts (`in_loop_parts`; one vector by id, `OUTSIDE_BY_ID`, with its reason).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

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
        message in ("Invalid agent id", "Invalid key in record")
        or "agents.entries" in message
        or "agents.ownership" in message
    ):
        return frozenset({"LC007", "LC010"})
    if message == "Invalid input":
        return frozenset({"LC002", "LC003", "LC008", "LC009", "LC010", "LC011", "LC012"})
    return frozenset({"LC002", "LC008"})


def openclaw_problem_paths(
    vector: Mapping[str, Any], list_ids: Sequence[object] = (), entry_keys: Sequence[str] = ()
) -> set[DocPath]:
    """OpenClaw's problem paths in loopcfg's layout: with `list_ids` (the config's
    `agents.list` ids) a converted list's `agents.entries.<id>` paths become `agents.list[i]`,
    the second line of a failed conversion is the first one's problem, and with `entry_keys`
    an `agents.entries` key with dots in it is one segment (**Roster**)."""
    issues = vector["issues"]
    failed = any(
        i["path"] == "agents" and i["message"] == 'Unrecognized key: "list"' for i in issues
    )
    converted = converts_list(vector)
    paths: set[DocPath] = set()
    for issue in issues:
        if failed and issue["message"] == AT_LEAST_ONE:
            paths.add(("agents", "list"))
            continue
        for path in issue_paths(issue):
            path = dotted_entry_key(path, entry_keys)
            paths.add(list_layout(path, list_ids) if converted else path)
    return paths


def dotted_entry_key(path: DocPath, entry_keys: Sequence[str]) -> DocPath:
    """`agents.entries.a.b` names the key `"a.b"` when the config has that key."""
    if path[:2] != ("agents", "entries"):
        return path
    for key in entry_keys:
        parts = tuple(key.split("."))
        if len(parts) > 1 and path[2 : 2 + len(parts)] == parts:
            return ("agents", "entries", key, *path[2 + len(parts) :])
    return path


AT_LEAST_ONE = "agents.entries must contain at least one configured agent"
MOVED_LIST = "Moved agents.list to keyed agents.entries."


def converts_list(vector: Mapping[str, Any]) -> bool:
    """Whether the release converted the config's `agents.list` on read (its warning says so)."""
    return any(w["message"] == MOVED_LIST for w in vector.get("warnings") or ())


def list_layout(path: DocPath, list_ids: Sequence[object]) -> DocPath:
    """`agents.entries.<id>...` as `agents.list[i]...`, i the first entry with that id."""
    if len(path) < 3 or path[:2] != ("agents", "entries") or path[2] not in list_ids:
        return path
    return ("agents", "list", list(list_ids).index(path[2]), *path[3:])


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


class Answer(NamedTuple):
    """loopcfg's answer to one vector, for the vector's release."""

    valid: bool
    errors: tuple[tuple[str, DocPath], ...]  # (code, path) of each error
    list_ids: tuple[object, ...]  # the `agents.list` ids as read (for the conversion mapping)
    entry_keys: tuple[str, ...]  # the `agents.entries` keys as read (for keys with dots)
    lines: tuple[str, ...]  # the errors as `CODE path: message`, for failure messages


class Pipeline:
    """loopcfg's `validate` in-process over many vectors: each distinct config (files and
    variables) is written and loaded once, then checked for every release that needs it."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.loaded: dict[str, Any] = {}

    def answer(self, vector: Mapping[str, Any]) -> Answer:
        from loopcfg.check import CheckOptions, loaded_findings
        from loopcfg.validate import config_target

        loaded = self._load(vector)
        target = config_target(loaded, str(vector["release"]))
        found = loaded_findings(loaded, CheckOptions(), target)
        errors = [d for d in found if d.severity == "error"]
        return Answer(
            not errors,
            tuple((d.code, loopcfg_path(d.path or "")) for d in errors),
            _list_ids(loaded.root),
            _entry_keys(loaded.root),
            tuple(f"{d.code} {d.path or '<root>'}: {d.message}" for d in errors),
        )

    def _load(self, vector: Mapping[str, Any]) -> Any:
        from loopcfg.config import load_config

        key = json.dumps([vector["main"], vector["files"], vector["env"]], sort_keys=True)
        loaded = self.loaded.get(key)
        if loaded is None:
            env = dict(vector["env"])
            files = vector["files"]
            main_name = str(vector["main"])
            if len(files) == 1 and "$include" not in files[main_name]:
                # Nothing to resolve beside it: read from memory, as `validate -` reads it.
                text = io.BytesIO(files[main_name].encode("utf-8"))
                loaded = load_config("-", env=env, stdin_filename=main_name, stdin=text)
            else:
                main = materialise(vector, self.scratch / str(len(self.loaded)))
                loaded = load_config(str(main), env=env)
            self.loaded[key] = loaded
        return loaded


def _list_ids(root: Any) -> tuple[object, ...]:
    from loopcfg.source.nodes import ArrayNode, ObjectNode, ScalarNode

    agents = root.get("agents") if isinstance(root, ObjectNode) else None
    items = agents.get("list") if isinstance(agents, ObjectNode) else None
    if not isinstance(items, ArrayNode):
        return ()
    ids: list[object] = []
    for item in items.items:
        node = item.get("id") if isinstance(item, ObjectNode) else None
        ids.append(node.value if isinstance(node, ScalarNode) else None)
    return tuple(ids)


def _entry_keys(root: Any) -> tuple[str, ...]:
    from loopcfg.source.nodes import ObjectNode

    agents = root.get("agents") if isinstance(root, ObjectNode) else None
    entries = agents.get("entries") if isinstance(agents, ObjectNode) else None
    if not isinstance(entries, ObjectNode):
        return ()
    return tuple(entry.key.name for entry in entries.winning_entries())


def run_loopcfg(vector: Mapping[str, Any]) -> tuple[bool, set[DocPath], set[DocPath]]:
    """Runs loopcfg's `validate` pipeline on one vector for its release, with exactly the
    vector's variables as the environment. Returns (same valid/invalid answer as OpenClaw,
    loopcfg's error paths, OpenClaw's problem paths)."""
    with tempfile.TemporaryDirectory(prefix="loopcfg-vector-") as scratch:
        answer = Pipeline(Path(scratch)).answer(vector)
    return (
        answer.valid == vector["valid"],
        {path for _, path in answer.errors},
        openclaw_problem_paths(vector, answer.list_ids, answer.entry_keys),
    )


# -- agreement, and the deliberate differences of docs/conformance.md --------------------------

# What loopcfg reads (01 §1.1, 08 §8.1, §8.3, §8.4): an OpenClaw path at or below one of these
# is a loop part; one that is neither that nor a container of one is outside the loop parts.
_BLOCK = "loopDetection"
_ROSTER_KEYS = ("id", "default", "tools", _BLOCK)

# Vectors whose only difference is a key outside the loop parts that OpenClaw names at a
# container of loop parts too (era B's bare `Invalid input`), so no rule on the path can tell.
OUTSIDE_BY_ID: dict[str, str] = {
    "meta.unknown_key": "meta.foo, outside the loop parts; era B says only `meta: Invalid input`",
}


def in_loop_parts(path: DocPath) -> bool:
    """Whether an OpenClaw problem path is about what loopcfg reads (or a container of it)."""
    if any(isinstance(p, str) and _BLOCK in p.split(".") for p in path):
        return True  # a block, misplaced or not, or a dotted key naming one
    if len(path) <= 1:
        return not path or path[0] in ("tools", "agents", "tool", "meta")
    head = path[:2]
    if path[0] == "tools":
        return len(path) == 2  # `tools.<x>` holds a misplaced `tools.<x>.loopDetection`
    if head == ("meta", "lastTouchedVersion"):
        return True
    if head in (("agents", "list"), ("agents", "entries")):
        return len(path) <= 3 or path[3] in _ROSTER_KEYS
    if head in (("agents", "ownership"), ("agents", "defaults")):
        return head == ("agents", "ownership") or path[2:3] in ((), ("tools",), (_BLOCK,))
    return False


class Verdict(NamedTuple):
    """How loopcfg's answer to a vector compares with OpenClaw's."""

    kind: str  # "same", "more", "outside" (both deliberate, docs/conformance.md) or "differs"
    missing: tuple[DocPath, ...]  # OpenClaw's problem paths loopcfg does not find
    extra: tuple[tuple[str, DocPath], ...]  # loopcfg's errors OpenClaw does not name


def _block_of(path: DocPath) -> DocPath:
    return path[:-1]


def verdict(vector: Mapping[str, Any], answer: Answer) -> Verdict:
    """Same valid/invalid answer and the same problem paths, or which deliberate difference."""
    mine = {path for _, path in answer.errors}
    theirs = openclaw_problem_paths(vector, answer.list_ids, answer.entry_keys)
    inside = {path for path in theirs if in_loop_parts(path)}
    if vector["id"] in OUTSIDE_BY_ID and not mine:
        inside = set()
    outside = inside != theirs
    missing = tuple(sorted((p for p in inside if not any(covers(p, m) for m in mine)), key=str))
    extra = tuple(
        (code, path) for code, path in answer.errors if not any(covers(o, path) for o in inside)
    )
    same_answer = answer.valid == (not inside)
    if not same_answer or missing:
        return Verdict("differs", missing, extra)
    if not extra:
        return Verdict("outside" if outside else "same", missing, extra)
    if all(_reported_more(code, path, inside) for code, path in extra):
        return Verdict("more", missing, extra)
    return Verdict("differs", missing, extra)


def _reported_more(code: str, path: DocPath, theirs: set[DocPath]) -> bool:
    """The deliberate "loopcfg reports more" of docs/conformance.md: a refinement OpenClaw
    skips because of another problem it reports beside it (08 §8.2 notes; 03, last paragraph:
    an error does not hide findings that do not read the broken value)."""
    if code == "LC004":  # the ordering, skipped beside another problem in the block
        return _beside_another_issue(path, theirs)
    roster_rule = path in (("agents", "ownership"), ("agents", "entries")) or (
        len(path) == 3 and path[:2] == ("agents", "entries")
    )
    if (
        code in ("LC007", "LC010") and roster_rule
    ):  # the roster rules, skipped beside another problem
        return any(other[:1] == ("agents",) and other != path for other in theirs)
    return False


def _beside_another_issue(ordering: DocPath, theirs: set[DocPath]) -> bool:
    """OpenClaw skipped the ordering refinement of a block in which it reports another
    problem (08 §8.2 notes, "Refinement suppression")."""
    block = _block_of(ordering)
    return any(covers(block, path) or covers(path, block) for path in theirs)


def iter_all() -> Iterator[dict[str, Any]]:
    for release in releases():
        yield from load_vectors(release)
