"""Generated dispatch functions for tools whose parameters are plain scalars.

For such a tool the whole per-call job is a handful of ``type(x) is ...`` checks and the
call, so the function is written out as Python source and compiled once (as ``dataclasses``
and ``attrs`` do for ``__init__``): no loop over parameters, no coercer calls, the
arguments passed as literal keywords. The generated code knows only the happy path; at the
first deviation it hands the untouched arguments to ``fallback`` (the general path), which
finds and phrases the exact error, so both paths give the same result by construction.

How a failing call ends (``raised`` logged, ``exited``) lives here too, so the two paths
cannot drift apart on it.
"""

from __future__ import annotations

import functools
import itertools
import keyword
import logging
import math
from collections.abc import Callable
from typing import Any, Final

from toolcall import ir
from toolcall._result import Err, Ok, ToolError

__all__ = ["MISS", "build_fastpath", "tool_exited", "tool_raised"]

_log = logging.getLogger("toolcall")


class _Miss:
    """The arguments left the happy path; only the general path can say what is wrong."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISS"


MISS: Final = _Miss()

_ABSENT: Final = object()

_BRANCHING = 4
"""Optional parameters past this many are passed through a ``**kw`` dict rather than one
literal call per combination (2**4 calls at most)."""

# The happy-path test per kind, on the local named ``{v}``.
_CHECKS: Final = {
    "string": "type({v}) is str and ({v}.isascii() or _utf8({v}))",
    "integer": "type({v}) is int",
    "number": "type({v}) is float and _isfinite({v})",
    "boolean": "type({v}) is bool",
    "any": "{v} is not _ABSENT",
}


def tool_raised(name: str, exc: Exception) -> Err:
    """The tool raised: a bug in the tool, so it is logged with its traceback."""
    _log.error("tool %s raised %s", name, type(exc).__name__, exc_info=exc)
    return Err(ToolError.raised(exc))


def tool_exited(exc: SystemExit) -> Err:
    return Err(ToolError.exited(exc.code))


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_plain(parameter: ir.Parameter) -> bool:
    t = parameter.type
    if t.kind not in _CHECKS or t != ir.Type(kind=t.kind, nullable=t.nullable):
        return False
    # a keyword in generated source must be spelled exactly as given: ASCII (a non-ASCII
    # identifier would be NFKC-normalised by the compiler) and not a reserved word
    name = parameter.name
    return parameter.positional_only or (
        name.isascii() and name.isidentifier() and not keyword.iskeyword(name)
    )


def _miss_sync(args: Any) -> _Miss:
    return MISS


async def _miss_async(args: Any) -> _Miss:
    return MISS


def build_fastpath(
    tool: ir.Tool,
    fn: Callable[..., Any],
    *,
    is_async: bool,
    fallback: Callable[[Any], Any] | None = None,
) -> Callable[[Any], Any] | None:
    """The generated function for ``tool``, or None when its parameters are not all scalars.

    The function takes the arguments and returns ``Ok`` / ``Err`` for calls on the happy
    path, and ``fallback(args)`` otherwise; without a fallback it returns :data:`MISS`
    instead (which is how the tests compare it with the general path). For an async tool
    it is a coroutine function that awaits the tool (and the fallback).
    """
    parameters = tool.parameters
    if tool.kwargs is not None or not all(_is_plain(p) for p in parameters):
        return None
    optional = [i for i, p in enumerate(parameters) if not p.required]
    branching, pooled = optional[:_BRANCHING], optional[_BRANCHING:]
    if any(parameters[i].positional_only for i in pooled):
        return None
    aw = "await " if is_async else ""
    miss = f"return {aw}_fallback(args)"
    lines = [
        f"{'async ' if is_async else ''}def fast(args):",
        "    if type(args) is not dict:",
        f"        {miss}",
        f"    n = {len(parameters) - len(optional)}",
    ]
    for i, p in enumerate(parameters):
        lines += _validate(i, p, miss)
    positional_optional = [i for i in optional if parameters[i].positional_only]
    for earlier, later in itertools.pairwise(positional_optional):
        lines += [f"    if v{earlier} is _ABSENT and v{later} is not _ABSENT:", f"        {miss}"]
    lines += ["    if len(args) != n:", f"        {miss}", "    try:"]
    if pooled:
        lines.append("        kw = {}")
        for i in pooled:
            lines += [
                f"        if v{i} is not _ABSENT:",
                f"            kw[{parameters[i].name!r}] = v{i}",
            ]
    lines += _calls(parameters, branching, bool(pooled), aw)
    lines += [
        "    except Exception as exc:",
        "        return _raised(exc)",
        "    except SystemExit as exc:",
        "        return _exited(exc)",
        "    ok = _new(_Ok)",
        "    _set(ok, value)",
        "    return ok",
    ]
    free = {
        "fn": fn,
        "_fallback": fallback or (_miss_async if is_async else _miss_sync),
        "_ABSENT": _ABSENT,
        "_utf8": _utf8,
        "_isfinite": math.isfinite,
        "_raised": functools.partial(tool_raised, tool.name),
        "_exited": tool_exited,
        # Ok(value) goes through the frozen dataclass __init__ (object.__setattr__), which
        # costs as much as a small tool; filling the slot directly builds the same object.
        "_Ok": Ok,
        "_new": object.__new__,
        "_set": vars(Ok)["value"].__set__,
    }
    # a factory, so that these are closure cells (cheaper to read than globals)
    source = "\n".join(
        [f"def make({', '.join(free)}):", *(f"    {line}" for line in lines), "    return fast"]
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<toolcall fast path: {tool.name}>", "exec"), namespace)
    fast: Callable[[Any], Any] = namespace["make"](**free)
    fast.__qualname__ = fast.__name__ = f"fast_{tool.name}"
    return fast


def _validate(i: int, p: ir.Parameter, miss: str) -> list[str]:
    """Source that leaves the argument in ``v{i}`` (``_ABSENT`` when it is not passed)."""
    v = f"v{i}"
    kind, nullable = p.type.kind, p.type.nullable or p.type.kind == "any"
    check = _CHECKS[kind].format(v=v)
    count = [] if p.required else ["        n += 1"]  # required ones are counted up front
    # None fails the check of a required, non-nullable scalar just as a missing key does
    default = "" if p.required and not nullable else ", _ABSENT"
    lines = [f"    {v} = args.get({p.name!r}{default})"]
    if p.required:
        lines += [f"    if {check}:", "        pass"]
    else:
        lines += [f"    if {v} is _ABSENT:", "        pass", f"    elif {check}:", *count]
    if kind == "number":
        lines += [
            f"    elif type({v}) is int:",
            *count,
            "        try:",
            f"            {v} = float({v})",
            "        except OverflowError:",
            f"            {miss}",
        ]
    if kind != "any" and (nullable or not p.required):
        # an explicit null: the value None when the type takes it, otherwise "not passed"
        lines += [f"    elif {v} is None:", *(count or ["        pass"])]
        if not nullable:
            lines.append(f"        {v} = _ABSENT")
    lines += ["    else:", f"        {miss}"]
    return lines


def _calls(
    parameters: tuple[ir.Parameter, ...], branching: list[int], pooled: bool, aw: str
) -> list[str]:
    """One literal call per combination of given optionals, nested on ``is _ABSENT`` tests.

    Positional-only optionals are given as a prefix (the gap check saw to it), so once one
    is absent the later ones are not branched on.
    """

    def call(given: frozenset[int], indent: str) -> list[str]:
        passed = [
            f"v{i}" if p.positional_only else f"{p.name}=v{i}"
            for i, p in enumerate(parameters)
            if p.required or i in given
        ]
        if pooled:
            passed.append("**kw")
        return [f"{indent}value = {aw}fn({', '.join(passed)})"]

    def tree(at: int, given: frozenset[int], closed: bool, indent: str) -> list[str]:
        if at == len(branching):
            return call(given, indent)
        i = branching[at]
        positional = parameters[i].positional_only
        if positional and closed:
            return tree(at + 1, given, closed, indent)
        deeper = indent + "    "
        return [
            f"{indent}if v{i} is _ABSENT:",
            *tree(at + 1, given, closed or positional, deeper),
            f"{indent}else:",
            *tree(at + 1, given | {i}, closed, deeper),
        ]

    return tree(0, frozenset(), False, "        ")
