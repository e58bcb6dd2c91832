"""The lints as properties over generated valid configs (plain dicts, so no positions):
they never fail, use the catalogue's severities, report a global finding once however many
agents inherit it, and LC101/LC102 fire exactly when 02 §2.3 and 03 say they must."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from loopcfg import normalize_agent_id, resolve_agent
from loopcfg.catalogue import RULES
from loopcfg.config import loaded_from_python
from loopcfg.diagnostics import Diagnostic
from loopcfg.lint import lint_config
from tests.resolve.test_merge_properties import configs


def _lint(config: dict[str, Any]) -> list[Diagnostic]:
    return lint_config(loaded_from_python(config))


def _key(d: Diagnostic) -> tuple[str, str | None, str | None, str]:
    return (d.code, d.path, d.agent, d.message)


@settings(max_examples=60)
@given(configs())
def test_lints_run_on_any_valid_config_with_catalogue_severities(case: Any) -> None:
    config, _, agents = case
    ids = {normalize_agent_id(raw) for raw, _ in agents}
    for diagnostic in _lint(config):
        assert diagnostic.severity == RULES[diagnostic.code].severity
        assert diagnostic.code >= "LC1" and diagnostic.message
        assert diagnostic.agent is None or diagnostic.agent in ids
        if diagnostic.agent is not None and diagnostic.code not in ("LC106", "LC108"):
            assert diagnostic.message.startswith(f'agent "{diagnostic.agent}": ')


@settings(max_examples=60)
@given(configs())
def test_an_agent_that_only_inherits_adds_no_finding(case: Any) -> None:
    config, _, agents = case
    assume(agents)  # with no agent at all, LC103 rightly words its message differently
    before = sorted(map(_key, _lint(config)))
    entries = [*config["agents"]["list"], {"id": "zz-only-inherits"}]
    after = sorted(map(_key, _lint({**config, "agents": {"list": entries}})))
    assert after == before


@settings(max_examples=60)
@given(configs())
def test_lc101_once_per_runtime_raise_of_the_global_block(case: Any) -> None:
    config = {k: v for k, v in case[0].items() if k != "agents"}
    raised = resolve_agent(config).adjustments
    found = [d for d in _lint(config) if d.code == "LC101"]
    assert len(found) == len(raised)
    for diagnostic, adjustment in zip(found, raised, strict=True):
        assert f"OpenClaw raises {adjustment.setting} to {adjustment.effective}" in (
            diagnostic.message
        )


@settings(max_examples=60)
@given(configs())
def test_lc102_exactly_for_thresholds_above_the_counts(case: Any) -> None:
    config = {k: v for k, v in case[0].items() if k != "agents"}
    s = resolve_agent(config)
    history = s.history_size
    pair_limit = history + 1 if s.ping_pong else history
    expected = set()
    if s.detectors_active:
        for name, value, limit in (
            ("warningThreshold", s.warning_threshold, pair_limit),
            ("criticalThreshold", s.critical_threshold, pair_limit),
            ("unknownToolThreshold", s.unknown_tool_threshold, history),
            ("globalCircuitBreakerThreshold", s.global_circuit_breaker_threshold, history),
        ):
            if value > limit:
                expected.add(name)
    found = {d.message.split(" ")[0] for d in _lint(config) if d.code == "LC102"}
    assert found == expected


# -- which blocks errors taint: indexed, and the same answer as comparing every pair --

_PARTS = st.sampled_from(["tools", "loopDetection", "agents", "list", "id", "detectors", "a.b"])
_PATHS = st.lists(st.one_of(_PARTS, st.integers(0, 12)), max_size=6).map(lambda parts: tuple(parts))


def _pairwise(error_paths: list[str | None], block: str) -> bool:
    """The definition: an error without a path, or one at, inside or above the block."""

    def within(path: str, prefix: str) -> bool:
        return path == prefix or path.startswith((prefix + ".", prefix + "["))

    return any(not p or within(p, block) or within(block, p) for p in error_paths)


@settings(max_examples=300)
@given(st.lists(st.one_of(st.none(), _PATHS), max_size=6), _PATHS)
def test_error_index_taints_what_the_pairwise_definition_does(
    errors: list[Any], block: tuple[Any, ...]
) -> None:
    from loopcfg.lint import _Errors
    from loopcfg.source.nodes import format_path

    error_paths = [None if e is None else format_path(e) for e in errors]
    assert _Errors(error_paths).taint(block) == _pairwise(error_paths, format_path(block))


@settings(max_examples=200)
@given(st.lists(st.one_of(st.none(), _PATHS), min_size=17, max_size=40), _PATHS)
def test_error_index_taints_the_same_with_many_errors(
    errors: list[Any], block: tuple[Any, ...]
) -> None:
    """Past a few errors `_Errors` answers from its set of prefixes instead of comparing
    each error path with the block's: the same answer."""
    from loopcfg.lint import _Errors
    from loopcfg.source.nodes import format_path

    error_paths = [None if e is None else format_path(e) for e in errors]
    assert _Errors(error_paths).taint(block) == _pairwise(error_paths, format_path(block))
    # The same errors with unrelated ones added (no _PARTS path starts with "zz"): the set's
    # answer for each state ("clean", "inside", "broken") is the few paths' answer.
    few_paths = [p for p in error_paths if p][:4]
    unrelated = [format_path(("zz", index)) for index in range(20)]
    few, many = _Errors(few_paths), _Errors([*few_paths, *unrelated])
    assert few.few is not None and many.few is None
    assert few.state(block) == many.state(block)
