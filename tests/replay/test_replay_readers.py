"""The trace (06 §6.1) and transcript (07) readers, on synthetic fixtures of every line shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from loopcfg.replay.events import (
    Call,
    Compaction,
    ConfigSwitch,
    Malformed,
    Outcome,
    ReadError,
    RunId,
    RunStart,
)
from loopcfg.replay.lines import detect_format, open_binary
from loopcfg.replay.trace import read_trace
from loopcfg.replay.transcript import (
    TranscriptOptions,
    active_branch,
    joined_text,
    read_transcript,
)

from .helpers import DATA, jsonl, lines_of, read_file


def test_trace_every_line_shape() -> None:
    events = read_file(DATA / "every-shape.trace.jsonl")
    kinds = [(type(e).__name__, e.line) for e in events]
    assert kinds == [
        ("Call", 3),
        ("Call", 4),
        ("Call", 5),
        ("Outcome", 6),
        ("Compaction", 7),
        ("ConfigSwitch", 8),
        ("Call", 9),
        ("Malformed", 10),
        ("Malformed", 11),
        ("Malformed", 12),
        ("Malformed", 13),
        ("Malformed", 14),
        ("Malformed", 15),
    ]
    first, failed, unfinished, late, compaction, switch, other = events[:7]
    assert isinstance(first, Call) and first.session == "default" and first.run is None
    assert first.outcome is not None and first.outcome.result is not None
    assert isinstance(failed, Call) and failed.outcome is not None
    assert failed.outcome.error == "exit 1" and failed.run == "r1" and failed.call_id == "c2"
    assert isinstance(unfinished, Call) and unfinished.outcome is None
    assert isinstance(late, Outcome) and late.call_id == "c3" and late.result == "late"
    assert isinstance(compaction, Compaction) and compaction.run == "r1"
    assert isinstance(switch, ConfigSwitch) and switch.agent == "safe-runner"
    assert isinstance(other, Call) and other.session == "s2"


def test_trace_malformed_lines_say_why() -> None:
    problems = [e for e in read_file(DATA / "every-shape.trace.jsonl") if isinstance(e, Malformed)]
    rendered = [p.render() for p in problems]
    assert rendered[0].startswith("every-shape.trace.jsonl:10:1: LC001 error: not a JSON line")
    assert "must be a JSON object" in rendered[1]
    assert 'unknown line type "mystery"' in rendered[2]
    assert 'needs a string "tool"' in rendered[3]
    assert '"error" must be a string' in rendered[4]
    assert 'needs "result" or "error"' in rendered[5]


def test_trace_line_not_utf8_is_reported_and_skipped() -> None:
    lines = [(1, b"\xff\xfe\n"), (2, b'{"tool": "a", "args": {}}\n')]
    events = list(read_trace("t", iter(lines)))
    assert isinstance(events[0], Malformed) and events[0].line == 1
    assert isinstance(events[1], Call)


DEEP_LINE = "[" * 5000 + "]" * 5000


def test_a_line_nested_too_deep_for_json_is_one_malformed_line() -> None:
    # json.loads raises RecursionError (not ValueError) here: that lost the whole file.
    text = f'{DEEP_LINE}\n{{"tool": "a", "args": {{}}}}\n'
    trace = list(read_trace("t", iter(lines_of(text))))
    assert isinstance(trace[0], Malformed) and "nested too deeply" in trace[0].render()
    assert isinstance(trace[1], Call)
    header = '{"type": "session", "version": 3, "id": "s"}'
    transcript = list(read_transcript("t", iter(lines_of(f"{header}\n{DEEP_LINE}\n"))))
    assert [type(e) for e in transcript][-1] is Malformed
    assert detect_format(iter(lines_of(DEEP_LINE + "\n")))[0] == "trace"


def test_a_number_over_pythons_digit_limit_is_one_malformed_line_in_plain_words() -> None:
    text = '{"tool": "a", "args": {"n": ' + "9" * 5000 + "}}\n"
    (problem,) = list(read_trace("t", iter(lines_of(text))))
    assert isinstance(problem, Malformed)
    assert (
        problem.render()
        == "t:1:1: LC001 error: not a JSON line: a number with more than 4300 digits"
    )


@pytest.mark.parametrize("custom_type", [[], {}, ["openclaw:prompt-error"]])
def test_a_custom_entry_whose_type_is_not_a_string_is_skipped(custom_type: object) -> None:
    # `[] in frozenset(...)` raised TypeError (unhashable), which lost the whole file.
    header = {"type": "session", "version": 3, "id": "s"}
    custom = {"type": "custom", "id": "a0000001", "customType": custom_type, "data": {"runId": "r"}}
    events = list(read_transcript("t", iter(lines_of(jsonl(header, custom)))))
    assert all(not isinstance(e, Malformed) for e in events)


@given(st.lists(st.text(max_size=30), max_size=20))
def test_trace_reader_never_raises(raw_lines: list[str]) -> None:
    text = "".join(line.replace("\n", " ") + "\n" for line in raw_lines)
    events = list(read_trace("t", iter(lines_of(text))))
    assert all(isinstance(e, (Call, Outcome, Compaction, ConfigSwitch, Malformed)) for e in events)


def test_format_detection() -> None:
    fmt, lines = detect_format(iter(lines_of('\n{"type":"session","id":"x"}\n')))
    assert fmt == "openclaw" and len(list(lines)) == 2
    fmt, _ = detect_format(iter(lines_of('// c\n{"tool":"a"}\n')))
    assert fmt == "trace"


def test_v3_every_shape() -> None:
    events = read_file(DATA / "every-shape.v3.jsonl")
    calls = [e for e in events if isinstance(e, Call)]
    outcomes = [e for e in events if isinstance(e, Outcome)]
    assert {e.session for e in events} == {"synthetic-v3"}
    # Parallel calls in one message; the gateway message contributes none.
    assert [(c.tool, c.line, c.run) for c in calls] == [
        ("read", 4, "run-1"),
        ("edit", 4, "run-1"),
        ("exec", 15, "run-2"),
        ("sessions_spawn", 19, "run-3"),
    ]
    edit, read, orphan, veto = outcomes
    # isError:true -> error = the joined text blocks.
    assert edit.tool == "edit" and edit.error == "Could not\nfind text" and edit.result is None
    # details.status "error" -> an ordinary result with content and details.
    assert read.error is None and read.result["details"]["status"] == "error"
    assert read.result["content"] == [{"type": "text", "text": "A"}]
    assert orphan.orphan and orphan.tool == "exec" and orphan.args is None
    assert veto.veto and veto.call_id == "call_3" and not veto.orphan


def test_v3_compaction_retry_versus_routine() -> None:
    events = read_file(DATA / "every-shape.v3.jsonl")
    compactions = [(e.line, e.run) for e in events if isinstance(e, Compaction)]
    # Line 11 is followed by a user message (routine); line 14 by agent work (a retry).
    assert compactions == [(14, "run-2")]


def test_v3_runs_and_real_run_ids() -> None:
    events = read_file(DATA / "every-shape.v3.jsonl")
    starts = [(e.line, e.run) for e in events if isinstance(e, RunStart)]
    assert starts == [(3, "run-1"), (12, "run-2"), (18, "run-3")]
    run_ids = [(e.line, e.run, e.run_id) for e in events if isinstance(e, RunId)]
    assert run_ids == [(9, "run-1", "real-run-1"), (17, "run-2", "real-run-2")]


def test_no_run_scope_puts_everything_in_one_run() -> None:
    events = read_file(DATA / "every-shape.v3.jsonl", TranscriptOptions(run_scope=False))
    assert {e.run for e in events if isinstance(e, (Call, Outcome, Compaction))} == {None}
    assert not [e for e in events if isinstance(e, RunId)]


def test_v1_file_parses() -> None:
    events = read_file(DATA / "v1.jsonl")
    calls = [e for e in events if isinstance(e, Call)]
    assert [(c.tool, c.line) for c in calls] == [("bash", 3), ("read", 7)]
    assert [e.line for e in events if isinstance(e, Compaction)] == [6]
    assert {e.session for e in events} == {"synthetic-v1"}


def test_branch_active_skips_the_dead_sibling() -> None:
    path = DATA / "branches.v3.jsonl"
    branch = active_branch(str(path))
    assert branch == frozenset({"b0000001", "b0000003", "b0000004"})
    every = [e.tool for e in read_file(path) if isinstance(e, Call)]
    active = [
        e.tool for e in read_file(path, TranscriptOptions(branch=branch)) if isinstance(e, Call)
    ]
    assert every == ["read", "read"] and len(active) == 1


def test_active_branch_of_v1_is_file_order() -> None:
    assert active_branch(str(DATA / "v1.jsonl")) is None


def test_huge_lines_stream(tmp_path: Path) -> None:
    big = "x" * 600_000
    text = jsonl(
        {"type": "session", "version": 3, "id": "huge"},
        {"type": "message", "id": "h1", "message": {"role": "user", "content": big}},
        {
            "type": "message",
            "id": "h2",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "toolCall", "id": "c", "name": "write", "arguments": {"c": big}}
                ],
            },
        },
    )
    path = tmp_path / "huge.jsonl"
    path.write_text(text, encoding="utf-8")
    calls = [e for e in read_file(path) if isinstance(e, Call)]
    assert [(c.tool, c.line) for c in calls] == [("write", 3)]


def test_unreadable_file_is_a_read_error(tmp_path: Path) -> None:
    with pytest.raises(ReadError) as caught, open_binary(str(tmp_path / "missing.jsonl")):
        pass
    assert "LC000 error: cannot read" in str(caught.value)


def test_transcript_malformed_line_is_reported() -> None:
    text = '{"type":"session","version":3,"id":"s"}\nnope\n[1]\n{"type":"label"}\n'
    events = list(read_transcript("f", iter(lines_of(text))))
    assert [(type(e).__name__, e.line) for e in events] == [
        ("SessionHeader", 1),
        ("Malformed", 2),
        ("Malformed", 3),
    ]


def test_joined_text_of_string_and_images() -> None:
    assert joined_text("plain") == "plain"
    assert joined_text([{"type": "image", "data": "..."}, {"type": "text", "text": "t"}]) == "t"
    assert joined_text(None) == ""


def test_header_after_blank_lines_still_names_the_session() -> None:
    text = '\n\n{"type":"session","version":3,"id":"named"}\n{"type":"label"}\n'
    events = list(read_transcript("file.jsonl", iter(lines_of(text))))
    assert [(type(e).__name__, e.line, e.session) for e in events] == [
        ("SessionHeader", 3, "named")
    ]


def test_malformed_lines_point_at_the_column() -> None:
    trace = list(read_trace("t", iter(lines_of('  {"tool": x}\n'))))
    transcript = list(read_transcript("f", iter(lines_of('{"type":"session"}\n{"a": 1,}\n'))))
    assert [p.render() for p in trace if isinstance(p, Malformed)] == [
        "t:1:12: LC001 error: not a JSON line: Expecting value"
    ]
    assert [p.render() for p in transcript if isinstance(p, Malformed)] == [
        "f:2:9: LC001 error: not a JSON line: Expecting property name enclosed in double quotes"
    ]


# Lines as they come: JSON of any shape with any spacing, and the bytes that make the readers
# take their careful path (a byte order mark, comments, Python-only whitespace, NaN, lone
# surrogate escapes, numbers past 64 bits, bytes that are not UTF-8, a second value).
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_odd_bytes = st.sampled_from(
    [b"", b" ", b"\t", b"\r\n", b"\n", b"\xef\xbb\xbf", b"//", b"\x1c", b"\xc2\xa0", b"NaN",
     b'"\\ud800"', b"18446744073709551616", b"\xff", b"{}", b"1e400", b"-0", b","]
)  # fmt: skip


def _typed(value: object) -> object:
    """The value with every leaf's type, so 1, 1.0 and True differ."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, repr(value))


@given(_json_values, st.lists(_odd_bytes, max_size=3), st.lists(_odd_bytes, max_size=3))
def test_a_line_parsed_as_it_is_has_the_value_the_careful_path_gives(
    value: object, before: list[bytes], after: list[bytes]
) -> None:
    """`quick_loads` (orjson on the line's bytes) is taken only where it gives what decoding,
    stripping and `loads` give; anything else goes the careful way (UNPARSED)."""
    import json

    from loopcfg.replay.lines import UNPARSED, loads, quick_loads

    plain = json.dumps(value).encode()
    if len(plain) <= 1000:  # plain JSON lines take the quick path (orjson takes any JSON number
        # json.dumps writes, though it reads integers past 64 bits as floats, as `loads` does)
        assert quick_loads(plain) is not UNPARSED
    raw = b"".join(before) + plain + b"".join(after)
    quick = quick_loads(raw)
    if quick is UNPARSED:
        return
    careful = loads(raw.decode("utf-8").strip())
    assert _typed(quick) == _typed(careful)


@given(st.integers(min_value=-(10**40), max_value=10**40))
def test_an_integer_past_64_bits_hashes_as_stdlib_reads_it(number: int) -> None:
    """orjson reads integers past 64 bits as floats where `json.loads` keeps them exact; their
    canonical JSON (JavaScript's rendering of the number, which is a double there) is the same,
    so a call's argument hash does not depend on which parser read its line."""
    import json

    from loopcfg.hashing import canonical_json, digest
    from loopcfg.replay.lines import loads

    line = json.dumps({"n": number})
    assert canonical_json(loads(line)) == canonical_json(json.loads(line))
    assert digest(loads(line)) == digest(json.loads(line))


@given(st.integers(min_value=-(10**400), max_value=10**400))
@example(2**64)
@example(-(10**30))
@example(10**400)
def test_an_integer_reads_the_same_whatever_the_lines_length(number: int) -> None:
    """orjson takes lines up to ORJSON_MAX_CHARS, `json.loads` longer ones: both read an
    integer alike (exact within 64 bits, else the nearest double when finite), so what
    `--show-args` shows does not depend on the line's length."""
    import json

    from loopcfg.replay.lines import ORJSON_MAX_CHARS, loads

    short = loads(json.dumps({"n": number}))["n"]
    long = loads(json.dumps({"n": number, "pad": "x" * ORJSON_MAX_CHARS}))["n"]
    assert (type(short), short) == (type(long), long)


# -- the lean path of the transcript reader against its general path -------------------------

_NOTE = (
    "[System note: Tool-loop warning after 3 repeated calls. Change your approach or stop if you "
    "are not making progress.]"
)
_small_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["", "a", " r "]),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=5,
)
_lean_blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["toolCall", "toolCall", "text", None])},
    optional={"id": st.sampled_from(["a", "b", "c", 3]),
              "name": st.sampled_from(["read", "exec", 1]), "arguments": _small_json,
              "text": st.sampled_from(["ok", _NOTE, 2])},
)  # fmt: skip
_lean_messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["toolResult", "toolResult", "assistant", "assistant", "user",
                              "bashExecution", 5])},
    optional={"content": st.lists(_lean_blocks, max_size=3) | _small_json,
              "toolCallId": st.sampled_from(["a", "b", "c", None, 7]),
              "toolName": st.sampled_from(["read", None]),
              "isError": st.sampled_from([True, False, None, 1]),
              "details": st.sampled_from([{"status": "blocked", "deniedReason": "tool-loop"}, {}])
              | _small_json,
              "provider": st.sampled_from(["openclaw", "anthropic"]),
              "__openclaw": st.sampled_from([{"runId": "r1"}, {"runId": " r2 "}, {}, None, 3]),
              "openclawAbort": st.sampled_from([{"runId": "r3"}, None])},
)  # fmt: skip
_lean_entries = st.fixed_dictionaries(
    {"type": st.sampled_from(["message"] * 6 + ["compaction", "reset", "custom", "label", None])},
    optional={"message": _lean_messages | _small_json, "id": st.sampled_from(["e1", "e2", 4]),
              "customType": st.sampled_from(["openclaw:prompt-error", "x"]),
              "data": st.sampled_from([{"runId": "r4"}, None])},
)  # fmt: skip


# The common shapes, well formed, so that runs, compactions and calls meet their results often.
_ids = st.sampled_from(["a", "b", "c"])
_plain_call = st.builds(
    lambda call_id, tool, args, entry_id, run: {
        "type": "message", "id": entry_id,
        "message": {"role": "assistant", "content": [
            {"type": "text", "text": "x"},
            {"type": "toolCall", "id": call_id, "name": tool, "arguments": args}],
            **({"__openclaw": {"runId": run}} if run else {})},
    },
    _ids, st.sampled_from(["read", "exec"]), _small_json, st.sampled_from(["e1", "e2", 4]),
    st.sampled_from([None, None, None, "r1"]),
)  # fmt: skip
_plain_result = st.builds(
    lambda call_id, text, error, details: {
        "type": "message",
        "message": {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
                    "content": [{"type": "text", "text": text}], "isError": error,
                    **({"details": details} if details is not None else {})},
    },
    _ids, st.sampled_from(["ok", _NOTE]), st.booleans(),
    st.sampled_from([None, {}, {"status": "blocked", "deniedReason": "tool-loop"}]),
)  # fmt: skip
_plain_other = st.sampled_from(
    [{"type": "message", "message": {"role": "user", "content": "go"}}, {"type": "compaction"},
     {"type": "reset"}, {"type": "custom", "customType": "openclaw:prompt-error",
                         "data": {"runId": "r2"}},
     {"type": "message", "message": {"role": "assistant", "provider": "openclaw",
                                     "openclawAbort": {"runId": "r3"}}}]
)  # fmt: skip
_transcript_lines = st.one_of(_plain_call, _plain_result, _plain_other, _lean_entries, _small_json)


def _read_both(text: str, options: TranscriptOptions) -> tuple[list[Any], list[Any]]:
    lean = list(read_transcript("f.jsonl", iter(lines_of(text)), options))
    general = list(read_transcript("f.jsonl", iter(lines_of(text)), options, lean=False))
    return lean, general


def _outcome_sources(events: list[Any]) -> list[int | None]:
    """For each outcome, the position of the call whose very arguments object it carries (the
    runner records a result through its call's handle only for that object)."""
    calls = [event for event in events if isinstance(event, Call)]
    return [
        next((index for index, call in enumerate(calls) if call.args is event.args), None)
        for event in events
        if isinstance(event, Outcome)
    ]


@given(
    st.lists(_transcript_lines, max_size=16),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", "\n", "not json\n", '{"type": "session", "id": "s2"}\n']),
)
def test_the_lean_reader_gives_the_general_readers_events(
    entries: list[Any], header: bool, run_scope: bool, extra: str
) -> None:
    """`read_transcript` reads tool results and assistant messages of the current run in its
    own loop (`lean`); every event, in order, is the general path's, and each outcome carries
    the same call's very arguments object."""
    first = [{"type": "session", "version": 3, "id": "s"}] if header else []
    text = jsonl(*first, *entries[:8]) + extra + jsonl(*entries[8:])
    lean, general = _read_both(text, TranscriptOptions(run_scope=run_scope))
    assert lean == general
    assert _outcome_sources(lean) == _outcome_sources(general)


def test_the_lean_reader_gives_the_general_readers_events_on_the_corpus(corpus: Path) -> None:
    for path in sorted(corpus.glob("*.jsonl")):
        text = path.read_text(encoding="utf-8")
        lean, general = _read_both(text, TranscriptOptions())
        assert lean == general, path.name
        assert _outcome_sources(lean) == _outcome_sources(general), path.name
        assert sum(isinstance(event, Call) for event in lean) > 0
