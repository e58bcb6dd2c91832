"""The release table (08-releases.md): version order, version → line, key lifecycle, target."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopcfg import keys
from loopcfg.releases import (
    KEY_LIFECYCLE,
    LINES,
    NEWEST,
    choose_target,
    key_status,
    markdown,
    parse_version,
    release_info,
    version_key,
)

ROOT = Path(__file__).resolve().parent.parent

# 08 §8.3, "Measured order" (OpenClaw's own comparison).
MEASURED_ORDER = [
    *("2026.7.1-beta.6", "2026.7.1", "2026.7.1-1", "2026.7.1-2", "2026.7.1-10"),
    *("2026.7.2-beta.7", "2026.7.33", "2026.7.35", "2026.8.1-beta.3", "2026.8.1"),
    *("2026.9.6.beta.1", "2026.9.6", "2026.9.6-1", "2026.9.33", "2026.10.1-beta.1"),
]


def test_the_measured_order_holds() -> None:
    assert sorted(reversed(MEASURED_ORDER), key=version_key) == MEASURED_ORDER


versions = st.builds(
    lambda major, minor, patch, pre: f"{major}.{minor}.{patch}{pre}",
    st.integers(2020, 2030),
    st.integers(1, 12),
    st.integers(0, 40),
    st.sampled_from(["", "-1", "-2", "-10", "-beta.1", "-beta.7", "-alpha.2", "-beta", ".beta.3"]),
)


@given(versions, versions, versions)
def test_the_order_is_a_total_preorder(a: str, b: str, c: str) -> None:
    ka, kb, kc = version_key(a), version_key(b), version_key(c)
    assert (ka <= kb) or (kb <= ka)
    if ka <= kb and kb <= kc:
        assert ka <= kc


@given(versions)
def test_prereleases_sort_before_and_corrections_after_their_release(text: str) -> None:
    version = parse_version(text)
    assert version is not None
    release = f"{version.major}.{version.minor}.{version.patch}"
    if version.is_prerelease:
        assert version_key(text) < version_key(release)
    elif version.correction is not None:
        assert version_key(text) > version_key(release)
        assert version_key(text) > version_key(f"{release}-{version.correction - 1}")


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        (" v2026.9.6 ", "2026.9.6"),
        ("2026.9.6.beta.1", "2026.9.6-beta.1"),
        ("2026.9.6.beta", "2026.9.6-beta"),
    ],
)
def test_spaces_a_leading_v_and_legacy_betas_are_read(text: str, normalised: str) -> None:
    assert str(parse_version(text)) == normalised


@pytest.mark.parametrize("text", ["", "latest", "2026.9", "2026.09.6", "2026.9.6-", "x2026.9.6"])
def test_unparseable_versions(text: str) -> None:
    assert parse_version(text) is None
    assert release_info(text) is None


@pytest.mark.parametrize(
    ("version", "line", "engine"),
    [
        ("2026.2.12", "S0", None),
        ("1.0.0", "S0", None),
        ("2026.2.17", "S1", None),
        ("2026.4.12", "S1", None),
        ("2026.4.14", "S1u", None),
        ("2026.5.3-1", "S1u", None),
        ("2026.5.4-beta.1", "S1u", None),  # between two ranges: the newest release below
        ("2026.5.4", "S2", "E5.4"),
        ("2026.5.7", "S2", "E5.4"),
        ("2026.5.12", "S2", "E5.12"),
        ("2026.6.1", "S2", "E5.12"),
        ("2026.6.5", "S2", "E6.5"),
        ("2026.7.1-2", "S2", "E6.5"),
        ("2026.7.2-beta.3", "S2", "E6.5"),
        ("2026.7.2-beta.4", "S3beta", "transitional"),
        ("2026.8.1-beta.3", "S3beta", "transitional"),
        ("2026.6.33", "S2", "E6.5"),
        ("2026.7.35", "S2", "E6.5"),
        ("2026.8.1", "S3", "E8.1"),
        ("2026.9.6", "S3", "E8.1"),
    ],
)
def test_versions_map_to_lines_and_engines(version: str, line: str, engine: str | None) -> None:
    release = release_info(version)
    assert release is not None
    assert (release.line.id, release.engine) == (line, engine)


@pytest.mark.parametrize(
    "version", ["2026.9.6-1", "2026.9.7", "2026.10.1-beta.1", "2026.9.33", "2026.8.33"]
)
def test_newer_than_the_table_or_an_unknown_extended_stable_month_is_unknown(version: str) -> None:
    assert release_info(version) is None


def test_the_key_sets_of_08_8_1() -> None:
    detectors = {"detectors.genericRepeat", "detectors.knownPollNoProgress", "detectors.pingPong"}
    s1 = {"enabled", "historySize", "warningThreshold", "criticalThreshold"}
    s1 |= {"globalCircuitBreakerThreshold"} | detectors
    expected = {
        "S0": set(),
        "S1": s1,
        "S1u": s1 | {"unknownToolThreshold"},
        "S2": s1 | {"unknownToolThreshold", "postCompactionGuard.windowSize"},
        "S3beta": {"enabled"},
        "S3": {"enabled"},
    }
    assert {line.id: set(keys_of(line.id)) for line in LINES} == expected


def keys_of(line: str) -> list[str]:
    return [setting.name for setting in keys.settings_for(line)]


def test_every_setting_has_a_lifecycle_row() -> None:
    assert [life.name for life in KEY_LIFECYCLE] == [s.name for s in keys.SETTINGS]


def test_key_status_says_retired_or_not_yet_introduced() -> None:
    newest = release_info(NEWEST)
    beta = release_info("2026.7.2-beta.5")
    old = release_info("2026.5.3")
    assert newest is not None and beta is not None and old is not None
    assert key_status("enabled", newest) is None
    assert key_status("historySize", newest) == ("historySize", "2026.8.1", None)
    assert key_status("historySize", beta) == ("historySize", "2026.7.2-beta.4", None)
    assert key_status("postCompactionGuard.windowSize", old) == (
        "postCompactionGuard.windowSize",
        None,
        "2026.5.4",
    )


def test_extended_stable_keeps_its_months_behaviour() -> None:
    release = release_info("2026.7.35")
    assert release is not None
    assert not release.has("list_conversion")
    assert not release.has("cron_alias")
    newest = release_info(NEWEST)
    assert newest is not None and newest.has("list_conversion")


def test_choosing_the_target() -> None:
    option = choose_target("2026.9.6", "2026.7.1-2")
    assert (option.source, option.line.id) == ("option", "S3")
    meta = choose_target(None, "2026.7.1-2")
    assert (meta.source, meta.line.id, meta.known) == ("meta", "S2", True)
    latest = choose_target("latest")
    assert latest.name == NEWEST
    unknown = choose_target(None, "2026.10.4")
    assert (unknown.known, unknown.line.id, unknown.name) == (False, "S2", "2026.10.4")
    assert "not in loopcfg's release table" in unknown.describe()
    none = choose_target(None, 42)  # not a string: no target
    assert (none.source, none.known, none.line.id) == ("none", False, "S2")


def test_docs_releases_md_is_generated_from_the_table() -> None:
    assert (ROOT / "docs/releases.md").read_text(encoding="utf-8") == markdown()
