"""What a user writes in a tool module besides plain annotations and docstrings.

These markers only record intent on the function or annotation; derivation reads them.
Nothing here validates against the function, because a warning belongs to derivation
(issued once, when the module is processed), not to every import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar, overload

import msgspec

from toolcall._shared.names import (
    EXCLUDE_ATTR,
    PARAMS_ATTR,
    TOOL_ATTR,
    TOOL_NAME_RULE,
    valid_tool_name,
)

__all__ = [
    "Injected",
    "Param",
    "ToolMeta",
    "exclude",
    "is_injected_marker",
    "param",
    "tool",
]

F = TypeVar("F", bound=Callable[..., Any])


MCP_HINTS: Final = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
"""The MCP tool annotations ``@toolcall.tool(annotations=...)`` accepts."""

WIRES = frozenset({"string_integer"})


@dataclass(frozen=True, slots=True)
class Param:
    """Per-parameter override, used inside ``Annotated`` or through :func:`param`.

    ``description`` beats the docstring and the type's doc; ``""`` suppresses both.
    ``wire="string_integer"`` sends an ``int`` as a string of digits, for ids too large
    for a model's JSON numbers.

    Examples
    --------
    >>> from typing import Annotated
    >>> import toolcall
    >>> def ban(user_id: Annotated[int, toolcall.Param(wire="string_integer")]) -> None: ...
    """

    description: str | None = None
    wire: str | None = None

    def __post_init__(self) -> None:
        if self.wire is not None and self.wire not in WIRES:
            msg = f"unknown wire shape {self.wire!r}; expected one of: {', '.join(sorted(WIRES))}"
            raise ValueError(msg)


def param(
    name: str, *, description: str | None = None, wire: str | None = None
) -> Callable[[F], F]:
    """Decorator form of :class:`Param`, for signatures that should stay plain.

    Examples
    --------
    >>> import toolcall
    >>> @toolcall.param("user_id", wire="string_integer", description="Snowflake id")
    ... def ban(user_id: int) -> None: ...
    """
    override = Param(description=description, wire=wire)

    def mark(fn: F) -> F:
        params: dict[str, Param] = dict(getattr(fn, PARAMS_ATTR, {}))
        params[name] = override
        setattr(fn, PARAMS_ATTR, params)
        return fn

    return mark


def exclude(fn: F) -> F:
    """Keep a public function of a marked module out of its tools."""
    setattr(fn, EXCLUDE_ATTR, True)
    return fn


class _InjectedMarker:
    """The type of :data:`Injected`; one instance, which ``Injected()`` also returns."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "toolcall.Injected"

    def __call__(self) -> _InjectedMarker:
        return self


Injected: Final = _InjectedMarker()
"""``Annotated[T, toolcall.Injected]``: the program supplies this parameter, not the model.

It is left out of the schema; ``toolcall.run(..., inject={"name": value})`` supplies it.

Examples
--------
>>> from typing import Annotated
>>> import toolcall
>>> def whoami(session: Annotated[dict, toolcall.Injected]) -> str: ...
"""


def is_injected_marker(obj: object) -> bool:
    return obj is Injected or obj is _InjectedMarker


class ToolMeta(msgspec.Struct, frozen=True):
    """What ``@toolcall.tool`` recorded; ``None`` / empty means "derive it as usual"."""

    name: str | None = None
    description: str | None = None
    title: str | None = None
    annotations: Mapping[str, bool] | None = None
    search: tuple[str, ...] = ()


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    title: str | None = None,
    annotations: Mapping[str, bool] | Any = None,
    search: str | Iterable[str] = (),
) -> Callable[[F], F]: ...
def tool(
    fn: Any = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    title: str | None = None,
    annotations: Mapping[str, bool] | Any = None,
    search: str | Iterable[str] = (),
) -> Any:
    """Tool metadata the function itself cannot carry; it marks nothing by itself.

    ``name`` replaces the function name as the tool name (it must follow the providers' name
    rule), ``description`` replaces the docstring's description, and ``title`` and
    ``annotations`` (MCP hints: ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
    ``openWorldHint``; a dict, or the MCP SDK's ``ToolAnnotations``) appear in the ``mcp``
    variant. ``search`` adds keywords (one string or several) that tool search matches but no
    format sends, so a tool is found by the words users say without longer descriptions for the
    model to read. These are runtime values, so they survive ``python -OO``.

    Examples
    --------
    >>> import toolcall
    >>> @toolcall.tool(name="qdrant-find", annotations={"readOnlyHint": True})
    ... def find(query: str) -> list[str]: ...
    >>> @toolcall.tool(search=["forecast", "rain", "temperature"])
    ... def get_weather(city: str) -> str: ...
    """
    if name is not None and not (isinstance(name, str) and valid_tool_name(name)):
        msg = f"tool name {name!r} does not match {TOOL_NAME_RULE}, which providers require"
        raise ValueError(msg)
    meta = ToolMeta(name, description, title, _hints(annotations), _keywords(search))

    def mark(target: F) -> F:
        setattr(target, TOOL_ATTR, meta)
        return target

    return mark(fn) if fn is not None else mark


def _keywords(search: object) -> tuple[str, ...]:
    """The search-only keywords as a tuple of strings; a lone string is one keyword (a phrase
    is fine: search splits it into words as it splits everything else)."""
    if isinstance(search, str):
        search = (search,)
    words = tuple(search) if isinstance(search, Iterable) else None
    if words is None or not all(isinstance(w, str) for w in words):
        msg = f"search must be a string or strings, not {search!r}"
        raise TypeError(msg)
    return tuple(w for w in words if w.strip())


def _hints(annotations: Any) -> dict[str, bool] | None:
    """The MCP hints as a plain dict; an MCP SDK ``ToolAnnotations`` is read by its fields."""
    if annotations is None:
        return None
    if not isinstance(annotations, Mapping) and hasattr(annotations, "model_dump"):
        annotations = annotations.model_dump(by_alias=True, exclude_none=True)
        annotations.pop("title", None)
    if not isinstance(annotations, Mapping):
        msg = f"annotations must be a dict of MCP hints, not {type(annotations).__name__}"
        raise TypeError(msg)
    unknown = sorted(set(annotations) - MCP_HINTS)
    if unknown:
        msg = f"unknown MCP tool annotations {unknown}; expected: {', '.join(sorted(MCP_HINTS))}"
        raise ValueError(msg)
    for key, value in annotations.items():
        if not isinstance(value, bool):
            msg = f"annotation {key} must be True or False, not {value!r}"
            raise TypeError(msg)
    return dict(annotations)
