"""The language server's incremental parse and check against a fresh one (issue 14).

`ParseCache` re-parses only the value around an edit; whatever it returns must be what
`fresh_parse` makes of the new text (the same tree, spans, paths, comments, or the same LC001),
and a check through it must give `loopcfg validate`'s diagnostics. Hypothesis drives sequences
of edits (typing, deleting, pasting, line breaks) over configs with comments and one-line and
multi-line values, and compares after every edit.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")

from loopcfg.check import CheckOptions, check_file
from loopcfg.lsp import analysis
from loopcfg.lsp.incremental import ParseCache, reparse
from loopcfg.source import SourceError, fresh_parse
from loopcfg.source.nodes import ArrayNode, Document, Node, ObjectNode, ScalarNode

CONFIG = """\
// loop protection for the fleet
{
  meta: { lastTouchedVersion: "2026.7.1-2" },
  tools: {
    loopDetection: {
      enabled: true, // on everywhere
      historySize: 30,
      warningThreshold: 10,
      /* the hard stop */ criticalThreshold: 20,
      detectors: { pingPong: true, knownPollNoProgress: false },
    },
  },
  agents: {
    list: [
      // the main agent
      { id: "main", tools: { loopDetection: { warningThreshold: 6, criticalThreshold: 13 } } },
      { id: 'ops', tools: { loopDetection: { historySize: 0x20, enabled: false } } },
      {
        id: "batch",
        tools: { loopDetection: { warningThreshold: 8, criticalThreshold: 9 } },
      },
    ],
  },
}
"""
# Values that end on a line where more of the config follows them (`}, other: 1 },`): an edit
# inside such a value that adds lines moves the rest of its last line down with what follows.
PACKED = """\
{
  tools: { loopDetection: {
      historySize: 30,
      warningThreshold: 10 }, other: 1 },
  agents: { list: [ { id: "a",
      tools: { loopDetection: { warningThreshold: 5 } } }, { id: "b" } ] },
}
"""
CONFIGS = [
    CONFIG,
    CONFIG.replace("\n", "\r\n"),
    PACKED,
    '{"tools": {"loopDetection": {"enabled": true}}}',
]
# What typing inserts: digits, quotes, brackets, separators, comment starts, line breaks.
TYPED = st.text(alphabet="0123456789ab\"',:{}[] /*\n\r-.x", max_size=6)


def _same_node(a: Node, b: Node) -> bool:
    if type(a) is not type(b) or a.span != b.span or a.path != b.path:
        return False
    if isinstance(a, ScalarNode):
        assert isinstance(b, ScalarNode)
        both_nan = isinstance(a.value, float) and math.isnan(a.value) and math.isnan(b.value)  # type: ignore[arg-type]
        return a.raw == b.raw and (
            both_nan or (type(a.value) is type(b.value) and a.value == b.value)
        )
    if isinstance(a, ArrayNode):
        assert isinstance(b, ArrayNode)
        return len(a.items) == len(b.items) and all(map(_same_node, a.items, b.items))
    assert isinstance(a, ObjectNode) and isinstance(b, ObjectNode)
    return len(a.entries) == len(b.entries) and all(
        x.key.name == y.key.name and x.key.span == y.key.span and _same_node(x.value, y.value)
        for x, y in zip(a.entries, b.entries, strict=True)
    )


def _same_document(a: Document, b: Document) -> bool:
    return (
        a.text == b.text
        and a.file == b.file
        and a.format == b.format
        and a.comments == b.comments
        and _same_node(a.root, b.root)
    )


def _parsed(parse: object, text: str) -> Document | str:
    try:
        return parse(text, "openclaw.json5", "json5")  # type: ignore[operator, no-any-return]
    except SourceError as error:
        return str(error.diagnostic)


# (where, characters removed, text inserted, mode): mode 0 edits anywhere; mode 1 types in
# the next number (most texts stay valid, so the patch path runs); mode 2 inserts after the
# next separator ("," "{" "["), where new lines, comments and members go; modes 3 and 4
# delete the line at `where` or write it twice (whole members and array items come and go).
Edit = tuple[float, int, str, int]
FRAGMENTS = st.sampled_from(["\n", "\r\n", "\n  x: 1,\n", "\n// note\n", " y: [1,\n2],", ""])
EDITS = st.lists(
    st.tuples(st.floats(0, 1), st.integers(0, 4), st.one_of(TYPED, FRAGMENTS), st.integers(0, 4)),
    min_size=1,
    max_size=12,
)


def _next(text: str, start: int, wanted: str) -> int:
    found = [i for i, char in enumerate(text) if char in wanted and i >= start]
    return found[0] if found else start


def _applied(text: str, edit: Edit) -> str:
    where, removed, inserted, mode = edit
    start = int(where * len(text))
    if mode in (3, 4):  # a whole line deleted, or written twice (cut, paste, duplicate)
        begin = text.rfind("\n", 0, start) + 1
        end = text.find("\n", start) + 1 or len(text)
        line = text[begin:end]
        return text[:begin] + (line * 2 if mode == 4 else "") + text[end:]
    if mode == 1:
        start = _next(text, start, "0123456789")
        removed, inserted = min(removed, 1), "".join(c for c in inserted if c.isdigit())
    elif mode == 2:
        start, removed = _next(text, start, ",{[") + 1, 0
    return text[:start] + inserted + text[start + removed :]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CONFIGS), EDITS)
def test_an_incremental_parse_is_a_fresh_parse(base: str, edits: list[Edit]) -> None:
    cache = ParseCache()
    text = base
    cache.parse(text, "openclaw.json5", "json5")
    for edit in edits:
        text = _applied(text, edit)
        expected = _parsed(fresh_parse, text)
        got = _parsed(cache.parse, text)
        if isinstance(expected, str) or isinstance(got, str):
            assert got == expected
        else:
            assert _same_document(got, expected), (text, edit)


def test_typing_in_a_value_parses_only_that_value() -> None:
    old = fresh_parse(CONFIG, "openclaw.json5", movable=True)
    for before, after in [
        ("historySize: 30", "historySize: 310"),  # a scalar on a line of its own
        ("warningThreshold: 6,", "warningThreshold: 7,"),  # inside a one-line agent entry
        ('id: "batch"', 'id: "batch-2"'),
        ("knownPollNoProgress: false", "knownPollNoProgress: true"),
    ]:
        text = CONFIG.replace(before, after)
        patched = reparse(old, text)
        assert patched is not None, after
        assert _same_document(patched, fresh_parse(text, "openclaw.json5"))
        # The untouched values are the old document's own nodes, not copies.
        assert patched.root.entries[0].value is old.root.entries[0].value  # type: ignore[union-attr]


def _reparsed(base: str, before: str, after: str) -> tuple[Document, Document]:
    """A fresh (movable) parse of `base`, and its re-parse after `before` became `after`,
    checked against a fresh parse of the new text. (A re-parse moves the old document's
    lines to the new text's: one old document per edit.)"""
    old = fresh_parse(base, "openclaw.json5", movable=True)
    text = base.replace(before, after)
    assert text != base
    patched = reparse(old, text)
    assert patched is not None, after
    assert _same_document(patched, fresh_parse(text, "openclaw.json5")), after
    return old, patched


def test_edits_that_add_or_remove_lines_move_what_follows() -> None:
    for before, after in [
        ("historySize: 30,", "historySize: 30,\n      // why 30\n"),  # a line added
        ("      warningThreshold: 10,\n", ""),  # a line removed
        ('{ id: "main",', '{\n        id: "main",\n'),  # an agent's line split
    ]:
        old, patched = _reparsed(CONFIG, before, after)
        # What follows the edit moved without being copied: the last agent is the old one.
        assert _last_agent(patched) is _last_agent(old)


def _last_agent(document: Document) -> Node:
    agents = document.root.entries[-1].value  # type: ignore[union-attr]
    return agents.entries[0].value.items[-1]  # type: ignore[no-any-return]


def test_what_follows_a_value_on_its_last_line_moves_with_the_lines_added() -> None:
    for before, after in [
        ("historySize: 30,", "historySize: 30,\n\n"),  # `other` follows the block's last line
        ('{ id: "a",', '{\n id: "a",'),  # the second agent follows the first one's last line
        ("      historySize: 30,\n", ""),  # a line removed: `other` moves up
    ]:
        _reparsed(PACKED, before, after)


def test_an_edit_between_members_parses_only_what_is_between() -> None:
    detectors = ("tools", "loopDetection", "detectors")
    items = "{ a: [\n  1,\n  2,\n  3,\n  [4],\n  5,\n] }\n"
    for base, before, after, kept in [
        # Enter at the end of an agent's line: between two items of agents.list.
        (CONFIG, "13 } } },\n", "13 } } },\n      \n", ("agents", "list", 2)),
        # A setting typed (or pasted) between two of the global block's.
        (CONFIG, "  historySize: 30,\n", "  historySize: 30,\n      pingPong: 4,\n", detectors),
        # A comment line between two agents.
        (CONFIG, "      { id: 'ops'", "      // ops\n      { id: 'ops'", ("agents", "list", 2)),
        # Lines deleted between two settings.
        (CONFIG, "      historySize: 30,\n      warningThreshold: 10,\n", "", detectors),
        # Two items replaced by two others: those after keep their indices.
        (items, "3,\n  [4]", "7,\n  [8]", ("a", 4)),
    ]:
        old, patched = _reparsed(base, before, after)
        # The member after the edit is the old document's own object, moved by the table.
        assert _at(patched.root, kept) is _at(old.root, kept), after


def test_an_enter_at_the_end_of_a_line_leaves_the_next_member_alone() -> None:
    # The longest common prefix puts the Enter after the next line's indentation, in front of
    # the next member; moved left across the blanks, the change ends where the line did.
    for before, after, kept in [
        ("enabled: true, // on everywhere\n", "enabled: true, // on everywhere\n\n", "historySize"),
        ("      historySize: 30,\n", "      historySize: 30,\n      \n", "warningThreshold"),
    ]:
        old, patched = _reparsed(CONFIG, before, after)
        path = ("tools", "loopDetection", kept)
        assert _at(patched.root, path) is _at(old.root, path), after
        assert patched.duplicate_keys is False  # nothing new: LC107 need not search
    # CRLF: the Enter is "\r\n" and the slide must not stop between "\r" and "\n".
    crlf = CONFIG.replace("\n", "\r\n")
    old, patched = _reparsed(crlf, "historySize: 30,\r\n", "historySize: 30,\r\n      \r\n")
    path = ("tools", "loopDetection", "warningThreshold")
    assert _at(patched.root, path) is _at(old.root, path)


def test_a_key_typed_twice_between_members_is_searched_for() -> None:
    _, patched = _reparsed(
        CONFIG, "      historySize: 30,\n", "      historySize: 30,\n      enabled: false,\n"
    )
    assert patched.duplicate_keys is None  # `enabled` is written above: LC107 looks
    _, patched = _reparsed(
        CONFIG, "      historySize: 30,\n", "      historySize: 30,\n      x: 1,\n"
    )
    assert patched.duplicate_keys is False


def test_an_array_item_deleted_moves_the_others_to_new_indices() -> None:
    # The first item deleted: the text between the list's bracket and the next item is
    # parsed alone, and the items after it are kept, renumbered (the memo finds what it
    # keeps for them by their nodes). `_reparsed` holds the result, paths included, to a
    # fresh parse.
    main = CONFIG.index('      { id: "main"')
    multiline = CONFIG[:main] + '      { id: "main" },\n' + CONFIG[CONFIG.index("\n", main) + 1 :]
    old, patched = _reparsed(multiline, '      { id: "main" },\n', "")
    moved = _at(patched.root, ("agents", "list", 1))
    assert moved.path == ("agents", "list", 1)  # `batch`, an index up
    assert moved is _at(old.root, ("agents", "list", 2))  # the old object, renumbered


def test_an_item_pasted_at_the_top_of_an_array_keeps_the_others() -> None:
    main = CONFIG.index('      { id: "main"')
    line = CONFIG[main : CONFIG.index("\n", main) + 1]
    new = '      { id: "new", tools: { loopDetection: { historySize: 3 } } },\n'
    old, patched = _reparsed(CONFIG, line, new + line)
    moved = _at(patched.root, ("agents", "list", 1))
    assert moved.path == ("agents", "list", 1)
    assert moved is _at(old.root, ("agents", "list", 0))


def test_an_item_pasted_at_the_end_of_an_array_parses_that_line_alone() -> None:
    end = "      },\n    ],\n"
    new = '      { id: "new", tools: { loopDetection: { historySize: 3 } } },\n'
    old, patched = _reparsed(CONFIG, end, "      },\n" + new + "    ],\n")
    assert _at(patched.root, ("agents", "list", 2)) is _at(old.root, ("agents", "list", 2))
    assert _at(patched.root, ("agents", "list", 3)).path == ("agents", "list", 3)
    # The closing bracket on the edit's line (its column moves): the whole array is parsed.
    _, patched = _reparsed(CONFIG, "      },\n    ],\n", '      }, { id: "x" } ],\n')
    assert _at(patched.root, ("agents", "list", 3)).path == ("agents", "list", 3)


def _at(node: Node, path: tuple[str | int, ...]) -> Node:
    for part in path:
        if isinstance(node, ObjectNode):
            found = node.get(str(part))
            assert found is not None
            node = found
        else:
            assert isinstance(node, ArrayNode) and isinstance(part, int)
            node = node.items[part]
    return node


def test_edits_a_value_cannot_take_alone_are_parsed_afresh() -> None:
    old = fresh_parse(CONFIG, "openclaw.json5", movable=True)
    # A line comment typed after a value would run on over the rest of the line.
    assert reparse(old, CONFIG.replace("historySize: 30", "historySize: 30//")) is None
    # Before the root value: nothing but the root holds it.
    assert reparse(old, "\n" + CONFIG) is None


INCLUDED = "{\n  // the batch agent's block\n  warningThreshold: 8,\n  criticalThreshold: 9,\n}\n"
TOP = CONFIG.replace(
    "tools: { loopDetection: { warningThreshold: 8, criticalThreshold: 9 } },",
    'tools: { loopDetection: { $include: "./batch.json5" } },',
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.booleans(), EDITS.map(lambda edits: edits[0])), max_size=10))
def test_an_incremental_check_gives_validates_diagnostics(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[bool, Edit]]
) -> None:
    """Edits to the config and to the file it includes, both open in the editor (unsaved);
    after each, the server's check equals validate's on the same texts written to disk."""
    folder = tmp_path_factory.mktemp("lsp")
    top, included = folder / "openclaw.json5", folder / "batch.json5"
    texts = {top: TOP, included: INCLUDED}
    cache = ParseCache()
    previous = None
    for in_include, edit in [(False, (0.0, 0, "", 0)), *edits]:
        edited = included if in_include else top
        texts[edited] = _applied(texts[edited], edit)
        for path, text in texts.items():
            path.write_text(text, encoding="utf-8", newline="")
        buffers = {str(path): text for path, text in texts.items()}
        checked = analysis.check(str(top), buffers, None, cache, previous)
        expected = check_file(str(top), CheckOptions())
        assert checked.diagnostics == list(expected.diagnostics)
        if previous is None:  # the include is read (later edits may break the config)
            assert os.path.realpath(included) in checked.files
        previous = checked


def test_an_unchanged_included_file_is_not_parsed_again(tmp_path: Path) -> None:
    top = tmp_path / "openclaw.json5"
    top.write_text('{ tools: { loopDetection: { $include: "./block.json5" } } }\n')
    (tmp_path / "block.json5").write_text("{ historySize: 40 }\n")
    cache = ParseCache()
    analysis.check(str(top), {}, None, cache)
    edited = '{ tools: { loopDetection: { $include: "./block.json5" } }, x: 1 }\n'
    analysis.check(str(top), {str(top): edited}, None, cache)
    assert cache.reused == 1  # block.json5, the second time


def test_a_recheck_of_unchanged_files_keeps_the_findings(tmp_path: Path) -> None:
    top = tmp_path / "openclaw.json5"
    top.write_text('{ tools: { loopDetection: { $include: "./block.json5" } } }\n')
    block = tmp_path / "block.json5"
    block.write_text("{ historySize: 0 }\n")
    first = analysis.check(str(top), {}, None, ParseCache())
    again = analysis.check(str(top), {}, None, ParseCache(), first)
    assert again.diagnostics is first.diagnostics  # a save: nothing checked again
    block.write_text("{ historySize: 40 }\n")  # the included file changed on disk
    changed = analysis.check(str(top), {}, None, ParseCache(), again)
    assert "LC002" in [d.code for d in first.diagnostics]
    assert changed.diagnostics == list(check_file(str(top)).diagnostics)
    assert "LC002" not in [d.code for d in changed.diagnostics]


def _held_after_edits(edits: int, agents: int = 240) -> int:
    """Bytes still held by the newest document after typing a digit into `edits` different
    values, each re-parsed incrementally (tracemalloc, never a clock)."""
    import gc
    import tracemalloc

    rows = ",\n".join(
        f'    {{ id: "agent{i}", tools: {{ loopDetection: {{ historySize: 1{i} }} }} }}'
        for i in range(agents)
    )
    text = "{\n  agents: {\n    list: [\n" + rows + "\n    ],\n  },\n}\n"
    cache = ParseCache()
    document = cache.parse(text, "f.json5", "json5")
    tracemalloc.start()
    try:
        for index in range(edits):
            mark = f'"agent{index}", tools: {{ loopDetection: {{ historySize: '
            at = text.index(mark) + len(mark)
            text = text[:at] + "7" + text[at:]
            document = cache.parse(text, "f.json5", "json5")
        assert cache.reparsed >= edits
        del cache
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert document.root is not None
    return held


def test_edited_values_do_not_keep_old_texts_alive() -> None:
    # Each re-parsed value once kept its parse's blanked copy of the whole text: memory grew
    # with every value edited (review, 2026-12-03). Four times the edits: not ~4x the memory.
    few, many = _held_after_edits(40), _held_after_edits(160)
    assert many < 2 * few + 200_000, (few, many)


@pytest.mark.parametrize("seed", [0, 1])
def test_long_edit_sequences_stay_a_fresh_parse(seed: int) -> None:
    # The line table lives as long as the document is re-parsed: hundreds of edits (of those
    # that leave the text parseable, so that each one is re-parsed) in one sequence, where the
    # hypothesis test makes a dozen.
    import random

    pick = random.Random(seed)
    fragments = ["\n", "\r\n", "\n  x: 1,\n", "\n// note\n", " y: [1,\n2],", "", "1", " "]
    fragments += ['\n      { id: "q" },', "\n  /* c */\n", " z: {a: 1},\n"]
    for base in CONFIGS:
        cache = ParseCache()
        text = base
        cache.parse(text, "openclaw.json5", "json5")
        for _ in range(150):
            edit = (pick.random(), pick.randint(0, 3), pick.choice(fragments), pick.randint(0, 2))
            new = _applied(text, edit)
            expected = _parsed(fresh_parse, new)
            if isinstance(expected, str):
                continue
            text = new
            got = _parsed(cache.parse, text)
            assert not isinstance(got, str) and _same_document(got, expected), (edit, text)
        assert cache.reparsed > 50


def test_an_agent_put_between_two_renumbers_those_after_in_place() -> None:
    # A new item between two others: the text between them is parsed alone, and the items
    # after it, whose indices (paths) grow by one, are the old objects renumbered.
    line = '      { id: "new", tools: { loopDetection: { warningThreshold: 7 } } },\n'
    old, patched = _reparsed(CONFIG, "      { id: 'ops'", line + "      { id: 'ops'")
    batch = _at(patched.root, ("agents", "list", 3))
    assert batch is _at(old.root, ("agents", "list", 2))  # the old object, renumbered in place
    assert batch.path == ("agents", "list", 3)
    inner = _at(batch, ("tools", "loopDetection"))
    assert inner.path == ("agents", "list", 3, "tools", "loopDetection")
    # And an item removed between two: those after move up.
    main = CONFIG.index('      { id: "main"')
    three = CONFIG[:main] + '      { id: "first" },\n' + CONFIG[main:]
    old, patched = _reparsed(three, CONFIG[main : CONFIG.index("\n", main) + 1], "")
    assert _at(patched.root, ("agents", "list", 2)).path == ("agents", "list", 2)


def test_a_reparse_that_raised_half_way_is_not_parsed_from_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A re-parse renumbers the old document's items and moves its lines in place before it
    is done; if it raises then (a bug), the cache must not patch that document again: the
    next text is parsed afresh, equal to a fresh parse (it was not, before)."""
    from loopcfg.lsp import incremental

    cache = ParseCache()
    cache.parse(CONFIG, "c.json5", "json5")
    line = '      { id: "new", tools: { loopDetection: { warningThreshold: 7 } } },\n'
    pasted = CONFIG.replace("      { id: 'ops'", line + "      { id: 'ops'", 1)
    assert pasted != CONFIG
    settle = incremental._settle

    def raising_once(*args: object, **kwargs: object) -> object:
        monkeypatch.setattr(incremental, "_settle", settle)
        raise RuntimeError("a planted bug")

    monkeypatch.setattr(incremental, "_settle", raising_once)
    with pytest.raises(RuntimeError):
        cache.parse(pasted, "c.json5", "json5")
    typed = pasted.replace("warningThreshold: 7", "warningThreshold: 8", 1)
    for text in (pasted, typed):
        assert _same_document(cache.parse(text, "c.json5", "json5"), fresh_parse(text, "c.json5"))
