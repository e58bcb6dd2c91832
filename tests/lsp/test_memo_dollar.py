"""The server's memo on configs with `$include`s and `${VAR}`s (issue 14).

Loading such a config used to copy its whole tree, so the memo (which recognises values by
identity) never hit and every edit cost a full check. Loading now keeps the file's own values
where no include or substitution changes them (tests/config/test_load_kept_values.py); here:
the memo is used on such configs, and after every edit of test_memo.py's sequences, with
`${VAR}`s set, missing and escaped in blocks and ids and one outside them, the server's check
still equals `check_file`.
"""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")

from loopcfg.check import CheckOptions, check_file
from loopcfg.lsp import analysis
from loopcfg.lsp.incremental import ParseCache
from tests.lsp.test_memo import EDIT, NAMES, Model, _base, apply, render

ENV = {"LOOPCFG_MEMO_N": "7", "LOOPCFG_MEMO_ID": "ops", "LOOPCFG_MEMO_KEY": "sk-1"}
OUTSIDE = '  models: { apiKey: "${LOOPCFG_MEMO_KEY}" },\n'
DOLLAR_VALUES = st.sampled_from(
    [
        '"${LOOPCFG_MEMO_N}"',
        '"${LOOPCFG_MEMO_UNSET}"',
        '"$${LOOPCFG_MEMO_N}"',
        '"x${LOOPCFG_MEMO_N}"',
    ]
)
DOLLAR_EDITS = st.one_of(
    st.tuples(st.just("global"), st.sampled_from(NAMES), DOLLAR_VALUES),
    st.tuples(st.just("agent"), st.integers(0, 9), st.sampled_from(NAMES), DOLLAR_VALUES),
    st.tuples(st.just("rename"), st.integers(0, 9), st.just("${LOOPCFG_MEMO_ID}")),
)


def _rendered(model: Model) -> str:
    """The model's text with a `${VAR}` outside every part loopcfg reads (an API key)."""
    return render(model).replace("  gateway: {", OUTSIDE + "  gateway: {", 1)


def _write(folder: Path, text: str) -> tuple[Path, dict[str, str]]:
    top, included = folder / "openclaw.json5", folder / "block.json5"
    block = "{\n  // the included block\n  warningThreshold: 8,\n}\n"
    top.write_text(text, encoding="utf-8", newline="")
    included.write_text(block, encoding="utf-8")
    return top, {str(top): text, str(included): block}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), st.lists(st.one_of(DOLLAR_EDITS, EDIT), min_size=1, max_size=8))
def test_a_memoised_check_of_a_config_with_dollars_gives_validates_diagnostics(
    tmp_path_factory: pytest.TempPathFactory, entries: bool, edits: list[tuple[object, ...]]
) -> None:
    folder = tmp_path_factory.mktemp("dollar")
    model = _base(entries)
    cache = ParseCache()
    previous = None
    with mock.patch.dict(os.environ, ENV):
        for edit in [("header",), *edits]:
            if edit[0] != "included":  # test_memo.py's edit of the included file
                model = apply(model, edit)
            top, buffers = _write(folder, _rendered(model))
            checked = analysis.check(str(top), buffers, None, cache, previous)
            expected = check_file(str(top), CheckOptions())
            assert checked.diagnostics == list(expected.diagnostics), (edit, buffers[str(top)])
            previous = checked


@pytest.mark.parametrize("entries", [False, True])
def test_an_edit_in_one_agent_reuses_the_others_beside_dollars(
    tmp_path: Path, entries: bool
) -> None:
    model = apply(_base(entries), ("include", 0))  # agent a0's block is `$include`d
    model = apply(model, ("agent", 1, "warningThreshold", '"${LOOPCFG_MEMO_N}"'))
    edited = apply(model, ("agent", 3, "historySize", "5"))
    cache = ParseCache()
    with mock.patch.dict(os.environ, ENV):
        top, buffers = _write(tmp_path, _rendered(model))
        before = analysis.check(str(top), buffers, None, cache)
        hits = before.memo.hits
        top, buffers = _write(tmp_path, _rendered(edited))
        after = analysis.check(str(top), buffers, None, cache, before)
        assert after.diagnostics == list(check_file(str(top)).diagnostics)
    # a2 and a4 are the file's own values, kept: their entries, scopes, lints, blocks and
    # verdicts came from the memo (a0's include is copied and a1's value substituted afresh).
    assert after.memo.hits - hits >= 2 * 5
