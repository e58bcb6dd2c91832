"""The real OpenClaw accepted what `loopcfg migrate` writes (issue 14): the vectors recorded by
conformance/record_migrate.py hold, per target release, each input config, loopcfg's migrated
text and the release's own answer (`openclaw config validate`'s snapshot function; the real CLI
for examples/openclaw.json5). This checks that loopcfg still writes exactly the recorded text,
and that the release accepted every one of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loopcfg.config import load_config
from loopcfg.fix import findings
from loopcfg.migrate import plan_migration
from loopcfg.releases import release_info

VECTORS = Path(__file__).resolve().parents[1] / "conformance" / "vectors" / "migrate"
RELEASES = ("2026.9.6", "2026.7.1-2")


def _vectors(version: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / f"{version}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("version", RELEASES)
def test_vectors_cover_the_example_and_were_accepted(version: str) -> None:
    data = _vectors(version)
    assert data["release"] == version
    ids = [case["id"] for case in data["cases"]]
    assert "examples/openclaw.json5" in ids and len(ids) >= 30
    for case in data["cases"]:
        assert case["valid"] is True, (case["id"], case["issues"])
    example = next(c for c in data["cases"] if c["id"] == "examples/openclaw.json5")
    assert example["cli"]["valid"] is True  # the real `openclaw config validate --json`


@pytest.mark.parametrize("version", RELEASES)
def test_loopcfg_still_writes_the_recorded_text(version: str, tmp_path: Path) -> None:
    release = release_info(version)
    assert release is not None
    for case in _vectors(version)["cases"]:
        path = tmp_path / "openclaw.json5"
        path.write_text(case["input"], encoding="utf-8")
        loaded = load_config(str(path))
        plan = plan_migration(loaded, release, findings(loaded, version))
        assert not plan.refused, case["id"]
        migrated = plan.texts.get(str(path), (case["input"], case["input"]))[1]
        assert migrated == case["migrated"], case["id"]


def test_the_example_migrates_to_2026_9_6_with_its_report() -> None:
    example = next(c for c in _vectors("2026.9.6")["cases"] if c["id"] == "examples/openclaw.json5")
    assert "historySize" not in example["migrated"] and "entries: {" in example["migrated"]
    assert example["input"] != example["migrated"]
