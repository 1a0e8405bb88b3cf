"""What a user writes in a tool module besides plain annotations and docstrings.

These markers only record intent on the function or annotation; derivation reads them.
Nothing here validates against the function, because a warning belongs to derivation
(issued once, when the module is processed), not to every import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Param", "exclude", "param"]

F = TypeVar("F", bound=Callable[..., Any])

EXCLUDE_ATTR = "__toolcall_exclude__"
PARAMS_ATTR = "__toolcall_params__"

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
