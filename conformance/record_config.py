"""Record what real OpenClaw releases answer to the configs of config_cases.py, as test vectors.

For each release, installs `openclaw@VERSION` and Node (openclaw.py), runs OpenClaw's own config
validation in-process under that Node (validate_config.mjs: the snapshot function that
`openclaw config validate` calls, one fresh HOME and config folder per config), and writes
`tests/conformance/vectors/config/<VERSION>.jsonl.gz`: one JSON object per config with its
files, env, the release, OpenClaw's valid/invalid answer, its issues and warnings.

    python conformance/record_config.py                      # the five releases of issue 11
    python conformance/record_config.py 2026.9.6 --cli-check 30

`--cli-check N` also runs the real `openclaw config validate --json` (a new Node process per
config, seconds each) on N of the cases, spread over every case family, and compares its answer
with the in-process one; the result goes to the manifest (`MANIFEST.json` next to the vectors).
`--random N` records only the first N of the random configs (every systematic case is always
recorded); `--sample N` records only every len/N-th case (for trying things).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openclaw
from config_cases import all_cases

REPO = Path(__file__).resolve().parent.parent
VECTORS = REPO / "tests/conformance/vectors/config"
DRIVER = Path(__file__).resolve().parent / "validate_config.mjs"
RELEASES = ("2026.5.4", "2026.6.5", "2026.7.1-2", "2026.7.35", "2026.9.6")


def isolated_env(home: str) -> dict[str, str]:
    """What OpenClaw sees of the machine: no user settings, no colour, a fixed zone and locale."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "NO_COLOR": "1",
        "CI": "1",
    }


def run_in_process(version: str, cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """OpenClaw's answers for `cases`, from one Node process that imports the release's dist."""
    package = openclaw.openclaw(version)
    with tempfile.TemporaryDirectory(prefix="loopcfg-record-") as scratch:
        requests = Path(scratch) / "requests.jsonl"
        answers = Path(scratch) / "answers.jsonl"
        requests.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases))
        home = Path(scratch) / "home"
        home.mkdir()
        log = Path(scratch) / "driver.log"
        with log.open("wb") as sink:
            result = subprocess.run(
                [str(openclaw.node()), str(DRIVER), str(package), str(requests), str(answers)],
                env=isolated_env(str(home)),
                cwd=scratch,
                stdout=sink,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if result.returncode != 0:
            sys.stderr.write(log.read_text(errors="replace")[-4000:])
            raise SystemExit(f"{version}: the driver failed (exit {result.returncode})")
        found = [json.loads(line) for line in answers.read_text().splitlines() if line]
    return {answer["id"]: answer for answer in found}


def run_cli(version: str, item: dict[str, Any]) -> dict[str, Any]:
    """The answer of the real `openclaw config validate --json` for one case."""
    package = openclaw.openclaw(version)
    with tempfile.TemporaryDirectory(prefix="loopcfg-cli-") as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        (root / "work").mkdir()
        for rel, text in item["files"].items():
            target = root / "cfg" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        env = isolated_env(str(root / "home"))
        env.update(item["env"])
        env["OPENCLAW_CONFIG_PATH"] = str(root / "cfg" / item["main"])
        result = subprocess.run(
            [str(openclaw.node()), str(package / "openclaw.mjs"), "config", "validate", "--json"],
            env=env,
            cwd=root / "work",
            capture_output=True,
            text=True,
            check=False,
        )
    try:
        output = json.loads(result.stdout[result.stdout.index("{") :])
    except ValueError:
        return {"id": item["id"], "error": f"exit {result.returncode}: {result.stderr[-300:]}"}
    key = "issues" if output.get("valid") is False else "warnings"
    if "error" in output and key not in output:
        return {"id": item["id"], "error": output["error"]}
    config_dir = str(root / "cfg")  # written as <config-dir>, as validate_config.mjs does
    return {
        "id": item["id"],
        "valid": output.get("valid"),
        key: [
            {"path": i["path"], "message": i["message"].replace(config_dir, "<config-dir>")}
            for i in output.get(key, [])
        ],
    }


# Always compared with the CLI: a warning-only answer, both outcomes of the 2026.9.6 roster
# conversion, an include error (its message names a file) and an unsafe integer.
PINNED = (
    "env.list_id.unset",
    "roster.list.one_id='main'",
    "roster.list.duplicate",
    "include.missing",
    "value.global.historySize=max_safe_plus1",
)


def cli_sample(cases: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The pinned cases, then up to `count` in all, spread over every family (the id's first
    part) and, in each, evenly."""
    if count <= 0:
        return []
    families: dict[str, list[dict[str, Any]]] = {}
    for item in cases:
        families.setdefault(item["id"].split(".")[0], []).append(item)
    picked = [item for item in cases if item["id"] in PINNED]
    rounds = 0
    while len(picked) < count and rounds < len(cases):
        for members in families.values():
            step = max(1, len(members) // (count // len(families) + 1))
            index = rounds * step + rounds % 3
            if index < len(members) and len(picked) < count and members[index] not in picked:
                picked.append(members[index])
        rounds += 1
    return picked


def cli_prints_warnings(version: str) -> bool:
    """Whether this release's `config validate` prints the warnings of a valid config at all
    (2026.5.4's does not, though its snapshot has them)."""
    dist = openclaw.openclaw(version) / "dist"
    for path in sorted(dist.glob("config-cli-*")):
        text = path.read_text(errors="replace")
        start = text.find("async function runConfigValidate(")
        if start >= 0:
            body = text[start : text.find("\nfunction ", start)]
            return "snapshot.warnings" in body
    raise SystemExit(f"{version}: no runConfigValidate in {dist}")


def compare_cli(
    version: str, cases: list[dict[str, Any]], answers: dict[str, Any]
) -> dict[str, Any]:
    """How many CLI answers equal the in-process ones (the CLI prints issues when invalid and
    warnings when valid, if it prints them at all), with the ids of those that differ."""
    differ: list[str] = []
    warnings_shown = cli_prints_warnings(version)
    for item in cases:
        cli = run_cli(version, item)
        mine = answers[item["id"]]
        key = "issues" if cli.get("valid") is False else "warnings"
        same = (
            cli.get("error") == mine.get("error")
            if "error" in cli or "error" in mine
            else cli["valid"] == mine["valid"]
            and (cli[key] == mine[key] or (key == "warnings" and not warnings_shown))
        )
        if not same:
            differ.append(item["id"])
            sys.stderr.write(f"{version} {item['id']}: CLI {cli} != in-process {mine}\n")
    return {
        "checked": len(cases),
        "equal": len(cases) - len(differ),
        "differ": differ,
        "cli_prints_warnings": warnings_shown,
    }


def vector(version: str, item: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": item["id"],
        "release": version,
        "main": item["main"],
        "files": item["files"],
        "env": item["env"],
    }
    if "error" in answer:
        record.update(valid=None, error=answer["error"], issues=[], warnings=[])
    else:
        record.update(valid=answer["valid"], issues=answer["issues"], warnings=answer["warnings"])
    return record


def write_vectors(version: str, records: list[dict[str, Any]]) -> Path:
    """gzip with a zero mtime and no file name, so equal answers give equal bytes."""
    VECTORS.mkdir(parents=True, exist_ok=True)
    target = VECTORS / f"{version}.jsonl.gz"
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
        for record in records:
            out.write((json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode())
    target.write_bytes(raw.getvalue())
    return target


def update_manifest(version: str, entry: dict[str, Any]) -> None:
    path = VECTORS / "MANIFEST.json"
    manifest = json.loads(path.read_text()) if path.exists() else {}
    releases = manifest.setdefault("releases", {})
    previous = releases.get(version, {})
    if "cli_check" in previous and "cli_check" not in entry:
        entry["cli_check"] = previous["cli_check"]
    releases[version] = entry
    manifest["node"] = openclaw.NODE_VERSION
    manifest["releases"] = dict(sorted(releases.items()))
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def counts(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "configs": len(records),
        "valid": sum(1 for r in records if r["valid"] is True),
        "invalid": sum(1 for r in records if r["valid"] is False),
        "errors": sum(1 for r in records if r["valid"] is None),
    }


def _index(item: dict[str, Any]) -> int:
    return int(item["id"].split(".")[1])


def check_stored(version: str, cli_check: int) -> None:
    """Compares the stored vectors of `version` with the CLI (`--cli-only`)."""
    path = VECTORS / f"{version}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        stored = [json.loads(line) for line in handle if line.strip()]
    answers = {v["id"]: v for v in stored}
    entry = counts(stored)
    entry["cli_check"] = compare_cli(version, cli_sample(stored, cli_check), answers)
    update_manifest(version, entry)
    print(f"{version}: {entry['cli_check']}")


def record(version: str, sample: int, cli_check: int, random_limit: int | None = None) -> None:
    cases = all_cases()
    if random_limit is not None:
        cases = [c for c in cases if not c["id"].startswith("random.") or _index(c) < random_limit]
    if sample:
        step = max(1, len(cases) // sample)
        cases = cases[::step]
    answers = run_in_process(version, cases)
    missing = [c["id"] for c in cases if c["id"] not in answers]
    if missing:
        raise SystemExit(f"{version}: no answer for {missing[:5]}")
    records = [vector(version, c, answers[c["id"]]) for c in cases]
    target = write_vectors(version, records)
    entry = counts(records)
    if cli_check:
        entry["cli_check"] = compare_cli(version, cli_sample(cases, cli_check), answers)
    update_manifest(version, entry)
    print(f"{version}: {len(records)} configs -> {target.relative_to(REPO)} {entry}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", default=list(RELEASES))
    parser.add_argument("--sample", type=int, default=0, help="record about N cases only")
    parser.add_argument(
        "--cli-check",
        type=int,
        default=0,
        metavar="N",
        help="compare N in-process answers with the real CLI's",
    )
    parser.add_argument(
        "--random",
        type=int,
        metavar="N",
        help="only the first N random configs (every other case is always recorded)",
    )
    parser.add_argument(
        "--cli-only",
        action="store_true",
        help="only compare the stored vectors with the CLI (with --cli-check N)",
    )
    args = parser.parse_args()
    os.umask(0o022)
    for version in args.releases:
        if args.cli_only:
            check_stored(version, args.cli_check)
        else:
            record(version, args.sample, args.cli_check, args.random)


if __name__ == "__main__":
    main()
