"""canonical_json and digest against JavaScript (04 §4.3): vectors, Python-only values, and the
fast path against the exact slow path.

The JS_VECTORS outputs were produced once by running OpenClaw's stable stringify (sorted
`Object.keys`, `JSON.stringify` for leaves) under Node 20 on the same values; the tests do not
need Node.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopcfg import hashing
from loopcfg.hashing import (
    UNDEFINED,
    _strip_iteratively,
    args_hash,
    canonical_json,
    canonical_slow,
    digest,
    error_message,
    outcome_hash,
    strip_volatile,
    unknown_tool_name,
)

JS_VECTORS: list[tuple[Any, str]] = [
    ({"b": 2, "a": [1, "x", None, True]}, '{"a":[1,"x",null,true],"b":2}'),
    ({"n": 1.0, "m": 1e21, "s": 1e-07, "z": -0.0}, '{"m":1e+21,"n":1,"s":1e-7,"z":0}'),
    (
        [
            1e21,
            1e-07,
            5e-324,
            0.30000000000000004,
            1e20,
            1.23e-18,
            1.5,
            -2.5e-06,
            1e-06,
            1.234e-06,
            1.7976931348623157e308,
            2.2250738585072014e-308,
            100.0,
            1e100,
            1.2345678901234567e19,
            -1e-07,
            0.5,
            4.35,
            0.3333333333333333,
        ],
        "[1e+21,1e-7,5e-324,0.30000000000000004,100000000000000000000,1.23e-18,1.5,-0.0000025,0.000001,0.000001234,1.7976931348623157e+308,2.2250738585072014e-308,100,1e+100,12345678901234567000,-1e-7,0.5,4.35,0.3333333333333333]",
    ),
    (
        [
            9007199254740992,
            9007199254740993,
            1152921504606846976,
            -1152921504606846976,
            18446744073709551616,
            1000000000000000000000,
            10000000000000000000000,
            1180591620717411315769,
            9007199254740993,
            123456789012345678901234567890,
        ],
        "[9007199254740992,9007199254740992,1152921504606847000,-1152921504606847000,18446744073709552000,1e+21,1e+22,1.1805916207174113e+21,9007199254740992,1.2345678901234568e+29]",
    ),
    (
        {"😀": 1, "\ue000": 2, "\uffff": 3, "z": 4, "é": 5, "": 6, "A": 7, "a": 8, "𐀀": 9},
        '{"":6,"A":7,"a":8,"z":4,"é":5,"𐀀":9,"😀":1,"\ue000":2,"\uffff":3}',
    ),
    ({"😀a": 1, "😀": 2, "\ud7ff": 3}, '{"\ud7ff":3,"😀":2,"😀a":1}'),
    (
        ['\x00\x01\x07\x08\t\n\x0b\x0c\r\x0e\x1f\x7f"\\/', "\u2028\u2029", "é€😀", ""],
        '["\\u0000\\u0001\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u001f\x7f\\"\\\\/","\u2028\u2029","é€😀",""]',
    ),
    (
        {"a": {}, "b": [], "c": [{}], "d": [[]], "e": {"f": {"g": {}}}},
        '{"a":{},"b":[],"c":[{}],"d":[[]],"e":{"f":{"g":{}}}}',
    ),
    (
        {'key with "quotes"': "v", "tab\tkey": "\n", "ключ": "значение", "日本": "語"},
        '{"key with \\"quotes\\"":"v","tab\\tkey":"\\n","ключ":"значение","日本":"語"}',
    ),
    ([True, False, None, 0, -1, 1.25, "0", ""], '[true,false,null,0,-1,1.25,"0",""]'),
    (
        {"1": "a", "10": "b", "2": "c", "-1": "d", "b": "e", "B": "f"},
        '{"-1":"d","1":"a","10":"b","2":"c","B":"f","b":"e"}',
    ),
]


@pytest.mark.parametrize(("value", "expected"), JS_VECTORS)
def test_same_text_as_javascript(value: Any, expected: str) -> None:
    assert canonical_json(value) == expected
    assert canonical_slow(value) == expected
    assert digest(value) == hashlib.sha256(expected.encode("utf-8")).hexdigest()


def _cycle() -> Any:
    inner: dict[str, Any] = {"a": 1}
    inner["self"] = inner
    return {"x": [inner, inner]}  # the same object twice side by side is not a cycle


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (float("nan"), '"NaN"'),
        ({"p": float("inf"), "n": float("-inf")}, '{"n":"-Infinity","p":"Infinity"}'),
        (10**400, '"Infinity"'),
        (-(10**400), '"-Infinity"'),
        # Lone surrogates as Node's well-formed JSON.stringify writes them (04 §4.3).
        ("\ud800", '"\\ud800"'),
        ("a\udc00b", '"a\\udc00b"'),
        ({"\udfff": "\ud800"}, '{"\\udfff":"\\ud800"}'),
        ({"\uffff": 2, "\U0001f600": 3, "\ud800": 1}, '{"\\ud800":1,"\U0001f600":3,"\uffff":2}'),
        ("\udbff\udfff\udc00", '"\U0010ffff\\udc00"'),  # a pair, then a lone low half
        ("\ud83d\ude00", '"\U0001f600"'),  # a surrogate pair is one character, as in JS
        ((1, (2, "x")), '[1,[2,"x"]]'),
        (b"", '{"data":"","type":"Uint8Array"}'),
        (bytearray(b"\x00\xff"), '{"data":"AP8=","type":"Uint8Array"}'),
        ({"status": UNDEFINED}, '{"status":undefined}'),
        ({2: "a", None: "b", True: "c"}, '{"2":"a","null":"b","true":"c"}'),
        ({"d": {1.5: 0}}, '{"d":{"1.5":0}}'),
        (_cycle(), '{"x":[{"a":1,"self":"[Circular]"},{"a":1,"self":"[Circular]"}]}'),
        (object.__new__(type("Thing", (), {"__str__": lambda self: "thing!"})), '"thing!"'),
    ],
)
def test_python_only_values(value: Any, expected: str) -> None:
    assert canonical_json(value) == expected
    assert digest(value) == hashlib.sha256(expected.encode("utf-8")).hexdigest()


def test_self_containing_list_is_circular() -> None:
    value: list[Any] = [1]
    value.append(value)
    assert canonical_json(value) == '[1,"[Circular]"]'


def test_exception_as_object() -> None:
    text = canonical_json({"e": ValueError("boom")})
    assert text == '{"e":{"message":"boom","name":"ValueError","stack":"ValueError: boom"}}'


@pytest.mark.parametrize(
    ("error", "message"),
    [("Tool x not found", "Tool x not found"), (ValueError(""), "ValueError"),
     (KeyError("k"), "'k'"), (3.0, "3"), (1e21, "1e+21"), (True, "true"), (False, "false"),
     ({"b": 1, "a": [2]}, '{"a":[2],"b":1}'), (None, "null")],
)  # fmt: skip
def test_error_messages_in_javascript_notation(error: Any, message: str) -> None:
    assert error_message(error) == message


# 04 §4.4 rule 1's patterns are JavaScript literals with /i and no /u: no non-ASCII character
# folds to an ASCII letter (U+017F long s, U+212A Kelvin sign), and \s is JavaScript's (with
# U+FEFF, without U+001C-U+001F and U+0085).
@pytest.mark.parametrize(
    ("message", "unknown"),
    [("Unknown tool: \u017fcript", None), ("unknown tool: s\u017f", "s"),
     ("un\u212anown tool: nope", None), ("UNKNOWN TOOL: 'Nope'", "nope"),
     ("Unknown tool:\ufeffnope", "nope"), ("Unknown tool:\x1cnope", None),
     ("tool\u00a0nope not found", "nope"), ("tool nope\x85not found", None),
     ('Tool "x.y" is not available', "x.y")],
)  # fmt: skip
def test_unknown_tool_patterns_match_as_javascript(message: str, unknown: str | None) -> None:
    assert unknown_tool_name(message) == unknown


def _patterns_alone(message: str) -> str | None:
    """unknown_tool_name without its word pre-check: the two patterns, as 04 §4.4 words them."""
    for pattern in hashing._UNKNOWN_TOOL:
        match = pattern.search(hashing.js_trim(message))
        if match:
            return match.group(1).lower()
    return None


_PHRASES = ["unknown tool", "tool", "not found", "is not available", "x.y", "a_b", "nope", "is"]
_SEPARATORS = [":", " ", "\u00a0", "\ufeff", "\t", "\n", "'", '"', "\u212a", "\u017f", "\u0130"]


def _any_case(word: str) -> st.SearchStrategy[str]:
    flags = st.lists(st.booleans(), min_size=len(word), max_size=len(word))
    return flags.map(
        lambda upper: "".join(c.upper() if u else c for c, u in zip(word, upper, strict=True))
    )


_WORDISH = (
    st.sampled_from(_PHRASES).flatmap(_any_case)
    | st.sampled_from(_SEPARATORS)
    | st.text(max_size=3)
)
# The shape of the second pattern (tool, a name, then the phrase), so that it matches often.
_PHRASED = st.tuples(
    st.sampled_from(["unknown tool", "tool"]).flatmap(_any_case),
    st.sampled_from(_SEPARATORS),
    st.sampled_from(["x.y", "a_b", "nope", ""]),
    st.sampled_from(_SEPARATORS),
    st.sampled_from(["not found", "is not available", "found"]).flatmap(_any_case),
).map("".join)
_MESSAGES = st.tuples(
    st.lists(_WORDISH, max_size=6).map("".join),
    _PHRASED,
    st.lists(_WORDISH, max_size=6).map("".join),
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_MESSAGES)
def test_the_word_pre_check_never_hides_a_pattern_match(message: str) -> None:
    """The pre-check (a message without any of the patterns' words is not searched) answers
    what the patterns alone answer, on messages made of their words in any case."""
    assert unknown_tool_name(message) == _patterns_alone(message)


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def test_stripping_is_javascript_trim() -> None:
    """Text, exec output and plan steps are trimmed as String.prototype.trim does: U+FEFF (a
    file read with its byte order mark) goes, U+001C-U+001F and U+0085 stay."""
    assert outcome_hash("read", {}, _text("\ufeffok\u3000")) == outcome_hash(
        "read", {}, _text("ok")
    )
    assert outcome_hash("read", {}, _text("ok\x1c")) != outcome_hash("read", {}, _text("ok"))
    assert outcome_hash("read", {}, _text("\x85ok")) != outcome_hash("read", {}, _text("ok"))
    done = {"details": {"status": "completed", "exitCode": 0, "aggregated": "\ufeffok\n"}}
    plain = {"details": {"status": "completed", "exitCode": 0, "aggregated": "ok"}}
    assert outcome_hash("exec", {}, done) == outcome_hash("exec", {}, plain)


def test_deep_nesting_takes_the_slow_path() -> None:
    value: Any = "leaf"
    for _ in range(300):
        value = [value]
    assert canonical_json(value) == "[" * 300 + '"leaf"' + "]" * 300


@pytest.mark.parametrize("depth", [450, 3000])
def test_deep_nesting_renders_on_both_paths(depth: int) -> None:
    """The slow path keeps its own stack: at 450 levels the fast path rendered and the slow one
    raised RecursionError (not the same function any more), and a float that deep (slow path
    only) made check() and record_outcome() raise."""
    text: Any = "leaf"
    number: Any = 1.5
    mapping: Any = None
    for _ in range(depth):
        text, number, mapping = [text], (number,), {"k": mapping, "b": 0.5}
    assert canonical_slow(text) == canonical_json(text) == "[" * depth + '"leaf"' + "]" * depth
    assert canonical_json(number) == "[" * depth + "1.5" + "]" * depth
    assert canonical_json(mapping) == '{"b":0.5,"k":' * depth + "null" + "}" * depth
    assert digest(number) == hashlib.sha256(canonical_json(number).encode()).hexdigest()


def test_nesting_the_fast_check_accepts_but_the_encoder_refuses() -> None:
    """Near the recursion limit _fast_size got through and the C encoder, which counts its own
    recursion a few frames deeper, raised RecursionError out of digest and args_hash."""
    value: Any = "x"
    room = sys.getrecursionlimit() - len(inspect.stack(0))  # levels left below this frame
    for depth in range(1, room + 5):
        value = {"k": value}
        if depth > room - 30:
            text = '{"k":' * depth + '"x"' + "}" * depth
            assert digest(value) == hashlib.sha256(text.encode()).hexdigest(), depth


# Every character, surrogates included; keys from all planes so UTF-16 order matters.
any_text = st.text(st.characters(exclude_categories=()), max_size=6)
keys = st.one_of(any_text, st.sampled_from(["a", "\ue000", "\U0001f600", "\uffff", "\ud800"]))
numbers = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.1 + 0.2, 1e21, 1e-7, 5e-324, -0.0, 2.0**53, 2**53 + 1]),
)


class Text(str):
    pass


class Number(int):
    pass


class Table(dict):  # type: ignore[type-arg]
    pass


# Values the fast path must refuse (or render identically): subclasses of str, int and dict,
# and keys that are not strings (JavaScript would have made them strings).
odd_leaves = st.one_of(
    any_text.map(Text),
    st.integers(-(2**60), 2**60).map(Number),
    st.sampled_from([True, False, 0, 1]),
)
odd_keys = st.one_of(keys, st.integers(-5, 5), st.booleans(), st.none(), st.floats(), odd_leaves)
values = st.recursive(
    st.none() | st.booleans() | numbers | any_text | odd_leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(keys, inner, max_size=4)
        | st.dictionaries(odd_keys, inner, max_size=3)
        | st.dictionaries(keys, inner, max_size=3).map(Table)
        | st.tuples(inner, inner)
    ),
    max_leaves=24,
)


@settings(max_examples=300)
@given(values)
def test_fast_path_equals_slow_path(value: Any) -> None:
    slow = canonical_slow(value)
    assert canonical_json(value) == slow
    assert digest(value) == hashlib.sha256(slow.encode("utf-8")).hexdigest()


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_round_trip_like_javascript(number: float) -> None:
    text = canonical_json(number)
    assert float(text) == number  # shortest round-trip digits, as Number::toString
    if number == int(number) and abs(number) < 1e21:  # integers: plain digits, no ".0"
        assert text.lstrip("-").isdigit()
    if 1e-6 <= abs(number) < 1e21:  # no exponent in this range (Number::toString)
        assert "e" not in text


message_objects = st.fixed_dictionaries(
    {"id": st.sampled_from(["m1", 7]), "text": st.sampled_from(["hi", None])},
    optional={"direction": st.just("out"), "senderId": st.just(1), "conversation": st.just({})},
)
details = st.recursive(
    st.none() | st.integers() | st.text(max_size=3) | message_objects,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(
            st.sampled_from(["id", "ts", "messageId", "receipt", "ok", "text", "message"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=16,
)


@given(details.filter(lambda value: isinstance(value, list | tuple | dict)))
def test_shallow_strip_equals_the_iterative_walk(value: Any) -> None:
    assert strip_volatile(value) == _strip_iteratively(value)


def test_message_send_details_of_any_depth_and_with_cycles() -> None:
    """Rule 6 strips ids at every depth without recursing: 5000 levels and a self-containing
    details object used to raise RecursionError out of record_outcome."""
    deep: Any = {"ts": 1, "ok": True}
    for _ in range(5000):
        deep = {"messageId": "m", "m": [deep]}
    text = '{"m":[' * 5000 + '{"ok":true}' + "]}" * 5000
    assert outcome_hash("sessions_send", {}, {"details": deep})[0] == digest_text(text)
    looped: dict[str, Any] = {"ok": True, "receipt": "r"}
    looped["self"] = looped
    expected = digest_text('{"ok":true,"self":"[Circular]"}')
    assert outcome_hash("sessions_send", {}, {"details": looped})[0] == expected


def digest_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@settings(max_examples=300)
@given(values)
def test_every_fast_serializer_gives_the_same_text(value: Any) -> None:
    """orjson, the stdlib C encoder built once, and JSONEncoder.encode (where json has no C
    accelerator) render every value the fast path admits identically."""
    from loopcfg import hashing

    expected = canonical_json(value)
    originals = hashing._ORJSON_DUMPS, hashing._C_ENCODE
    try:
        hashing._ORJSON_DUMPS = None
        assert canonical_json(value) == expected
        hashing._C_ENCODE = None
        assert canonical_json(value) == expected
    finally:
        hashing._ORJSON_DUMPS, hashing._C_ENCODE = originals


def test_orjson_is_the_fast_serializer() -> None:
    from loopcfg import hashing

    assert hashing._ORJSON_DUMPS is not None  # a project dependency: the fast path uses it
    assert hashing._fast_utf8({"b": "é\n", "a": [1, None]}) == '{"a":[1,null],"b":"é\\n"}'.encode()


@pytest.mark.parametrize(("value", "expected"), JS_VECTORS)
def test_the_oracle_canonical_json_matches_javascript_too(value: Any, expected: str) -> None:
    from tests.engine import oracle_hashing

    assert oracle_hashing.canonical(value) == expected


@settings(max_examples=300)
@given(values)
def test_the_oracle_and_the_engine_render_alike(value: Any) -> None:
    """tests/engine/oracle_hashing.py is 04 §4.3 written again, independently: the differential
    tests of the engine then compare hashes too."""
    from tests.engine import oracle_hashing

    assert oracle_hashing.canonical(value) == canonical_json(value)


def test_hashing_a_large_result_costs_little_memory() -> None:
    """orjson reserves about ten times a string's length up front; past _ORJSON_MAX_CHARS the
    stdlib encoder renders instead (its peak: the text twice), with the same digest."""
    import tracemalloc

    from loopcfg import hashing

    text = "x\\n\u00e9" * 70_000
    shape = {"details": {"status": "ok"}, "text": text}
    expected = hashlib.sha256(canonical_slow(shape).encode("utf-8")).hexdigest()
    digest(shape)  # warm: first-use allocations are not the point
    tracemalloc.start()
    try:
        assert digest(shape) == expected
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(text) > hashing._ORJSON_MAX_CHARS and peak < 4 * len(text.encode())


def _at_depth(levels: int, call: Any) -> Any:
    return call() if levels <= 0 else _at_depth(levels - 1, call)


def test_message_send_details_hash_with_the_stack_nearly_full() -> None:
    """The shallow (recursive) strip of rule 6 falls back to the iterative walk when the host's
    stack is nearly full, instead of raising RecursionError out of record_outcome."""
    details: Any = {"ok": True}
    for _ in range(40):
        details = {"messageId": "m", "inner": details}
    text = '{"inner":' * 40 + '{"ok":true}' + "}" * 40
    room = sys.getrecursionlimit() - len(inspect.stack(0))
    for spare in (70, 55, 45):
        got = _at_depth(
            room - spare, lambda: outcome_hash("sessions_send", {}, {"details": details})
        )
        assert got[0] == digest_text(text), spare


# Only what the fast path admits (exact dicts with BMP keys, lists, strings without surrogates,
# safe integers, booleans, None), with many keys, so orjson's sorting and escaping are exercised.
bmp_text = st.text(st.characters(exclude_categories=("Cs",), max_codepoint=0xFFFF), max_size=8)
admitted = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | bmp_text
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=8),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(bmp_text, inner, max_size=6),
    max_leaves=30,
)  # fmt: skip


@settings(max_examples=400)
@given(admitted)
def test_orjson_stdlib_and_the_slow_path_agree_on_what_the_fast_path_admits(value: Any) -> None:
    from loopcfg import hashing

    assert hashing._fast_size(value) >= 0
    slow = canonical_slow(value).encode("utf-8")
    assert hashing._ORJSON_DUMPS is not None
    assert hashing._ORJSON_DUMPS(value, option=hashing._ORJSON_SORT_KEYS) == slow
    assert "".join(hashing._C_ENCODE(value, 0)).encode("utf-8") == slow
    assert hashing._ENCODER.encode(value).encode("utf-8") == slow
    assert hashing._fast_utf8(value) == slow


@settings(max_examples=400)
@given(admitted, st.integers(0, 12), st.integers(1, 5))
def test_large_values_rendered_in_pieces_equal_the_slow_path(
    value: Any, max_chars: int, chunk: int
) -> None:
    """A value past _ORJSON_MAX_CHARS characters is rendered in pieces (containers by hand, long
    strings a chunk at a time) and hashed as the pieces come: with tiny limits, so that every
    generated value takes that path, the text and the digest are the slow path's."""
    from loopcfg import hashing

    slow = canonical_slow(value).encode("utf-8")
    originals = hashing._ORJSON_MAX_CHARS, hashing._CHUNK_CHARS
    try:
        hashing._ORJSON_MAX_CHARS, hashing._CHUNK_CHARS = max_chars, chunk
        assert hashing._fast_utf8(value) == slow
        assert hashing._fast_digest(value) == hashlib.sha256(slow).hexdigest()
    finally:
        hashing._ORJSON_MAX_CHARS, hashing._CHUNK_CHARS = originals


def test_a_long_string_is_quoted_in_chunks_without_splitting_an_escape() -> None:
    """Escapes, non-ASCII and astral characters on every chunk boundary."""
    from loopcfg import hashing

    text = ('"\\\n\u0001é😀\u2028xy' * 5_000) + "end"
    value = {"details": {"aggregated": text, "n": [text, 1, None]}, "text": text}
    assert len(text) > hashing._ORJSON_MAX_CHARS
    expected = canonical_slow(value)
    assert digest(value) == digest_text(expected)
    assert canonical_json(value) == expected


# Outcomes of every rule of 04 §4.4, with the fields each rule reads present, absent or odd.
_any = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2), bmp_text)
_details = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(
            [
                "running",
                "completed",
                "failed",
                "approval-pending",
                "approval-unavailable",
                "blocked",
                "exited",
                7,
            ]
        ),
        "deniedReason": st.sampled_from(["tool-loop", "policy"]),
        "tail": _any,
        "aggregated": _any,
        "exitCode": _any,
        "timedOut": _any,
        "reason": _any,
        "host": _any,
        "command": _any,
        "warningText": _any,
        "exitSignal": _any,
        "totalLines": _any,
        "totalChars": _any,
        "truncated": _any,
        "messageId": bmp_text,
        "ts": st.integers(),
        "ok": st.booleans(),
        "message": st.fixed_dictionaries(
            {"id": _any, "text": _any},
            optional={
                "direction": _any,
                "senderId": _any,
                "accountId": _any,
                "conversation": st.one_of(st.just({}), _any),
                "receipt": _any,
            },
        ),
        "plan": st.one_of(
            _any,
            st.lists(
                st.fixed_dictionaries({}, optional={"step": _any, "status": _any}), max_size=3
            ),
        ),
        "explanation": _any,
    },
)
_content = st.one_of(
    _any,
    st.lists(
        st.one_of(_any, st.fixed_dictionaries({}, optional={"type": _any, "text": _any})),
        max_size=3,
    ),
)
_results = st.one_of(
    _any,
    st.fixed_dictionaries({}, optional={"details": st.one_of(_details, _any), "content": _content}),
)
_errors = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "Tool browser not found",
            "unknown tool: 'Web.Search'",
            "  boom \n",
            "",
            ValueError("bad"),
            ValueError(),
            3,
            2.5,
            True,
            {"code": 1},
        ]
    ),
)
_tools = st.sampled_from(
    ["exec", "process", "message", "sessions_send", "telegram", "update_plan", "read"]
)
_actions = st.one_of(
    st.none(),
    st.sampled_from(["poll", "log", "kill", "send", "reply", "read"]),
    st.lists(st.just("poll"), max_size=1),
)


@settings(max_examples=400)
@given(_tools, _actions, _results, _errors)
def test_the_oracle_and_the_engine_hash_outcomes_alike(
    tool: str, action: Any, result: Any, error: Any
) -> None:
    """Every rule of 04 §4.4 against tests/engine/oracle_hashing.py, written independently."""
    from tests.engine import oracle_hashing

    args = {} if action is None else {"action": action, "plan": result}
    sends = frozenset({"telegram"})
    expected = oracle_hashing.outcome_hash(tool, args, result, error, send_tools=sends)
    assert outcome_hash(tool, args, result, error, send_tools=sends) == expected
    assert args_hash(tool, args) == oracle_hashing.args_hash(tool, args)


# -- outcome digests deferred (replay) ----------------------------------------------------------


def _text_result(text: str, details: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if details is not None:
        result["details"] = details
    return result


@settings(max_examples=200)
@given(
    st.text(max_size=40),
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=9)),
        max_size=4,
    ),
)
def test_a_deferred_outcome_hash_is_the_outcome_hash(text: str, details: dict[str, Any]) -> None:
    result = _text_result(text, details)
    budget = hashing.DigestBudget(1 << 20)
    deferred, unknown = hashing.outcome_hash("read", {}, result, defer=budget)
    expected, expected_unknown = hashing.outcome_hash("read", {}, result)
    assert isinstance(deferred, hashing.DeferredDigest) and unknown == expected_unknown
    assert expected is not None and budget.left < 1 << 20
    assert deferred == expected and expected == deferred
    assert (deferred != expected) is False and (expected != deferred) is False
    assert hash(deferred) == hash(expected) and str(deferred) == expected
    assert budget.left == 1 << 20  # digested: its weight is given back, once
    deferred.release()
    assert budget.left == 1 << 20


def test_only_small_plain_shapes_are_deferred() -> None:
    def deferred(tool: str, result: Any, budget: int = 1 << 20) -> bool:
        shape, _ = hashing.outcome_hash(tool, {}, result, defer=hashing.DigestBudget(budget))
        assert shape == hashing.outcome_hash(tool, {}, result)[0]
        return isinstance(shape, hashing.DeferredDigest)

    assert deferred("read", _text_result("x", {"n": 1, "s": "y"}))
    assert deferred("read", _text_result("x", {"nested": {"n": [1, None, {"s": "y"}]}}))
    assert not deferred("read", _text_result("x", {"nested": {"n": (1,)}}))  # not JSON's
    assert not deferred("read", _text_result("x", {"nested": {1: "y"}}))
    deep: Any = "leaf"
    for _ in range(hashing._SHALLOW + 1):
        deep = [deep]
    assert not deferred("read", _text_result("x", {"deep": deep}))
    assert not deferred("read", _text_result("x", {"n": {"s": "x" * hashing.DEFERRED_MAX_WEIGHT}}))
    assert not deferred("read", _text_result("x", {"n": [[0] * hashing.DEFERRED_MAX_WEIGHT]}))
    assert not deferred("read", _text_result("x" * hashing.DEFERRED_MAX_WEIGHT))
    assert not deferred("read", _text_result("x"), budget=100)  # the budget is spent
    assert deferred("exec", {"details": {"status": "completed", "aggregated": "ok"}})
    assert not deferred(
        "exec",
        {"details": {"status": "completed", "aggregated": "x" * hashing.DEFERRED_MAX_WEIGHT}},
    )
    assert not deferred("sessions_send", _text_result("x", {"n": 1}))
    assert deferred("read", {"content": [], "details": {"n": [1]}})
    assert not deferred("read", "a plain string result")
    assert not deferred("read", None)


def test_two_deferred_hashes_compare_by_their_digests() -> None:
    budget = hashing.DigestBudget(1 << 20)

    def deferred(details: dict[str, Any]) -> Any:
        return hashing.outcome_hash("read", {}, _text_result("t", details), defer=budget)[0]

    # Python's == says equal (True == 1), canonical JSON does not; 1.0 is 1 in JavaScript.
    assert deferred({"n": True}) != deferred({"n": 1})
    assert deferred({"n": 1.0}) == deferred({"n": 1})
    assert hashing.hash_text(None) is None
