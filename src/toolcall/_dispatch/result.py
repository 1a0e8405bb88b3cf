"""What ``run`` returns: ``Ok`` or ``Err``, never an exception for bad input.

Errors are data a model can act on: ``ToolError.message`` is one ``location: problem``
line naming the argument or keys at fault, and ``to_dict()`` is always JSON-encodable,
whatever the offending value was.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final, Generic, TypeVar

import msgspec

from toolcall._dispatch.encode import encode_json
from toolcall._errors import ToolRetry
from toolcall._scalars import scalar_reasons
from toolcall._shared import log

__all__ = ["Err", "Ok", "ToolError", "check_timeout", "encode_result", "format_path"]

T = TypeVar("T")

# The scalar rows' reasons come from their rows (``_scalars``); these are the containers'.
# A constraint's text here is its fallback: its message names the bound (``_expected``).
_REASONS: dict[str, str] = {
    **scalar_reasons(),
    "expected_array": "expected an array",
    "expected_object": "expected an object",
    "invalid_utf8": "expected valid UTF-8 text",
    "not_finite": "expected a finite number",
    "not_in_enum": "expected one of the allowed values",
    "out_of_range": "expected a value in the allowed range",
    "pattern_mismatch": "expected text matching the required pattern",
    "too_short": "expected a longer value",
    "too_long": "expected a shorter value",
    "wrong_length": "expected another number of items",
    "duplicate_items": "expected unique items",
    "unhashable_item": "items must be hashable",
    "missing_field": "required field missing",
    "unknown_field": "field not allowed here",
    "non_string_key": "object keys must be strings",
    "no_matching_type": "matches none of the allowed types",
    "too_deep": "nested too deeply",
    "invalid_value": "invalid value",
}

MAX_MESSAGE: Final = 300
"""SPEC 5: a message is one line of at most this many characters, whatever the input."""
_LISTED = 10  # names or allowed values a message lists before "and N more"
_NAME = 40  # characters of one key or name in a message
_ALLOWED = 120  # characters of allowed values listed, so the value sent is still shown
_PATTERN = 100  # characters of a pattern in a message

_MAX_DEPTH = 20
_MAX_ITEMS = 50
_MAX_TEXT = 200
# Values are looked at, never walked in full: a value shared many times over (``a = [a] * 50``
# a few times) or containing itself is tiny in memory and astronomically large as a tree.
_MAX_NODES = 1000
_SHORT_DEPTH = 3
_SHORT_INT = 10**50  # an int whose repr fits in a shown value
_SHORT_ITEMS = 8
_SHORT_BOUND = 10**39  # an int bound whose digits fit in a name (_NAME)


def format_path(path: tuple[str | int, ...]) -> str:
    """``("items", 2, "qty")`` -> ``items[2].qty``, the way a model reads a location."""
    out = ""
    for part in path:
        if type(part) is not str and isinstance(part, int):
            out = f"{out}[{part}]"
        else:
            out = f"{out}.{part}" if out else part
    return out


# C0 controls, DEL, the C1 controls and the Unicode line and paragraph separators: anything
# that could start a new line (or hide text) in what the model reads.
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line of at most ``limit`` characters, encodable as UTF-8.

    Line breaks and other control characters are escaped (``\\n``), lone surrogates too, so
    no key or exception text can add a line ("SYSTEM: ...") to what a model reads.
    """
    if not (text.isascii() and text.isprintable()):
        text = _BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = text.encode("utf-8", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _where(path: tuple[str | int, ...]) -> str:
    """The path as a message starts with it, at most 80 characters on one line."""
    text = path[0] if len(path) == 1 else format_path(path)
    if type(text) is str and len(text) <= 80 and text.isascii() and text.isprintable():
        return text  # what one_line makes of it, without the call
    return one_line(format_path(path), 80)


def _listed(items: tuple[Any, ...] | list[Any], show: Any, budget: int = 0) -> str:
    """The first few items, each through ``show``, and how many more there are; with a
    ``budget``, only as many as fit in that many characters (one at least)."""
    if not budget:
        shown = ", ".join(show(item) for item in items[:_LISTED])
        return shown if len(items) <= _LISTED else f"{shown} and {len(items) - _LISTED} more"
    parts: list[str] = []
    for item in items[:_LISTED]:
        part = show(item)
        budget -= len(part) + 2
        if parts and budget < 0:
            break
        parts.append(part)
    rest = len(items) - len(parts)
    return ", ".join(parts) + (f" and {rest} more" if rest else "")


def _name(name: Any) -> str:
    return one_line(name, _NAME) if isinstance(name, str) else _short(name)


def _json_value(value: Any) -> str:
    """An allowed value as the model writes it: ``"express"``, ``2``, ``null``."""
    try:
        return one_line(msgspec.json.encode(value).decode(), _NAME)
    except Exception:
        return _short(value)


_BOUND_WORDS: Final = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusive_minimum": "more than",
    "exclusive_maximum": "less than",
    "multiple_of": "a multiple of",
}


def _expected(reason: str, rule: Any, value: Any) -> tuple[str, str]:
    """What the rule expected, and what to add after the value sent (its length, the item
    sent twice); the reason's plain text when there is no rule to name."""
    if rule is None:  # every rule below needs one: a format's reason says it all
        return _REASONS.get(reason) or reason.replace("_", " "), ""
    try:
        if reason == "out_of_range" and rule is not None:
            keyword, bound = rule
            return f"expected {_BOUND_WORDS[keyword]} {_bound(bound)}", ""
        if reason in ("too_short", "too_long") and rule is not None:
            limit, length = rule
            least = "at least" if reason == "too_short" else "at most"
            return f"expected {least} {_counted(limit, value)}", f" ({_counted(length, value)})"
        if reason == "wrong_length" and rule is not None:
            return f"expected exactly {_counted(rule, value)}", f" ({_counted(len(value), value)})"
        if reason == "pattern_mismatch" and rule:
            return _pattern(rule), ""
        if reason == "not_in_enum" and rule:
            if len(rule) == 1:
                return f"expected {_json_value(rule[0])}", ""
            return f"expected one of {_listed(rule, _json_value, _ALLOWED)}", ""
        if reason == "duplicate_items" and rule is not None:
            return "expected unique items", f" ({_short(rule[0])} is repeated)"
    except Exception:  # a rule of another shape (a pydantic context, a hand-built error)
        pass
    return _REASONS.get(reason) or reason.replace("_", " "), ""


def _pattern(rule: str | tuple[str, str]) -> str:
    """The pattern; one too long to read in a message (an e-mail regex) is named by the
    description of what carries it, when there is one: ``(pattern, description)``."""
    pattern, described = (rule, "") if isinstance(rule, str) else rule
    if len(pattern) > _PATTERN and described:
        return f'expected text matching the pattern for "{one_line(described, _PATTERN)}"'
    return f"expected text matching {one_line(pattern, _PATTERN)}"


def _bound(bound: Any) -> str:
    """A bound as the model reads it: ``10``, ``0.01``, ``2020-01-01``."""
    if type(bound) is int and -_SHORT_BOUND < bound < _SHORT_BOUND:
        return str(bound)  # what the last branch makes of it, without the calls
    if isinstance(bound, str):
        return one_line(bound, _NAME)
    isoformat = getattr(bound, "isoformat", None)  # a date, datetime or time
    if callable(isoformat):
        return one_line(str(isoformat()), _NAME)
    if isinstance(bound, float) and bound.is_integer() and abs(bound) < 2**53:
        return str(int(bound))  # pydantic hands a float field's bound over as a float
    if isinstance(bound, int | float | Decimal):
        return one_line(str(bound), _NAME)
    return _short(bound)


def _counted(count: int, value: Any) -> str:
    """``8 characters``, ``1 item``, ``3 keys``: a length in the unit of ``value``."""
    if isinstance(value, str | bytes | bytearray):
        unit = "character"
    elif isinstance(value, Mapping):
        unit = "key"
    else:
        unit = "item"
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _short(value: Any) -> str:
    if (type(value) is str and len(value) <= 28 and value.isascii() and value.isprintable()) or (
        type(value) is int and -_SHORT_INT < value < _SHORT_INT
    ):
        # what the walk below gives such a text or number (its repr fits in 60 characters),
        # at a fraction of the cost: one error's message is phrased on every failed call
        return repr(value)
    try:
        text = _glimpse(value, _SHORT_DEPTH)
    except Exception:
        text = f"<{type(value).__name__}>"
    return one_line(text, 60)


def _glimpse(value: Any, depth: int) -> str:
    """``repr`` of the first few items a few levels deep, and of the start of a long text."""
    if isinstance(value, str | bytes | bytearray):
        return repr(value[:80])
    if isinstance(value, Mapping):
        if depth <= 0:
            return "{...}"
        pairs = itertools.islice(value.items(), _SHORT_ITEMS)
        parts = [f"{_glimpse(k, depth - 1)}: {_glimpse(v, depth - 1)}" for k, v in pairs]
        return "{" + ", ".join(parts) + (", ...}" if len(value) > _SHORT_ITEMS else "}")
    if isinstance(value, list | tuple | set | frozenset):
        opening, closing = "()" if isinstance(value, tuple) else "[]"
        if depth <= 0:
            return f"{opening}...{closing}"
        shown = itertools.islice(value, _SHORT_ITEMS)
        parts = [_glimpse(item, depth - 1) for item in shown]
        if len(value) > _SHORT_ITEMS:
            parts.append("...")
        elif len(parts) == 1 and opening == "(":
            return f"({parts[0]},)"
        return opening + ", ".join(parts) + closing
    return repr(value)


def jsonable(value: Any, depth: int = 0) -> Any:
    """A JSON-encodable stand-in for any value: itself when possible, a repr otherwise."""
    try:
        return _jsonable(value, depth, [_MAX_NODES])
    except Exception:
        return f"<{type(value).__name__}>"


def _jsonable(value: Any, depth: int, budget: list[int]) -> Any:
    """``budget`` counts the values still to look at, across the whole value."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, int):
        return value if abs(value) < 2**63 else _short(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth >= _MAX_DEPTH:
        return "..."
    if isinstance(value, bytes | bytearray):
        return _short(value)
    try:
        if isinstance(value, list | tuple | set | frozenset):
            items: list[Any] = []
            for item in itertools.islice(value, _MAX_ITEMS):
                if budget[0] <= 0:
                    items.append("...")
                    break
                budget[0] -= 1
                items.append(_jsonable(item, depth + 1, budget))
            return items
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for key, item in itertools.islice(value.items(), _MAX_ITEMS):
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                name = _text(key if isinstance(key, str) else _short(key))
                out[name] = _jsonable(item, depth + 1, budget)
            return out
    except Exception:
        return f"<{type(value).__name__}>"
    return _text(_short(value))  # a __repr__ may return anything, lone surrogates included


def _text(value: str) -> str:
    """At most ``_MAX_TEXT`` characters of ``value``, encodable as UTF-8."""
    text = value[:_MAX_TEXT]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("ascii")
    return text if len(value) <= _MAX_TEXT else text + "..."


@dataclass(frozen=True, slots=True)
class ToolError:
    """Why a tool call failed, for the model and for the program.

    ``kind`` is one of ``unknown_tool``, ``invalid_arguments``, ``non_string_arguments``,
    ``unknown_arguments``, ``missing_argument``, ``argument_gap``, ``invalid_argument``,
    ``async_tool``, ``raised``, ``exited``, ``retry``, ``timeout``, ``unencodable``, and, from
    ``serve-mcp``, ``busy``, ``shutting_down`` and ``cancelled``. Each kind has one
    constructor below, the only place its message is phrased. ``str(error)`` is ``message``.
    """

    kind: str
    message: str
    argument: str | None = None
    path: tuple[str | int, ...] = ()
    reason: str | None = None
    value: Any = None
    names: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        # SPEC 5: however it was built, the message is one bounded line
        bounded = one_line(self.message)
        if bounded is not self.message:
            object.__setattr__(self, "message", bounded)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; ``json.dumps(..., allow_nan=False)`` accepts it for any value.

        Bounded like the message: ``value`` and ``names`` are shortened (``jsonable``).
        """
        return {
            "kind": self.kind,
            "message": self.message,
            "argument": self.argument,
            "path": [jsonable(part) for part in self.path],
            "reason": self.reason,
            "value": jsonable(self.value),
            # as bounded as the message: the first names, then "..." for the rest
            "names": [jsonable(name) for name in self.names[:_MAX_ITEMS]]
            + (["..."] if len(self.names) > _MAX_ITEMS else []),
        }

    # Constructors, one per kind, so every message is phrased in one place. Each part taken
    # from the input (a name, a key, a value, an exception text) is shortened on its own, so
    # the message still says what the model should do when the input was huge.

    @classmethod
    def unknown_tool(
        cls, name: Any, known: tuple[str, ...], suggested: tuple[str, ...] = ()
    ) -> ToolError:
        """``suggested``: the tools a search for the name found, best first (the caller's
        search). They are what the message offers; without them a catalog of up to ten
        tools is listed whole, a larger one only counted. ``names`` holds what is named."""
        if suggested:
            shown = _listed(suggested, _name)
            message = f"unknown tool {_short(name)}; did you mean: {shown}?"
            return cls("unknown_tool", message, value=name, names=suggested)
        if len(known) > _LISTED:
            message = (
                f"unknown tool {_short(name)}; none of the {len(known)} tools has a similar "
                "name or description"
            )
            return cls("unknown_tool", message, value=name)
        listed = _listed(known, _name) if known else "none"
        message = f"unknown tool {_short(name)}; available tools: {listed}"
        return cls("unknown_tool", message, value=name, names=known)

    @classmethod
    def invalid_arguments(cls, args: Any, detail: str | None = None) -> ToolError:
        """``detail`` says why JSON text could not be decoded; without it, ``args`` is not a
        mapping."""
        if detail is not None:
            message = f"arguments must be a JSON object; they are not valid JSON ({detail})"
            return cls("invalid_arguments", message, value=args)
        message = f"arguments must be a JSON object, got {type(args).__name__}"
        return cls("invalid_arguments", message, value=args)

    @classmethod
    def non_string_arguments(cls, keys: tuple[Any, ...]) -> ToolError:
        shown = _listed(keys, _short)
        return cls("non_string_arguments", f"argument names must be strings: {shown}", names=keys)

    @classmethod
    def unknown_arguments(cls, names: tuple[str, ...], accepted: tuple[str, ...]) -> ToolError:
        takes = _listed(accepted, _name) if accepted else "no arguments"
        return _made(
            cls,
            "unknown_arguments",
            f"unknown argument{'s' if len(names) > 1 else ''} {_listed(names, _name)}; "
            f"this tool takes: {takes}",
            names=names,
        )

    @classmethod
    def missing_argument(cls, name: str) -> ToolError:
        message = f"{_name(name)}: required argument missing"
        return _made(cls, "missing_argument", message, name)

    @classmethod
    def argument_gap(cls, omitted: str, later: tuple[str, ...]) -> ToolError:
        return cls(
            "argument_gap",
            f"{_name(omitted)}: must be given too when {_listed(later, _name)} "
            f"{'is' if len(later) == 1 else 'are'} given (positional-only arguments)",
            argument=omitted,
            names=later,
        )

    @classmethod
    def invalid_argument(
        cls,
        path: tuple[str | int, ...],
        reason: str,
        value: Any,
        rule: Any = None,
    ) -> ToolError:
        """``rule``: the rule ``value`` broke, shaped by ``reason`` as ``Invalid.rule`` is
        (``toolcall._scalars``); the message names it, then what was sent (SPEC 5)."""
        what, detail = _expected(reason, rule, value)
        return _made(
            cls,
            "invalid_argument",
            f"{_where(path)}: {what}, got {_short(value)}{detail}",
            path[0] if path and isinstance(path[0], str) else None,
            path,
            reason,
            value,
        )

    @classmethod
    def async_tool(cls, name: str) -> ToolError:
        return cls("async_tool", f"{_name(name)} is an async tool; call it with arun", value=name)

    @classmethod
    def raised(cls, exc: BaseException) -> ToolError:
        """``value`` is the exception's text, shortened (to ``_MAX_TEXT``) like the message."""
        name = type(exc).__name__
        try:
            text = str(exc)
        except Exception:
            text = ""
        text = _text(text)
        message = f"the tool failed: {name}: {text}" if text else f"the tool failed: {name}"
        return cls("raised", message, reason=name, value=text)

    @classmethod
    def exited(cls, code: Any) -> ToolError:
        return cls("exited", f"the tool exited with code {_short(code)}", value=code)

    @classmethod
    def retry(cls, message: Any) -> ToolError:
        """The tool's own ``ToolRetry`` message, for the model: nothing is added to it."""
        text = _text(message if isinstance(message, str) else str(message))
        return cls("retry", text or "the tool asks for a different call", value=text)

    @classmethod
    def timeout(cls, limit: float) -> ToolError:
        return cls("timeout", f"the tool did not finish within {limit:g} seconds", value=limit)

    @classmethod
    def unencodable(cls, detail: str) -> ToolError:
        """The tool's value cannot be sent: ``detail`` says why, naming what it returned."""
        return cls("unencodable", detail)

    @classmethod
    def busy(cls, detail: str) -> ToolError:
        """``serve-mcp`` is at a call limit; ``detail`` names the limit."""
        return cls("busy", f"{detail}; retry later")

    @classmethod
    def shutting_down(cls, *, started: bool = False) -> ToolError:
        """``serve-mcp`` is draining: a new call is refused, or (``started``) a call was cut
        off at the end of the grace period."""
        if started:
            return cls("shutting_down", "the server shut down before the call finished")
        return cls("shutting_down", "the server is shutting down; retry on another")

    @classmethod
    def cancelled(cls) -> ToolError:
        return cls("cancelled", "the client went away; the call was cancelled")


class _Unfrozen:
    """ToolError's slots without its frozen ``__setattr__``: the errors a model's call meets
    are filled in as one of these, then made a ToolError by assigning ``__class__`` (the two
    layouts are the same slots in the same order). The frozen dataclass ``__init__`` goes
    through ``object.__setattr__`` seven times, which cost more than phrasing the message."""

    __slots__ = ToolError.__slots__
    kind: str
    message: str
    argument: str | None
    path: tuple[str | int, ...]
    reason: str | None
    value: Any
    names: tuple[Any, ...]


def _made(
    cls: type[ToolError],
    kind: str,
    message: str,
    argument: str | None = None,
    path: tuple[str | int, ...] = (),
    reason: str | None = None,
    value: Any = None,
    names: tuple[Any, ...] = (),
) -> ToolError:
    """``cls(...)``, its message bounded as ``__post_init__`` bounds it (see ``_Unfrozen``);
    a subclass is built by its own ``__init__``."""
    if cls is not ToolError:
        return cls(kind, message, argument, path, reason, value, names)
    error = _Unfrozen()
    error.kind = kind
    # one_line's own test first: a message of printable ASCII that fits is already one line
    fits = message.isascii() and message.isprintable() and len(message) <= MAX_MESSAGE
    error.message = message if fits else one_line(message)
    error.argument = argument
    error.path = path
    error.reason = reason
    error.value = value
    error.names = names
    error.__class__ = ToolError  # type: ignore[assignment]
    return error  # type: ignore[return-value]


def check_timeout(timeout: object) -> None:
    """A timeout is a positive number of seconds or None; anything else is the program's bug
    (the rule of every ``timeout`` toolcall takes: ``arun``'s, a Toolbox's, ``CallLimits``')."""
    if timeout is None:
        return
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        msg = f"timeout must be a positive number of seconds or None, not {timeout!r}"
        raise ValueError(msg)


def tool_raised(name: str, exc: BaseException) -> Err:
    """The tool raised: a bug in the tool, so it is logged with its traceback; a
    ``ToolRetry`` is the tool answering the model, so it is not."""
    if isinstance(exc, ToolRetry):
        return Err(ToolError.retry(exc.message))
    log.error("tool %s raised %s", name, type(exc).__name__, exc_info=exc)
    return Err(ToolError.raised(exc))


def tool_exited(exc: SystemExit) -> Err:
    return Err(ToolError.exited(exc.code))


# Frozen msgspec structs rather than frozen dataclasses: both are slotted, immutable and
# pattern-matchable (``case Ok(value)``), but building a frozen dataclass goes through
# ``object.__setattr__`` and costs as much as calling a small tool, while a struct is built in
# C. Assigning to a field raises ``AttributeError`` (as ``FrozenInstanceError`` does, being a
# subclass of it).


class Ok(msgspec.Struct, Generic[T], frozen=True):
    """A successful call; ``value`` is what the tool returned."""

    value: T


class Err(msgspec.Struct, frozen=True):
    """A failed call; ``error`` says why, in terms a model can act on."""

    error: ToolError


def encode_result(value: Any) -> str:
    """A tool's return value as JSON text, for the tool-result message.

    Written by ``toolcall._dispatch.encode``: dataclasses, ``msgspec.Struct``, attrs
    classes, pydantic models (``model_dump(mode="json", by_alias=True)``), datetimes, UUIDs,
    enums, sets, decimals and paths the way a model expects to read them; media as the MCP
    content block JSON they would be. A ``ToolError`` (or an ``Err``) is encoded as its
    ``to_dict()``, bounded like its message; msgspec would otherwise encode the dataclass
    field by field, the offending value in full.
    """
    if type(value) is Err:
        value = {"error": value.error.to_dict()}
    elif type(value) is ToolError:
        value = value.to_dict()
    return encode_json(value)
