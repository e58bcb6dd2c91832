"""How far loopcfg's engine agrees with the real OpenClaw releases' recorded answers.

    .venv/bin/python conformance/compare_engine.py                  # every release
    .venv/bin/python conformance/compare_engine.py --release 2026.9.6 --show 5

Replays every vector's trace through `loopcfg.engine` (tests/conformance/engine_vectors.py) and
prints, per release: calls agreeing / total, traces agreeing / total, and the differing calls
by kind (the field that differs). The corpus vectors are compared too when the corpus is present
(`$LOOPCFG_CORPUS`, else ../shared/corpus). Exit status 0 whatever the figures: it measures.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conformance import engine_vectors as ev  # noqa: E402


def compare(
    version: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]], show: int
) -> dict[str, Any]:
    """pairs: (trace, OpenClaw's answer)."""
    calls = agreeing_calls = agreeing_traces = 0
    kinds: Counter[str] = Counter()
    examples: list[ev.Difference] = []
    for trace, theirs in pairs:
        mine = ev.replay_with_loopcfg(trace, version)
        found = ev.differences(theirs, mine)
        differing = {(d.line, d.call) for d in found if d.kind != "abort"}
        calls += len(theirs["calls"])
        agreeing_calls += len(theirs["calls"]) - len(differing)
        agreeing_traces += not found
        kinds.update(d.kind for d in found)  # one difference per call and field
        examples.extend(found[:1] if len(examples) < show else [])
    return {
        "calls": calls,
        "agreeing_calls": agreeing_calls,
        "traces": len(pairs),
        "agreeing_traces": agreeing_traces,
        "kinds": kinds,
        "examples": examples,
    }


def report(title: str, figures: dict[str, Any]) -> None:
    calls, traces = figures["calls"], figures["traces"]
    print(
        f"{title}: calls {figures['agreeing_calls']}/{calls} "
        f"({100 * figures['agreeing_calls'] / max(calls, 1):.1f} %), "
        f"traces {figures['agreeing_traces']}/{traces} "
        f"({100 * figures['agreeing_traces'] / max(traces, 1):.1f} %)"
    )
    for kind, count in figures["kinds"].most_common():
        print(f"    {kind:<12} {count} differing {'traces' if kind == 'abort' else 'calls'}")
    for example in figures["examples"]:
        print(
            f"    e.g. {example.trace} line {example.line}: {example.kind} "
            f"OpenClaw {str(example.openclaw)[:70]!r} loopcfg {str(example.loopcfg)[:70]!r}"
        )


def corpus_pairs(version: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    if not (ev.VECTORS / f"corpus-{version}.jsonl.gz").exists() or not ev.CORPUS.is_dir():
        return []
    sessions = {session.name: session for session in ev.corpus_sessions_in()}
    pairs = []
    for row in ev.release_file(version, corpus=True)[1]:
        session = sessions.get(row["id"])
        if session is None or ev.corpus_source_digest(session) != row["sha256"]:
            print(f"  {row['id']}: not in the corpus or changed since recording; skipped")
            continue
        lines, _ = ev.corpus_trace(session)
        pairs.append(({"id": row["id"], "config": {"enabled": True}, "lines": lines}, row))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="append", choices=ev.RELEASES)
    parser.add_argument("--show", type=int, default=0, help="print N example differences")
    options = parser.parse_args()
    for version in options.release or ev.RELEASES:
        traces = ev.traces()
        pairs = [(traces[trace_id], answer) for trace_id, answer in ev.answers(version).items()]
        report(f"{version} traces", compare(version, pairs, options.show))
        corpus = corpus_pairs(version)
        if corpus:
            report(f"{version} corpus", compare(version, corpus, options.show))


if __name__ == "__main__":
    main()
