"""OpenClaw's state directory (10 §10.1) and config discovery (Decision 6), rule by rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopcfg.statedir import (
    ProfileError,
    check_profile,
    config_candidates,
    discover_config,
    os_home,
    state_dir,
)

HOME = Path("/os-home")
CWD = Path("/work")


def nothing(path: Path) -> bool:
    return False


def only(*paths: str):  # type: ignore[no-untyped-def]
    wanted = {Path(p) for p in paths}
    return lambda path: path in wanted


def test_default_is_dot_openclaw_in_the_os_home() -> None:
    assert state_dir({}, home=HOME, exists=nothing) == Path("/os-home/.openclaw")


def test_home_variable_then_userprofile_then_platform_home() -> None:
    assert os_home({"HOME": "/h", "USERPROFILE": "/u"}, HOME) == Path("/h")
    assert os_home({"USERPROFILE": "/u"}, HOME) == Path("/u")
    assert os_home({"HOME": "  ", "USERPROFILE": "/u"}, HOME) == Path("/u")
    assert os_home({}, HOME) == HOME


def test_openclaw_home_replaces_the_os_home_and_is_trimmed() -> None:
    env = {"OPENCLAW_HOME": "  /oc  ", "HOME": "/h"}
    assert state_dir(env, home=HOME, exists=nothing) == Path("/oc/.openclaw")


def test_openclaw_home_tilde_is_the_os_home() -> None:
    env = {"OPENCLAW_HOME": "~/alt", "HOME": "/h"}
    assert state_dir(env, home=HOME, exists=nothing) == Path("/h/alt/.openclaw")


def test_blank_openclaw_home_is_ignored() -> None:
    assert state_dir({"OPENCLAW_HOME": " "}, home=HOME, exists=nothing) == HOME / ".openclaw"


def test_state_dir_variable_wins_and_is_trimmed() -> None:
    env = {"OPENCLAW_STATE_DIR": " /srv/state ", "OPENCLAW_HOME": "/oc"}
    assert state_dir(env, home=HOME) == Path("/srv/state")


def test_state_dir_tilde_expands_to_the_openclaw_home() -> None:
    env = {"OPENCLAW_STATE_DIR": "~/state", "OPENCLAW_HOME": "/oc"}
    assert state_dir(env, home=HOME) == Path("/oc/state")
    assert state_dir({"OPENCLAW_STATE_DIR": "~"}, home=HOME) == HOME


def test_relative_state_dir_is_under_cwd() -> None:
    assert state_dir({"OPENCLAW_STATE_DIR": "st"}, home=HOME, cwd=CWD) == Path("/work/st")
    assert state_dir({"OPENCLAW_STATE_DIR": "st"}, home=HOME) == Path("st")


def test_blank_state_dir_variable_is_ignored() -> None:
    assert state_dir({"OPENCLAW_STATE_DIR": "  "}, home=HOME, exists=nothing) == (
        HOME / ".openclaw"
    )


def test_legacy_clawdbot_only_when_openclaw_is_missing() -> None:
    legacy = only("/os-home/.clawdbot")
    assert state_dir({}, home=HOME, exists=legacy) == Path("/os-home/.clawdbot")
    both = only("/os-home/.clawdbot", "/os-home/.openclaw")
    assert state_dir({}, home=HOME, exists=both) == Path("/os-home/.openclaw")


def test_profile_names_its_own_directory() -> None:
    assert state_dir({}, home=HOME, profile="work") == Path("/os-home/.openclaw-work")
    assert state_dir({}, home=HOME, profile="dev") == Path("/os-home/.openclaw-dev")


def test_default_profile_is_the_plain_directory() -> None:
    assert state_dir({}, home=HOME, profile="default", exists=nothing) == HOME / ".openclaw"
    assert state_dir({}, home=HOME, profile="Default", exists=nothing) == HOME / ".openclaw"


def test_profile_never_overrides_an_explicit_state_dir() -> None:
    env = {"OPENCLAW_STATE_DIR": "/srv/state"}
    assert state_dir(env, home=HOME, profile="work") == Path("/srv/state")


def test_profile_uses_the_openclaw_home() -> None:
    env = {"OPENCLAW_HOME": "/oc"}
    assert state_dir(env, home=HOME, profile="w") == Path("/oc/.openclaw-w")


def test_openclaw_profile_variable_alone_does_not_move_the_state_dir() -> None:
    env = {"OPENCLAW_PROFILE": "work"}
    assert state_dir(env, home=HOME, exists=nothing) == HOME / ".openclaw"


@pytest.mark.parametrize("name", ["a", "A1", "dev", "x_y-z", "9" + "a" * 63])
def test_valid_profile_names(name: str) -> None:
    assert check_profile(name) == name


@pytest.mark.parametrize("name", ["", "-a", "_a", "a b", "a/b", "a" * 65, "é", "../x"])
def test_invalid_profile_names_are_refused(name: str) -> None:
    with pytest.raises(ProfileError):
        check_profile(name)
    with pytest.raises(ProfileError):
        state_dir({}, home=HOME, profile=name)


def test_config_path_variable_is_the_only_candidate_even_when_missing() -> None:
    env = {"OPENCLAW_CONFIG_PATH": " /etc/oc.json5 "}
    assert config_candidates(env, home=HOME, cwd=CWD) == [Path("/etc/oc.json5")]
    found = discover_config(env, home=HOME, cwd=CWD, is_file=nothing, is_dir=nothing)
    assert found == Path("/etc/oc.json5")


def test_config_path_variable_tilde_and_relative() -> None:
    assert discover_config({"OPENCLAW_CONFIG_PATH": "~/c.json"}, home=HOME) == Path(
        "/os-home/c.json"
    )
    found = discover_config({"OPENCLAW_CONFIG_PATH": "c.json"}, home=HOME, cwd=CWD)
    assert found == Path("/work/c.json")


def test_candidates_in_order() -> None:
    candidates = config_candidates({}, home=HOME, cwd=CWD, exists=nothing)
    assert candidates == [
        Path("/work/openclaw.json5"),
        Path("/work/openclaw.json"),
        Path("/os-home/.openclaw/openclaw.json"),
    ]


@pytest.mark.parametrize(
    ("present", "expected"),
    [
        (
            ["/work/openclaw.json5", "/work/openclaw.json", "/os-home/.openclaw/openclaw.json"],
            "/work/openclaw.json5",
        ),
        (["/work/openclaw.json", "/os-home/.openclaw/openclaw.json"], "/work/openclaw.json"),
        (["/os-home/.openclaw/openclaw.json"], "/os-home/.openclaw/openclaw.json"),
    ],
)
def test_first_existing_candidate_wins(present: list[str], expected: str) -> None:
    found = discover_config({}, home=HOME, cwd=CWD, is_file=only(*present), is_dir=nothing)
    assert found == Path(expected)


def test_no_config_anywhere() -> None:
    assert discover_config({}, home=HOME, cwd=CWD, is_file=nothing, is_dir=nothing) is None


def test_config_in_the_profile_and_state_dir_variables() -> None:
    found = discover_config(
        {},
        home=HOME,
        cwd=CWD,
        profile="work",
        is_file=only("/os-home/.openclaw-work/openclaw.json"),
    )
    assert found == Path("/os-home/.openclaw-work/openclaw.json")
    env = {"OPENCLAW_STATE_DIR": "/srv/s"}
    found = discover_config(env, home=HOME, cwd=CWD, is_file=only("/srv/s/openclaw.json"))
    assert found == Path("/srv/s/openclaw.json")


def test_config_in_the_legacy_state_dir() -> None:
    found = discover_config(
        {},
        home=HOME,
        cwd=CWD,
        is_dir=only("/os-home/.clawdbot"),
        is_file=only("/os-home/.clawdbot/openclaw.json"),
    )
    assert found == Path("/os-home/.clawdbot/openclaw.json")


def test_real_directories(tmp_path: Path) -> None:
    (tmp_path / ".clawdbot").mkdir()
    assert state_dir({"HOME": str(tmp_path)}, home=HOME) == tmp_path / ".clawdbot"
    (tmp_path / ".openclaw").mkdir()
    assert state_dir({"HOME": str(tmp_path)}, home=HOME) == tmp_path / ".openclaw"
    (tmp_path / "openclaw.json").write_text("{}")
    assert discover_config({"HOME": "/nowhere"}, home=HOME, cwd=tmp_path) == (
        tmp_path / "openclaw.json"
    )
