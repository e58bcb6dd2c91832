"""LC101-LC108, LC201, LC202 at library level (03): code, severity, message, primary position
(03's placement rules), related locations and agent, each with the near miss that must not fire.

Places are stated by the text they point at (`where(text, "warningThreshold: 25")`), so each
test says which token a finding must point at, independently of the parser's arithmetic.
"""

from __future__ import annotations

import pytest

from loopcfg.render.diagnostics import diagnostic_line
from tests.lint.conftest import Linter, Seen, where


def config(block: str = "", agents: str = "") -> str:
    """A config whose global block holds `block` (lines) and `agents.list` holds `agents`."""
    text = "{\n  tools: {\n    loopDetection: {\n" + block + "    },\n  },\n"
    if agents:
        text += "  agents: {\n    list: [\n" + agents + "    ],\n  },\n"
    return text + "}\n"


def lines(**settings: object) -> str:
    """Block lines, one setting per line: lines(enabled=True, historySize=20)."""
    out = ""
    for name, value in settings.items():
        shown = str(value).lower() if isinstance(value, bool) else value
        out += f"      {name}: {shown},\n"
    return out


def agent(agent_id: str, block: str = "") -> str:
    """One `agents.list` entry on one line, with an override block when given."""
    tools = f", tools: {{ loopDetection: {{ {block} }} }}" if block else ""
    return f'      {{ id: "{agent_id}"{tools} }},\n'


def at(found: Seen) -> tuple[int | None, int | None]:
    return found.line, found.column


# -- LC101: ordering broken only after merging --


def test_lc101_agent_value_over_a_default(linter: Linter) -> None:
    text = config(lines(enabled=True), agent("safe-runner", "warningThreshold: 25"))
    assert linter.one("LC101", text) == Seen(
        "LC101",
        "warning",
        *where(text, "warningThreshold: 25"),
        "agents.list[0].tools.loopDetection.warningThreshold",
        "safe-runner",
        'agent "safe-runner": warningThreshold 25 (here) is not below criticalThreshold 20 '
        "(default); OpenClaw raises criticalThreshold to 26",
        "set criticalThreshold above 25 or lower warningThreshold",
        (),
    )


def test_lc101_names_both_positions_and_points_at_the_agents_own_value(linter: Linter) -> None:
    text = config(lines(enabled=True, criticalThreshold=15), agent("eager", "warningThreshold: 18"))
    line, column = where(text, "criticalThreshold: 15")
    assert linter.one("LC101", text) == Seen(
        "LC101",
        "warning",
        *where(text, "warningThreshold: 18"),
        "agents.list[0].tools.loopDetection.warningThreshold",
        "eager",
        'agent "eager": warningThreshold 18 (here) is not below criticalThreshold 15 (global at '
        f"openclaw.json5:{line}:{column}); OpenClaw raises criticalThreshold to 19",
        "set criticalThreshold above 18 or lower warningThreshold",
        ((line, column, "criticalThreshold is 15 here"),),
    )


def test_lc101_at_the_larger_key_when_the_agent_writes_it(linter: Linter) -> None:
    # critical >= global: globalCircuitBreakerThreshold is the one that must be larger.
    text = config(
        lines(enabled=True, criticalThreshold=20),
        agent("a", "globalCircuitBreakerThreshold: 20"),
    )
    found = linter.one("LC101", text)
    assert at(found) == where(text, "globalCircuitBreakerThreshold: 20")
    assert found.agent == "a"
    assert found.path == "agents.list[0].tools.loopDetection.globalCircuitBreakerThreshold"
    line, column = where(text, "criticalThreshold: 20")
    assert found.message == (
        f'agent "a": criticalThreshold 20 (global at openclaw.json5:{line}:{column}) is not below '
        "globalCircuitBreakerThreshold 20 (here); OpenClaw raises globalCircuitBreakerThreshold "
        "to 21"
    )
    assert found.related == ((line, column, "criticalThreshold is 20 here"),)


def test_lc101_cascade_reports_each_raise_once(linter: Linter) -> None:
    text = config(
        lines(enabled=True, historySize=40, criticalThreshold=15),
        agent("eager", "warningThreshold: 29"),
    )
    found = sorted(linter.of("LC101", text), key=lambda f: f.message.split("; ")[1])
    assert [f.message.split("; ")[1] for f in found] == [
        "OpenClaw raises criticalThreshold to 30",
        "OpenClaw raises globalCircuitBreakerThreshold to 31",
    ]
    cascade = found[1]
    assert cascade.message.startswith(
        'agent "eager": criticalThreshold 30 (raised from 15) is not below '
        "globalCircuitBreakerThreshold 30 (default)"
    )
    # The raise follows warningThreshold, so that is what a user can lower.
    assert cascade.hint == "set globalCircuitBreakerThreshold above 30 or lower warningThreshold"
    assert {at(f) for f in found} == {where(text, "warningThreshold: 29")}


def test_lc101_global_finding_once_not_per_inheriting_agent(linter: Linter) -> None:
    text = config(
        lines(enabled=True, warningThreshold=25),
        agent("a") + agent("b", "historySize: 50"),
    )
    found = linter.one("LC101", text)
    assert (*at(found), found.agent) == (*where(text, "warningThreshold: 25"), None)
    assert found.message == (
        "warningThreshold 25 (here) is not below criticalThreshold 20 (default); OpenClaw raises "
        "criticalThreshold to 26"
    )


def test_lc101_not_when_the_merge_keeps_the_order(linter: Linter) -> None:
    text = config(lines(enabled=True, criticalThreshold=25), agent("a", "warningThreshold: 24"))
    assert linter.codes(text) == []


def test_lc101_not_for_an_order_broken_inside_one_block(linter: Linter) -> None:
    # That is LC004, an error: OpenClaw refuses the file and the threshold lints do not run.
    # LC103 reads only `enabled`, so it still says both thresholds have no effect (03, last
    # paragraph: errors hide only the lints that read the broken value).
    codes = linter.codes(config(lines(warningThreshold=20, criticalThreshold=20)))
    assert sorted(codes) == ["LC004", "LC103", "LC103"]
    enabled = lines(enabled=True, warningThreshold=20, criticalThreshold=20)
    assert linter.codes(config(enabled)) == ["LC004"]


# -- LC102: unreachable thresholds --


def _subjects(linter: Linter, text: str) -> list[str]:
    """The thresholds LC102 calls unreachable, in order."""
    return sorted(f.message.split(" ")[0] for f in linter.of("LC102", text))


def test_lc102_unknown_tool_at_history_is_reachable(linter: Linter) -> None:
    block = lines(enabled=True, historySize=20, unknownToolThreshold=20, criticalThreshold=19)
    assert _subjects(linter, config(block + lines(globalCircuitBreakerThreshold=20))) == []
    block = block.replace("unknownToolThreshold: 20", "unknownToolThreshold: 21")
    assert _subjects(linter, config(block + lines(globalCircuitBreakerThreshold=20))) == [
        "unknownToolThreshold"
    ]


def test_lc102_breaker_one_above_history(linter: Linter) -> None:
    text = config(
        lines(enabled=True, historySize=20, criticalThreshold=19, globalCircuitBreakerThreshold=21)
    )
    line, column = where(text, "historySize")
    assert linter.one("LC102", text) == Seen(
        "LC102",
        "warning",
        *where(text, "globalCircuitBreakerThreshold"),
        "tools.loopDetection.globalCircuitBreakerThreshold",
        None,
        "globalCircuitBreakerThreshold 21 (here) can never fire: no count exceeds historySize 20 "
        f"(global at openclaw.json5:{line}:{column})",
        "lower globalCircuitBreakerThreshold to at most 20 or raise historySize to at least 21",
        ((line, column, "historySize is 20 here"),),
    )
    at_limit = lines(
        enabled=True, historySize=20, criticalThreshold=19, globalCircuitBreakerThreshold=20
    )
    assert linter.codes(config(at_limit)) == []


def test_lc102_ping_pong_allows_history_plus_one(linter: Linter) -> None:
    # critical 21 = historySize + 1 is reachable by a ping-pong count (it includes the current
    # call); the breaker, above critical, cannot be.
    block = lines(enabled=True, historySize=20, criticalThreshold=21)
    assert _subjects(linter, config(block)) == ["globalCircuitBreakerThreshold"]
    text = config(block.replace("21", "22"))
    line, column = where(text, "historySize")
    found = [f for f in linter.of("LC102", text) if f.message.startswith("criticalThreshold")]
    assert len(found) == 1
    assert at(found[0]) == where(text, "criticalThreshold")
    assert found[0].message == (
        f"criticalThreshold 22 (here) can never fire: no count exceeds historySize 20 (global at "
        f"openclaw.json5:{line}:{column}) + 1, as a ping-pong count includes the current call"
    )
    assert (
        found[0].hint == "lower criticalThreshold to at most 21 or raise historySize to at least 21"
    )
    assert [r[2] for r in found[0].related] == ["historySize is 20 here"]


def test_lc102_without_ping_pong_history_is_the_limit(linter: Linter) -> None:
    block = lines(enabled=True, historySize=20, warningThreshold=20, criticalThreshold=21)
    assert _subjects(linter, config(block)) == ["globalCircuitBreakerThreshold"]
    text = config(block + "      detectors: { pingPong: false },\n")
    assert _subjects(linter, text) == ["criticalThreshold", "globalCircuitBreakerThreshold"]
    found = next(f for f in linter.of("LC102", text) if f.message.startswith("criticalThreshold"))
    assert at(found) == where(text, "criticalThreshold")
    assert found.message.startswith("criticalThreshold 21 (here) can never fire")
    assert "+ 1" not in found.message
    # The pingPong switch is context (related), never the place to fix.
    assert [r[2] for r in found.related] == [
        "historySize is 20 here",
        "detectors.pingPong is false here",
    ]


def test_lc102_unknown_tool_threshold_ignores_ping_pong(linter: Linter) -> None:
    block = lines(enabled=True, historySize=30, unknownToolThreshold=31)
    found = linter.one("LC102", config(block))
    assert at(found) == where(config(block), "unknownToolThreshold")
    assert found.message.endswith("no count exceeds historySize 30 (global at openclaw.json5:5:7)")
    assert linter.of("LC102", config(block.replace("31", "30"))) == []


def test_lc102_defaults_over_a_short_history_point_at_history(linter: Linter) -> None:
    text = config(lines(enabled=True, historySize=12))
    found = linter.of("LC102", text)
    # warning 10 fits (<= 13), critical 20 and the breaker 30 do not, unknown-tool 10 fits.
    assert sorted(f.message.split(" can")[0] for f in found) == [
        "criticalThreshold 20 (default)",
        "globalCircuitBreakerThreshold 30 (default)",
    ]
    assert {(*at(f), f.agent) for f in found} == {(*where(text, "historySize"), None)}


def test_lc102_global_finding_once_not_per_inheriting_agent(linter: Linter) -> None:
    text = config(lines(enabled=True, historySize=25), agent("a") + agent("b"))
    found = linter.one("LC102", text)
    assert (found.agent, at(found)) == (None, where(text, "historySize"))


def test_lc102_only_where_the_detectors_run(linter: Linter) -> None:
    # enabled unset: no threshold fires at all (LC103 covers the written settings); an agent
    # turning the detectors on gets its own finding, at the global value it inherits.
    text = config(lines(historySize=25), agent("off") + agent("on", "enabled: true"))
    found = linter.one("LC102", text)
    assert (found.agent, at(found)) == ("on", where(text, "historySize"))
    assert found.message == (
        'agent "on": globalCircuitBreakerThreshold 30 (default) can never fire: no count exceeds '
        "historySize 25 (here)"
    )
    assert linter.of("LC103", text) == []  # "on" uses the global historySize
    assert linter.of("LC102", config(lines(historySize=25), agent("off"))) == []


def test_lc102_raised_value_names_the_raise(linter: Linter) -> None:
    text = config(lines(enabled=True, historySize=5, globalCircuitBreakerThreshold=5))
    breaker = [f for f in linter.of("LC102", text) if at(f) == where(text, "globalCircuit")]
    assert len(breaker) == 1
    assert breaker[0].message.startswith(
        "globalCircuitBreakerThreshold 21 (raised from 5 here) can never fire"
    )
    assert breaker[0].hint == (
        "raise historySize to at least 21 or lower criticalThreshold, which the raise follows"
    )


# -- LC103: settings without effect --


def test_lc103_global_settings_while_enabled_is_unset(linter: Linter) -> None:
    text = config(lines(historySize=40) + "      detectors: { pingPong: false },\n")
    assert linter.of("LC103", text) == [
        Seen(
            "LC103",
            "warning",
            *where(text, "historySize"),
            "tools.loopDetection.historySize",
            None,
            "historySize 40 has no effect: the rolling detectors are inactive (enabled is not set)",
            "set enabled: true to run the detectors, or remove the setting",
            (),
        ),
        Seen(
            "LC103",
            "warning",
            *where(text, "pingPong"),
            "tools.loopDetection.detectors.pingPong",
            None,
            "detectors.pingPong false has no effect: the rolling detectors are inactive "
            "(enabled is not set)",
            "set enabled: true to run the detectors, or remove the setting",
            (),
        ),
    ]


def test_lc103_global_with_agents_and_an_agents_own_setting(linter: Linter) -> None:
    text = config(
        lines(enabled=False, warningThreshold=5), agent("a") + agent("b", "historySize: 9")
    )
    found = linter.of("LC103", text)
    enabled = where(text, "enabled")
    assert [(at(f), f.agent) for f in found] == [
        (where(text, "warningThreshold"), None),
        (where(text, "historySize"), "b"),
    ]
    assert found[0].message == (
        "warningThreshold 5 has no effect: the rolling detectors are inactive (enabled: false, "
        f"global at openclaw.json5:{enabled[0]}:{enabled[1]}) here and in every agent that "
        "inherits it"
    )
    assert found[0].related == ((*enabled, "enabled is false here"),)
    assert found[1].message.startswith('agent "b": historySize 9 has no effect')


def test_lc103_not_when_an_agent_turns_the_detectors_on(linter: Linter) -> None:
    text = config(
        lines(warningThreshold=5, criticalThreshold=8), agent("a") + agent("b", "enabled: true")
    )
    assert linter.of("LC103", text) == []


def test_lc103_window_size_only_where_the_guard_is_off(linter: Linter) -> None:
    text = config(lines(enabled=False) + "      postCompactionGuard: { windowSize: 4 },\n")
    found = linter.one("LC103", text)
    assert at(found) == where(text, "windowSize")
    assert found.message == (
        "postCompactionGuard.windowSize 4 has no effect: the post-compaction guard is off "
        "(enabled: false, global at openclaw.json5:4:7)"
    )
    assert found.hint == "remove it, or remove enabled: false to keep the guard"
    # enabled unset: the guard runs, so the window is used.
    assert linter.codes(config("      postCompactionGuard: { windowSize: 4 },\n")) == []
    # an agent that keeps the guard (enabled true) uses the inherited window.
    with_agent = config(
        lines(enabled=False) + "      postCompactionGuard: { windowSize: 4 },\n",
        agent("a", "enabled: true"),
    )
    assert linter.of("LC103", with_agent) == []


# -- LC104, LC105 --


def test_lc104_all_detectors_off(linter: Linter) -> None:
    block = lines(enabled=True) + (
        "      detectors: { genericRepeat: false, knownPollNoProgress: false, pingPong: false },\n"
    )
    text = config(block)
    found = linter.one("LC104", text)
    assert (*at(found), found.agent) == (*where(text, "enabled"), None)
    assert found.message == (
        "enabled is true but genericRepeat, knownPollNoProgress and pingPong are all off: only "
        "the unknown-tool and global circuit breakers remain"
    )
    assert found.related == (
        (*where(text, "genericRepeat"), "detectors.genericRepeat is false here"),
        (*where(text, "knownPollNoProgress"), "detectors.knownPollNoProgress is false here"),
        (*where(text, "pingPong"), "detectors.pingPong is false here"),
    )
    assert linter.of("LC104", config(block.replace("pingPong: false", "pingPong: true"))) == []
    assert linter.of("LC104", config(block.replace("enabled: true,", ""))) == []


def test_lc104_after_an_agents_merge_points_at_its_own_switch(linter: Linter) -> None:
    text = config(
        lines(enabled=True)
        + "      detectors: { genericRepeat: false, knownPollNoProgress: false },\n",
        agent("a", "detectors: { pingPong: false }") + agent("b"),
    )
    found = linter.one("LC104", text)
    assert (*at(found), found.agent) == (*where(text, "pingPong"), "a")
    assert found.path == "agents.list[0].tools.loopDetection.detectors.pingPong"
    assert [(r[0], r[1]) for r in found.related] == [
        where(text, "enabled"),
        where(text, "genericRepeat"),
        where(text, "knownPollNoProgress"),
    ]


def test_lc105_window_one(linter: Linter) -> None:
    text = config("      postCompactionGuard: { windowSize: 1 },\n")
    assert linter.one("LC105", text) == Seen(
        "LC105",
        "warning",
        *where(text, "windowSize"),
        "tools.loopDetection.postCompactionGuard.windowSize",
        None,
        "postCompactionGuard.windowSize 1 makes the post-compaction guard abort the run on the "
        "first tool call after every compaction",
        "use 2 or more; the default is 3",
        (),
    )
    assert linter.codes(config("      postCompactionGuard: { windowSize: 2 },\n")) == []
    off = lines(enabled=False) + "      postCompactionGuard: { windowSize: 1 },\n"
    assert sorted(linter.codes(config(off))) == ["LC103", "LC201"]  # guard off: no abort


# -- LC106, LC107, LC108: ids and keys --


def test_lc106_duplicate_after_normalisation_and_lc108(linter: Linter) -> None:
    text = config(
        lines(enabled=True), agent("safe-runner") + agent("Safe Runner", "historySize: 3")
    )
    first = where(text, '"safe-runner"')
    assert linter.one("LC106", text) == Seen(
        "LC106",
        "warning",
        *where(text, '"Safe Runner"'),
        "agents.list[1].id",
        "safe-runner",
        'duplicate agent id "safe-runner": agents.list[0] ("safe-runner") has it already after '
        "normalisation, so OpenClaw ignores this entry",
        "give this agent its own id or merge the two entries",
        ((*first, 'first entry with id "safe-runner" (this one is used)'),),
    )
    assert linter.one("LC108", text) == Seen(
        "LC108",
        "warning",
        *where(text, '"Safe Runner"'),
        "agents.list[1].id",
        "safe-runner",
        'agent id "Safe Runner" is normalised by OpenClaw to "safe-runner": session keys, folders '
        "and --agent use that",
        'write id: "safe-runner"',
        (),
    )
    # The ignored entry's block is never linted: historySize 3 would be LC102 otherwise.
    assert sorted(linter.codes(text)) == ["LC106", "LC108"]


def test_lc106_same_id_twice_says_so_without_normalisation(linter: Linter) -> None:
    text = config("", agent("main") + agent("main"))
    found = linter.one("LC106", text)
    assert at(found) == where(text, '"main"', 2)
    assert "after normalisation" not in found.message


def test_lc106_and_lc108_not_for_distinct_normalised_ids(linter: Linter) -> None:
    assert linter.codes(config("", agent("safe-runner") + agent("safe_runner"))) == []


def test_lc107_duplicate_key_points_at_the_later(linter: Linter) -> None:
    text = config(lines(enabled=True, historySize=10) + "      historySize: 40,\n")
    first = where(text, "historySize: 10")
    assert linter.one("LC107", text) == Seen(
        "LC107",
        "warning",
        *where(text, "historySize: 40"),
        "tools.loopDetection.historySize",
        None,
        f'duplicate key "historySize" in tools.loopDetection: the earlier value (line {first[0]}) '
        "is ignored",
        "remove one of them",
        ((*first, "first written here"),),
    )
    # The later value is the one resolved: 40 leaves no threshold unreachable (10 would not).
    assert linter.codes(text) == ["LC107"]


def test_lc107_in_an_included_file_and_not_across_objects(linter: Linter) -> None:
    included = "{\n  enabled: true,\n  enabled: true,\n}\n"
    linter.write("block.json5", included)
    found = linter.all('{\n  tools: { loopDetection: { $include: "./block.json5" } },\n}\n')
    assert [(d.code, d.file, d.span.line if d.span else 0) for d in found] == [
        ("LC107", "block.json5", where(included, "enabled", 2)[0])
    ]
    assert "LC107" not in linter.codes(config(lines(enabled=True), agent("a", "enabled: true")))


def test_lc108_alone(linter: Linter) -> None:
    text = config("", agent(" Ops Team "))
    found = linter.one("LC108", text)
    assert (*at(found), found.agent) == (*where(text, '" Ops Team "'), "ops-team")
    assert found.hint == 'write id: "ops-team"'


def test_lc106_and_lc108_not_for_an_id_whose_variable_is_unset(linter: Linter) -> None:
    """`${VAR}` that failed is LC006 already; its literal text is not the id the user gets."""
    text = config(
        "", agent("${OPENCLAW_AGENT_ID}") + agent("${OPENCLAW_AGENT_ID}") + agent("team-${TEAM}")
    )
    assert linter.codes(text) == ["LC006", "LC006", "LC006"]
    # A resolved id next to them is still linted.
    assert linter.codes(config("", agent("${UNSET_ID}") + agent("Main"))) == ["LC006", "LC108"]


# -- LC201, LC202: information --


def test_lc201_global(linter: Linter) -> None:
    text = config(lines(enabled=False))
    assert linter.one("LC201", text) == Seen(
        "LC201",
        "info",
        *where(text, "enabled"),
        "tools.loopDetection.enabled",
        None,
        "enabled: false also turns off the post-compaction guard",
        "remove enabled to keep the guard while the rolling detectors stay off",
        (),
    )
    assert linter.codes(config(lines(enabled=True))) == []
    assert linter.codes(config("")) == []


def test_lc201_agent_over_an_inherited_true(linter: Linter) -> None:
    # Removing the agent's false would inherit true: the hint must not say "remove it".
    text = config(lines(enabled=True), agent("a", "enabled: false"))
    found = linter.one("LC201", text)
    assert (*at(found), found.agent) == (*where(text, "enabled: false"), "a")
    assert found.message == 'agent "a": enabled: false also turns off the post-compaction guard'
    assert found.hint == (
        "without it the agent inherits enabled: true, which turns on the detectors too"
    )


def test_lc201_global_finding_once(linter: Linter) -> None:
    text = config(lines(enabled=False), agent("a") + agent("b"))
    assert [f.agent for f in linter.of("LC201", text)] == [None]


def test_lc202_equal_to_global_and_to_default(linter: Linter) -> None:
    text = config(
        lines(enabled=True, historySize=40),
        agent("a", "historySize: 40, warningThreshold: 10, criticalThreshold: 19"),
    )
    inherited = where(text, "historySize: 40")
    assert linter.of("LC202", text) == [
        Seen(
            "LC202",
            "info",
            *where(text, "historySize: 40", 2),
            "agents.list[0].tools.loopDetection.historySize",
            "a",
            'agent "a": historySize 40 equals what it inherits from the global block at '
            f"openclaw.json5:{inherited[0]}:{inherited[1]}",
            "remove it from the agent's block",
            ((*inherited, "historySize is 40 here"),),
        ),
        Seen(
            "LC202",
            "info",
            *where(text, "warningThreshold: 10"),
            "agents.list[0].tools.loopDetection.warningThreshold",
            "a",
            'agent "a": warningThreshold 10 equals what it inherits from the default',
            "remove it from the agent's block",
            (),
        ),
    ]


def test_lc202_never_in_the_global_block(linter: Linter) -> None:
    assert linter.codes(config(lines(historySize=30, enabled=True))) == []


# -- errors: the broken part is skipped, the rest is still linted --


def test_an_agent_with_errors_is_skipped_and_the_others_are_linted(linter: Linter) -> None:
    text = config(
        lines(enabled=True, historySize=12),
        agent("a", 'enabled: "yes", historySize: 1')
        + agent("b", "postCompactionGuard: { windowSize: 1 }"),
    )
    assert sorted((d.code, d.agent) for d in linter.all(text)) == [
        ("LC002", None),
        ("LC102", None),
        ("LC102", None),
        ("LC105", "b"),
    ]


def test_errors_in_the_global_block_skip_every_block_lint(linter: Linter) -> None:
    text = config(
        lines(enabled=True, historySize=0),
        agent("a", "postCompactionGuard: { windowSize: 1 }") + agent("A"),
    )
    # Every agent reads the broken global block; ids and duplicate keys are still checked.
    assert sorted(linter.codes(text)) == ["LC002", "LC106", "LC108"]


def test_lc107_in_yaml_the_later_value_is_used(linter: Linter) -> None:
    text = "tools:\n  loopDetection:\n    enabled: true\n    historySize: 10\n    historySize: 40\n"
    found = linter.one("LC107", text, "openclaw.yaml")
    assert at(found) == where(text, "historySize: 40")
    assert found.related == ((*where(text, "historySize: 10"), "first written here"),)
    assert linter.codes(text, "openclaw.yaml") == ["LC107"]  # 40 is read: nothing unreachable


# -- how findings read --


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    return deepest


@pytest.mark.parametrize(
    "text",
    [
        config("      postCompactionGuard: { windowSize: 1 },\n"),  # LC105
        config(lines(enabled=True, historySize=5, globalCircuitBreakerThreshold=5)),  # LC102
        config(lines(enabled=True), agent("a", "enabled: false")),  # LC201 (inherits true)
        config(lines(enabled=False), agent("a", "enabled: false")),  # LC201, LC202
        config(lines(enabled=True), agent("main") + agent("Main")),  # LC106, LC108
        config(lines(enabled=True), agent("a", "warningThreshold: 25")),  # LC101
        config(lines(warningThreshold=5)),  # LC103
    ],
)
def test_no_brackets_inside_brackets_in_a_rendered_line(linter: Linter, text: str) -> None:
    """`message (hint)` reads badly when the hint has brackets of its own: "(use 2 (or 3))"."""
    found = linter.all(text)
    assert found
    for diagnostic in found:
        assert _nesting(diagnostic_line(diagnostic)) <= 1, diagnostic_line(diagnostic)
        for related in diagnostic.related:
            assert _nesting(related.message) <= 1, related.message
