"""`loopcfg.collector.paused` and `pausing`: the cyclic collector is off inside and as it was
afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from loopcfg.collector import paused, pausing


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@paused
def _inside(fail: bool = False) -> bool:
    if fail:
        raise ValueError("boom")
    return gc.isenabled()


def test_off_inside_and_back_on_after(collector_on: None) -> None:
    assert _inside() is False
    assert gc.isenabled()
    with pytest.raises(ValueError, match="boom"):
        _inside(fail=True)
    assert gc.isenabled()


def test_left_off_when_it_was_off(collector_on: None) -> None:
    gc.disable()
    try:
        assert _inside() is False
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_library_entry_points_pause_it(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsing runs with the collector off; a whole check leaves it on, as it was."""
    import io

    import loopcfg.source.json5 as json5_module
    from loopcfg.check import check_file
    from loopcfg.source import parse_text

    seen: list[bool] = []
    parse = json5_module.parse_json5

    def spy(text: str, file: str, format: str = "json5", **options: bool) -> object:
        seen.append(gc.isenabled())
        return parse(text, file, format, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(json5_module, "parse_json5", spy)
    parse_text("{a: 1}", "f.json5")
    assert seen == [False] and gc.isenabled()
    assert check_file("-", stdin=io.BytesIO(b"{}")).exit_code == 0
    assert seen == [False, False] and gc.isenabled()


def test_a_paused_block_puts_it_back_as_it_was(collector_on: None) -> None:
    with pytest.raises(ValueError, match="boom"), pausing():
        assert not gc.isenabled()
        raise ValueError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with pausing():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off: left off
    finally:
        gc.enable()
