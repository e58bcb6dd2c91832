"""YAML configs: values, positions, comments, duplicate keys, and what is not JSON-like."""

from __future__ import annotations

import subprocess
import sys

from loopcfg.source import parse_text
from loopcfg.source.nodes import ArrayNode, ObjectNode, Span, to_python

TEXT = """\
# top comment
tools:
  loopDetection:   # inline comment
    enabled: true
    warningThreshold: 5
    warningThreshold: 6
    note: "a # inside a string"
agents:
  list:
    - id: main
      when: 2026-05-04
      ratio: 1.5
      none: ~
    - {id: 'other', n: 0x1F}
"""


def _document() -> ObjectNode:
    root = parse_text(TEXT, "c.yaml", "yaml").root
    assert isinstance(root, ObjectNode)
    return root


def test_values_are_json_like() -> None:
    assert to_python(_document()) == {
        "tools": {
            "loopDetection": {"enabled": True, "warningThreshold": 6, "note": "a # inside a string"}
        },
        "agents": {
            "list": [
                {"id": "main", "when": "2026-05-04", "ratio": 1.5, "none": None},
                {"id": "other", "n": 31},
            ]
        },
    }


def test_positions_and_paths() -> None:
    root = _document()
    tools = root.get("tools")
    assert isinstance(tools, ObjectNode)
    block = tools.get("loopDetection")
    assert isinstance(block, ObjectNode) and block.path == ("tools", "loopDetection")
    enabled = block.entries[0]
    assert enabled.key.span == Span("c.yaml", 4, 5, 4, 12)
    assert enabled.value.span == Span("c.yaml", 4, 14, 4, 18)
    agents = root.get("agents")
    assert isinstance(agents, ObjectNode)
    items = agents.get("list")
    assert isinstance(items, ArrayNode)
    second = items.items[1]
    assert isinstance(second, ObjectNode) and second.path == ("agents", "list", 1)
    number = second.get("n")
    assert number is not None and number.span == Span("c.yaml", 14, 24, 14, 28)


def test_duplicate_keys_kept_with_both_positions() -> None:
    tools = _document().get("tools")
    assert isinstance(tools, ObjectNode)
    block = tools.get("loopDetection")
    assert isinstance(block, ObjectNode)
    [(first, later)] = block.duplicates()
    assert first.key.span is not None and first.key.span.start() == (5, 5)
    assert later.key.span is not None and later.key.span.start() == (6, 5)


def test_comments_with_positions_not_inside_strings() -> None:
    comments = parse_text(TEXT, "c.yaml", "yaml").comments
    assert [(c.text, c.span.start()) for c in comments] == [
        ("# top comment", (1, 1)),
        ("# inline comment", (3, 20)),
    ]


def test_merge_keys_apply_without_false_duplicates() -> None:
    text = "base: &b {a: 1, b: 2}\nchild:\n  <<: *b\n  b: 3\n"
    root = parse_text(text, "c.yaml", "yaml").root
    assert isinstance(root, ObjectNode)
    child = root.get("child")
    assert isinstance(child, ObjectNode)
    assert to_python(child) == {"a": 1, "b": 3} and child.duplicates() == []


def test_ruamel_is_imported_lazily() -> None:
    code = (
        "import sys; from loopcfg.source import parse_text; parse_text('{}', 'f');"
        "print('ruamel' in ' '.join(sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
