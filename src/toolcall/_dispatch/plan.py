"""A tool's dispatch plan: model arguments in, ``Ok`` / ``Err`` out.

Built once per tool from its IR, the live function and a resolver. The general path checks
the arguments in the SPEC's order (a mapping, string keys, no unknown keys, then each
parameter in declaration order), restores every value through the coercers of
:mod:`toolcall._dispatch.coerce` and calls the function, positional-only parameters positionally
and the rest by keyword, omitted optionals not passed at all so that the function's own
defaults apply. A tool first goes through its generated fast path
(:mod:`toolcall._dispatch.fastpath`), which falls back to the general path at the first deviation;
arguments given as JSON text go through its typed route (:mod:`toolcall._dispatch.jsonroute`),
and what that does not take is decoded as ``json.loads`` decodes it (``_Binder.decode``) for
the general path.

A plan is prepared (coercers built, fast path generated and compiled) on its first call,
not when it is built: a process loads every tool of a module at import but may call few of
them, and preparing twenty tools costs more than loading the module's cache entry.

Two things the IR cannot say come from the live function's signature: the parameters the
program injects (``ir.Tool.injected``, supplied by ``run(..., inject=...)``), and defaults
written as pydantic ``Field(...)``, whose value (or ``default_factory()``) is passed
explicitly, so the function never receives the ``FieldInfo`` itself. Such tools take the
general path: the generated fast path lets the function's own defaults apply.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

import msgspec

from toolcall import ir
from toolcall._dispatch.annotated import (
    annotated_default,
    live_hints,
    pydantic_checked,
    pydantic_coercer,
)
from toolcall._dispatch.coerce import (
    ClassLookup,
    Invalid,
    accepts_null,
    build_coercer,
    node_at,
)
from toolcall._dispatch.fastpath import Located, build_fastpath, quick_items
from toolcall._dispatch.jsonroute import text_route
from toolcall._dispatch.models import ModelInvalid, field_info_default
from toolcall._dispatch.result import (
    Err,
    Ok,
    ToolError,
    format_path,
    one_line,
    tool_exited,
    tool_raised,
)
from toolcall._shared.kinds import is_field_info
from toolcall._shared.signatures import signature

__all__ = ["Result", "ToolPlan", "build_plan", "needs_general_path"]

Result = Ok[Any] | Err

_ABSENT: Any = object()
_EMPTY: Any = inspect.Parameter.empty
_TEXT = (str, bytes, bytearray)  # a tuple: ``str | bytes`` in an expression is built each call
_untyped = msgspec.json.Decoder().decode
_SHALLOW = 256
"""Text nested this deep is far from any interpreter's recursion limit, for msgspec and for
``json.loads`` alike (each stops at its own depth, a few frames apart)."""


class ToolPlan(msgspec.Struct, eq=False):
    """How to dispatch one tool.

    ``run(args)`` validates, restores and calls, and never raises for bad input; an async
    tool answers ``async_tool`` without being called. ``arun(args)`` awaits async tools and
    calls plain ones inline. Both are attributes holding the prepared function itself (the
    generated fast path when there is one) rather than methods, so a call pays no extra
    frame for the indirection. Until the first call prepares the plan they hold functions
    that prepare it first; ``prepared`` says whether that has happened, so that a caller
    may keep the prepared functions themselves. (A Struct's fields read as fast as slots;
    ``eq=False`` keeps plans compared and hashed by identity.)
    """

    name: str
    is_async: bool
    run: Callable[..., Result]
    arun: Callable[..., Coroutine[Any, Any, Result]]
    injects: bool = False
    prepared: bool = False

    def __repr__(self) -> str:
        return f"<ToolPlan {self.name}{' (async)' if self.is_async else ''}>"

    def run_with(self, args: Any, inject: Mapping[str, Any] | None) -> Result:
        """``run`` with injected values (names the tool does not inject are ignored, so one
        mapping can serve every tool of a box); ``TypeError`` when a needed one is missing."""
        return self.run(args, inject) if self.injects else self.run(args)

    async def arun_with(self, args: Any, inject: Mapping[str, Any] | None) -> Result:
        """``arun`` with injected values; see :meth:`run_with`."""
        return await (self.arun(args, inject) if self.injects else self.arun(args))

    async def arun_within(
        self, args: Any, inject: Mapping[str, Any] | None, timeout: float | None
    ) -> Result:
        """:meth:`arun_with`, answering ``timeout`` (an ``Err``) after ``timeout`` seconds.

        An ``async def`` tool is cancelled. A plain tool runs in a worker thread (the default
        executor's), since a function running on the event loop cannot be interrupted; when
        the time is up the caller gets its answer, but Python cannot stop the thread, which
        runs the function to its end and whose result is dropped.
        """
        if timeout is None:
            return await self.arun_with(args, inject)
        import asyncio  # only for timed calls: a process that never times one does not pay

        try:
            if self.is_async:
                async with asyncio.timeout(timeout):
                    return await self.arun_with(args, inject)
            return await asyncio.wait_for(asyncio.to_thread(self.run_with, args, inject), timeout)
        except TimeoutError:
            # the tool's own TimeoutError is a raised error inside arun_with: this is the limit
            return Err(ToolError.timeout(timeout))


class _Parameter:
    __slots__ = (
        "coerce",
        "fill",
        "ir",
        "item",
        "name",
        "null_is_absent",
        "positional_only",
        "required",
    )

    def __init__(
        self,
        parameter: ir.Parameter,
        resolver: ClassLookup,
        fill: Callable[[], Any] | None,
        hint: Any = None,
        generated: bool = True,
    ) -> None:
        self.ir = parameter
        self.name = parameter.name
        checked = hint is not None and pydantic_checked(hint)
        # a plain list's item coercer, built when generated code restores its items or when
        # an item's error is asked for (``_Binder.item_error``)
        self.item: Callable[[Any], Any] | None = None
        if checked:
            self.coerce = pydantic_coercer(hint, parameter.type)
        else:
            # ``generated``: a list's items may be restored by generated code first
            self.coerce = build_coercer(parameter.type, resolver)
            if generated:
                self.coerce, self.item = quick_items(parameter.type, resolver, self.coerce)
        self.required = parameter.required
        self.positional_only = parameter.positional_only
        # explicit-null rule: None for an optional value whose type has no None means "absent"
        self.null_is_absent = not parameter.required and not accepts_null(parameter.type)
        self.fill = fill  # the value of an omitted parameter whose default is a Field(...)


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's parameter defaults, by name (``inspect.Parameter.empty`` for none);
    ``*args`` and ``**kwargs`` are not parameters a default can fill."""
    try:
        parameters = signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {
        p.name: p.default for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def _hidden(tool: ir.Tool, defaults: dict[str, Any]) -> list[str]:
    """Parameters derivation left out of the schema (``SkipJsonSchema`` with a default)."""
    known = {p.name for p in tool.parameters} | set(tool.injected)
    return [name for name in defaults if name not in known]


def _fill(default: Any) -> Callable[[], Any] | None:
    return field_info_default(default) if is_field_info(default) else None


def _filler(p: ir.Parameter, default: Any, hints: dict[str, Any]) -> Callable[[], Any] | None:
    """What an omitted parameter gets: a ``Field(...)`` default's value, or the default an
    ``Annotated[T, Field(default=...)]`` gives a parameter the function has no default for."""
    if default is _EMPTY and not p.required and p.name in hints:
        return annotated_default(hints[p.name])
    return _fill(default)


def needs_general_path(tool: ir.Tool, fn: Callable[..., Any]) -> bool:
    """Injected parameters or ``Field(...)`` defaults, in the signature or in an annotation
    (an optional parameter without a Python default): the fast path cannot bind them."""
    defaults = _defaults(fn)
    return (
        bool(tool.injected)
        or any(is_field_info(d) for d in defaults.values())
        or any(not p.required and defaults.get(p.name, _EMPTY) is _EMPTY for p in tool.parameters)
        or any(defaults[name] is _EMPTY for name in _hidden(tool, defaults))
    )


class _Binder:
    """Turns model arguments into the call's positional and keyword arguments."""

    __slots__ = (
        "declared",
        "extra",
        "hidden",
        "injected",
        "names",
        "parameters",
        "pydantic",
        "resolver",
        "tool",
    )

    def __init__(
        self, tool: ir.Tool, resolver: ClassLookup, fn: Callable[..., Any], generated: bool
    ) -> None:
        defaults = _defaults(fn)
        hints = live_hints(fn)
        self.tool = tool.name
        self.resolver = resolver
        self.parameters = tuple(
            _Parameter(
                p,
                resolver,
                _filler(p, defaults.get(p.name, _EMPTY), hints),
                hints.get(p.name),
                generated,
            )
            for p in tool.parameters
        )
        # what a parameter left out of the schema gets: a Field default's value (a plain
        # default applies by itself)
        self.hidden = tuple(
            (name, fill)
            for name in _hidden(tool, defaults)
            if (
                fill := _fill(defaults[name])
                or (annotated_default(hints[name]) if name in hints else None)
            )
            is not None
        )
        # a parameter pydantic validates: the generated fast path would skip its validators
        self.pydantic = any(
            pydantic_checked(hints[p.name]) for p in tool.parameters if p.name in hints
        )
        self.names = tuple(p.name for p in tool.parameters)
        self.declared = frozenset(self.names)
        self.extra = build_coercer(tool.kwargs, resolver) if tool.kwargs is not None else None
        # (name, whether the function has a default, the value of a Field(...) default)
        self.injected = tuple(
            (
                name,
                defaults.get(name, inspect.Parameter.empty) is not inspect.Parameter.empty,
                _fill(defaults.get(name)),
            )
            for name in tool.injected
        )

    @staticmethod
    def decode(text: str | bytes | bytearray) -> Any:
        """Arguments given as JSON text, what OpenAI-style providers send, decoded as
        ``json.loads`` decodes them, so the answer is exactly that of ``run(json.loads(text))``
        (SPEC 5); text that is not JSON is an ``Err`` (``invalid_arguments``) saying why.

        msgspec reads a ``str`` first, at a sixth of ``json.loads``'s cost (most text that
        comes here holds an error, and is decoded again after the typed route refused it).
        What msgspec accepts it reads as ``json.loads`` does: the same grammar, integers of
        any size, correctly rounded floats, the last of a repeated key at its first place;
        what it reads otherwise it refuses (``NaN``, a float past the largest, a lone
        surrogate, invalid UTF-8), and that text goes to ``json.loads``. Nesting is the one
        limit they set differently, so only text that cannot nest deeper than
        ``_SHALLOW`` levels is read by msgspec.
        """
        if type(text) is str and (
            len(text) <= _SHALLOW or text.count("[") + text.count("{") <= _SHALLOW
        ):
            try:
                return _untyped(text)
            except Exception:  # json.loads reads it, or says why not
                pass
        import json  # only for text: a mapping never pays for it

        try:
            return json.loads(text)
        except ValueError as exc:  # JSONDecodeError, and undecodable bytes
            return Err(ToolError.invalid_arguments(text, str(exc)))
        except RecursionError:
            return Err(ToolError.invalid_arguments(text, "nested too deeply"))

    def _bind_text(self, text: str | bytes | bytearray) -> tuple[list[Any], dict[str, Any]] | Err:
        decoded = self.decode(text)
        return decoded if isinstance(decoded, Err) else self.bind(decoded)

    def inject(self, keywords: dict[str, Any], inject: Mapping[str, Any] | None) -> None:
        """Add the injected values; ``TypeError`` (the program's mistake) when one is missing."""
        for name, has_default, fill in self.injected:
            if inject is not None and name in inject:
                keywords[name] = inject[name]
            elif fill is not None:
                keywords[name] = fill()
            elif not has_default:
                msg = (
                    f"{self.tool}: the injected parameter {name!r} has no value and no default; "
                    f"pass it as run(..., inject={{{name!r}: ...}})"
                )
                raise TypeError(msg)

    def bind(self, args: Any) -> tuple[list[Any], dict[str, Any]] | Err:
        if type(args) is not dict and not isinstance(args, Mapping):
            if isinstance(args, _TEXT):
                return self._bind_text(args)
            return Err(ToolError.invalid_arguments(args))
        undeclared: list[Any] = []
        if not self.declared.issuperset(args):
            undeclared = [key for key in args if key not in self.declared]
            non_string = tuple(key for key in undeclared if not isinstance(key, str))
            if non_string:
                return Err(ToolError.non_string_arguments(non_string))
            if self.extra is None:
                return Err(ToolError.unknown_arguments(tuple(sorted(undeclared)), self.names))
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        skipped: str | None = None  # the first omitted positional-only optional
        for index, p in enumerate(self.parameters):
            value = args.get(p.name, _ABSENT)
            if value is _ABSENT or (value is None and p.null_is_absent):
                if p.required:
                    return Err(ToolError.missing_argument(p.name))
                if p.fill is not None:
                    if p.positional_only:
                        positional.append(p.fill())
                    else:
                        keywords[p.name] = p.fill()
                elif p.positional_only and skipped is None:
                    skipped = p.name
                continue
            if p.positional_only and skipped is not None:
                return Err(ToolError.argument_gap(skipped, self._given_after(args, index)))
            try:
                value = p.coerce(value)
            except Invalid as error:
                return _invalid(p.name, error, p.ir)
            except RecursionError:
                # coercion goes only as deep as the type: run was entered with a nearly full stack
                return _invalid(p.name, Invalid("too_deep", value))
            except Exception:  # a Python value whose __hash__, __iter__, ... raises
                return _invalid(p.name, Invalid("invalid_value", value))
            if p.positional_only:
                positional.append(value)
            else:
                keywords[p.name] = value
        for name, fill in self.hidden:
            keywords[name] = fill()
        if undeclared and self.extra is not None:
            for key in undeclared:
                try:
                    keywords[key] = self.extra(args[key])
                except Invalid as error:
                    return _invalid(key, error)
                except RecursionError:
                    return _invalid(key, Invalid("too_deep", args[key]))
                except Exception:
                    return _invalid(key, Invalid("invalid_value", args[key]))
        return positional, keywords

    def argument_error(self, args: dict[str, Any], index: int) -> Err | None:
        """The error of parameter ``index``'s value in ``args``, as ``bind`` reports it; None
        when it has none (or raises other than ``Invalid``), and ``bind`` is left to decide."""
        p = self.parameters[index]
        try:
            p.coerce(args[p.name])
        except Invalid as error:
            return _invalid(p.name, error, p.ir)
        except Exception:
            return None
        return None

    def element_error(self, args: dict[str, Any], index: int, element: Any) -> Err | None:
        """:meth:`item_error` of ``element``, an item of parameter ``index``'s plain list,
        found by identity: the first item that is it (an earlier item that was the same
        object would have been checked, and missed, first)."""
        for item, found in enumerate(args[self.parameters[index].name]):
            if found is element:
                return self.item_error(args, index, item)
        return None

    def item_error(self, args: dict[str, Any], index: int, item: int) -> Err | None:
        """The error of item ``item`` of parameter ``index``, a plain list given in ``args``,
        as that list's coercer reports it; None when the item has none (or raises other
        than ``Invalid``), and the general path is left to decide."""
        p = self.parameters[index]
        coerce = p.item
        if coerce is None:
            items = p.ir.type.items
            assert items is not None  # a plain list's
            coerce = p.item = build_coercer(items, self.resolver)
        try:
            coerce(args[p.name][item])
        except Invalid as error:
            error.path = (item, *error.path)
            return _invalid(p.name, error, p.ir)
        except Exception:
            return None
        return None

    def _given_after(self, args: Mapping[str, Any], index: int) -> tuple[str, ...]:
        return tuple(
            p.name
            for p in self.parameters[index:]
            if p.positional_only
            and args.get(p.name, _ABSENT) is not _ABSENT
            and not (args[p.name] is None and p.null_is_absent)
        )


def _invalid(name: str, error: Invalid, parameter: ir.Parameter | None = None) -> Err:
    path = (name, *error.path)
    rule = error.rule
    if error.reason == "pattern_mismatch" and isinstance(rule, str) and parameter is not None:
        # a pattern too long to read is named by what describes it, where something does
        described = node_at(parameter.type, error.path, parameter.description)[1]
        if described:
            rule = (rule, described)
    found = ToolError.invalid_argument(path, error.reason, error.value, rule)
    if isinstance(error, ModelInvalid) and error.detail:
        # pydantic's own words (a validator's message) say more than the reason code
        shown = found.message.partition(", got ")[2]
        message = f"{one_line(format_path(path), 80)}: {error.detail}, got {shown}"
        found = dataclasses.replace(found, message=one_line(message))
    return Err(found)


def build_plan(
    tool: ir.Tool, fn: Callable[..., Any], resolver: ClassLookup, *, fast: bool = True
) -> ToolPlan:
    """The dispatch plan of ``tool``, calling ``fn``; classes and providers via ``resolver``.

    Nothing the IR names has to resolve: an unknown class restores as the plain JSON shape.
    ``fast=False`` leaves out generated code: the fast path, and the general path's restoring
    of list items (to compare the two, or to profile).
    The plan prepares itself on its first call (two threads making the first call at once
    both prepare it, to the same effect).
    """
    name = tool.name
    is_async = tool.is_async or inspect.iscoroutinefunction(fn)
    injects = bool(tool.injected)
    generated = fast
    fast = fast and not needs_general_path(tool, fn)

    def prepare() -> None:
        if not plan.prepared:
            plan.run, plan.arun = _prepared(tool, fn, resolver, is_async, fast, generated)
            plan.prepared = True

    def run_first(args: Any, inject: Mapping[str, Any] | None = None) -> Result:
        _on_enough_stack(prepare)
        return plan.run(args, inject) if injects else plan.run(args)

    async def arun_first(args: Any, inject: Mapping[str, Any] | None = None) -> Result:
        _on_enough_stack(prepare)
        return await (plan.arun(args, inject) if injects else plan.arun(args))

    plan = ToolPlan(name, is_async, run_first, arun_first, injects)
    return plan


def _on_enough_stack(prepare: Callable[[], None]) -> None:
    """Prepare, on a helper thread's fresh stack if this one is nearly full.

    Preparing recurses as deep as the tool's types, and a first call may come from deep
    down: ``run`` must not raise for that.
    """
    try:
        prepare()
    except RecursionError:
        failed: list[BaseException] = []

        def guarded() -> None:
            try:
                prepare()
            except BaseException as exc:  # handed back to the caller's thread
                failed.append(exc)

        helper = threading.Thread(target=guarded, name="toolcall-prepare")
        helper.start()
        helper.join()
        if failed:
            raise failed[0] from None


def _prepared(
    tool: ir.Tool,
    fn: Callable[..., Any],
    resolver: ClassLookup,
    is_async: bool,
    fast: bool,
    generated: bool,
) -> tuple[Callable[..., Result], Callable[..., Coroutine[Any, Any, Result]]]:
    """The plan's ``run`` and ``arun``: the generated fast path when there is one."""
    binder = _Binder(tool, resolver, fn, generated)
    fast = fast and not binder.pydantic
    name = tool.name

    def bind(args: Any, inject: Mapping[str, Any] | None) -> Err | tuple[list[Any], dict[str, Any]]:
        try:
            bound = binder.bind(args)
        except Exception:  # a hostile mapping: reading its keys or values raised
            return Err(ToolError.invalid_arguments(args))
        if not isinstance(bound, Err):
            binder.inject(bound[1], inject)
        return bound

    def general(args: Any, inject: Mapping[str, Any] | None = None) -> Result:
        bound = bind(args, inject)
        if isinstance(bound, Err):
            return bound
        try:
            return Ok(fn(*bound[0], **bound[1]))
        except Exception as exc:
            return tool_raised(name, exc)
        except SystemExit as exc:
            return tool_exited(exc)

    async def general_async(args: Any, inject: Mapping[str, Any] | None = None) -> Result:
        # the same body: an async tool's call returns its coroutine, run here
        started = general(args, inject)
        if isinstance(started, Err):
            return started
        try:
            return Ok(await started.value)
        except Exception as exc:
            return tool_raised(name, exc)
        except SystemExit as exc:
            return tool_exited(exc)

    # JSON text the typed route does not take is decoded and goes the way of a mapping: it
    # holds an error more often than not, which that finds at the bad value (``at`` below).
    # Where the typed decoder stopped inside an item of a list, with everything before it
    # checked, that item alone is walked.
    def decoded_text(args: Any, exc: Any) -> tuple[Any, Err | None]:
        """The decoded text, and its error when found without the general path."""
        decoded = binder.decode(args)
        if isinstance(decoded, Err):
            return decoded, decoded
        at = route.refused_item(exc, args, decoded) if route is not None else None
        return decoded, binder.item_error(decoded, *at) if at is not None else None

    def general_text(args: Any, exc: Any = None) -> Result:
        decoded, found = decoded_text(args, exc)
        return (compiled or general)(decoded) if found is None else found

    async def general_text_async(args: Any, exc: Any = None) -> Result:
        decoded, found = decoded_text(args, exc)
        return await (compiled or general_async)(decoded) if found is None else found

    text = general_text_async if is_async else general_text
    route = text_route(tool, resolver, text) if fast else None
    # where it misses inside one argument, or one item of a plain list, the generated code
    # asks for that value's error alone, the arguments before it being valid
    compiled: Callable[..., Any] | None = (
        build_fastpath(
            tool,
            fn,
            is_async=is_async,
            fallback=general_async if is_async else general,
            resolver=resolver,
            text=route.write if route is not None else None,
            located=Located(binder.argument_error, binder.element_error),
        )
        if fast
        else None
    )

    if is_async:
        refused = Err(ToolError.async_tool(name))

        def refuse(args: Any, inject: Mapping[str, Any] | None = None) -> Result:
            return refused

        return refuse, compiled or general_async

    if compiled is None:

        async def inline_general(args: Any, inject: Mapping[str, Any] | None = None) -> Result:
            return general(args, inject)

        return general, inline_general

    fastpath = compiled

    async def inline(args: Any) -> Result:
        result: Result = fastpath(args)
        return result

    return fastpath, inline
