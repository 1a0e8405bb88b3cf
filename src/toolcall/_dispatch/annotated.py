"""What a parameter's live annotation adds at dispatch: pydantic validators and defaults.

The IR describes the wire; two things written in an annotation act on the call itself and
are read from the live function when its plan is prepared (never at a warm load):

- ``Annotated[T, Field(default=...)]`` (or ``default_factory``): the value an omitted
  parameter gets, since the function itself has no Python default to fall back on;
- pydantic's validators (``BeforeValidator``, ``AfterValidator``, ``PlainValidator``,
  ``WrapValidator``) and a callable ``Discriminator``, anywhere in the annotation outside a
  model (a model validates itself): toolcall cannot run them inside its own coercion, so the
  whole parameter is validated by ``pydantic.TypeAdapter`` of its annotation, as pydantic
  (and FastMCP) would. The schema stays toolcall's; pydantic's lax mode accepts at least
  what it says.

pydantic objects are recognised by class name and module, so nothing here imports pydantic
unless a parameter needs it.
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Callable
from typing import Any, Final

import msgspec

from toolcall import ir
from toolcall._dispatch.coerce import Coercer
from toolcall._dispatch.models import field_info_default, pydantic_invalid
from toolcall._shared.kinds import from_pydantic, is_field_info, unwrap_annotated
from toolcall._shared.signatures import evaluated_hints

__all__ = ["annotated_default", "live_hints", "pydantic_checked", "pydantic_coercer"]

_VALIDATING: Final = frozenset(
    {"BeforeValidator", "AfterValidator", "PlainValidator", "WrapValidator", "Discriminator"}
)
_DEPTH: Final = 30


def live_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's evaluated annotations; one that does not resolve is left out, alone."""
    return {
        name: hint
        for name, hint in evaluated_hints(fn).items()
        if not isinstance(hint, str | typing.ForwardRef)
    }


def annotated_default(hint: Any) -> Callable[[], Any] | None:
    """The default an ``Annotated[T, Field(default=...)]`` gives, as a filler; else None."""
    _, extras = unwrap_annotated(hint)
    found = None
    for extra in extras:
        if is_field_info(extra):
            found = extra
    return None if found is None else field_info_default(found)


def _is_validating(extra: Any) -> bool:
    cls = type(extra)
    if not from_pydantic(cls):
        return False
    if cls.__name__ in _VALIDATING:
        return True
    discriminator = getattr(extra, "discriminator", None)
    return is_field_info(extra) and type(discriminator).__name__ == "Discriminator"


def pydantic_checked(hint: Any, depth: int = 0) -> bool:
    """Whether the annotation holds pydantic validation toolcall cannot run itself."""
    if depth > _DEPTH:
        return False
    core, extras = unwrap_annotated(hint)
    if any(_is_validating(extra) for extra in extras):
        return True
    if isinstance(core, type) and typing.get_origin(core) is None:
        return False  # a class (a model validates itself) has nothing of the annotation's
    return any(
        pydantic_checked(arg, depth + 1) for arg in typing.get_args(core) if arg is not Ellipsis
    )


def pydantic_coercer(hint: Any, t: ir.Type | None = None) -> Coercer:
    """Validates with ``TypeAdapter(hint)``; a failure is ``invalid_argument`` as for models
    (``t``, the parameter's type, names an enum's allowed values).

    Arrays and objects sent as JSON text are decoded first, as toolcall does everywhere.
    """
    from pydantic import TypeAdapter

    validate = TypeAdapter(hint).validate_python

    def validated(value: Any) -> Any:
        try:
            return validate(value)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            failure = exc
        if isinstance(value, str) and value.lstrip(" \t\n\r")[:1] in ("{", "["):
            with contextlib.suppress(ValueError, RecursionError):
                return validate(msgspec.json.decode(value))
        raise pydantic_invalid(failure, value, t) from None

    return validated
