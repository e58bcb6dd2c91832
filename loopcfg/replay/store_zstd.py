"""zstd for session stores (10.3, 10.6): compressed rows and cold archives.

The `compression.zstd` API: the standard library on Python 3.14+, the `backports.zstd` package
(same API) before. It is imported only when a compressed row or a cold archive is met, so a
store without them replays even where neither is installed.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

# OpenClaw's bounds: a compressed row decodes to 1 .. 4 MiB, a cold archive to at most 64 MiB.
MAX_ROW_BYTES = 4 * 1024 * 1024
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
MISSING = "needs zstd support: install backports.zstd or use Python 3.14+"


class ZstdUnavailable(Exception):
    """Neither `compression.zstd` nor `backports.zstd` can be imported."""


class FrameError(ValueError):
    """A compressed row or archive that does not decode as OpenClaw wrote it."""


_module: ModuleType | None = None


def zstd_module() -> ModuleType:
    """The zstd API; raises ZstdUnavailable (a test can make the imports fail)."""
    global _module
    if _module is None:
        _module = _import_zstd()
    return _module


def _import_zstd() -> ModuleType:
    try:
        import compression.zstd as module  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        try:
            import backports.zstd as module  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise ZstdUnavailable(MISSING) from None
    result: ModuleType = module
    return result


def zstd_available() -> bool:
    try:
        zstd_module()
    except ZstdUnavailable:
        return False
    return True


def decode_row(blob: bytes, utf8_bytes: Any) -> bytes:
    """One row's frame to the line's bytes: exactly `utf8_bytes` of them, frame finished (so
    its checksum was verified). Raises FrameError with the reason."""
    if not isinstance(utf8_bytes, int) or not 1 <= utf8_bytes <= MAX_ROW_BYTES:
        raise FrameError(f"event_utf8_bytes {utf8_bytes!r} is outside 1..{MAX_ROW_BYTES}")
    if not isinstance(blob, bytes) or not 1 <= len(blob) <= MAX_ROW_BYTES:
        size = len(blob) if isinstance(blob, bytes) else type(blob).__name__
        raise FrameError(f"event_zstd of {size} bytes is outside 1..{MAX_ROW_BYTES}")
    data = _decompress(blob, utf8_bytes)
    if len(data) != utf8_bytes:
        raise FrameError(f"decoded {len(data)} bytes, the row says {utf8_bytes}")
    return data


def decode_archive(blob: bytes) -> bytes:
    """A cold archive's stream (no content size, no checksum), at most 64 MiB decoded."""
    return _decompress(blob, MAX_ARCHIVE_BYTES)


def _decompress(blob: bytes, limit: int) -> bytes:
    module = zstd_module()
    decompressor = module.ZstdDecompressor()
    try:
        data: bytes = decompressor.decompress(blob, max_length=limit)
    except module.ZstdError as error:
        raise FrameError(str(error) or "not a zstd frame") from None
    if not decompressor.eof:
        # Either truncated or longer than the limit: both mean OpenClaw did not write it so.
        raise FrameError(f"the frame does not end within {limit} bytes")
    if decompressor.unused_data:
        raise FrameError("bytes after the end of the frame")
    return data
