"""Check-on-change with coalescing (issue 14): a change is checked at once when no check runs;
the changes that arrive while one runs collapse into one re-check of the newest text. The
server runs in-process with the check replaced by one that the test holds, so the order of
events is fixed (no clock involved)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types

from loopcfg.lsp import analysis
from loopcfg.lsp.server import LoopcfgServer, build_server

TOP = "/nowhere/openclaw.json5"  # only in the buffers: never read from disk


def server_over(texts: dict[str, str]) -> LoopcfgServer:
    """A server whose editor buffers are `texts`: a test opens, edits and closes files by
    changing the dict, as didOpen, didChange and didClose would."""
    server = build_server()
    server.buffers = lambda: dict(texts)  # type: ignore[method-assign]
    return server


def test_changes_during_a_check_collapse_into_one_recheck(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    started = threading.Event()
    release = threading.Event()

    def held_check(top: str, buffers: dict[str, str], *args: Any) -> str:
        seen.append(buffers[top])
        started.set()
        release.wait(60)  # the first check is held until the test has typed on
        return buffers[top]

    monkeypatch.setattr(analysis, "check", held_check)

    async def main() -> None:
        texts = {TOP: "v1"}
        server = server_over(texts)
        recorded: list[str] = []
        server.record = lambda top, checked: recorded.append(checked)  # type: ignore[method-assign, assignment, arg-type, misc]
        server.schedule(TOP)  # idle: checked at once
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 60)
        assert seen == ["v1"]
        for version in range(2, 7):  # typed while the first check runs
            texts[TOP] = f"v{version}"
            server.schedule(TOP)
        release.set()
        await server.settled()
        assert seen == ["v1", "v6"]  # one re-check, of the newest text
        assert recorded == ["v1", "v6"]
        texts[TOP] = "v7"
        server.schedule(TOP)  # idle again: checked at once, no timer
        await server.settled()
        assert seen[-1] == "v7" and len(seen) == 3

    asyncio.run(main())


@pytest.mark.parametrize("raises", [False, True], ids=["answers", "raises"])
def test_a_file_closed_while_checked_gets_no_diagnostics(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, raises: bool
) -> None:
    """Nothing is published for a file closed while its check ran, whether the check
    answered or raised (a bug: no failure left in the editor or in the server's state)."""
    top = tmp_path / "openclaw.json5"
    top.write_text("{ tools: { loopDetection: { historySize: 'x' } } }\n", encoding="utf-8")
    real = str(top.resolve())
    started, release = threading.Event(), threading.Event()
    plain_check = analysis.check

    def held_check(*args: Any) -> Any:
        started.set()
        release.wait(60)  # the user closes the file while this check runs
        if raises:
            raise RuntimeError("a bug")
        return plain_check(*args)

    monkeypatch.setattr(analysis, "check", held_check)

    async def main() -> None:
        texts = {real: top.read_text(encoding="utf-8")}
        server = server_over(texts)
        published: list[str] = []
        server.publish = lambda file, found, checked: published.append(file)  # type: ignore[method-assign, assignment, misc]
        server.publish_items = lambda file, items: published.append(file)  # type: ignore[method-assign]
        server.schedule(real)
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 60)
        del texts[real]  # didClose: the editor no longer has it
        release.set()
        await server.settled()
        assert published == [] and real not in server.checked and real not in server.failed

    asyncio.run(main())


def test_the_validators_are_made_once_after_the_first_check(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """jsonschema (some 60 ms to import) is made ready after the first check is published,
    in the check thread, not when the first invalid text is typed."""
    import loopcfg.validate as validate

    top = tmp_path / "openclaw.json5"
    top.write_text("{ tools: { loopDetection: { historySize: 30 } } }\n", encoding="utf-8")
    real = str(top.resolve())
    prepared: list[str] = []
    plain_prepare = analysis.prepare

    def counting(checked: analysis.Checked, openclaw: str | None = None) -> None:
        prepared.append(checked.path)
        plain_prepare(checked, openclaw)

    monkeypatch.setattr(analysis, "prepare", counting)
    validate._validator.cache_clear()

    async def main() -> None:
        texts = {real: top.read_text(encoding="utf-8")}
        server = server_over(texts)
        server.publish = lambda file, found, checked: None  # type: ignore[method-assign, assignment, misc]
        for value in ("31", "32"):
            texts[real] = texts[real].replace("30", value)
            server.schedule(real)
            await server.settled()
        server.checker.shutdown(wait=True)
        assert prepared == [real]  # once, for the first check
        assert validate._validator.cache_info().currsize == 1  # made without an invalid text

    asyncio.run(main())


def test_a_check_that_raises_leaves_no_stale_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """A check that raises (a loopcfg bug) is logged; hover, completion and code actions then
    read no check (the last good one is for a text that is gone), the editor shows one error
    in place of the old findings, and the next edit is checked afresh."""
    top = tmp_path / "openclaw.json5"
    top.write_text("{ tools: { loopDetection: { historySize: 'x' } } }\n", encoding="utf-8")
    real = str(top.resolve())
    plain_check = analysis.check
    previous_given: list[object] = []

    def sometimes_raising(*args: Any) -> Any:
        previous_given.append(args[4])
        if "historySize: 7" in args[1][real]:
            raise RuntimeError("a bug")
        return plain_check(*args)

    monkeypatch.setattr(analysis, "check", sometimes_raising)

    async def main() -> None:
        texts = {real: top.read_text(encoding="utf-8")}
        server = server_over(texts)
        published: list[tuple[str, list[str]]] = []

        def capture(params: Any) -> None:
            published.append((params.uri, [d.message for d in params.diagnostics]))

        server.text_document_publish_diagnostics = capture  # type: ignore[method-assign]
        no_client = types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
        )
        server.range_of = lambda span, lines: no_client  # type: ignore[method-assign]
        server.schedule(real)
        await server.settled()
        first = server.checked_for(real)
        assert first is not None and "LC002" in {d.code for d in first.diagnostics}
        texts[real] = texts[real].replace("'x'", "7")
        server.schedule(real)
        await server.settled()
        assert server.checked_for(real) is None  # nothing read from the gone text
        uri, messages = published[-1]
        assert uri.endswith("openclaw.json5") and len(messages) == 1
        assert messages[0].startswith("loopcfg could not check this file: an internal error")
        texts[real] = texts[real].replace("historySize: 7", "historySize: 8")
        server.schedule(real)
        await server.settled()
        assert previous_given[-1] is None  # afresh: no memo of the last good check
        again = server.checked_for(real)
        assert again is not None and "LC002" not in {d.code for d in again.diagnostics}
        assert published[-1][0] == uri and not any(
            message.startswith("loopcfg could not check") for message in published[-1][1]
        )

    asyncio.run(main())


def test_a_file_whose_own_check_raised_is_not_failed_once_its_config_covers_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    top = tmp_path / "openclaw.json5"
    included = tmp_path / "tools.json5"
    top.write_text('{ tools: { $include: "./tools.json5" } }\n', encoding="utf-8")
    included.write_text("{ loopDetection: { historySize: 30 } }\n", encoding="utf-8")
    real_top, real_included = str(top.resolve()), str(included.resolve())
    plain_check = analysis.check

    def raising_for_the_included_alone(path: str, *args: Any) -> Any:
        if path == real_included:
            raise RuntimeError("a bug")
        return plain_check(path, *args)

    monkeypatch.setattr(analysis, "check", raising_for_the_included_alone)

    async def main() -> None:
        texts = {real_included: included.read_text(encoding="utf-8")}
        server = server_over(texts)
        server.publish_items = lambda file, items: None  # type: ignore[method-assign]
        server.publish = lambda file, found, checked: None  # type: ignore[method-assign, assignment, misc]
        server.schedule(real_included)  # opened alone: its own check raises
        await server.settled()
        assert server.failed == {real_included}
        texts[real_top] = top.read_text(encoding="utf-8")
        server.schedule(real_top)  # the config that includes it: checked, covering it
        await server.settled()
        assert server.failed == set() and server.checked_for(real_included) is not None

    asyncio.run(main())
