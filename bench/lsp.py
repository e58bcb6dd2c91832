"""Diagnostics latency of `loopcfg lsp` after an edit, on a 50 KB config (issue 14).

A plain script, not a test. It starts `loopcfg lsp` as editors do (a subprocess on stdio,
driven by pygls' client), opens a generated JSON5 config of about 50 KB (comments, 256 agents
with overrides), then makes N edits as an editor with incremental sync sends them: each one
replaces one value in place (a `textDocument/didChange` with a range): a quoted string that
gives an LC002, then a valid number in the same place, so that the texts alternate between
invalid and valid; the places alternate between the global block and one agent's line, and
every text is a new one. Per edit it measures the time from sending the change to
receiving that file's `publishDiagnostics`. The baseline, measured in the same run on the same
texts: loopcfg's validate pipeline in-process (`check_file`, a fresh parse and check), run
right after each edit's diagnostics arrive, so that both see the same load.

Then, in-process on the same texts, where the server's check spends its time: the parse
through the server's `ParseCache`, the rest of loading (`$include`, `${VAR}`), validate, lint
(resolve and the lints), the target's findings, suppressions and sorting, with the server's
`SubtreeMemo` carried from edit to edit; medians for the valid and the invalid texts apart,
and for the edits of the global block and of an agent apart.

    .venv/bin/python bench/lsp.py [--edits 100] [--agents 256]
    .venv/bin/python bench/lsp.py --parse-only   # the incremental parse alone, three edits
    .venv/bin/python bench/lsp.py --line-breaks  # each edit an Enter in an agent's line
    .venv/bin/python bench/lsp.py --line-ends    # ... an Enter at the end of an agent's line
    .venv/bin/python bench/lsp.py --new-agents   # ... a new agent's line pasted in the roster
    .venv/bin/python bench/lsp.py --dollar       # the config also holds a `${VAR}` (an API
                                                 # key) and an `$include` (the gateway's section)
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
from loopcfg.config import load_config
from loopcfg.diagnostics import sort_diagnostics
from loopcfg.lint import lint_config
from loopcfg.lsp.incremental import ParseCache
from loopcfg.memo import SubtreeMemo
from loopcfg.source import parsing_with, unsaved_texts
from loopcfg.suppress import apply_suppressions, select
from loopcfg.validate import config_target, target_findings, validate_config, with_missing_env

PAUSE = 0.05  # seconds between an edit's diagnostics and the next edit (typing, not a script)
GLOBAL_VALUE = re.compile(r"(?<=historySize: )[^,]+")
AGENT_VALUE = re.compile(r"(?<=warningThreshold: )[^,]+")


# What `--dollar` adds: a secret from the environment and a section kept in its own file,
# outside the loop settings (so neither changes a finding).
DOLLAR_LINES = (
    '  models: { apiKey: "${LOOPCFG_BENCH_KEY}" },\n  gateway: { $include: "./gateway.json5" },\n'
)
INCLUDED_GATEWAY = "{ port: 18789 }\n"


def config_text(agents: int, dollar: bool = False) -> str:
    items = []
    for index in range(agents):
        items.append(
            f"      // agent {index}: runs the nightly jobs, tighter limits than the rest\n"
            f'      {{ id: "agent-{index}", tools: {{ loopDetection: {{ warningThreshold: '
            f"{5 + index % 4}, criticalThreshold: {12 + index % 5}, detectors: {{ pingPong: "
            f"{'true' if index % 2 else 'false'} }} }} }} }},"
        )
    return (
        "// generated for bench/lsp.py\n{\n"
        + (DOLLAR_LINES if dollar else "")
        + "  tools: {\n    loopDetection: {\n"
        "      enabled: true,\n      historySize: 30,\n      warningThreshold: 10,\n"
        "    },\n  },\n  agents: {\n    list: [\n" + "\n".join(items) + "\n    ],\n  },\n}\n"
    )


class Edit:
    """One value replaced in place: the LSP range change and the text it makes."""

    def __init__(self, lines: list[str], number: int, agents: int) -> None:
        # Edits come in pairs on one value: a wrong one, then a right one again, so the texts
        # alternate between invalid and valid; each pair in a new place, every value new.
        place, valid = number // 2, number % 2 == 1
        if place % 2 == 0:  # the global block
            line = next(i for i, text in enumerate(lines) if "historySize: " in text)
            pattern, value = GLOBAL_VALUE, str(20 + number) if valid else f'"h{number}"'
        else:  # one agent's line, a different agent each time
            agent = (place * 37) % agents
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


def agent_line(lines: list[str], number: int, agents: int) -> int:
    """The line of a different agent for each edit number."""
    mark = f'{{ id: "agent-{(number * 37) % agents}"'
    return next(i for i, text in enumerate(lines) if mark in text)


class Typed(Edit):
    """`value` typed at (line, column): the LSP change and the text it makes; `lines` become
    the new text's lines."""

    def __init__(self, lines: list[str], line: int, column: int, value: str) -> None:
        position = types.Position(line=line, character=column)
        self.range = types.Range(start=position, end=position)
        self.value = value
        lines[line] = lines[line][:column] + value + lines[line][column:]
        self.text = "".join(lines)
        lines[:] = self.text.splitlines(keepends=True)


class LineBreak(Typed):
    """An Enter typed before an agent's id, a different agent each time: the agent's line
    splits in two and everything after it moves down a line (`--line-breaks`)."""

    def __init__(self, lines: list[str], number: int, agents: int) -> None:
        line = agent_line(lines, number, agents)
        column = lines[line].index("{ id:") + 1
        super().__init__(lines, line, column, "\n        ")


class LineEnd(Typed):
    """An Enter typed at the end of an agent's line, a different agent each time: a new,
    indented line between two agents of the roster (`--line-ends`)."""

    def __init__(self, lines: list[str], number: int, agents: int) -> None:
        line = agent_line(lines, number, agents)
        super().__init__(lines, line, len(lines[line].rstrip("\n")), "\n      ")


class NewAgent(Typed):
    """A new agent's line pasted after an agent's line (`--new-agents`): in `agents.list`
    every agent below it moves to the next index, so its path changes."""

    def __init__(self, lines: list[str], number: int, agents: int) -> None:
        block = "tools: { loopDetection: { warningThreshold: 7 } }"
        new = f'      {{ id: "new-{number}", {block} }},\n'
        super().__init__(lines, agent_line(lines, number, agents) + 1, 0, new)


MODES = {"values": Edit, "line-breaks": LineBreak, "line-ends": LineEnd, "new-agents": NewAgent}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(path: Path, edits: list[Edit], twin: Path) -> tuple[list[float], list[float]]:
    """Per edit, the server's latency and then, on the same text saved to `twin`, check_file's
    time in this process (paired, so both see the same load on a shared machine)."""
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
    latencies, baseline = [], []
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
        baseline.append(check_file_time(twin, edit.text))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies, baseline


def check_file_time(path: Path, text: str) -> float:
    """check_file on `text`, as `loopcfg validate` checks the saved file (a fresh parse)."""
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    check_file(str(path))
    return time.perf_counter() - start


PHASES = ("parse", "rest of load", "validate", "lint", "target findings", "suppress, sort")


class Laps:
    """Seconds between successive `lap` calls, by name."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.clock = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.times[name] = now - self.clock
        self.clock = now


def phases(path: Path, edits: list[Edit]) -> dict[str, list[dict[str, float]]]:
    """Per edit, the seconds of each phase of the server's check (`loaded_findings`' steps),
    for the valid and the invalid texts apart, and for the edits of the global block and of
    an agent apart."""
    cache = ParseCache()
    cache.parse(config_text_of(path), str(path), "json5")
    memo = SubtreeMemo()  # the server keeps one per open config, from check to check
    out: dict[str, list[dict[str, float]]] = {
        "valid": [],
        "invalid": [],
        "global": [],
        "agent": [],
        "all": [],
    }
    for number, edit in enumerate(edits):
        laps = Laps()
        cache.parse(edit.text, str(path), "json5")
        laps.lap("parse")
        with unsaved_texts({str(path): edit.text}), parsing_with(cache.parse):
            loaded = load_config(str(path))  # its parse is the one above, reused
        laps.lap("rest of load")
        memo.new_round()
        target = config_target(loaded)
        found = with_missing_env(list(loaded.diagnostics), target)
        validation = validate_config(loaded, target, memo)
        laps.lap("validate")
        linted = lint_config(loaded, validation, target, memo)
        laps.lap("lint")
        extra = target_findings(loaded, target, memo)
        laps.lap("target findings")
        found = apply_suppressions(found + validation + linted + extra, loaded.documents)
        sort_diagnostics(select(found, ()))
        laps.lap("suppress, sort")
        place = "global" if (number // 2) % 2 == 0 else "agent"
        out["valid" if number % 2 == 1 else "invalid"].append(laps.times)
        out[place].append(laps.times)
        out["all"].append(laps.times)
    return out


def config_text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def parse_only(agents: int) -> None:
    """The server's re-parse (`incremental.reparse`) against a fresh parse of the same text,
    medians of 15, for an edit within a line and for two that add a line."""
    from loopcfg.lsp.incremental import reparse
    from loopcfg.source import fresh_parse

    text = config_text(agents)
    cases = {
        "a digit typed in the global block": ("historySize: 30,", "historySize: 301,"),
        "Enter in the global block (all agents move)": ("historySize: 30,", "historySize: 30,\n"),
        "Enter in the middle agent's line": (
            f'{{ id: "agent-{agents // 2}",',
            f'{{\n id: "agent-{agents // 2}",',
        ),
    }
    for name, (before, after) in cases.items():
        new = text.replace(before, after, 1)
        patched, fresh = [], []
        for _ in range(15):
            old = fresh_parse(text, "openclaw.json5", movable=True)  # a re-parse uses it up
            start = time.perf_counter()
            assert reparse(old, new) is not None
            patched.append(time.perf_counter() - start)
            start = time.perf_counter()
            fresh_parse(new, "openclaw.json5")
            fresh.append(time.perf_counter() - start)
        print(
            f"{name}: re-parse {statistics.median(patched) * 1000:.1f} ms, "
            f"fresh parse {statistics.median(fresh) * 1000:.1f} ms"
        )
    print(f"digits typed in the global block, through the server's ParseCache: {typing(text)}")


def typing(text: str) -> str:
    """Median of 15 digits typed one after another (the cache keeps the last text's line
    starts, as while the user types)."""
    cache = ParseCache()
    cache.parse(text, "openclaw.json5", "json5")
    times = []
    for digit in range(16):
        text = text.replace("historySize: 3", f"historySize: 3{digit % 10}", 1)
        start = time.perf_counter()
        cache.parse(text, "openclaw.json5", "json5")
        times.append(time.perf_counter() - start)
    assert cache.reparsed == 16
    return f"{statistics.median(times[1:]) * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--agents", type=int, default=256)
    parser.add_argument("--parse-only", action="store_true")
    parser.add_argument(
        "--line-breaks",
        action="store_const",
        const="line-breaks",
        dest="mode",
        help="each edit an Enter in an agent's line (what follows moves) instead of a value",
    )
    parser.add_argument(
        "--line-ends",
        action="store_const",
        const="line-ends",
        dest="mode",
        help="each edit an Enter at the end of an agent's line (a line between two agents)",
    )
    parser.add_argument(
        "--new-agents",
        action="store_const",
        const="new-agents",
        dest="mode",
        help="each edit a new agent's line pasted below an agent's (the agents below move)",
    )
    parser.add_argument(
        "--dollar",
        action="store_true",
        help="the config also holds a ${VAR} and an $include (outside the loop settings)",
    )
    parser.set_defaults(mode="values")
    args = parser.parse_args()
    if args.parse_only:
        parse_only(args.agents)
        return
    original = config_text(args.agents, args.dollar)
    lines = original.splitlines(keepends=True)
    made = MODES[args.mode]
    edits = [made(lines, number, args.agents) for number in range(args.edits)]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "openclaw.json5"
        path.write_text(original, encoding="utf-8")
        size = path.stat().st_size
        twin = Path(scratch) / "twin" / "openclaw.json5"
        twin.parent.mkdir()
        for folder in (path.parent, twin.parent):
            (folder / "gateway.json5").write_text(INCLUDED_GATEWAY, encoding="utf-8")
        latencies, check = asyncio.run(measure(path, edits, twin))
        split = phases(path, edits)
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    c50, c95 = percentile(check, 0.5), percentile(check, 0.95)
    print(f"config: {size / 1024:.1f} KB, {args.agents} agents; {args.edits} edits")
    print(f"baseline check_file in-process: p50 {c50 * 1000:.1f} ms, p95 {c95 * 1000:.1f} ms")
    print(f"edit -> diagnostics: p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    print(f"p50 / baseline p50: {p50 / c50:.2f}x; p95 / baseline p95: {p95 / c95:.2f}x")
    print(f"mean {statistics.mean(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms")
    print("the server's check in-process, median ms per phase:")
    groups = ("valid", "invalid", "global", "agent") if args.mode == "values" else ("all",)
    for kind, rows in ((group, split[group]) for group in groups):
        medians = {name: statistics.median(row[name] for row in rows) for name in PHASES}
        shown = ", ".join(f"{name} {value * 1000:.1f}" for name, value in medians.items())
        label = f"{kind} texts" if kind in ("valid", "invalid") else f"edits of {kind}"
        label = args.mode.replace("-", " ") if kind == "all" else label
        print(f"  {label}: {shown}; total {sum(medians.values()) * 1000:.1f}")


if __name__ == "__main__":
    main()
