"""The small value classes of the validate path keep their value semantics.

`Diagnostic`, `Related` (diagnostics.py), `Source`, `Adjustment` (settings.py) and `AgentEntry`
(resolve.py) are `@dataclass(frozen=True, slots=True)` (again, since issue 15); these tests pin
what callers rely on: the constructor, equality
and hash over the compared fields, reprs, `FrozenInstanceError`, `__match_args__`, and pickles
and copies made the same way. `EffectiveSettings` is documented as a dataclass and stays one.
"""

from __future__ import annotations

import copy
import copyreg
import dataclasses
import pickle
from typing import Any

import pytest

from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.resolve import AgentEntry
from loopcfg.settings import Adjustment, EffectiveSettings, Source, settings_from_block
from loopcfg.source.nodes import ObjectNode, Span

SPAN = Span("f.json5", 3, 5, 3, 9)
OTHER = Span("f.json5", 4, 1, 4, 2)


def examples() -> list[Any]:
    related = Related(OTHER, "warningThreshold is 5 here")
    return [
        related,
        Diagnostic("LC102", "warning", "m", "f.json5", SPAN, "a.b", "h", "main", (related,)),
        Diagnostic("LC000", "error", "cannot read", "f.json5"),
        Source("agent", "f.json5", 3, 5),
        Source("default"),
        Adjustment("criticalThreshold", 20, 26, "rule", "warningThreshold", Source("default")),
        AgentEntry(0, "Main", "main", ObjectNode([], None), SPAN, OTHER),
    ]


def field_values(value: Any) -> list[Any]:
    return [getattr(value, name) for name in type(value).__match_args__]


def test_constructors_keywords_and_defaults() -> None:
    diagnostic = Diagnostic(code="LC001", severity="error", message="m", file="f")
    assert field_values(diagnostic) == ["LC001", "error", "m", "f", None, None, None, None, ()]
    assert Diagnostic.__match_args__ == (
        "code",
        "severity",
        "message",
        "file",
        "span",
        "path",
        "hint",
        "agent",
        "related",
    )
    assert field_values(Source("global")) == ["global", None, None, None]
    assert Source.__match_args__ == ("origin", "file", "line", "column")
    adjustment = Adjustment("criticalThreshold", 10, 11, "r")
    assert (adjustment.raised_from, adjustment.written_source) == ("", None)
    assert Adjustment.__match_args__ == (
        "setting",
        "written",
        "effective",
        "rule",
        "raised_from",
        "written_source",
    )
    assert Related.__match_args__ == ("span", "message")
    assert AgentEntry.__match_args__ == (
        "index",
        "raw_id",
        "id",
        "node",
        "id_key_span",
        "id_value_span",
        "entry_key",
    )
    with pytest.raises(TypeError):
        Source()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Source("global", "f", 1, 2, 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Related(SPAN, "m", colour="red")  # type: ignore[call-arg]


def test_equality_and_hash_over_the_compared_fields() -> None:
    for value in examples():
        twin = type(value)(*field_values(value))
        assert twin == value
        assert not twin != value  # noqa: SIM202 - __ne__ follows __eq__
        assert hash(twin) == hash(value)
        assert value != tuple(field_values(value))
        assert value != None  # noqa: E711 - comparing with other types is False, not an error
    # As the dataclasses did: hash is the hash of the tuple of the compared fields.
    assert hash(Source("agent", "f", 1, 2)) == hash(("agent", "f", 1, 2))
    assert hash(Related(SPAN, "m")) == hash((SPAN, "m"))
    assert Source("agent") != Source("global")
    assert Diagnostic("LC1", "error", "m", "f") != Diagnostic("LC1", "warning", "m", "f")
    # raised_from and written_source are not part of an adjustment's identity.
    plain = Adjustment("criticalThreshold", 10, 11, "r")
    full = Adjustment("criticalThreshold", 10, 11, "r", "warningThreshold", Source("default"))
    assert plain == full and hash(plain) == hash(full) == hash(("criticalThreshold", 10, 11, "r"))
    assert plain != Adjustment("criticalThreshold", 10, 12, "r")
    # Agent entries compare their nodes by identity (nodes have no value equality).
    entry = examples()[-1]
    assert entry != AgentEntry(0, "Main", "main", ObjectNode([], None), SPAN, OTHER)
    with pytest.raises(TypeError):
        _ = Source("a") < Source("b")  # type: ignore[operator]


def test_frozen() -> None:
    for value in examples():
        for name in type(value).__match_args__:
            with pytest.raises(dataclasses.FrozenInstanceError, match=f"field '{name}'"):
                setattr(value, name, None)
            with pytest.raises(dataclasses.FrozenInstanceError, match=f"field '{name}'"):
                delattr(value, name)
        # Not a field: fails too (the dataclasses raised a TypeError here, from a CPython 3.11
        # bug in frozen slotted dataclasses; FrozenInstanceError is an AttributeError).
        with pytest.raises((TypeError, AttributeError)):
            value.colour = "red"
        assert not hasattr(value, "__dict__")


def test_reprs() -> None:
    assert repr(Source("agent", "f.json5", 28, 13)) == (
        "Source(origin='agent', file='f.json5', line=28, column=13)"
    )
    assert repr(Related(SPAN, "x")) == f"Related(span={SPAN!r}, message='x')"
    assert repr(Diagnostic("LC000", "error", "m", "f")) == (
        "Diagnostic(code='LC000', severity='error', message='m', file='f', span=None, path=None,"
        " hint=None, agent=None, related=())"
    )
    assert repr(Adjustment("criticalThreshold", 10, 11, "r")) == (
        "Adjustment(setting='criticalThreshold', written=10, effective=11, rule='r',"
        " raised_from='', written_source=None)"
    )
    node = ObjectNode([], None)
    assert repr(AgentEntry(1, "A", "a", node, None, SPAN)) == (
        f"AgentEntry(index=1, raw_id='A', id='a', node={node!r}, id_key_span=None,"
        f" id_value_span={SPAN!r}, entry_key=None)"
    )


def test_pickle_and_copy_as_the_dataclasses_did() -> None:
    for value in examples():
        # The same reduction a frozen slotted dataclass has: a pickle written by an earlier
        # version loads in this one and the other way round.
        assert value.__reduce_ex__(2) == (
            copyreg.__newobj__,
            (type(value),),
            field_values(value),
            None,
            None,
        )
        for twin in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert type(twin) is type(value)
            if isinstance(value, AgentEntry):  # its node compares by identity
                assert field_values(twin)[:3] == field_values(value)[:3]
            else:
                assert twin == value and field_values(twin) == field_values(value)


def test_with_severity_keeps_everything_else() -> None:
    diagnostic = examples()[1]
    info = diagnostic.with_severity("info")
    assert info.severity == "info" and diagnostic.severity == "warning"
    assert field_values(info)[2:] == field_values(diagnostic)[2:]
    assert info.code == diagnostic.code


def test_effective_settings_stay_a_dataclass_holding_these_values() -> None:
    settings = settings_from_block({"warningThreshold": 25})
    assert dataclasses.is_dataclass(settings)
    assert [field.name for field in dataclasses.fields(settings)][:2] == ["enabled", "history_size"]
    lower = dataclasses.replace(settings, history_size=5)
    assert lower.history_size == 5 and lower.adjustments == settings.adjustments
    assert settings == EffectiveSettings(
        **{f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
    )
    assert hash(settings) == hash(settings_from_block({"warningThreshold": 25}))
    assert pickle.loads(pickle.dumps(settings)) == settings


def test_findings_at_one_place_with_one_message_sort_by_path_and_agent() -> None:
    # One finding of an $include'd block shared by several agents: same file, place, code and
    # message, once per agent. Their order must not be the order they were found in.
    from itertools import permutations

    from loopcfg.diagnostics import Diagnostic, sort_diagnostics
    from loopcfg.source.nodes import Span

    span = Span("block.json5", 3, 3, 3, 19)
    found = [
        Diagnostic.at("LC009", "error", "m", span, path=f"agents.entries.{a}.x", agent=a)
        for a in ("k5", "k1", "k2")
    ]
    orders = {tuple(d.agent for d in sort_diagnostics(list(p))) for p in permutations(found)}
    assert orders == {("k1", "k2", "k5")}
