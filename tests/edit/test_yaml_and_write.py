"""YAML edits through ruamel's round trip, atomic writes, and diffs."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from loopcfg.edit import (
    Delete,
    EditError,
    EntriesToList,
    Insert,
    ListToEntries,
    Rename,
    Replace,
    apply_operations,
    unified_diff,
    write_atomic,
)
from loopcfg.source import parse_text
from loopcfg.source.nodes import to_python

YAML = """\
# top
tools:
  loopDetection:
    enabled: true   # on
    # about history
    historySize: 5
    # about warn
    warningThreshold: 8
agents:
  list:
    - id: main
      default: true
    # second agent
    - id: ops
      tools:
        loopDetection:
          historySize: 3
"""


def _yaml(text: str = YAML) -> object:
    return parse_text(text, "c.yaml", "yaml")


def test_yaml_delete_keeps_the_comments_around_the_member() -> None:
    result = apply_operations(_yaml(), [Delete(("tools", "loopDetection", "historySize"))])  # type: ignore[arg-type]
    for comment in ("# top", "# on", "# about history", "# about warn", "# second agent"):
        assert comment in result
    assert to_python(parse_text(result, "c.yaml", "yaml").root) == {
        "tools": {"loopDetection": {"enabled": True, "warningThreshold": 8}},
        "agents": {
            "list": [
                {"id": "main", "default": True},
                {"id": "ops", "tools": {"loopDetection": {"historySize": 3}}},
            ]
        },
    }
    assert "    - id: main" in result  # the file's own sequence indentation


def test_yaml_rename_replace_insert_and_roster_round_trip() -> None:
    operations = [
        Rename(("tools", "loopDetection", "warningThreshold"), "criticalThreshold"),
        Replace(("tools", "loopDetection", "enabled"), False),
        Insert(("tools", "loopDetection"), "detectors", {"pingPong": False}),
    ]
    result = apply_operations(_yaml(), operations)  # type: ignore[arg-type]
    value = to_python(parse_text(result, "c.yaml", "yaml").root)
    assert value["tools"]["loopDetection"] == {  # type: ignore[index]
        "enabled": False,
        "historySize": 5,
        "criticalThreshold": 8,
        "detectors": {"pingPong": False},
    }
    moved = apply_operations(_yaml(), [ListToEntries(("agents", "list"), ("main", "ops"))])  # type: ignore[arg-type]
    entries = to_python(parse_text(moved, "c.yaml", "yaml").root)["agents"]  # type: ignore[index]
    assert entries == {
        "entries": {
            "main": {"default": True},
            "ops": {"tools": {"loopDetection": {"historySize": 3}}},
        }
    }
    back = apply_operations(
        parse_text(moved, "c.yaml", "yaml"), [EntriesToList(("agents", "entries"))]
    )
    assert (
        to_python(parse_text(back, "c.yaml", "yaml").root)["agents"]
        == to_python(  # type: ignore[index]
            _yaml().root  # type: ignore[attr-defined]
        )["agents"]
    )


def test_yaml_paths_name_the_file_as_written_as_for_json5() -> None:
    # Operations are found in the file before any runs: knobs inside agents.list items go
    # while the list becomes agents.entries, and deleted items do not shift later indexes.
    operations = [
        ListToEntries(("agents", "list"), ("main", "ops")),
        Delete(("agents", "list", 1, "tools")),
    ]
    result = apply_operations(_yaml(), operations)  # type: ignore[arg-type]
    value = to_python(parse_text(result, "c.yaml", "yaml").root)
    assert value["agents"] == {"entries": {"main": {"default": True}, "ops": {}}}  # type: ignore[index]
    assert "# second agent" in result
    text = "a:\n  - 1\n  - 2\n  - 3\n  - 4\n"
    json5_text = "{ a: [1, 2, 3, 4] }"
    deletions = [Delete(("a", 0)), Delete(("a", 2)), Replace(("a", 3), 5)]
    for written, fmt in ((text, "yaml"), (json5_text, "json5")):
        edited = apply_operations(parse_text(written, "c", fmt), deletions)  # type: ignore[arg-type]
        assert to_python(parse_text(edited, "c", fmt).root) == {"a": [2, 5]}, fmt


def test_yaml_end_of_line_comment_stays_on_its_own_line() -> None:
    # As in JSON5 (docs/migrate.md: no comment is ever deleted), for the first member too.
    text = "tools:\n  loopDetection:\n    enabled: true  # on\n    historySize: 50  # raised\n"
    result = apply_operations(_yaml(text), [Delete(("tools", "loopDetection", "historySize"))])  # type: ignore[arg-type]
    assert result == "tools:\n  loopDetection:\n    enabled: true  # on\n    # raised\n"
    first = "a:\n  x: 1  # about x\n  # after x\n  y: 2\n"
    result = apply_operations(_yaml(first), [Delete(("a", "x"))])  # type: ignore[arg-type]
    assert result == "a:\n  # about x\n  # after x\n  y: 2\n"
    # The only member's comment goes below the emptied mapping; with nothing below it in the
    # file (the last key of the top level), the edit is refused rather than losing it.
    only = apply_operations(_yaml("a:\n  x: 1  # about x\nb: 2\n"), [Delete(("a", "x"))])  # type: ignore[arg-type]
    assert only == "a: {}\n  # about x\nb: 2\n"
    with pytest.raises(EditError):
        apply_operations(_yaml("b: 2\na:\n  x: 1  # about x\n"), [Delete(("a", "x"))])  # type: ignore[arg-type]


def test_yaml_with_a_duplicate_key_is_not_edited() -> None:
    with pytest.raises(EditError):
        apply_operations(_yaml("a: 1\na: 2\nb: 3\n"), [Delete(("b",))])  # type: ignore[arg-type]


def test_write_atomic_keeps_the_mode_and_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json5"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o640)
    write_atomic(str(path), "{a: 1}\n")
    assert path.read_text(encoding="utf-8") == "{a: 1}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["openclaw.json5"]  # no temporary left


def test_write_atomic_follows_a_link_inside_the_directory_only(tmp_path: Path) -> None:
    inside = tmp_path / "real.json5"
    inside.write_text("{}", encoding="utf-8")
    link = tmp_path / "openclaw.json5"
    link.symlink_to(inside)
    write_atomic(str(link), "{b: 2}")
    assert link.is_symlink() and inside.read_text(encoding="utf-8") == "{b: 2}"

    outside_dir = tmp_path / "elsewhere"
    outside_dir.mkdir()
    target = outside_dir / "secret.json5"
    target.write_text("{}", encoding="utf-8")
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    escaping = config_dir / "openclaw.json5"
    escaping.symlink_to(target)
    with pytest.raises(EditError, match="outside"):
        write_atomic(str(escaping), "{c: 3}")
    assert target.read_text(encoding="utf-8") == "{}"


def test_unified_diff() -> None:
    assert unified_diff("a\n", "a\n", "x") == ""
    diff = unified_diff("a\nb\n", "a\nc\n", "x.json5")
    assert diff.splitlines()[:2] == ["--- a/x.json5", "+++ b/x.json5"]
    assert "-b" in diff and "+c" in diff
    assert os.linesep  # the diff is text, written as is


def test_crlf_json5_keeps_its_line_terminators() -> None:
    text = "{\r\n  a: 1,\r\n  b: 2,\r\n}\r\n"
    result = apply_operations(parse_text(text, "c.json5", "json5"), [Insert((), "c", 3)])
    assert result == "{\r\n  a: 1,\r\n  b: 2,\r\n  c: 3,\r\n}\r\n"


def _edited(text: str, *operations: object) -> str:
    return apply_operations(parse_text(text, "c.yaml", "yaml"), list(operations))  # type: ignore[arg-type]


def test_yaml_sequence_items_are_found_by_position_not_by_identity() -> None:
    # Equal scalars are often one object in ruamel's data: the second `1` is not the first.
    assert _edited("a:\n  - 1\n  - 1\n", Replace(("a", 1), 5)) == "a:\n  - 1\n  - 5\n"
    assert _edited("a: [true, true, false]\n", Replace(("a", 1), False)) == (
        "a: [true, false, false]\n"
    )
    operations = (Delete(("a", 0)), Delete(("a", 2)), Replace(("a", 3), 5))
    assert _edited("a:\n  - 1\n  - 2\n  - 1\n  - 2\n", *operations) == "a:\n  - 2\n  - 5\n"


def test_yaml_comments_of_neighbouring_deleted_members_all_stay_in_order() -> None:
    text = "a:\n  x: 1  # cx\n  y: 2  # cy\n  z: 3\n"
    expected = "a:\n  # cx\n  # cy\n  z: 3\n"
    assert _edited(text, Delete(("a", "x")), Delete(("a", "y"))) == expected
    assert _edited(text, Delete(("a", "y")), Delete(("a", "x"))) == expected


def test_yaml_comment_of_a_last_member_after_a_block_goes_below_the_block() -> None:
    text = "a:\n  on: true\n  detectors:\n    pingPong: false\n  threshold: 5  # my note\n"
    assert _edited(text, Delete(("a", "threshold"))) == (
        "a:\n  on: true\n  detectors:\n    pingPong: false\n  # my note\n"
    )


def test_yaml_comment_is_kept_as_written() -> None:
    assert _edited("a:\n  x: 1 #c\n  y: 2\n", Delete(("a", "x"))) == "a:\n  #c\n  y: 2\n"


def test_yaml_only_member_and_its_mapping_deleted_together() -> None:
    assert _edited("a:\n  x: 1  # cx\nb: 3\n", Delete(("a", "x")), Delete(("a",))) == "b: 3\n"


def test_yaml_comment_below_a_deleted_block_stays_with_what_follows() -> None:
    # ruamel keeps it on the block's deepest last member; it was deleted with the block, and
    # the comment check counted it inside (a block's span runs on to the next token).
    text = "a:\n  x:  # on x\n    y: 1  # on y\n  # about z\n  z: 2\n"
    assert _edited(text, Delete(("a", "x"))) == "a:\n  # on x\n  # about z\n  z: 2\n"
    items = "s:\n  - a: 1\n  # first\n  - a: 2\n    b: 2\n  # third\n  - a: 3\n"
    assert _edited(items, Delete(("s", 1))) == "s:\n  - a: 1\n  # first\n  # third\n  - a: 3\n"


def test_yaml_comment_of_a_deleted_list_item_or_after_a_list_stays() -> None:
    assert _edited("a:\n  - 1\n  - 1  # second\n  - 1\n", Delete(("a", 1))) == (
        "a:\n  - 1\n    # second\n  - 1\n"
    )
    text = "t:\n  allow:\n    - read\n    - exec\n  loop:  # tuned\n    size: 60\n"
    assert (
        _edited(text, Delete(("t", "loop"))) == "t:\n  allow:\n    - read\n    - exec\n  # tuned\n"
    )


def test_yaml_comment_with_no_place_left_is_refused_not_lost() -> None:
    # The first item's comments would need the parent key's slot: refused, nothing written.
    with pytest.raises(EditError, match="lose the comment '# second'"):
        _edited("s:\n  - a: 1\n    b: 2\n  # second\n  - a: 3\n", Delete(("s", 0)))
