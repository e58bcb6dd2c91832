"""Where OpenClaw keeps its state (10 §10.1) and which config file it reads (Decision 6).

Pure functions of what they are given (`env`, `cwd`, `home`, `profile`, and an `exists` check
for the few rules that look at the disk), so that every rule is testable without touching the
real environment. The command line passes `os.environ`, `Path(".")` and `Path.home()`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

STATE_DIR_NAME = ".openclaw"
LEGACY_STATE_DIR_NAME = ".clawdbot"
STATE_DIR_VAR = "OPENCLAW_STATE_DIR"
HOME_VAR = "OPENCLAW_HOME"
CONFIG_PATH_VAR = "OPENCLAW_CONFIG_PATH"
CONFIG_NAME = "openclaw.json"
LOCAL_CONFIG_NAMES = ("openclaw.json5", "openclaw.json")
DEFAULT_PROFILE = "default"
# OpenClaw's own profile rule; names are matched in any case.
PROFILE_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE)

Exists = Callable[[Path], bool]


class ProfileError(ValueError):
    """A `--profile` name OpenClaw would refuse (a usage error)."""


def _is_dir(path: Path) -> bool:
    return path.is_dir()


def _is_file(path: Path) -> bool:
    return path.is_file()


def _value(env: Mapping[str, str], name: str) -> str | None:
    """The variable trimmed, or None when unset or blank (OpenClaw ignores blank values)."""
    value = env.get(name, "").strip()
    return value or None


def os_home(env: Mapping[str, str], home: Path) -> Path:
    """The OS home: `$HOME`, then `$USERPROFILE`, then `home` (what the platform reports)."""
    value = _value(env, "HOME") or _value(env, "USERPROFILE")
    return Path(value) if value is not None else home


def _expand(value: str, home: Path, cwd: Path) -> Path:
    """A leading `~` (alone or before a separator) is `home`; a relative path is under `cwd`."""
    if value == "~":
        return home
    if value.startswith(("~/", "~\\")):
        return home / value[2:]
    return cwd / value


def openclaw_home(env: Mapping[str, str], home: Path, cwd: Path = Path(".")) -> Path:
    """`$OPENCLAW_HOME` (its `~` is the OS home), else the OS home."""
    os_dir = os_home(env, home)
    value = _value(env, HOME_VAR)
    return _expand(value, os_dir, cwd) if value is not None else os_dir


def check_profile(profile: str) -> str:
    """The profile name as given, or ProfileError when OpenClaw would refuse it."""
    if PROFILE_PATTERN.fullmatch(profile) is None:
        raise ProfileError(
            f"invalid --profile {profile!r}: use letters, digits, '_' and '-' "
            "(at most 64, starting with a letter or digit)"
        )
    return profile


def state_dir(
    env: Mapping[str, str],
    *,
    home: Path,
    cwd: Path = Path("."),
    profile: str | None = None,
    exists: Exists = _is_dir,
) -> Path:
    """OpenClaw's state directory (10 §10.1).

    An explicit `$OPENCLAW_STATE_DIR` always wins, even over `profile`; otherwise
    `<home>/.openclaw` (or the legacy `<home>/.clawdbot` when only that exists), or
    `<home>/.openclaw-NAME` for a profile other than `default`.
    """
    explicit = _value(env, STATE_DIR_VAR)
    base = openclaw_home(env, home, cwd)
    if explicit is not None:
        return _expand(explicit, base, cwd)
    if profile is not None and check_profile(profile).lower() != DEFAULT_PROFILE:
        return base / f"{STATE_DIR_NAME}-{profile}"
    current = base / STATE_DIR_NAME
    legacy = base / LEGACY_STATE_DIR_NAME
    if not exists(current) and exists(legacy):
        return legacy
    return current


def config_candidates(
    env: Mapping[str, str],
    *,
    home: Path,
    cwd: Path = Path("."),
    profile: str | None = None,
    exists: Exists = _is_dir,
) -> list[Path]:
    """Where a config is looked for, in order (Decision 6); an explicit
    `$OPENCLAW_CONFIG_PATH` is the only candidate."""
    explicit = _value(env, CONFIG_PATH_VAR)
    if explicit is not None:
        return [_expand(explicit, openclaw_home(env, home, cwd), cwd)]
    state = state_dir(env, home=home, cwd=cwd, profile=profile, exists=exists)
    return [*(cwd / name for name in LOCAL_CONFIG_NAMES), state / CONFIG_NAME]


def discover_config(
    env: Mapping[str, str],
    *,
    home: Path,
    cwd: Path = Path("."),
    profile: str | None = None,
    is_dir: Exists = _is_dir,
    is_file: Exists = _is_file,
) -> Path | None:
    """The config file OpenClaw would read, or None when there is none.

    `$OPENCLAW_CONFIG_PATH` is returned even when missing: the user named it, so reading it
    reports the problem instead of silently falling back to another file.
    """
    candidates = config_candidates(env, home=home, cwd=cwd, profile=profile, exists=is_dir)
    if _value(env, CONFIG_PATH_VAR) is not None:
        return candidates[0]
    return next((path for path in candidates if is_file(path)), None)
