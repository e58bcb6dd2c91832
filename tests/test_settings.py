"""The key table and 02 §2.3 (defaults, then the runtime's threshold raises)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopcfg.keys import SETTINGS, group_keys, settings_for, top_level_keys
from loopcfg.settings import EffectiveSettings, settings_from_block


def test_defaults_match_the_spec_table() -> None:
    settings = settings_from_block({})
    assert settings.enabled is None
    assert (settings.history_size, settings.warning_threshold, settings.critical_threshold) == (
        30,
        10,
        20,
    )
    assert settings.unknown_tool_threshold == 10
    assert settings.global_circuit_breaker_threshold == 30
    assert settings.generic_repeat and settings.known_poll_no_progress and settings.ping_pong
    assert settings.post_compaction_window_size == 3
    assert settings.adjustments == ()
    assert all(source.origin == "default" for source in settings.sources.values())
    assert settings == EffectiveSettings(sources=settings.sources)


def test_tri_state_enabled() -> None:
    assert not settings_from_block({}).detectors_active
    assert settings_from_block({}).guard_active
    assert settings_from_block({"enabled": True}).detectors_active
    assert not settings_from_block({"enabled": False}).guard_active


def test_critical_raised_above_warning_then_global_above_critical() -> None:
    settings = settings_from_block({"warningThreshold": 25})
    assert settings.critical_threshold == 26
    assert settings.global_circuit_breaker_threshold == 30
    settings = settings_from_block({"warningThreshold": 40})
    assert (settings.critical_threshold, settings.global_circuit_breaker_threshold) == (41, 42)
    assert [a.setting for a in settings.adjustments] == [
        "criticalThreshold",
        "globalCircuitBreakerThreshold",
    ]
    assert settings.sources["criticalThreshold"].origin == "adjusted"


def test_group_values_and_floats_that_are_integers() -> None:
    settings = settings_from_block(
        {"historySize": 12.0, "detectors": {"pingPong": False}, "postCompactionGuard": {}}
    )
    assert settings.history_size == 12 and isinstance(settings.history_size, int)
    assert settings.ping_pong is False and settings.generic_repeat is True
    assert settings.effective_block()["detectors"]["pingPong"] is False


@given(
    st.integers(1, 200),
    st.integers(1, 200),
    st.integers(1, 200),
)
def test_adjustments_always_order_the_thresholds(warning: int, critical: int, breaker: int) -> None:
    settings = settings_from_block(
        {
            "warningThreshold": warning,
            "criticalThreshold": critical,
            "globalCircuitBreakerThreshold": breaker,
        }
    )
    assert settings.warning_threshold == warning
    assert settings.warning_threshold < settings.critical_threshold
    assert settings.critical_threshold < settings.global_circuit_breaker_threshold
    assert settings.critical_threshold == max(critical, warning + 1)


def test_release_lines_drive_the_key_set() -> None:
    assert len(SETTINGS) == 10
    assert "postCompactionGuard" in top_level_keys("S2")
    assert "postCompactionGuard" not in top_level_keys("S1u")
    assert "unknownToolThreshold" not in top_level_keys("S1")
    assert "unknownToolThreshold" in top_level_keys("S1u")
    assert [s.name for s in settings_for("S3")] == ["enabled"]
    assert [s.name for s in settings_for("S3beta")] == ["enabled"]
    assert settings_for("S0") == ()
    assert group_keys("detectors") == ["genericRepeat", "knownPollNoProgress", "pingPong"]
    assert settings_for() == SETTINGS  # the default line, S2, accepts every setting


def test_resolved_settings_pickle_with_their_provenance() -> None:
    # Worker processes (replay --jobs, a host's multiprocessing) receive settings by pickle.
    import pickle

    from loopcfg import resolve_agent
    from tests.conftest import EXAMPLES

    settings = resolve_agent(str(EXAMPLES / "openclaw.json5"), "safe-runner")
    assert settings.sources["warningThreshold"].origin == "agent"
    copy = pickle.loads(pickle.dumps(settings))
    assert copy == settings
    assert dict(copy.sources) == dict(settings.sources)
    with pytest.raises(TypeError):  # still read-only
        copy.sources["warningThreshold"] = settings.sources["historySize"]  # type: ignore[index]


def test_a_placed_source_reads_where_its_span_is_now() -> None:
    import pickle

    from loopcfg.settings import PlacedSource, Source
    from loopcfg.source.nodes import LineTable, MovableSpan

    table = LineTable(4)
    source = PlacedSource("agent", MovableSpan("f.json5", table, 3, 5, 3, 9))
    assert source == Source("agent", "f.json5", 3, 5) == source
    assert hash(source) == hash(Source("agent", "f.json5", 3, 5))
    table.shift(1, 2)  # two lines added above it
    assert source.to_json() == {"from": "agent", "file": "f.json5", "line": 5, "column": 5}
    assert source.with_origin("adjusted") == Source("adjusted", "f.json5", 5, 5)
    table.shift(0, 1)
    assert source.with_origin("adjusted").line == 6  # adjusted keeps following the span
    assert pickle.loads(pickle.dumps(source)) == Source("agent", "f.json5", 6, 5)
    assert type(pickle.loads(pickle.dumps(source))) is Source
