"""The engine's LoopDetector: many sessions, one settings object, event subscribers."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from loopcfg.engine.generations import Generation, generation
from loopcfg.engine.session import Hooks, Session
from loopcfg.engine.verdicts import LoopEvent
from loopcfg.settings import EffectiveSettings, settings_from_block

engine_log = logging.getLogger("loopcfg.engine")


class LoopDetector:
    def __init__(
        self,
        settings: EffectiveSettings | Mapping[str, Any] | None = None,
        *,
        max_sessions: int | None = None,
        send_tools: Iterable[str] = (),
        poll_tools: Iterable[str] = (),
        openclaw: str | None = None,
        normalize_tool_names: bool = True,
    ) -> None:
        """`openclaw` names the target release, which picks the engine generation (09); absent
        or unknown: E6.5. ValueError for a release before 2026.5.4 (not modelled)."""
        if not isinstance(settings, EffectiveSettings):
            settings = settings_from_block(settings)
        self.settings = settings
        self.max_sessions = max_sessions
        self.generation: Generation = generation(openclaw)
        self.hooks = Hooks(
            frozenset(send_tools),
            frozenset(poll_tools),
            self._emit,
            self.generation,
            self.generation.name_table(normalize_tool_names),
        )
        self._session_class = _session_class(self.generation)
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        # Guards only the session table; each session has its own lock for its history.
        self._table_lock = threading.Lock()
        self._subscribers: list[Callable[[LoopEvent], None]] = []

    def session(self, key: str) -> Session:
        """The session for `key`, created on first use; least recently used ones evicted."""
        with self._table_lock:
            session = self._sessions.get(key)
            if session is None:
                session = self._sessions[key] = self._session_class(key, self.settings, self.hooks)
                if self.max_sessions is not None:
                    while len(self._sessions) > max(self.max_sessions, 1):
                        self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(key)
            return session

    def detached_session(self, key: str) -> Session:
        """A new session for `key` that this detector's table does not hold: the caller owns
        it (replay keeps its own table of the sessions alive and spools idle ones to disk)."""
        return self._session_class(key, self.settings, self.hooks)

    def restore(self, key: str, settings: EffectiveSettings, state: tuple[Any, ...]) -> Session:
        """A detached session with the state `Session.snapshot()` returned, on this detector's
        hooks and generation (a snapshot is only restored on the detector it was taken from)."""
        session = self.detached_session(key)
        session._set_state(settings, state)
        return session

    def close(self, key: str) -> None:
        with self._table_lock:
            self._sessions.pop(key, None)

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, key: object) -> bool:
        return key in self._sessions

    def subscribe(self, callback: Callable[[LoopEvent], None]) -> Callable[[], None]:
        """Deliver every emitted verdict to `callback`; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _emit(self, event: LoopEvent) -> None:
        level = logging.ERROR if event.level == "critical" else logging.WARNING
        engine_log.log(
            level,
            "%s %s tool=%s count=%d session=%s run=%s: %s",
            event.level,
            event.detector,
            event.tool,
            event.count,
            event.session,
            event.run_id,
            event.message,
        )
        for callback in list(self._subscribers):
            callback(event)


def _session_class(chosen: Generation) -> type[Session]:
    """E8.1's session class is imported only by a detector that runs it: its module (and its
    hashing patterns) cost a replay of an older target ~10% of its start."""
    if not chosen.v4:
        return Session
    from loopcfg.engine.v4 import V4Session

    return V4Session
