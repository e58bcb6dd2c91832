"""YAML configs via ruamel.yaml's composer: positions from its marks, comments found beside it.

We walk the composed node graph ourselves rather than constructing Python objects: that keeps
every key's and value's position, and keeps duplicate keys (ruamel's constructor refuses them).
Only JSON-like values come out: mapping keys are their written text (`1:` is the key "1"),
scalars tagged null/bool/int/float become those values, every other scalar (timestamps,
binary, custom tags) is its written text as a string; `<<` merge keys are applied (merged keys
that the mapping writes itself are not repeated). ruamel is imported only here, lazily.

Aliases are expanded (an alias is its anchor's content again), so a few hundred bytes of
nested aliases ("billion laughs") would expand to billions of nodes. The composed graph
itself is small; the walk counts every node it builds a second time through an alias and
refuses the file (LC001, at the anchored node) past MAX_ALIAS_NODES.
"""

from __future__ import annotations

import math
import re
from typing import Any

from loopcfg.source.errors import SourceError, syntax_error
from loopcfg.source.json5 import MAX_DEPTH
from loopcfg.source.nodes import (
    ArrayNode,
    Comment,
    DocPath,
    Document,
    Entry,
    Key,
    Node,
    ObjectNode,
    ScalarNode,
    Span,
    integer_value,
)

__all__ = ["parse_yaml"]

_TAG = "tag:yaml.org,2002:"
# Nodes built again through aliases, in all: far beyond any config that reuses an anchor, far
# below what costs time or memory (100,000 nodes take about 0.3 s and 40 MB).
MAX_ALIAS_NODES = 100_000
# A "#" starts a comment at the start of a line or after a space or tab.
_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#[^\n\r]*", re.MULTILINE)


def parse_yaml(text: str, file: str) -> Document:
    """Parse YAML text into a Document; raises SourceError (LC001)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    body = text[1:] if text.startswith("\ufeff") else text
    too_deep = _flow_nesting_beyond(body, MAX_DEPTH)
    if too_deep is not None:
        from loopcfg.source.json5 import _Parser

        where = _Parser(body, file).span(too_deep, too_deep + 1)
        raise syntax_error(f"nesting deeper than {MAX_DEPTH} levels", where, file)
    yaml = YAML(typ="rt", pure=True)
    try:
        composed = yaml.compose(body)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        message = f"YAML: {error.problem or error.context or 'syntax error'}"
        span = (
            None
            if mark is None
            else Span(file, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2)
        )
        raise syntax_error(message, span, file) from None
    except YAMLError as error:
        raise syntax_error(f"YAML: {error}", Span(file, 1, 1, 1, 1), file) from None
    except RecursionError:
        # ruamel's composer recurses once per level and runs out of stack before our own
        # depth check below can see the tree: the same refusal, without a position.
        raise syntax_error(
            f"nesting deeper than {MAX_DEPTH} levels", Span(file, 1, 1, 1, 1), file
        ) from None
    if composed is None:
        raise syntax_error("the file has no value, only comments", Span(file, 1, 1, 1, 1), file)
    walker = _Walker(file, yaml)
    root = walker.node(composed, (), 1)
    return Document(file, text, root, _comments(body, file, walker.quoted), "yaml")


def _flow_nesting_beyond(body: str, limit: int) -> int | None:
    """The index of the first `[` or `{` nested deeper than `limit`, else None.

    ruamel's scanner re-checks every open flow level at every token, so its time grows with
    the square of the nesting: 1,000 levels of `[` take 20 s before any depth check of ours can
    run. This pass is linear and conservative: quoted strings (in flow context, where they
    start after `[`, `{`, `,` or `:`) and comments are skipped; a bracket inside a plain
    scalar can only make a real depth look larger, never hide one.
    """
    depth = 0
    index, length = 0, len(body)
    previous = "\n"  # the last character that is not a blank
    while index < length:
        char = body[index]
        if char in "[{":
            depth += 1
            if depth > limit:
                return index
        elif char in "]}":
            depth = max(depth - 1, 0)
        elif char == "#" and (index == 0 or body[index - 1] in " \t\n\r"):
            end = body.find("\n", index)
            index = length if end < 0 else end
            continue
        elif char in "\"'" and depth and previous in "[{,:":
            index = _after_quoted(body, index, char)
            previous = char
            continue
        if char not in " \t\r\n":
            previous = char
        index += 1
    return None


def _after_quoted(body: str, start: int, quote: str) -> int:
    """The index after the quoted scalar starting at `start` (the end of text if unclosed)."""
    index = start + 1
    while True:
        end = body.find(quote, index)
        if end < 0:
            return len(body)
        if quote == '"' and _escaped(body, end):
            index = end + 1
            continue
        if quote == "'" and body.startswith("''", end):  # '' is a quote inside '...'
            index = end + 2
            continue
        return end + 1


def _escaped(body: str, at: int) -> bool:
    """Whether the character at `at` follows an odd number of backslashes."""
    count = 0
    while at - count - 1 >= 0 and body[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _span(file: str, node: Any) -> Span:
    start, end = node.start_mark, node.end_mark
    return Span(file, start.line + 1, start.column + 1, end.line + 1, end.column + 1)


class _Walker:
    def __init__(self, file: str, yaml: Any) -> None:
        self.file = file
        self.constructor = yaml.constructor
        # Index ranges of quoted and block scalars: a "#" inside them is not a comment.
        self.quoted: list[tuple[int, int]] = []
        self.walked: set[int] = set()  # ids of the composed nodes built once
        self.repeated = 0  # nodes built again, through an alias
        self.merging: set[int] = set()  # ids of the mappings whose << merges are being walked

    def count(self, node: Any) -> None:
        """Count `node` against the alias budget when it is built a second time."""
        key = id(node)
        if key not in self.walked:
            self.walked.add(key)
            return
        self.repeated += 1
        if self.repeated > MAX_ALIAS_NODES:
            raise self.fail(
                f"YAML aliases expand to more than {MAX_ALIAS_NODES} nodes (an alias bomb?); "
                "this anchored value is repeated too often",
                node,
            )

    def fail(self, message: str, node: Any) -> SourceError:
        return syntax_error(message, _span(self.file, node), self.file)

    def node(self, node: Any, path: DocPath, depth: int) -> Node:
        self.count(node)
        kind = node.id
        if kind == "scalar":
            return self.scalar(node, path)
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH} levels", node)
        if kind == "sequence":
            items = [
                self.node(item, (*path, index), depth + 1) for index, item in enumerate(node.value)
            ]
            return ArrayNode(items, _span(self.file, node), path)
        return ObjectNode(self.entries(node, path, depth), _span(self.file, node), path)

    def entries(self, node: Any, path: DocPath, depth: int) -> list[Entry]:
        entries: list[Entry] = []
        merged: list[Any] = []
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                merged.extend(value_node.value if value_node.id == "sequence" else [value_node])
                continue
            if key_node.id != "scalar":
                raise self.fail("a mapping key must be a plain string, not a collection", key_node)
            self.remember(key_node)
            name = str(key_node.value)
            key = Key(name, _span(self.file, key_node))
            entries.append(Entry(key, self.node(value_node, (*path, name), depth + 1)))
        written = {entry.key.name for entry in entries}
        inherited: list[Entry] = []
        for source in merged:
            for entry in self.merged(node, source, path, depth):
                if entry.key.name not in written:
                    written.add(entry.key.name)
                    inherited.append(entry)
        return inherited + entries

    def merged(self, node: Any, source: Any, path: DocPath, depth: int) -> list[Entry]:
        """The entries a `<<` merge of `source` into `node` brings. Each merge walks its
        source again, so it counts against the alias budget like an alias does (ten levels
        of ten merges of an empty mapping are 10^10 walks and nothing else to count); a
        chain of merges nests like values do, and a mapping that merges itself is refused."""
        if source.id != "mapping":
            raise self.fail("a << merge needs a mapping or a list of mappings", source)
        if id(source) in self.merging or source is node:
            raise self.fail("a << merge takes in the mapping that holds it", source)
        if depth > MAX_DEPTH:
            raise self.fail(f"<< merges nested deeper than {MAX_DEPTH} levels", source)
        self.count(source)
        self.merging.add(id(node))
        try:
            return self.entries(source, path, depth + 1)
        finally:
            self.merging.discard(id(node))

    def remember(self, node: Any) -> None:
        if node.style in ("'", '"', "|", ">"):
            self.quoted.append((node.start_mark.index, node.end_mark.index))

    def scalar(self, node: Any, path: DocPath) -> ScalarNode:
        self.remember(node)
        tag = node.tag
        value: bool | int | float | str | None
        if tag in (_TAG + "null", _TAG + "bool", _TAG + "int", _TAG + "float"):
            try:
                constructed = self.constructor.construct_object(node, deep=True)
            except ValueError:  # an int of more than 4300 digits (CPython's limit): beyond range
                negative = str(node.value).lstrip().startswith("-")
                constructed = -math.inf if negative else math.inf
            if constructed is None or isinstance(constructed, bool):
                value = constructed
            elif isinstance(constructed, int):
                value = integer_value(int(constructed))
            else:
                value = float(constructed)
        else:
            value = str(node.value)
        span = _span(self.file, node)
        return ScalarNode(value, span, path, str(node.value))


def _comments(body: str, file: str, quoted: list[tuple[int, int]]) -> list[Comment]:
    from loopcfg.source.json5 import _Parser

    positions = _Parser(body, file)
    comments = []
    for match in _COMMENT.finditer(body):
        start = match.start()
        if any(low <= start < high for low, high in quoted):
            continue
        comments.append(Comment(match.group(), positions.span(start, match.end())))
    return comments
