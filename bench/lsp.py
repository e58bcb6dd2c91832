"""Diagnostics latency of `loopcfg lsp` after an edit, on a 50 KB config (issue 14).

A plain script, not a test. It starts `loopcfg lsp` as editors do (a subprocess on stdio,
driven by pygls' client), opens a generated JSON5 config of about 50 KB (comments, 256 agents
with overrides), then makes N edits as an editor with incremental sync sends them: each one
replaces one value in place (a `textDocument/didChange` with a range), alternately a valid
number and a quoted string that gives an LC002, alternately in the global block and in one
agent's line, every text a new one. Per edit it measures the time from sending the change to
receiving that file's `publishDiagnostics`. The baseline, measured in the same run on the same
texts: loopcfg's validate pipeline in-process (`check_file`, a fresh parse and check).

    .venv/bin/python bench/lsp.py [--edits 100] [--agents 256]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from loopcfg.check import check_file

PAUSE = 0.05  # seconds between an edit's diagnostics and the next edit (typing, not a script)
GLOBAL_VALUE = re.compile(r"(?<=historySize: )[^,]+")
AGENT_VALUE = re.compile(r"(?<=warningThreshold: )[^,]+")


def config_text(agents: int) -> str:
    items = []
    for index in range(agents):
        items.append(
            f"      // agent {index}: runs the nightly jobs, tighter limits than the rest\n"
            f'      {{ id: "agent-{index}", tools: {{ loopDetection: {{ warningThreshold: '
            f"{5 + index % 4}, criticalThreshold: {12 + index % 5}, detectors: {{ pingPong: "
            f"{'true' if index % 2 else 'false'} }} }} }} }},"
        )
    return (
        "// generated for bench/lsp.py\n{\n  tools: {\n    loopDetection: {\n"
        "      enabled: true,\n      historySize: 30,\n      warningThreshold: 10,\n"
        "    },\n  },\n  agents: {\n    list: [\n" + "\n".join(items) + "\n    ],\n  },\n}\n"
    )


class Edit:
    """One value replaced in place: the LSP range change and the text it makes."""

    def __init__(self, lines: list[str], number: int, agents: int) -> None:
        valid = number % 2 == 0
        if number % 4 < 2:  # the global block
            line = next(i for i, text in enumerate(lines) if "historySize: " in text)
            pattern, value = GLOBAL_VALUE, str(20 + number) if valid else f'"h{number}"'
        else:  # one agent's line, a different agent each time
            agent = (number * 37) % agents
            line = next(i for i, text in enumerate(lines) if f'id: "agent-{agent}"' in text)
            pattern, value = AGENT_VALUE, str(1 + number % 9) if valid else f'"w{number}"'
        found = pattern.search(lines[line])
        assert found is not None
        self.range = types.Range(
            start=types.Position(line=line, character=found.start()),
            end=types.Position(line=line, character=found.end()),
        )
        self.value = value
        lines[line] = lines[line][: found.start()] + value + lines[line][found.end() :]
        self.text = "".join(lines)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(path: Path, edits: list[Edit]) -> list[float]:
    client = LanguageClient("bench", "1")
    published = asyncio.Event()
    uri = from_fs_path(str(path)) or ""

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri:
            published.set()

    await client.start_io(sys.executable, "-m", "loopcfg", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    item = types.TextDocumentItem(uri=uri, language_id="json5", version=1, text=path.read_text())
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    await asyncio.wait_for(published.wait(), 60)
    latencies = []
    for version, edit in enumerate(edits, start=2):
        published.clear()
        start = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=edit.range, text=edit.value)
                ],
            )
        )
        await asyncio.wait_for(published.wait(), 60)
        latencies.append(time.perf_counter() - start)
        await asyncio.sleep(PAUSE)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies


def baseline(path: Path, edits: list[Edit]) -> list[float]:
    """check_file on each edited text, as `loopcfg validate` would check the saved file."""
    times = []
    for edit in edits:
        path.write_text(edit.text, encoding="utf-8")
        start = time.perf_counter()
        check_file(str(path))
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--agents", type=int, default=256)
    args = parser.parse_args()
    original = config_text(args.agents)
    lines = original.splitlines(keepends=True)
    edits = [Edit(lines, number, args.agents) for number in range(args.edits)]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "openclaw.json5"
        path.write_text(original, encoding="utf-8")
        size = path.stat().st_size
        latencies = asyncio.run(measure(path, edits))
        check = baseline(path, edits)
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    c50, c95 = percentile(check, 0.5), percentile(check, 0.95)
    print(f"config: {size / 1024:.1f} KB, {args.agents} agents; {args.edits} edits")
    print(f"baseline check_file in-process: p50 {c50 * 1000:.1f} ms, p95 {c95 * 1000:.1f} ms")
    print(f"edit -> diagnostics: p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    print(f"p50 / baseline p50: {p50 / c50:.2f}x; p95 / baseline p95: {p95 / c95:.2f}x")
    print(f"mean {statistics.mean(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
