"""`validate` options end to end: --env-file, --max-bytes, colour and tty, stdin, usage errors.

Every usage or I/O problem exits 2 with one line on stderr and no traceback.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from loopcfg import cli as cli_module
from loopcfg.check import check_file

CLEAN_ENV: dict[str, str | None] = {"NO_COLOR": None, "OPENCLAW_CONFIG_PATH": None, "AGENT": None}
BROKEN = "{tools: {loopDetection: {\n\twarningThreshhold: 3}}}\n"


def invoke(
    *args: str, env: dict[str, str | None] | None = None, stdin: str | None = None
) -> Result:
    return CliRunner().invoke(
        cli_module.cli, list(args), env={**CLEAN_ENV, **(env or {})}, input=stdin
    )


def assert_one_line_usage_error(result: Result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


@pytest.fixture
def tty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_module, "stdout_is_tty", lambda: True)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "openclaw.json5"
    path.write_text(BROKEN, encoding="utf-8")
    return path


# -- --env-file -----------------------------------------------------------------------------------


AGENT_CONFIG = '{tools: {loopDetection: {enabled: true}}, agents: {list: [{id: "${AGENT}"}]}}'


def test_env_file_supplies_variables_and_the_environment_wins(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(AGENT_CONFIG, encoding="utf-8")
    env_file = tmp_path / "loopcfg.env"
    env_file.write_text('# agent ids\nAGENT="Night Runner"\n', encoding="utf-8")
    without = invoke("validate", str(config))
    assert without.exit_code == 1 and 'LC006 error: Missing env var "AGENT"' in without.stdout
    from_file = invoke("validate", str(config), "--env-file", str(env_file))
    # The value from the file reaches the lints: LC108 names the normalised id.
    assert from_file.exit_code == 0 and '"Night Runner"' in from_file.stdout
    both = invoke("validate", str(config), "--env-file", str(env_file), env={"AGENT": "main"})
    assert (both.exit_code, both.stdout) == (0, "All checks passed (1 file).\n")


def test_unreadable_or_malformed_env_file_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(AGENT_CONFIG, encoding="utf-8")
    missing = invoke("validate", str(config), "--env-file", str(tmp_path / "nope.env"))
    assert_one_line_usage_error(missing, "LC000", "nope.env")
    bad = tmp_path / "bad.env"
    bad.write_text("AGENT=main\njust words\n", encoding="utf-8")
    assert_one_line_usage_error(
        invoke("validate", str(config), "--env-file", str(bad)), f"{bad}:2:1: LC000"
    )


def test_env_file_not_utf8_points_at_the_byte(tmp_path: Path) -> None:
    # It said "'utf-8' codec can't decode byte 0xff in position 16: invalid start byte".
    config = tmp_path / "openclaw.json5"
    config.write_text(AGENT_CONFIG, encoding="utf-8")
    bad = tmp_path / "bad.env"
    bad.write_bytes(b"AGENT=main\nX=caf\xe9\n")
    assert_one_line_usage_error(
        invoke("validate", str(config), "--env-file", str(bad)),
        f"{bad}:2:6: LC000 error: env file is not UTF-8: invalid byte 0xe9",
        "(save the file as UTF-8)",
    )


# -- --max-bytes ----------------------------------------------------------------------------------


def test_max_bytes_refuses_larger_files_with_lc000(config: Path) -> None:
    size = config.stat().st_size
    over = invoke("validate", "openclaw.json5", "--max-bytes", str(size - 1))
    assert over.exit_code == 2
    assert over.stdout.startswith("openclaw.json5: LC000 error: the file is larger than")
    assert over.stdout.splitlines()[0].endswith(" bytes) (--max-bytes N raises the limit)")
    at = invoke("validate", "openclaw.json5", "--max-bytes", str(size))
    assert at.exit_code == 1 and "LC003" in at.stdout


@pytest.mark.parametrize("value", ["0", "-5", "2MB", ""])
def test_bad_max_bytes_is_a_usage_error(config: Path, value: str) -> None:
    assert_one_line_usage_error(
        invoke("validate", "openclaw.json5", "--max-bytes", value), "loopcfg validate: error:"
    )


def test_max_bytes_applies_to_stdin() -> None:
    result = invoke("validate", "-", "--max-bytes", "10", stdin=BROKEN)
    assert result.exit_code == 2
    assert result.stdout.startswith("<stdin>: LC000 error: the input is larger than")
    assert "--max-bytes N raises the limit" in result.stdout


# -- usage errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--format", "xml"), ("'--format'", "'xml'")),
        (("--bogus",), ("--bogus",)),
        (("--input-format", "toml"), ("--input-format",)),
    ],
)
def test_bad_options_are_one_line(
    config: Path, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    result = invoke("validate", "openclaw.json5", *args)
    assert_one_line_usage_error(result, "loopcfg validate: error:", *words)


def test_no_config_found_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert_one_line_usage_error(invoke("validate"), "no config file", "OPENCLAW_CONFIG_PATH")


def test_default_config_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "openclaw.json5").write_text(BROKEN, encoding="utf-8")
    result = invoke("validate")
    assert result.exit_code == 1 and "openclaw.json5:2:2: LC003 error" in result.stdout


# -- tty, colour ----------------------------------------------------------------------------------


def test_not_a_tty_means_plain_lines(config: Path) -> None:
    result = invoke("validate", "openclaw.json5")
    assert "|" not in result.stdout and "\x1b" not in result.stdout


@pytest.mark.usefixtures("tty")
def test_a_tty_gets_source_lines_and_colour(config: Path) -> None:
    result = invoke("validate", "openclaw.json5")
    assert result.exit_code == 1
    assert "\x1b[1;31mLC003 error\x1b[0m" in result.stdout
    plain = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert " 2 |     warningThreshhold: 3}}}" in plain  # the tab is expanded


@pytest.mark.usefixtures("tty")
@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("validate", "openclaw.json5", "--no-color"), {}),
        (("--no-color", "validate", "openclaw.json5"), {}),
        (("validate", "openclaw.json5"), {"NO_COLOR": "1"}),
    ],
)
def test_no_color_and_NO_COLOR_keep_the_source_lines(
    config: Path, args: tuple[str, ...], env: dict[str, str | None]
) -> None:
    result = invoke(*args, env=env)
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout
    assert "   |     ^~~~~~~~~~~~~~~~~" in result.stdout


@pytest.mark.usefixtures("tty")
def test_empty_NO_COLOR_does_not_disable_colour(config: Path) -> None:
    # no-color.org: only a non-empty NO_COLOR counts.
    assert "\x1b[" in invoke("validate", "openclaw.json5", env={"NO_COLOR": ""}).stdout


@pytest.mark.usefixtures("tty")
@pytest.mark.parametrize("output_format", ["json", "sarif", "github"])
def test_machine_formats_never_get_colour_or_source(config: Path, output_format: str) -> None:
    result = invoke("validate", "openclaw.json5", "--format", output_format)
    assert "\x1b" not in result.stdout and " 2 |" not in result.stdout


# -- stdin ----------------------------------------------------------------------------------------


def test_stdin_with_a_name_for_messages() -> None:
    result = invoke("validate", "-", "--stdin-filename", "openclaw.json5", stdin=BROKEN)
    assert result.exit_code == 1
    assert result.stdout.startswith("openclaw.json5:2:2: LC003 error")


@pytest.mark.usefixtures("tty")
def test_stdin_syntax_error_shows_its_source_line() -> None:
    result = invoke("validate", "-", "--no-color", stdin="{tools: {loopDetection: {a: 1 b: 2}}}")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:3] == [
        '<stdin>:1:30: LC001 error: missing "," between values',
        " 1 | {tools: {loopDetection: {a: 1 b: 2}}}",
        "   |                              ^",
    ]


def test_check_file_keeps_the_text_of_a_file_that_did_not_parse(tmp_path: Path) -> None:
    path = tmp_path / "c.json5"
    path.write_text("{a: 1 b: 2}", encoding="utf-8")
    report = check_file(str(path))
    assert [d.code for d in report.diagnostics] == ["LC001"]
    assert report.sources == {str(path): "{a: 1 b: 2}"}
    from_stdin = check_file("-", stdin=io.BytesIO(b"{a: 1 b: 2}"))
    assert from_stdin.sources == {"<stdin>": "{a: 1 b: 2}"}


def test_github_format_past_the_annotation_limit(tmp_path: Path) -> None:
    keys = ",\n".join(f"    typo{n}: {n}" for n in range(12))
    config = tmp_path / "openclaw.json5"
    config.write_text(f"{{tools: {{loopDetection: {{\n{keys}\n}}}}}}\n", encoding="utf-8")
    result = invoke("validate", str(config), "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert lines[10].startswith("::notice title=loopcfg::2 more problems are not annotated")
    assert [line.split(": LC003 ")[0] for line in lines[11:13]] == [
        f"{config}:12:5",
        f"{config}:13:5",
    ]
    assert lines[13:] == ["Found 12 errors and 0 warnings in 1 file."]


def test_config_path_variable_wins_and_a_missing_one_is_lc000(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "openclaw.json5").write_text("{}", encoding="utf-8")
    named = tmp_path / "elsewhere.json5"
    named.write_text(BROKEN, encoding="utf-8")
    result = invoke("validate", env={"OPENCLAW_CONFIG_PATH": str(named)})
    assert result.exit_code == 1 and result.stdout.startswith(f"{named}:2:2: LC003")
    gone = invoke("validate", env={"OPENCLAW_CONFIG_PATH": str(tmp_path / "gone.json5")})
    assert gone.exit_code == 2 and "LC000 error: no such file" in gone.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("resolve", "--agent", "x", "--all"), ("loopcfg resolve: error:", "exclude each other")),
        (("resolve", "--explain", "--format", "yaml"), ("loopcfg resolve: error:", "--explain")),
        (("resolve", "--format", "toml"), ("loopcfg resolve: error:", "'toml'")),
        (("replay", "t.jsonl", "--jobs", "0"), ("loopcfg replay: error:", "--jobs")),
        (("replay", "--profile", "a/b"), ("loopcfg replay: error:", "--profile")),
        (("schema", "--out", "."), ("loopcfg schema: error:", "is a directory")),
        (("explain", "LC1", "LC2"), ("loopcfg explain: error:", "LC2")),
    ],
)
def test_every_command_has_one_line_usage_errors(
    config: Path, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    # click's default is a usage block, a "Try ..." line and "Error: ..." (validate only had one).
    assert_one_line_usage_error(invoke(*args), *words)


@pytest.mark.parametrize(
    "args",
    [
        ("resolve", "--config", "openclaw.json5"),
        ("replay", "t.jsonl", "--config", "openclaw.json5"),
        ("replay", "t.jsonl", "--config", "big.json5", "--compare", "openclaw.json5"),
    ],
)
def test_resolve_and_replay_take_max_bytes_too(config: Path, args: tuple[str, ...]) -> None:
    # Their LC000 hint named `loopcfg validate --max-bytes`, an option they did not have.
    (config.parent / "t.jsonl").write_text('{"tool": "a", "args": {}}\n', encoding="utf-8")
    (config.parent / "big.json5").write_text("{}", encoding="utf-8")
    size = config.stat().st_size
    over = invoke(*args, "--max-bytes", str(size - 1))
    assert over.exit_code == 2
    assert "openclaw.json5: LC000 error: the file is larger than" in over.stderr
    assert over.stderr.rstrip().endswith("(--max-bytes N raises the limit)")
    assert "loopcfg validate" not in over.stderr
    at = invoke(*args, "--max-bytes", str(size))
    assert "LC000" not in at.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--select", "LC999"), ("--select LC999: no diagnostic code", "did you mean LC109")),
        (("--select", "lc1,LX"), ("--select LX: no diagnostic code",)),
        (("--ignore", "102"), ("--ignore 102: no diagnostic code", "did you mean LC102")),
    ],
)
def test_select_or_ignore_of_no_code_is_a_usage_error(
    config: Path, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    # A typo selected nothing, so the run passed having checked no lint at all.
    assert_one_line_usage_error(invoke("validate", "openclaw.json5", *args), *words)


@pytest.mark.parametrize("codes", ["LC", "lc10", "LC1,", "LC202"])
def test_select_of_a_prefix_of_some_code_is_fine(config: Path, codes: str) -> None:
    assert invoke("validate", "openclaw.json5", "--select", codes).exit_code == 1


def test_stdin_named_twice_is_a_usage_error() -> None:
    # The second `-` read a drained stdin and reported "the file is empty" (exit 1).
    result = invoke("validate", "-", "-", stdin="{}")
    assert_one_line_usage_error(result, "loopcfg validate: error:", "only once")


def test_every_option_of_every_command_has_help_text() -> None:
    """Walks click's command tree (lazily loaded commands included): `--help` explains every
    option a user can give (issue 13 item 8)."""
    import click

    from loopcfg.cli import cli

    context = click.Context(cli)
    commands: list[tuple[str, click.Command]] = [("loopcfg", cli)]
    for name in cli.list_commands(context):
        command = cli.get_command(context, name)
        assert command is not None, name
        commands.append((name, command))
    missing = [
        f"{name} {'/'.join(param.opts)}"
        for name, command in commands
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip()
    ]
    assert missing == []
    assert len(commands) >= 6
