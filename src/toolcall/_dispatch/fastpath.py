"""Generated dispatch functions: a tool's happy path written out as Python source.

For a tool of plain scalars the whole per-call job is a handful of ``type(x) is ...``
checks and the call, so the function is written out as Python source and compiled once (as
``dataclasses`` and ``attrs`` do for ``__init__``): no loop over parameters, no coercer
calls. Given a resolver, nested values are written out too: a list of TypedDicts becomes one
loop of subscripts and type checks, a dataclass one constructor call, and only what is not
worth inlining (enums, unions, dates, patterns) calls its coercer (``coerce``).
That is the difference between walking a value through one closure per node and running
straight-line code, about half of a nested tool's dispatch.

The generated code knows only the happy path; at the first deviation it hands the untouched
arguments to ``fallback`` (the general path), which finds and phrases the exact error, so
both paths give the same result by construction. A deviation inside one argument (or one
item of a plain list) goes to a handler that walks that value alone (``Located``): what the
code checked before it is what the general path checks first. (A class whose constructor ran
before the deviation was found is constructed again by the general path; a tool with a type
provider, whose ``coerce`` is user code, gets no generated function at all.)

How a failing call ends (``raised`` logged, ``exited``) lives here too, so the two paths
cannot drift apart on it.
"""

from __future__ import annotations

import functools
import itertools
import keyword
import linecache
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import msgspec

from toolcall import ir
from toolcall._dispatch.coerce import (
    ClassLookup,
    Invalid,
    accepts_null,
    build_coercer,
    constructor,
    enum_table,
)
from toolcall._dispatch.fastcalls import (
    ABSENT,
    Argument,
    call_tree,
    class_positions,
    function_positions,
)
from toolcall._dispatch.result import Ok, tool_exited, tool_raised
from toolcall._scalars import FAST_NAMES, row_of

__all__ = [
    "FIELD_FIELDS",
    "MISS",
    "Located",
    "Source",
    "build_fastpath",
    "plain_list",
    "quick_items",
    "set_fields",
]


class Located(NamedTuple):
    """What a miss whose place is known asks for (see ``build_fastpath``): the error of that
    value alone, an ``Err`` (never false), or None for the fallback to decide."""

    argument: Callable[[Any, int], Any]
    item: Callable[[Any, int, Any], Any]


class _Miss:
    """The arguments left the happy path; only the general path can say what is wrong."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISS"


MISS: Final = _Miss()

_BRANCHING = 4
"""Optional parameters past this many are passed through a ``**kw`` dict rather than one
literal call per combination (2**4 calls at most)."""

_INLINED_DEPTH: Final = 8
"""Containers nested deeper than this are restored by their coercer."""
_SCALARS: Final = frozenset({"string", "integer", "number", "boolean", "any"})
_CONTAINERS: Final = {"tuple": "tuple", "set": "set", "frozenset": "frozenset"}

# The allow-list: the IR fields the generated code understands, per kind. A type with any
# other field set calls its coercer; a parameter or tool with any other field set gets no
# generated function at all. So a field added to the IR takes the general path until it is
# added here (with its code below): it can never be silently ignored.
_INLINED: Final[dict[str, frozenset[str]]] = {
    "string": frozenset({"kind", "nullable", "min_length", "max_length"}),
    "integer": frozenset(
        {"kind", "nullable", "minimum", "maximum", "exclusive_minimum", "exclusive_maximum"}
    ),
    "boolean": frozenset({"kind", "nullable"}),
    "null": frozenset({"kind", "nullable"}),
    "array": frozenset(
        {"kind", "nullable", "py", "items", "unique_items", "min_items", "max_items"}
        | {"min_length", "max_length"}
    ),
    "object": frozenset({"kind", "nullable", "py", "ref", "fields"}),
    "enum": frozenset({"kind", "nullable", "py", "ref", "values"}),
}
_INLINED["number"] = _INLINED["integer"]
_ARRAY_PY: Final = frozenset({"", "list", *_CONTAINERS})
_OBJECT_PY: Final = frozenset({"", "dict", "dataclass", "namedtuple", "struct"})
_ENUM_PY: Final = frozenset({"", "literal", "enum"})
FIELD_FIELDS: Final = frozenset({"name", "type", "required", "has_default", "default"})
_PARAMETER_FIELDS: Final = FIELD_FIELDS | {"positional_only", "keyword_only"}
_TOOL_FIELDS: Final = frozenset({"name", "parameters", "kwargs", "is_async", "module"})
# nothing to dispatch: what the model reads, and where the function came from
_IGNORED: Final = frozenset(
    {"description", "examples", "qualname", "returns", "title", "annotations"}
)
_BOUNDS: Final = (
    ("minimum", ">="),
    ("maximum", "<="),
    ("exclusive_minimum", ">"),
    ("exclusive_maximum", "<"),
)


def set_fields(node: msgspec.Struct) -> set[str]:
    """The fields of an IR node that differ from their defaults (so must be acted on)."""
    defaults = _DEFAULTS.get(type(node))
    if defaults is None:
        defaults = _DEFAULTS[type(node)] = {
            f.name: f.default for f in msgspec.structs.fields(type(node))
        }
    found = {name for name in node.__struct_fields__ if getattr(node, name) != defaults[name]}
    return found - _IGNORED


_DEFAULTS: dict[type, dict[str, Any]] = {}


def plain_list(t: ir.Type) -> bool:
    """A list with no rule of its own: its coercer checks that the value is a list, then each
    item in order, and its error is the first bad item's, at that item's index."""
    return set_fields(t) - {"py"} == {"kind", "items"} and t.py in ("", "list")


def _handled(tool: ir.Tool) -> bool:
    """Whether the generated code knows every tool and parameter field ``tool`` sets."""
    return set_fields(tool) <= _TOOL_FIELDS and all(
        set_fields(p) <= _PARAMETER_FIELDS for p in tool.parameters
    )


def _is_plain(t: ir.Type) -> bool:
    return t.kind in _SCALARS and t == ir.Type(kind=t.kind, nullable=t.nullable)


def _nameable(parameter: ir.Parameter) -> bool:
    """A keyword in generated source must be spelled exactly as given: ASCII (a non-ASCII
    identifier would be NFKC-normalised by the compiler) and not a reserved word."""
    name = parameter.name
    return parameter.positional_only or (
        name.isascii() and name.isidentifier() and not keyword.iskeyword(name)
    )


def _has_provider(t: ir.Type) -> bool:
    children = (*(f.type for f in t.fields), *t.prefix_items, *t.variants, t.items, t.additional)
    return bool(t.provider) or any(c is not None and _has_provider(c) for c in children)


class _Unresolvable:
    """The resolver of a tool of plain scalars, which names no class and no provider."""

    def cls(self, ref: str) -> type:
        raise LookupError(ref)

    def provider(self, ref: str) -> Any:
        raise LookupError(ref)


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
    resolver: ClassLookup | None = None,
    text: Callable[[Source, str], None] | None = None,
    located: Located | None = None,
) -> Callable[[Any], Any] | None:
    """The generated function for ``tool``, or None when it gets none.

    Without a resolver only a tool whose parameters are all plain scalars gets one; with
    one, so does any tool without ``**kwargs`` and without type providers, its nested
    values restored through ``resolver``'s classes.

    The function takes the arguments and returns ``Ok`` / ``Err`` for calls on the happy
    path, and ``fallback(args)`` otherwise; without a fallback it returns :data:`MISS`
    instead (which is how the tests compare it with the general path). For an async tool
    it is a coroutine function that awaits the tool (and the fallback).

    ``text`` writes the branch of arguments given as JSON text (see
    :mod:`toolcall._dispatch.jsonroute`), given the source and ``"await "`` or ``""``; it
    is written where the arguments are not a dict, their type in the local ``cls``.

    ``located``: where the code misses inside an argument, it answers
    ``located.argument(args, index)``, or, inside an item of a plain list argument,
    ``located.item(args, index, item)``, and ``fallback(args)`` only when that is None:
    everything before that value was read and checked as the general path checks it (no
    unknown key, no missing one, the arguments before it valid), so only that value needs
    walking again. Not for a tool with positional-only optionals, whose gaps are checked
    after the values.
    """
    parameters = tool.parameters
    if tool.kwargs is not None or not _handled(tool) or not all(_nameable(p) for p in parameters):
        return None
    if resolver is None:
        if not all(_is_plain(p.type) for p in parameters):
            return None
    elif any(_has_provider(p.type) for p in parameters):
        return None
    optional = [i for i, p in enumerate(parameters) if not p.required]
    if any(parameters[i].positional_only for i in optional[_BRANCHING:]):
        return None
    aw = "await " if is_async else ""
    source = Source(f"return {aw}_fallback(args)", resolver or _Unresolvable())
    if located is not None and not any(p.positional_only and not p.required for p in parameters):
        source.free.update(_at=located.argument, _at_item=located.item)
        source.located = aw
    source.free.update(
        fn=fn,
        _fallback=fallback or (_miss_async if is_async else _miss_sync),
        _ABSENT=ABSENT,
        _raised=functools.partial(tool_raised, tool.name),
        _exited=tool_exited,
        _Ok=Ok,
    )
    # The type is read once: ``type()`` is a call, and the text branch tests it again
    source.add("", "cls = type(args)", "if cls is not dict:")
    if text is not None:
        text(source, aw)
    source.miss("    ")
    # Reading and restoring in one guarded block: whatever raises in it (a missing key, a
    # coercer's Invalid, a constructor, a key whose __eq__ raises) is a deviation like any
    # other. The tool is called after the block, so nothing the tool raises is mistaken
    # for one.
    source.add("", "try:")
    source.write_arguments(parameters)
    source.write_gaps(parameters, "    ")
    source.add("", "except Exception:", "    pass", "else:")
    source.write_call(parameters, fn, aw, "    ")
    source.miss("")
    header = f"{'async ' if is_async else ''}def fast(args):"
    return source.compile(header, f"fast_{tool.name}")


def quick_items(
    t: ir.Type, resolver: ClassLookup, coerce: Callable[[Any], Any]
) -> tuple[Callable[[Any], Any], Callable[[Any], Any] | None]:
    """``coerce`` (the coercer of the list type ``t``) with each item first restored by
    generated code, its coercer called only for an item that code misses, and that item
    coercer; ``(coerce, None)`` when ``t`` is not a plain list of items worth it.

    The general path walks a value node by node, five times the generated code's cost, and
    it is where a call with an error ends: the items before the bad one are then restored at
    the generated code's cost, and the bad one's error is its coercer's, at its index, as
    the list's coercer would report it (a plain list has no rule to check before or after
    its items, and the generated code accepts only what the coercer accepts, as it restores
    it).
    """
    items = t.items
    if (
        not plain_list(t)
        or items is None
        or items.kind not in ("object", "array")
        or _has_provider(items)
    ):
        return coerce, None
    source = Source("return _MISS", resolver)
    if not source._inlined(items):
        return coerce, None
    source.free.update(_MISS=MISS, _ABSENT=ABSENT)
    source.add("", "try:")
    restored = source.restore(items, "x", "    ", 1)
    source.add("", "except Exception:", "    return _MISS", f"return {restored}")
    fast = source.compile("def fast(x):", "restore_item")
    item = build_coercer(items, resolver)

    def quick(value: Any) -> Any:
        if type(value) is not list:
            return coerce(value)
        out = []
        for index, element in enumerate(value):
            found = fast(element)
            if found is MISS:
                try:
                    found = item(element)
                except Invalid as error:
                    error.path = (index, *error.path)
                    raise
            out.append(found)
        return out

    return quick, item


_FILES = itertools.count(1)


class Source:
    """The generated function's lines and the values its code refers to.

    The values become parameters of a factory that returns the function, so that the code
    reads them as closure cells (cheaper than globals). A value is restored from the local
    it was read into and ends up in a local named by the method that wrote its code. Lines
    are relative to the function's body. ``on_miss`` is the statement written where the
    arguments leave the happy path.

    ``lazy`` names free values built on first use: the factory also returns, per name, a
    function rebinding that cell, handed to the callback given here (so the value built
    replaces the builder for every later call, at no cost to them).
    """

    def __init__(self, miss: str, resolver: ClassLookup) -> None:
        self.lines: list[str] = []
        self.free: dict[str, Any] = {}
        self.on_miss = miss
        self.resolver = resolver
        self.lazy: dict[str, Callable[[Callable[[Any], None]], None]] = {}
        self.located: str | None = None  # "await " or "" when misses are located
        self._argument: int | None = None  # the argument being restored, when located
        self._count = 0

    def add(self, indent: str, *lines: str) -> None:
        self.lines += [indent + line for line in lines]

    def miss(self, indent: str) -> None:
        self.lines.append(indent + self.on_miss)

    def local(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def constant(self, value: Any) -> str:
        name = self.local("_k")
        self.free[name] = value
        return name

    def compile(self, header: str, name: str) -> Callable[[Any], Any]:
        body = "\n".join(self.lines)
        self.free.update({k: v for k, v in FAST_NAMES.items() if k in body})
        arms = [
            line
            for name in self.lazy
            for line in (
                f"    def arm_{name}(value):",
                f"        nonlocal {name}",
                f"        {name} = value",
            )
        ]
        returned = ", ".join(["fast", *(f"arm_{name}" for name in self.lazy)])
        source = "\n".join(
            [
                f"def make({', '.join(self.free)}):",
                f"    {header}",
                *(f"        {line}" for line in self.lines),
                *arms,
                f"    return {returned}",
            ]
        )
        # Registered in linecache (as dataclasses and attrs do), so a traceback through the
        # generated function shows its line; one file name per function, never reused.
        filename = f"<toolcall {name} {next(_FILES)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), namespace)
        made = namespace["make"](**self.free)
        fast: Callable[[Any], Any] = made[0] if self.lazy else made
        for armed, arm in zip(self.lazy.values(), made[1:] if self.lazy else (), strict=True):
            armed(arm)
        fast.__qualname__ = fast.__name__ = name
        return fast

    def write_gaps(self, parameters: tuple[ir.Parameter, ...], indent: str) -> None:
        """After the arguments are read into ``v{i}``: a later positional-only argument
        given without an earlier one is a deviation (``argument_gap``), and the optional
        arguments past ``_BRANCHING`` go into the ``kw`` dict."""
        optional = [i for i, p in enumerate(parameters) if not p.required]
        positional_optional = [i for i in optional if parameters[i].positional_only]
        for earlier, later in itertools.pairwise(positional_optional):
            self.add(indent, f"if v{earlier} is _ABSENT and v{later} is not _ABSENT:")
            self.miss(indent + "    ")
        pooled = optional[_BRANCHING:]
        if pooled:
            self.add(indent, "kw = {}")
            for i in pooled:
                key = parameters[i].name
                self.add(indent, f"if v{i} is not _ABSENT:", f"    kw[{key!r}] = v{i}")

    def write_call(
        self, parameters: tuple[ir.Parameter, ...], fn: Callable[..., Any], aw: str, indent: str
    ) -> None:
        """The tool's call on ``v{i}`` and how it ends: ``Ok``, ``raised`` or ``exited``."""
        optional = [i for i, p in enumerate(parameters) if not p.required]
        positions = function_positions([p.name for p in parameters], fn)
        arguments = [
            Argument(
                p.name, f"v{i}", p.required, positions[i] and not p.keyword_only, p.positional_only
            )
            for i, p in enumerate(parameters)
        ]
        pool = "kw" if optional[_BRANCHING:] else None
        deeper = indent + "    "
        self.add(indent, "try:")
        self.lines += call_tree(f"value = {aw}fn", arguments, optional[:_BRANCHING], pool, deeper)
        self.add(indent, "except Exception as exc:", "    return _raised(exc)")
        self.add(indent, "except SystemExit as exc:", "    return _exited(exc)")
        self.add(indent, "return _Ok(value)")

    def write_arguments(self, parameters: tuple[ir.Parameter, ...]) -> None:
        """Read every argument into ``v{i}`` (``_ABSENT`` when not passed), check that no key
        is left over, then restore each one in declaration order."""
        indent = "    "
        required = [i for i, p in enumerate(parameters) if p.required]
        self.add(indent, *(f"v{i} = args[{parameters[i].name!r}]" for i in required))
        optional = [i for i, p in enumerate(parameters) if not p.required]
        if optional:
            # every argument given (a model's usual call): read without testing each key
            self.add(indent, f"if len(args) == {len(parameters)}:")
            self.add(indent, *(f"    v{i} = args[{parameters[i].name!r}]" for i in optional))
            self.add(indent, "else:", f"    n = {len(required)}")
            for i in optional:
                key = repr(parameters[i].name)
                self.add(indent, f"    if {key} in args:", "        n += 1")
                self.add(
                    indent, f"        v{i} = args[{key}]", "    else:", f"        v{i} = _ABSENT"
                )
            self.add(indent, "    if len(args) != n:")
            self.miss(indent + "        ")
        else:
            self.add(indent, f"if len(args) != {len(required)}:")
            self.miss(indent + "    ")
        general = self.on_miss
        for i, p in enumerate(parameters):
            if self.located is not None:
                self._argument = i
                self.on_miss = f"return _at(args, {i}) or {self.located}_fallback(args)"
            if p.required:
                self.restore_into(p.type, f"v{i}", indent, 0)
            elif p.type.kind != "any":  # any value, None included, is passed as it is
                self.add(indent, f"if v{i} is not _ABSENT:")
                inner = indent + "    "
                if not accepts_null(p.type):
                    # an explicit null for an optional value whose type has no None: not passed
                    self.add(inner, f"if v{i} is None:", f"    v{i} = _ABSENT", "else:")
                    inner += "    "
                self.restore_into(p.type, f"v{i}", inner, 0)
        self.on_miss, self._argument = general, None

    def restore_into(self, t: ir.Type, x: str, indent: str, depth: int) -> None:
        restored = self.restore(t, x, indent, depth)
        if restored != x:
            self.add(indent, f"{x} = {restored}")

    def restore(self, t: ir.Type, x: str, indent: str, depth: int) -> str:
        """Code that checks the value in local ``x``; returns the local holding the result.

        ``depth`` counts the containers around it: past ``_INLINED_DEPTH`` the coercer is
        called instead (Python compiles at most 20 nested blocks).
        """
        if t.kind == "any":
            return x
        if depth > _INLINED_DEPTH or not self._inlined(t):
            y = self.local("c")
            self.add(indent, f"{y} = {self.constant(build_coercer(t, self.resolver))}({x})")
            return y
        if not t.nullable or t.kind == "null":
            return self._restore_value(t, x, indent, depth)
        y = self.local("u")
        self.add(indent, f"if {x} is None:", f"    {y} = None", "else:")
        self.add(indent + "    ", f"{y} = {self._restore_value(t, x, indent + '    ', depth)}")
        return y

    def _inlined(self, t: ir.Type) -> bool:
        """Whether ``restore`` writes the code for ``t`` out rather than call its coercer."""
        if t.kind == "string" and (t.py or t.wire):
            # a scalar row of its own (a date, a UUID): inlined when its row has a check and
            # the type sets nothing beyond the row's own keywords
            row = row_of(t.kind, t.py, t.wire)
            keywords = row.keywords if row is not None and row.fast is not None else None
            return keywords is not None and (
                set_fields(t) <= {"kind", "nullable", "py", "wire", *keywords}
                and all(getattr(t, key) == value for key, value in keywords.items())
            )
        allowed = _INLINED.get(t.kind)
        if allowed is None or not set_fields(t) <= allowed:
            return False
        if t.kind == "array":
            # a list whose items must be unique is checked by its coercer
            return t.py in _ARRAY_PY and (not t.unique_items or t.py in ("set", "frozenset"))
        if t.kind == "object":
            return t.py in _OBJECT_PY and all(set_fields(f) <= FIELD_FIELDS for f in t.fields)
        if t.kind == "enum":
            return t.py in _ENUM_PY  # a pydantic type ("pydantic") is pydantic's to validate
        return True

    def _restore_value(self, t: ir.Type, x: str, indent: str, depth: int) -> str:
        kind = t.kind
        if kind == "array":
            return self._array(t, x, indent, depth + 1)
        if kind == "object":
            return self._object(t, x, indent, depth + 1)
        if kind == "enum":
            # one lookup by exact type and value; whatever else the coercer would try
            # (an integral float for an integer value) is a deviation
            y = self.local("n")
            self.add(indent, f"{y} = {self.constant(enum_table(t, self.resolver))}[type({x}), {x}]")
            return y
        row = row_of(kind, t.py, t.wire)
        fast = row.fast if row is not None else None
        assert fast is not None  # every inlined scalar has a check
        condition, value = fast
        self._require(condition.format(x=x), indent)
        if value is not None:
            y = self.local("f")
            self.add(indent, f"{y} = {value.format(x=x)}")
            x = y
        if kind == "string":
            self._sized(x, t.min_length, t.max_length, indent)
        elif kind in ("integer", "number"):
            self._bounded(t, x, indent)
        return x

    def _require(self, condition: str, indent: str) -> None:
        self.add(indent, f"if not ({condition}):")
        self.miss(indent + "    ")

    def _sized(self, x: str, low: int | None, high: int | None, indent: str) -> None:
        if low is not None:
            self._require(f"len({x}) >= {self.constant(low)}", indent)
        if high is not None:
            self._require(f"len({x}) <= {self.constant(high)}", indent)

    def _bounded(self, t: ir.Type, x: str, indent: str) -> None:
        for attribute, operator in _BOUNDS:
            bound = getattr(t, attribute)
            if bound is not None:
                self._require(f"{x} {operator} {self.constant(bound)}", indent)

    def _array(self, t: ir.Type, x: str, indent: str, depth: int) -> str:
        self._require(f"type({x}) is list", indent)
        lows = [n for n in (t.min_items, t.min_length) if n is not None]
        highs = [n for n in (t.max_items, t.max_length) if n is not None]
        self._sized(x, max(lows, default=None), min(highs, default=None), indent)
        y = self.local("a")
        if t.items is None or t.items.kind == "any":
            self.add(indent, f"{y} = list({x})")
        else:
            item = self.local("i")
            self.add(indent, f"{y} = []", f"for {item} in {x}:")
            argument, whole = self._argument, self.on_miss
            if argument is not None and depth == 1 and plain_list(t):
                self.on_miss = (
                    f"return _at_item(args, {argument}, {item}) or {self.located}_fallback(args)"
                )
            restored = self.restore(t.items, item, indent + "    ", depth)
            self.on_miss = whole
            self.add(indent, f"    {y}.append({restored})")
        container = _CONTAINERS.get(t.py)
        if container is not None:
            self.add(indent, f"{y} = {container}({y})")  # unhashable items raise: a deviation
            if t.unique_items:
                # a collapse may be a repeated item (duplicate_items): the general path decides
                self._require(f"len({y}) == len({x})", indent)
        return y

    def _object(self, t: ir.Type, x: str, indent: str, depth: int) -> str:
        """Each field into a local (``_ABSENT`` when an optional one is not given), then the
        dict built as one literal as far as the fields are required, or the class called."""
        self._require(f"type({x}) is dict", indent)
        required = sum(field.required for field in t.fields)
        seen = self.local("m") if required < len(t.fields) else str(required)
        if required < len(t.fields):
            self.add(indent, f"{seen} = {required}")
        values: list[str] = []
        for field in t.fields:
            key, value = repr(field.name), self.local("e")
            values.append(value)
            if field.required:
                self.add(indent, f"{value} = {x}[{key}]")
                self.restore_into(field.type, value, indent, depth)
                continue
            self.add(indent, f"if {key} in {x}:", f"    {seen} += 1", f"    {value} = {x}[{key}]")
            inner = indent + "    "
            if not accepts_null(field.type):
                self.add(inner, f"if {value} is None:", f"    {value} = _ABSENT", "else:")
                inner += "    "
            written = len(self.lines)
            self.restore_into(field.type, value, inner, depth)
            if len(self.lines) == written:
                self.add(inner, "pass")
            self.add(indent, "else:", f"    {value} = _ABSENT")
        self._require(f"len({x}) == {seen}", indent)
        return self.build_object(t, values, indent)

    def build_object(self, t: ir.Type, values: list[str], indent: str) -> str:
        """The object of the restored fields in ``values`` (``_ABSENT``: not given): the
        dict built as one literal as far as the fields are required, or the class called."""
        make = constructor(t, self.resolver)
        y = self.local("k" if make is not None else "o")
        if make is None:
            lead = 0
            while lead < len(t.fields) and t.fields[lead].required:
                lead += 1
            pairs = ", ".join(f"{t.fields[i].name!r}: {values[i]}" for i in range(lead))
            self.add(indent, f"{y} = {{{pairs}}}")
            for field, value in zip(t.fields[lead:], values[lead:], strict=True):
                store = f"{y}[{field.name!r}] = {value}"
                if field.required:
                    self.add(indent, store)
                else:
                    self.add(indent, f"if {value} is not _ABSENT:", f"    {store}")
            return y
        names = [field.name for field in t.fields]
        positions = class_positions(names, make)
        arguments = [
            Argument(field.name, value, field.required, positions[i])
            for i, (field, value) in enumerate(zip(t.fields, values, strict=True))
        ]
        optional = [i for i, field in enumerate(t.fields) if not field.required]
        branching, pooled = optional[:_BRANCHING], optional[_BRANCHING:]
        pool = None
        if pooled:
            pool = self.local("w")
            self.add(indent, f"{pool} = {{}}")
            for i in pooled:
                self.add(
                    indent,
                    f"if {values[i]} is not _ABSENT:",
                    f"    {pool}[{names[i]!r}] = {values[i]}",
                )
        self.lines += call_tree(f"{y} = {self.constant(make)}", arguments, branching, pool, indent)
        return y
