"""validate on invalid configs at scale: the wrong-blocks shortcut against the plain
whole-config jsonschema run, in one run, on the same loaded configs (issue 14).

A plain script, not a test. For an invalid config `validate_config` checks each block with
the compiled block schema and gives jsonschema only the wrong ones (`_schema_errors` in
loopcfg/validate.py); the baseline is the plain run it replaced (jsonschema over the whole
config), patched in for the measurement exactly as tests/config/test_validate_shortcut.py
does to prove both give the same diagnostics. The shapes: a valid config (no jsonschema at
all), one wrong block, every block wrong, a 2026.9.6 target with retired keys in every
`agents.entries` block, and a wrong agent with every block valid (the case the shortcut
cannot narrow down). CPU time (process_time), best of `--repeat`, interleaved.

    .venv/bin/python bench/validate_invalid.py [--agents 4000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

from loopcfg import validate
from loopcfg.config import LoadedConfig, load_config
from loopcfg.fastcheck import is_valid
from loopcfg.releases import Line, Target, choose_target


def _plain_schema_errors(value: Any, line: Line) -> Iterator[tuple[Any, Any]]:
    if is_valid(value, line.id) is True:
        return
    for error in validate._validator(line.id).iter_errors(value):
        yield tuple(error.absolute_path), error


def _good(index: int) -> dict[str, Any]:
    return {
        "warningThreshold": 5 + index % 4,
        "criticalThreshold": 12 + index % 5,
        "detectors": {"pingPong": bool(index % 2)},
    }


def _listed(agents: int, block: Callable[[int], Any]) -> list[dict[str, Any]]:
    return [{"id": f"agent-{i}", "tools": {"loopDetection": block(i)}} for i in range(agents)]


def shapes(agents: int) -> dict[str, tuple[dict[str, Any], str | None]]:
    keyed = {f"agent-{i}": {"tools": {"loopDetection": _good(i)}} for i in range(agents)}
    return {
        "valid": ({"agents": {"list": _listed(agents, _good)}}, None),
        "one block wrong": (
            {
                "tools": {"loopDetection": {"historySize": "30"}},
                "agents": {"list": _listed(agents, _good)},
            },
            None,
        ),
        "every block wrong": (
            {"agents": {"list": _listed(agents, lambda i: {**_good(i), "warningTreshold": 3})}},
            None,
        ),
        "2026.9.6, every block retired keys": ({"agents": {"entries": keyed}}, "2026.9.6"),
        "one agent wrong, blocks valid": (
            {"agents": {"list": [*_listed(agents, _good), {"tools": {}}]}},
            None,
        ),
    }


def _time(loaded: LoadedConfig, target: Target) -> tuple[float, int]:
    start = time.process_time()
    found = validate.validate_config(loaded, target)
    return time.process_time() - start, len(found)


def main() -> None:
    arguments = argparse.ArgumentParser()
    arguments.add_argument("--agents", type=int, default=4000)
    arguments.add_argument("--repeat", type=int, default=5)
    options = arguments.parse_args()
    print(f"{options.agents} agents, CPU ms, best of {options.repeat}")
    print(f"{'config':38} {'plain':>9} {'shortcut':>9} {'ratio':>7}  diagnostics")
    for name, (config, release) in shapes(options.agents).items():
        text = json.dumps(config, indent=1)
        loaded = load_config("-", stdin=io.StringIO(text), stdin_filename="openclaw.json5")
        target = choose_target(release)
        plain: list[float] = []
        shortcut: list[float] = []
        for _ in range(options.repeat):
            with mock.patch.object(validate, "_schema_errors", _plain_schema_errors):
                seconds, plain_count = _time(loaded, target)
            plain.append(seconds)
            seconds, count = _time(loaded, target)
            shortcut.append(seconds)
        assert count == plain_count, (name, count, plain_count)
        best, base = min(shortcut) * 1000, min(plain) * 1000
        print(f"{name:38} {base:9.1f} {best:9.1f} {best / base:6.2f}x  {count}")


if __name__ == "__main__":
    main()
