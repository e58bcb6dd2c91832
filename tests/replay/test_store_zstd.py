"""Compressed rows and cold archives decode exactly as OpenClaw wrote them, and anything else
is a FrameError (never another exception that would end the session)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from backports.zstd import CompressionParameter, ZstdCompressor
from hypothesis import given
from hypothesis import strategies as st

from loopcfg.replay.store_read import artifacts_dir
from loopcfg.replay.store_zstd import MAX_ROW_BYTES, FrameError, decode_archive, decode_row


def openclaw_frame(data: bytes) -> bytes:
    """Level 1, checksum on, content size in the header, no dictionary (10.3)."""
    compressor = ZstdCompressor(
        options={CompressionParameter.compression_level: 1, CompressionParameter.checksum_flag: 1}
    )
    return compressor.compress(data, mode=ZstdCompressor.FLUSH_FRAME)


@given(st.binary(min_size=1, max_size=4096))
def test_rows_round_trip(data: bytes) -> None:
    assert decode_row(openclaw_frame(data), len(data)) == data


@given(st.binary(min_size=1, max_size=2048), st.data())
def test_any_damage_is_a_frame_error_or_exact(data: bytes, draw: st.DataObject) -> None:
    frame = bytearray(openclaw_frame(data))
    index = draw.draw(st.integers(0, len(frame) - 1))
    frame[index] ^= draw.draw(st.integers(1, 255))
    try:
        decoded = decode_row(bytes(frame), len(data))
    except FrameError:
        return
    assert len(decoded) == len(data)  # a change the checksum cannot see (header bits) is exact


@given(st.binary(max_size=300), st.integers(-5, MAX_ROW_BYTES + 5))
def test_arbitrary_blobs_never_raise_anything_else(blob: bytes, size: int) -> None:
    with contextlib.suppress(FrameError):
        decode_row(blob, size)


@pytest.mark.parametrize("size", [0, -1, MAX_ROW_BYTES + 1, None, "12"])
def test_declared_sizes_out_of_bounds(size: object) -> None:
    with pytest.raises(FrameError, match="event_utf8_bytes"):
        decode_row(openclaw_frame(b"x"), size)


def test_wrong_declared_length() -> None:
    with pytest.raises(FrameError):
        decode_row(openclaw_frame(b"abcdef"), 5)
    with pytest.raises(FrameError, match="decoded 6 bytes"):
        decode_row(openclaw_frame(b"abcdef"), 7)


def test_archives_without_content_size_decode() -> None:
    compressor = ZstdCompressor()
    stream = compressor.compress(b"line\n" * 1000) + compressor.flush()
    assert decode_archive(stream) == b"line\n" * 1000
    with pytest.raises(FrameError):
        decode_archive(stream[:-3])


def test_cold_artifacts_directory() -> None:
    assert artifacts_dir("D/agents/main/agent/openclaw-agent.sqlite") == Path(
        "D/agents/main/sessions"
    )
    assert artifacts_dir("backup/store.sqlite") == Path("backup")
