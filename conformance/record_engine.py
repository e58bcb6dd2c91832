"""Record the real OpenClaw releases' detector verdicts and hashes as engine test vectors.

    python conformance/record_engine.py                    # all releases, traces and corpus
    python conformance/record_engine.py --release 2026.9.6 --no-corpus

For each release, `openclaw.py` installs `openclaw@VERSION` and Node into the cache folder;
`record_engine.mjs` imports that release's dist in-process and runs every trace through the
release's own before-tool-call hook (tool-name normalisation, detector, outcome recording, and
for 2026.9.6 batch admission), with the release's post-compaction guard observing outcomes.

Written (into tests/conformance/vectors/engine/):
- `traces.jsonl.gz`: the inputs, one trace a line (`conformance/traces.py`, fixed seed);
- `<version>.jsonl.gz`: a header line, then one answer a line per trace: per call the level,
  detector, count, message, emitted, argsHash, resultHash (+ batch fields on 2026.9.6), the
  aborts and the guard's log lines;
- `corpus-<version>.jsonl.gz`: the same answers for the corpus transcripts and stores, keyed by
  file name, SHA-256 and call index; no corpus content is stored (personal data).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import openclaw  # noqa: E402
import traces  # noqa: E402

from loopcfg.releases import release_info  # noqa: E402

ROOT = HERE.parent
VECTORS = ROOT / "tests/conformance/vectors/engine"
RELEASES = ["2026.5.4", "2026.5.12", "2026.6.5", "2026.7.1-2", "2026.9.6"]
CHUNK = 100  # traces per Node process: OpenClaw keeps at most 2,000 session states


def find_modules(package: Path) -> dict[str, str]:
    """The release's hook module, its runtime seam and the module holding the guard."""
    dist = package / "dist"
    names = sorted(path.name for path in dist.iterdir())

    def first(pattern: str, needle: str | None = None) -> str:
        for name in names:
            if re.fullmatch(pattern, name) and (
                needle is None or needle in (dist / name).read_text(errors="replace")
            ):
                return str(dist / name)
        raise SystemExit(f"{package}: no {pattern} containing {needle!r}")

    return {
        "hook": first(
            r"(pi|agent)-tools\.before-tool-call-[^.]+\.m?js",
            "function wrapToolWithBeforeToolCallHook(",
        ),
        "runtime": first(r"(pi|agent)-tools\.before-tool-call\.runtime\.m?js"),
        "guard": first(r"(pi-)?embedded.*\.m?js", "post-compaction-loop-guard.ts"),
    }


def write_gzip_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Byte-stable gzip (no name, mtime 0), so a re-record that agrees leaves no diff."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=True, separators=(",", ":")).encode() + b"\n")
    path.write_bytes(buffer.getvalue())


def run_driver(version: str, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs the jobs through one release, CHUNK jobs per Node process."""
    manifest = find_modules(openclaw.openclaw(version))
    node = openclaw.node()
    answers: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="loopcfg-conf-") as scratch:
        manifest_path = Path(scratch) / "manifest.json"
        manifest_path.write_text(json.dumps(manifest))
        for start in range(0, len(jobs), CHUNK):
            chunk = jobs[start : start + CHUNK]
            feed = "".join(json.dumps(job) + "\n" for job in chunk)
            answers_path = Path(scratch) / "answers.jsonl"
            subprocess.run(
                [str(node), str(HERE / "record_engine.mjs"), str(manifest_path), str(answers_path)],
                input=feed.encode(),
                capture_output=True,
                check=True,
                cwd=scratch,
            )
            text = answers_path.read_text(encoding="utf-8", errors="surrogatepass")
            rows = [json.loads(line) for line in text.split("\n") if line]
            if len(rows) != len(chunk):
                raise SystemExit(f"{version}: {len(rows)} answers for {len(chunk)} jobs")
            answers.extend(rows)
            print(f"  {version}: {len(answers)}/{len(jobs)}", file=sys.stderr)
    failed = [row["id"] for row in answers if "error" in row]
    if failed:
        first = next(row for row in answers if "error" in row)
        raise SystemExit(f"{version}: the driver failed on {failed[:5]}: {first['error']}")
    return answers


def traces_digest(path: Path) -> str:
    return hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()


def record_traces(versions: list[str], count: int) -> None:
    jobs = list(traces.all_traces(count))
    traces_path = VECTORS / "traces.jsonl.gz"
    write_gzip_jsonl(traces_path, jobs)
    digest = traces_digest(traces_path)
    for version in versions:
        answers = run_driver(version, jobs)
        header = header_for(
            version,
            {
                "traces": "traces.jsonl.gz",
                "tracesSha256": digest,
                "seed": traces.SEED,
                "count": len(jobs),
            },
        )
        write_gzip_jsonl(VECTORS / f"{version}.jsonl.gz", [header, *answers])


def header_for(version: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "header",
        "openclaw": version,
        "node": openclaw.NODE_VERSION,
        "path": "batch" if release_info(version).engine == "E8.1" else "single",
        "deviation": "a warning call with `loopcfgEmitted` is where loopcfg's emission "
        "deliberately differs (04 §4.7: its bucket is warningThreshold, OpenClaw's is 10)",
        **extra,
    }


# --- the corpus: only outputs are stored --------------------------------------------------


def corpus_root() -> Path:
    sys.path.insert(0, str(ROOT))
    from tests.conftest import CORPUS  # $LOOPCFG_CORPUS or ../shared/corpus

    return CORPUS


def corpus_jobs() -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """One job per corpus session: the trace is built from the transcript with loopcfg's own
    transcript reader (so a test can rebuild it), never written into the repository."""
    sys.path.insert(0, str(ROOT))
    from tests.conformance.engine_vectors import corpus_sessions

    yield from corpus_sessions(corpus_root())


def record_corpus(versions: list[str]) -> None:
    keyed = list(corpus_jobs())
    jobs = [job for job, _ in keyed]
    for version in versions:
        answers = run_driver(version, jobs)
        rows = []
        for (_job, key), answer in zip(keyed, answers, strict=True):
            rows.append({**key, **strip_corpus_answer(answer)})
        header = header_for(version, {"corpus": "../shared/corpus", "count": len(rows)})
        write_gzip_jsonl(VECTORS / f"corpus-{version}.jsonl.gz", [header, *rows])


def strip_corpus_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """Keep only verdicts, counts and hashes: no message text beyond the spec's own templates
    (messages name tools only), no guard log, nothing of the transcript itself."""
    return {"calls": answer["calls"], "aborts": answer["aborts"], "dropped": answer["dropped"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="append", help="default: all of " + ", ".join(RELEASES))
    parser.add_argument("--traces", type=int, default=traces.TRACE_COUNT)
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--only-corpus", action="store_true")
    options = parser.parse_args()
    versions = options.release or RELEASES
    VECTORS.mkdir(parents=True, exist_ok=True)
    if not options.only_corpus:
        record_traces(versions, options.traces)
    if not options.no_corpus and corpus_root().exists():
        record_corpus(versions)


if __name__ == "__main__":
    main()
