"""loopcfg agrees with the real OpenClaw releases on every recorded config vector (issue 11,
item 8): the same valid/invalid answer and the same problem paths, for the vector's release as
the target, apart from the deliberate differences of docs/conformance.md, which
`config_vectors.verdict` recognises by rule. No Node and no OpenClaw: the vectors hold the
releases' answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.config_vectors import (
    OUTSIDE_BY_ID,
    Answer,
    DocPath,
    Pipeline,
    Verdict,
    issue_line,
    load_vectors,
    releases,
    verdict,
)

REQUIRED = ("2026.5.4", "2026.6.5", "2026.7.1-2", "2026.7.35", "2026.9.6")
SHOWN = 5  # disagreements written out in a failure message


Checked = list[tuple[dict[str, Any], Answer, Verdict]]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Checked]]:
    """Every vector checked once, lazily per release, by one pipeline for every release (the
    5.4, 6.5 and 7.1-2 vectors share their configs, which are loaded once)."""
    pipeline = Pipeline(tmp_path_factory.mktemp("vectors"))

    class Lazy(dict[str, Checked]):
        def __missing__(self, release: str) -> Checked:
            rows: Checked = []
            for vector in load_vectors(release):
                answer = pipeline.answer(vector)
                rows.append((vector, answer, verdict(vector, answer)))
            self[release] = rows
            return rows

    yield Lazy()


def _dotted(path: DocPath) -> str:
    return ".".join(str(part) for part in path) or "<root>"


def describe(vector: dict[str, Any], answer: Answer, found: Verdict) -> str:
    """One disagreement, readably: both answers and what differs."""
    theirs = "valid" if vector["valid"] else "invalid"
    mine = "valid" if answer.valid else "invalid"
    lines = [
        f"{vector['id']} ({vector['release']}): OpenClaw {theirs}, loopcfg {mine}",
        *(f"    OpenClaw  {issue_line(issue)}" for issue in vector["issues"]),
        *(f"    loopcfg   {line}" for line in answer.lines),
    ]
    if found.missing:
        lines.append(f"    loopcfg misses {[_dotted(p) for p in found.missing]}")
    if found.extra:
        lines.append(f"    OpenClaw does not name {[f'{c} {_dotted(p)}' for c, p in found.extra]}")
    return "\n".join(lines)


def test_every_required_release_has_vectors() -> None:
    assert set(REQUIRED) <= set(releases())


@pytest.mark.parametrize("release", releases())
def test_loopcfg_agrees_with_the_release_on_every_vector(
    release: str, checked: dict[str, Checked]
) -> None:
    rows = checked[release]
    differ = [describe(*row) for row in rows if row[2].kind == "differs"]
    shown = "\n".join(differ[:SHOWN])
    assert not differ, (
        f"{len(differ)} of {len(rows)} vectors of {release} differ "
        f"(python conformance/compare_config.py {release} --causes); the first:\n{shown}"
    )


@pytest.mark.parametrize("release", releases())
def test_the_same_valid_or_invalid_answer_on_every_vector_but_outside_the_loop_parts(
    release: str, checked: dict[str, Checked]
) -> None:
    """A different valid/invalid answer is deliberate only when its whole cause is a key
    outside the loop parts (docs/conformance.md)."""
    for vector, answer, found in checked[release]:
        if answer.valid != vector["valid"]:
            assert found.kind == "outside", describe(vector, answer, found)


def test_the_id_list_holds_only_vectors_that_exist(checked: dict[str, Checked]) -> None:
    """OUTSIDE_BY_ID (docs/conformance.md) names recorded vectors, each with its reason."""
    ids = {vector["id"] for release in releases() for vector, _, _ in checked[release]}
    assert set(OUTSIDE_BY_ID) <= ids
    assert all(reason.strip() for reason in OUTSIDE_BY_ID.values())


# -- the rule itself: it must fail where loopcfg is wrong ----------------------------------------


def _vector(**fields: Any) -> dict[str, Any]:
    base = {"id": "made.up", "release": "2026.5.4", "valid": False, "issues": [], "warnings": []}
    return {**base, **fields}


def _answer(*errors: tuple[str, DocPath]) -> Answer:
    return Answer(not errors, tuple(errors), (), (), tuple(f"{c} {p}" for c, p in errors))


UNKNOWN_FOO = {"path": "tools.loopDetection", "message": 'Unrecognized key: "foo"'}
FOO = ("tools", "loopDetection", "foo")


def test_verdict_same() -> None:
    found = verdict(_vector(issues=[UNKNOWN_FOO]), _answer(("LC003", FOO)))
    assert found == Verdict("same", (), ())


def test_verdict_differs_when_loopcfg_misses_a_path_or_answers_otherwise() -> None:
    assert verdict(_vector(issues=[UNKNOWN_FOO]), _answer()).kind == "differs"
    other = ("tools", "loopDetection", "bar")
    found = verdict(_vector(issues=[UNKNOWN_FOO]), _answer(("LC003", other)))
    assert found.kind == "differs"
    assert found.missing == (FOO,)
    assert found.extra == (("LC003", other),)
    assert verdict(_vector(valid=True), _answer(("LC003", FOO))).kind == "differs"


def test_verdict_more_only_for_a_refinement_beside_another_problem() -> None:
    """LC004 beside another problem of the same block is the deliberate "loopcfg reports
    more"; elsewhere, or any other extra code, is a difference."""
    history = {"path": "tools.loopDetection.historySize", "message": "Invalid input"}
    ordering = ("LC004", ("tools", "loopDetection", "criticalThreshold"))
    typed = ("LC002", ("tools", "loopDetection", "historySize"))
    assert verdict(_vector(issues=[history]), _answer(typed, ordering)).kind == "more"
    agent = {"path": "agents.list.0.tools.loopDetection.historySize", "message": "Invalid input"}
    agent_typed = ("LC002", ("agents", "list", 0, "tools", "loopDetection", "historySize"))
    assert verdict(_vector(issues=[agent]), _answer(agent_typed, ordering)).kind == "differs"
    unknown = ("LC003", ("tools", "loopDetection", "bar"))
    assert verdict(_vector(issues=[history]), _answer(typed, unknown)).kind == "differs"


def test_verdict_outside_the_loop_parts() -> None:
    """An issue about a section loopcfg does not read is OpenClaw's alone; one about the
    loop parts is not."""
    gateway = {"path": "gateway.auth", "message": 'Unrecognized key: "x"'}
    assert verdict(_vector(issues=[gateway]), _answer()).kind == "outside"
    ownership = {"path": "agents", "message": 'Unrecognized key: "ownership"'}
    assert verdict(_vector(issues=[ownership]), _answer()).kind == "differs"
    model = {"path": "agents.list.0.model", "message": "Invalid input"}
    assert verdict(_vector(issues=[model]), _answer()).kind == "outside"


def test_a_converted_list_is_compared_in_its_written_layout() -> None:
    """2026.9.6 names a converted `agents.list` entry `agents.entries.<id>`."""
    vector = _vector(
        release="2026.9.6",
        issues=[{"path": "agents.entries.ops.tools.loopDetection", "message": "Invalid input"}],
        warnings=[
            {"path": "agents.entries", "message": "Moved agents.list to keyed agents.entries."}
        ],
    )
    path = ("agents", "list", 1, "tools", "loopDetection")
    answer = Answer(False, (("LC008", path),), ("main", "ops"), (), ())
    assert verdict(vector, answer).kind == "same"
    unconverted = {**vector, "warnings": []}
    assert verdict(unconverted, answer).kind == "differs"


def test_a_failed_conversion_is_one_problem() -> None:
    """`agents: Unrecognized key: "list"` and the at-least-one line that follows it are the
    list loopcfg reports as LC010."""
    vector = _vector(
        release="2026.9.6",
        issues=[
            {"path": "agents", "message": 'Unrecognized key: "list"'},
            {
                "path": "agents.entries",
                "message": "agents.entries must contain at least one configured agent",
            },
        ],
    )
    assert verdict(vector, _answer(("LC010", ("agents", "list")))).kind == "same"


def test_the_suite_knows_where_its_vectors_are() -> None:
    assert Path(__file__).with_name("vectors").is_dir()
