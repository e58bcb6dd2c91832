"""How far loopcfg agrees with the real OpenClaw releases on the recorded config vectors.

Runs loopcfg's `validate` pipeline in-process (`tests/conformance/config_vectors.Pipeline`, the
same one `tests/conformance/test_config_agreement.py` uses) over every vector of every release,
for the vector's release as the target and with exactly the vector's variables, and prints per
release how many configs get the same valid/invalid answer and the same problem paths (the
mapping of tests/conformance/config_vectors.py), and how many differ deliberately
(docs/conformance.md "Deliberate differences"). Nothing of OpenClaw is needed.

    python conformance/compare_config.py                      # every recorded release
    python conformance/compare_config.py 2026.9.6 --show 20   # and 20 disagreements
    python conformance/compare_config.py --causes             # disagreements by root cause

`--causes` groups the disagreements by a signature: the case family, and the OpenClaw paths
loopcfg misses and the loopcfg errors OpenClaw does not name, with indices and agent ids
written `N`/`<id>`. Each group is one root cause to fix or to document.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.conformance.config_vectors import (  # noqa: E402
    Answer,
    Pipeline,
    Verdict,
    issue_line,
    load_vectors,
    releases,
    verdict,
)


def family(vector_id: str) -> str:
    return vector_id.split(".")[0]


def cause(vector: dict[str, Any], answer: Answer, found: Verdict) -> str:
    """A root-cause signature of one disagreement (see the module text)."""

    def general(path: tuple[object, ...]) -> str:
        return re.sub(r"\d+", "N", ".".join(str(p) for p in path))

    valid = "valid/invalid differs" if answer.valid != vector["valid"] else "paths differ"
    missing = sorted({general(p) for p in found.missing})
    extra = sorted({f"{code} {general(p)}" for code, p in found.extra})
    return f"{valid}; {family(vector['id'])}; OpenClaw only {missing}; loopcfg only {extra}"


def compare_release(
    release: str, pipeline: Pipeline, show: int, causes: Counter[tuple[str, str]]
) -> dict[str, Any]:
    vectors = load_vectors(release)
    kinds: Counter[str] = Counter()
    same_valid = 0
    shown = 0
    examples: dict[tuple[str, str], str] = {}
    for vector in vectors:
        answer = pipeline.answer(vector)
        found = verdict(vector, answer)
        kinds[found.kind] += 1
        same_valid += answer.valid == vector["valid"]
        if found.kind != "differs":
            continue
        key = (release, cause(vector, answer, found))
        causes[key] += 1
        examples.setdefault(key, vector["id"])
        if shown < show:
            shown += 1
            print(f"  {vector['id']}: OpenClaw {'valid' if vector['valid'] else 'invalid'}", end="")
            print(f" {[issue_line(i) for i in vector['issues']]}")
            print(f"    loopcfg {'valid' if answer.valid else 'invalid'} {list(answer.lines)}")
    for key, vector_id in examples.items():
        causes[(key[0], f"{key[1]} (e.g. {vector_id})")] = causes.pop(key)
    return {
        "release": release,
        "configs": len(vectors),
        "same_valid": same_valid,
        "kinds": dict(kinds),
    }


def percent(part: int, whole: int) -> str:
    """Rounded down, so that only all of them reads 100.0 %."""
    return f"{(1000 * part // whole) / 10:.1f} %" if whole else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print N disagreements")
    parser.add_argument("--causes", action="store_true", help="disagreements by root cause")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    causes: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory(prefix="loopcfg-compare-") as scratch:
        pipeline = Pipeline(Path(scratch))
        results = [
            compare_release(r, pipeline, args.show, causes) for r in args.releases or releases()
        ]
    if args.json:
        print(json.dumps({"results": results}, indent=2))
        return
    print(
        "| release | configs | same valid/invalid | agree | same | deliberate: loopcfg finds "
        "more | deliberate: outside the loop parts | differ |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        n, k = r["configs"], r["kinds"]
        agree = n - k.get("differs", 0)
        print(
            f"| {r['release']} | {n} | {r['same_valid']} ({percent(r['same_valid'], n)}) | "
            f"{agree} ({percent(agree, n)}) | {k.get('same', 0)} | {k.get('more', 0)} | "
            f"{k.get('outside', 0)} | {k.get('differs', 0)} |"
        )
    if args.causes:
        for (release, signature), count in sorted(causes.items(), key=lambda i: -i[1]):
            print(f"{count:5d}  {release}: {signature}")


if __name__ == "__main__":
    main()
