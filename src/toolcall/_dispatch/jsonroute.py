"""The typed JSON route: arguments given as JSON text, read in C into typed mirrors.

OpenAI-style providers send a call's arguments as JSON text. ``json.loads`` builds every
dict and list of it, and the generated fast path then walks them in Python. Here msgspec's
decoder reads the text straight into closed ``msgspec.Struct`` mirrors of the parameters:
JSON types, unknown keys (refused at every level), ``Literal`` values, string lengths,
integer bounds and array sizes are checked in C, TypedDict values become dicts in one C
call (``msgspec.to_builtins``), and the code generated after the decode only calls
constructors and restores what JSON does not carry (a date, an enum member) with the fast
path's own code for it.

Exact by construction: a mirror declares a check in msgspec's terms only where msgspec's
reading of JSON text is toolcall's rule; a value msgspec would read otherwise (a float for
an int, a ``Decimal``, a ``datetime``, an enum member) is declared as its plain JSON type
and restored by toolcall's code. Whatever the decoder refuses (malformed text, ``NaN``,
lone surrogates, a wrong type, an unknown key, an explicit null inside a TypedDict) and
whatever the code after it misses takes the route of ``run(json.loads(text))``, which finds
and phrases the error: refusing is always safe, only accepting has to be exact. Where the
decoder stopped inside an item of a list, everything before it checked, that item alone is
walked again (``TextRoute.refused_item``): a long list with a bad last item is not read
twice. A type no mirror states exactly (``Any``, unions, open dicts, tuples of fixed
length, pydantic's types) leaves the tool without this route.

Each node of a mirror is one of four things, by how its decoded value becomes the
restored one:

- ``exact``: it already is (a string, a number, a bool, a ``Literal`` value, a list of those);
- ``builtins``: ``to_builtins`` of it is (a TypedDict mirror, a list of them);
- ``code``: generated code reads its fields (a dataclass to call, a TypedDict with a date);
- ``json``: it is the JSON value itself, restored by the fast path's code for its type.

The mirrors and the decoder are built on the tool's first text call: a process whose calls
come as mappings never pays for them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

import msgspec

from toolcall import ir
from toolcall._dispatch.coerce import ClassLookup, accepts_null, constructor
from toolcall._dispatch.fastcalls import ABSENT
from toolcall._dispatch.fastpath import FIELD_FIELDS, Source, plain_list, set_fields

__all__ = ["TextRoute", "text_route"]

_EXACT: Final = "exact"
_BUILTINS: Final = "builtins"
_CODE: Final = "code"
_JSON: Final = "json"

_DEPTH: Final = 8
"""Types nested deeper than this get no mirror (the generated code nests one block a level)."""

_BOUNDS: Final = ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum")
_META_BOUNDS: Final = {"minimum": "ge", "maximum": "le", "exclusive_minimum": "gt"}
_META_BOUNDS_ALL: Final = {**_META_BOUNDS, "exclusive_maximum": "lt"}
_INT64: Final = 2**63
_EXACT_FLOAT: Final = 2**53
"""Integers up to this size are floats exactly, so a float bound compares as Python does."""

# The IR fields msgspec checks as toolcall does, per scalar kind (bounds: see _bounded)
_CHECKED: Final[dict[str, frozenset[str]]] = {
    "string": frozenset({"kind", "nullable", "min_length", "max_length"}),
    "integer": frozenset({"kind", "nullable", *_BOUNDS}),
    "number": frozenset({"kind", "nullable", *_BOUNDS}),
    "boolean": frozenset({"kind", "nullable"}),
    "null": frozenset({"kind", "nullable"}),
}
_LITERAL: Final = frozenset({"kind", "nullable", "py", "ref", "values"})
_LIST: Final = frozenset(
    {"kind", "nullable", "py", "items", "min_items", "max_items", "min_length", "max_length"}
)
_OBJECT: Final = frozenset({"kind", "nullable", "py", "ref", "fields"})
_OBJECT_PY: Final = frozenset({"", "dict", "dataclass", "namedtuple", "struct"})


class _Node:
    """How one IR type is mirrored: ``how`` (one of the four above) and the nodes of its
    items (an array) or fields (an object)."""

    __slots__ = ("how", "parts", "type")

    def __init__(self, how: str, t: ir.Type, parts: tuple[_Node, ...] = ()) -> None:
        self.how = how
        self.type = t
        self.parts = parts


def _bounded(t: ir.Type) -> bool:
    """Whether msgspec compares the value with every bound as Python does: an int with int
    bounds it can hold, a float with float bounds or ints a float holds exactly."""
    for name in _BOUNDS:
        bound = getattr(t, name)
        if bound is None:
            continue
        if t.kind == "integer" and not (type(bound) is int and -_INT64 <= bound < _INT64):
            return False
        if t.kind == "number" and not (
            type(bound) is float or (type(bound) is int and abs(bound) <= _EXACT_FLOAT)
        ):
            return False
    return True


def _literal(values: tuple[Any, ...]) -> bool:
    """Values msgspec's ``Literal`` reads exactly: all strings, or all integers it can hold
    (not bools: ``True`` is no ``1`` here)."""
    return bool(values) and (
        all(type(v) is str for v in values)
        or all(type(v) is int and -_INT64 <= v < _INT64 for v in values)
    )


def _json_shape(t: ir.Type) -> Any:
    """The msgspec type reading exactly the JSON values of ``t``'s shape, unconverted (an
    int stays an int, a string a string), or None when there is none."""
    shape: Any
    kind = t.kind
    if kind == "string":
        shape = str
    elif kind == "integer":
        shape = int
    elif kind == "number":
        shape = int | float
    elif kind == "boolean":
        shape = bool
    elif kind == "null":
        shape = type(None)
    elif kind == "enum" and t.values and all(type(v) is str for v in t.values):
        shape = str
    elif kind == "enum" and t.values and all(type(v) is int for v in t.values):
        shape = int
    elif kind == "array" and not t.prefix_items and t.items is not None:
        items = _json_shape(t.items)
        if items is None:
            return None
        shape = list[items]  # type: ignore[valid-type]
    else:
        return None
    if t.py == "pydantic" or t.provider:
        return None  # pydantic's or a provider's to read
    return shape | None if t.nullable else shape


def _mirror(t: ir.Type, resolver: ClassLookup, depth: int) -> _Node | None:
    if depth > _DEPTH or t.provider or t.py == "pydantic":
        return None
    kind, fields = t.kind, set_fields(t)
    if kind in _CHECKED and fields <= _CHECKED[kind] and _bounded(t):
        return _Node(_EXACT, t)
    if kind == "enum" and fields <= _LITERAL and t.py in ("", "literal") and _literal(t.values):
        return _Node(_EXACT, t)
    if kind == "array" and fields <= _LIST and t.py in ("", "list") and t.items is not None:
        item = _mirror(t.items, resolver, depth + 1)
        if item is not None and item.how != _JSON:
            return _Node(item.how, t, (item,))
    if (
        kind == "object"
        and fields <= _OBJECT
        and t.py in _OBJECT_PY
        and all(set_fields(f) <= FIELD_FIELDS for f in t.fields)
    ):
        parts = tuple(_mirror(f.type, resolver, depth + 1) for f in t.fields)
        if all(part is not None for part in parts):
            found = tuple(part for part in parts if part is not None)
            plain = constructor(t, resolver) is None
            built = all(part.how in (_EXACT, _BUILTINS) for part in found)
            return _Node(_BUILTINS if plain and built else _CODE, t, found)
    if _json_shape(t) is not None:
        return _Node(_JSON, t)
    return None


# -- the msgspec types, built on the first text call --------------------------------------------


def _annotation(node: _Node) -> Any:
    t = node.type
    kind = t.kind
    if node.how == _JSON:
        return _json_shape(t)
    base: Any
    if kind == "null":
        return type(None)
    if kind == "object":
        keys, required = [f.name for f in t.fields], [f.required for f in t.fields]
        base = _struct(node.parts, keys, required, absent=node.how == _CODE)
    elif kind == "enum":
        base = Literal[t.values]
    elif kind == "array":
        base = list[_annotation(node.parts[0])]  # type: ignore[misc]
        low = max((n for n in (t.min_items, t.min_length) if n is not None), default=None)
        high = min((n for n in (t.max_items, t.max_length) if n is not None), default=None)
        base = _meta(base, min_length=low, max_length=high)
    elif kind == "string":
        base = _meta(str, min_length=t.min_length, max_length=t.max_length)
    else:
        base = {"integer": int, "number": float, "boolean": bool}[kind]
        convert = float if kind == "number" else int
        bounds = {
            _META_BOUNDS_ALL[name]: convert(getattr(t, name))
            for name in _BOUNDS
            if getattr(t, name) is not None
        }
        base = _meta(base, **bounds)
    return base | None if t.nullable else base


def _meta(base: Any, **constraints: Any) -> Any:
    given = {key: value for key, value in constraints.items() if value is not None}
    return Annotated[base, msgspec.Meta(**given)] if given else base


def _struct(
    parts: tuple[_Node, ...], keys: list[str], required: list[bool], *, absent: bool = False
) -> Any:
    """A closed Struct of the fields ``f0``, ``f1``, ... read from the keys ``keys``.

    An optional field of a ``builtins`` Struct defaults to ``UNSET``, which ``to_builtins``
    leaves out, and takes no explicit null its type does not (the general path reads one as
    absent: the decode refuses it and the text route decides); one of a ``code`` Struct
    defaults to ``_ABSENT`` and takes null, which the code reads as absent.
    """
    fields: list[Any] = []
    for i, (part, needed) in enumerate(zip(parts, required, strict=True)):
        annotation = _annotation(part)
        if needed:
            fields.append((f"f{i}", annotation))
        elif absent:
            if not accepts_null(part.type):
                annotation = annotation | None
            fields.append((f"f{i}", annotation, ABSENT))
        else:
            fields.append((f"f{i}", annotation | msgspec.UnsetType, msgspec.UNSET))
    return msgspec.defstruct(
        "Mirror",
        fields,
        kw_only=True,
        forbid_unknown_fields=True,
        gc=False,
        rename={f"f{i}": key for i, key in enumerate(keys)},
    )


def _refuse(text: Any) -> Any:
    raise ValueError(text)


class _Decoder:
    """The tool's decoder, built on its first use (see ``Source.lazy``)."""

    __slots__ = ("arm", "node")

    def __init__(self, node: _Node) -> None:
        self.node = node
        self.arm: Callable[[Any], None] | None = None

    def armed(self, arm: Callable[[Any], None]) -> None:
        self.arm = arm

    def first(self, text: Any) -> Any:
        try:
            decode = msgspec.json.Decoder(_annotation(self.node)).decode
        except Exception:  # a mirror msgspec cannot build: every call takes the text route
            decode = _refuse
        if self.arm is not None:
            self.arm(decode)
        return decode(text)


# -- the generated code --------------------------------------------------------------------------


class TextRoute:
    """``tool``'s typed JSON route: ``write`` puts its branch into the fast path
    (``build_fastpath(..., text=route.write)``); ``refused_item`` reads where the decoder
    stopped in a text it refused.

    ``text(args, refused)`` is the route of the text the typed one does not take, answering
    as ``run(json.loads(text))``; ``refused`` is the exception that stopped the typed route,
    or None when its restoring code missed.
    """

    __slots__ = ("_declared", "_lists", "_node", "_parameters", "_text", "_tool")

    def __init__(self, tool: ir.Tool, node: _Node, text: Callable[[Any, Any], Any]) -> None:
        self._tool = tool
        self._node = node
        self._text = text
        self._declared = frozenset(p.name for p in tool.parameters)
        # (name, required, whether the mirror checks its value exactly as toolcall does)
        self._parameters = tuple(
            (p.name, p.required, part.how in (_EXACT, _BUILTINS))
            for p, part in zip(tool.parameters, node.parts, strict=True)
        )
        gaps = any(p.positional_only and not p.required for p in tool.parameters)
        self._lists = {
            p.name: i
            for i, (p, (_, _, checked)) in enumerate(
                zip(tool.parameters, self._parameters, strict=True)
            )
            if checked and not gaps and p.name.isascii() and plain_list(p.type)
        }

    def write(self, source: Source, aw: str) -> None:
        node, parameters = self._node, self._tool.parameters
        decoder = _Decoder(node)
        source.free.update(_decode=decoder.first, _text=self._text, _tb=msgspec.to_builtins)
        source.lazy["_decode"] = decoder.armed
        general, source.on_miss = source.on_miss, f"return {aw}_text(args)"
        indent = "    "
        source.add(indent, "if cls is str or cls is bytes:")
        inner = indent + "    "
        source.add(inner, "try:")
        body = inner + "    "
        source.add(body, "s = _decode(args)")
        _read_fields(source, node, "s", [f"v{i}" for i in range(len(parameters))], body, 1)
        source.write_gaps(parameters, body)
        source.add(inner, "except Exception as exc:", f"    return {aw}_text(args, exc)")
        source.write_call(parameters, source.free["fn"], aw, inner)
        source.on_miss = general

    def refused_item(self, refused: Any, text: Any, decoded: Any) -> tuple[int, int] | None:
        """``(parameter, item)`` when the decoder refused ``text`` inside that item of a plain
        list parameter and every value the general path checks before that item is one the
        mirrors checked as toolcall does; then the first error of ``text`` (decoded as
        ``decoded``) is that item's, if it has one, and nothing before it needs walking again.

        The decoder reads the text in order and stops at the first value a mirror refuses, so
        what it read before is checked, and the message says where it stopped. What makes
        the values before that item the very ones the general path sees: no unknown argument
        (the general path names those first), the list and each argument before it written
        once (the last of a repeated key wins, and its earlier copy may be the one read),
        ahead of the list (read before the decoder stopped), and mirrored exactly (``exact``
        or ``builtins``). Anything else, and the text is walked from its start.
        """
        if not self._lists or type(refused) is not msgspec.ValidationError or type(text) is not str:
            return None
        stopped = _STOPPED.search(str(refused))
        if stopped is None:
            return None
        name, item = stopped[1], int(stopped[2])
        index = self._lists.get(name)
        if index is None or type(decoded) is not dict or not self._declared.issuperset(decoded):
            return None
        # an ASCII name written with an escape (\u0069tems) would hide a second copy
        if "\\u00" in text or text.count(f'"{name}"') != 1:
            return None
        if index:
            keys = list(decoded)
            ahead = keys[: keys.index(name)] if name in decoded else ()
            for earlier, required, checked in self._parameters[:index]:
                if earlier not in decoded:
                    if required:
                        return None
                elif not (checked and earlier in ahead and text.count(f'"{earlier}"') == 1):
                    return None
        value = decoded.get(name)
        return (index, item) if type(value) is list and item < len(value) else None


_STOPPED: Final = re.compile(r" - at `\$\.(\w+)\[([0-9]+)\][^`]*`\Z")
"""Where msgspec's message says it stopped inside an item of an argument, last in the
message: ``... - at `$.lines[3].qty```."""


def text_route(
    tool: ir.Tool, resolver: ClassLookup, text: Callable[[Any, Any], Any]
) -> TextRoute | None:
    """``tool``'s typed JSON route; None when some parameter has no mirror."""
    arguments = ir.Type(
        kind="object",
        fields=tuple(
            ir.Field(name=p.name, type=p.type, required=p.required) for p in tool.parameters
        ),
    )
    parts = tuple(_mirror(p.type, resolver, 1) for p in tool.parameters)
    if any(part is None for part in parts):
        return None
    return TextRoute(tool, _Node(_CODE, arguments, tuple(p for p in parts if p is not None)), text)


def _read_fields(
    source: Source, node: _Node, x: str, values: list[str], indent: str, depth: int
) -> None:
    """Each field of the Struct in ``x`` into its local of ``values``, restored (``_ABSENT``
    when an optional one is not given, or null where its type has no None)."""
    for i, (field, part, value) in enumerate(
        zip(node.type.fields, node.parts, values, strict=True)
    ):
        source.add(indent, f"{value} = {x}.f{i}")
        if field.required:
            _restore_into(source, part, value, indent, depth)
            continue
        if part.how == _EXACT:
            if not accepts_null(field.type):  # null is absent; any other value is restored
                source.add(indent, f"if {value} is None:", f"    {value} = _ABSENT")
            continue
        source.add(indent, f"if {value} is not _ABSENT:")
        inner = indent + "    "
        if not accepts_null(field.type):
            source.add(inner, f"if {value} is None:", f"    {value} = _ABSENT", "else:")
            inner += "    "
        written = len(source.lines)
        _restore_into(source, part, value, inner, depth)
        if len(source.lines) == written:
            source.add(inner, "pass")


def _restore_into(source: Source, node: _Node, x: str, indent: str, depth: int) -> None:
    restored = _restore(source, node, x, indent, depth)
    if restored != x:
        source.add(indent, f"{x} = {restored}")


def _restore(source: Source, node: _Node, x: str, indent: str, depth: int) -> str:
    """Code turning the decoded value in local ``x`` into the restored one; returns the
    local holding it."""
    how, t = node.how, node.type
    if how == _EXACT:
        return x
    if how == _BUILTINS:
        y = source.local("b")
        source.add(indent, f"{y} = _tb({x})")
        return y
    if how == _JSON:
        return source.restore(t, x, indent, depth)
    if t.nullable:
        y = source.local("u")
        source.add(indent, f"if {x} is None:", f"    {y} = None", "else:")
        inner = indent + "    "
        source.add(inner, f"{y} = {_restore_value(source, node, x, inner, depth)}")
        return y
    return _restore_value(source, node, x, indent, depth)


def _restore_value(source: Source, node: _Node, x: str, indent: str, depth: int) -> str:
    t = node.type
    if t.kind == "array":
        y, item = source.local("a"), source.local("i")
        source.add(indent, f"{y} = []", f"for {item} in {x}:")
        restored = _restore(source, node.parts[0], item, indent + "    ", depth + 1)
        source.add(indent, f"    {y}.append({restored})")
        return y
    values = [source.local("e") for _ in t.fields]
    _read_fields(source, node, x, values, indent, depth + 1)
    return source.build_object(t, values, indent)
