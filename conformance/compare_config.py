"""How far loopcfg agrees with the real OpenClaw releases on the recorded config vectors.

Runs `loopcfg validate --format json` (with `--openclaw VERSION` once loopcfg has that option)
over every vector of every release, with exactly the vector's variables as the environment, and
prints per release: how many configs get the same valid/invalid answer, and how many get the same
problem paths (the mapping of tests/conformance/config_vectors.py). Nothing of OpenClaw is needed.

    python conformance/compare_config.py                 # every recorded release
    python conformance/compare_config.py 2026.9.6 --show 20   # and 20 disagreements, by family
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.conformance.config_vectors import (  # noqa: E402
    finds_all,
    issue_line,
    load_vectors,
    loopcfg_error_paths,
    materialise,
    openclaw_problem_paths,
    releases,
    same_paths,
)

LOOPCFG = [sys.executable, "-m", "loopcfg"]


def knows_target_option() -> bool:
    """Whether this loopcfg's `validate` takes `--openclaw VERSION` (issue 11, item 2)."""
    shown = subprocess.run([*LOOPCFG, "validate", "--help"], capture_output=True, text=True)
    return "--openclaw" in shown.stdout


def loopcfg_reports(
    release: str, vectors: list[dict[str, Any]], scratch: Path, target: bool
) -> dict[str, dict[str, Any]]:
    """loopcfg's JSON report of each vector's top file, by vector id: one `validate` run per set
    of variables, over every file that needs that set."""
    groups: dict[tuple[tuple[str, str], ...], list[tuple[str, Path]]] = {}
    for index, vector in enumerate(vectors):
        main = materialise(vector, scratch / str(index))
        groups.setdefault(tuple(sorted(vector["env"].items())), []).append((vector["id"], main))
    reports: dict[str, dict[str, Any]] = {}
    for env_items, members in groups.items():
        command = [*LOOPCFG, "validate", "--format", "json", "--no-color"]
        if target:
            command += ["--openclaw", release]
        env = {"PATH": "/usr/bin:/bin", "HOME": str(scratch), **dict(env_items)}
        result = subprocess.run(
            [*command, *(str(path) for _, path in members)],
            env=env,
            cwd=scratch,
            capture_output=True,
            text=True,
        )
        if result.returncode not in (0, 1, 2) or not result.stdout.strip():
            raise SystemExit(f"loopcfg validate failed ({result.returncode}): {result.stderr}")
        by_path = {f["path"]: f for f in json.loads(result.stdout)["files"]}
        for vector_id, path in members:
            reports[vector_id] = by_path[str(path)]
    return reports


def compare_release(release: str, target: bool, show: int) -> dict[str, Any]:
    vectors = load_vectors(release)
    with tempfile.TemporaryDirectory(prefix="loopcfg-compare-") as scratch:
        reports = loopcfg_reports(release, vectors, Path(scratch), target)
    same_valid = same_both = more = 0
    differ_valid: Counter[str] = Counter()
    differ_paths: Counter[str] = Counter()
    shown = 0
    for vector in vectors:
        report = reports[vector["id"]]
        agree = report["valid"] == vector["valid"]
        mine = loopcfg_error_paths(report["diagnostics"])
        theirs = openclaw_problem_paths(vector)
        paths = same_paths(theirs, mine)
        family = vector["id"].split(".")[0]
        same_valid += agree
        same_both += agree and paths
        # loopcfg finds every OpenClaw problem and more (e.g. an ordering OpenClaw skips
        # beside a type error): the deliberate difference of docs/conformance.md.
        more += agree and not paths and finds_all(theirs, mine)
        if not agree:
            differ_valid[family] += 1
        elif not paths:
            differ_paths[family] += 1
        if (not agree or not paths) and shown < show:
            shown += 1
            print(f"  {vector['id']}: OpenClaw {'valid' if vector['valid'] else 'invalid'}", end="")
            print(f" {[issue_line(i) for i in vector['issues']]}")
            codes = [
                f"{d['code']} {d['path']}"
                for d in report["diagnostics"]
                if d["severity"] == "error"
            ]
            print(f"    loopcfg {'valid' if report['valid'] else 'invalid'} {codes}")
    total = len(vectors)
    return {
        "release": release,
        "configs": total,
        "same_valid": same_valid,
        "same_valid_and_paths": same_both,
        "same_valid_loopcfg_more": more,
        "differ_valid_by_family": dict(differ_valid.most_common()),
        "differ_paths_by_family": dict(differ_paths.most_common()),
    }


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print N disagreements")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    target = knows_target_option()
    results = [compare_release(r, target, args.show) for r in args.releases or releases()]
    if args.json:
        print(json.dumps({"target_option": target, "results": results}, indent=2))
        return
    print(f"loopcfg validate {'--openclaw VERSION' if target else '(no target option yet)'}")
    print(
        "| release | configs | same valid/invalid | and same problem paths "
        "| and loopcfg finds more |"
    )
    print("|---|---|---|---|---|")
    for r in results:
        n = r["configs"]
        print(
            f"| {r['release']} | {n} | {r['same_valid']} ({percent(r['same_valid'], n)}) | "
            f"{r['same_valid_and_paths']} ({percent(r['same_valid_and_paths'], n)}) | "
            f"{r['same_valid_loopcfg_more']} ({percent(r['same_valid_loopcfg_more'], n)}) |"
        )
    for r in results:
        print(f"{r['release']}: valid/invalid differs by family {r['differ_valid_by_family']}")
        print(f"{r['release']}: paths differ by family {r['differ_paths_by_family']}")


if __name__ == "__main__":
    main()
