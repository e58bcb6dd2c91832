"""Loading a config with `$include`s and `${VAR}`s keeps the top-level file's own values
(copy on write: loopcfg/includes.py `IncludeResolver.resolve`, loopcfg/envvars.py
`substitute_config`, loopcfg/config.py `_set_moved_paths`), so that the language server's memo
recognises them by identity after an edit.

Hypothesis writes a top-level file and two included files (objects merged, arrays concatenated
before the file's own items, includes nested, an include beside siblings, `${VAR}`s set, empty
and missing in the parts loopcfg reads and elsewhere) and holds the load to the reference: the
same resolver on a private copy of the parsed tree, every path set afresh, nothing kept. And
loading never writes to a parsed document (values and paths as a fresh parse gives them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loopcfg.config import LoadedConfig, load_config, set_paths
from loopcfg.envvars import substitute_config
from loopcfg.includes import IncludeResolver
from loopcfg.source import load_document
from loopcfg.source.nodes import ArrayNode, Entry, Node, ObjectNode, ScalarNode, to_python

ENV = {"SET": "seven", "EMPTY": ""}
STRINGS = st.sampled_from(["a", "${SET}", "${EMPTY}", "${MISSING}", "$${SET}", "x${SET}y", "$"])
SCALARS = st.one_of(STRINGS, st.integers(-2, 3), st.booleans(), st.none())
KEYS = st.sampled_from(["id", "list", "tools", "loopDetection", "k", "n"])
INCLUDE = st.one_of(st.sampled_from(["a.json5", "b.json5"]), st.just(["a.json5", "b.json5"]))


def _with_include(siblings: dict[str, object], include: object) -> dict[str, object]:
    return {"$include": include, **siblings}


VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(KEYS, inner, max_size=3),
        st.builds(_with_include, st.dictionaries(KEYS, inner, max_size=2), INCLUDE),
    ),
    max_leaves=12,
)
# The parts loopcfg substitutes in: the global block, agents' ids and blocks (both layouts).
BLOCK = st.dictionaries(st.sampled_from(["enabled", "historySize", "k"]), VALUES, max_size=3)
AGENT = st.fixed_dictionaries(
    {"id": st.one_of(STRINGS, VALUES)},
    optional={"tools": st.fixed_dictionaries({}, optional={"loopDetection": BLOCK})},
)
TOP = st.fixed_dictionaries(
    {},
    optional={
        "tools": st.fixed_dictionaries({}, optional={"loopDetection": BLOCK, "k": VALUES}),
        "agents": st.one_of(
            st.fixed_dictionaries({"list": st.lists(AGENT, max_size=3)}),
            st.fixed_dictionaries({"entries": st.dictionaries(KEYS, AGENT, max_size=2)}),
            st.builds(
                _with_include, st.fixed_dictionaries({"list": st.lists(AGENT, max_size=2)}), INCLUDE
            ),
        ),
        "gateway": VALUES,
        "$include": INCLUDE,
    },
)
INCLUDED = st.one_of(
    st.dictionaries(KEYS, VALUES, max_size=3),
    st.fixed_dictionaries({"agents": st.fixed_dictionaries({"list": st.lists(AGENT, max_size=2)})}),
    st.lists(VALUES, max_size=2),
)


def _reference(path: Path) -> LoadedConfig:
    """The load as every value copied: resolve a private copy of the parsed tree, set every
    path, substitute."""
    document = load_document(str(path))
    loaded = LoadedConfig(document.file, document, {document.file: document})
    resolver = IncludeResolver(path, document.file, loaded.documents, loaded.diagnostics)
    root = resolver.resolve_top(_copy(document.root))
    assert isinstance(root, ObjectNode)
    set_paths(root)
    root, missing = substitute_config(root, ENV, document.file)
    loaded.diagnostics.extend(missing)
    loaded.root = root
    return loaded


def _copy(node: Node) -> Node:
    if isinstance(node, ObjectNode):
        return ObjectNode(
            [Entry(e.key, _copy(e.value)) for e in node.entries], node.place, node.path
        )
    if isinstance(node, ArrayNode):
        return ArrayNode([_copy(item) for item in node.items], node.place, node.path)
    return ScalarNode(node.value, node.place, node.path, node.raw)


def _nodes(node: Node) -> list[Node]:
    found = [node]
    if isinstance(node, ObjectNode):
        for entry in node.entries:
            found += _nodes(entry.value)
    elif isinstance(node, ArrayNode):
        for item in node.items:
            found += _nodes(item)
    return found


def _shape(node: Node) -> list[tuple[object, ...]]:
    """Every node's path, value and span, in order: what a load must give and keep."""
    return [
        (n.path, n.value if isinstance(n, ScalarNode) else type(n).__name__, n.span)
        for n in _nodes(node)
    ]


def _where_each_is(node: Node, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    found: list[tuple[object, ...]] = [path]
    if isinstance(node, ObjectNode):
        for entry in node.entries:
            found += _where_each_is(entry.value, (*path, entry.key.name))
    elif isinstance(node, ArrayNode):
        for index, item in enumerate(node.items):
            found += _where_each_is(item, (*path, index))
    return found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TOP, INCLUDED, INCLUDED)
def test_a_load_keeps_the_files_values_and_equals_a_full_copy(
    tmp_path_factory: pytest.TempPathFactory,
    top: dict[str, object],
    first: object,
    second: object,
) -> None:
    folder = tmp_path_factory.mktemp("kept")
    (folder / "a.json5").write_text(json.dumps(first), encoding="utf-8")
    (folder / "b.json5").write_text(json.dumps({"nested": {"$include": "a.json5"}, "v": second}))
    path = folder / "openclaw.json5"
    path.write_text(json.dumps(top, indent=1), encoding="utf-8")

    loaded = load_config(path, env=ENV)
    expected = _reference(path)
    assert loaded.diagnostics == expected.diagnostics
    assert (loaded.root is None) is (expected.root is None)
    if loaded.root is None or expected.root is None:
        return
    assert _shape(loaded.root) == _shape(expected.root)
    assert [n.path for n in _nodes(loaded.root)] == _where_each_is(loaded.root)
    # Nothing written to a parsed document: its values and paths are a fresh parse's.
    for name, document in loaded.documents.items():
        assert _shape(document.root) == _shape(load_document(name).root), name
    # What neither an include nor a substitution changed is the parsed document's own value.
    parsed = loaded.document.root if loaded.document is not None else None
    if "$include" in top or not isinstance(parsed, ObjectNode):
        return  # the top level merged with an included object: new, as its members may be
    assert isinstance(loaded.root, ObjectNode)
    for entry in parsed.entries:
        if "$" not in json.dumps(to_python(entry.value)):
            assert loaded.root.get(entry.key.name) is entry.value, entry.key.name
