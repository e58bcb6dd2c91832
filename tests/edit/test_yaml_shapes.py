"""YAML shapes that JSON5 does not have, through `fix` and `migrate` as users run them: one
place reached by several paths (a `$include`d piece used twice, an anchored value and its
aliases), keys that `<<` merges bring, non-string keys, CRLF files. Each failed before with a
traceback or a wrong file; now each is edited once, or refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from loopcfg.cli import cli
from loopcfg.config import load_config
from tests.hostile.helpers import no_traceback

ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None}


def _run(folder: Path, *args: str) -> tuple[int, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        result = CliRunner().invoke(cli, list(args), env=ENV)
    no_traceback(result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_bytes(text.encode())
    return path


def _migrated(folder: Path, text: str, version: str) -> str:
    """The text `migrate --write` leaves of a YAML config (it must succeed)."""
    path = _write(folder, "openclaw.yaml", text)
    code, out = _run(folder, "migrate", "openclaw.yaml", "--openclaw", version, "--write")
    assert code == 0, out
    return path.read_text()


def _refused(folder: Path, text: str, *command: str) -> str:
    """The output of a `fix`/`migrate --write` of a YAML config that must refuse (exit 1)
    and leave the file as it was."""
    path = _write(folder, "openclaw.yaml", text)
    code, out = _run(folder, *command, "openclaw.yaml", "--write")
    assert code == 1, out
    assert path.read_text() == text
    return out


def test_an_included_piece_used_twice_is_fixed_once(tmp_path: Path) -> None:
    _write(tmp_path, "loop.yaml", "enabled: true\nwarningTreshold: 5\n")
    _write(
        tmp_path,
        "openclaw.yaml",
        'meta: {lastTouchedVersion: "2026.7.1-2"}\n'
        "tools:\n  loopDetection:\n    $include: ./loop.yaml\n"
        "agents:\n  list:\n    - id: a\n      tools:\n        loopDetection:\n"
        "          $include: ./loop.yaml\n",
    )
    code, out = _run(tmp_path, "fix", "openclaw.yaml", "--write")
    assert code == 0, out
    assert (tmp_path / "loop.yaml").read_text() == "enabled: true\nwarningThreshold: 5\n"
    # One edit in one file: reported once, whatever the two diagnostics found through it.
    assert out.count("LC003 fixed") == 1 and "1 fix applied" in out


ANCHORED = (
    'meta: {lastTouchedVersion: "2026.7.1-2"}\n'
    "tools:\n  loopDetection: &ld\n    enabled: true\n    historySize: 40\n"
    "    warningTreshold: 3\n"
    "agents:\n  list:\n    - id: a\n      tools:\n        loopDetection: *ld\n"
)


def test_an_anchored_block_and_its_alias_are_edited_once(tmp_path: Path) -> None:
    path = _write(tmp_path, "openclaw.yaml", ANCHORED)
    code, out = _run(tmp_path, "fix", "openclaw.yaml", "--write")
    assert code == 0, out
    assert "warningThreshold: 3" in path.read_text() and "*ld" in path.read_text()
    code, out = _run(tmp_path, "migrate", "openclaw.yaml", "--openclaw", "2026.9.6", "--write")
    assert code == 0, out
    migrated = path.read_text()
    assert "historySize" not in migrated and "entries:" in migrated
    assert load_config(path).ok


def test_a_knob_a_merge_brings_is_refused_in_one_line(tmp_path: Path) -> None:
    text = (
        "base: &base {enabled: true, warningThreshold: 8}\n"
        "tools:\n  loopDetection:\n    <<: *base\n"
    )
    out = _refused(tmp_path, text, "migrate", "--openclaw", "2026.9.6")
    assert "warningThreshold comes from a YAML << merge; write it in place" in out


def test_two_merge_keys_ruamel_refuses_are_not_fixed_in_one_line(tmp_path: Path) -> None:
    text = (
        "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n"
        'tools:\n  loopDetection:\n    historySize: "40"\n'
    )
    out = _refused(tmp_path, text, "fix")
    line = next(line for line in out.splitlines() if "not fixed" in line)
    assert 'found duplicate merge key "<<" (line 5)' in line


def test_entries_keys_that_yaml_reads_as_numbers_stay_ids(tmp_path: Path) -> None:
    text = (
        'meta:\n  lastTouchedVersion: "2026.9.6"\n'
        "agents:\n  entries:\n    main: {}\n    123: {}\n    true: {}\n    null: {}\n"
    )
    _migrated(tmp_path, text, "2026.7.1-2")
    loaded = load_config(tmp_path / "openclaw.yaml")
    assert loaded.ok, loaded.diagnostics
    assert loaded.root is not None
    roster = loaded.root.get("agents").get("list")  # type: ignore[union-attr]
    assert [item.get("id").value for item in roster.items] == ["main", "123", "true", "null"]  # type: ignore[union-attr]


def test_crlf_yaml_keeps_one_cr_per_line(tmp_path: Path) -> None:
    text = (
        '\ufeff# bom crlf\r\nmeta:\r\n  lastTouchedVersion: "2026.7.1-2"\r\n'
        'tools:\r\n  loopDetection:\r\n    historySize: "40"  # q\r\n    warningTreshold: 5\r\n'
    )
    path = _write(tmp_path, "openclaw.yaml", text)
    code, out = _run(tmp_path, "fix", "openclaw.yaml", "--write")
    assert code == 0, out
    written = path.read_bytes()
    assert b"\r\r" not in written and written.count(b"\r\n") == text.count("\r\n")
    assert b"# q\r\n" in written


def test_a_comment_on_an_agents_id_line_is_kept(tmp_path: Path) -> None:
    text = (
        'meta:\n  lastTouchedVersion: "2026.7.1-2"\n'
        "agents:\n  list:\n    - id: a # first\n      tools: {loopDetection: {enabled: false}}\n"
        "    - id: b\n"
    )
    migrated = _migrated(tmp_path, text, "2026.9.6")
    assert "# first" in migrated
    assert migrated.index("a:") < migrated.index("# first") < migrated.index("tools:")


def test_two_flat_detector_switches_both_reach_detectors(tmp_path: Path) -> None:
    # Both fixes insert `detectors` into the same block: ruamel overwrote the first with the
    # second, and the second's value was lost once edits were made once per place.
    path = _write(
        tmp_path,
        "a.yaml",
        'meta:\n  lastTouchedVersion: "2026.4.12"\n'
        "tools:\n  loopDetection:\n    enabled: true\n"
        "    pingPong: false\n    genericRepeat: false\n",
    )
    code, out = _run(tmp_path, "fix", "a.yaml", "--write")
    assert code == 0, out
    loaded = load_config(path)
    assert loaded.root is not None
    block = loaded.root.get("tools").get("loopDetection")  # type: ignore[union-attr]
    detectors = block.get("detectors")  # type: ignore[union-attr]
    assert {e.key.name: e.value.value for e in detectors.entries} == {  # type: ignore[union-attr]
        "pingPong": False,
        "genericRepeat": False,
    }


def test_comments_above_an_entrys_first_key_stay_below_its_new_id(tmp_path: Path) -> None:
    text = (
        'meta:\n  lastTouchedVersion: "2026.9.6"\n'
        "agents:\n  entries:\n    main:\n      # the main one\n      default: true\n"
        "    ops: {}\n"
    )
    migrated = _migrated(tmp_path, text, "2026.7.1-2")
    assert migrated.index("id: main") < migrated.index("# the main one")
    assert migrated.index("# the main one") < migrated.index("default: true")


def test_a_key_yaml_reads_as_a_number_is_found_by_its_written_name(tmp_path: Path) -> None:
    # loopcfg names `123:` "123"; ruamel's data holds the number 123. A fix below it looked
    # for "123" and refused ("nothing at ..."); deleting `1:` raised ValueError.
    path = _write(
        tmp_path,
        "openclaw.yaml",
        'meta:\n  lastTouchedVersion: "2026.7.1-2"\n'
        "agents:\n  entries:\n    123:\n      tools:\n        loopDetection:\n"
        "          warningTreshold: 3\n",
    )
    from loopcfg.edit import Delete, Rename, apply_operations
    from loopcfg.source import parse_text

    document = parse_text(path.read_text(), str(path), "yaml")
    block = ("agents", "entries", "123", "tools", "loopDetection")
    renamed = apply_operations(document, [Rename((*block, "warningTreshold"), "warningThreshold")])
    assert "    123:\n" in renamed and "warningThreshold: 3" in renamed
    numbers = parse_text("a:\n  1: one\n  2: two\n", "c.yaml", "yaml")
    assert apply_operations(numbers, [Delete(("a", "1"))]) == "a:\n  2: two\n"


def test_an_entry_emptied_by_migrate_keeps_its_comments_below_it(tmp_path: Path) -> None:
    text = (
        'meta:\n  lastTouchedVersion: "2026.8.1"\n'
        "agents:\n  ownership: explicit\n  entries:\n    ops:\n      # ops tools\n"
        "      tools:\n        loopDetection:\n          historySize: 60\n    b: {}\n"
    )
    migrated = _migrated(tmp_path, text, "2026.9.6")
    assert "    ops: {}\n      # ops tools\n    b: {}\n" in migrated
    header = (
        "# generated\ntools:\n  loopDetection:\n    postCompactionGuard:\n      windowSize: 1\n"
    )
    assert _migrated(tmp_path, header, "2026.9.6").startswith("# generated\n")


def test_entries_sharing_one_anchored_mapping_are_refused(tmp_path: Path) -> None:
    # Each list item needs an id of its own; one mapping took the second id over the first.
    text = (
        'meta:\n  lastTouchedVersion: "2026.9.6"\n'
        "agents:\n  ownership: explicit\n  entries:\n    main: &same\n      tools:\n"
        "        loopDetection:\n          enabled: false\n    ops: *same\n"
    )
    out = _refused(tmp_path, text, "migrate", "--openclaw", "2026.7.1-2")
    assert "agents.entries.ops is an alias of agents.entries.main" in out


def test_a_flat_switch_moved_in_yaml_leaves_the_first_keys_comment_alone(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "openclaw.yaml",
        "tools:\n  loopDetection:\n    # on for everyone\n    enabled: true\n"
        "    # ping\n    pingPong: false  # noisy\n",
    )
    _, out = _run(tmp_path, "fix", "openclaw.yaml", "--write")
    assert "LC012 fixed" in out, out
    fixed = path.read_text()
    assert fixed.index("# on for everyone") < fixed.index("enabled: true")
    assert fixed.index("enabled: true") < fixed.index("# noisy") < fixed.index("detectors:")


def test_an_end_of_line_comment_on_a_list_key_does_not_move_what_follows(tmp_path: Path) -> None:
    # ruamel's indentation guess counted the comment and came out negative: `name: Main` was
    # written at column 0, a key of the top level, and the result still validated.
    text = (
        "meta:\n  lastTouchedVersion: 2026.4.12\nagents:\n  defaults:\n    tools:\n"
        "      exec:\n        timeout: 5\n  list:  # the roster\n  - id: main\n    name: Main\n"
    )
    migrated = _migrated(tmp_path, text, "2026.7.1-2")
    assert migrated == text.replace("2026.4.12", "2026.7.1-2")


def test_a_yaml_edit_that_changes_what_it_does_not_name_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The safety net behind the round trip: every value no operation names reads the same.
    from loopcfg.edit import Delete, EditError, apply_operations
    from loopcfg.edit import yaml as yaml_editor
    from loopcfg.source import parse_text

    real = yaml_editor.apply_yaml

    def moving_a_key(document: object, operations: object) -> str:
        return real(document, operations).replace("    name: Main\n", "name: Main\n")  # type: ignore[arg-type]

    monkeypatch.setattr(yaml_editor, "apply_yaml", moving_a_key)
    text = "tools:\n  a: 1\n  b: 2\nagents:\n  list:\n  - id: main\n    name: Main\n"
    with pytest.raises(EditError, match="would change"):
        apply_operations(parse_text(text, "c.yaml", "yaml"), [Delete(("tools", "a"))])


def test_an_emptied_entry_keeps_the_comment_on_its_key_line(tmp_path: Path) -> None:
    # ruamel wrote the key's comment, then `{}` at column 0: a file that did not parse.
    text = (
        "meta: {lastTouchedVersion: 2026.9.6}\nagents:\n  entries:\n"
        "    main:  # the main agent\n      tools:\n        loopDetection:\n"
        "          historySize: 20\n    ops: {name: Ops}\n  ownership: explicit\n"
    )
    migrated = _migrated(tmp_path, text, "2026.9.6")
    assert "    main: {} # the main agent\n    ops: {name: Ops}\n" in migrated


def test_the_last_agents_comments_stay_below_it(tmp_path: Path) -> None:
    # A single agent with a comment on its id line was refused ("the comments after the last
    # agent would be lost"): in random rosters, one migration in sixteen.
    text = (
        'meta:\n  lastTouchedVersion: "2026.7.1-2"\n'
        "agents:\n  list:\n    - id: main  # the default\n"
    )
    migrated = _migrated(tmp_path, text, "2026.9.6")
    assert migrated.endswith("  entries:\n    main: {}\n      # the default\n")


def test_a_member_added_last_goes_above_the_comments_below_its_block(tmp_path: Path) -> None:
    # ruamel keeps the lines below a block on its last member: a member appended after it
    # went below them (`# exec` above `detectors:`, `ownership` below `# end of file`).
    text = (
        'meta:\n  lastTouchedVersion: "2026.7.1-2"\n'
        "agents:\n  list:\n    - id: a\n    - id: b\n  # end of agents\n# end of file\n"
    )
    migrated = _migrated(tmp_path, text, "2026.9.6")
    assert migrated.endswith("  ownership: explicit\n  # end of agents\n# end of file\n")
    path = _write(
        tmp_path,
        "r.yaml",
        'meta:\n  lastTouchedVersion: "2026.7.1-2"\n'
        "tools:\n  loopDetection:\n    enabled: true\n    genericRepeat: false\n"
        "  # exec\n  exec:\n    timeout: 3\n",
    )
    code, out = _run(tmp_path, "fix", "r.yaml", "--write")
    assert code == 0, out
    assert path.read_text().endswith(
        "      genericRepeat: false\n  # exec\n  exec:\n    timeout: 3\n"
    )


def test_an_entry_keys_end_of_line_comment_ends_its_new_id_line(tmp_path: Path) -> None:
    # With a comment above the entry too, the result was `id: main name: ...`: not YAML.
    text = (
        'meta:\n  lastTouchedVersion: "2026.9.6"\nagents:\n  entries:\n'
        "    # the main agent\n    main:  # primary\n      # its name\n      name: Agent0\n"
    )
    migrated = _migrated(tmp_path, text, "2026.4.12")
    assert "- id: main # primary\n" in migrated
    assert migrated.index("# its name") < migrated.index("name: Agent0")
