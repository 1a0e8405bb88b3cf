"""What ``Annotated`` metadata and pydantic ``Field`` say besides the type itself.

One place reads every kind of metadata users attach to an annotation: ``toolcall.Param``,
constraints (``annotated_types``, ``msgspec.Meta``, pydantic's ``Field`` / ``constr`` /
``StringConstraints``), descriptions (``Doc``, ``msgspec.Meta``, ``Field(description=...)``,
a plain string) and examples, plus the markers of framework-injected parameters.

pydantic is never imported here: its objects are recognised by class name and module, so a
process whose tools do not use pydantic never loads it. Whatever a setting asks for that
toolcall cannot honour is returned by name, so that derivation can warn about it instead
of dropping it silently.

The annotation itself is read here too, as text: the name its source declares (where a type
alias's docstring is looked up) and how a warning shows it. Evaluating annotations is
``toolcall._shared.signatures``.
"""

from __future__ import annotations

import ast
import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from toolcall._markers import Param, is_injected_marker
from toolcall._shared.kinds import from_pydantic, is_field_info, unwrap_annotated

__all__ = [
    "Metadata",
    "arm_metadata",
    "constraints",
    "declared_name",
    "doc_metadata",
    "examples_metadata",
    "field_info",
    "injected",
    "param_override",
    "shown",
]

BOUNDS: Final = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusive_minimum",
    "lt": "exclusive_maximum",
    "multiple_of": "multiple_of",
}
"""annotated_types / msgspec.Meta attribute -> ``ir.Type`` field."""

_LENGTHS: Final = ("min_length", "max_length")

_CONSTANTS: Final = frozenset({"None", "True", "False"})
"""The names that parse as constants, not as names."""

# pydantic settings that toolcall's own validation already satisfies, as (name, value).
_SATISFIED: Final = {("strict", True), ("allow_inf_nan", False), ("fail_fast", True)}

# pydantic metadata read elsewhere (``pydantic_meta``) or that only concerns output.
_HANDLED: Final = frozenset(
    {
        "WithJsonSchema",
        "SkipJsonSchema",
        "Examples",
        "BeforeValidator",
        "AfterValidator",
        "PlainValidator",
        "WrapValidator",
        "Discriminator",
        "Tag",
        "PlainSerializer",
        "WrapSerializer",
    }
)

# Field settings that only concern output or Python-side behaviour, or that derivation
# reads itself (``json_schema_extra``, ``discriminator``): nothing to report.
_NOT_INPUT: Final = frozenset(
    {
        "annotation",
        "json_schema_extra",
        "discriminator",
        "default",
        "default_factory",
        "description",
        "examples",
        "metadata",
        "title",
        "serialization_alias",
        "exclude",
        "exclude_if",
        "repr",
        "init",
        "init_var",
        "kw_only",
        "frozen",
        "validate_default",
        "alias_priority",
        "field_title_generator",
    }
)

# The parameter types frameworks fill in themselves: class name -> the packages (and their
# subpackages) that define one by that name. A subclass counts too; nothing is imported to
# check, and a class of any other name costs one lookup. Where each class lives, as its
# framework defines it (docs/marking.md lists them for users):
#   FastMCP, the MCP SDK, toolcall: ``Context``; pydantic-ai: ``RunContext``; the Agents SDK:
#   ``RunContextWrapper``, ``ToolContext``; Strands: ``strands.agent.agent.Agent``,
#   ``strands.types.tools.ToolContext``; Letta: ``letta.schemas.agent.AgentState``; Haystack:
#   ``haystack.components.agents.state.state.State``; pipecat:
#   ``pipecat.services.llm_service.FunctionCallParams``; Microsoft agent-framework:
#   ``agent_framework._middleware.FunctionInvocationContext``; google-adk:
#   ``google.adk.tools.tool_context.ToolContext`` (``google.adk.agents.context.Context`` in
#   later releases); LlamaIndex workflows: ``workflows.context.context.Context`` (earlier
#   ``llama_index.core.workflow.context.Context``).
_INJECTED_CLASSES: Final[Mapping[str, tuple[str, ...]]] = {
    "Context": ("fastmcp", "mcp.server", "toolcall.mcp", "google.adk", "llama_index", "workflows"),
    "RunContext": ("pydantic_ai",),
    "RunContextWrapper": ("agents",),
    "ToolContext": ("agents", "strands", "google.adk"),
    "Agent": ("strands",),
    "AgentState": ("letta",),
    "State": ("haystack",),
    "FunctionCallParams": ("pipecat",),
    "FunctionInvocationContext": ("agent_framework",),
}
_INJECTED_METADATA: Final[Mapping[str, tuple[str, ...]]] = {
    "InjectedToolArg": ("langchain_core",),
    "InjectedState": ("langgraph",),
    "InjectedStore": ("langgraph",),
}


def param_override(extras: tuple[Any, ...]) -> Param | None:
    """The last ``toolcall.Param`` among Annotated metadata (later overrides earlier)."""
    found: Param | None = None
    for extra in extras:
        if isinstance(extra, Param):
            found = extra
    return found


def field_info(extras: tuple[Any, ...]) -> Any:
    """The last pydantic ``FieldInfo`` among Annotated metadata, or None."""
    found = None
    for extra in extras:
        if is_field_info(extra):
            found = extra
    return found


def doc_metadata(extras: tuple[Any, ...]) -> str | None:
    """A description in the metadata: ``Field(description=...)``, ``Doc``, ``msgspec.Meta``
    or a plain string (the Agents SDK and FastMCP idiom); the last one written wins."""
    found: str | None = None
    for extra in extras:
        if isinstance(extra, str):
            found = extra
        elif (isinstance(extra, msgspec.Meta) or is_field_info(extra)) and (
            extra.description is not None
        ):
            found = extra.description
        elif type(extra).__name__ in ("DocInfo", "Doc") and isinstance(
            getattr(extra, "documentation", None), str
        ):
            found = extra.documentation
    return found


def examples_metadata(
    extras: tuple[Any, ...], arms: tuple[tuple[Any, ...], ...] = ()
) -> tuple[Any, ...]:
    """``Field(examples=[...])``, ``msgspec.Meta(examples=[...])``, pydantic's ``Examples``;
    the last one wins. Without any, the examples of every arm (``arm_metadata``), in order:
    each is a value of the whole type, so none is dropped."""
    found: tuple[Any, ...] = ()
    for extra in extras:
        if (
            (isinstance(extra, msgspec.Meta) or is_field_info(extra)) and extra.examples
        ) or _is_examples(extra):
            found = tuple(extra.examples)
    if not found:
        for arm in arms:
            found += examples_metadata(arm)
    return found


def arm_metadata(hint: Any) -> tuple[tuple[Any, ...], ...]:
    """The ``Annotated`` metadata of each arm of a union, where a description or examples
    may sit as well as at the top: ``Annotated[str, "the menu path"] | None``,
    ``Optional[Annotated[int, Field(ge=1, description=...)]]``. An arm that is itself a
    union gives its own arms' after its own; anything but a union has none.

    Constraints need no such reading: the type resolver applies an arm's to that arm alone.
    """
    core, _ = unwrap_annotated(hint)
    origin = typing.get_origin(core)
    if origin is not typing.Union and origin is not types.UnionType:
        return ()
    found: list[tuple[Any, ...]] = []
    for arm in typing.get_args(core):
        inner, extras = unwrap_annotated(arm)
        if extras:
            found.append(extras)
        found += arm_metadata(inner)
    return tuple(found)


def _is_examples(extra: Any) -> bool:
    cls = type(extra)
    return (
        cls.__name__ == "Examples"
        and from_pydantic(cls)
        and getattr(extra, "mode", None) in (None, "validation")
        and isinstance(getattr(extra, "examples", None), list)
        and bool(extra.examples)
    )


def injected(hint: Any) -> bool:
    """Whether a parameter of this annotation is filled in by a framework, not the model."""
    core, extras = unwrap_annotated(hint)
    for extra in extras:
        if is_injected_marker(extra) or _is_framework(extra, _INJECTED_METADATA):
            return True
    origin = typing.get_origin(core)
    if origin is typing.Union or origin is types.UnionType:  # ``ctx: Context | None = None``
        return any(injected(arg) for arg in typing.get_args(core) if arg is not type(None))
    return _is_framework(origin if origin is not None else core, _INJECTED_CLASSES)


def _is_framework(obj: Any, known: Mapping[str, tuple[str, ...]]) -> bool:
    cls = obj if isinstance(obj, type) else type(obj)
    for klass in getattr(cls, "__mro__", ()):
        packages = known.get(klass.__name__)
        if packages is None:  # nearly every class: no module to compare
            continue
        module = getattr(klass, "__module__", "") or ""
        if any(module == package or module.startswith(package + ".") for package in packages):
            return True
    return False


class Metadata:
    """The constraints one annotation's metadata asks for.

    ``found`` holds ``(ir.Type field, value)`` pairs; ``unhonoured`` names the settings
    toolcall cannot honour (``max_digits=3``, ``strip_whitespace=True``), for a warning.
    """

    __slots__ = ("found", "unhonoured")

    def __init__(self) -> None:
        self.found: list[tuple[str, Any]] = []
        self.unhonoured: list[str] = []


def constraints(extras: tuple[Any, ...]) -> Metadata:
    """Every constraint in ``extras``; FieldInfo, grouped and nested metadata flattened."""
    meta = Metadata()
    for extra in extras:
        _collect(extra, meta)
    return meta


def _collect(extra: Any, meta: Metadata) -> None:
    if extra is None or isinstance(extra, str | Param) or is_injected_marker(extra):
        return
    if isinstance(extra, msgspec.Meta):
        for key, target in BOUNDS.items():
            if getattr(extra, key) is not None:
                meta.found.append((target, getattr(extra, key)))
        for key in ("pattern", *_LENGTHS):
            if getattr(extra, key) is not None:
                meta.found.append((key, getattr(extra, key)))
        return
    if is_field_info(extra):
        for inner in extra.metadata:
            _collect(inner, meta)
        meta.unhonoured += unhonoured_field_settings(extra, alias_honoured=False)
        return
    if (type(extra).__module__ or "") == "annotated_types":
        if hasattr(extra, "__iter__"):  # GroupedMetadata: Interval, Len
            for inner in extra:
                _collect(inner, meta)
            return
        for key, target in (*BOUNDS.items(), *((k, k) for k in _LENGTHS)):
            value = getattr(extra, key, None)
            if value is not None:
                meta.found.append((target, value))
        return
    if from_pydantic(type(extra)):
        if type(extra).__name__ in _HANDLED:
            return
        if hasattr(extra, "__iter__"):  # StringConstraints
            for inner in extra:
                _collect(inner, meta)
            return
        for key, value in _settings(extra).items():
            if key == "pattern" and value is not None:
                meta.found.append(("pattern", value if isinstance(value, str) else value.pattern))
            elif value is not None and not _satisfied(key, value):
                meta.unhonoured.append(f"{key}={value!r}")
        return
    # anything else (a user's own marker, a LangChain or FastAPI object) is not a constraint


def _satisfied(key: str, value: Any) -> bool:
    """Whether toolcall's own validation already does what the setting asks; a value that
    cannot be hashed (a dict, a list) is never one of those."""
    try:
        return (key, value) in _SATISFIED
    except TypeError:
        return False


def _settings(obj: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    try:
        return dict(vars(obj))
    except TypeError:
        slots = getattr(type(obj), "__slots__", ())
        return {name: getattr(obj, name, None) for name in slots}


def unhonoured_field_settings(info: Any, *, alias_honoured: bool) -> list[str]:
    """The settings of a ``FieldInfo`` that neither the schema nor dispatch carries out.

    ``alias_honoured``: a model field's alias is its property name; a function parameter
    has no such thing, so there the alias is not honoured.
    """
    names = getattr(info, "_attributes_set", None)
    if not isinstance(names, dict):
        return []
    found = []
    for key, value in names.items():
        if key in _NOT_INPUT or value is None:
            continue
        if key in ("alias", "validation_alias") and alias_honoured and isinstance(value, str):
            continue
        found.append(f"{key}={value!r}")
    return found


def declared_name(text: str) -> str | None:
    """``Location``, ``Location | None``, ``Optional[Location]`` -> ``Location``."""
    # most annotations are one ASCII name (a non-ASCII one the parser would normalize)
    if text.isascii() and text.isidentifier() and text not in _CONSTANTS:
        return text
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return declared_name(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [n for n in (node.left, node.right) if not _is_none(n)]
        node = sides[0] if len(sides) == 1 else node
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute):
        head = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
        if head == "Optional":
            node = node.slice
        elif head == "Union" and isinstance(node.slice, ast.Tuple):
            sides = [n for n in node.slice.elts if not _is_none(n)]
            if len(sides) == 1:
                node = sides[0]
    return node.id if isinstance(node, ast.Name) else None


def shown(obj: Any) -> str:
    """An annotation or an exception in a warning: one line, bounded."""
    try:
        text = str(obj).replace("typing.", "").replace("\n", " ")
    except Exception:
        text = f"<{type(obj).__name__}>"
    return text if len(text) <= 200 else text[:197] + "..."


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
