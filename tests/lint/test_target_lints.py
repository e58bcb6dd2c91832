"""Lints per target release (03 last paragraph, 08 §8.4): the threshold lints only where
thresholds exist, LC108 on agents.entries keys, and errors hiding only what reads the broken
value."""

from __future__ import annotations

from pathlib import Path

from loopcfg.check import CheckOptions, check_file


def codes(tmp_path: Path, text: str, openclaw: str | None = None) -> list[str]:
    config = tmp_path / "openclaw.json5"
    config.write_text(text, encoding="utf-8")
    report = check_file(str(config), CheckOptions(verbose=True, env={}, openclaw=openclaw))
    return [d.code for d in report.diagnostics if d.code != "LC203"]


def test_threshold_lints_only_where_thresholds_exist(tmp_path: Path) -> None:
    text = "{tools: {loopDetection: {enabled: true, historySize: 5}}}"
    assert "LC102" in codes(tmp_path, text, "2026.7.1-2")
    on_s3 = codes(tmp_path, text, "2026.9.6")
    assert "LC009" in on_s3 and "LC102" not in on_s3


def test_lc201_still_runs_when_a_threshold_of_the_block_is_broken(tmp_path: Path) -> None:
    text = '{tools: {loopDetection: {enabled: false, historySize: "ten"}}}'
    found = codes(tmp_path, text, "2026.7.1-2")
    assert "LC002" in found and "LC201" in found
    retired = codes(
        tmp_path, "{tools: {loopDetection: {enabled: false, historySize: 5}}}", "latest"
    )
    assert "LC009" in retired and "LC201" in retired


def test_lc103_still_runs_when_a_threshold_of_the_block_is_broken(tmp_path: Path) -> None:
    text = "{tools: {loopDetection: {historySize: 0, warningThreshold: 5}}}"
    assert sorted(codes(tmp_path, text, "2026.7.1-2")) == ["LC002", "LC103"]


def test_an_error_at_enabled_hides_the_lints_that_read_it(tmp_path: Path) -> None:
    text = '{tools: {loopDetection: {enabled: "no", historySize: 5}}}'
    assert codes(tmp_path, text, "2026.7.1-2") == ["LC002"]


def test_lc108_reads_agents_entries_keys_and_duplicates_are_lc007(tmp_path: Path) -> None:
    text = (
        '{meta: {lastTouchedVersion: "2026.9.6"}, agents: {ownership: "explicit", '
        "entries: {Ops: {}, ops: {}}}}"
    )
    found = codes(tmp_path, text)
    assert "LC108" in found and "LC007" in found and "LC106" not in found


def test_agents_entries_blocks_get_their_env_vars_substituted(tmp_path: Path) -> None:
    text = (
        '{meta: {lastTouchedVersion: "2026.4.14"}, agents: {list: [{id: "main"}]}, '
        'tools: {loopDetection: {enabled: "${UNSET_FOR_TEST}"}}}'
    )
    assert codes(tmp_path, text) == ["LC006"]
    keyed = (
        '{meta: {lastTouchedVersion: "2026.9.6"}, agents: {entries: {main: '
        '{tools: {loopDetection: {enabled: "${UNSET_FOR_TEST}"}}}}}}'
    )
    # Substituted, and found missing (LC112); 2026.9.6 then rejects the "${UNSET_FOR_TEST}"
    # left in `enabled`, as recorded (tests/conformance vector `env.enabled.unset`): LC002.
    assert codes(tmp_path, keyed) == ["LC002", "LC112"]
