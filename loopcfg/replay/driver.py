"""One input file from path to `FileReplay`: format detection, reader, engine, runner.

Everything here is picklable so that `parallel` can run files in worker processes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from loopcfg.replay.events import Event, ReadError
from loopcfg.replay.lines import STDIN, InputFormat, detect_format, numbered, open_binary
from loopcfg.replay.runner import EngineSession, FileReplay, replay_events
from loopcfg.replay.trace import read_trace
from loopcfg.replay.transcript import (
    TranscriptOptions,
    active_branch,
    read_transcript,
    trajectory_run_ids,
)
from loopcfg.settings import EffectiveSettings, settings_from_block


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What the command line chose; the same for every file of one replay."""

    config: str | None = None
    agent: str | None = None
    input_format: InputFormat | None = None
    run_scope: bool = True
    branch_active: bool = False
    trajectory: str | None = None
    strict: bool = False


def default_settings() -> EffectiveSettings:
    """No --config: OpenClaw's defaults with the detectors switched on (05 replay)."""
    return settings_from_block({"enabled": True})


class EngineSessions:
    """Engine sessions for one file, one detector per agent config (built on first use)."""

    def __init__(self, options: ReplayOptions) -> None:
        self.options = options
        self.detectors: dict[str | None, Any] = {}
        self.sessions: dict[tuple[str, str | None], EngineSession] = {}

    def settings(self, agent: str | None) -> EffectiveSettings:
        if self.options.config is None:
            return default_settings()
        resolve: Any = import_module("loopcfg.resolve")
        settings: EffectiveSettings = resolve.resolve_agent(self.options.config, agent)
        return settings

    def detector(self, agent: str | None) -> Any:
        if agent not in self.detectors:
            # Imported by name: the engine and this replay land in the same release.
            engine: Any = import_module("loopcfg")
            self.detectors[agent] = engine.LoopDetector(self.settings(agent))
        return self.detectors[agent]

    def session(self, key: str, agent: str | None) -> EngineSession:
        # A config switch gets that agent's engine; history cannot move between detectors.
        cached = self.sessions.get((key, agent))
        if cached is None:
            cached = self.detector(agent).session(key)
            self.sessions[(key, agent)] = cached
        return cached


def replay_file(path: str, options: ReplayOptions) -> FileReplay:
    """Replay one file (or stdin); raises ReadError when it cannot be read at all."""
    factory = EngineSessions(options)
    with quiet_engine_logs(), open_binary(path) as stream:
        events = read_events(path, numbered(stream), options)
        return replay_events(path, events, factory, agent=options.agent, strict=options.strict)


@contextmanager
def quiet_engine_logs() -> Iterator[None]:
    """The engine logs every emitted verdict as a live gateway would; in a replay the events
    are the output, so the log would only repeat them on stderr (and cost time per event)."""
    logger = logging.getLogger("loopcfg")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def read_events(
    path: str, lines: Iterator[tuple[int, bytes]], options: ReplayOptions
) -> Iterator[Event]:
    detected, lines = detect_format(lines)
    input_format = options.input_format or detected
    if input_format == "trace":
        return read_trace(path, lines)
    return read_transcript(path, lines, transcript_options(path, options))


def transcript_options(path: str, options: ReplayOptions) -> TranscriptOptions:
    branch = None
    if options.branch_active:
        if path == STDIN:
            raise ReadError(path, "--branch active reads the file twice and cannot read stdin")
        branch = active_branch(path)
    trajectory = trajectory_run_ids(options.trajectory) if options.trajectory else {}
    return TranscriptOptions(run_scope=options.run_scope, branch=branch, trajectory=trajectory)
