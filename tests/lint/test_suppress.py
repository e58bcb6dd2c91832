"""Inline suppressions (JSON5 `//` and `/* */`, YAML `#`; the line itself or the line above),
LC109 for unused ones, errors never suppressed, and `--select` / `--ignore` code prefixes (03)."""

from __future__ import annotations

import pytest

from loopcfg.diagnostics import Diagnostic
from loopcfg.suppress import matches, select
from tests.lint.conftest import Linter, seen, where

WINDOW_ONE = "      postCompactionGuard: { windowSize: 1 },"  # LC105 at `windowSize`


def block(*body: str) -> str:
    return (
        "{\n  tools: {\n    loopDetection: {\n"
        + "".join(f"{b}\n" for b in body)
        + "    },\n  },\n}\n"
    )


@pytest.mark.parametrize(
    ("body", "left"),
    [
        ((WINDOW_ONE + " // loopcfg: ignore[LC105]",), []),
        ((WINDOW_ONE + " /* loopcfg: ignore[LC105] */",), []),
        (("      // loopcfg: ignore[LC105]", WINDOW_ONE), []),
        (("      /* loopcfg: ignore[LC105] */", WINDOW_ONE), []),
        (("      /* loopcfg: ignore[LC105] */ " + WINDOW_ONE.strip(),), []),
        (("      // loopcfg: ignore[LC1]", WINDOW_ONE), []),  # a prefix, as in ruff
        (("      // loopcfg: ignore[lc105]", WINDOW_ONE), []),  # case-insensitive
        (("      // Loopcfg: Ignore[LC201,LC105]", WINDOW_ONE), ["LC109"]),  # LC201 unused
    ],
)
def test_json5_suppression_on_the_line_or_above(
    linter: Linter, body: tuple[str, ...], left: list[str]
) -> None:
    assert linter.codes(block(*body)) == left
    assert linter.codes(block(WINDOW_ONE)) == ["LC105"]  # the control: it fires unsuppressed


def test_json5_suppression_two_lines_above_does_not_apply(linter: Linter) -> None:
    text = block("      // loopcfg: ignore[LC105]", "", WINDOW_ONE)
    found = [seen(d) for d in linter.all(text)]
    assert [(f.code, f.line) for f in found] == [
        ("LC109", where(text, "//")[0]),
        ("LC105", where(text, "windowSize")[0]),
    ]
    assert found[0].column == where(text, "//")[1]
    assert found[0].message == (
        "unused suppression: nothing here or on the next line reports LC105"
    )
    assert found[0].hint == "remove it, or the codes that are not reported"
    assert found[0].path is None and found[0].agent is None


def test_yaml_suppression(linter: Linter) -> None:
    text = (
        "tools:\n"
        "  loopDetection:\n"
        "    # loopcfg: ignore[LC201]\n"
        "    enabled: false\n"
        "    postCompactionGuard: {windowSize: 4}  # loopcfg: ignore[LC103]\n"
    )
    assert linter.codes(text, "openclaw.yaml") == []
    unsuppressed = text.replace("loopcfg: ignore", "not a directive")
    assert linter.codes(unsuppressed, "openclaw.yaml") == ["LC201", "LC103"]


def test_yaml_unused_suppression(linter: Linter) -> None:
    text = "tools:\n  loopDetection:\n    enabled: true  # loopcfg: ignore[LC102]\n"
    (found,) = [seen(d) for d in linter.all(text, "openclaw.yaml")]
    assert (found.code, found.severity, found.line, found.column) == (
        "LC109",
        "warning",
        *where(text, "#"),
    )


def test_a_block_comment_over_several_lines_covers_the_line_below_its_end(
    linter: Linter,
) -> None:
    text = block(
        "      /* loopcfg: ignore[LC105]", "         the guard is tuned on purpose */", WINDOW_ONE
    )
    assert linter.codes(text) == []
    text = block(
        "      /* loopcfg: ignore[LC105]", "         two lines", "      */", "", WINDOW_ONE
    )
    assert linter.codes(text) == ["LC109", "LC105"]


def test_a_directive_inside_a_string_is_not_a_suppression(linter: Linter) -> None:
    text = '{\n  agents: { list: [\n    { id: "x // loopcfg: ignore[LC108]" },\n  ] },\n}\n'
    assert linter.codes(text) == ["LC108"]


def test_only_the_unused_codes_of_a_comment_are_reported(linter: Linter) -> None:
    text = block(WINDOW_ONE + " // loopcfg: ignore[LC105, LC107]")
    (found,) = [seen(d) for d in linter.all(text)]
    assert found.message == "unused suppression: nothing here or on the next line reports LC107"


def test_an_empty_suppression_is_reported(linter: Linter) -> None:
    (found,) = [seen(d) for d in linter.all(block("      // loopcfg: ignore[]"))]
    assert (found.code, found.message) == ("LC109", "suppression comment names no code")


def test_errors_cannot_be_suppressed(linter: Linter) -> None:
    text = block('      historySize: "x", // loopcfg: ignore[LC002]', WINDOW_ONE)
    found = [seen(d) for d in linter.all(text)]
    assert [f.code for f in found] == ["LC002", "LC109"]
    assert found[1].message == "unused suppression: errors cannot be suppressed (LC002)"
    assert found[1].hint == "remove it and fix the config: errors always fail"
    # A prefix that covers errors does not suppress them either.
    assert linter.codes(block('      historySize: "x", // loopcfg: ignore[LC0]'))[0] == "LC002"


def test_with_errors_lint_suppressions_are_not_called_unused(linter: Linter) -> None:
    # The broken block's lints did not run, so LC105 there is not known to be unused.
    text = block('      historySize: "x",', WINDOW_ONE + " // loopcfg: ignore[LC105]")
    assert linter.codes(text) == ["LC002"]


def test_lc109_itself_cannot_be_suppressed(linter: Linter) -> None:
    text = block("      // loopcfg: ignore[LC109]", "      enabled: true,")
    assert linter.codes(text) == ["LC109"]


def test_suppression_in_an_included_file(linter: Linter) -> None:
    linter.write(
        "block.json5",
        "{\n  // loopcfg: ignore[LC105]\n  postCompactionGuard: { windowSize: 1 },\n}\n",
    )
    assert linter.codes('{ tools: { loopDetection: { $include: "./block.json5" } } }\n') == []


def test_agent_finding_suppressed_at_the_agents_line(linter: Linter) -> None:
    text = (
        "{\n  tools: { loopDetection: { enabled: true } },\n  agents: { list: [\n"
        "    // loopcfg: ignore[LC101]\n"
        '    { id: "a", tools: { loopDetection: { warningThreshold: 25 } } },\n'
        "  ] },\n}\n"
    )
    assert linter.codes(text) == []
    assert linter.codes(text.replace("ignore[LC101]", "ignore[LC102]")) == ["LC109", "LC101"]


# -- --select / --ignore --


def _d(code: str, severity: str) -> Diagnostic:
    return Diagnostic(code, severity, "m", "f")  # type: ignore[arg-type]


ALL = [
    _d("LC002", "error"),
    _d("LC101", "warning"),
    _d("LC102", "warning"),
    _d("LC109", "warning"),
    _d("LC201", "info"),
    _d("LC202", "info"),
]


@pytest.mark.parametrize(
    ("chosen", "ignored", "verbose", "kept"),
    [
        ((), (), True, ["LC002", "LC101", "LC102", "LC109", "LC201", "LC202"]),
        ((), (), False, ["LC002", "LC101", "LC102", "LC109"]),  # info needs --verbose
        (("LC10",), (), True, ["LC002", "LC101", "LC102", "LC109"]),  # errors always stay
        (("LC1,LC201",), (), True, ["LC002", "LC101", "LC102", "LC109", "LC201"]),
        (("LC1", "LC201"), (), True, ["LC002", "LC101", "LC102", "LC109", "LC201"]),
        ((), ("LC1",), True, ["LC002", "LC201", "LC202"]),
        ((), ("LC0",), True, ["LC002", "LC101", "LC102", "LC109", "LC201", "LC202"]),
        (("LC102",), ("LC102",), True, ["LC002"]),  # ignore wins over select
        (("lc202",), (), False, ["LC002", "LC202"]),  # naming an info code shows it
        (("LC",), (), False, ["LC002", "LC101", "LC102", "LC109"]),  # bare LC is not a choice
        ((" LC101 , ",), (), True, ["LC002", "LC101"]),
    ],
)
def test_select_and_ignore_prefixes(
    chosen: tuple[str, ...], ignored: tuple[str, ...], verbose: bool, kept: list[str]
) -> None:
    assert [d.code for d in select(ALL, chosen, ignored, verbose=verbose)] == kept


def test_matches_is_a_case_insensitive_prefix() -> None:
    assert matches("LC102", ["lc1"]) and matches("LC102", ["LC102"])
    assert not matches("LC102", ["LC103", "LC2"]) and not matches("LC102", ["", " "])
