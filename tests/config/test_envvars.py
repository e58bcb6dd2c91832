"""`${VAR}` substitution (01 §1.5) and `--env-file` reading."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopcfg.config import load_config, loaded_from_python
from loopcfg.envvars import EnvFileError, environment_with, read_env_file, substitute
from loopcfg.source.nodes import to_python
from loopcfg.validate import validate_config

Write = Callable[[str, str], Path]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${A}", "1"),
        ("x-${A}-${B_2}", "x-1-two"),
        ("$${A}", "${A}"),
        ("$$${A}", "$${A}"),  # OpenClaw's scan: `$` then the escape `$${A}`
        ("${a}", "${a}"),  # lower case is not a reference
        ("${1A}", "${1A}"),
        ("${A", "${A"),
        ("$A", "$A"),
        ("${}", "${}"),
        ("${A}${A}", "11"),
        ("no dollar", "no dollar"),
    ],
)
def test_substitution_rules(text: str, expected: str) -> None:
    assert substitute(text, {"A": "1", "B_2": "two"}) == (expected, [])


def test_unset_and_empty_are_reported_and_left_as_written() -> None:
    assert substitute("${UNSET}-${EMPTY}", {"EMPTY": ""}) == (
        "${UNSET}-${EMPTY}",
        [("UNSET", False), ("EMPTY", True)],
    )


def _openclaw_substitute(value: str, env: dict[str, str]) -> str | None:
    """A direct port of OpenClaw's character scan (env-substitution.ts); None: it would throw."""
    import re

    name_pattern = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
    chunks: list[str] = []
    i = 0
    while i < len(value):
        char = value[i]
        nxt, after = value[i + 1 : i + 2], value[i + 2 : i + 3]
        if char == "$" and nxt == "$" and after == "{":
            end = value.find("}", i + 3)
            if end != -1 and name_pattern.match(value[i + 3 : end]):
                chunks.append("${" + value[i + 3 : end] + "}")
                i = end + 1
                continue
        if char == "$" and nxt == "{":
            end = value.find("}", i + 2)
            if end != -1 and name_pattern.match(value[i + 2 : end]):
                found = env.get(value[i + 2 : end])
                if not found:
                    return None
                chunks.append(found)
                i = end + 1
                continue
        chunks.append(char)
        i += 1
    return "".join(chunks)


@given(st.text(alphabet="ab$${}AZ_09", max_size=24), st.sampled_from([{}, {"A": "x"}, {"AB": ""}]))
def test_substitution_agrees_with_openclaws_scan(text: str, env: dict[str, str]) -> None:
    result, missing = substitute(text, env)
    expected = _openclaw_substitute(text, env)
    if expected is None:
        assert missing
    else:
        assert (result, missing) == (expected, [])


def test_config_substitution_in_ids_and_blocks_only() -> None:
    config = {
        "gateway": {"token": "${UNSET_ELSEWHERE}"},
        "tools": {"loopDetection": {"historySize": "${N}", "detectors": {"x": "$${N}"}}},
        "agents": {"list": [{"id": "${AGENT}", "name": "${NOT_READ}"}]},
    }
    loaded = loaded_from_python(config, env={"N": "40", "AGENT": "main"})
    assert loaded.diagnostics == []
    value = to_python(loaded.root)  # type: ignore[arg-type]
    assert value["gateway"] == {"token": "${UNSET_ELSEWHERE}"}  # type: ignore[index]
    assert value["tools"]["loopDetection"] == {"historySize": "40", "detectors": {"x": "${N}"}}  # type: ignore[index]
    assert value["agents"]["list"][0] == {"id": "main", "name": "${NOT_READ}"}  # type: ignore[index]


def test_lc006_names_variable_and_config_path() -> None:
    loaded = loaded_from_python(
        {"agents": {"list": [{"id": "a"}, {"id": "${AGENT_ID}"}]}}, env={"AGENT_ID": ""}
    )
    (found,) = loaded.diagnostics
    assert found.code == "LC006"
    assert (
        found.message == 'Missing env var "AGENT_ID" referenced at config path: agents.list[1].id'
    )
    assert found.path == "agents.list[1].id"
    assert found.hint is not None and "is set but empty" in found.hint


def test_substitution_happens_after_includes_and_before_validation(write: Write) -> None:
    included = write("ld.json5", '{ warningThreshold: "${WARN}", criticalThreshold: "${CRIT}" }')
    top = write("openclaw.json5", '{ tools: { loopDetection: { $include: "ld.json5" } } }')
    loaded = load_config(top, env={"WARN": "10"})
    (missing,) = loaded.diagnostics
    assert (missing.code, missing.file) == ("LC006", str(included))
    assert missing.path == "tools.loopDetection.criticalThreshold"
    # A string stays a string: the schema then rejects it, as OpenClaw does. The value whose
    # variable is missing is not reported twice.
    codes = [(d.code, d.path) for d in validate_config(loaded)]
    assert codes == [("LC002", "tools.loopDetection.warningThreshold")]


def test_load_config_uses_the_process_environment_by_default(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPCFG_TEST_AGENT", "from-env")
    top = write("openclaw.json5", '{ agents: { list: [{ id: "${LOOPCFG_TEST_AGENT}" }] } }')
    assert to_python(load_config(top).root)["agents"]["list"][0]["id"] == "from-env"  # type: ignore[index]


def test_read_env_file(write: Write) -> None:
    path = write(
        ".env",
        "# a comment\n"
        "\n"
        "PLAIN=value\n"
        "export EXPORTED=yes\n"
        'DOUBLE="a b\\n c" # trailing comment\n'
        "SINGLE='keep \\n as is'\n"
        "SPACED = padded \n"
        "INLINE=x # comment\n"
        "EMPTY=\n"
        "EQUALS=a=b\n",
    )
    assert read_env_file(path) == {
        "PLAIN": "value",
        "EXPORTED": "yes",
        "DOUBLE": "a b\n c",
        "SINGLE": "keep \\n as is",
        "SPACED": "padded",
        "INLINE": "x",
        "EMPTY": "",
        "EQUALS": "a=b",
    }


def test_bad_env_files(write: Write, tmp_path: Path) -> None:
    with pytest.raises(EnvFileError) as missing:
        read_env_file(tmp_path / "nope.env")
    assert missing.value.diagnostic.code == "LC000"
    assert "cannot read env file" in missing.value.diagnostic.message
    bad = write("bad.env", "A=1\nnot an assignment\n")
    with pytest.raises(EnvFileError) as malformed:
        read_env_file(bad)
    span = malformed.value.diagnostic.span
    assert span is not None and (span.file, span.line) == (str(bad), 2)


def test_the_real_environment_wins_over_the_file(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(".env", "LOOPCFG_T1=file\nLOOPCFG_T2=file\n")
    monkeypatch.setenv("LOOPCFG_T1", "real")
    monkeypatch.delenv("LOOPCFG_T2", raising=False)
    env = environment_with(path)
    assert (env["LOOPCFG_T1"], env["LOOPCFG_T2"]) == ("real", "file")
