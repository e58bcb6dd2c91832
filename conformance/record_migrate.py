"""Record what real OpenClaw releases say about configs that `loopcfg migrate` wrote.

For each target release, every input config (examples/openclaw.json5, the migrate test cases
and seeded generated configs) is migrated by loopcfg, and the migrated text is validated by the
release itself, in-process through record_config.py's driver (validate_config.mjs: the snapshot
function `openclaw config validate` calls), plus the real `openclaw config validate --json` CLI
for examples/openclaw.json5. Written to `tests/conformance/vectors/migrate/<VERSION>.json`:
the input, loopcfg's migrated text and OpenClaw's answer. tests/migrate/test_conformance.py
checks that loopcfg still writes exactly the recorded text and that OpenClaw accepted it.

    python conformance/record_migrate.py                 # 2026.9.6 and 2026.7.1-2
    python conformance/record_migrate.py 2026.9.6
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import record_config

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from loopcfg.config import load_config  # noqa: E402
from loopcfg.fix import findings  # noqa: E402
from loopcfg.migrate import plan_migration  # noqa: E402
from loopcfg.releases import release_info  # noqa: E402

VECTORS = REPO / "tests/conformance/vectors/migrate"
RELEASES = ("2026.9.6", "2026.7.1-2")
GENERATED = 40
SEED = 14  # issue 14


def generated_config(rng: random.Random, index: int) -> str:
    """A JSON5 config with comments: knobs in the global block and per agent, a roster with
    duplicate and non-normalised ids, sometimes an entries roster instead."""

    def block() -> str:
        members = []
        for key, low, high in (
            ("historySize", 5, 60),
            ("warningThreshold", 2, 15),
            ("criticalThreshold", 16, 30),
            ("globalCircuitBreakerThreshold", 31, 60),
            ("unknownToolThreshold", 2, 20),
        ):
            if rng.random() < 0.4:
                members.append(f"{key}: {rng.randint(low, high)}")
        if rng.random() < 0.5:
            members.append(f"enabled: {rng.choice(['true', 'false'])}")
        if rng.random() < 0.3:
            members.append(f"detectors: {{ pingPong: {rng.choice(['true', 'false'])} }}")
        if rng.random() < 0.3:
            members.append(f"postCompactionGuard: {{ windowSize: {rng.randint(1, 6)} }}")
        return "{ " + ", ".join(f"{m} /* c */" for m in members) + " }"

    ids = rng.sample(
        ["main", "ops", "Ops Team", "research", "night-shift", "main"], rng.randint(1, 4)
    )
    if rng.random() < 0.25:  # an S3 roster, to migrate down

        def entry(key: str) -> str:
            flag = rng.choice(["true", "false"])
            return f'    "{key}": {{ tools: {{ loopDetection: {{ enabled: {flag} }} }} }}'

        entries = ",\n".join(
            entry(i) for i in dict.fromkeys(x.lower().replace(" ", "-") for x in ids)
        )
        ownership = '    ownership: "explicit",\n' if entries.count("\n") else ""
        roster = (
            f"  agents: {{\n    // the agents\n    entries: {{\n{entries}\n    }},\n"
            f"{ownership}  }},\n"
        )
        global_block = "{ enabled: true }"
    else:
        items = []
        for position, agent in enumerate(ids):
            tools = f", tools: {{ loopDetection: {block()} }}" if rng.random() < 0.5 else ""
            marker = ", default: true" if position == 0 and rng.random() < 0.3 else ""
            items.append(f'      // agent {position}\n      {{ id: "{agent}"{marker}{tools} }},')
        roster = "  agents: {\n    list: [\n" + "\n".join(items) + "\n    ],\n  },\n"
        global_block = block()
    return (
        f"// generated config {index}\n{{\n  gateway: {{ port: 18789 }},\n"
        f"  tools: {{\n    // loop protection\n    loopDetection: {global_block},\n  }},\n"
        f"{roster}}}\n"
    )


def inputs() -> list[tuple[str, str]]:
    found = [("examples/openclaw.json5", (REPO / "examples/openclaw.json5").read_text("utf-8"))]
    for path in sorted((REPO / "tests/migrate/cases").glob("*.json5")):
        found.append((f"tests/migrate/cases/{path.name}", path.read_text("utf-8")))
    rng = random.Random(SEED)
    found += [(f"generated-{i}", generated_config(rng, i)) for i in range(GENERATED)]
    return found


def migrate(text: str, version: str) -> str | None:
    """loopcfg's migrated text for `version` (None: refused, or nothing to do)."""
    release = release_info(version)
    assert release is not None
    with tempfile.TemporaryDirectory(prefix="loopcfg-migrate-") as scratch:
        path = Path(scratch) / "openclaw.json5"
        path.write_text(text, encoding="utf-8")
        loaded = load_config(str(path))
        plan = plan_migration(loaded, release, findings(loaded, version))
        if plan.refused:
            return None
        return plan.texts.get(str(path), (text, text))[1]


def record(version: str) -> Path:
    rows = []
    for name, text in inputs():
        migrated = migrate(text, version)
        if migrated is not None:
            rows.append({"id": name, "input": text, "migrated": migrated})
    cases = [
        {"id": row["id"], "main": "openclaw.json5", "files": {"openclaw.json5": row["migrated"]},
         "env": {}}
        for row in rows
    ]  # fmt: skip
    answers = record_config.run_in_process(version, cases)
    example = next(case for case in cases if case["id"] == "examples/openclaw.json5")
    cli = record_config.run_cli(version, example)
    for row in rows:
        answer = answers[row["id"]]
        row["valid"] = answer.get("valid")
        row["issues"] = answer.get("issues", [])
        row["warnings"] = answer.get("warnings", [])
        if "error" in answer:
            row["error"] = answer["error"]
        if row["id"] == example["id"]:
            row["cli"] = cli
    VECTORS.mkdir(parents=True, exist_ok=True)
    out = VECTORS / f"{version}.json"
    document = {"release": version, "recorder": "conformance/record_migrate.py", "cases": rows}
    out.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", default=list(RELEASES))
    args = parser.parse_args(argv)
    for version in args.releases:
        out = record(version)
        data: dict[str, Any] = json.loads(out.read_text("utf-8"))
        valid = sum(1 for row in data["cases"] if row["valid"] is True)
        print(f"{version}: {valid}/{len(data['cases'])} migrated configs accepted -> {out}")


if __name__ == "__main__":
    main()
