"""SARIF output: valid against the official SARIF 2.1.0 schema, and what GitHub code scanning needs.

The schema is OASIS's 2.1.0 (rtm.5) JSON Schema, kept in tests/data (draft-04). GitHub's
documented requirements beyond the schema are checked too: every result has a rule id that the
driver lists, a message, a location whose artifact URI is a relative or file URI in forward
slashes, and a region with a start line; the tool has a name, version and information URI.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from loopcfg.catalogue import RULES
from loopcfg.check import FileReport, check_paths
from loopcfg.diagnostics import Diagnostic, Related
from loopcfg.render.sarif import artifact_uri, sarif_log
from loopcfg.source.nodes import Span
from tests.cli.test_golden import CASES, run_case

SCHEMA = Path(__file__).resolve().parent.parent / "data" / "sarif-2.1.0-rtm.5.json"
_URI_REFERENCE = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+\Z")


@cache
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def assert_valid_sarif(log: dict[str, Any]) -> None:
    errors = sorted(validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert log["runs"]
    ids_seen = [run["automationDetails"]["id"] for run in log["runs"]]
    assert len(set(ids_seen)) == len(ids_seen)  # one run per target release
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert driver["name"] == "loopcfg" and driver["version"] and driver["informationUri"]
        assert run["columnKind"] == "unicodeCodePoints"
        ids = [rule["id"] for rule in driver["rules"]]
        for result in run["results"]:
            assert ids[result["ruleIndex"]] == result["ruleId"]
            assert result["message"]["text"]
            assert result["level"] in ("error", "warning", "note")
            for where in [*result["locations"], *result.get("relatedLocations", [])]:
                physical = where["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                assert _URI_REFERENCE.match(uri) and "\\" not in uri, uri
                region = physical.get("region")
                if region is not None:
                    assert region["startLine"] >= 1 and region["startColumn"] >= 1
                    assert (region["endLine"], region["endColumn"]) >= (
                        region["startLine"],
                        region["startColumn"],
                    )


@pytest.mark.parametrize("code", sorted(CASES))
def test_every_case_is_valid_sarif(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exit_code, text = run_case(code, "sarif", monkeypatch)
    assert exit_code == CASES[code].exit_code
    log = json.loads(text)
    assert_valid_sarif(log)
    (run,) = log["runs"]
    reported = {r["ruleId"] for r in run["results"]}
    reported |= {
        n["descriptor"]["id"]
        for i in run["invocations"]
        for n in i.get("toolExecutionNotifications", [])
    }
    assert code in reported


def test_one_rule_per_code_from_the_catalogue() -> None:
    log = sarif_log([])
    assert_valid_sarif(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == list(RULES)
    for rule in rules:
        entry = RULES[rule["id"]]
        assert rule["name"] == entry.name
        assert rule["shortDescription"]["text"] == entry.summary
        assert entry.why in rule["help"]["text"] and entry.why in rule["help"]["markdown"]
        expected = {"error": "error", "warning": "warning", "info": "note"}[entry.severity]
        assert rule["defaultConfiguration"]["level"] == expected
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_regions_levels_and_related_locations(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(
        "{tools: {loopDetection: {\n  enabled: true,\n  warningThreshold: 20,\n"
        "  criticalThreshold: 10, historySize: 15}}}\n",
        encoding="utf-8",
    )
    (report,) = check_paths([str(config)])
    log = sarif_log([report])
    assert_valid_sarif(log)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        (d.code, {"error": "error", "warning": "warning"}[d.severity]) for d in report.diagnostics
    ]
    for result, diagnostic in zip(results, report.diagnostics, strict=True):
        span = diagnostic.span
        assert span is not None
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region == {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": span.end_line,
            "endColumn": span.end_column,
        }
        related = result.get("relatedLocations", [])
        assert [r["message"]["text"] for r in related] == [r.message for r in diagnostic.related]
    lc004 = next(r for r in results if r["ruleId"] == "LC004")
    assert lc004["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 3


def test_positionless_and_unreadable_files() -> None:
    unreadable = Diagnostic.at("LC000", "error", "no such file", None, file="gone.json5")
    positionless = Diagnostic.at("LC008", "error", "not an object", None, file="a b.json5")
    log = sarif_log(
        [FileReport("gone.json5", [unreadable]), FileReport("a b.json5", [positionless])]
    )
    assert_valid_sarif(log)
    (run,) = log["runs"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["descriptor"]["id"] == "LC000"
    (result,) = run["results"]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "a%20b.json5"}
    }


def test_wide_and_astral_characters_count_as_one_column(tmp_path: Path) -> None:
    # columnKind unicodeCodePoints: an emoji before the key is one column, not two (UTF-16).
    config = tmp_path / "c.json5"
    config.write_text('{tools: {loopDetection: {/*🚀*/ "warningThreshhold": 3}}}', "utf-8")
    log = sarif_log(check_paths([str(config)]))
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startColumn"] == 32


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("openclaw.json5", "openclaw.json5"),
        ("config/open claw.json5", "config/open%20claw.json5"),
        ("<stdin>", "%3Cstdin%3E"),
        ("/etc/openclaw/openclaw.json5", "file:///etc/openclaw/openclaw.json5"),
        # A file name that is not UTF-8 (the byte 0xff arrives as "\udcff"): UnicodeEncodeError.
        ("caf\udcff.json5", "caf%FF.json5"),
        ("/tmp/caf\udcff.json5", "file:///tmp/caf%FF.json5"),
        ("caf\ud800.json5", "caf%5Cud800.json5"),
    ],
)
def test_artifact_uris(name: str, uri: str) -> None:
    assert artifact_uri(name) == uri


def test_related_location_in_another_file_keeps_its_own_uri() -> None:
    diagnostic = Diagnostic.at(
        "LC005",
        "error",
        "cannot be parsed",
        Span("openclaw.json5", 2, 3, 2, 9),
        related=(Related(Span("inc/part.json5", 1, 1, 1, 2), "here"),),
    )
    log = sarif_log([FileReport("openclaw.json5", [diagnostic])])
    assert_valid_sarif(log)
    (related,) = log["runs"][0]["results"][0]["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "inc/part.json5"


def test_the_schema_check_rejects_what_github_would() -> None:
    # The check above is not vacuous: a level SARIF does not know, or a missing version, fails.
    diagnostic = Diagnostic.at("LC102", "warning", "never fires", Span("c.json5", 1, 2, 1, 3))
    log = sarif_log([FileReport("c.json5", [diagnostic])])
    log["runs"][0]["results"][0]["level"] = "info"
    assert list(validator().iter_errors(log))
    del log["version"]
    assert len(list(validator().iter_errors(log))) >= 2


def test_rule_help_fences_the_configs_of_a_fix() -> None:
    rules = {rule["id"]: rule for rule in sarif_log([])["runs"][0]["tool"]["driver"]["rules"]}
    lc005 = rules["LC005"]["help"]["markdown"]
    prose, _, rest = lc005.partition("**Fix**\n\n")[2].partition("\n\n```json5\n{")
    assert prose.startswith("Create ./loop-detection.json5") and rest
    lc000 = rules["LC000"]["help"]["markdown"].partition("**Fix**\n\n")[2]
    assert lc000.startswith("Name an existing") and "```" not in lc000
    lc002 = rules["LC002"]["help"]["markdown"].partition("**Fix**\n\n")[2]
    assert lc002.startswith("```json5\n{")


def test_every_rule_has_help_text_and_markdown_from_the_catalogue() -> None:
    rules = sarif_log([])["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == list(RULES)
    for rule in rules:
        entry = RULES[rule["id"]]
        assert entry.what in rule["help"]["text"] and entry.why in rule["help"]["text"]
        assert entry.what in rule["help"]["markdown"]
        assert f"loopcfg explain {entry.code}" in rule["help"]["markdown"]


def _fingerprints(path: Path) -> list[tuple[str, str]]:
    log = sarif_log(check_paths([str(path)]))
    assert_valid_sarif(log)
    return [
        (result["ruleId"], result["partialFingerprints"]["loopcfg/v1"])
        for result in log["runs"][0]["results"]
    ]


def test_partial_fingerprints_are_unique_and_survive_lines_added_above(tmp_path: Path) -> None:
    body = (
        "tools: { loopDetection: { warningThreshhold: 3, criticalThreshhold: 4 } },\n"
        "agents: { list: [ { id: 'a', tools: { loopDetection: { historySize: 3 } } } ] }\n"
    )
    path = tmp_path / "openclaw.json5"
    path.write_text("{\n" + body + "}\n")
    before = _fingerprints(path)
    assert len(before) >= 2
    assert len({fingerprint for _, fingerprint in before}) == len(before)
    path.write_text("// a comment\n\n{\n" + body + "}\n")
    assert _fingerprints(path) == before


def test_automation_details_name_the_target_release() -> None:
    assert sarif_log([])["runs"][0]["automationDetails"] == {
        "id": "loopcfg/validate/openclaw-default/"
    }
    run = sarif_log([FileReport("a.json5", (), target="2026.9.6")])["runs"][0]
    assert run["automationDetails"]["id"] == "loopcfg/validate/openclaw-2026.9.6/"
    assert_valid_sarif(sarif_log([FileReport("a.json5", (), target="2026.9.6")]))


def test_one_run_per_target_release(tmp_path: Path) -> None:
    # Each file is checked for its own target (--openclaw, else its meta.lastTouchedVersion):
    # code scanning keeps one category per release, so its alerts never close each other.
    old = tmp_path / "a" / "openclaw.json5"
    new = tmp_path / "b" / "openclaw.json5"
    none = tmp_path / "c" / "openclaw.json5"
    for path, meta in ((old, "2026.7.1-2"), (new, "2026.9.6"), (none, None)):
        path.parent.mkdir()
        stamp = f'meta: {{lastTouchedVersion: "{meta}"}}, ' if meta else ""
        path.write_text("{" + stamp + "tools: {loopDetection: {enabled: true, historySize: 5}}}\n")
    log = sarif_log(check_paths([str(old), str(new), str(none)]))
    assert_valid_sarif(log)
    ids = [run["automationDetails"]["id"] for run in log["runs"]]
    assert ids == [
        "loopcfg/validate/openclaw-default/",
        "loopcfg/validate/openclaw-2026.7.1-2/",
        "loopcfg/validate/openclaw-2026.9.6/",
    ]
    files = [
        {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
        for run in log["runs"]
    ]
    assert all(len(uris) == 1 for uris in files)  # each run holds its own file's findings
    codes = [{r["ruleId"] for r in run["results"]} for run in log["runs"]]
    assert "LC009" in codes[2] and "LC009" not in codes[1]  # historySize retired in 2026.8.1
