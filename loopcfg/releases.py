"""OpenClaw's releases as data: the one table every layer reads (08-releases.md).

Which keys a release accepts, where its per-agent blocks live, how it merges them, its
post-compaction guard, its integer range, how it words errors, which detector engine it runs
and which smaller behaviours it has: all of it is answered here, from the rows below, and from
nowhere else. Adding an OpenClaw release line is adding a row to `LINES` (and, for a behaviour
that arrives inside a line, a row to `FEATURES`); `docs/releases.md` is generated from this
module (`python -m loopcfg.releases --markdown`) and checked for drift.

Versions follow OpenClaw's own comparison (08 §8.3): SemVer, with a leading `v` allowed, a
legacy `X.Y.Z.beta[.N]` read as `X.Y.Z-beta[.N]`, pre-releases before their release and a
correction `X.Y.Z-N` after it. A patch of 33 or more is a monthly extended-stable release,
which keeps its month's line whatever its position in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple, TypeAlias

NEWEST = "2026.9.6"  # the newest release on the npm registry (its `latest` dist-tag)
EXTENDED_STABLE_PATCH = 33  # YYYY.M.PATCH with PATCH >= 33: the month's extended-stable line
MAX_SAFE_INTEGER = 2**53 - 1  # zod 4's .int() accepts safe integers only

Roster: TypeAlias = Literal["none", "list", "entries"]
Merge: TypeAlias = Literal["none", "full", "enabled"]
Guard: TypeAlias = Literal["none", "window", "fixed"]
Era: TypeAlias = Literal["A", "B", "C"]
MissingEnv: TypeAlias = Literal["error", "warning"]
TargetSource: TypeAlias = Literal["option", "meta", "none"]


# ---------------------------------------------------------------------------------------------
# Versions


class Version(NamedTuple):
    """A parsed OpenClaw version. Tuples compare in OpenClaw's order (`sort_key`)."""

    major: int
    minor: int
    patch: int
    prerelease: tuple[str, ...]  # ("beta", "3"), ("2",) for a correction, () for a release

    @property
    def correction(self) -> int | None:
        """N of a correction release `X.Y.Z-N` (a single numeric prerelease part)."""
        if len(self.prerelease) == 1 and self.prerelease[0].isdigit():
            return int(self.prerelease[0])
        return None

    @property
    def is_prerelease(self) -> bool:
        return bool(self.prerelease) and self.correction is None

    @property
    def extended_stable(self) -> bool:
        return self.patch >= EXTENDED_STABLE_PATCH

    @property
    def month(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def sort_key(self) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
        # A prerelease sorts before its release (rank 0), a correction after it (rank 2).
        correction = self.correction
        if correction is not None:
            return (self.major, self.minor, self.patch, 2, ((0, correction),))
        if not self.prerelease:
            return (self.major, self.minor, self.patch, 1, ())
        # SemVer: numeric identifiers compare numerically and before alphanumeric ones.
        parts = tuple((0, int(p)) if p.isdigit() else (1, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 0, parts)

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        return f"{text}-{'.'.join(self.prerelease)}" if self.prerelease else text


_NUMBER = r"(?:0|[1-9]\d*)"
_IDENTIFIER = r"(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER = re.compile(
    rf"({_NUMBER})\.({_NUMBER})\.({_NUMBER})"
    rf"(?:-({_IDENTIFIER}(?:\.{_IDENTIFIER})*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_LEGACY_BETA = re.compile(rf"({_NUMBER}\.{_NUMBER}\.{_NUMBER})\.(beta(?:\.{_NUMBER})?)")


def parse_version(text: str) -> Version | None:
    """OpenClaw's reading of a version string, or None when it is unparseable."""
    value = text.strip()
    if value[:1] in ("v", "V"):
        value = value[1:]
    legacy = _LEGACY_BETA.fullmatch(value)
    if legacy:
        value = f"{legacy.group(1)}-{legacy.group(2)}"
    match = _SEMVER.fullmatch(value)
    if match is None:
        return None
    major, minor, patch, pre = match.groups()
    prerelease = tuple(pre.split(".")) if pre else ()
    return Version(int(major), int(minor), int(patch), prerelease)


def version_key(text: str) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
    """Sort key of a version string (raises ValueError when it is unparseable)."""
    version = parse_version(text)
    if version is None:
        raise ValueError(f"not an OpenClaw version: {text!r}")
    return version.sort_key()


def _v(text: str) -> Version:
    version = parse_version(text)
    assert version is not None, text
    return version


# ---------------------------------------------------------------------------------------------
# The table


@dataclass(frozen=True, slots=True)
class Line:
    """A release line: releases that accept the same keys in the same layout (08 §8.1)."""

    id: str  # "S0", "S1", "S1u", "S2", "S3beta", "S3"
    releases: str  # the range as people say it, for messages and docs
    first: str  # first release of the regular range (extended-stable rows are separate)
    roster: Roster  # where per-agent blocks live
    merge: Merge  # 08 §8.1 "Merge": every key (one level deep in groups) or `enabled` only
    guard: Guard  # post-compaction guard: none, `postCompactionGuard.windowSize`, fixed at 3
    integers: bool  # has integer knobs (bounded by MAX_SAFE_INTEGER)
    schema_file: str | None  # the file in schema/ for this line (None: no block at all)

    @property
    def title(self) -> str:
        return f"{self.id} ({self.releases})"


LINES: tuple[Line, ...] = (
    Line("S0", "up to 2026.2.12", "0.0.1", "list", "none", "none", False, None),
    Line("S1", "2026.2.17 – 2026.4.12", "2026.2.17", "list", "full", "none", True,
         "schema/openclaw-loopdetection-s1.schema.json"),
    Line("S1u", "2026.4.14 – 2026.5.3-1", "2026.4.14", "list", "full", "none", True,
         "schema/openclaw-loopdetection-s1u.schema.json"),
    Line("S2", "2026.5.4 – 2026.7.x", "2026.5.4", "list", "full", "window", True,
         "schema/openclaw-loopdetection.schema.json"),
    Line("S3beta", "2026.7.2-beta.4 – 2026.8.1-beta.3", "2026.7.2-beta.4", "entries", "enabled",
         "fixed", False, "schema/openclaw-loopdetection-s3.schema.json"),
    Line("S3", "2026.8.1 – 2026.9.6", "2026.8.1", "entries", "enabled", "fixed", False,
         "schema/openclaw-loopdetection-s3.schema.json"),
)  # fmt: skip
LINES_BY_ID: dict[str, Line] = {line.id: line for line in LINES}
FULL_KNOBS = LINES_BY_ID["S2"]  # what an unknown target is checked as (08 §8.3)

# Extended-stable months and the line they keep (08 §8.1): 2026.6.33+ and 2026.7.33+.
EXTENDED_STABLE: dict[tuple[int, int], str] = {(2026, 6): "S2", (2026, 7): "S2"}


class KeyLife(NamedTuple):
    """When a setting of the block is accepted (08 §8.3 "Key lifecycle")."""

    name: str  # dotted setting name, as in keys.SETTINGS
    first: str  # first release that accepts it
    retired: str | None  # first stable release that rejects it again
    retired_pre: str | None  # the pre-release in which it first left the schema


_KNOBS_RETIRED = ("2026.8.1", "2026.7.2-beta.4")

KEY_LIFECYCLE: tuple[KeyLife, ...] = (
    KeyLife("enabled", "2026.2.17", None, None),
    KeyLife("historySize", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("warningThreshold", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("criticalThreshold", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("unknownToolThreshold", "2026.4.14", *_KNOBS_RETIRED),
    KeyLife("globalCircuitBreakerThreshold", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("detectors.genericRepeat", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("detectors.knownPollNoProgress", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("detectors.pingPong", "2026.2.17", *_KNOBS_RETIRED),
    KeyLife("postCompactionGuard.windowSize", "2026.5.4", *_KNOBS_RETIRED),
)
KEY_LIFE: dict[str, KeyLife] = {life.name: life for life in KEY_LIFECYCLE}


class Span(NamedTuple):
    """A property that changes inside lines: its value from `first` on (regular releases)."""

    first: str
    value: str


# The detector engine of each range (09): E5.4, E5.12, E6.5, "transitional" (09 §9.3: replay
# runs E8.1 and says so) and E8.1. Before 2026.5.4 nothing is modelled (None).
ENGINES: tuple[Span, ...] = (
    Span("2026.5.4", "E5.4"),
    Span("2026.5.12", "E5.12"),
    Span("2026.6.5", "E6.5"),
    Span("2026.7.2-beta.4", "transitional"),
    Span("2026.8.1", "E8.1"),
)
EXTENDED_STABLE_ENGINE = "E6.5"


class EngineSwitches(NamedTuple):
    """What one engine generation does differently (09); the engine reads only this row."""

    generic_critical: bool  # row 7 of 04 §4.6 exists (not in E5.4, 09 §9.1 item 1)
    hash_veto: bool  # a loop-veto result is hashed like any other (E5.x, 09 §9.1 item 2)
    strip_sends: bool  # rule 6: sends hash without volatile ids (from E6.5, 09 §9.1 item 3)
    legacy_json: bool  # E5.4's private stable stringify (09 §9.1 item 4)
    v4: bool  # the 2026.8.1+ engine of 09 §9.4 (fixed knobs, veto records, batches, ...)


ENGINE_SWITCHES: dict[str, EngineSwitches] = {
    "E5.4": EngineSwitches(False, True, False, True, False),
    "E5.12": EngineSwitches(True, True, False, False, False),
    "E6.5": EngineSwitches(True, False, True, False, False),
    # 09 §9.3: the pre-releases are not modelled; replay runs E8.1 and says so.
    "transitional": EngineSwitches(True, False, True, False, True),
    "E8.1": EngineSwitches(True, False, True, False, True),
}
DEFAULT_ENGINE = "E6.5"  # an unknown or absent target (09, README decision 2)

# The host's tool-name aliases (09 §9.5): the base table, plus each feature's additions for the
# releases that have that feature (FEATURES below).
TOOL_ALIASES: dict[str, str] = {"bash": "exec", "apply-patch": "apply_patch"}
FEATURE_TOOL_ALIASES: dict[str, dict[str, str]] = {"cron_alias": {"cron": "automations"}}

# How `openclaw config validate` words its issues (08 §8.2). Run on 5.4, 5.12 (A), 6.1 – 7.x (B)
# and 9.6 (C); the releases without the knobs (2026.7.2-beta.4 on) are taken as era C.
ERAS: tuple[Span, ...] = (
    Span("0.0.1", "A"),
    Span("2026.6.1", "B"),
    Span("2026.7.2-beta.4", "C"),
)
EXTENDED_STABLE_ERA: Era = "B"

# An unset or empty ${VAR} (README decision 5): refused, or a warning with a valid config. The
# spec saw 2026.7.1-2 warn; the conformance vectors (tests/conformance/) settle the others.
MISSING_ENV: tuple[Span, ...] = (
    Span("0.0.1", "error"),
    Span("2026.7.1-2", "warning"),
)
EXTENDED_STABLE_MISSING_ENV: MissingEnv = "warning"


class Feature(NamedTuple):
    """A behaviour that arrives inside a line (first regular or pre-release that has it).
    Extended-stable releases keep their month's behaviour: they have a feature only when
    `extended_stable` says so."""

    name: str
    first: str
    extended_stable: bool
    what: str


FEATURES: tuple[Feature, ...] = (
    Feature("ownership", "2026.8.1", False, '`agents.ownership: "explicit"` is accepted'),
    Feature("list_conversion", "2026.7.2-beta.7", False,
            "`agents.list` is converted to `agents.entries` on read (LC111, not LC010)"),
    Feature("located_issues", "2026.9.6", False, "issues are prefixed with `<file>:<line> — `"),
    Feature("conversations_send", "2026.7.2-beta.3", False,
            "`conversations_send`/`conversations_turn` count as message sends"),
    Feature("cron_alias", "2026.7.2-beta.6", False, "the host maps `cron` to `automations`"),
    Feature("warning_note", "2026.9.1", False, "a warning note is appended to the tool result"),
)  # fmt: skip
FEATURES_BY_NAME: dict[str, Feature] = {feature.name: feature for feature in FEATURES}


# ---------------------------------------------------------------------------------------------
# Lookups


@dataclass(frozen=True, slots=True)
class Release:
    """What loopcfg knows of one OpenClaw version: its line and the properties that vary."""

    version: Version
    line: Line
    engine: str | None  # "E5.4", "E5.12", "E6.5", "transitional", "E8.1"; None: not modelled
    era: Era
    missing_env: MissingEnv

    @property
    def name(self) -> str:
        return str(self.version)

    def has(self, feature: str) -> bool:
        """Whether this release has a behaviour of FEATURES (KeyError for an unknown name)."""
        row = FEATURES_BY_NAME[feature]
        if self.version.extended_stable:
            return row.extended_stable
        return self.version.sort_key() >= _v(row.first).sort_key()

    def accepts(self, setting: str) -> bool:
        return setting in self.line_settings

    @property
    def line_settings(self) -> frozenset[str]:
        return line_settings(self.line.id)


def _span_value(spans: tuple[Span, ...], version: Version) -> str | None:
    """The value of the last span that starts at or before `version` (None before the first)."""
    key = version.sort_key()
    value: str | None = None
    for span in spans:
        if key >= _v(span.first).sort_key():
            value = span.value
    return value


def _regular_line(version: Version) -> Line:
    key = version.sort_key()
    chosen = LINES[0]
    for line in LINES:
        if key >= _v(line.first).sort_key():
            chosen = line
    return chosen


@cache
def release_info(text: str) -> Release | None:
    """The release table's answer for a version, or None when the version is unknown:
    unparseable, newer than NEWEST, or an extended-stable month the table does not have."""
    version = parse_version(text)
    if version is None:
        return None
    if version.extended_stable:
        line_id = EXTENDED_STABLE.get(version.month)
        if line_id is None:
            return None
        return Release(
            version,
            LINES_BY_ID[line_id],
            EXTENDED_STABLE_ENGINE,
            EXTENDED_STABLE_ERA,
            EXTENDED_STABLE_MISSING_ENV,
        )
    if version.sort_key() > _v(NEWEST).sort_key():
        return None
    engine = _span_value(ENGINES, version)
    era = _span_value(ERAS, version) or "A"
    missing_env = _span_value(MISSING_ENV, version) or "error"
    return Release(version, _regular_line(version), engine, era, missing_env)  # type: ignore[arg-type]


@cache
def line_settings(line_id: str) -> frozenset[str]:
    """The dotted setting names a line accepts in `tools.loopDetection` (and agent blocks)."""
    start = _v(LINES_BY_ID[line_id].first).sort_key()
    accepted: set[str] = set()
    for life in KEY_LIFECYCLE:
        if start < _v(life.first).sort_key():
            continue
        if life.retired_pre is not None and start >= _v(life.retired_pre).sort_key():
            continue
        accepted.add(life.name)
    return frozenset(accepted)


class KeyStatus(NamedTuple):
    """Why a release does not accept a setting: retired there, or not yet introduced."""

    setting: str
    retired_in: str | None  # the first release (at or before the target) that rejects it
    introduced_in: str | None  # the first release that accepts it, when that is later


def key_status(setting: str, release: Release) -> KeyStatus | None:
    """None when `release` accepts the setting; else why not (LC009's facts)."""
    life = KEY_LIFE[setting]
    if release.accepts(setting):
        return None
    key = release.version.sort_key()
    if key < _v(life.first).sort_key() and not release.version.extended_stable:
        return KeyStatus(setting, None, life.first)
    retired = life.retired
    if retired is not None and key < _v(retired).sort_key():
        retired = life.retired_pre  # a pre-release target: name the pre-release that dropped it
    return KeyStatus(setting, retired, None)


# ---------------------------------------------------------------------------------------------
# The target release of a run (08 §8.3)


@dataclass(frozen=True, slots=True)
class Target:
    """The release a config is checked for, and where that choice came from."""

    requested: str | None  # as given (`--openclaw` or `meta.lastTouchedVersion`), None: none
    source: TargetSource
    release: Release | None  # None: no target, or one the table does not know

    @property
    def known(self) -> bool:
        return self.release is not None

    @property
    def line(self) -> Line:
        """The line the config is checked as: an unknown target is checked as S2."""
        return self.release.line if self.release is not None else FULL_KNOBS

    @property
    def name(self) -> str | None:
        return self.release.name if self.release is not None else self.requested

    def describe(self) -> str:
        """One phrase for LC203 and `--verbose`: the target, its source and its line."""
        source = {
            "option": "--openclaw",
            "meta": "meta.lastTouchedVersion",
            "none": "no target given",
        }[self.source]
        if self.release is not None:
            return f"OpenClaw {self.release.name} (from {source}), line {self.line.title}"
        if self.requested is None:
            return f"none ({source}); checked as {FULL_KNOBS.releases}"
        return (
            f"{self.requested} (from {source}) is not in loopcfg's release table (newest "
            f"known: {NEWEST}); checked as {FULL_KNOBS.releases}"
        )


LATEST = "latest"


def choose_target(option: str | None, meta_version: object = None) -> Target:
    """`--openclaw` (with `latest`), else `meta.lastTouchedVersion` when it is a string, else
    none. An unknown version stays the target, with `release` None (checked as S2)."""
    if option is not None:
        requested = NEWEST if option.strip() == LATEST else option
        return Target(option, "option", release_info(requested))
    if isinstance(meta_version, str):
        return Target(meta_version, "meta", release_info(meta_version))
    return Target(None, "none", None)


def newest_release() -> Release:
    release = release_info(NEWEST)
    assert release is not None
    return release


def tool_aliases(release: Release | None) -> dict[str, str]:
    """The host's tool-name alias table for a release (None: unknown target, E6.5's table)."""
    table = dict(TOOL_ALIASES)
    if release is not None:
        for feature, extra in FEATURE_TOOL_ALIASES.items():
            if release.has(feature):
                table.update(extra)
    return table


# ---------------------------------------------------------------------------------------------
# docs/releases.md


def markdown() -> str:
    """docs/releases.md, generated from the table above (a test checks it for drift)."""
    out = [
        "# OpenClaw releases",
        "",
        "<!-- generated by `python -m loopcfg.releases --markdown > docs/releases.md`; "
        "do not edit -->",
        "",
        f"loopcfg knows OpenClaw releases up to **{NEWEST}**. It checks a config for one target "
        "release: `--openclaw VERSION` (`latest` = the newest), else the config's "
        "`meta.lastTouchedVersion`, else none, checked as the full-knob line "
        f"{FULL_KNOBS.id} ({FULL_KNOBS.releases}) with one LC110 warning when the config "
        f"writes keys that {NEWEST} rejects.",
        "",
        "## Lines",
        "",
        "| line | releases | keys in `tools.loopDetection` | per-agent blocks | merge | "
        "post-compaction guard |",
        "|---|---|---|---|---|---|",
    ]
    roster = {"none": "—", "list": "`agents.list[]`", "entries": "`agents.entries.<id>`"}
    guard = {"none": "none", "window": "`postCompactionGuard.windowSize`", "fixed": "window 3"}
    merge = {"none": "—", "full": "every key, groups one level deep", "enabled": "`enabled`"}
    for line in LINES:
        keys = sorted(line_settings(line.id), key=_lifecycle_order)
        shown = ", ".join(f"`{key}`" for key in keys) or "none (the block is unknown)"
        out.append(
            f"| {line.id} | {line.releases} | {shown} | {roster[line.roster]} | "
            f"{merge[line.merge]} | {guard[line.guard]} |"
        )
    months = ", ".join(f"{y}.{m}.33+ ({line})" for (y, m), line in EXTENDED_STABLE.items())
    out += [
        "",
        f"Extended-stable releases (patch ≥ {EXTENDED_STABLE_PATCH}) keep their month's line: "
        f"{months}; another month's extended-stable release is unknown.",
        "",
        "## Key lifecycle",
        "",
        "| key | first accepted | retired (pre-release) |",
        "|---|---|---|",
    ]
    for life in KEY_LIFECYCLE:
        retired = f"{life.retired} ({life.retired_pre})" if life.retired else "—"
        out.append(f"| `{life.name}` | {life.first} | {retired} |")
    out += ["", "## Engines, message wording, `${VAR}`", ""]
    out += ["| from | engine |", "|---|---|"]
    out += [f"| {span.first} | {span.value} |" for span in ENGINES]
    out.append(f"| extended-stable | {EXTENDED_STABLE_ENGINE} |")
    out += ["", "| from | OpenClaw's wording era (08 §8.2) |", "|---|---|"]
    out += [f"| {span.first} | {span.value} |" for span in ERAS]
    out.append(f"| extended-stable | {EXTENDED_STABLE_ERA} |")
    out += ["", "| from | unset or empty `${VAR}` |", "|---|---|"]
    out += [f"| {span.first} | {span.value} |" for span in MISSING_ENV]
    out.append(f"| extended-stable | {EXTENDED_STABLE_MISSING_ENV} |")
    out += ["", "## Behaviours that arrive inside a line", "", "| feature | from | what |"]
    out.append("|---|---|---|")
    out += [f"| `{f.name}` | {f.first} | {f.what} |" for f in FEATURES]
    out.append("")
    return "\n".join(out)


def _lifecycle_order(name: str) -> int:
    return [life.name for life in KEY_LIFECYCLE].index(name)


if __name__ == "__main__":  # pragma: no cover - a generator, checked by tests/test_releases.py
    import sys

    if sys.argv[1:] != ["--markdown"]:
        raise SystemExit("usage: python -m loopcfg.releases --markdown")
    sys.stdout.write(markdown())
