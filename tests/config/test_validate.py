"""LC002, LC003, LC004, LC007, LC008: exact messages, paths, places, and no cascades."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from loopcfg.config import load_config, loaded_from_python
from loopcfg.diagnostics import Diagnostic
from loopcfg.validate import suggest_key, validate_config

Write = Callable[[str, str], Path]


def _check(config: Any) -> list[Diagnostic]:
    loaded = loaded_from_python(config)
    return loaded.diagnostics + validate_config(loaded)


def _block(**block: Any) -> dict[str, Any]:
    return {"tools": {"loopDetection": block}}


def _one(config: Any) -> Diagnostic:
    found = _check(config)
    assert len(found) == 1, [(d.code, d.message) for d in found]
    return found[0]


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1.5, "1.5"), (0, "0"), (-3, "-3"), ("10", 'a string ("10")'), (True, "true"), (None, "null")],
)
def test_lc002_thresholds(value: Any, shown: str) -> None:
    found = _one(_block(warningThreshold=value))
    assert (found.code, found.path) == ("LC002", "tools.loopDetection.warningThreshold")
    assert found.message == (
        f"warningThreshold in tools.loopDetection must be a positive integer, got {shown}"
    )


def test_lc002_hints_and_other_kinds() -> None:
    assert _one(_block(historySize="10")).hint == "write 10 without quotes"
    assert _one(_block(historySize=0)).hint == "the smallest value is 1"
    found = _one(_block(enabled="true"))
    assert (
        found.message
        == 'enabled in tools.loopDetection must be true or false, got a string ("true")'
    )
    assert found.hint == "write true without quotes"
    found = _one(_block(detectors={"pingPong": 1}))
    assert found.message == "detectors.pingPong in tools.loopDetection must be true or false, got 1"
    assert found.path == "tools.loopDetection.detectors.pingPong"
    found = _one(_block(postCompactionGuard=[]))
    assert (found.code, found.message) == (
        "LC002",
        "postCompactionGuard in tools.loopDetection must be an object, got an array",
    )
    found = _one(_block(postCompactionGuard={"windowSize": 2.5}))
    assert found.message == (
        "postCompactionGuard.windowSize in tools.loopDetection must be a positive integer, got 2.5"
    )


def test_lc002_in_an_agents_block_names_the_block() -> None:
    """Like LC003, LC002 says which block: the same setting can be wrong in several."""
    agent = {"id": "b", "tools": {"loopDetection": {"detectors": {"pingPong": 1}}}}
    found = _one({"agents": {"list": [{"id": "a"}, agent]}})
    assert (found.code, found.path) == (
        "LC002",
        "agents.list[1].tools.loopDetection.detectors.pingPong",
    )
    assert found.message == (
        "detectors.pingPong in agents.list[1].tools.loopDetection must be true or false, got 1"
    )
    unknown = {"id": "b", "tools": {"loopDetection": {"pingpong": True}}}
    assert _one({"agents": {"list": [unknown]}}).message.endswith(
        "in agents.list[0].tools.loopDetection"
    )


def test_one_point_zero_is_an_integer() -> None:
    assert _check(_block(enabled=True, warningThreshold=1.0, criticalThreshold=2)) == []


@pytest.mark.parametrize(
    ("written", "suggested"),
    [
        ("history_size", "historySize"),
        ("warningthreshold", "warningThreshold"),
        ("warningThreshhold", "warningThreshold"),
        ("WARNING_THRESHOLD", "warningThreshold"),
        ("criticalTreshold", "criticalThreshold"),
        ("pingpong", "detectors.pingPong"),  # `pingPong` itself is a well-known key: LC012
        ("detector", "detectors"),
        ("zzz", None),
    ],
)
def test_lc003_did_you_mean(written: str, suggested: str | None) -> None:
    found = _one(_block(**{written: 5}))
    assert found.code == "LC003"
    assert found.message == f'unknown key "{written}" in tools.loopDetection'
    assert found.path == f"tools.loopDetection.{written}"
    assert found.hint == (None if suggested is None else f'did you mean "{suggested}"?')


def test_lc003_in_a_group_and_one_per_key() -> None:
    found = _check(_block(detectors={"ping_pong": True, "genericrepeat": False}, foo=1, bar=2))
    assert sorted((d.code, d.path, d.hint) for d in found) == [
        ("LC003", "tools.loopDetection.bar", None),
        ("LC003", "tools.loopDetection.detectors.genericrepeat", 'did you mean "genericRepeat"?'),
        ("LC003", "tools.loopDetection.detectors.ping_pong", 'did you mean "pingPong"?'),
        ("LC003", "tools.loopDetection.foo", None),
    ]
    assert suggest_key("window_size", "postCompactionGuard") == "windowSize"


def test_lc004_global_and_agent_messages() -> None:
    found = _one(_block(warningThreshold=20, criticalThreshold=20))
    assert found.code == "LC004"
    assert (
        found.message
        == "tools.loopDetection.warningThreshold must be lower than criticalThreshold."
    )
    assert found.path == "tools.loopDetection.criticalThreshold"
    found = _one(_block(criticalThreshold=30, globalCircuitBreakerThreshold=25))
    assert found.message == (
        "tools.loopDetection.criticalThreshold must be lower than globalCircuitBreakerThreshold."
    )
    assert found.path == "tools.loopDetection.globalCircuitBreakerThreshold"
    agent = {"id": "a", "tools": {"loopDetection": {"warningThreshold": 9, "criticalThreshold": 3}}}
    found = _one({"agents": {"list": [{"id": "main"}, agent]}})
    assert found.message == (
        "agents.list[1].tools.loopDetection.warningThreshold must be lower than criticalThreshold."
    )


def test_lc004_only_where_both_are_written_and_valid() -> None:
    assert _check(_block(warningThreshold=25)) == []  # LC101's business after the merge
    found = _one(_block(warningThreshold="25", criticalThreshold=20))
    assert found.code == "LC002"


def test_lc007_agents_list() -> None:
    found = _one({"agents": {"list": {"id": "main"}}})
    assert (found.code, found.path) == ("LC007", "agents.list")
    assert found.message == "agents.list must be an array of agent objects, got an object"
    found = _one({"agents": {"list": ["main"]}})
    assert found.message == (
        'agents.list[0] must be an agent object with a string id, got a string ("main")'
    )
    found = _one({"agents": {"list": [{"id": "a"}, {"name": "b"}]}})
    assert found.message == "agents.list[1] has no id: every agent entry needs a string id"
    found = _one({"agents": {"list": [{"id": 7}]}})
    assert (found.message, found.path) == (
        "agents.list[0].id must be a string, got 7",
        "agents.list[0].id",
    )


@pytest.mark.parametrize(
    ("config", "path", "got"),
    [
        ({"tools": "x"}, "tools", 'a string ("x")'),
        ({"agents": []}, "agents", "an array"),
        ({"tools": {"loopDetection": True}}, "tools.loopDetection", "true"),
        ({"agents": {"list": [{"id": "a", "tools": 3}]}}, "agents.list[0].tools", "3"),
        (
            {"agents": {"list": [{"id": "a", "tools": {"loopDetection": None}}]}},
            "agents.list[0].tools.loopDetection",
            "null",
        ),
    ],
)
def test_lc008_containers(config: Any, path: str, got: str) -> None:
    found = _one(config)
    assert (found.code, found.path, found.message) == (
        "LC008",
        path,
        f"{path} must be an object, got {got}",
    )


def test_lc008_root() -> None:
    found = _one([1])
    assert found.code == "LC008"
    assert found.message == "the config must be an object at the top level, got an array"


def test_other_keys_outside_the_block_are_fine() -> None:
    config = {
        "$schema": "./schema/openclaw-loopdetection.schema.json",
        "gateway": {"port": 1},
        "tools": {"exec": {"x": 1}, "loopDetection": {"enabled": True}},
        "agents": {"defaults": {}, "list": [{"id": "main", "model": "m", "tools": {"allow": []}}]},
    }
    assert _check(config) == []


def test_every_problem_at_once() -> None:
    config = {
        "tools": {"loopDetection": {"historySize": 0, "bogus": 1, "detectors": "x"}},
        "agents": {"list": [{"id": "a", "tools": {"loopDetection": {"warningThreshold": -1}}}, 5]},
    }
    assert sorted((d.code, d.path) for d in _check(config)) == [
        ("LC002", "agents.list[0].tools.loopDetection.warningThreshold"),
        ("LC002", "tools.loopDetection.detectors"),
        ("LC002", "tools.loopDetection.historySize"),
        ("LC003", "tools.loopDetection.bogus"),
        ("LC007", "agents.list[1]"),
    ]


def test_values_from_an_included_file_are_reported_there(write: Write) -> None:
    included = write("ld.json5", "{\n  enabled: true,\n  historySize: 1.5,\n}\n")
    top = write("openclaw.json5", '{ tools: { loopDetection: { $include: "ld.json5" } } }')
    loaded = load_config(top, env={})
    (found,) = validate_config(loaded)
    assert (found.code, found.file) == ("LC002", str(included))
    assert found.path == "tools.loopDetection.historySize"


def test_positions_point_at_key_and_value_tokens(write: Write) -> None:
    text = (
        "{\n"
        "  tools: {\n"
        "    loopDetection: {\n"
        "      warningThreshhold: 5,\n"
        "      historySize: '10',\n"
        "      warningThreshold: 30,\n"
        "      criticalThreshold: 20,\n"
        "    },\n"
        "  },\n"
        "}\n"
    )
    top = write("openclaw.json5", text)
    found = {d.code: d for d in validate_config(load_config(top, env={}))}
    unknown, wrong, order = found["LC003"], found["LC002"], found["LC004"]
    assert unknown.span is not None and unknown.span.start() == (4, 7)
    assert unknown.span.end_column == 7 + len("warningThreshhold")
    assert wrong.span is not None and wrong.span.start() == (5, 20)
    assert order.span is not None and order.span.start() == (7, 7)
    assert [r.span.start() for r in order.related] == [(6, 7)]


def test_positions_in_an_included_file(write: Write) -> None:
    included = write("ld.json5", "{\n  enabled: true,\n  historySize: 0,\n}\n")
    top = write("openclaw.json5", '{ tools: { loopDetection: { $include: "ld.json5" } } }')
    (found,) = validate_config(load_config(top, env={}))
    assert found.span is not None
    assert (found.span.file, found.span.line, found.span.column) == (str(included), 3, 16)


# -- cost: counted, not timed --


def test_one_suggestion_computation_per_distinct_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo repeated in thousands of agents' blocks is searched for once, not each time."""
    import difflib

    import loopcfg.validate as validate

    calls: list[str] = []
    real = difflib.get_close_matches

    def counting(word: str, *args: Any, **kwargs: Any) -> list[str]:
        calls.append(word)
        return real(word, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    validate._suggest.cache_clear()
    block = {"histroySize": 5, "Histroy_Size": 6, "zzz": 1, "detectors": {"pingpnog": True}}
    agents = [{"id": f"a{i}", "tools": {"loopDetection": block}} for i in range(300)]
    found = _check({"tools": {"loopDetection": block}, "agents": {"list": agents}})
    assert len([d for d in found if d.code == "LC003"]) == 4 * 301
    # histroysize (both spellings normalise to it), zzz, and pingpnog within detectors.
    assert sorted(calls) == ["histroysize", "pingpnog", "zzz"]
    assert suggest_key("histroySize") == "historySize"  # cached: same answer, no new search
    assert len(calls) == 3


def test_check_validates_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_file` hands its validation to the lints instead of validating a second time."""
    import loopcfg.validate as validate
    from loopcfg.check import check_file

    runs: list[str] = []
    real = validate.validate_config

    def counting(loaded: Any, target: Any = None, memo: Any = None) -> list[Diagnostic]:
        runs.append(loaded.file)
        return real(loaded, target, memo)

    monkeypatch.setattr(validate, "validate_config", counting)
    config = tmp_path / "openclaw.json5"
    config.write_text("{ tools: { loopDetection: { historySize: 0, pingpong: true } } }\n")
    report = check_file(str(config))
    # LC110: no target release, and historySize is retired in the newest one.
    assert [d.code for d in report.diagnostics] == ["LC110", "LC002", "LC003"]
    assert runs == [str(config)]
