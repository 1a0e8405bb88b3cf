"""toolcall's tools as LangChain tools (``langchain-core``'s ``BaseTool``).

>>> from toolcall.adapters.langchain import tools
>>> model = chat_model.bind_tools(tools("examples.weather"))            # doctest: +SKIP

Each tool's ``args_schema`` is toolcall's JSON Schema, so ``bind_tools`` sends it as it is and
LangChain does not validate the arguments: toolcall does, in ``Toolbox.arun`` (``ainvoke``) or
``Toolbox.run`` (``invoke``). A failed call (bad arguments, a raising tool,
``toolcall.ToolRetry``, a timeout) is a ``ToolException`` handled the way
``handle_tool_error=True`` handles one: the ``ToolMessage`` carries toolcall's message, with
``status="error"``, and the graph goes on. Injected parameters (``InjectedToolArg``,
``InjectedState``: LangGraph puts their values among the call's arguments) are taken out of
the arguments and injected; ``InjectedToolCallId`` receives the call's id.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from langchain_core.tools import BaseTool, InjectedToolCallId, ToolException

import toolcall
from pydantic import PrivateAttr
from toolcall.adapters._common import Part, Source, Spec, answer, fallback_text, specs, toolbox

__all__ = ["ToolcallTool", "tools"]


def _is_call_id(hint: Any) -> bool:
    return hint is InjectedToolCallId or isinstance(hint, InjectedToolCallId)


def tools(
    source: Source,
    *,
    strict: bool = False,
    timeout: float | None = None,
    inject: Mapping[str, Any] | None = None,
) -> list[BaseTool]:
    """One tool per tool of ``source`` (a marked module, a dotted name, a ``Toolbox`` or a
    list of them), in definition order.

    ``strict=True`` uses toolcall's strict schema (pass ``strict=True`` to ``bind_tools``
    too, so the provider enforces it). ``timeout`` bounds each ``ainvoke`` as
    ``toolcall.arun``'s does. ``inject`` supplies injected parameters the call does not
    carry, the same for every call.
    """
    box = toolbox(source)
    return [
        ToolcallTool.build(box, spec, timeout)
        for spec in specs(box, "openai", strict, _is_call_id, inject)
    ]


class ToolcallTool(BaseTool):
    """One toolcall tool; what :func:`tools` returns."""

    handle_tool_error: bool = True
    _box: toolcall.Toolbox = PrivateAttr()
    _spec: Spec = PrivateAttr()
    _injected: frozenset[str] = PrivateAttr()
    _timeout: float | None = PrivateAttr(default=None)

    @classmethod
    def build(cls, box: toolcall.Toolbox, spec: Spec, timeout: float | None) -> ToolcallTool:
        function = spec.definition["function"]
        tool = cls(
            name=spec.name,
            description=function.get("description", ""),
            args_schema=copy.deepcopy(function["parameters"]),
        )
        tool._box = box
        tool._spec = spec
        tool._injected = frozenset(spec.tool.injected)
        tool._timeout = timeout
        return tool

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments as one value (``_run(args, call_id)``), not as keywords: a tool
        parameter may be called ``config`` or ``run_manager``, which LangChain fills in."""
        return (tool_input, tool_call_id), {}

    def _split(self, args: Any, call_id: str | None) -> tuple[Any, dict[str, Any] | None]:
        inject = self._spec.inject(call_id)
        if not self._injected or not isinstance(args, Mapping):
            return args, inject
        given = {key: value for key, value in args.items() if key in self._injected}
        if not given:
            return args, inject
        rest = {key: value for key, value in args.items() if key not in self._injected}
        return rest, {**(inject or {}), **given}

    def _run(self, args: Any, call_id: str | None = None) -> Any:
        args, inject = self._split(args, call_id)
        return self._answer(self._box.run(self.name, args, inject=inject))

    async def _arun(self, args: Any, call_id: str | None = None) -> Any:
        args, inject = self._split(args, call_id)
        result = await self._box.arun(self.name, args, inject=inject, timeout=self._timeout)
        return self._answer(result)

    def _answer(self, result: toolcall.Ok[Any] | toolcall.Err) -> Any:
        value, error = answer(self.name, result, _media)
        if error is not None:
            raise ToolException(error.message)
        return value


def _media(found: tuple[Part, ...]) -> list[dict[str, Any]]:
    """A media result as LangChain's standard content blocks (``text``, ``image``, ``audio``,
    ``file`` with base64 data), the ``ToolMessage`` content a chat model converts."""
    out: list[dict[str, Any]] = []
    for part in found:
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
        elif part.kind == "link":
            out.append({"type": "text", "text": fallback_text(part, "LangChain")})
        else:
            block = {"type": part.kind, "base64": part.data, "mime_type": part.mime_type}
            if part.name and part.kind == "file":
                block["filename"] = part.name
            out.append(block)
    return out
