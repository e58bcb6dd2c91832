"""load_document: format choice, stdin, and every bad-input case of 01 §1.6."""

from __future__ import annotations

import io
import math
import os
import sys
from pathlib import Path

import pytest

from loopcfg.diagnostics import Diagnostic
from loopcfg.source import format_for, load_document, parse_text
from loopcfg.source.errors import SourceError
from loopcfg.source.nodes import ObjectNode, ScalarNode, Span, to_python


def _refusal(path: str, **options: object) -> Diagnostic:
    with pytest.raises(SourceError) as caught:
        load_document(path, **options)  # type: ignore[arg-type]
    return caught.value.diagnostic


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    target = tmp_path / name
    target.write_bytes(data)
    return str(target)


def test_json5_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "openclaw.json5", b"{tools: {loopDetection: {enabled: true,},},}")
    document = load_document(path)
    assert document.format == "json5" and document.file == path
    assert to_python(document.root) == {"tools": {"loopDetection": {"enabled": True}}}


def test_json_extension_is_parsed_as_json5(tmp_path: Path) -> None:
    document = load_document(_write(tmp_path, "openclaw.json", b"// c\n{a: 1,}"))
    assert document.format == "json" and to_python(document.root) == {"a": 1}


def test_yaml_by_extension_and_forced_format(tmp_path: Path) -> None:
    assert load_document(_write(tmp_path, "c.yml", b"a: 1\n")).format == "yaml"
    forced = load_document(_write(tmp_path, "c.txt", b"a: 1\n"), input_format="yaml")
    assert to_python(forced.root) == {"a": 1}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.yaml", "yaml"),
        ("A.YML", "yaml"),
        ("a.json", "json"),
        ("a.json5", "json5"),
        ("a", "json5"),
    ],
)
def test_format_for(name: str, expected: str) -> None:
    assert format_for(name) == expected


def test_stdin_with_a_name() -> None:
    stream = io.BytesIO(b"a: [1, 2]\n")
    document = load_document("-", stdin_filename="conf/openclaw.yaml", stdin=stream)
    assert document.file == "conf/openclaw.yaml" and document.format == "yaml"
    assert to_python(document.root) == {"a": [1, 2]}


def test_stdin_default_name_in_messages() -> None:
    diagnostic = _refusal("-", stdin=io.BytesIO(b"{a: }"))
    assert diagnostic.file == "<stdin>" and diagnostic.span == Span("<stdin>", 1, 5, 1, 6)


def test_stdin_from_sys_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper = io.TextIOWrapper(io.BytesIO(b"{a: 2}"), "utf-8")
    monkeypatch.setattr(sys, "stdin", wrapper)
    assert to_python(load_document("-").root) == {"a": 2}


def test_bom_is_accepted(tmp_path: Path) -> None:
    document = load_document(_write(tmp_path, "c.json5", b"\xef\xbb\xbf{a: 1}"))
    assert isinstance(document.root, ObjectNode)
    assert document.root.span == Span(document.file, 1, 1, 1, 7)
    yaml = load_document(_write(tmp_path, "c.yaml", b"\xef\xbb\xbfa: 1\n"))
    assert isinstance(yaml.root, ObjectNode) and yaml.root.entries[0].key.span is not None
    assert yaml.root.entries[0].key.span.start() == (1, 1)


def test_root_that_is_not_an_object_is_left_to_the_config_loader(tmp_path: Path) -> None:
    assert to_python(load_document(_write(tmp_path, "c.json5", b"[1]")).root) == [1]


# -- LC000: cannot be read ----------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = str(tmp_path / "missing.json5")
    diagnostic = _refusal(path)
    assert (diagnostic.code, diagnostic.message, diagnostic.file) == ("LC000", "no such file", path)
    assert diagnostic.span is None


def test_directory(tmp_path: Path) -> None:
    diagnostic = _refusal(str(tmp_path))
    assert (diagnostic.code, diagnostic.message) == ("LC000", "is a directory, not a config file")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads everything")
def test_unreadable(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.json5", b"{}")
    os.chmod(path, 0)
    try:
        diagnostic = _refusal(path)
    finally:
        os.chmod(path, 0o644)
    assert diagnostic.code == "LC000" and "permission denied" in diagnostic.message


def test_over_the_size_limit(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.json5", b"{a: '" + b"x" * 100 + b"'}")
    diagnostic = _refusal(path, max_bytes=64)
    assert diagnostic.code == "LC000"
    assert diagnostic.message == "the file is larger than the 64 bytes limit (107 bytes)"
    big = _write(tmp_path, "big.json5", b" " * (2 * 1024 * 1024 + 1))
    assert "2 MiB limit" in _refusal(big).message


def test_stdin_over_the_size_limit() -> None:
    diagnostic = _refusal("-", stdin=io.BytesIO(b"{}" * 100), max_bytes=10)
    assert diagnostic.code == "LC000" and diagnostic.file == "<stdin>"


# -- LC001: not parseable text --------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path: Path, data: bytes) -> None:
    diagnostic = _refusal(_write(tmp_path, "c.json5", data))
    assert (diagnostic.code, diagnostic.message) == ("LC001", "the file is empty")


def test_not_utf8_points_at_the_first_bad_byte(tmp_path: Path) -> None:
    diagnostic = _refusal(_write(tmp_path, "c.json5", b"{\n  a: 'caf\xe9'\n}"))
    assert diagnostic.code == "LC001"
    assert diagnostic.message == "not UTF-8: invalid byte 0xe9"
    assert diagnostic.span is not None and diagnostic.span.start() == (2, 10)


def test_utf16_is_named(tmp_path: Path) -> None:
    diagnostic = _refusal(_write(tmp_path, "c.json5", "{}".encode("utf-16")))
    assert diagnostic.code == "LC001" and "UTF-16" in diagnostic.message


def test_binary_data(tmp_path: Path) -> None:
    diagnostic = _refusal(_write(tmp_path, "c.json5", b"{a: 1}\n\x00\x01\x02"))
    assert diagnostic.code == "LC001"
    assert diagnostic.message == "binary data: the file contains a NUL byte"
    assert diagnostic.span is not None and diagnostic.span.start() == (2, 1)


@pytest.mark.parametrize("format", ["json5", "yaml"])
def test_nesting_too_deep(format: str) -> None:
    text = "[" * 250 + "]" * 250
    with pytest.raises(SourceError) as caught:
        parse_text(text, "f", format)
    assert caught.value.diagnostic.code == "LC001"
    assert caught.value.diagnostic.message == "nesting deeper than 200 levels"


def test_nesting_of_exactly_200_levels_is_fine() -> None:
    assert parse_text("[" * 200 + "]" * 200, "f").root is not None


def test_syntax_error_in_a_file(tmp_path: Path) -> None:
    diagnostic = _refusal(_write(tmp_path, "c.json5", b"{a: 1 b: 2}"))
    assert diagnostic.code == "LC001" and diagnostic.span is not None
    assert diagnostic.span.start() == (1, 6)


def test_unknown_input_format_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown input format"):
        parse_text("{}", "f", "toml")


@pytest.mark.parametrize("text", ["[" * 1000 + "]" * 1000, "- " * 5000 + "1"])
def test_yaml_nested_deeper_than_the_parser_can_recurse(text: str) -> None:
    # ruamel's composer runs out of Python stack long before our depth check sees the tree.
    with pytest.raises(SourceError) as caught:
        parse_text(text, "f", "yaml")
    assert caught.value.diagnostic.code == "LC001"
    assert caught.value.diagnostic.message == "nesting deeper than 200 levels"


@pytest.mark.parametrize(
    ("text", "format"),
    [
        ("{a: " + "9" * 5000 + "}", "json5"),
        ("{a: -" + "9" * 5000 + "}", "json5"),
        ("{a: 0x" + "f" * 4000 + "}", "json5"),
        ("a: " + "9" * 5000, "yaml"),
        ("a: -" + "9" * 5000, "yaml"),
        ("a: 0x" + "f" * 4000, "yaml"),
    ],
)
def test_integers_beyond_a_double_are_infinity_as_in_javascript(text: str, format: str) -> None:
    # int() of more than 4300 digits raised ValueError, and str() of a huge hex int did too
    # (in the lints); OpenClaw (JavaScript) reads such a number as Infinity.
    root = parse_text(text, "f", format).root
    assert isinstance(root, ObjectNode)
    value = root.entries[0].value
    assert isinstance(value, ScalarNode) and value.value == (-math.inf if "-" in text else math.inf)


@pytest.mark.parametrize("format", ["json5", "yaml"])
def test_integers_within_a_double_stay_exact(format: str) -> None:
    big = 2**1024 - 1
    root = parse_text(f"{{a: {big}, b: 0x{big:x}}}", "f", format).root
    assert isinstance(root, ObjectNode)
    assert [entry.value.value for entry in root.entries] == [big, big]  # type: ignore[attr-defined]
