"""The text renderer's source lines and carets, colours, and the GitHub annotations.

The terminal mode is a parameter of the renderer (`RenderOptions(source=True)`), so these tests
never need a real tty; tests/cli/test_options.py checks that the CLI turns it on for a tty.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from loopcfg.check import FileReport
from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.render.diagnostics import RenderOptions, caret_lines, display_width, render_text
from loopcfg.render.github import annotation, escape_data, escape_property, render_github
from loopcfg.source.nodes import Span


def span(line: int, column: int, end_line: int, end_column: int) -> Span:
    return Span("c.json5", line, column, end_line, end_column)


def test_caret_under_the_range() -> None:
    shown, marker = caret_lines("    historySize: 0,", span(1, 5, 1, 16))
    assert shown == "    historySize: 0,"
    assert marker == "    ^~~~~~~~~~~"


def test_tabs_are_expanded_the_same_in_line_and_marker() -> None:
    shown, marker = caret_lines("\t\twarningThreshhold: 3,", span(1, 3, 1, 20))
    assert shown == "        warningThreshhold: 3,"
    assert marker == "        ^" + "~" * 16
    # A tab after text goes to the next stop, not a fixed width.
    shown, marker = caret_lines("ab\tx", span(1, 4, 1, 5), tab_size=4)
    assert shown == "ab  x" and marker == "    ^"


def test_wide_characters_take_two_cells() -> None:
    line = '  id: "日本", warningThreshold: 3,'
    column = line.index("warningThreshold") + 1  # code points
    shown, marker = caret_lines(line, span(1, column, 1, column + 16))
    assert shown == line
    assert marker.index("^") == display_width(line[: column - 1]) == column - 1 + 2
    assert marker.endswith("^" + "~" * 15)
    # A wide character inside the range widens the marker.
    _, marker = caret_lines(line, span(1, 8, 1, 10))
    assert marker == " " * 7 + "^~~~"


def test_combining_marks_take_no_cell_and_controls_are_replaced() -> None:
    shown, marker = caret_lines("e\u0301x\x1b[2Jy", span(1, 3, 1, 4))
    assert "\x1b" not in shown and shown == "e\u0301x\ufffd[2Jy"
    assert marker == " ^"


def test_multi_line_span_marks_to_the_end_of_its_first_line() -> None:
    _, marker = caret_lines("  loopDetection: [", span(1, 18, 3, 4))
    assert marker == " " * 17 + "^"
    _, marker = caret_lines("  a: [1,", span(1, 6, 2, 2))
    assert marker == "     ^~~"


def test_positions_at_and_past_the_end_of_the_line() -> None:
    assert caret_lines("  enabled: true", span(1, 16, 1, 17))[1] == " " * 15 + "^"
    assert caret_lines("", span(1, 1, 1, 1))[1] == "^"  # an empty file: zero-width span
    assert caret_lines("ab", span(1, 9, 1, 10))[1] == "  ^"  # clamped to just after the text


@given(
    st.text(alphabet="ab \t:{", max_size=30),
    st.integers(min_value=1, max_value=31),
    st.integers(min_value=0, max_value=31),
    st.sampled_from([2, 4, 8]),
)
def test_caret_matches_str_expandtabs(line: str, column: int, length: int, tab: int) -> None:
    """For one-cell characters, Python's own expandtabs is an independent oracle."""
    column = min(column, len(line) + 1)
    end = min(column + length, len(line) + 1)
    shown, marker = caret_lines(line, span(1, column, 1, max(end, column)), tab_size=tab)
    assert shown == line.expandtabs(tab)
    start = len(line[: column - 1].expandtabs(tab))
    assert marker.index("^") == start
    if end > column:
        assert len(marker) == len(line[: end - 1].expandtabs(tab))
    elif column <= len(line):  # an empty range marks the character at its column
        assert len(marker) == len(line[:column].expandtabs(tab))
    else:  # or the place just after the text
        assert len(marker) == start + 1


def report(*diagnostics: Diagnostic, text: str = "") -> FileReport:
    return FileReport("c.json5", list(diagnostics), sources={"c.json5": text} if text else {})


UNKNOWN = Diagnostic.at(
    "LC003",
    "error",
    'unknown key "warningThreshhold"',
    span(2, 3, 2, 20),
    hint='did you mean "warningThreshold"?',
)
ORDER = Diagnostic.at(
    "LC004",
    "error",
    "warningThreshold must be lower than criticalThreshold.",
    span(3, 3, 3, 20),
    related=(Related(span(2, 3, 2, 19), "warningThreshold is 20 here"),),
)
SOURCE = "{\n  warningThreshhold: 3,\n  criticalThreshold: 2,\n}\n"


def test_plain_text_has_no_source_lines_and_no_colour() -> None:
    text = render_text([report(UNKNOWN, text=SOURCE)])
    assert text == (
        'c.json5:2:3: LC003 error: unknown key "warningThreshhold" '
        '(did you mean "warningThreshold"?)\n'
        "Found 1 error and 0 warnings in 1 file.\n"
    )


def test_terminal_text_shows_source_caret_and_related_notes() -> None:
    text = render_text([report(UNKNOWN, ORDER, text=SOURCE)], RenderOptions(source=True))
    assert text.splitlines() == [
        'c.json5:2:3: LC003 error: unknown key "warningThreshhold" '
        '(did you mean "warningThreshold"?)',
        " 2 |   warningThreshhold: 3,",
        "   |   ^~~~~~~~~~~~~~~~~",
        "",
        "c.json5:3:3: LC004 error: warningThreshold must be lower than criticalThreshold.",
        " 3 |   criticalThreshold: 2,",
        "   |   ^~~~~~~~~~~~~~~~~",
        "   = note: c.json5:2:3: warningThreshold is 20 here",
        "",
        "Found 2 errors and 0 warnings in 1 file.",
    ]


def test_terminal_text_without_the_source_still_lists_every_problem() -> None:
    text = render_text([report(UNKNOWN)], RenderOptions(source=True))
    assert text.splitlines()[0].startswith("c.json5:2:3: LC003 error:")
    assert "|" not in text


def test_colour_only_when_asked() -> None:
    coloured = render_text([report(UNKNOWN, text=SOURCE)], RenderOptions(source=True, color=True))
    assert "\x1b[1;31mLC003 error\x1b[0m" in coloured
    assert "\x1b[1;31m  ^~~~" in coloured  # the caret has the severity's colour
    plain = render_text([report(UNKNOWN, text=SOURCE)], RenderOptions(source=True))
    assert "\x1b" not in plain


# -- github ---------------------------------------------------------------------------------------


def test_escaping_of_data_and_properties() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    tricky = Diagnostic.at(
        "LC003", "warning", "100% sure:\nno", Span("dir,x/a:b.json5", 1, 2, 1, 3), hint="x, y"
    )
    assert annotation(tricky) == (
        "::warning file=dir%2Cx/a%3Ab.json5,line=1,col=2,endLine=1,endColumn=3,title=LC003"
        "::100%25 sure:\\nno (x, y)"
    )


def test_annotation_kinds_and_positions() -> None:
    info = Diagnostic.at("LC202", "info", "redundant", span(4, 5, 4, 9))
    multi = Diagnostic.at("LC008", "error", "not an object", span(2, 18, 5, 4))
    bare = Diagnostic.at("LC000", "error", "no such file", None, file="gone.json5")
    assert annotation(info).startswith("::notice file=c.json5,line=4,col=5,endLine=4,endColumn=9,")
    assert annotation(multi) == "::error file=c.json5,line=2,endLine=5,title=LC008::not an object"
    assert annotation(bare) == "::error file=gone.json5,title=LC000::no such file"


def many(count: int, severity: str, code: str) -> list[Diagnostic]:
    return [
        Diagnostic.at(code, severity, f"problem {n}", span(n, 1, n, 2))  # type: ignore[arg-type]
        for n in range(1, count + 1)
    ]


def test_ten_annotations_of_each_kind_then_one_notice_and_plain_lines() -> None:
    found = sorted(
        many(12, "error", "LC002") + many(3, "warning", "LC102"), key=Diagnostic.sort_key
    )
    lines = render_github([FileReport("c.json5", found)]).splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    warnings = [line for line in lines if line.startswith("::warning ")]
    assert len(errors) == 10 and len(warnings) == 3
    notices = [line for line in lines if line.startswith("::notice ")]
    assert notices == [
        "::notice title=loopcfg::2 more problems are not annotated (GitHub shows 10 of each kind "
        "per step) but listed below; run loopcfg validate --format sarif and upload the file to "
        "code scanning to see all of them"
    ]
    assert lines[-3:] == [
        "c.json5:11:1: LC002 error: problem 11",
        "c.json5:12:1: LC002 error: problem 12",
        "Found 12 errors and 3 warnings in 1 file.",
    ]


def test_exactly_ten_needs_no_notice() -> None:
    lines = render_github([FileReport("c.json5", many(10, "error", "LC002"))]).splitlines()
    assert len(lines) == 11 and not any(line.startswith("::notice") for line in lines)


def test_the_limit_notice_keeps_a_place_among_the_notices() -> None:
    found = many(11, "warning", "LC102") + many(10, "info", "LC202")
    lines = render_github([FileReport("c.json5", found)]).splitlines()
    notices = [line for line in lines if line.startswith("::notice ")]
    assert len(notices) == 10  # 9 infos and the limit notice: GitHub shows all of them
    assert notices[-1].startswith("::notice title=loopcfg::2 more problems")
    assert sum(line.startswith("::warning ") for line in lines) == 10


def test_names_with_line_breaks_and_escapes_stay_on_one_line() -> None:
    """A key may hold any character; the output must still be one line per problem, with no
    terminal escape sequence and no workflow command smuggled into a GitHub log."""
    message = 'unknown key "x\n::error::forged\x1b[2J\u202e" in tools.loopDetection'
    found = Diagnostic.at("LC003", "error", message, span(1, 2, 1, 3))
    for text in (
        render_text([report(found)]),
        render_text([report(found)], RenderOptions(source=True, color=True)),
        render_github([FileReport("c.json5", [*many(10, "error", "LC002"), found])]),
    ):
        assert "\x1b[2J" not in text and "\u202e" not in text
        assert not any(line.startswith("::error::") for line in text.splitlines())
    assert render_text([report(found)]).splitlines()[0] == (
        'c.json5:1:2: LC003 error: unknown key "x\\n::error::forged\\u001b[2J\\u202e" '
        "in tools.loopDetection"
    )
    assert annotation(found).endswith(
        '"x\\n::error::forged\\u001b[2J\\u202e" in tools.loopDetection'
    )


def _unescape(text: str) -> str:
    for encoded, char in (("%3A", ":"), ("%2C", ","), ("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        text = text.replace(encoded, char)
    return text


@given(st.text(max_size=40), st.text(min_size=1, max_size=20))
def test_annotations_parse_back_as_github_reads_them(message: str, file: str) -> None:
    """Split as the runner does (`::kind props::message`, props on `,` and the first `=`)."""
    from loopcfg.render import printable

    found = Diagnostic.at("LC003", "error", message, Span(file, 3, 4, 3, 9))
    line = annotation(found)
    assert "\n" not in line and "\r" not in line
    head, separator, data = line[2:].partition("::")
    assert separator
    kind, _, props = head.partition(" ")
    assert kind == "error"
    fields = dict(field.split("=", 1) for field in props.split(","))
    assert {k: _unescape(v) for k, v in fields.items()} == {
        "file": printable(file),
        "line": "3",
        "col": "4",
        "endLine": "3",
        "endColumn": "9",
        "title": "LC003",
    }
    assert _unescape(data) == printable(message)


def test_a_long_line_is_cut_to_a_window_around_the_column() -> None:
    line = "{" + ", ".join(f'"k{n}": {n}' for n in range(2000)) + "}"  # a minified config
    column = line.index('"k1000"') + 1
    shown, marker = caret_lines(line, span(1, column, 1, column + 7))
    assert shown.startswith("…") and shown.endswith("…")
    assert len(shown) == 160 + 2
    caret = marker.index("^")
    assert shown[caret : caret + 7] == '"k1000"' and marker[caret:] == "^" + "~" * 6
    # Near the start, only the end is cut.
    shown, marker = caret_lines(line, span(1, 2, 1, 6))
    assert not shown.startswith("…") and shown.endswith("…") and marker == " ^~~~"
    # Near the end (and past it), only the start is cut, and the caret stays on the text.
    shown, marker = caret_lines(line, span(1, len(line) + 1, 1, len(line) + 2))
    assert shown.startswith("…") and not shown.endswith("…")
    assert marker.index("^") == len(shown)
