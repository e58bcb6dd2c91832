"""The compiled schema check (loopcfg/fastcheck.py): generated code without drift, and the
same valid/invalid answer as jsonschema on the same schema, for any config."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from loopcfg.fastcheck import (
    COMPILED_LINES,
    generated_source,
    generated_sources,
    is_valid,
    is_valid_block,
    module_path,
)
from loopcfg.keys import SETTINGS
from loopcfg.schema import block_schema, build_schema


@pytest.mark.parametrize("line", COMPILED_LINES)
def test_the_generated_module_has_not_drifted_from_the_schema(line: str) -> None:
    assert module_path(line).read_text(encoding="utf-8") == generated_source(
        line, build_schema(line)
    ), f"{module_path(line).name} drifted: `python -m loopcfg.fastcheck --generate`"


@pytest.mark.parametrize("line", COMPILED_LINES)
def test_the_generated_block_module_has_not_drifted_from_the_block_schema(line: str) -> None:
    path = module_path(line, "block")
    assert path.read_text(encoding="utf-8") == generated_sources()[path], (
        f"{path.name} drifted: `python -m loopcfg.fastcheck --generate`"
    )


def test_every_generated_module_is_checked_for_drift() -> None:
    expected = {module_path(line, kind) for line in COMPILED_LINES for kind in ("config", "block")}
    assert set(generated_sources()) == expected
    on_disk = set(module_path("S2").parent.glob("_fast*_*.py"))
    assert on_disk == expected


def test_a_line_without_a_compiled_check_answers_none() -> None:
    assert is_valid({}, "S0") is None
    assert is_valid_block({}, "S0") is None


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


entries = st.dictionaries(
    st.sampled_from(["main", "ops", "-bad", "Ops", "$include"]),
    st.one_of(st.fixed_dictionaries({}, optional={"tools": tools, "default": SCALARS}), SCALARS),
    max_size=3,
)
configs_2026_8 = st.fixed_dictionaries(
    {},
    optional={
        "tools": tools,
        "agents": st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "entries": st.one_of(entries, values(1)),
                    "ownership": st.sampled_from(["explicit", "other", 1]),
                    "list": values(1),
                },
            ),
            SCALARS,
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(configs_2026_8)
def test_compiled_check_of_the_2026_8_line_agrees_with_jsonschema(config: dict[str, Any]) -> None:
    schema = build_schema("S3")
    jsonschema_valid = not any(True for _ in Draft7Validator(schema).iter_errors(config))
    assert is_valid(config, "S3") is jsonschema_valid


@pytest.mark.parametrize("line", COMPILED_LINES)
@settings(max_examples=300, deadline=None)
@given(blocks)
def test_compiled_block_check_and_jsonschema_always_agree(line: str, block: Any) -> None:
    jsonschema_valid = not any(True for _ in Draft7Validator(block_schema(line)).iter_errors(block))
    assert is_valid_block(block, line) is jsonschema_valid
