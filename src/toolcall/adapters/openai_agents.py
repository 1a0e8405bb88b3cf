"""toolcall's tools as OpenAI Agents SDK ``FunctionTool`` objects.

>>> from agents import Agent
>>> from toolcall.adapters.openai_agents import tools
>>> agent = Agent(name="weather", tools=tools("examples.weather"))   # doctest: +SKIP

The SDK gets toolcall's schema as the tool's ``params_json_schema`` (by default the strict
variant, sent with ``strict: true``, as the SDK's ``function_tool`` does; ``strict=False``:
the plain one) and each call goes through ``Toolbox.arun``. A
failed call (bad arguments, a raising tool, ``toolcall.ToolRetry``, a timeout) answers the
model with ``{"error": "<message>"}``, the text ``toolcall.providers`` answers with; the run
goes on. A parameter annotated ``RunContextWrapper`` or ``ToolContext`` (``Annotated[...,
toolcall.Injected]`` too) receives the call's ``ToolContext``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from agents import (
    FunctionTool,
    RunContextWrapper,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
)
from agents.tool_context import ToolContext

import toolcall
from toolcall.adapters._common import (
    Part,
    Source,
    Spec,
    answer,
    error_text,
    fallback_text,
    specs,
    subclass_of,
    toolbox,
)
from toolcall.providers.openai import decode_arguments

__all__ = ["tools"]

_is_context = subclass_of(RunContextWrapper)


def tools(
    source: Source,
    *,
    strict: bool = True,
    timeout: float | None = None,
    inject: Mapping[str, Any] | None = None,
) -> list[FunctionTool]:
    """One ``FunctionTool`` per tool of ``source`` (a marked module, a dotted name, a
    ``Toolbox`` or a list of them), in definition order.

    Strict by default, as the SDK's own ``function_tool`` is: toolcall's strict schema, sent
    with ``strict_json_schema=True``. ``strict=False`` sends the plain schema (defaults,
    open objects, ``uniqueItems``...) with ``strict_json_schema=False``.
    ``timeout`` bounds each call as ``toolcall.arun``'s does. ``inject`` supplies the
    injected parameters that are not the SDK's context, the same for every call.
    """
    box = toolbox(source)
    return [
        _function_tool(box, spec, strict, timeout)
        for spec in specs(box, "openai", strict, _is_context, inject)
    ]


def _function_tool(
    box: toolcall.Toolbox, spec: Spec, strict: bool, timeout: float | None
) -> FunctionTool:
    name = spec.name
    function = spec.definition["function"]
    arun = box.arun

    async def invoke(context: ToolContext[Any], arguments: str) -> Any:
        args = decode_arguments(arguments)
        result = await arun(name, args, inject=spec.inject(context), timeout=timeout)
        value, error = answer(name, result, _media)
        return error_text(error) if error is not None else value

    return FunctionTool(
        name=name,
        description=function.get("description", ""),
        params_json_schema=copy.deepcopy(function["parameters"]),
        on_invoke_tool=invoke,
        strict_json_schema=strict,
    )


def _media(found: tuple[Part, ...]) -> list[Any]:
    """Media as the SDK's tool outputs: ``ToolOutputImage`` and ``ToolOutputFileContent``
    (data URLs), text as ``ToolOutputText``; audio and links as a line of text."""
    out: list[Any] = []
    for part in found:
        if isinstance(part, str):
            out.append(ToolOutputText(text=part))
            continue
        data_url = f"data:{part.mime_type};base64,{part.data}"
        if part.kind == "image":
            out.append(ToolOutputImage(image_url=data_url))
        elif part.kind == "file":
            out.append(ToolOutputFileContent(file_data=data_url, filename=part.name or "file"))
        else:
            out.append(ToolOutputText(text=fallback_text(part, "the Agents SDK's")))
    return out
