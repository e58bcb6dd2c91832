"""Import time: `loopcfg --version` and `validate` load only what they use (issue 2, part 4).

Each case runs the CLI in a fresh interpreter and inspects `sys.modules` afterwards, so a
module-level import added anywhere on the path shows up here. The figures are in
docs/performance.md (## Validate).
"""

from __future__ import annotations

import json
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, REPO

# Run the CLI as `loopcfg ARGS...`, then write the names of every loaded module to a file.
_PROBE = """
import json, sys
out, args = sys.argv[1], sys.argv[2:]
sys.argv = ["loopcfg", *args]
from loopcfg.cli import main
try:
    main()
except SystemExit:
    pass
with open(out, "w") as stream:
    json.dump(sorted(sys.modules), stream)
"""

HEAVY = ("jsonschema", "ruamel", "loopcfg.engine", "loopcfg.replay", "loopcfg.hashing")


def loaded_modules(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", _PROBE, str(out), *args],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    return set(json.loads(out.read_text()))


def present(modules: set[str], package: str) -> bool:
    return any(name == package or name.startswith(package + ".") for name in modules)


def test_version_imports_nothing_heavy(tmp_path: Path) -> None:
    modules = loaded_modules(tmp_path, "--version")
    assert "loopcfg.cli" in modules
    assert [package for package in HEAVY if present(modules, package)] == []
    # --version needs neither the loader nor the checks.
    assert not present(modules, "loopcfg.source")
    assert not present(modules, "loopcfg.check")


def test_validate_json5_imports_no_yaml_and_no_engine(tmp_path: Path) -> None:
    modules = loaded_modules(tmp_path, "validate", str(EXAMPLES / "openclaw.json5"))
    assert "loopcfg.source.json5" in modules  # the probe saw the real work
    for package in ("ruamel", "loopcfg.engine", "loopcfg.replay", "loopcfg.hashing"):
        assert not present(modules, package), package


def test_validate_loads_no_other_command(tmp_path: Path) -> None:
    # schema, replay, resolve and explain are defined in loopcfg/commands/ and imported only
    # when named (cli.LazyGroup): validate and --version do not build their options.
    for args in (("validate", str(EXAMPLES / "openclaw.json5")), ("--version",)):
        assert not present(loaded_modules(tmp_path, *args), "loopcfg.commands"), args
    modules = loaded_modules(tmp_path, "schema", "--block-only")
    assert "loopcfg.commands.schema" in modules
    assert "loopcfg.commands.replay" not in modules
    # --help lists every command with its short help, so it loads them all.
    modules = loaded_modules(tmp_path, "--help")
    for name in ("explain", "replay", "resolve", "schema"):
        assert f"loopcfg.commands.{name}" in modules


def test_an_unknown_command_is_matched_against_every_command() -> None:
    import click
    from click.testing import CliRunner

    from loopcfg.cli import cli

    result = CliRunner().invoke(cli, ["resolv"])
    assert result.exit_code == 2
    assert "No such command 'resolv'." in result.output
    if hasattr(click, "NoSuchCommand"):  # click 8.4 and later suggest close names
        assert "Did you mean 'resolve'?" in result.output


def test_validate_of_a_valid_config_imports_no_difflib(tmp_path: Path) -> None:
    # "did you mean" suggestions are the only use of difflib; a config without unknown keys
    # or agents does not pay for importing it (docs/performance.md, cold validate).
    modules = loaded_modules(tmp_path, "validate", str(EXAMPLES / "openclaw.json5"))
    assert "loopcfg.validate" in modules and "loopcfg.resolve" in modules
    assert "difflib" not in modules
    config = tmp_path / "openclaw.json5"
    config.write_text("{tools: {loopDetection: {historySise: 30}}}\n")
    assert "difflib" in loaded_modules(tmp_path, "validate", str(config))


def test_validate_of_a_valid_config_imports_no_jsonschema(tmp_path: Path) -> None:
    # The compiled check accepts a valid config; jsonschema (the largest import of a cold
    # validate) is loaded only to word the errors of an invalid one (loopcfg/fastcheck.py).
    modules = loaded_modules(tmp_path, "validate", str(EXAMPLES / "openclaw.json5"))
    assert "loopcfg._fastschema_s2" in modules
    assert not present(modules, "jsonschema")
    config = tmp_path / "openclaw.json5"
    config.write_text("{tools: {loopDetection: {enabled: 'yes'}}}\n")  # LC002
    assert present(loaded_modules(tmp_path, "validate", str(config)), "jsonschema")


def test_validate_of_a_valid_config_loads_no_catalogue(tmp_path: Path) -> None:
    # The catalogue holds every code's documentation; it is read for a finding's severity, so
    # a config without findings does not pay for loading it (docs/performance.md).
    modules = loaded_modules(tmp_path, "validate", str(EXAMPLES / "openclaw.json5"))
    assert "loopcfg.lint" in modules and "loopcfg.suppress" in modules
    assert not present(modules, "loopcfg.catalogue")
    config = tmp_path / "openclaw.json5"
    config.write_text("{tools: {loopDetection: {enabled: true, historySize: 5}}}\n")  # LC102
    assert "loopcfg.catalogue" in loaded_modules(tmp_path, "validate", str(config))


def test_validate_yaml_does_import_ruamel(tmp_path: Path) -> None:
    # The counterpart of the test above: the probe does see a lazily imported parser.
    config = tmp_path / "openclaw.yaml"
    config.write_text("tools:\n  loopDetection:\n    enabled: true\n")
    modules = loaded_modules(tmp_path, "validate", str(config))
    assert present(modules, "ruamel")
    assert "loopcfg.source.yaml" in modules
    assert not present(modules, "loopcfg.engine")


def test_value_classes_are_frozen_slotted_dataclasses() -> None:
    # Issue 15 put the small value classes back on the standard library: the hand-written
    # `Frozen` base saved a few milliseconds of start-up that the faster validate path now pays
    # for (docs/performance.md, "Validate (cold start)").
    import dataclasses

    from loopcfg.diagnostics import Diagnostic, Related
    from loopcfg.resolve import AgentEntry
    from loopcfg.settings import Adjustment, Source
    from loopcfg.source.nodes import Comment, Span

    for cls in (Diagnostic, Related, AgentEntry, Adjustment, Source, Comment, Span):
        assert dataclasses.is_dataclass(cls), cls
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert params.frozen, cls
        assert "__slots__" in vars(cls), cls


def test_replay_of_transcripts_imports_neither_the_parser_nor_the_stores(tmp_path: Path) -> None:
    """A replay without --config reads its files through `loopcfg.files`, never through the
    config parser's package (`loopcfg.source`), and opens no store; `decimal` and `base64`
    wait for the first float or bytes to hash (docs/performance.md)."""
    data = REPO / "tests" / "replay" / "data"
    modules = loaded_modules(tmp_path, "replay", str(data / "v1.jsonl"), "--jobs", "1")
    assert "loopcfg.replay.transcript" in modules  # the probe saw the real work
    assert "loopcfg.files" in modules
    for package in ("loopcfg.source", "loopcfg.diagnostics", "sqlite3", "loopcfg.replay.store"):
        assert not present(modules, package), package
    assert not present(modules, "decimal")
    assert not present(modules, "base64")


class _Cyclic:
    def __init__(self) -> None:
        self.itself = self


def test_collector_off_for_short_commands_and_back_on_for_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import gc

    from loopcfg.cli import main

    trace = tmp_path / "t.jsonl"
    trace.write_text('{"tool": "read", "args": {}}\n')
    try:
        monkeypatch.setattr(sys, "argv", ["loopcfg", "validate", str(EXAMPLES / "openclaw.json5")])
        with pytest.raises(SystemExit):
            main()
        assert not gc.isenabled()
        # What exists at the end of a short command is frozen: the interpreter's collections on
        # the way out skip it (docs/performance.md).
        assert gc.get_freeze_count() > 0
        gc.unfreeze()
        monkeypatch.setattr(sys, "argv", ["loopcfg", "replay", str(trace), "--jobs", "1"])
        with pytest.raises(SystemExit):
            main()
        # Replay runs with its collector, as any program; what existed once its modules were
        # imported is frozen (no collection scans it again), what it makes after is collected.
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
        watched = weakref.ref(_Cyclic())  # in a reference cycle, made after the freeze
        gc.collect()
        assert watched() is None
    finally:
        gc.unfreeze()
        gc.enable()
