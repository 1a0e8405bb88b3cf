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

FORMAT_VERSION: Final = 2
"""Bumped whenever the shape or meaning of the IR changes; part of every cache key."""

Kind = Literal[
    "any", "null", "boolean", "integer", "number", "string", "enum", "array", "object", "union"
]


class Type(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One JSON Schema node plus what dispatch needs to restore the Python value.

    ``kind`` is the JSON shape. ``py`` says which Python value the dispatcher builds from
    it, ``ref`` names the class involved as ``"module:qualname"``:

    ========  ==============================================================
    kind      ``py``
    ========  ==============================================================
    string    ``""`` (str), ``bytes``, ``datetime``, ``date``, ``time``,
              ``uuid``, ``decimal``, ``path``
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


class Field(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A property of an object type (TypedDict key, dataclass/Struct/NamedTuple field)."""

    name: str
    type: Type
    required: bool = True
    has_default: bool = False
    default: Any = None
    description: str = ""
    examples: tuple[Any, ...] = ()


class Parameter(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An argument of a tool.

    ``required`` is False for every parameter with a Python default; ``has_default`` is
    True only when that default is emitted (JSON-representable and inside the type's
    domain).
    """

    name: str
    type: Type
    required: bool = True
    has_default: bool = False
    default: Any = None
    description: str = ""
    examples: tuple[Any, ...] = ()
    positional_only: bool = False
    keyword_only: bool = False


class Tool(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A tool: what a provider sees, plus what dispatch needs to find the function.

    ``kwargs`` is the value type of ``**kwargs`` (None when the function has none); it
    opens the arguments object. ``returns`` is the resolved return annotation (None when
    there is none). ``injected`` names the parameters the program supplies (``run(...,
    inject=...)``), which the model never sees. ``title`` and ``annotations`` (MCP hints such
    as ``readOnlyHint``) come from ``@toolcall.tool``. ``module`` and ``qualname`` locate the
    function; they are empty for a tool built by hand.
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


class ModuleIR(msgspec.Struct, frozen=True, kw_only=True):
    """Every tool of one marked module, in definition order."""

    module: str
    tools: tuple[Tool, ...] = ()
