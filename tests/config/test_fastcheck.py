"""The compiled schema check (loopcfg/fastcheck.py): generated code without drift, and the
same valid/invalid answer as jsonschema on the same schema, for any config."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from loopcfg.fastcheck import generated_source, is_valid, module_path
from loopcfg.keys import SETTINGS
from loopcfg.schema import build_schema


def test_the_generated_module_has_not_drifted_from_the_schema() -> None:
    assert module_path("S2").read_text(encoding="utf-8") == generated_source(
        "S2", build_schema()
    ), "loopcfg/_fastschema_s2.py drifted: `python -m loopcfg.fastcheck --generate`"


def test_a_line_without_a_compiled_check_answers_none() -> None:
    assert is_valid({}, "S0") is None


SCALARS = st.one_of(
    st.booleans(),
    st.integers(-3, 40),
    st.sampled_from([2**53 - 1, 2**53, 10**30, 1.5, 2.0, 0.0, float("inf")]),
    st.text(max_size=3),
    st.none(),
)
NAMES = [s.leaf for s in SETTINGS] + ["detectors", "postCompactionGuard", "$include", "extra", "id"]
KEYS = st.sampled_from(NAMES)


def values(depth: int) -> st.SearchStrategy[Any]:
    if depth == 0:
        return SCALARS
    inner = values(depth - 1)
    return st.one_of(
        SCALARS,
        st.lists(inner, max_size=3),
        st.dictionaries(KEYS, inner, max_size=4),
    )


blocks = st.one_of(st.dictionaries(KEYS, values(2), max_size=6), values(1))
tools = st.one_of(
    st.fixed_dictionaries({}, optional={"loopDetection": blocks, "exec": values(1)}), values(1)
)
agents = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "id": st.one_of(st.text(max_size=4), SCALARS),
                "tools": tools,
                "$include": st.one_of(
                    st.text(max_size=3), st.lists(st.text(max_size=3), max_size=2), SCALARS
                ),
            },
        ),
        SCALARS,
    ),
    max_size=4,
)
configs = st.fixed_dictionaries(
    {},
    optional={
        "tools": tools,
        "agents": st.one_of(
            st.fixed_dictionaries({}, optional={"list": st.one_of(agents, values(1))}), SCALARS
        ),
        "$schema": SCALARS,
        "meta": values(1),
    },
)


@settings(max_examples=400, deadline=None)
@given(configs)
def test_compiled_check_and_jsonschema_always_agree(config: dict[str, Any]) -> None:
    jsonschema_valid = not any(True for _ in Draft7Validator(build_schema()).iter_errors(config))
    assert is_valid(config) is jsonschema_valid
