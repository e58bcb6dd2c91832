"""Shared test fixtures: where the repository, its examples and the shared corpus are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
# Real recorded sessions live beside the repository, never inside it (personal data).
CORPUS = Path(os.environ.get("LOOPCFG_CORPUS", REPO.parent / "shared" / "corpus"))

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")


@pytest.fixture
def corpus() -> Path:
    folder = CORPUS / "openclaw"
    if not folder.is_dir():
        pytest.skip("shared corpus not present")
    return folder
