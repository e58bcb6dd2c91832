"""Canonical JSON and the hash rules of 04 §4.3-§4.4, written again from the spec for the oracle.

Deliberately independent of `loopcfg.hashing` and deliberately plain: one recursive function
renders every value (no fast path, no memo), so the differential tests compare the engine's
hashes too, and the benchmark's oracle hashes as a straightforward implementation of 04 would.
Recursive, so it handles the nesting of the generated traces, not thousands of levels.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import traceback
import unicodedata
from collections.abc import Collection, Mapping
from typing import Any

# What JavaScript's trim() removes and its \s matches: WhiteSpace (TAB, VT, FF, ZWNBSP and every
# Zs) and LineTerminator (LF, CR, LS, PS).
JS_SPACE = "\t\v\f\ufeff\n\r\u2028\u2029" + "".join(
    chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Zs"
)
_S = "[" + re.escape(JS_SPACE) + "]"
# /i without /u: only ASCII letters fold (re.ASCII), \s as JavaScript's.
_NAME = r"[\"']?([a-z0-9_.-]+)[\"']?"
UNKNOWN_TOOL = [
    re.compile(r"unknown tool[:" + re.escape(JS_SPACE) + r"]+" + _NAME, re.I | re.A),
    re.compile(r"tool" + _S + "+" + _NAME + _S + r"+(?:not found|is not available)", re.I | re.A),
]
SEND_ACTIONS = ["send", "broadcast", "reply", "thread-reply", "sendWithEffect",
                "sendAttachment", "upload-file", "sticker", "poll"]  # fmt: skip
VOLATILE = ["messageId", "message_id", "messageIds", "platformMessageId", "platformMessageIds",
            "fileId", "file_id", "fileKey", "pollId", "poll_id", "receipt", "runId",
            "idempotencyKey", "ts", "timestamp", "sentAt", "deliveredAt", "createdAt"]  # fmt: skip


class Undefined:
    """A missing process `status`: OpenClaw's stringify writes the bare word `undefined`."""


UNDEFINED = Undefined()


def trim(text: str) -> str:
    return text.strip(JS_SPACE)


# -- canonical JSON (04 §4.3) ---------------------------------------------------------------------


def quote(text: str) -> str:
    """JSON.stringify of a string in Node (well-formed): walk the UTF-16 code units; a high
    half followed by a low half is one character, any other half is written `\\udXXX`."""
    units = [int.from_bytes(pair, "little") for pair in _pairs(text)]
    out: list[str] = []
    i = 0
    while i < len(units):
        unit = units[i]
        if 0xD800 <= unit <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            char = chr(0x10000 + ((unit - 0xD800) << 10) + (units[i + 1] - 0xDC00))
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
            i += 2
            continue
        if 0xD800 <= unit <= 0xDFFF:
            out.append(f"\\u{unit:04x}")
        else:
            out.append(json.dumps(chr(unit), ensure_ascii=False)[1:-1])
        i += 1
    return '"' + "".join(out) + '"'


def _pairs(text: str) -> list[bytes]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i : i + 2] for i in range(0, len(data), 2)]


def number(value: float) -> str:
    """JavaScript's Number::toString, from Python's shortest round-trip repr."""
    if isinstance(value, int):
        if abs(value) <= 2**53:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return '"NaN"'
    if math.isinf(value):
        return '"Infinity"' if value > 0 else '"-Infinity"'
    if value == 0:
        return "0"
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = 0.digits × 10^point
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    if len(digits) <= point <= 21:
        text = digits + "0" * (point - len(digits))
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        e = point - 1
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return ("-" if value < 0 else "") + text


def key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float):
        return number(key).strip('"')
    return str(key)


def canonical(value: Any, path: tuple[int, ...] = ()) -> str:
    if isinstance(value, BaseException):
        stack = "".join(traceback.format_exception(value)).rstrip("\n")
        value = {"message": str(value), "name": type(value).__name__, "stack": stack}
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return canonical({"data": base64.b64encode(bytes(value)).decode(), "type": "Uint8Array"})
    if not isinstance(value, Mapping | list | tuple):
        return quote(str(value))
    if id(value) in path:
        return '"[Circular]"'
    inner = (*path, id(value))
    if isinstance(value, Mapping):
        keyed = sorted(((key_text(k), v) for k, v in value.items()),
                       key=lambda kv: kv[0].encode("utf-16-be", "surrogatepass"))  # fmt: skip
        return "{" + ",".join(quote(k) + ":" + canonical(v, inner) for k, v in keyed) + "}"
    return "[" + ",".join(canonical(v, inner) for v in value) + "]"


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


canonical_digest = digest


def legacy(value: Any, seen: tuple[int, ...] = ()) -> Any:
    """E5.4's private stringify as a value for `canonical` (09 §9.1 item 4)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, BaseException):
        return {}
    if isinstance(value, bytes | bytearray | memoryview):
        return {str(index): byte for index, byte in enumerate(bytes(value))}
    if isinstance(value, dict | list | tuple):
        if id(value) in seen:
            raise ValueError("cycle")
        inner = (*seen, id(value))
        if isinstance(value, dict):
            return {key: legacy(item, inner) for key, item in value.items()}
        return [legacy(item, inner) for item in value]
    return value


def legacy_digest(value: Any) -> str:
    try:
        text = canonical(legacy(value))
    except ValueError:
        text = "[object Array]" if isinstance(value, list | tuple) else "[object Object]"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- argsHash and the outcome hash rules (04 §4.3, §4.4) ------------------------------------------


def args_hash(tool: str, args: Any) -> str:
    return tool + ":" + digest(args)


def message_of(error: Any) -> str:
    if isinstance(error, BaseException):
        return str(error) or type(error).__name__
    if isinstance(error, str):
        return error
    if isinstance(error, bool):
        return json.dumps(error)
    if isinstance(error, int | float):
        return number(error).strip('"')
    return canonical(error)


def without_volatile(value: Any, path: dict[int, Any] | None = None) -> Any:
    path = {} if path is None else path
    if not isinstance(value, dict | list | tuple):
        return value
    if id(value) in path:  # a cycle: the copy contains itself, as the original did
        return path[id(value)]
    copy: Any = {} if isinstance(value, dict) else []
    path[id(value)] = copy
    if isinstance(value, dict):
        message = (
            isinstance(value.get("id"), str)
            and isinstance(value.get("text"), str)
            and (
                any(isinstance(value.get(k), str) for k in ("direction", "senderId", "accountId"))
                or isinstance(value.get("conversation"), dict)
            )
        )
        for key, item in value.items():
            if key not in VOLATILE and not (message and key == "id"):
                copy[key] = without_volatile(item, path)
    else:
        copy.extend(without_volatile(item, path) for item in value)
    del path[id(value)]
    return copy


class Absent:
    """No result given (JavaScript `undefined`); a `None` result is JSON null and is hashed."""


ABSENT = Absent()


def outcome_hash(
    tool: str,
    args: Any,
    result: Any = ABSENT,
    error: Any = None,
    *,
    send_tools: Collection[str] = (),
    generation: str = "E6.5",
) -> tuple[str | None, str | None]:
    """04 §4.4, with 09 §9.1-§9.2's differences for E5.4 and E5.12 (E8.1 is not modelled here)."""
    older = generation in ("E5.4", "E5.12")
    digest = legacy_digest if generation == "E5.4" else canonical_digest
    if error is not None:
        message = message_of(error)
        unknown = None
        for pattern in UNKNOWN_TOOL:
            match = pattern.search(trim(message))
            if match:
                unknown = match.group(1).lower()
                break
        return "error:" + digest(message), unknown
    if result is ABSENT:
        return None, None
    if not isinstance(result, dict):
        return digest(result), None
    details = result.get("details") if isinstance(result.get("details"), dict) else {}
    veto = details.get("status") == "blocked" and details.get("deniedReason") == "tool-loop"
    if veto and not older:
        return None, None
    content = result.get("content") if isinstance(result.get("content"), list) else []
    text = trim("\n".join(
        e["text"] for e in content
        if isinstance(e, dict) and isinstance(e.get("type"), str) and isinstance(e.get("text"), str)
    ))  # fmt: skip
    action = args.get("action") if isinstance(args, dict) else None
    action = action if isinstance(action, str) else None
    status = details.get("status")
    if tool == "exec" and status == "running":
        tail = details.get("tail")
        return digest({"status": status, "tail": tail if isinstance(tail, str) else ""}), None
    if tool == "exec" and status in ("completed", "failed"):
        # "int or null": JavaScript has one number type, so any number that is not a boolean.
        code = details.get("exitCode")
        aggregated = details.get("aggregated")
        output = trim(aggregated) if isinstance(aggregated, str) else ""
        shape = {
            "status": status,
            "exitCode": None
            if isinstance(code, bool) or not isinstance(code, int | float)
            else code,
            "timedOut": details.get("timedOut") is True,
            "output": output if output else text,
        }
        return digest(shape), None
    if tool == "exec" and status in ("approval-pending", "approval-unavailable"):

        def string(name: str, otherwise: Any) -> Any:
            return details[name] if isinstance(details.get(name), str) else otherwise

        shape = {
            "status": status,
            "reason": string("reason", None),
            "host": string("host", None),
            "command": string("command", ""),
            "warningText": string("warningText", ""),
        }
        return digest(shape), None
    if tool == "process" and action in ("poll", "log"):
        names = (
            ["exitCode", "exitSignal", "aggregated"]
            if action == "poll"
            else ["totalLines", "totalChars", "truncated", "exitCode", "exitSignal"]
        )
        shape = {"action": action, "status": details.get("status", UNDEFINED), "text": text}
        for name in names:
            shape[name] = details.get(name)
        return digest(shape), None
    if not older and (
        tool == "sessions_send"
        or tool in send_tools
        or (tool == "message" and action in SEND_ACTIONS)
    ):
        return digest(without_volatile(details)), None  # fmt: skip
    return digest({"details": details, "text": text}), None
