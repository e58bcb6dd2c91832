"""validate's shortcut for invalid configs (only the wrong blocks go to jsonschema, or only the
block schema words them: `_schema_errors`) against the plain run of jsonschema over the whole
config: the same diagnostics for generated configs of every release line and both roster
layouts, valid and invalid.

"The same" is as a multiset, and the same list once sorted as every report sorts them: the
plain run's own order of `agents.entries` errors follows a set's iteration order inside
jsonschema (`additionalProperties`), which changes with the hash seed."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import validate
from loopcfg.config import LoadedConfig, load_config, loaded_from_python
from loopcfg.diagnostics import Diagnostic, sort_diagnostics
from loopcfg.fastcheck import is_valid, is_valid_block
from loopcfg.keys import GROUPS, SETTINGS, WRONG_KEYS
from loopcfg.releases import LINES, Line, Target, choose_target

# One release per line (and no target: the full-knob line, or the config's meta version).
RELEASES = [None, "2026.2.12", "2026.2.17", "2026.4.14", "2026.5.4", "2026.7.2-beta.4", "2026.9.6"]


def test_the_releases_cover_every_line() -> None:
    assert {choose_target(name).line.id for name in RELEASES} == {line.id for line in LINES}


def _plain_schema_errors(value: Any, line: Line) -> Iterator[tuple[Any, Any]]:
    """What validate did before the shortcut: jsonschema over the whole config."""
    if is_valid(value, line.id) is True:
        return
    for error in validate._validator(line.id).iter_errors(value):
        yield tuple(error.absolute_path), error


@contextmanager
def _plain() -> Iterator[None]:
    with mock.patch.object(validate, "_schema_errors", _plain_schema_errors):
        yield


def _assert_same(loaded: LoadedConfig, target: Target | None) -> list[Diagnostic]:
    shortcut = validate.validate_config(loaded, target)
    with _plain():
        plain = validate.validate_config(loaded, target)
    assert Counter(shortcut) == Counter(plain)
    return plain


def _good(setting: Any) -> st.SearchStrategy[Any]:
    return st.booleans() if setting.kind == "boolean" else st.integers(1, 60)


def _bad(setting: Any) -> st.SearchStrategy[Any]:
    wrong = st.sampled_from(["10", "true", 0, -2, 1.5, None, [], {}, 2**53, float("inf")])
    return st.one_of(wrong, st.integers(0, 3) if setting.kind == "boolean" else st.booleans())


def _setting_value(setting: Any) -> st.SearchStrategy[Any]:
    return st.one_of(_good(setting), _good(setting), _good(setting), _bad(setting))


@st.composite
def _block(draw: st.DrawFn, *, includes: bool) -> Any:
    """Mostly well-formed blocks (valid on the full-knob line), with wrong values, unknown,
    misspelt, retired and well-known wrong keys, wrong groups, and blocks that are no object."""
    shape = draw(st.sampled_from(["good", "good", "good", "mixed", "scalar"]))
    if shape == "scalar":
        return draw(st.sampled_from([True, 1, "on", None, [], [{"enabled": True}]]))
    chosen = draw(st.lists(st.sampled_from(SETTINGS), max_size=5, unique=True))
    block: dict[str, Any] = {}
    for setting in chosen:
        value = draw(_good(setting) if shape == "good" else _setting_value(setting))
        group, _, leaf = setting.name.rpartition(".")
        if group:
            block.setdefault(group, {})[leaf] = value
        else:
            block[leaf] = value
    if shape == "mixed":
        extra = [w.written for w in WRONG_KEYS] + ["historysize", "pingPong", "bogus", "enable"]
        for name in draw(st.lists(st.sampled_from(extra), max_size=2)):
            group, _, leaf = name.rpartition(".")
            holder = block.setdefault(group, {}) if group in GROUPS else block
            holder[leaf if group in GROUPS else name] = draw(st.sampled_from([True, 5, "x"]))
        if draw(st.booleans()):
            block[draw(st.sampled_from(GROUPS))] = draw(st.sampled_from([1, [], "x", None]))
    if includes and draw(st.integers(0, 5)) == 0:
        block["$include"] = draw(st.sampled_from(["./a.json5", ["./b.json5"], 3, [1], None]))
    return block


def _tools(draw: st.DrawFn, includes: bool, broken: bool) -> Any:
    if broken and draw(st.integers(0, 6)) == 0:
        return draw(st.sampled_from([1, "x", [], None]))
    tools: dict[str, Any] = {}
    if draw(st.integers(0, 4)) > 0:
        tools["loopDetection"] = draw(_block(includes=includes))
    if draw(st.booleans()):
        tools["exec"] = {"security": "full"}
    return tools


@st.composite
def _list_agent(draw: st.DrawFn, *, includes: bool, broken: bool) -> Any:
    shape = draw(st.integers(0, 15)) if broken else 15
    if shape == 0:
        return draw(st.sampled_from([1, "main", None, []]))
    agent: dict[str, Any] = {}
    if shape != 1:
        ids = ["main", "ops", "Ops Team", "", 7] if broken else ["main", "ops", "Ops Team", ""]
        agent["id"] = draw(st.sampled_from(ids))
    if includes and shape == 2:
        agent["$include"] = draw(st.sampled_from(["./agent.json5", 4]))
    agent["tools"] = _tools(draw, includes, broken)
    return agent


@st.composite
def _entry_agent(draw: st.DrawFn, *, includes: bool, broken: bool) -> Any:
    if broken and draw(st.integers(0, 8)) == 0:
        return draw(st.sampled_from([1, "main", None, []]))
    agent: dict[str, Any] = {"tools": _tools(draw, includes, broken)}
    if draw(st.integers(0, 4)) == 0:
        agent["default"] = draw(st.sampled_from([True, False, "yes"] if broken else [False]))
    return agent


NAMES = ["main", "ops", "work-2", "x", "y", "z"]
ENTRY_NAMES = st.sampled_from(NAMES)
ANY_ENTRY_NAMES = st.sampled_from([*NAMES, "-bad", "Ops", "a b", "$include"])


@st.composite
def configs(draw: st.DrawFn, *, includes: bool = True) -> dict[str, Any]:
    """Both roster layouts (and both at once), any release line's keys; in a third of them
    wrong parts outside the blocks too (agents, ids, containers of the wrong kind)."""
    broken = draw(st.integers(0, 2)) == 0
    config: dict[str, Any] = {}
    if draw(st.integers(0, 4)) > 0:
        config["tools"] = _tools(draw, includes, broken)
    layouts = ["list", "list", "entries", "entries", "both", "none", "bad"]
    layout = draw(st.sampled_from(layouts if broken else layouts[:-1]))
    agents: dict[str, Any] = {}
    if layout in ("list", "both"):
        if broken and draw(st.integers(0, 6)) == 0:
            agents["list"] = draw(st.sampled_from([{"$include": "./agents.json5"}, {"a": 1}, 3]))
        else:
            agent = _list_agent(includes=includes, broken=broken)
            agents["list"] = draw(st.lists(agent, max_size=8))
    if layout in ("entries", "both"):
        if broken and draw(st.integers(0, 6)) == 0:
            agents["entries"] = draw(st.sampled_from([[], 3, "main"]))
        else:
            names = draw(
                st.lists(ANY_ENTRY_NAMES if broken else ENTRY_NAMES, max_size=8, unique=True)
            )
            agent = _entry_agent(includes=includes, broken=broken)
            agents["entries"] = {name: draw(agent) for name in names}
        if draw(st.integers(0, 3)) == 0:
            agents["ownership"] = draw(
                st.sampled_from(["explicit", "other", 1] if broken else ["explicit"])
            )
    if layout != "none":
        config["agents"] = agents if layout != "bad" else draw(st.sampled_from([[], 1, "x"]))
    if draw(st.integers(0, 6)) == 0:
        config["$schema"] = draw(st.sampled_from(["./s.json", 1] if broken else ["./s.json"]))
    if draw(st.integers(0, 3)) == 0:
        version = st.sampled_from([*(name for name in RELEASES if name), "2026.99.1", 20265])
        config["meta"] = {"lastTouchedVersion": draw(version)}
    return config


TARGETS = st.sampled_from(RELEASES).map(lambda name: None if name is None else choose_target(name))


@settings(max_examples=600, deadline=None)
@given(configs(), TARGETS)
def test_the_shortcut_gives_the_plain_diagnostics(config: dict[str, Any], target: Any) -> None:
    _assert_same(loaded_from_python(config), target)


@settings(max_examples=200, deadline=None)
@given(configs(includes=False), TARGETS)
def test_the_shortcut_gives_the_plain_diagnostics_with_positions(
    config: dict[str, Any], target: Any
) -> None:
    text = json.dumps(config, indent=2)
    loaded = load_config("-", stdin=io.StringIO(text), stdin_filename="openclaw.json5")
    plain = _assert_same(loaded, target)
    assert all(d.span is not None for d in plain if d.path)
    # As reports show them (sorted by position; without spans, ties keep the list's order).
    assert sort_diagnostics(validate.validate_config(loaded, target)) == sort_diagnostics(plain)


def test_the_generated_configs_reach_every_branch_of_the_shortcut() -> None:
    """The strategy is not vacuous: invalid configs whose wrong parts are blocks only, and
    invalid configs with wrong parts outside the blocks, on both roster layouts."""
    reached: set[tuple[str, str]] = set()

    @settings(max_examples=300, deadline=None, database=None)
    @given(configs(), st.sampled_from(["S2", "S3"]))
    def collect(config: dict[str, Any], line_id: str) -> None:
        line = next(line for line in LINES if line.id == line_id)
        if is_valid(config, line.id) is not False:
            reached.add((line.roster, "valid"))
            return
        wrong = validate._wrong_blocks(json.loads(json.dumps(config)), line)
        assert wrong is not None
        emptied = json.loads(json.dumps(config))
        for holder, _path in list(validate._plain_block_holders(emptied, line)):
            holder["loopDetection"] = {}
        outcome = "blocks only" if is_valid(emptied, line.id) else "outside blocks"
        reached.add((line.roster, outcome))

    collect()
    for roster in ("list", "entries"):
        for outcome in ("valid", "blocks only", "outside blocks"):
            assert (roster, outcome) in reached


def test_a_valid_block_becomes_empty_and_a_wrong_one_is_kept() -> None:
    line = choose_target(None).line
    config = {
        "tools": {"loopDetection": {"enabled": True}},
        "agents": {"list": [{"id": "a", "tools": {"loopDetection": {"historySize": 0}}}]},
    }
    wrong = validate._wrong_blocks(config, line)
    assert wrong is not None
    assert [(path, block) for _, _, path, block in wrong] == [
        (("agents", "list", 0, "tools", "loopDetection"), {"historySize": 0})
    ]
    assert config["tools"] == {"loopDetection": {}}
    assert is_valid_block({}, line.id) is True
