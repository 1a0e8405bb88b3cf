"""pydantic's JSON-schema metadata, read as pydantic reads it.

- ``WithJsonSchema(schema)`` (mode ``None`` or ``"validation"``): the schema is the one given;
  the value is still validated as its Python type.
- ``Field(json_schema_extra={...})``: merged into the schema (``enum``, ``examples``, ``x-``
  keys); a callable is applied to the schema toolcall renders, and the result is the schema.
- ``SkipJsonSchema``: the parameter, field or union variant is left out of the schema (the
  places that leave it out are derivation's; this module only recognises the marker).

Nothing here imports pydantic: its objects are recognised by class name and module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from toolcall import ir
from toolcall._shared.kinds import from_pydantic, is_field_info

__all__ = [
    "SchemaWords",
    "applied",
    "given_description",
    "is_skipped",
    "schema_words",
    "validators",
    "with_words",
]


def _pydantic(obj: object, name: str) -> bool:
    cls = type(obj)
    return cls.__name__ == name and from_pydantic(cls)


def is_skipped(extras: tuple[Any, ...]) -> bool:
    """Whether the metadata holds ``SkipJsonSchema`` (``SkipJsonSchema[T]`` is
    ``Annotated[T, SkipJsonSchema()]``)."""
    return any(_pydantic(extra, "SkipJsonSchema") for extra in extras)


_VALIDATORS = ("BeforeValidator", "AfterValidator", "PlainValidator", "WrapValidator")


def validators(hint: Any, depth: int = 0) -> list[str]:
    """The pydantic validators an annotation holds, outside any class, by class name."""
    import typing

    found: list[str] = []
    while typing.get_origin(hint) is typing.Annotated:
        found += [type(m).__name__ for m in hint.__metadata__ if _is_validator(m)]
        hint = hint.__origin__
    if depth < 30 and not (isinstance(hint, type) and typing.get_origin(hint) is None):
        for arg in typing.get_args(hint):
            found += validators(arg, depth + 1)
    return found


def _is_validator(obj: object) -> bool:
    return any(_pydantic(obj, name) for name in _VALIDATORS)


class SchemaWords:
    """What one annotation's metadata says about its schema: the given schema (JSON text),
    the keywords to merge (JSON text), the callables to apply, and what could not be read."""

    __slots__ = ("apply", "given", "merged", "problems")

    def __init__(self) -> None:
        self.given = ""
        self.merged: dict[str, Any] = {}
        self.apply: list[Callable[..., Any]] = []
        self.problems: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.given or self.merged or self.apply or self.problems)

    def merged_text(self) -> str:
        return _json(self.merged, self.problems, "json_schema_extra") if self.merged else ""


def schema_words(extras: tuple[Any, ...]) -> SchemaWords:
    """The schema metadata among ``extras``, in the order written (the last schema wins)."""
    words = SchemaWords()
    for extra in extras:
        if _pydantic(extra, "WithJsonSchema"):
            if getattr(extra, "mode", None) in (None, "validation"):
                given = getattr(extra, "json_schema", None)
                words.given = _json(given if given is not None else {}, words.problems, "")
                words.merged.clear()
                words.apply.clear()
        elif is_field_info(extra):
            found = getattr(extra, "json_schema_extra", None)
            if isinstance(found, dict):
                words.merged.update(found)
            elif callable(found):
                words.apply.append(found)
    return words


def with_words(t: ir.Type, words: SchemaWords, where: str, warn: Callable[[str], None]) -> ir.Type:
    """``t`` with ``WithJsonSchema`` / ``json_schema_extra`` applied: the schema given, merged
    or applied; what cannot be is a warning naming ``where``."""
    for problem in words.problems:
        warn(f"{where}: {problem}; it is left out of the schema")
    merged = words.merged_text()
    if words.given and merged:
        given = msgspec.json.decode(words.given)
        given.update(msgspec.json.decode(merged))
        t = msgspec.structs.replace(t, schema=msgspec.json.encode(given).decode())
    elif words.given or merged:
        t = msgspec.structs.replace(t, schema=words.given or t.schema, extra=merged)
    if words.apply:
        from toolcall._render.schema import type_schema

        text, problem = applied(type_schema(t), words.apply)
        if problem:
            warn(f"{where}: {problem}; the schema is toolcall's own")
        elif text:
            t = msgspec.structs.replace(t, schema=text, extra="")
    return t


def given_description(t: ir.Type) -> str | None:
    """The ``description`` of a schema the user gave, which pydantic puts on the property."""
    if not t.schema:
        return None
    found = msgspec.json.decode(t.schema)
    text = found.get("description") if isinstance(found, dict) else None
    return text if isinstance(text, str) else None


def _json(value: Any, problems: list[str], what: str) -> str:
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError, OverflowError) as exc:
        problems.append(f"{what or 'WithJsonSchema'} holds a value JSON cannot carry ({exc})")
        return ""


def applied(schema: dict[str, Any], functions: list[Callable[..., Any]]) -> tuple[str, str]:
    """The schema after every ``json_schema_extra`` callable, as JSON text, and a problem.

    pydantic calls it with the schema (and, for a model's own, the class) and uses the
    schema it changed in place; a callable that returns a dict is taken at its word.
    """
    for function in functions:
        try:
            result = function(schema)
        except Exception as exc:
            return "", f"json_schema_extra {function!r} raised {type(exc).__name__}: {exc}"
        if isinstance(result, dict):
            schema = result
    problems: list[str] = []
    text = _json(schema, problems, "json_schema_extra")
    return text, "; ".join(problems)
