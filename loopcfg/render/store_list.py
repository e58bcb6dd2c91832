"""`loopcfg replay --list` (10.5): the sessions a replay would read, one per line, and per
store the deleted or reset transcripts it keeps (never replayed). Nothing from `entry_json` or
the transcripts themselves is shown: keys and ids only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loopcfg.render import json_text
from loopcfg.replay.store import SessionRow
from loopcfg.replay.store_inputs import StoreListing

JSON_VERSION = 1
HEADER = ("store", "agent", "session key", "session id", "rows", "compressed", "state")


def _state(row: SessionRow) -> str:
    words = [row.state]
    if row.current:
        words.append("current")
    if row.archived:
        words.append("archived")
    return " ".join(words)


def render_list_text(listings: Sequence[StoreListing]) -> str:
    from loopcfg.render import printable

    rows = [
        (
            listing.db,
            listing.agent or "-",
            row.key or "-",
            row.session_id,
            str(row.rows),
            str(row.compressed),
            _state(row),
        )
        for listing in listings
        for row in listing.sessions
    ]
    table = [HEADER, *rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    numeric = {4, 5}

    def fmt(line: Sequence[str]) -> str:
        cells = [
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ]
        return "  ".join(cells).rstrip()

    lines = [fmt(line) for line in table] if rows else ["no sessions"]
    for listing in listings:
        count = listing.archived
        noun = "transcript" if count == 1 else "transcripts"
        lines.append(f"{listing.db}: {count} deleted or reset {noun} kept (not replayed)")
    return "".join(printable(line) + "\n" for line in lines)


def session_entry(listing: StoreListing, row: SessionRow) -> dict[str, Any]:
    return {
        "db": listing.db,
        "agent": listing.agent,
        "sessionKey": row.key,
        "sessionId": row.session_id,
        "current": row.current,
        "archived": row.archived,
        "reason": row.reason,
        "previousSessionId": row.previous,
        "rows": row.rows,
        "compressedRows": row.compressed,
        "state": row.state,
        "createdAt": row.created_at,
    }


def render_list_json(listings: Sequence[StoreListing]) -> str:
    document = {
        "version": JSON_VERSION,
        "sessions": [session_entry(item, row) for item in listings for row in item.sessions],
        "archivedTranscripts": [{"db": item.db, "count": item.archived} for item in listings],
    }
    return json_text(document) + "\n"
