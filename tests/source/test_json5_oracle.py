"""Differential tests: parse_json5 gives the values python-json5 gives, on generated documents.

Where python-json5 deviates from the JSON5 spec we follow the spec; the comparison normalises
exactly those places (listed in `_spec_value`) and the deviations have their own tests below.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import json5
import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopcfg.source.errors import SourceError
from loopcfg.source.json5 import parse_json5
from loopcfg.source.nodes import to_python

DATA = Path(__file__).parent / "data"


def _spec_value(value: object) -> object:
    """python-json5 keeps an escaped surrogate pair as two code units; the spec means one."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    if isinstance(value, list):
        return [_spec_value(item) for item in value]
    if isinstance(value, dict):
        return {_spec_value(key): _spec_value(item) for key, item in value.items()}
    return value


def same(left: object, right: object) -> bool:
    """Equality where NaN equals NaN and int/float types must match too."""
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or left == right
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        assert isinstance(right, list)
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, dict):
        assert isinstance(right, dict)
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    return left == right


def ours(text: str) -> object:
    return to_python(parse_json5(text, "t.json5").root)


# python-json5 accepts a key escape that names a character an identifier may not hold
# (`{\u0031: 1}`); ES5.1 7.6 forbids it and so do we (test_key_escape_must_name_...).
_KEY_ESCAPE_DEVIATION = re.compile(r'^"\\u[0-9A-Fa-f]{4}" is not allowed in an unquoted key$')


def _ours_or_error(text: str) -> object:
    """Our value, or SourceError; the one documented deviation counts as python-json5's answer."""
    try:
        return ours(text)
    except SourceError as error:
        if not _KEY_ESCAPE_DEVIATION.match(error.diagnostic.message):
            return SourceError
    try:
        return _spec_value(json5.loads(text))
    except Exception:  # both reject it
        return SourceError


# -- a generator of JSON5 documents (text, written with every feature) --------------------

_space = st.sampled_from(["", " ", "\n", "\r\n", "\t", "\u2028", "\xa0", "\ufeff", "\u3000"])
_comment = st.sampled_from(["// note\n", "/* block */", "/* multi\nline */", "//\r"])
_gap = st.lists(st.one_of(_space, _comment), max_size=3).map("".join)

_chars = st.characters(
    blacklist_categories=["Cs"], blacklist_characters="\\\"'\n\r"
) | st.sampled_from(["é", "😀", "\u2028", "\x00", "\x7f"])
_escape = st.sampled_from(
    [
        *(r"\n", r"\t", r"\x41", r"\u00e9", r"\uD83D\uDE00", r"\uD800", r"\0", r"\v", r"\q", r"\'"),
        *('\\"', "\\\\", "\\\n", "\\\r\n", "\\\r", "\\\u2028", "\\\u2029", "\\😀"),
    ]
)


@st.composite
def _string(draw: st.DrawFn) -> str:
    quote = draw(st.sampled_from(['"', "'"]))
    parts = draw(st.lists(st.one_of(_chars, _escape, st.just('"' if quote == "'" else "'"))))
    return quote + "".join(parts) + quote


_number = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.integers(0, 2**40).map(lambda n: f"{'-+'[n % 2] if n % 3 else ''}0x{n:X}"),
    st.sampled_from(["+1", ".5", "5.", "-.5e-3", "1e3", "1E+2", "0", "-0", "0.0", "12.50"]),
    st.sampled_from(["Infinity", "-Infinity", "+Infinity", "NaN", "+NaN", "-NaN", "1e400"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
_scalar = st.one_of(_number, _string(), st.sampled_from(["true", "false", "null"]))
_unquoted_key = st.one_of(
    st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,8}", fullmatch=True),
    st.sampled_from(["é", "ünïcödé", "\\u0061b", "a\\u0062", "_\u200c", "$1", "Ⅰ", "null"]),
)
_key = st.one_of(_unquoted_key, _string())


def _container(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def join(items: list[str], opening: str, closing: str, trailing: bool, gap: str) -> str:
        body = ("," + gap).join(items)
        return opening + gap + body + ("," if trailing and items else "") + gap + closing

    arrays = st.builds(
        join, st.lists(children, max_size=4), st.just("["), st.just("]"), st.booleans(), _gap
    )
    members = st.lists(
        st.tuples(_key, _gap, children).map(lambda m: f"{m[0]}{m[1]}:{m[2]}"), max_size=4
    )
    objects = st.builds(join, members, st.just("{"), st.just("}"), st.booleans(), _gap)
    return arrays | objects


documents = st.builds(
    lambda before, value, after: before + value + after,
    _gap,
    st.recursive(_scalar, _container, max_leaves=12),
    _gap,
)


@given(documents)
def test_values_equal_python_json5(text: str) -> None:
    expected = _spec_value(json5.loads(text))
    assert same(ours(text), expected)


@given(st.text(alphabet="{}[]:,'\"\\/*0x1.e+-aN \nI", max_size=12))
def test_rejects_exactly_what_python_json5_rejects(text: str) -> None:
    try:
        expected: object = _spec_value(json5.loads(text))
    except Exception:
        expected = SourceError
    got = _ours_or_error(text)
    if expected is SourceError or got is SourceError:
        assert expected is got, text
    else:
        assert same(got, expected), text


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json5")), ids=lambda p: p.name)
def test_spec_example_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert same(ours(text), _spec_value(json5.loads(text)))


def test_readme_example_values() -> None:
    value = ours((DATA / "readme-example.json5").read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    assert value["lineBreaks"] == "Look, Mom! No \\n's!"
    assert value["hexadecimal"] == 0xDECAF
    assert value["andTrailing"] == 8675309.0
    assert value["andIn"] == ["arrays"]


# -- where python-json5 deviates from the JSON5 spec (we follow the spec) --------------------


def test_escaped_surrogate_pair_is_one_code_point() -> None:
    assert ours(r'"\uD83D\uDE00"') == "😀"
    assert json5.loads(r'"\uD83D\uDE00"') == "\ud83d\ude00"  # the deviation we correct


def test_lone_surrogate_escape_is_kept() -> None:
    assert ours(r'"\uD800x"') == "\ud800x"


def test_key_escape_must_name_an_identifier_character() -> None:
    # ES5.1 7.6: an escape in an IdentifierName must stand for an allowed character.
    assert json5.loads("{\\u0031: 1}") == {"1": 1}  # python-json5 accepts it
    with pytest.raises(SourceError):
        ours("{\\u0031: 1}")
    with pytest.raises(SourceError, match="is not allowed in an unquoted key"):
        ours("{\\u0001b: 1}")  # a control character, reachable by the mutation test


@given(
    documents,
    st.integers(0, 10**6),
    st.sampled_from(["", ",", "}", "]", ":", "'", "\\", "0", "x", "/", "\n"]),
)
def test_mutated_documents_accepted_or_rejected_like_python_json5(
    text: str, where: int, insert: str
) -> None:
    # One character replaced (or removed): most results are invalid, some stay valid.
    index = where % (len(text) + 1)
    mutated = text[:index] + insert + text[index + 1 :]
    try:
        expected: object = _spec_value(json5.loads(mutated))
    except Exception:  # python-json5 raises ValueError and others
        expected = SourceError
    got = _ours_or_error(mutated)
    if expected is SourceError or got is SourceError:
        assert expected is got, mutated
    else:
        assert same(got, expected), mutated
