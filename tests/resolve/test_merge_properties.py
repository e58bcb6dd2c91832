"""Merge semantics (02 §2.2, §2.3) as properties over generated configs.

Each generated config is valid for OpenClaw (no LC004 inside one block), so resolving never
refuses it; the model below is the merge rule written out flat, and the properties compare
`resolve_agent` against it and against itself.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import load_config, normalize_agent_id, resolve_agent
from loopcfg.keys import SETTINGS, THRESHOLD_ORDER

INTEGERS = [s.name for s in SETTINGS if s.kind == "positiveInteger"]
BOOLEANS = [s.name for s in SETTINGS if s.kind == "boolean"]
DEFAULTS = {s.name: s.default for s in SETTINGS}
ATTR = {s.name: s.attr for s in SETTINGS}


def _ordered(flat: dict[str, Any]) -> bool:
    """No LC004 inside the block: each written pair of the ordering is strictly increasing."""
    return all(
        flat[low] < flat[high] for low, high in THRESHOLD_ORDER if low in flat and high in flat
    )


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {}
    for name, value in flat.items():
        if "." in name:
            group, leaf = name.split(".", 1)
            block.setdefault(group, {})[leaf] = value
        else:
            block[name] = value
    return block


@st.composite
def flat_blocks(draw: st.DrawFn) -> dict[str, Any]:
    """A block's written settings, flattened to dotted names (any subset, partial groups)."""
    names = draw(st.sets(st.sampled_from([s.name for s in SETTINGS])))
    flat: dict[str, Any] = {}
    for name in sorted(names):
        if name in BOOLEANS:
            flat[name] = draw(st.booleans())
        else:
            flat[name] = draw(st.integers(min_value=1, max_value=60))
    return flat if _ordered(flat) else {k: v for k, v in flat.items() if "Threshold" not in k}


AGENT_IDS = st.sampled_from(["main", "Main", "safe-runner", "Safe Runner", " ops ", "x_1", ""])


@st.composite
def configs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, dict]]]:
    """(config dict, global flat block, [(raw id, agent flat block)])."""
    global_flat = draw(flat_blocks())
    agents = draw(st.lists(st.tuples(AGENT_IDS, flat_blocks()), max_size=4))
    config: dict[str, Any] = {}
    if global_flat or draw(st.booleans()):
        config["tools"] = {"loopDetection": _nest(global_flat)}
    if agents:
        entries = []
        for raw, flat in agents:
            entry: dict[str, Any] = {"id": raw}
            if flat or draw(st.booleans()):
                entry["tools"] = {"loopDetection": _nest(flat)}
            entries.append(entry)
        config["agents"] = {"list": entries}
    return config, global_flat, agents


def _model(global_flat: dict[str, Any], agent_flat: dict[str, Any]) -> dict[str, Any]:
    """Merged written values over defaults, before the runtime's raises."""
    return {**DEFAULTS, **global_flat, **agent_flat}


def _first_agent(agents: list[tuple[str, dict]], wanted: str) -> dict[str, Any] | None:
    for raw, flat in agents:
        if normalize_agent_id(raw) == normalize_agent_id(wanted):
            return flat
    return None


def _values(result: Any) -> dict[str, Any]:
    return {name: result.value(name) for name in DEFAULTS}


@given(configs(), AGENT_IDS)
def test_agent_keys_win_and_untouched_global_keys_survive(case: Any, wanted: str) -> None:
    config, global_flat, agents = case
    result = resolve_agent(config, wanted)
    agent_flat = _first_agent(agents, wanted)
    assert result.found is (agent_flat is not None)
    assert result.agent == normalize_agent_id(wanted)
    adjusted = {a.setting for a in result.adjustments}
    expected = _model(global_flat, agent_flat or {})
    for name, value in expected.items():
        if name in adjusted:
            assert result.sources[name].origin == "adjusted"
            continue
        assert result.value(name) == value, name
        if agent_flat is not None and name in agent_flat:
            assert result.sources[name].origin == "agent", name
        elif name in global_flat:
            assert result.sources[name].origin == "global", name
        else:
            assert result.sources[name].origin == "default", name


@given(configs(), st.one_of(st.none(), AGENT_IDS))
def test_adjustments_always_order_the_thresholds(case: Any, wanted: str | None) -> None:
    result = resolve_agent(case[0], wanted)
    assert result.warning_threshold < result.critical_threshold
    assert result.critical_threshold < result.global_circuit_breaker_threshold
    for adjustment in result.adjustments:
        assert adjustment.effective > adjustment.written
        assert result.value(adjustment.setting) == adjustment.effective


@given(configs(), AGENT_IDS)
def test_raises_follow_the_runtime_rule(case: Any, wanted: str) -> None:
    config, global_flat, agents = case
    expected = _model(global_flat, _first_agent(agents, wanted) or {})
    critical = max(expected["criticalThreshold"], expected["warningThreshold"] + 1)
    breaker = max(expected["globalCircuitBreakerThreshold"], critical + 1)
    result = resolve_agent(config, wanted)
    assert (result.critical_threshold, result.global_circuit_breaker_threshold) == (
        critical,
        breaker,
    )


@given(configs(), st.one_of(st.none(), AGENT_IDS))
def test_resolving_twice_gives_the_same_result(case: Any, wanted: str | None) -> None:
    assert resolve_agent(case[0], wanted) == resolve_agent(case[0], wanted)


@given(configs(), st.one_of(st.none(), AGENT_IDS))
def test_plain_dicts_have_no_positions(case: Any, wanted: str | None) -> None:
    result = resolve_agent(case[0], wanted)
    assert {(s.file, s.line, s.column) for s in result.sources.values()} == {(None, None, None)}
    assert set(result.sources) == set(DEFAULTS)


@given(configs(), AGENT_IDS)
def test_tri_state_enabled(case: Any, wanted: str) -> None:
    result = resolve_agent(case[0], wanted)
    assert result.detectors_active is (result.enabled is True)
    assert result.guard_active is (result.enabled is not False)


def _json5(value: Any, rng: random.Random, indent: int = 0) -> str:
    """JSON5 text with unquoted keys in a shuffled order, trailing commas and comments."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        pad = "  " * (indent + 1)
        body = "".join(
            f"{pad}{key}: {_json5(item, rng, indent + 1)},{rng.choice(['', ' // c'])}\n"
            for key, item in items
        )
        return "{\n" + body + "  " * indent + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_json5(item, rng, indent) for item in value) + "]"
    return json.dumps(value)


def _comparable(result: Any) -> tuple[Any, ...]:
    origins = {name: source.origin for name, source in result.sources.items()}
    return (_values(result), origins, result.adjustments, result.agent, result.found)


@settings(max_examples=40)
@given(configs(), st.one_of(st.none(), AGENT_IDS), st.randoms(use_true_random=False))
def test_key_order_in_the_file_never_matters(
    case: Any, wanted: str | None, rng: random.Random
) -> None:
    config = case[0]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "openclaw.json5"
        path.write_text(_json5(config, rng) + "\n", encoding="utf-8")
        from_file = resolve_agent(load_config(str(path)), wanted)
        from_path = resolve_agent(str(path), wanted)
    from_dict = resolve_agent(config, wanted)
    assert _comparable(from_file) == _comparable(from_dict) == _comparable(from_path)
    written = [s for s in from_file.sources.values() if s.origin in ("global", "agent")]
    assert all(s.file == str(path) and s.line and s.column for s in written)


@settings(max_examples=40)
@given(
    configs(),
    st.one_of(st.none(), AGENT_IDS),
    st.randoms(use_true_random=False),
    st.sampled_from([None, "2026.6.5", "2026.9.6"]),
)
def test_one_agent_alone_is_that_agent_of_the_whole_resolution(
    case: Any, wanted: str | None, rng: random.Random, openclaw: str | None
) -> None:
    """`resolve_one` (resolve --agent, resolve_agent) merges only the agent asked for; it gives
    exactly what resolving every scope gives for it, positions and adjustments included."""
    from loopcfg.releases import choose_target
    from loopcfg.resolve import agent_settings, resolve_config, resolve_one

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "openclaw.json5"
        path.write_text(_json5(case[0], rng) + "\n", encoding="utf-8")
        loaded = load_config(str(path))
    target = choose_target(openclaw, None)
    alone = resolve_one(loaded.root, wanted, target)
    assert alone == agent_settings(resolve_config(loaded.root, target), wanted)
    assert alone.sources == agent_settings(resolve_config(loaded.root, target), wanted).sources
