"""OpenClaw's agent ids: normalisation (02 §2.1) and the `agents.entries` key rule (08 §8.1).

Its own small module because validation (roster checks), resolution (lookup) and lint (LC108)
all need it, and validation must not import the resolver above it.
"""

from __future__ import annotations

import re

__all__ = ["DEFAULT_AGENT", "is_entry_key", "normalize_agent_id"]

DEFAULT_AGENT = "main"
_VALID_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
_INVALID_RUN = re.compile(r"[^a-z0-9_-]+")  # only for ids that are not valid as written
_ENTRY_KEY = re.compile(r"[a-z0-9_][a-z0-9_-]{0,63}\Z", re.IGNORECASE)
_MAX_ID = 64


def normalize_agent_id(raw: str) -> str:
    """OpenClaw's agent id normalisation (02 §2.1): `" Safe Runner "` -> `safe-runner`."""
    text = raw.strip()
    if not text:
        return DEFAULT_AGENT
    text = text.lower()
    if _VALID_ID.match(text):
        return text
    text = _INVALID_RUN.sub("-", text).strip("-")[:_MAX_ID]
    return text or DEFAULT_AGENT


def is_entry_key(key: str) -> bool:
    """Whether OpenClaw accepts `key` as an `agents.entries` key (else "Invalid agent id")."""
    return _ENTRY_KEY.match(key) is not None
