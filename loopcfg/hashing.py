"""Canonical JSON and hashes, byte-compatible with OpenClaw's stable stringify (04 §4.3, §4.4)."""

from __future__ import annotations

import hashlib
import json
import math
import re
import traceback
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import repeat
from typing import Any, overload

_MAX_SAFE = 2**53
_sha256 = hashlib.sha256  # a global lookup, not two attribute loads, per hash
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Undefined:
    """JavaScript `undefined` inside an object: OpenClaw's stringify writes the bare word."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Any = _Undefined()


def js_number(value: float) -> str:
    """ECMAScript Number::toString for a finite double (shortest round-trip digits)."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # Imported here: floats are rare in arguments and results, and `decimal` costs every
    # replay's start more than this import costs a float.
    from decimal import Decimal

    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    k = len(digits)
    n = exponent + len(digit_tuple)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


def _paired(text: str) -> str:
    """Surrogate pairs as JavaScript sees them: two adjacent halves are one character."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _lone_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _quote(text: str) -> str:
    """JSON.stringify of a string (Node's well-formed form): lone surrogates as `\\udXXX`
    escapes with lower-case hex (04 §4.3), never U+FFFD."""
    if not _SURROGATE.search(text):
        return json.dumps(text, ensure_ascii=False)
    # json.dumps passes a lone surrogate through raw; after pairing, every one left is lone.
    return _SURROGATE.sub(_lone_escape, json.dumps(_paired(text), ensure_ascii=False))


def _number(value: int | float) -> str:
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            return '"Infinity"' if value > 0 else '"-Infinity"'
    if math.isnan(value):
        return '"NaN"'
    if math.isinf(value):
        return '"Infinity"' if value > 0 else '"-Infinity"'
    return js_number(value)


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return _number(key).strip('"')
    return str(key)


def _exception_object(error: BaseException) -> dict[str, Any]:
    name = type(error).__name__
    message = str(error)
    stack = "".join(traceback.format_exception(error)).rstrip("\n")
    return {"message": message, "name": name, "stack": stack}


def _leaf(value: Any) -> str | None:
    """The text of a value that is not a container (None for a mapping, list or tuple)."""
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, bytes | bytearray | memoryview):
        import base64  # bytes are not JSON: only a host's own values hold them

        data = base64.b64encode(bytes(value)).decode("ascii")
        return f'{{"data":{_quote(data)},"type":"Uint8Array"}}'
    if isinstance(value, Mapping | list | tuple):
        return None
    return _quote(str(value))


def _slow(value: Any) -> str:
    """Iterative (an explicit stack, not Python's): nesting as deep as the fast path takes, or
    deeper, renders instead of raising RecursionError."""
    out: list[str] = []
    path: set[int] = set()  # ids of the containers being rendered: seeing one again is a cycle
    # Per open container: the container (kept alive, so its id stays unique), its children with
    # the text before each, and the closing bracket.
    stack: list[tuple[Any, Iterator[tuple[str, Any]], str]] = []
    while True:
        if isinstance(value, BaseException):
            value = _exception_object(value)
        elif isinstance(value, set | frozenset):
            # No JSON value; its str() lists the items in hash order, which differs from one
            # process to the next (string hashing is salted): the same call hashed differently
            # in each run. As an array in the order of the items' own canonical text instead.
            value = sorted(value, key=canonical_slow)
        text = _leaf(value)
        if text is not None:
            out.append(text)
        elif id(value) in path:
            out.append('"[Circular]"')
        else:
            path.add(id(value))
            if isinstance(value, Mapping):
                items = sorted(
                    ((_key_text(k), v) for k, v in value.items()), key=lambda kv: _utf16_key(kv[0])
                )
                entries = [(f"{',' if i else ''}{_quote(k)}:", v) for i, (k, v) in enumerate(items)]
                out.append("{")
                stack.append((value, iter(entries), "}"))
            else:
                out.append("[")
                stack.append((value, ((("," if i else ""), v) for i, v in enumerate(value)), "]"))
        while stack:
            container, rest, close = stack[-1]
            child = next(rest, None)
            if child is not None:
                out.append(child[0])
                value = child[1]
                break
            stack.pop()
            path.discard(id(container))
            out.append(close)
        else:
            return "".join(out)


def _fast_size(value: Any) -> int:
    """-1 unless stdlib json (and orjson) give the exact bytes: plain types, safe ints, no floats,
    no astral-plane keys (Python sorts them by code point, JavaScript by UTF-16 unit). Else the
    number of characters in its strings, keys included (orjson reserves several bytes for each)."""
    kind = type(value)
    if kind is dict:
        size = 0
        for key, item in value.items():
            if type(key) is not str or (not key.isascii() and _ASTRAL.search(key)):
                return -1
            # Leaves inline: a call per string value would cost more than the check itself.
            kind = type(item)
            if kind is str:
                size += len(key) + len(item)
                continue
            size += len(key)
            if kind is bool or item is None:
                continue
            if kind is int:
                if not -_MAX_SAFE <= item <= _MAX_SAFE:
                    return -1
                continue
            inner = _fast_size(item)
            if inner < 0:
                return -1
            size += inner
        return size
    if kind is str:
        return len(value)
    if kind is bool or value is None:
        return 0
    if kind is int:
        return 0 if -_MAX_SAFE <= value <= _MAX_SAFE else -1
    if kind is list:
        size = 0
        for item in value:
            inner = _fast_size(item)
            if inner < 0:
                return -1
            size += inner
        return size
    return -1


# The fast path renders with orjson (Rust): for the values _fast_size admits its output is stdlib
# json's byte for byte (sorted keys, compact, non-ASCII raw, control characters escaped alike),
# about 20 times as fast on the long strings of tool output. orjson reserves room for the
# worst-case escaping of every string up front (about ten times the text: 2 MB for a 200 KB
# tool result), so a value with more than _ORJSON_MAX_CHARS characters is rendered in pieces
# (`_render_pieces`): containers by hand, small subtrees by orjson, and each long string quoted
# _CHUNK_CHARS characters at a time, which is the same text because JSON quotes a string one
# character at a time (no surrogates get here, so no pair is split). Its peak is one chunk's
# output, and digest() hashes the pieces as they come. stdlib json renders instead if orjson is
# missing (a dependency, but an interpreter without its wheel may have been installed without it).
try:
    import orjson
except ImportError:  # pragma: no cover - exercised by patching _ORJSON_DUMPS in the tests
    _ORJSON_DUMPS = None
    _ORJSON_SORT_KEYS = 0
else:
    _ORJSON_DUMPS = orjson.dumps
    _ORJSON_SORT_KEYS = orjson.OPT_SORT_KEYS
_ORJSON_MAX_CHARS = 32_768
_CHUNK_CHARS = 16_384


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


def _c_encoder() -> Any:
    """stdlib json's C encoder with JSONEncoder's options for the fast path, built once:
    JSONEncoder.encode builds a new one (and a closure) per call, which costs more than encoding
    a small object. None where json has no C accelerator."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    return make(None, _refuse, json.encoder.encode_basestring, None, ":", ",", True, False, True)


_C_ENCODE = _c_encoder()
# The last resort, where json has no C accelerator.
_ENCODER = json.JSONEncoder(
    ensure_ascii=False, check_circular=False, sort_keys=True, separators=(",", ":")
)


def _encode(value: Any) -> str:
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


_Write = Callable[[bytes], object]


def _render_pieces(write: _Write, value: Any, size: int) -> None:
    """Write the canonical UTF-8 of an admitted value (`size` from _fast_size) in pieces, none
    of them longer than about _CHUNK_CHARS characters' worth of output."""
    assert _ORJSON_DUMPS is not None
    if size <= _ORJSON_MAX_CHARS:
        write(_ORJSON_DUMPS(value, option=_ORJSON_SORT_KEYS))
    elif type(value) is str:
        write(b'"')
        for start in range(0, len(value), _CHUNK_CHARS):
            write(_ORJSON_DUMPS(value[start : start + _CHUNK_CHARS])[1:-1])
        write(b'"')
    elif type(value) is dict:
        # _fast_size admitted only BMP str keys: code point order is UTF-16 order.
        separator = b"{"
        for key in sorted(value):
            write(separator)
            _render_pieces(write, key, len(key))
            write(b":")
            _render_pieces(write, value[key], _fast_size(value[key]))
            separator = b","
        write(b"}" if value else b"{}")
    else:
        separator = b"["
        for item in value:
            write(separator)
            _render_pieces(write, item, _fast_size(item))
            separator = b","
        write(b"]" if value else b"[]")


def _fast_utf8(value: Any) -> bytes | None:
    """The canonical JSON as UTF-8 when a C serializer provably gives it exactly, else None.

    `_fast_size` admits only what orjson and stdlib json render as JavaScript does (no floats,
    no astral-plane keys). What remains are surrogates, which JavaScript pairs or replaces:
    orjson refuses them, and strict UTF-8 refuses them in stdlib json's text."""
    try:
        size = _fast_size(value)
        if size < 0:
            return None
        if _ORJSON_DUMPS is None:
            return _encode(value).encode("utf-8")
        if size <= _ORJSON_MAX_CHARS:
            return _ORJSON_DUMPS(value, option=_ORJSON_SORT_KEYS)
        pieces: list[bytes] = []
        _render_pieces(pieces.append, value, size)
        return b"".join(pieces)
    # TypeError: orjson's JSONEncodeError (surrogates, nesting beyond its limit). RecursionError:
    # a cycle, or nesting that _fast_size got through but the encoder (a few frames deeper)
    # does not; the slow path handles both.
    except (TypeError, UnicodeEncodeError, RecursionError):
        return None


def _fast_digest(value: Any) -> str | None:
    """digest() on the fast path (None where it does not apply): a large value is hashed
    piece by piece as it is rendered, never held whole."""
    try:
        size = _fast_size(value)
        if size < 0:
            return None
        if _ORJSON_DUMPS is None:
            data = _encode(value).encode("utf-8")
        elif size <= _ORJSON_MAX_CHARS:
            data = _ORJSON_DUMPS(value, option=_ORJSON_SORT_KEYS)
        else:
            hasher = _sha256()
            _render_pieces(hasher.update, value, size)
            return hasher.hexdigest()
        return _sha256(data).hexdigest()
    except (TypeError, UnicodeEncodeError, RecursionError):  # as in _fast_utf8
        return None


def canonical_whole(value: Any) -> bytes | None:
    """The canonical JSON's UTF-8 where the fast path renders it in one piece (exactly what
    `digest` hashes for it: `args_hash_of` from it is `args_hash`), else None (the value needs
    the slow path or pieces). The key of the engine's argument memo (engine/memo.py)."""
    if _ORJSON_DUMPS is None:
        return None
    try:
        size = _fast_size(value)
        if size < 0 or size > _ORJSON_MAX_CHARS:
            return None
        return _ORJSON_DUMPS(value, option=_ORJSON_SORT_KEYS)
    except (TypeError, UnicodeEncodeError, RecursionError):  # as in _fast_utf8
        return None


def args_hash_of(tool: str, canonical: bytes) -> str:
    """`args_hash(tool, args)` from the canonical UTF-8 of `args` (`canonical_whole`)."""
    return f"{tool}:{_sha256(canonical).hexdigest()}"


def canonical_slow(value: Any) -> str:
    """The exact path, for every value (also the reference the fast path is tested against)."""
    return _slow(value)


def canonical_json(value: Any) -> str:
    """OpenClaw's stable stringify of `value`."""
    data = _fast_utf8(value)
    return canonical_slow(value) if data is None else data.decode("utf-8")


def digest(value: Any) -> str:
    """Lowercase hex SHA-256 of the UTF-8 canonical JSON of `value`."""
    fast = _fast_digest(value)
    if fast is not None:
        return fast
    return _sha256(canonical_slow(value).encode("utf-8")).hexdigest()


# -- outcome hash rules (04 §4.4) ---------------------------------------------------------------

MESSAGE_SEND_ACTIONS = frozenset(
    {
        "send",
        "broadcast",
        "reply",
        "thread-reply",
        "sendWithEffect",
        "sendAttachment",
        "upload-file",
        "sticker",
        "poll",
    }
)
VOLATILE_KEYS = frozenset(
    {
        "messageId",
        "message_id",
        "messageIds",
        "platformMessageId",
        "platformMessageIds",
        "fileId",
        "file_id",
        "fileKey",
        "pollId",
        "poll_id",
        "receipt",
        "runId",
        "idempotencyKey",
        "ts",
        "timestamp",
        "sentAt",
        "deliveredAt",
        "createdAt",
    }
)
# JavaScript's \s (and what String.prototype.trim removes): WhiteSpace (with U+FEFF and every
# Zs) and LineTerminator. Python's \s and str.strip() differ: they include U+001C-U+001F and
# U+0085 and leave U+FEFF.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_S = f"[{JS_WHITESPACE}]"


def js_trim(text: str) -> str:
    """JavaScript's String.prototype.trim: 04 says trimmed/stripped in OpenClaw's terms."""
    return text.strip(JS_WHITESPACE)


# The patterns of 04 §4.4 rule 1 are JavaScript literals with /i and no /u: case folding maps
# no non-ASCII character to an ASCII one (so [a-z] never matches U+017F or the Kelvin sign, as
# Python's Unicode IGNORECASE would), hence re.ASCII, with \s spelt out as JavaScript's.
_UNKNOWN_TOOL = (
    re.compile(rf"unknown tool[:{JS_WHITESPACE}]+[\"']?([a-z0-9_.-]+)[\"']?", re.I | re.A),
    re.compile(
        rf"tool{_S}+[\"']?([a-z0-9_.-]+)[\"']?{_S}+(?:not found|is not available)", re.I | re.A
    ),
)
_UNKNOWN_TOOL_WORDS = ("unknown tool", "not found", "is not available")


def args_hash(tool: str, args: Any) -> str:
    """`tool:sha256(canonical args)`, the args exactly as given (no tool has a special rule)."""
    return f"{tool}:{digest(args)}"


def error_message(error: Any) -> str:
    if isinstance(error, BaseException):
        return str(error) or type(error).__name__
    if isinstance(error, str):
        return error
    if isinstance(error, bool):
        return "true" if error else "false"
    if isinstance(error, int | float):
        return _number(error).strip('"')
    return canonical_json(error)


def unknown_tool_name(message: str) -> str | None:
    # Each pattern needs one of these words (ASCII, any case): a long error message without
    # them is not scanned twice, character by character, by the case-insensitive patterns.
    lowered = message.lower()
    if all(word not in lowered for word in _UNKNOWN_TOOL_WORDS):
        return None
    stripped = js_trim(message)
    for pattern in _UNKNOWN_TOOL:
        match = pattern.search(stripped)
        if match:
            return match.group(1).lower()
    return None


def _text_of(result: Mapping[str, Any]) -> str:
    content = result.get("content")
    if not isinstance(content, list):
        return ""
    parts = []
    for entry in content:
        if isinstance(entry, dict):
            text = entry.get("text")
            if isinstance(text, str) and isinstance(entry.get("type"), str):
                parts.append(text)
    if len(parts) == 1:  # the usual one text block: no join
        return parts[0].strip(JS_WHITESPACE)  # js_trim
    return "\n".join(parts).strip(JS_WHITESPACE)


def _str_or(value: Any, fallback: Any) -> Any:
    return value if isinstance(value, str) else fallback


def _exec_shape(details: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    status = details.get("status")
    if status == "running":
        return {"status": status, "tail": _str_or(details.get("tail"), "")}
    if status in ("completed", "failed"):
        exit_code = details.get("exitCode")
        aggregated = details.get("aggregated")
        output = js_trim(aggregated) if isinstance(aggregated, str) else ""
        return {
            "status": status,
            "exitCode": exit_code
            if isinstance(exit_code, int | float) and not isinstance(exit_code, bool)
            else None,
            "timedOut": details.get("timedOut") is True,
            "output": output or text,
        }
    if status in ("approval-pending", "approval-unavailable"):
        return {
            "status": status,
            "reason": _str_or(details.get("reason"), None),
            "host": _str_or(details.get("host"), None),
            "command": _str_or(details.get("command"), ""),
            "warningText": _str_or(details.get("warningText"), ""),
        }
    return None


def _field(details: Mapping[str, Any], name: str) -> Any:
    value = details.get(name)
    return None if value is None else value


def _process_shape(action: str, details: Mapping[str, Any], text: str) -> dict[str, Any]:
    status = details.get("status", UNDEFINED)
    names: tuple[str, ...]
    if action == "poll":
        names = ("exitCode", "exitSignal", "aggregated")
    else:
        names = ("totalLines", "totalChars", "truncated", "exitCode", "exitSignal")
    shape: dict[str, Any] = {"action": action, "status": status}
    shape.update({name: _field(details, name) for name in names})
    shape["text"] = text
    return shape


def _is_message_object(value: Mapping[str, Any]) -> bool:
    return (
        isinstance(value.get("id"), str)
        and isinstance(value.get("text"), str)
        and (
            isinstance(value.get("direction"), str)
            or isinstance(value.get("senderId"), str)
            or isinstance(value.get("accountId"), str)
            or isinstance(value.get("conversation"), dict)
        )
    )


_SHALLOW = 48  # details nest a few levels; deeper (or cyclic) ones take the iterative walk


class _TooDeep(Exception):
    pass


def strip_volatile(value: Any) -> Any:
    """Message-send details without ids and times that differ on every send (rule 6).

    Any depth works; a container met again inside itself maps to its own copy, which canonical
    JSON then renders as "[Circular]" as it would the original."""
    if not isinstance(value, list | tuple | dict):
        return value
    try:  # the common shallow case, recursively: a third of the iterative walk's cost
        return _strip_shallow(value, 0)
    except (_TooDeep, RecursionError):  # deep details, or a host whose stack is nearly full
        return _strip_iteratively(value)


def _strip_shallow(value: Any, depth: int) -> Any:
    if depth > _SHALLOW:
        raise _TooDeep
    if isinstance(value, dict):
        drop_id = _is_message_object(value)
        return {
            key: _strip_shallow(item, depth + 1) if isinstance(item, list | tuple | dict) else item
            for key, item in value.items()
            if key not in VOLATILE_KEYS and not (drop_id and key == "id")
        }
    return [
        _strip_shallow(item, depth + 1) if isinstance(item, list | tuple | dict) else item
        for item in value
    ]


def _strip_iteratively(value: Any) -> Any:
    """Without recursion, so any depth works, and cycles as "[Circular]" (see above)."""
    root = _volatile_copy(value)
    copies: dict[int, Any] = {id(value): root}  # the containers on the current path
    stack: list[tuple[Any, Any, Iterator[tuple[Any, Any]]]] = [
        (value, root, _volatile_items(value))
    ]
    while stack:
        source, copy, items = stack[-1]
        entry = next(items, None)
        if entry is None:
            stack.pop()
            del copies[id(source)]
            continue
        key, item = entry
        if isinstance(item, list | tuple | dict):
            if id(item) in copies:
                stripped = copies[id(item)]
            else:
                stripped = copies[id(item)] = _volatile_copy(item)
                stack.append((item, stripped, _volatile_items(item)))
        else:
            stripped = item
        if isinstance(copy, list):
            copy.append(stripped)
        else:
            copy[key] = stripped
    return root


def _volatile_copy(value: Any) -> Any:
    return {} if isinstance(value, dict) else []


def _volatile_items(value: Any) -> Iterator[tuple[Any, Any]]:
    if not isinstance(value, dict):
        return ((None, item) for item in value)
    drop_id = _is_message_object(value)
    return (
        (key, item)
        for key, item in value.items()
        if key not in VOLATILE_KEYS and not (drop_id and key == "id")
    )


def string_action(args: Any) -> str | None:
    """`args.action` when it is a string: OpenClaw compares it with `===` to string literals, so
    any other value (a list, a number) selects no rule, and must not reach a set lookup."""
    action = args.get("action") if isinstance(args, dict) else None
    return action if isinstance(action, str) else None


def is_message_send(tool: str, args: Any, send_tools: Collection[str] = ()) -> bool:
    if tool == "sessions_send" or tool in send_tools:
        return True
    return tool == "message" and string_action(args) in MESSAGE_SEND_ACTIONS


def is_loop_veto(result: Any) -> bool:
    details = result.get("details") if isinstance(result, dict) else None
    return isinstance(details, dict) and _is_veto_details(details)


def _is_veto_details(details: dict[str, Any]) -> bool:
    return details.get("status") == "blocked" and details.get("deniedReason") == "tool-loop"


class _NoResult:
    """No outcome given: distinct from a JSON `null` result, which is hashed (04 §4.1)."""

    def __repr__(self) -> str:
        return "NO_RESULT"


NO_RESULT: Any = _NoResult()


@dataclass(frozen=True, slots=True)
class OutcomeRules:
    """The outcome-hash switches that differ between engine generations (09 §9.1-§9.3)."""

    # E5.4/E5.12 hash a loop-veto result like any other (no rule 3).
    hash_veto: bool = False
    # E5.4/E5.12 have no rule 6: sends hash by the generic rule.
    strip_sends: bool = True
    # From 2026.7.2-beta.3: conversations_send and conversations_turn are sends too.
    conversations_send: bool = False
    # E5.4's private stable stringify (09 §9.1 item 4) for every digest.
    legacy_json: bool = False


E65_RULES = OutcomeRules()
CONVERSATION_SEND_TOOLS = frozenset({"conversations_send", "conversations_turn"})


# -- outcome hashes taken when first compared (replay) -------------------------------------------


class DigestBudget:
    """How much deferred outcome values may hold together (`DeferredDigest`): their weight
    (characters of their strings and keys plus DEFERRED_ENTRY_WEIGHT per entry) taken out
    while a value is held and put back when it is digested or its record leaves history."""

    __slots__ = ("left",)

    def __init__(self, weight: int) -> None:
        self.left = weight


# A dict entry's own memory (key and value slots, the value object) in characters' worth.
DEFERRED_ENTRY_WEIGHT = 64
# No single deferred value weighs more: a larger one is digested at once. The budget, not this,
# bounds the memory held; this keeps a few values from taking all of replay's (an eighth of
# it). Tool output of 16-128 K characters (a file read, a command's output) is common, and is
# nearly never compared: digesting it at once cost a pass over the corpus 8 % of its
# instructions (SHA-256 and orjson of ~1 MB) when this was 16,384.
DEFERRED_MAX_WEIGHT = 131_072


class DeferredDigest:
    """digest() of an outcome's shape, taken when first asked for (`text`).

    The engine only ever compares an outcome hash with the hashes of earlier outcomes of the
    same signature (and prints one in a verdict's warning key); a replayed transcript's calls
    nearly all have a signature seen once, so most of their outcomes are never compared, and
    are never digested. Equal to a `str` (and to another DeferredDigest) exactly when its text
    is, and hashes as its text: it stands in for the text wherever the history compares it.

    Only for values nobody changes after they are recorded (replay's parsed lines: the
    engine's generic API keeps digesting at once, as a host may reuse its result object).
    The value is held until it is digested; its weight is owed to `budget` until then, or
    until `release` (its record left history: the value is usually freed with it)."""

    __slots__ = ("_budget", "_hash_of", "_text", "_value", "_weight")

    def __init__(
        self, hash_of: Callable[[Any], str], value: Any, weight: int, budget: DigestBudget
    ) -> None:
        self._hash_of = hash_of
        self._value = value
        self._weight = weight
        self._budget: DigestBudget | None = budget
        self._text: str | None = None

    def text(self) -> str:
        text = self._text
        if text is None:
            text = self._text = self._hash_of(self._value)
            self._value = None
            self.release()
        return text

    def release(self) -> None:
        """Give the value's weight back to the budget (once)."""
        budget = self._budget
        if budget is not None:
            budget.left += self._weight
            self._budget = None

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, DeferredDigest):
            return self.text() == other.text()
        if isinstance(other, str):
            return self.text() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text())

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        state = "pending" if self._text is None else self._text
        return f"DeferredDigest({state})"


ResultHash = str | DeferredDigest


def hash_text(value: ResultHash | None) -> str | None:
    """The hex text of an outcome hash that may be deferred (digested now if it was)."""
    return value if value is None or type(value) is str else str(value)


def _tree_weight(mapping: dict[Any, Any], weight: int = 0) -> int:
    """`weight` plus the weight (`DigestBudget`) of a mapping of plain JSON values (string
    keys; strings, numbers, booleans, None, and lists and mappings of them, up to _SHALLOW
    levels) if it is one and weighs at most DEFERRED_MAX_WEIGHT in all, else -1."""
    weight = _container_weight(mapping, weight, 0)
    return weight if weight <= DEFERRED_MAX_WEIGHT else -1


def _container_weight(value: dict[Any, Any] | list[Any], weight: int, depth: int) -> int:
    """`_tree_weight`'s walk: -1 as soon as the value is not plain or weighs too much."""
    weight += DEFERRED_ENTRY_WEIGHT * len(value)
    if type(value) is dict:
        items: Iterable[tuple[Any, Any]] = value.items()
    else:
        items = zip(repeat(""), value)
    for key, item in items:
        if type(key) is not str:
            return -1
        kind = type(item)
        if kind is str:
            weight += len(key) + len(item)
        elif kind is int or kind is bool or kind is float or item is None:
            weight += len(key)
        elif (kind is dict or kind is list) and depth < _SHALLOW:
            weight = _container_weight(item, weight + len(key), depth + 1)
            if weight < 0 or weight > DEFERRED_MAX_WEIGHT:
                return -1
        else:
            return -1
    return weight


def _deferred(
    hash_of: Callable[[Any], str], shape: dict[str, Any], weight: int, budget: DigestBudget
) -> ResultHash:
    """A DeferredDigest of `shape` when its `weight` (-1: not deferrable) fits the budget,
    else its digest now."""
    if 0 <= weight <= budget.left:
        budget.left -= weight
        return DeferredDigest(hash_of, shape, weight, budget)
    return hash_of(shape)


@overload
def outcome_hash(
    tool: str,
    args: Any,
    result: Any = NO_RESULT,
    error: Any = None,
    *,
    send_tools: Collection[str] = (),
    rules: OutcomeRules = E65_RULES,
    defer: None = None,
) -> tuple[str | None, str | None]: ...


@overload
def outcome_hash(
    tool: str,
    args: Any,
    result: Any = NO_RESULT,
    error: Any = None,
    *,
    send_tools: Collection[str] = (),
    rules: OutcomeRules = E65_RULES,
    defer: DigestBudget,
) -> tuple[ResultHash | None, str | None]: ...


def outcome_hash(
    tool: str,
    args: Any,
    result: Any = NO_RESULT,
    error: Any = None,
    *,
    send_tools: Collection[str] = (),
    rules: OutcomeRules = E65_RULES,
    defer: DigestBudget | None = None,
) -> tuple[ResultHash | None, str | None]:
    """(resultHash, unknownTool) of one outcome; resultHash None means nothing is recorded.

    With `defer`, a shape of plain JSON values (the generic one, nearly every result, and
    exec's and process's; `_tree_weight`) that fits the budget comes as a DeferredDigest of
    it; every other outcome (errors, sends, details holding other types) is digested now."""
    hash_of = legacy_digest if rules.legacy_json else digest
    if error is not None:
        message = error_message(error)
        return "error:" + hash_of(message), unknown_tool_name(message)
    if result is NO_RESULT:
        return None, None
    if not isinstance(result, dict):
        return hash_of(result), None
    raw_details = result.get("details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    if not rules.hash_veto and _is_veto_details(details):  # is_loop_veto(result)
        return None, None
    text = _text_of(result)
    # Only the process and message rules read `args.action`.
    action = string_action(args) if tool == "process" or tool == "message" else None
    if tool == "exec" and isinstance(details.get("status"), str):
        shape = _exec_shape(details, text)
        if shape is not None:
            if defer is not None:
                return _deferred(hash_of, shape, _tree_weight(shape), defer), None
            return hash_of(shape), None
    if tool == "process" and action in ("poll", "log"):
        shape = _process_shape(action, details, text)
        if defer is not None:
            return _deferred(hash_of, shape, _tree_weight(shape), defer), None
        return hash_of(shape), None
    if rules.strip_sends and (
        # is_message_send(tool, args, send_tools), with the action read once
        tool == "sessions_send"
        or tool in send_tools
        or (tool == "message" and action in MESSAGE_SEND_ACTIONS)
        or (rules.conversations_send and tool in CONVERSATION_SEND_TOOLS)
    ):
        return hash_of(strip_volatile(details)), None
    shape = {"details": details, "text": text}
    if defer is not None:
        weight = _tree_weight(details, len(text) + 2 * DEFERRED_ENTRY_WEIGHT)
        return _deferred(hash_of, shape, weight, defer), None
    return hash_of(shape), None


def result_hash(
    tool: str,
    args: Any,
    result: Any = NO_RESULT,
    error: Any = None,
    *,
    send_tools: Collection[str] = (),
    rules: OutcomeRules = E65_RULES,
) -> str | None:
    """The outcome hash of 04 §4.4 (None: the outcome is not recorded)."""
    return outcome_hash(tool, args, result, error, send_tools=send_tools, rules=rules)[0]


# -- E5.4's private stable stringify (09 §9.1 item 4) ---------------------------------------------


class _LegacyFallback(Exception):
    """A cycle: the whole value falls back to Object.prototype.toString of the top value."""


def _legacy_value(value: Any, path: set[int]) -> Any:
    """The value as E5.4's stringify sees it: NaN/Infinity null, an Error `{}`, bytes an
    object keyed "0", "1", ...; then rendered by the shared canonical form."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, BaseException):
        return {}
    if isinstance(value, bytes | bytearray | memoryview):
        return {str(i): byte for i, byte in enumerate(bytes(value))}
    if isinstance(value, Mapping | list | tuple):
        if id(value) in path:
            raise _LegacyFallback
        path.add(id(value))
        try:
            if isinstance(value, Mapping):
                return {k: _legacy_value(v, path) for k, v in value.items()}
            return [_legacy_value(item, path) for item in value]
        finally:
            path.discard(id(value))
    return value


def legacy_canonical(value: Any) -> str:
    try:
        return canonical_json(_legacy_value(value, set()))
    except (_LegacyFallback, RecursionError):
        return "[object Array]" if isinstance(value, list | tuple) else "[object Object]"


def legacy_digest(value: Any) -> str:
    return hashlib.sha256(legacy_canonical(value).encode("utf-8")).hexdigest()


def legacy_args_hash(tool: str, args: Any) -> str:
    return f"{tool}:{legacy_digest(args)}"
