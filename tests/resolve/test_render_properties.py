"""Every text rendering of resolved settings reads back as the effective block (hypothesis over
generated configs): the JSON5 and YAML outputs are valid documents whose values are exactly the
JSON output's `effective` (an unset `enabled` is left out), and the JSON has every source."""

from __future__ import annotations

import io
import json
from typing import Any

import json5
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from loopcfg import resolve_agent
from loopcfg.keys import SETTINGS
from loopcfg.render.resolve import render
from tests.resolve.test_merge_properties import AGENT_IDS, configs


@settings(max_examples=50)
@given(configs(), st.one_of(st.none(), AGENT_IDS))
def test_json5_and_yaml_read_back_as_the_json_effective_block(
    case: Any, wanted: str | None
) -> None:
    result = resolve_agent(case[0], wanted)
    document = json.loads(render([result], "json", every=False))
    effective = document["effective"]
    assert effective == result.effective_block()
    written = {key: value for key, value in effective.items() if value is not None}
    assert json5.loads(render([result], "json5", every=False)) == written
    assert YAML(typ="safe").load(io.StringIO(render([result], "yaml", every=False))) == written
    assert list(document["sources"]) == [s.name for s in SETTINGS]
    assert document["detectorsActive"] is (effective["enabled"] is True)
    assert document["postCompactionGuardActive"] is (effective["enabled"] is not False)
    table = render([result], "explain", every=False)
    for setting in SETTINGS:
        assert any(line.startswith(setting.name + " ") for line in table.splitlines())
