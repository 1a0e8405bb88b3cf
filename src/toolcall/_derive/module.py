"""A marked module or a single function -> ``ir.Tool``: discovery, defaults, descriptions.

Descriptions come from the source's AST (``_source``), never from ``__doc__``, so a
process started with ``-OO`` derives the same IR as one started without it. Every
surprise is a ``ToolcallWarning`` pointing at the function's own file and line.
"""

from __future__ import annotations

import inspect
import types
import typing
import warnings
from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from toolcall import ir
from toolcall._derive.annotations import (
    arm_metadata,
    declared_name,
    examples_metadata,
    field_info,
    injected,
    shown,
)
from toolcall._derive.defaults import schema_default
from toolcall._derive.descriptions import (
    DESCRIPTION_MODES,
    parameter_description,
    tool_description,
)
from toolcall._derive.discovery import candidates, is_marked, providers_of
from toolcall._derive.docstrings import parse_docstring, read_docstring
from toolcall._derive.objects import is_documenting_type
from toolcall._derive.pydantic_meta import given_description, is_skipped
from toolcall._derive.returns import unencodable
from toolcall._derive.source import SourceDocs, module_docs, object_docs, source_docs
from toolcall._derive.types import AnnotationReader
from toolcall._errors import ToolcallWarning
from toolcall._markers import Param, ToolMeta
from toolcall._shared.kinds import is_field_info, unwrap_annotated
from toolcall._shared.names import PARAMS_ATTR, TOOL_ATTR, TOOL_NAME_RULE, valid_tool_name
from toolcall._shared.signatures import evaluated_hints
from toolcall._shared.signatures import signature as signature_of

__all__ = [
    "Derived",
    "derive_function",
    "derive_module",
    "is_marked",
    "providers_of",
    "warn_at",
]

_ALIAS_DEPTH = 20


class Derived(msgspec.Struct):
    """A derived module: the IR plus the live objects met on the way (never cached)."""

    ir: ir.ModuleIR
    functions: dict[str, Callable[..., Any]]
    classes: dict[str, Any]
    providers: dict[str, Any]
    dep_modules: set[str] = msgspec.field(default_factory=set)
    imports: frozenset[str] = frozenset()
    """What the module's import statements name (``SourceDocs.imports``)."""


def warn_at(fn: Callable[..., Any], message: str) -> None:
    """Issue a ``ToolcallWarning`` pointing at ``fn``'s own file and first line."""
    warnings.warn_explicit(message, ToolcallWarning, *_location(fn))


def _location(fn: Callable[..., Any]) -> tuple[str, int]:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else ("<unknown>", 0)


def derive_module(module: types.ModuleType, source: bytes | None = None) -> Derived:
    """Derive every tool of a marked module, issuing the derivation warnings.

    ``source`` is the source that ran, when the caller knows it: docstrings and imports are
    read from it, not from the file, which may have been saved since (the entry would then
    carry another version's descriptions under this version's key).
    """
    providers = providers_of(module)
    docs = source_docs(source) if source is not None else module_docs(module)
    if docs is not None and docs.lost:
        warnings.warn_explicit(
            f"{module.__name__}: its source has docstrings but parsing it found none, so its "
            "tools would have no descriptions; report this with your Python version",
            ToolcallWarning,
            getattr(module, "__file__", None) or module.__name__,
            1,
        )
    derivation = _Derivation(providers, module, docs)
    tools: list[ir.Tool] = []
    functions: dict[str, Callable[..., Any]] = {}
    for fn in candidates(module):
        tool = derivation.contained_tool(fn, docs)
        if tool is not None:
            tools.append(tool)
            functions[tool.name] = fn
    resolver = derivation.release()
    return Derived(
        ir=ir.ModuleIR(module=module.__name__, tools=tuple(tools)),
        functions=functions,
        classes=resolver.classes,
        providers=resolver.provider_instances,
        dep_modules=resolver.dep_modules - {module.__name__},
        imports=docs.imports if docs is not None else frozenset(),
    )


def derive_function(fn: Callable[..., Any]) -> tuple[ir.Tool, Derived]:
    """Derive one function anywhere (runtime tools); raises ``TypeError`` if it cannot be a tool."""
    if not callable(fn) or not hasattr(fn, "__name__"):
        msg = f"expected a function, got {type(fn).__name__}"
        raise TypeError(msg)
    module = inspect.getmodule(fn)
    providers = providers_of(module) if module is not None else []
    derivation = _Derivation(providers, module)
    tool = derivation.tool(fn, object_docs(fn))
    if tool is None:
        raise TypeError(derivation.last_warning)
    resolver = derivation.release()
    derived = Derived(
        ir=ir.ModuleIR(module=tool.module, tools=(tool,)),
        functions={tool.name: fn},
        classes=resolver.classes,
        providers=resolver.provider_instances,
        dep_modules=resolver.dep_modules,
    )
    return tool, derived


class _Derivation:
    """State shared by the tools of one module: the type resolver and the warning target."""

    def __init__(
        self,
        providers: list[Any],
        module: types.ModuleType | None,
        module_docs: SourceDocs | None = None,
    ) -> None:
        self.module = module
        self._module_docs = module_docs
        self._where: tuple[str, int] = ("<unknown>", 0)
        self.last_warning = ""  # says why, when a function turns out not to be a tool
        self.resolver = AnnotationReader(providers, self.warn, self._field_docs)
        mode = vars(module).get("__toolcall_description__", "summary") if module else "summary"
        if mode not in DESCRIPTION_MODES:
            filename = getattr(module, "__file__", None) or "<unknown>"
            module_name = getattr(module, "__name__", "")
            warnings.warn_explicit(
                f"{module_name}: __toolcall_description__ = {mode!r}; "
                f"expected one of {', '.join(map(repr, DESCRIPTION_MODES))} (using 'summary')",
                ToolcallWarning,
                filename,
                1,
            )
            mode = "summary"
        self.description_mode = mode

    def release(self) -> AnnotationReader:
        """The resolver, no longer held here: it holds this derivation's methods, and that
        cycle would keep a module's whole derivation alive until a garbage collection."""
        resolver = self.resolver
        del self.resolver
        return resolver

    def warn(self, message: str) -> None:
        self.last_warning = message
        filename, lineno = self._where
        warnings.warn_explicit(message, ToolcallWarning, filename, lineno)

    def contained_tool(self, fn: Callable[..., Any], docs: SourceDocs | None) -> ir.Tool | None:
        """``tool``, but an error toolcall did not foresee skips this function only (each
        parameter is contained already, so this is the last line, not the usual one)."""
        try:
            return self.tool(fn, docs)
        except Warning:  # a ToolcallWarning the program made an error
            raise
        except Exception as exc:
            module = getattr(self.module, "__name__", "") or "?"
            qualname = getattr(fn, "__qualname__", None) or repr(fn)
            self.warn(
                f"{module}.{qualname}: deriving the tool raised "
                f"{type(exc).__name__}: {shown(exc)}; it is skipped (please report this "
                "to toolcall)"
            )
            return None

    def tool(self, fn: Callable[..., Any], docs: SourceDocs | None) -> ir.Tool | None:
        inner = inspect.unwrap(fn)
        self._where = _location(fn)
        name = fn.__name__
        qualname = fn.__qualname__
        self.resolver.start_tool()
        try:
            signature = signature_of(fn)
        except (TypeError, ValueError):
            self.warn(f"{qualname}: no inspectable signature; skipped")
            return None
        params = signature.parameters
        annotated = signature.return_annotation is not inspect.Signature.empty or any(
            p.annotation is not inspect.Parameter.empty for p in params.values()
        )
        if params and not annotated:
            self.warn(
                f"{qualname} has parameters but no annotations; it is not a tool "
                "(annotate it, or mark it @toolcall.exclude)"
            )
            return None
        meta: ToolMeta = getattr(fn, TOOL_ATTR, None) or ToolMeta()
        name = meta.name or name
        if not valid_tool_name(name):
            self.warn(
                f"{qualname}: tool name {name!r} does not match {TOOL_NAME_RULE}, "
                "which providers require; `toolcall export` will refuse it"
            )
        raw_doc = docs.functions.get(qualname) if docs is not None else None
        if raw_doc is None:
            raw_doc = inner.__doc__
        read = read_docstring(raw_doc)
        param_docs = read.params
        if read.unread:
            self.warn(
                f"{qualname}: the docstring has a parameter section toolcall cannot read; "
                "it is kept in the tool description (write entries as `name: text` under "
                "`Args:`)"
            )
        description = tool_description(meta.description, read, self.description_mode)
        hints = evaluated_hints(fn)
        overrides: dict[str, Param] = getattr(fn, PARAMS_ATTR, {})
        for missing in overrides.keys() - params.keys():
            self.warn(f"{qualname}: @toolcall.param names {missing!r}, which it does not have")
        for missing in param_docs.keys() - params.keys():
            self.warn(f"{qualname}: the docstring documents {missing!r}, which it does not have")
        annotation_names = docs.annotations.get(qualname, {}) if docs is not None else {}

        parameters: list[ir.Parameter] = []
        injected_names: list[str] = []
        kwargs_type: ir.Type | None = None
        for p in params.values():
            where = f"{qualname}({p.name})"
            if p.kind is p.VAR_POSITIONAL:
                continue
            hint = hints.get(p.name, p.annotation)
            if hint is not inspect.Parameter.empty and injected(hint):
                if p.kind is p.POSITIONAL_ONLY:
                    self.warn(
                        f"{where}: an injected parameter cannot be positional-only; it is "
                        "not a tool (move it before the '/' ... after it)"
                    )
                    return None
                injected_names.append(p.name)
                continue
            if hint is not inspect.Parameter.empty and self._hidden(p, hint, where):
                continue
            if p.kind is p.VAR_KEYWORD:
                kwargs_type = (
                    ir.Type(kind="any")
                    if hint is inspect.Parameter.empty
                    else self.resolve_contained(hint, where)
                )
                continue
            try:
                parameter = self._parameter(
                    p,
                    hint,
                    where,
                    overrides.get(p.name),
                    param_docs.get(p.name),
                    annotation_names.get(p.name),
                    docs,
                )
            except Warning:  # a ToolcallWarning the program made an error
                raise
            except Exception as exc:
                parameter = self._failed(p, hint, where, exc)
            parameters.append(parameter)
        if any(p.kind is p.VAR_POSITIONAL for p in params.values()) and not parameters:
            self.warn(
                f"{qualname}: *args cannot be sent by a model; the tool takes no "
                "positional values (use a list parameter)"
            )
        returns = hints.get("return", signature.return_annotation)
        problem = None if returns is inspect.Signature.empty else unencodable(returns)
        if problem is not None:
            self.warn(f"{qualname}: {problem}")
        tool = ir.Tool(
            name=name,
            description=description,
            parameters=tuple(parameters),
            kwargs=kwargs_type,
            is_async=inspect.iscoroutinefunction(inner),
            returns=(
                None
                if returns is inspect.Signature.empty
                else self._returns(
                    returns,
                    f"{qualname}(return)",
                    docs.returns.get(qualname) if docs is not None else None,
                )
            ),
            injected=tuple(injected_names),
            title=meta.title or "",
            annotations=dict(meta.annotations or {}),
            module=getattr(fn, "__module__", "") or "",
            qualname=qualname,
            search=meta.search,
        )
        return tool

    def _parameter(
        self,
        p: inspect.Parameter,
        hint: Any,
        where: str,
        decorator: Param | None,
        doc_text: str | None,
        annotation_text: str | None,
        docs: SourceDocs | None,
    ) -> ir.Parameter:
        default = p.default
        info = default if is_field_info(default) else None
        extras: tuple[Any, ...] = ()
        if hint is inspect.Parameter.empty:
            self.warn(f"{where} has no annotation; it accepts any JSON value")
            t = ir.Type(kind="any")
        else:
            _, extras = unwrap_annotated(hint)
            t = self.resolve_contained(
                hint if info is None else Annotated[hint, info],
                where,
                annotation_text if info is None else None,
            )
            annotated = field_info(extras)
            if info is None and default is inspect.Parameter.empty and annotated is not None:
                # ``Annotated[str, Field(default="")]``: the default lives in the annotation
                info = annotated
                default = inspect.Parameter.empty if annotated.is_required() else annotated
        if decorator is not None:
            t = self.resolver.with_wire(t, decorator.wire, where)
        given = given_description(t)
        if given is not None:  # pydantic puts the given schema's description on the property
            extras = (*extras, given)
        arms = () if hint is inspect.Parameter.empty else arm_metadata(hint)
        description = parameter_description(
            decorator=decorator,
            extras=extras,
            arms=arms,
            default_field=info,
            doc_entry=doc_text,
            type_doc=lambda: (
                ""
                if hint is inspect.Parameter.empty
                else self._type_doc(hint, annotation_text, docs)
            ),
            warn=lambda line: self.warn(f"{where}: {line}"),
        )
        examples = examples_metadata(extras if info is None else (info, *extras), arms)
        required = default is inspect.Parameter.empty
        if info is not None:
            required = info.is_required()
            default = inspect.Parameter.empty if info.default_factory else info.default
        has_default, schema_value = False, None
        if not required and default is not inspect.Parameter.empty:
            has_default, schema_value, inside = schema_default(default, t)
            if not inside:
                self.warn(
                    f"{where}: the default {default!r} is outside the parameter's "
                    "type, so it is not sent to the model"
                )
        return ir.Parameter(
            name=p.name,
            type=t,
            required=required,
            has_default=has_default,
            default=schema_value,
            description=description,
            examples=examples,
            positional_only=p.kind is p.POSITIONAL_ONLY,
            keyword_only=p.kind is p.KEYWORD_ONLY,
        )

    def _hidden(self, p: inspect.Parameter, hint: Any, where: str) -> bool:
        """``SkipJsonSchema[T]`` with a default: not in the schema, the default is used. One
        without a default cannot be left out (the call would lack it) and stays, with a
        warning."""
        _, extras = unwrap_annotated(hint)
        if not is_skipped(extras):
            return False
        annotated = field_info(extras)
        if p.default is not inspect.Parameter.empty or (
            annotated is not None and not annotated.is_required()
        ):
            return True
        self.warn(
            f"{where}: SkipJsonSchema hides a parameter only when it has a default; it has "
            "none, so it stays in the schema (give it a default)"
        )
        return False

    def _returns(self, hint: Any, where: str, text: str | None) -> ir.Type:
        """The return type only describes: anything it cannot be is ``{}``, silently."""
        try:
            return self.resolver.quiet(hint, where, text)
        except Warning:  # a ToolcallWarning the program made an error
            raise
        except Exception:
            return ir.Type(kind="any")

    def resolve_contained(self, hint: Any, where: str, text: str | None = None) -> ir.Type:
        """``resolve``, but an unexpected error in toolcall itself (or in an object the
        annotation holds) costs this one place its schema, never the module its tools."""
        try:
            return self.resolver.resolve_written(hint, text, where)
        except Warning:  # a ToolcallWarning the program made an error
            raise
        except Exception as exc:
            self._warn_failed(hint, where, exc)
            return ir.Type(kind="any")

    def _warn_failed(self, hint: Any, where: str, exc: Exception) -> None:
        module = getattr(self.module, "__name__", "") or "?"
        self.warn(
            f"{module}.{where}: deriving the annotation {shown(hint)} raised "
            f"{type(exc).__name__}: {shown(exc)}; it is sent as any value ({{}}) and "
            "passed through unchanged (please report this to toolcall)"
        )

    def _failed(self, p: inspect.Parameter, hint: Any, where: str, exc: Exception) -> ir.Parameter:
        """The parameter whose derivation failed outside its type: ``{}``, Python's default
        still applying (it is not emitted)."""
        self._warn_failed(hint, where, exc)
        return ir.Parameter(
            name=p.name,
            type=ir.Type(kind="any"),
            required=p.default is inspect.Parameter.empty,
            positional_only=p.kind is p.POSITIONAL_ONLY,
            keyword_only=p.kind is p.KEYWORD_ONLY,
        )

    def _type_doc(self, hint: Any, annotation_text: str | None, docs: SourceDocs | None) -> str:
        """The doc of the declared type, used directly or as ``T | None`` (never nested)."""
        if hint is inspect.Parameter.empty:
            return ""
        if annotation_text is not None and docs is not None and self.module is not None:
            name = declared_name(annotation_text)
            for _ in range(_ALIAS_DEPTH):
                if name is None:
                    break
                if name in docs.attributes:
                    return _clean(docs.attributes[name])
                if name in docs.classes:
                    return _clean(docs.classes[name])
                target = docs.aliases.get(name)
                if target is None:
                    obj = vars(self.module).get(name)
                    return self._class_doc(obj) if isinstance(obj, type) else ""
                name = declared_name(target)
        core, _ = unwrap_annotated(hint)
        args = typing.get_args(core)
        if typing.get_origin(core) in (typing.Union, types.UnionType) and type(None) in args:
            rest = [unwrap_annotated(a)[0] for a in args if a is not type(None)]
            core = rest[0] if len(rest) == 1 else None
        return self._class_doc(core) if isinstance(core, type) else ""

    def _docs_of(self, cls: type) -> SourceDocs | None:
        """The source docs of ``cls``: the derived module's own (the source that ran) for a
        class it defines, else those of the module that defines it."""
        own, module = self._module_docs, self.module
        if own is not None and module is not None and cls.__module__ == module.__name__:
            return own
        return object_docs(cls)

    def _class_doc(self, cls: type) -> str:
        """The docstring of a TypedDict, dataclass, NamedTuple, Enum or Struct, from its
        source. Other classes (``Path``, ``UUID``, ``Any``) document themselves, not the
        parameter."""
        if not is_documenting_type(cls):
            return ""
        docs = self._docs_of(cls)
        if docs is None:
            return ""
        return _clean(docs.classes.get(cls.__qualname__, ""))

    def _field_docs(self, cls: type) -> dict[str, str]:
        docs = self._docs_of(cls)
        if docs is None:
            return {}
        prefix = cls.__qualname__ + "."
        return {
            key[len(prefix) :]: _clean(text)
            for key, text in docs.attributes.items()
            if key.startswith(prefix) and "." not in key[len(prefix) :]
        }


def _clean(text: str) -> str:
    """A type's or field's doc as a description: its first paragraph, like a tool's."""
    return parse_docstring(text)[0]
