"""E8.1's outcome hashes (09 §9.4.2-§9.4.3): nonce canonicalisation, terminal exec failures,
`write` without change, the conversations sends, and the record fields they set.

Argument hashes are 04's (`loopcfg.hashing.args_hash`): arguments are never canonicalised.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from loopcfg import hashing
from loopcfg.hashing import (
    CONVERSATION_SEND_TOOLS,
    JS_WHITESPACE,
    NO_RESULT,
    canonical_json,
    error_message,
    is_loop_veto,
    is_message_send,
    js_number,
    string_action,
    strip_volatile,
    unknown_tool_name,
)

VETO = "tool-loop-veto"
TERMINAL_EXEC_FAILURE = "terminal-exec-failure"
MARKER = "EXTERNAL_UNTRUSTED_CONTENT"
ZERO_NONCE = "0" * 16

# 09 §9.4.2. Group 2 is the run of backslashes before the quotes; group 5 (added here) the body.
_NONCE = re.compile(
    r'(<<<EXTERNAL_UNTRUSTED_CONTENT id=(\\*)")([a-f0-9]{16})'
    r'(\2">>>((?:(?!<<<(?:END_)?EXTERNAL_UNTRUSTED_CONTENT)[\s\S])*)'
    r'<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\2")\3(\2">>>)'
)
_QUOTE_RUN = re.compile(r'(?<!\\)\\*"')


def _canonical_nonce(match: re.Match[str]) -> str:
    escapes = len(match.group(2))
    unit = escapes + 1
    if unit & (unit - 1):  # not 2^k - 1 backslashes: not a JSON escaping level
        return match.group(0)
    for run in _QUOTE_RUN.finditer(match.group(5)):
        if len(run.group()) % unit:
            return match.group(0)
    return match.group(1) + ZERO_NONCE + match.group(4) + ZERO_NONCE + match.group(6)


def canonicalise_nonces(text: str) -> str:
    """External-content markers with their random ids set to zeros (09 §9.4.2)."""
    if MARKER not in text:
        return text
    return _NONCE.sub(_canonical_nonce, text)


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _normalised(value: Any, path: set[int]) -> str:
    """The stable stringify of OpenClaw's outcome digests: every string (keys too) through the
    nonce normaliser; keys sorted by normalised key, ties by the raw key."""
    if isinstance(value, BaseException):
        value = hashing._exception_object(value)
    if isinstance(value, str):
        return hashing._quote(canonicalise_nonces(value))
    if not isinstance(value, Mapping | list | tuple):
        leaf = hashing._leaf(value)
        assert leaf is not None
        return leaf
    if id(value) in path:
        return '"[Circular]"'
    path.add(id(value))
    try:
        if isinstance(value, Mapping):
            keys = [(canonicalise_nonces(hashing._key_text(k)), hashing._key_text(k), v)
                    for k, v in value.items()]  # fmt: skip
            keys.sort(key=lambda entry: (_utf16(entry[0]), _utf16(entry[1])))
            inner = ",".join(f"{hashing._quote(k)}:{_normalised(v, path)}" for k, _, v in keys)
            return "{" + inner + "}"
        return "[" + ",".join(_normalised(item, path) for item in value) + "]"
    finally:
        path.discard(id(value))


def digest(value: Any) -> str:
    """SHA-256 of the nonce-canonical JSON (09 §9.4.2); the plain form when no marker occurs."""
    text = canonical_json(value)
    if MARKER in text:
        text = _normalised(value, set())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


UNCHANGED_WRITE_HASH = hashing.digest({"status": "unchanged"})


@dataclass(frozen=True, slots=True)
class V4Outcome:
    """The fields one outcome gives its record (09 §9.4.1)."""

    result_hash: str | None
    kind: str | None = None
    failure_identity: str | None = None
    no_progress: bool = False
    unknown_tool: str | None = None


LOOP_VETO = V4Outcome(None, VETO)


def outcome(
    tool: str,
    args: Any,
    result: Any = NO_RESULT,
    error: Any = None,
    *,
    send_tools: Collection[str] = (),
) -> V4Outcome | None:
    """The record fields of one outcome, or None when nothing is recorded (09 §9.4.3)."""
    if error is not None:
        message = error_message(error)
        return V4Outcome("error:" + digest(message), None, None, True, unknown_tool_name(message))
    if result is NO_RESULT:
        return None
    if not isinstance(result, dict):
        return V4Outcome(digest(result))
    if is_loop_veto(result):
        return LOOP_VETO
    raw_details = result.get("details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    text = hashing._text_of(result)
    if tool == "exec" and isinstance(details.get("status"), str):
        shape = hashing._exec_shape(details, text)
        if shape is not None:
            return _exec_outcome(shape, details)
    if tool == "write" and details.get("changed") is False:
        return V4Outcome(UNCHANGED_WRITE_HASH, no_progress=True)
    action = string_action(args)
    if tool == "process" and action in ("poll", "log"):
        return V4Outcome(digest(hashing._process_shape(action, details, text)))
    if is_message_send(tool, args, send_tools) or tool in CONVERSATION_SEND_TOOLS:
        return V4Outcome(digest(strip_volatile(details)))
    return V4Outcome(digest({"details": details, "text": text}))


def _exec_outcome(shape: dict[str, Any], details: Mapping[str, Any]) -> V4Outcome:
    result_hash = digest(shape)
    exit_code = details.get("exitCode")
    output = shape.get("output")
    if (
        shape["status"] in ("completed", "failed")
        and isinstance(exit_code, int | float)
        and not isinstance(exit_code, bool)
        and exit_code == exit_code  # not NaN
        and abs(exit_code) != float("inf")
        and exit_code != 0
        and details.get("timedOut") is not True
        and isinstance(output, str)
        and output != ""
        and output != f"(Command exited with code {_js_number(exit_code)})"
    ):
        identity = digest(
            {
                "exitCode": exit_code,
                "output": failure_shape(output),
                "status": shape["status"],
                "timedOut": False,
            }
        )
        return V4Outcome(result_hash, TERMINAL_EXEC_FAILURE, identity)
    return V4Outcome(result_hash)


def _js_number(value: int | float) -> str:
    return str(value) if isinstance(value, int) else js_number(value)


# 09 §9.4.3 rule 4: JavaScript regexes with /iu. \d is ASCII only, \s JavaScript's set, and \b
# counts ASCII word characters plus U+017F and U+212A (which fold to `s` and `k` under /iu).
_D = "[0-9]"
_S = f"[{JS_WHITESPACE}]"
_W = "[A-Za-z0-9_\u017f\u212a]"
_B = f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))"
_FAILURE_NOISE = tuple(
    re.compile(pattern, flags)
    for pattern, flags in (
        (
            rf"{_D}{{4}}-{_D}{{2}}-{_D}{{2}}[t ]{_D}{{2}}:{_D}{{2}}:{_D}{{2}}(?:\.{_D}{{1,6}})?"
            rf"(?:z|[+-]{_D}{{2}}:{_D}{{2}})?",
            re.I,
        ),
        (rf"{_D}{{1,2}}:{_D}{{2}}:{_D}{{2}}(?:\.{_D}{{1,6}})?", 0),
        (rf"{_B}(?:attempt|retry){_B}[{JS_WHITESPACE}#:=]*{_D}+", re.I),
        (rf"{_B}{_D}+(?:\.{_D}+)?{_S}?(?:ns|us|ms|seconds?|minutes?|hours?|s){_B}", re.I),
        (rf"{_B}(?:pid|ppid){_B}[{JS_WHITESPACE}#:=]*{_D}+", re.I),
    )
)


def failure_shape(output: str) -> str:
    """A failure's output with timestamps, times, attempts, durations and pids as `#`."""
    for pattern in _FAILURE_NOISE:
        output = pattern.sub("#", output)
    return output
