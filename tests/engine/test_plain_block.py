"""A host building the engine from a plain dict gets OpenClaw's strictness (01 §1.2): a typo or
an out-of-range value is refused, never silently turned into a default or a threshold of 0."""

from __future__ import annotations

import pytest

from loopcfg import LoopDetector
from loopcfg.settings import settings_from_block


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"enabled": True, "unknownToolThreshold": 0}, "unknownToolThreshold must be a positive"),
        ({"historySize": 0}, "historySize must be a positive integer, got 0"),
        ({"warningThreshold": -3}, "warningThreshold must be a positive integer, got -3"),
        ({"criticalThreshold": 1.5}, "criticalThreshold must be a positive integer, got 1.5"),
        ({"criticalThreshold": "10"}, "criticalThreshold must be a positive integer, got '10'"),
        ({"historySize": True}, "historySize must be a positive integer, got True"),
        ({"enabled": 1}, "enabled must be true or false, got 1"),
        ({"detectors": {"pingPong": None}}, "detectors.pingPong must be true or false"),
        ({"warningThreshhold": 5}, "unknown key 'warningThreshhold'"),
        ({"detectors": {"ping_pong": False}}, "unknown key 'detectors.ping_pong'"),
        ({"postCompactionGuard": 3}, "postCompactionGuard must be an object, got 3"),
    ],
)
def test_invalid_plain_blocks_are_refused(block: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=r"invalid tools\.loopDetection block") as refused:
        LoopDetector(block)
    assert problem in str(refused.value)


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(ValueError) as refused:
        settings_from_block({"historySize": 0, "warningThreshold": "x"})
    assert "historySize" in str(refused.value)
    assert "warningThreshold" in str(refused.value)


def test_valid_plain_blocks_still_work() -> None:
    settings = settings_from_block(
        {
            "enabled": True,
            "historySize": 1.0,  # an integer in JSON5 and JavaScript
            "warningThreshold": 3,
            "detectors": {"pingPong": False},
            "postCompactionGuard": {"windowSize": 2},
        }
    )
    assert settings.history_size == 1
    assert settings.detectors_active
    assert settings.ping_pong is False
    assert settings.post_compaction_window_size == 2
    assert settings_from_block(None) == settings_from_block({})
