"""`holds_dollar`: where loading may skip a value (no `$include`, no `${VAR}` below it).

Loading asks it of every value it would otherwise walk (loopcfg/includes.py,
loopcfg/envvars.py), and the language server's values keep the answer from edit to edit: a
wrong False would skip an include or a substitution, so it is held to the plain definition
(a key or string anywhere below holds a "$" once decoded) on generated trees, through
escapes, and across the incremental parse's edits.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from loopcfg.config import load_config
from loopcfg.lsp.analysis import parsing_with, unsaved_texts
from loopcfg.lsp.incremental import ParseCache
from loopcfg.source import parse_text
from loopcfg.source.nodes import ArrayNode, Node, ObjectNode, from_python, holds_dollar

TEXTS = st.sampled_from(["a", "$", "x$y", "${N}", ""])
KEYS = st.sampled_from(["k", "id", "$include", "a$", "tools"])
VALUES = st.recursive(
    st.one_of(TEXTS, st.integers(-1, 2), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=12,
)


def _reference(value: object) -> bool:
    if isinstance(value, dict):
        return any("$" in key or _reference(item) for key, item in value.items())
    if isinstance(value, list):
        return any(map(_reference, value))
    return isinstance(value, str) and "$" in value


def _containers(node: Node) -> list[Node]:
    found: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ObjectNode):
            found.append(current)
            stack.extend(entry.value for entry in current.entries)
        elif isinstance(current, ArrayNode):
            found.append(current)
            stack.extend(current.items)
    return found


@given(VALUES)
def test_holds_dollar_is_a_dollar_in_any_key_or_string_below(value: object) -> None:
    node = from_python(value)
    assert holds_dollar(node) is _reference(value)
    assert holds_dollar(node) is _reference(value)  # the kept answer
    # ... and from JSON5 text, for every value below
    document = parse_text(json.dumps(value), "t.json5")
    for inner in _containers(document.root):
        assert holds_dollar(inner) is _reference(_plain(inner))


def _plain(node: Node) -> object:
    if isinstance(node, ObjectNode):
        return {entry.key.name: _plain(entry.value) for entry in node.entries}
    if isinstance(node, ArrayNode):
        return [_plain(item) for item in node.items]
    return node.value


def test_an_escaped_dollar_counts_once_decoded() -> None:
    for text in ('{ a: { "\\u0024include": "x.json5" } }', "{ a: ['\\x24{N}'] }"):
        assert holds_dollar(parse_text(text, "t.json5").root)
    assert not holds_dollar(parse_text('{ a: { "\\\\u0024": 1 } }', "t.json5").root)


def test_changing_a_containers_members_forgets_the_answer() -> None:
    obj = from_python({"a": 1})
    array = from_python([1])
    assert isinstance(obj, ObjectNode) and isinstance(array, ArrayNode)
    assert not holds_dollar(obj) and not holds_dollar(array)
    obj.entries.append(from_python({"$include": "x"}).entries[0])  # type: ignore[union-attr]
    obj.entries_changed()
    array.items.append(from_python("${N}"))
    array.items_changed()
    assert holds_dollar(obj) and holds_dollar(array)


def test_an_escaped_include_in_an_agent_is_resolved(tmp_path: Path) -> None:
    """The key decodes to `$include`: the agent's block comes from the file."""
    (tmp_path / "block.json5").write_text("{ historySize: 7 }", encoding="utf-8")
    top = tmp_path / "openclaw.json5"
    top.write_text(
        '{ agents: { list: [ { id: "a" }, { id: "b", tools: { loopDetection: '
        '{ "\\u0024include": "./block.json5" } } } ] } }',
        encoding="utf-8",
    )
    loaded = load_config(top)
    assert loaded.root is not None and not loaded.diagnostics
    assert _plain(loaded.root)["agents"]["list"][1] == {  # type: ignore[index]
        "id": "b",
        "tools": {"loopDetection": {"historySize": 7}},
    }


def test_after_an_edit_the_other_agents_answers_are_kept(tmp_path: Path) -> None:
    """The server's loads: an agent's value edited, a `${VAR}` outside the roster. Loading
    asked each agent once (the answer is on its node), and after the edit the other agents
    are the same nodes, so only the edited one and the values around it are looked at."""
    top = tmp_path / "openclaw.json5"
    agents = ",\n".join(
        f'  {{ id: "a{n}", tools: {{ loopDetection: {{ historySize: {n} }} }} }}' for n in range(20)
    )
    text = '{\n models: { apiKey: "${KEY}" },\n agents: { list: [\n' + agents + "\n] } }\n"
    top.write_text(text, encoding="utf-8")
    cache = ParseCache()

    def roster(current: str) -> list[Node]:
        with unsaved_texts({str(top): current}), parsing_with(cache.parse):
            loaded = load_config(top, env={"KEY": "k"})
        assert loaded.root is not None and not loaded.diagnostics
        listed = loaded.root.get("agents").get("list")  # type: ignore[union-attr]
        assert isinstance(listed, ArrayNode)
        return listed.items

    before = roster(text)
    assert [item._dollar for item in before] == [False] * 20  # type: ignore[union-attr]
    after = roster(text.replace("historySize: 5 ", "historySize: 55 "))
    assert [new is old for new, old in zip(after, before, strict=True)].count(False) == 1
    assert after[5] is not before[5]
    assert [item._dollar for item in after] == [False] * 20  # type: ignore[union-attr]
