"""Diagnostics latency of `loopcfg lsp` after an edit, on a ~50 KB config (issue 14).

A plain script, not a test. It starts `loopcfg lsp` as editors do (a subprocess on stdio),
opens a generated JSON5 config of about 50 KB (comments, 200 agents with overrides), then makes
N edits, each replacing the whole buffer with one threshold changed (alternating between a valid
value and one that gives an LC002), and measures, per edit, the time from sending
`textDocument/didChange` to receiving that file's `publishDiagnostics`. The server waits
`DEBOUNCE` seconds of quiet before checking, so the figure includes that wait. The baseline,
measured in the same run on the same text: loopcfg's validate pipeline in-process (`check_file`).

    .venv/bin/python bench/lsp.py [--edits 100] [--agents 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from loopcfg.check import check_file
from loopcfg.lsp.server import DEBOUNCE


def config_text(agents: int, threshold: str) -> str:
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
        f"      enabled: true,\n      historySize: {threshold},\n      warningThreshold: 10,\n"
        "    },\n  },\n  agents: {\n    list: [\n" + "\n".join(items) + "\n    ],\n  },\n}\n"
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(path: Path, edits: int, agents: int) -> list[float]:
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
    for version in range(2, edits + 2):
        text = config_text(agents, "30" if version % 2 else '"30"')
        published.clear()
        start = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        await asyncio.wait_for(published.wait(), 60)
        latencies.append(time.perf_counter() - start)
        await asyncio.sleep(DEBOUNCE * 2)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--agents", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "openclaw.json5"
        path.write_text(config_text(args.agents, "30"), encoding="utf-8")
        size = path.stat().st_size
        baseline = []
        for _ in range(20):
            start = time.perf_counter()
            check_file(str(path))
            baseline.append(time.perf_counter() - start)
        latencies = asyncio.run(measure(path, args.edits, args.agents))
    check = statistics.median(baseline)
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    print(f"config: {size / 1024:.1f} KB, {args.agents} agents; {args.edits} edits")
    print(f"baseline check_file in-process (median of 20): {check * 1000:.1f} ms")
    print(f"debounce: {DEBOUNCE * 1000:.0f} ms")
    print(f"edit -> diagnostics: p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    print(
        f"p95 / baseline: {p95 / check:.2f}x; p95 minus debounce: {(p95 - DEBOUNCE) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
