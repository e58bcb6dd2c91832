"""The 2026.8.1+ merge (08 §8.1 "Merge, S3"), as a property: an agent of `agents.entries` runs
with `agent.enabled ?? global.enabled` (an empty block `{}` inherits), every retired knob with
its built-in value (source `builtin`), whatever the roster holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import resolve_agent
from loopcfg.keys import SETTINGS

SWITCH = st.sampled_from([None, True, False])  # None: not written
IDS = st.lists(st.sampled_from(["main", "ops", "night", "builder"]), min_size=1, unique=True)


def _block(enabled: bool | None) -> dict[str, Any]:
    return {} if enabled is None else {"enabled": enabled}


@settings(max_examples=200, deadline=None)
@given(global_enabled=SWITCH, ids=IDS, switches=st.lists(SWITCH, min_size=4, max_size=4))
def test_enabled_merges_and_knobs_are_builtin(
    global_enabled: bool | None, ids: list[str], switches: list[bool | None]
) -> None:
    entries: dict[str, Any] = {}
    for agent, enabled in zip(ids, switches, strict=False):
        entries[agent] = (
            {"tools": {"loopDetection": _block(enabled)}} if enabled is not None else {}
        )
    config: dict[str, Any] = {
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "agents": {"entries": entries, "ownership": "explicit"},
    }
    if global_enabled is not None:
        config["tools"] = {"loopDetection": {"enabled": global_enabled}}
    for agent, enabled in zip(ids, switches, strict=False):
        result = resolve_agent(config, agent)
        assert result.found is True
        expected = enabled if enabled is not None else global_enabled
        assert result.enabled is expected
        for setting in SETTINGS:
            if setting.name != "enabled":
                assert result.sources[setting.name].origin == "builtin"
                assert result.value(setting.name) == setting.default
    assert resolve_agent(config, None).enabled is global_enabled
