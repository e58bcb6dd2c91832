"""The exported JSON Schema: generated from keys.py, editor-grade, identical to `schema/`."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import json5
import pytest
from click.testing import CliRunner
from jsonschema import Draft7Validator

from loopcfg.cli import cli
from loopcfg.keys import GROUPS, SETTINGS, THRESHOLD_ORDER
from loopcfg.releases import LINES, MAX_SAFE_INTEGER
from loopcfg.schema import block_schema, build_schema, dump_schema, schema_files
from tests.conftest import EXAMPLES, REPO

# One file per distinct key set and roster layout: the release table's `schema_file` column.
EXPORTED: dict[str, Any] = {
    path.removeprefix("schema/"): (lambda line=line: build_schema(line))
    for path, line in schema_files().items()
}
EXPORTED["openclaw-loopdetection-block.schema.json"] = block_schema
_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```", re.M | re.S)


def _update_golden() -> bool:
    return os.environ.get("LOOPCFG_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", sorted(EXPORTED))
def test_exported_schema_matches_the_generator(name: str) -> None:
    target = REPO / "schema" / name
    expected = dump_schema(EXPORTED[name]())
    if _update_golden():
        target.write_text(expected, encoding="utf-8")
    flag = " --block-only" if "block" in name else ""
    line = schema_files().get(f"schema/{name}")
    if line is not None and name != "openclaw-loopdetection.schema.json":
        flag += f" --openclaw {next(li.first for li in LINES if li.id == line)}"
    assert target.read_text(encoding="utf-8") == expected, (
        f"schema/{name} drifted from loopcfg/keys.py; regenerate it with "
        f"`loopcfg schema{flag} --out schema/{name}` (or LOOPCFG_UPDATE_GOLDEN=1)"
    )


def test_cli_prints_the_same_schema(tmp_path: Path) -> None:
    runner = CliRunner()
    printed = runner.invoke(cli, ["schema"])
    assert printed.exit_code == 0
    assert printed.output == (REPO / "schema" / "openclaw-loopdetection.schema.json").read_text()
    block = runner.invoke(cli, ["schema", "--block-only"])
    assert json.loads(block.output) == block_schema()
    out = tmp_path / "s.json"
    assert runner.invoke(cli, ["schema", "--out", str(out)]).exit_code == 0
    assert out.read_text(encoding="utf-8") == printed.output
    failed = runner.invoke(cli, ["schema", "--out", str(tmp_path / "no" / "s.json")])
    assert failed.exit_code == 2
    target = tmp_path / "no" / "s.json"
    assert (
        failed.stderr
        == f"{target}: LC000 error: cannot write the schema: No such file or directory\n"
    )


@pytest.mark.parametrize("make", [build_schema, block_schema])
def test_schema_passes_the_draft7_meta_schema(make: Any) -> None:
    schema = make()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)


def test_block_keys_come_from_the_key_table() -> None:
    block = build_schema()["definitions"]["loopDetection"]
    assert block["additionalProperties"] is False
    written = {name for name in block["properties"] if name != "$include"}
    assert written == {s.name.split(".")[0] for s in SETTINGS}
    for group in GROUPS:
        schema = block["properties"][group]
        assert schema["additionalProperties"] is False
        leaves = {s.leaf for s in SETTINGS if s.group == group}
        assert set(schema["properties"]) - {"$include"} == leaves
    for setting in SETTINGS:
        field = _field(block, setting.name)
        expected = "boolean" if setting.kind == "boolean" else "integer"
        assert field["type"] == expected
        if expected == "integer":
            assert field["minimum"] == 1
            assert field["default"] == setting.default


def _field(block: dict[str, Any], name: str) -> dict[str, Any]:
    schema = block
    for part in name.split("."):
        schema = schema["properties"][part]
    return schema


def _walk_properties(schema: Any) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            found.append((name, sub))
        for value in schema.values():
            found.extend(_walk_properties(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_walk_properties(value))
    return found


def test_every_field_is_documented_for_editors() -> None:
    schema = build_schema()
    for name, field in _walk_properties(schema):
        if "$ref" in field and name == "$include":
            continue
        assert field.get("description"), name
        assert field.get("markdownDescription"), name
        assert "default" in field, name
    block = schema["definitions"]["loopDetection"]
    assert block["examples"] and block["defaultSnippets"]
    for lower, upper in THRESHOLD_ORDER:
        assert upper in _field(block, lower)["description"]
        assert lower in _field(block, upper)["description"]
    assert schema["allowComments"] is True and schema["allowTrailingCommas"] is True


def test_block_examples_are_valid_blocks() -> None:
    validator = Draft7Validator(block_schema())
    for example in block_schema()["examples"]:
        assert list(validator.iter_errors(example)) == []


def test_editor_shapes_are_accepted() -> None:
    validator = Draft7Validator(build_schema())
    accepted = [
        {"$schema": "./schema/openclaw-loopdetection.schema.json", "gateway": {"x": 1}},
        {"tools": {"loopDetection": {"$include": "./ld.json5", "enabled": True}}},
        {"tools": {"loopDetection": {"detectors": {"$include": ["a.json5", "b.json5"]}}}},
        {"agents": {"list": {"$include": "./agents.json5"}}},
        {"agents": {"list": [{"$include": "./main-agent.json5"}, {"id": "x", "other": 1}]}},
        {"tools": {"loopDetection": {"warningThreshold": 1.0}}},
    ]
    for config in accepted:
        assert list(validator.iter_errors(config)) == [], config
    refused = [
        {"tools": {"loopDetection": {"warningThreshold": 1.5}}},
        {"tools": {"loopDetection": {"warningThreshold": 0}}},
        {"tools": {"loopDetection": {"extra": 1}}},
        {"tools": {"loopDetection": {"detectors": {"extra": True}}}},
        {"agents": {"list": [{"name": "no id"}]}},
        {"tools": {"loopDetection": {"$include": 3}}},
    ]
    for config in refused:
        assert list(validator.iter_errors(config)) != [], config


# -- every example config in examples/ and docs/ is valid ------------------------------------


def _example_files() -> list[Path]:
    if not EXAMPLES.is_dir():
        return []
    patterns = ("*.json", "*.json5", "*.yaml", "*.yml")
    return sorted(path for pattern in patterns for path in EXAMPLES.rglob(pattern))


def _doc_blocks() -> list[tuple[str, str, str]]:
    """(where, language, text) of config blocks: all of editors.md, `... config` elsewhere."""
    blocks: list[tuple[str, str, str]] = []
    for doc in sorted((REPO / "docs").glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            info = match.group("info").split()
            if not info or info[0] not in ("json", "json5", "jsonc", "yaml"):
                continue
            if doc.name != "editors.md" and "config" not in info[1:]:
                continue
            line = text.count("\n", 0, match.start()) + 1
            blocks.append((f"{doc.name}:{line}", info[0], match.group("body")))
    return blocks


def _parse(language: str, text: str) -> Any:
    if language == "yaml":
        from ruamel.yaml import YAML

        return YAML(typ="safe").load(io.StringIO(text))
    return json5.loads(text)


def test_editors_doc_has_config_examples() -> None:
    languages = {language for where, language, _ in _doc_blocks() if where.startswith("editors")}
    assert {"json5", "yaml", "jsonc"} <= languages


@pytest.mark.parametrize(
    ("where", "language", "text"), _doc_blocks(), ids=[b[0] for b in _doc_blocks()]
)
def test_doc_configs_are_valid(where: str, language: str, text: str) -> None:
    value = _parse(language, text)
    if language == "jsonc":  # editor settings, not configs: they must at least parse
        assert isinstance(value, dict)
        return
    assert list(Draft7Validator(build_schema()).iter_errors(value)) == [], where


def test_example_configs_are_valid() -> None:
    validator = Draft7Validator(build_schema())
    examples = _example_files()
    assert examples, "examples/ holds the config the README's first command validates"
    for path in examples:
        language = "yaml" if path.suffix in (".yaml", ".yml") else "json5"
        value = _parse(language, path.read_text(encoding="utf-8"))
        assert list(validator.iter_errors(value)) == [], path


# -- import hygiene ---------------------------------------------------------------------------


def test_the_cli_does_not_import_jsonschema_until_it_validates() -> None:
    code = (
        "import sys, loopcfg.cli, loopcfg.config, loopcfg.validate, loopcfg.schema;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'json5')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert result.stdout.strip() == "[]"


def test_every_line_with_the_block_has_its_schema_file() -> None:
    files = schema_files()
    assert sorted(files) == sorted(
        {line.schema_file for line in LINES if line.schema_file is not None}
    )
    for path in files:
        assert (REPO / path).is_file(), path


@pytest.mark.parametrize("line", ["S1", "S1u", "S2"])
def test_integers_are_bounded_by_the_safe_integer_range(line: str) -> None:
    block = build_schema(line)["definitions"]["loopDetection"]
    assert block["properties"]["historySize"]["maximum"] == MAX_SAFE_INTEGER == 2**53 - 1
    validator = Draft7Validator(block_schema(line))
    assert list(validator.iter_errors({"historySize": 2**53 - 1})) == []
    assert len(list(validator.iter_errors({"historySize": 2**53}))) == 1


def test_retired_keys_carry_a_deprecation_message_naming_the_release() -> None:
    block = build_schema("S2")["definitions"]["loopDetection"]["properties"]
    for name in ("historySize", "warningThreshold", "detectors", "postCompactionGuard"):
        assert "Retired in OpenClaw 2026.8.1" in block[name]["deprecationMessage"], name
        assert "2026.8.1" in block[name]["markdownDeprecationMessage"], name
    assert "deprecationMessage" not in block["enabled"]


def test_the_2026_8_schema_has_only_enabled_and_keyed_entries() -> None:
    schema = build_schema("S3")
    assert set(schema["definitions"]["loopDetection"]["properties"]) == {"enabled", "$include"}
    agents = schema["properties"]["agents"]["properties"]
    assert "entries" in agents and "list" not in agents
    validator = Draft7Validator(schema)
    assert list(validator.iter_errors({"agents": {"entries": {"main": {}}}})) == []
    assert list(validator.iter_errors({"agents": {"entries": {"-x": {}}}}))
    assert list(validator.iter_errors({"tools": {"loopDetection": {"historySize": 3}}}))


def test_cli_prints_each_lines_schema() -> None:
    runner = CliRunner()
    for option, path in (
        ("2026.9.6", "schema/openclaw-loopdetection-s3.schema.json"),
        ("2026.4.12", "schema/openclaw-loopdetection-s1.schema.json"),
        ("latest", "schema/openclaw-loopdetection-s3.schema.json"),
    ):
        printed = runner.invoke(cli, ["schema", "--openclaw", option])
        assert printed.exit_code == 0, printed.output
        assert printed.output == (REPO / path).read_text(encoding="utf-8"), option
    unknown = runner.invoke(cli, ["schema", "--openclaw", "2026.12.1"])
    assert unknown.exit_code == 2
    assert "not in loopcfg's release table" in unknown.stderr
