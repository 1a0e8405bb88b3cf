"""The intermediate representation every other part of toolcall reads.

The IR is plain data on purpose: names and JSON values, never classes or functions, so
that it can be written to the cache, read back in a process started with ``-OO`` (or one
without any ``.py`` files), and compared byte for byte. Rendering reads only the IR;
dispatch reads the IR plus the live functions and classes it names.

A tree of small frozen ``msgspec.Struct`` nodes::

    ModuleIR
    └── Tool (one per function)
        ├── Parameter (one per argument) ── Type
        └── Type (``kwargs``: the value type of ``**kwargs``; ``returns``)
    Type
    ├── Field (object properties) ── Type
    ├── items / prefix_items / additional / variants ── Type

Examples
--------
A tool built by hand, rendered on demand:

>>> from toolcall import ir, render
>>> tool = ir.Tool(
...     name="echo",
...     description="Repeat a word.",
...     parameters=(ir.Parameter(name="word", type=ir.Type(kind="string")),),
... )
>>> render(tool, "mcp")["inputSchema"]["required"]
['word']
"""

from __future__ import annotations

import operator
from typing import Any, Final, Literal

import msgspec

__all__ = [
    "FORMAT_VERSION",
    "Field",
    "Kind",
    "ModuleIR",
    "Parameter",
    "Tool",
    "Type",
]

FORMAT_VERSION: Final = 5
"""Bumped whenever the shape or meaning of the IR changes; part of every cache key."""

Kind = Literal[
    "any", "null", "boolean", "integer", "number", "string", "enum", "array", "object", "union"
]


class Type(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One JSON Schema node plus what dispatch needs to restore the Python value.

    ``kind`` is the JSON shape. ``py`` says which Python value the dispatcher builds from
    it, ``ref`` names the class involved as ``"module:qualname"``:

    ========  ==============================================================
    kind      ``py``
    ========  ==============================================================
    string    ``""`` (str), ``bytes``, ``datetime``, ``date``, ``time``,
              ``timedelta``, ``uuid``, ``decimal``, ``path``
    enum      ``literal`` (the values themselves) or ``enum`` (members of
              the ``Enum`` class ``ref``)
    array     ``list``, ``tuple``, ``set``, ``frozenset``
    object    ``dict`` (TypedDict, mapping, ``**kwargs``), ``dataclass``,
              ``namedtuple``, ``struct`` (a ``msgspec.Struct``), ``model`` (a
              pydantic model or pydantic dataclass ``ref``, which pydantic
              validates, its validators included)
    any kind  ``pydantic``: one of pydantic's own types (``EmailStr``,
              ``UUID4``), ``ref`` naming it; pydantic validates it
    ========  ==============================================================

    ``provider`` names the type provider class whose ``coerce`` runs after the wire value
    has been coerced; ``wire`` is a wire-shape override such as ``"string_integer"``.
    ``nullable`` widens any kind with ``null``.

    ``schema`` and ``extra`` are what the user's annotation says about the schema itself, as
    JSON text (so the node stays immutable and hashable): ``schema`` is rendered in place of
    what the node would render (pydantic's ``WithJsonSchema``, a callable
    ``json_schema_extra``), ``extra`` holds keywords merged into it (a ``json_schema_extra``
    dict). Dispatch reads neither: it restores the Python type ``kind`` and ``py`` describe.
    """

    kind: Kind
    nullable: bool = False
    py: str = ""
    ref: str = ""
    provider: str = ""
    wire: str = ""
    # enum
    values: tuple[Any, ...] = ()
    # array
    items: Type | None = None
    prefix_items: tuple[Type, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    # object: ``fields`` are the declared properties; ``additional`` is the value type of
    # undeclared keys for an open object, None for a closed one.
    fields: tuple[Field, ...] = ()
    additional: Type | None = None
    # union (``anyOf``); ``nullable`` carries ``None`` rather than a null variant
    variants: tuple[Type, ...] = ()
    # string
    format: str = ""
    pattern: str = ""
    content_encoding: str = ""
    min_length: int | None = None
    max_length: int | None = None
    # number
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None
    # the user's own schema words (see above)
    schema: str = ""
    extra: str = ""

    def __post_init__(self) -> None:
        # Runs when a Type is built and when one is decoded (msgspec turns the ValueError
        # into a ValidationError, which the cache reads as a miss).
        _validate(self)


class _Member(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """What a property of an object and an argument of a tool both carry: the fields of a
    subclass follow these, so each encodes exactly as if it declared them itself."""

    name: str
    type: Type
    required: bool = True
    has_default: bool = False
    default: Any = None
    description: str = ""
    examples: tuple[Any, ...] = ()


class Field(_Member, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A property of an object type (TypedDict key, dataclass/Struct/NamedTuple field)."""


class Parameter(_Member, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """An argument of a tool.

    ``required`` is False for every parameter with a Python default; ``has_default`` is
    True only when that default is emitted (JSON-representable and inside the type's
    domain).
    """

    positional_only: bool = False
    keyword_only: bool = False


class Tool(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A tool: what a provider sees, plus what dispatch needs to find the function.

    ``kwargs`` is the value type of ``**kwargs`` (None when the function has none); it
    opens the arguments object. ``returns`` is the resolved return annotation (None when
    there is none). ``injected`` names the parameters the program supplies (``run(...,
    inject=...)``), which the model never sees. ``title`` and ``annotations`` (MCP hints such
    as ``readOnlyHint``) come from ``@toolcall.tool``. ``module`` and ``qualname`` locate the
    function; they are empty for a tool built by hand. ``search`` holds the search-only
    keywords of ``@toolcall.tool(search=...)``: tool search reads them, no format emits them
    (last, with a default, so entries written before it existed still decode).
    """

    name: str
    description: str = ""
    parameters: tuple[Parameter, ...] = ()
    kwargs: Type | None = None
    is_async: bool = False
    returns: Type | None = None
    injected: tuple[str, ...] = ()
    title: str = ""
    annotations: dict[str, bool] = msgspec.field(default_factory=dict)
    module: str = ""
    qualname: str = ""
    search: tuple[str, ...] = ()


class ModuleIR(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Every tool of one marked module, in definition order."""

    module: str
    tools: tuple[Tool, ...] = ()


# -- validation ----------------------------------------------------------------------------------
# What each kind may carry. To add a ``py`` value or an IR field, add it here: a field no kind
# lists is refused on every kind, so a new field cannot go unchecked.

_PY_BY_KIND: Final[dict[str, frozenset[str]]] = {
    "any": frozenset({""}),
    "null": frozenset({""}),
    "boolean": frozenset({""}),
    "integer": frozenset({""}),
    "number": frozenset({""}),
    "string": frozenset(
        {"", "bytes", "datetime", "date", "time", "timedelta", "uuid", "decimal", "path"}
    ),
    "enum": frozenset({"", "literal", "enum"}),
    "array": frozenset({"", "list", "tuple", "set", "frozenset"}),
    "object": frozenset({"", "dict", "dataclass", "namedtuple", "struct", "model"}),
    "union": frozenset({""}),
}
_PY_ON_ANY_KIND: Final = frozenset({"pydantic"})

_COMMON: Final = frozenset({"kind", "nullable", "py", "ref", "provider", "schema", "extra"})
_BOUNDS: Final = frozenset(
    {"minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of"}
)
_TEXT: Final = frozenset({"format", "pattern", "content_encoding", "min_length", "max_length"})
_FIELDS_BY_KIND: Final[dict[str, frozenset[str]]] = {
    "any": _COMMON,
    "null": _COMMON,
    "boolean": _COMMON,
    "integer": _COMMON | _BOUNDS,
    "number": _COMMON | _BOUNDS,
    # bounds: on the number a decimal or a string_integer spells
    "string": _COMMON | _TEXT | _BOUNDS | {"wire"},
    "enum": _COMMON | {"values"},
    "array": _COMMON
    | {"items", "prefix_items", "min_items", "max_items", "unique_items"}
    | {"min_length", "max_length"},
    "object": _COMMON | {"fields", "additional", "min_length", "max_length"},
    "union": _COMMON | {"variants"},
}
_WIRES: Final = frozenset({"", "string_integer"})

_DEFAULTS: Final = {f.name: f.default for f in msgspec.structs.fields(Type)}


def _forbidden(allowed: frozenset[str]) -> tuple[tuple[str, ...], tuple[Any, ...], Any]:
    """The fields a kind may not set, the defaults they must keep, and one C-level getter of
    them all: validating a node is then one tuple comparison (it runs for every decoded node
    of every cache entry)."""
    names = tuple(name for name in Type.__struct_fields__ if name not in allowed)
    get = operator.attrgetter(*names)
    return names, tuple(_DEFAULTS[name] for name in names), get


_FORBIDDEN: Final = {kind: _forbidden(allowed) for kind, allowed in _FIELDS_BY_KIND.items()}


def _validate(t: Type) -> None:
    forbidden = _FORBIDDEN.get(t.kind)
    if forbidden is None:
        msg = f"ir.Type: unknown kind {t.kind!r}; expected one of: {', '.join(_PY_BY_KIND)}"
        raise ValueError(msg)
    if t.py not in _PY_BY_KIND[t.kind] and t.py not in _PY_ON_ANY_KIND:
        known = ", ".join(repr(py) for py in sorted(_PY_BY_KIND[t.kind] | _PY_ON_ANY_KIND))
        msg = f"ir.Type: py={t.py!r} is not a py of kind {t.kind!r}; expected one of: {known}"
        raise ValueError(msg)
    names, defaults, get = forbidden
    if get(t) != defaults:
        for name, default in zip(names, defaults, strict=True):
            if getattr(t, name) != default:
                shown = repr(getattr(t, name))
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                msg = f"ir.Type: kind {t.kind!r} cannot have {name} (got {shown})"
                raise ValueError(msg)
    if t.wire not in _WIRES:
        msg = f"ir.Type: unknown wire {t.wire!r}; expected 'string_integer'"
        raise ValueError(msg)
