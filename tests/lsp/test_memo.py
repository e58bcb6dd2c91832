"""The server's memoised check (loopcfg/memo.py) against `loopcfg validate` (issue 14).

Between two checks of a config the server reuses what depends only on values an edit did not
touch: an agent's roster entry, its resolved scope and lint findings, each block's checks, each
agent's schema verdict. Hypothesis drives sequences of edits as a user makes them (a value in
the global block or in an agent, an agent added, removed, moved or renamed, a line added above
memoised values so that their positions move, an `$include` put in and edited) over configs
for both roster layouts, with LF or CRLF line breaks, and edits of the text as typed: Enter in
the middle of a line, two lines joined, a blank or comment line added or deleted, above,
inside and below memoised agents and blocks; after every edit the server's check must equal
`check_file` on the same texts written to disk, positions, messages and related places included.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")

from loopcfg.check import CheckOptions, check_file, loaded_findings
from loopcfg.diagnostics import sort_diagnostics
from loopcfg.lsp import analysis
from loopcfg.lsp.incremental import ParseCache
from loopcfg.memo import SubtreeMemo
from loopcfg.source import fresh_parse
from loopcfg.source.nodes import ObjectNode

NAMES = (
    "enabled",
    "historySize",
    "warningThreshold",
    "criticalThreshold",
    "globalCircuitBreakerThreshold",
    "detectors.pingPong",
    "postCompactionGuard.windowSize",
)
# Valid and invalid values alike: each kind of finding, and errors that stop the lints.
TOKENS = ("1", "3", "5", "10", "30", "0", '"h"', "true", "false", "2.5", "9007199254740993")
INCLUDED = "./block.json5"


class Agent(NamedTuple):
    id: str
    block: dict[str, str]
    multiline: bool
    included: bool = False  # its block is `{ $include: "./block.json5" }`


class Model(NamedTuple):
    """A config as the user sees it, rendered to JSON5 text (one change, one local edit)."""

    entries: bool  # agents.entries keyed by id (2026.9.6), else agents.list (no target)
    header: int  # comment lines above everything
    notes: tuple[str, ...]  # comment lines at the top of the global block
    block: dict[str, str]
    agents: tuple[Agent, ...]
    port: int = 8080  # a value outside every block, on a line of its own
    # Edits of the rendered text, in the order typed (`typed`), and its line break.
    typing: tuple[tuple[str, int, int], ...] = ()
    newline: str = "\n"


def _members(block: dict[str, str]) -> str:
    plain = [f"{name}: {value}" for name, value in block.items() if "." not in name]
    groups: dict[str, list[str]] = {}
    for name, value in block.items():
        if "." in name:
            group, leaf = name.split(".")
            groups.setdefault(group, []).append(f"{leaf}: {value}")
    plain += [f"{group}: {{ {', '.join(leaves)} }}" for group, leaves in groups.items()]
    return ", ".join(plain)


def _agent_block(agent: Agent) -> str:
    if agent.included:
        return f'{{ $include: "{INCLUDED}" }}'
    return f"{{ {_members(agent.block)} }}"


def _agent_lines(agent: Agent, entries: bool) -> list[str]:
    tools = f"tools: {{ loopDetection: {_agent_block(agent)} }}"
    head = f'"{agent.id}": {{ ' if entries else f'{{ id: "{agent.id}", '
    if agent.multiline:
        head = head.rstrip(" ")
        return [f"      {head}", f"        {tools},", "      },"]
    return [f"      {head}{tools} }},"]


def render(model: Model) -> str:
    lines = [f"// note {index}" for index in range(model.header)]
    lines += ["{", f"  gateway: {{ port: {model.port} }},"]
    if model.entries:
        lines += ['  meta: { lastTouchedVersion: "2026.9.6" },']
    lines += ["  tools: {", "    loopDetection: {"]
    lines += [f"      // {note}" for note in model.notes]
    lines += [f"      {member}," for member in _members(model.block).split(", ") if member]
    lines += ["    },", "  },", "  agents: {"]
    if model.entries:
        lines += ['    ownership: "explicit",', "    entries: {"]
    else:
        lines += ["    list: ["]
    for agent in model.agents:
        # A comment goes with its agent (added, removed and moved with it, as a user does),
        # so that those edits are pure insertions and deletions of the agent's lines.
        if agent.id[-1:] in ("1", "4", "7"):
            lines.append(f"      // agent {agent.id}")
        lines += _agent_lines(agent, model.entries)
    lines += ["    }," if model.entries else "    ],", "  },", "}", ""]
    for edit in model.typing:
        lines = typed(lines, edit)
    return model.newline.join(lines)


def typed(lines: list[str], edit: tuple[str, int, int]) -> list[str]:
    """`lines` after one edit as typed: Enter after the `at`-th ", " or "{ " of a line (the
    rest of the line goes below, indented), a line joined to the next one, a blank line or a
    comment line put in, a blank or comment line deleted. Lines are picked by `line` modulo
    their number (the last, empty one aside), so anywhere: above, in and below the blocks."""
    kind, line, at = edit
    index = line % (len(lines) - 1)
    text = lines[index]
    if kind == "enter":
        cuts = [found.end() for found in re.finditer(r", |\{ ", text)]
        if not cuts or "//" in text:
            return lines
        cut = cuts[at % len(cuts)]
        return [
            *lines[:index],
            text[:cut].rstrip(" "),
            "        " + text[cut:],
            *lines[index + 1 :],
        ]
    if kind == "join":  # the line break at the end of `index` deleted, with the indentation
        if "//" in text or index + 1 >= len(lines) - 1:
            return lines  # a line comment would swallow the next line: not what is tested
        joined = text + " " + lines[index + 1].lstrip(" ")
        return [*lines[:index], joined, *lines[index + 2 :]]
    if kind == "blank":
        return [*lines[:index], "" if at % 2 else "      // typed", *lines[index:]]
    if kind == "delete":  # only lines with nothing of the config on them
        if text.strip() and not text.strip().startswith("//"):
            return lines
        return [*lines[:index], *lines[index + 1 :]]
    raise AssertionError(kind)


def _base(entries: bool) -> Model:
    # Thresholds close to the history, so that a change of either side finds or clears an
    # LC101 or LC102 (in the agents that inherit it, when it is the global block's).
    agents = tuple(
        Agent(f"a{index}", {"warningThreshold": str(5 + index), "criticalThreshold": "12"}, False)
        for index in range(5)
    )
    block = {"enabled": "true", "historySize": "12", "warningThreshold": "10"}
    if entries:
        block = {"enabled": "true"}
    return Model(entries, 0, (), block, agents)


# -- the edits ------------------------------------------------------------------------------------


def _set(block: dict[str, str], name: str, value: str | None) -> dict[str, str]:
    changed = dict(block)
    if value is None:
        changed.pop(name, None)
    else:
        changed[name] = value
    return changed


def _with_agent(model: Model, index: int, agent: Agent) -> Model:
    agents = list(model.agents)
    agents[index % len(agents)] = agent
    return model._replace(agents=tuple(agents))


def apply(model: Model, edit: tuple[object, ...]) -> Model:
    kind = edit[0]
    agents = model.agents
    if kind == "global":
        _, name, value = edit
        return model._replace(block=_set(model.block, str(name), value))  # type: ignore[arg-type]
    if kind == "note":  # a line above the blocks: every later position moves
        return model._replace(notes=(*model.notes, f"why {len(model.notes)}"))
    if kind == "header":
        return model._replace(header=model.header + 1)
    if kind in ("enter", "join", "blank", "delete"):
        _, line, at = edit
        return model._replace(typing=(*model.typing, (str(kind), int(line), int(at))))  # type: ignore[call-overload]
    if kind == "port":  # nothing of loop detection changes: every block is the same object
        return model._replace(port=model.port + int(edit[1]))  # type: ignore[call-overload]
    if kind == "add":
        _, index, multiline = edit
        new = Agent(f"n{len(agents)}", {"historySize": "3"}, bool(multiline))
        at = int(index) % (len(agents) + 1)  # type: ignore[call-overload]
        return model._replace(agents=(*agents[:at], new, *agents[at:]))
    if not agents:
        return model
    index = int(edit[1]) % len(agents)  # type: ignore[call-overload]
    agent = agents[index]
    if kind == "agent":
        _, _, name, value = edit
        return _with_agent(model, index, agent._replace(block=_set(agent.block, str(name), value)))  # type: ignore[arg-type]
    if kind == "remove":
        return model._replace(agents=agents[:index] + agents[index + 1 :])
    if kind == "move":  # cut and pasted elsewhere in the roster: the agents between renumber
        rest = agents[:index] + agents[index + 1 :]
        at = int(edit[2]) % (len(rest) + 1)  # type: ignore[call-overload]
        return model._replace(agents=(*rest[:at], agent, *rest[at:]))
    if kind == "rename":  # possibly to another agent's id (LC106), or not normalised (LC108)
        return _with_agent(model, index, agent._replace(id=str(edit[2])))
    if kind == "lines":  # the agent written over several lines, or on one
        return _with_agent(model, index, agent._replace(multiline=not agent.multiline))
    if kind == "include":
        return _with_agent(model, index, agent._replace(included=not agent.included))
    raise AssertionError(kind)


TYPED = st.tuples(
    st.sampled_from(["enter", "join", "blank", "delete"]), st.integers(0, 80), st.integers(0, 5)
)
VALUES = st.one_of(st.sampled_from(TOKENS), st.none())
VALUE_EDITS = st.one_of(
    st.tuples(st.just("global"), st.sampled_from(NAMES), VALUES),
    st.tuples(st.just("agent"), st.integers(0, 9), st.sampled_from(NAMES), VALUES),
)
EDIT = st.one_of(
    VALUE_EDITS,  # most edits change a value (the case the memo is for)
    VALUE_EDITS,
    VALUE_EDITS,
    st.tuples(st.just("note")),
    st.tuples(st.just("header")),
    st.tuples(st.just("port"), st.integers(1, 20000)),
    st.tuples(st.just("add"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("remove"), st.integers(0, 9)),
    st.tuples(st.just("move"), st.integers(0, 9), st.integers(0, 9)),
    st.tuples(st.just("rename"), st.integers(0, 9), st.sampled_from(["a0", "a1", "Ops", "n5"])),
    st.tuples(st.just("lines"), st.integers(0, 9)),
    st.tuples(st.just("include"), st.integers(0, 9)),
    st.tuples(st.just("included"), st.sampled_from(TOKENS)),
    TYPED,  # lines added and removed as typed, wherever (positions after them move)
    TYPED,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), st.booleans(), st.lists(EDIT, min_size=1, max_size=10))
def test_a_memoised_check_gives_validates_diagnostics(
    tmp_path_factory: pytest.TempPathFactory,
    entries: bool,
    crlf: bool,
    edits: list[tuple[object, ...]],
) -> None:
    folder = tmp_path_factory.mktemp("memo")
    top, included = folder / "openclaw.json5", folder / "block.json5"
    model = _base(entries)._replace(newline="\r\n" if crlf else "\n")
    block_text = "{\n  // the included block\n  warningThreshold: 8,\n}\n"
    cache = ParseCache()
    previous = None
    verbose = SubtreeMemo()  # the infos too (LC201, LC202), which the server leaves out
    for edit in [("header",), *edits]:
        if edit[0] == "included":
            block_text = f"{{\n  // the included block\n  warningThreshold: {edit[1]},\n}}\n"
        else:
            model = apply(model, edit)
        text = render(model)
        top.write_text(text, encoding="utf-8", newline="")
        included.write_text(block_text, encoding="utf-8")
        buffers = {str(top): text, str(included): block_text}
        checked = analysis.check(str(top), buffers, None, cache, previous)
        expected = check_file(str(top), CheckOptions())
        assert checked.diagnostics == list(expected.diagnostics), (edit, text)
        verbose.new_round()
        with_infos = loaded_findings(checked.loaded, CheckOptions(verbose=True), memo=verbose)
        expected = check_file(str(top), CheckOptions(verbose=True))
        assert sort_diagnostics(with_infos) == list(expected.diagnostics), (edit, text)
        previous = checked


def _checked_twice(first: str, second: str, tmp_path: Path) -> tuple[analysis.Checked, int]:
    top = tmp_path / "openclaw.json5"
    cache = ParseCache()
    before = analysis.check(str(top), {str(top): first}, None, cache)
    hits = before.memo.hits
    top.write_text(second, encoding="utf-8")
    after = analysis.check(str(top), {str(top): second}, None, cache, before)
    assert after.diagnostics == list(check_file(str(top)).diagnostics)
    return after, after.memo.hits - hits


def test_an_edit_in_one_agent_reuses_the_others(tmp_path: Path) -> None:
    model = _base(entries=False)
    edited = apply(model, ("agent", 2, "historySize", "5"))  # LC102 in that agent
    after, hits = _checked_twice(render(model), render(edited), tmp_path)
    assert "LC102" in [d.code for d in after.diagnostics]
    # The other four agents' entries, scopes, lints, blocks and verdicts came from the memo.
    assert hits >= 4 * 5


def test_a_line_added_above_moves_memoised_findings(tmp_path: Path) -> None:
    # LC202 (info, shown with --verbose) and LC102 in agents whose lines move down.
    model = _base(entries=False)
    model = apply(model, ("agent", 3, "historySize", "5"))
    edited = apply(model, ("note",))
    after, _ = _checked_twice(render(model), render(edited), tmp_path)
    assert "LC102" in [d.code for d in after.diagnostics]


def test_an_edit_outside_the_blocks_keeps_the_target_warning(tmp_path: Path) -> None:
    # No target and retired keys written: LC110, which names every block's retired keys.
    model = _base(entries=False)
    top = tmp_path / "openclaw.json5"
    edited = render(apply(model, ("port", 7)))
    top.write_text(edited, encoding="utf-8")
    cache = ParseCache()
    before = analysis.check(str(top), {str(top): render(model)}, None, cache)
    after = analysis.check(str(top), {str(top): edited}, None, cache, before)
    assert after.diagnostics == list(check_file(str(top)).diagnostics)
    warnings = [d for d in after.diagnostics if d.code == "LC110"]
    assert warnings and warnings[0] in before.diagnostics
    # Not made again: the last check's warning itself.
    assert any(warnings[0] is d for d in before.diagnostics)


def test_the_memo_keeps_what_the_last_checks_used(tmp_path: Path) -> None:
    """A long session does not grow the memo: each check keeps what it asked for, and what
    the check before it used goes when the next one starts."""
    model = _base(entries=False)
    top = tmp_path / "openclaw.json5"
    cache = ParseCache()
    checked = analysis.check(str(top), {str(top): render(model)}, None, cache)
    sizes = []
    for number in range(60):
        name = "warningThreshold" if number % 2 else "historySize"
        model = apply(model, ("agent", number, name, str(3 + number % 7)))
        checked = analysis.check(str(top), {str(top): render(model)}, None, cache, checked)
        sizes.append(len(checked.memo))
    assert max(sizes[30:]) <= max(sizes[:5]) + 5


def test_an_enter_above_the_blocks_moves_the_findings_of_every_block(tmp_path: Path) -> None:
    # An Enter in the line before the global block: the global block and every agent are
    # moved copies, and a finding's message names a place ("historySize 12 (global at
    # file:6:7)"): what a memo that moves kept findings by the lines must word again.
    model = apply(_base(entries=False), ("agent", 1, "criticalThreshold", "20"))  # LC102
    edited = apply(model, ("enter", 1, 0))  # `gateway: { port: 8080 },`, after its "{ "
    assert render(edited).count("\n") == render(model).count("\n") + 1
    top = tmp_path / "openclaw.json5"
    after, _ = _checked_twice(render(model), render(edited), tmp_path)
    messages = [d.message for d in after.diagnostics]
    assert any(f"{top}:" in message for message in messages)  # a place named in a message


def test_scopes_kept_through_an_enter_above_them_say_where_their_values_are_now(
    tmp_path: Path,
) -> None:
    # An Enter above the global block moves every block without making it new, so every
    # scope comes from the memo; the positions its sources give must be the new ones.
    from loopcfg.resolve import resolve_config

    model = apply(_base(entries=False), ("agent", 1, "criticalThreshold", "20"))
    edited = apply(model, ("enter", 1, 0))
    after, hits = _checked_twice(render(model), render(edited), tmp_path)
    assert hits >= 5  # the agents' scopes, at least, were kept
    root = after.loaded.root
    assert isinstance(root, ObjectNode)
    kept = resolve_config(root, None, after.memo)  # what the check resolved, from the memo
    fresh = resolve_config(fresh_parse(render(edited), str(tmp_path / "openclaw.json5")).root)  # type: ignore[arg-type]
    for ours, theirs in zip(
        (kept.global_scope, *kept.agents), (fresh.global_scope, *fresh.agents), strict=True
    ):
        assert ours.settings.sources == theirs.settings.sources
        assert [s.to_json() for s in ours.settings.sources.values()] == [
            s.to_json() for s in theirs.settings.sources.values()
        ]


@pytest.mark.parametrize("entries", [False, True])
@pytest.mark.parametrize("at", [0, 1, 5])  # above the first agent, below it, below the last
def test_an_agent_added_above_others_keeps_theirs_with_the_paths_of_now(
    tmp_path: Path, entries: bool, at: int
) -> None:
    # An agent's line pasted at the top of the roster, below its first agent's or at its
    # end: in `agents.list` every agent below it moves to the next index. Every agent's
    # scope and findings are kept (keyed by their nodes), and reported with the paths of
    # now: LC102 and LC004 in moved agents, LC202 (an info) and, without a target, LC110's
    # places in every moved block.
    from loopcfg.resolve import resolve_config

    model = _base(entries)
    model = apply(model, ("agent", 3, "criticalThreshold", "20"))  # LC102 (no target)
    model = apply(model, ("agent", 4, "warningThreshold", "30"))  # LC004: 30 >= 12
    model = apply(model, ("agent", 2, "enabled", "true"))  # LC202: what it inherits
    text = render(model)
    lines = text.split("\n")
    ids = [f'"{agent.id}"' for agent in model.agents]
    # Before the first agent's line, or after the line of the agent before index `at`.
    line = next(i for i, text in enumerate(lines) if ids[max(at - 1, 0)] in text)
    below = line + (1 if at else 0)  # (each agent of the base is on one line)
    new = Agent("n5", {"historySize": "3"}, False)
    edited = "\n".join([*lines[:below], *_agent_lines(new, entries), *lines[below:]])
    config = tmp_path / "openclaw.json5"
    config.write_text(text, encoding="utf-8")
    cache = ParseCache()
    before = analysis.check(str(config), {str(config): text}, None, cache)
    first = resolve_config(before.loaded.root, None, before.memo)  # type: ignore[arg-type]
    config.write_text(edited, encoding="utf-8")
    after = analysis.check(str(config), {str(config): edited}, None, cache, before)
    assert cache.reparsed == 1  # the new line alone was parsed
    assert after.diagnostics == list(check_file(str(config)).diagnostics)
    codes = {d.code for d in after.diagnostics}
    # (2026.9.6, the entries layout's target, retired the thresholds: LC009 in each block.)
    assert codes >= ({"LC009"} if entries else {"LC004", "LC102", "LC110"})
    if not entries and at < 4:
        assert any("agents.list[4]" in (d.path or "") for d in after.diagnostics)
    verbose = loaded_findings(after.loaded, CheckOptions(verbose=True), memo=after.memo)
    expected = check_file(str(config), CheckOptions(verbose=True)).diagnostics
    assert sort_diagnostics(verbose) == list(expected)
    assert entries or "LC202" in {d.code for d in expected}
    second = resolve_config(after.loaded.root, None, after.memo)  # type: ignore[arg-type]
    kept = [scope for scope in second.agents if scope.agent and scope.agent.id != "n5"]
    assert [s.agent.id for s in kept] == [s.agent.id for s in first.agents]  # type: ignore[union-attr]
    for now, then in zip(kept, first.agents, strict=True):
        assert now.merged is then.merged  # kept, not merged again
        assert now.agent is not None and then.agent is not None
        assert now.agent.index == then.agent.index + (then.agent.index >= at)
