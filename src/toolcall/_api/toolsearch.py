"""A catalog too large to send whole: pinned tools, a search tool, and the tools found.

One :class:`ToolSearch` is one conversation's view of a :class:`~toolcall.Toolbox`: it emits
the tool list of the next request, answers the model's searches (recording what they found)
and sends every other call to the box, which reaches every tool of the catalog by name.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

import msgspec

from toolcall import ir
from toolcall._api.toolbox import Toolbox
from toolcall._derive.module import derive_function
from toolcall._dispatch.result import Err, Ok
from toolcall._load.cold import entry_from_derived
from toolcall._render.variants import check_cap
from toolcall._shared.names import check_format
from toolcall._shared.responses import flat_function

if TYPE_CHECKING:
    from toolcall._load.registry import ModuleEntry
    from toolcall._search.index import Ranker

__all__ = ["SEARCH_TOOL", "ToolSearch"]

SEARCH_TOOL: Final = "search_tools"
"""The name of toolcall's search tool, in every format and on an MCP server."""

Defer = Literal["client", "server", "regex"]

_DEFERS: Final[dict[str, tuple[str, ...]]] = {
    "client": ("anthropic", "responses"),
    "server": ("anthropic", "responses"),
    "regex": ("anthropic",),
}
"""Each deferred form and the formats that have it."""

_DESCRIPTION: Final = (
    "Find the tools for a task among the tools available but not listed. Describe the task "
    "in a few words (what to do, to what); the tools found are returned with their "
    "parameters and can be called from then on. Search again with other words when none fits."
)
_QUERY: Final = 'the task, in a few words, e.g. "refund an order" or "weather forecast"'

_ANTHROPIC_SEARCH: Final = {
    "server": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}


def search_tools(query: str) -> str:
    """The search tool's signature, from which its schema in every format is derived and its
    arguments are checked (its description is set below, so ``-OO`` keeps it)."""
    return query


class ToolSearch:
    """Pinned tools plus a ``search_tools`` tool, and the tools the model found with it.

    ``emit(format)`` is the next request's tool list. Without ``defer`` it is the pinned
    tools, then ``search_tools``, then every tool found so far, in the order found (the list
    only grows, so a provider's prompt cache keeps its start), in every format. ``defer``
    picks a provider's deferred form instead, where the whole catalog is sent and loaded on
    demand: ``"server"`` (the provider searches: Anthropic's BM25 tool search tool,
    OpenAI's hosted ``tool_search``), ``"regex"`` (Anthropic's regex tool search tool) or
    ``"client"`` (toolcall searches: Anthropic's ``search_tools`` answered with
    ``tool_reference`` blocks, OpenAI's client-executed ``tool_search``). ``namespaces=True``
    groups the deferred tools of the Responses form by module.

    ``run``/``arun`` answer ``search_tools`` with the definitions of the tools found
    (``name``, ``description``, ``parameters``) and send every other name to the box, so a
    ToolSearch is given to the provider helpers where a Toolbox would be. A pinned tool is
    never a search result (it is listed already). Use one ToolSearch per conversation and
    one Toolbox per process: the box's search index is built once.

    Examples
    --------
    >>> import toolcall
    >>> search = toolcall.ToolSearch(toolcall.Toolbox("examples.weather"), k=3)
    >>> [tool["function"]["name"] for tool in search.emit("openai")]
    ['search_tools']
    """

    __slots__ = ("_box", "_defer", "_found", "_k", "_namespaces", "_pinned", "_ranker")

    SEARCH_TOOL: ClassVar[str] = SEARCH_TOOL

    def __init__(
        self,
        *members: types.ModuleType | str | Callable[..., Any] | Toolbox,
        pinned: Iterable[str] = (),
        k: int = 5,
        ranker: Ranker | None = None,
        defer: Defer | None = None,
        namespaces: bool = False,
    ) -> None:
        box = members[0] if len(members) == 1 and isinstance(members[0], Toolbox) else None
        self._box = box if box is not None else Toolbox(*members)
        names = self._box.tool_names()
        if SEARCH_TOOL in names:
            msg = f"the catalog has a tool named {SEARCH_TOOL!r}, the name of the search tool"
            raise ValueError(msg + "; rename it")
        keep = tuple(dict.fromkeys((pinned,) if isinstance(pinned, str) else pinned))
        unknown = [name for name in keep if name not in names]
        if unknown:
            msg = f"cannot pin {', '.join(map(repr, unknown))}: no such tool in this Toolbox"
            raise ValueError(msg)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            msg = f"k must be a positive integer, not {k!r}"
            raise ValueError(msg)
        if defer is not None and defer not in _DEFERS:
            msg = f"defer must be None or one of {', '.join(map(repr, _DEFERS))}, not {defer!r}"
            raise ValueError(msg)
        if namespaces and defer is None:
            msg = "namespaces group deferred tools: give defer='server' or defer='client' too"
            raise ValueError(msg)
        self._pinned = keep
        self._k = k
        self._ranker = ranker
        self._defer = defer
        self._namespaces = bool(namespaces)
        self._found: dict[str, None] = {}

    @property
    def box(self) -> Toolbox:
        """The catalog: every tool a call can reach."""
        return self._box

    @property
    def pinned(self) -> tuple[str, ...]:
        return self._pinned

    @property
    def defer(self) -> Defer | None:
        return self._defer

    @property
    def found(self) -> tuple[str, ...]:
        """The tools the model's searches found so far, in the order first found."""
        return tuple(self._found)

    def emit(self, format: str = "openai", strict: bool = False) -> list[Any]:
        """The next request's tools, in ``format`` (a format of :func:`toolcall.emit`, or
        ``"responses"``: the OpenAI Responses API's flat function tools).

        A deferred form a format does not have raises ``ValueError`` naming those that do.
        """
        if format != "responses":
            check_format(format)
        _check_strict(strict)
        if self._defer is None:
            names = (*self._pinned, *self._found)
            tools = self.definitions(names, format, strict)
            tools.insert(len(self._pinned), _search_definition(format, strict))
            fix = (
                f"{len(self._pinned)} pinned, search_tools and {len(self._found)} found: pin "
                "fewer tools, or start a new ToolSearch (the tools found are kept for its "
                "conversation)"
            )
            check_cap(format, len(tools), fix)
            return tools
        formats = _DEFERS[self._defer]
        if format not in formats:
            msg = (
                f"defer={self._defer!r} is a form of {' and '.join(formats)} only, not of "
                f"{format}; for {format}, use a ToolSearch without defer"
            )
            raise ValueError(msg)
        if format == "anthropic":
            return self._anthropic(strict)
        return self._responses(strict)

    def definitions(
        self, names: Sequence[str], format: str = "openai", strict: bool = False
    ) -> list[Any]:
        """The definitions of the tools ``names``, in ``format``: each a fresh dict, whose
        values (the schemas) are the read-only ones :meth:`Toolbox.emit` gives."""
        flat = format == "responses"
        found = self._box.definitions(names, "openai" if flat else format, strict)
        return [_flat(tool) if flat else dict(tool) for tool in found]

    def find(self, arguments: Any) -> Ok[tuple[str, ...]] | Err:
        """Run a ``search_tools`` call: the names of the tools found, best first (pinned
        tools left out), recorded for the next :meth:`emit`; or the ``Err`` of arguments that
        are not a search (the model's to correct)."""
        checked = _search_entry().plans[SEARCH_TOOL].run(arguments)
        if isinstance(checked, Err):
            return checked
        query: str = checked.value
        pinned = set(self._pinned)
        hits = self._box.search(query, self._k + len(pinned), ranker=self._ranker)
        names = tuple(hit.name for hit in hits if hit.name not in pinned)[: self._k]
        self._found.update(dict.fromkeys(names))
        return Ok(names)

    def run(
        self, name: str, args: Any, *, inject: Mapping[str, Any] | None = None
    ) -> Ok[Any] | Err:
        """A ``search_tools`` call answered with the tools found; any other name run by the
        box (see :meth:`Toolbox.run`)."""
        if name == SEARCH_TOOL:
            return self._answer(args)
        return self._box.run(name, args, inject=inject)

    async def arun(
        self,
        name: str,
        args: Any,
        *,
        inject: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Ok[Any] | Err:
        """Like :meth:`run`, awaiting ``async def`` tools (see :meth:`Toolbox.arun`)."""
        if name == SEARCH_TOOL:
            return self._answer(args)
        return await self._box.arun(name, args, inject=inject, timeout=timeout)

    def _answer(self, args: Any) -> Ok[Any] | Err:
        found = self.find(args)
        if isinstance(found, Err):
            return found
        if not found.value:
            return Ok("No tool matches; describe the task in other words.")
        where = {item["name"]: item for item in self._box.describe()}
        keys = ("name", "description", "parameters")
        return Ok([{key: where[name][key] for key in keys} for name in found.value])

    def _deferred(self) -> list[str]:
        pinned = set(self._pinned)
        return [name for name in self._box.tool_names() if name not in pinned]

    def _anthropic(self, strict: bool) -> list[Any]:
        """Pinned tools, the search tool, then every other tool with ``defer_loading``."""
        search = (
            _search_definition("anthropic", strict)
            if self._defer == "client"
            else dict(_ANTHROPIC_SEARCH[self._defer or "server"])
        )
        deferred = self.definitions(self._deferred(), "anthropic", strict)
        for tool in deferred:
            tool["defer_loading"] = True
        return [*self.definitions(self._pinned, "anthropic", strict), search, *deferred]

    def _responses(self, strict: bool) -> list[Any]:
        """Pinned tools, ``tool_search``, then the deferred tools (which the client form
        leaves out: its ``tool_search_output`` carries the definitions of those found)."""
        tools = self.definitions(self._pinned, "responses", strict)
        if self._defer == "client":
            search = _flat(_search_definition("openai", strict))
            tools.append(
                {
                    "type": "tool_search",
                    "execution": "client",
                    "description": search["description"],
                    "parameters": search["parameters"],
                }
            )
            return tools
        tools.append({"type": "tool_search"})
        names = self._deferred()
        deferred = self.definitions(names, "responses", strict)
        for tool in deferred:
            tool["defer_loading"] = True
        if not self._namespaces:
            return [*tools, *deferred]
        modules = {item["name"]: item["module"] for item in self._box.describe()}
        groups: dict[str, list[Any]] = {}
        for name, tool in zip(names, deferred, strict=True):
            groups.setdefault(modules[name], []).append(tool)
        for module, members in groups.items():
            if not module:
                tools.extend(members)
                continue
            listed = ", ".join(tool["name"] for tool in members)
            tools.append(
                {
                    "type": "namespace",
                    "name": module.replace(".", "_"),
                    "description": f"Tools of {module}: {listed}",
                    "tools": members,
                }
            )
        return tools


def _check_strict(strict: object) -> None:
    if strict is not True and strict is not False:
        msg = f"strict must be True or False, not {strict!r}"
        raise ValueError(msg)


def _flat(tool: Mapping[str, Any]) -> dict[str, Any]:
    flat = flat_function(tool)
    assert flat is not None  # every tool toolcall renders for "openai" is a function tool
    return flat


def _search_definition(format: str, strict: bool) -> dict[str, Any]:
    flat = format == "responses"
    found = _search_entry().variants["openai" if flat else format, strict][0]
    tool: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(found))
    return _flat(tool) if flat else tool


@functools.cache
def _search_entry() -> ModuleEntry:
    """The search tool, derived once, with its descriptions set here rather than read from
    the docstring (which ``python -OO`` strips from toolcall itself)."""
    tool, derived = derive_function(search_tools)
    query = msgspec.structs.replace(tool.parameters[0], description=_QUERY)
    tool = msgspec.structs.replace(tool, description=_DESCRIPTION, parameters=(query,))
    derived.ir = ir.ModuleIR(module=derived.ir.module, tools=(tool,))
    return entry_from_derived(None, derived)
