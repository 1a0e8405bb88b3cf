"""toolcall's tools as a pydantic-ai toolset.

>>> from pydantic_ai import Agent
>>> from toolcall.adapters.pydantic_ai import toolset
>>> agent = Agent("openai:gpt-4.1", toolsets=[toolset("examples.weather")])   # doctest: +SKIP

pydantic-ai gets toolcall's schema as each tool's ``parameters_json_schema`` and hands the
arguments over unvalidated: the validation is toolcall's, in ``Toolbox.arun``. A failed call
(bad arguments, a raising tool, ``toolcall.ToolRetry``, a timeout) raises ``ModelRetry`` with
toolcall's message, so the model reads what to fix and pydantic-ai's retry counting
(``max_retries``) applies. A parameter annotated ``RunContext`` (``Annotated[...,
toolcall.Injected]`` too) receives the call's ``RunContext``. ``@toolcall.tool``'s title and
annotations travel as the tool definition's ``metadata``.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Mapping
from typing import Any

from pydantic_ai import BinaryContent, ModelRetry, RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

import toolcall
from toolcall.adapters._common import (
    Part,
    Source,
    Spec,
    answer,
    fallback_text,
    specs,
    subclass_of,
    toolbox,
)

__all__ = ["ToolcallToolset", "toolset"]

_is_context = subclass_of(RunContext)
_ANY = SchemaValidator(core_schema.any_schema())
"""Lets every argument through: toolcall validates them, with its own messages."""


def toolset(
    source: Source,
    *,
    strict: bool = False,
    timeout: float | None = None,
    max_retries: int = 1,
    inject: Mapping[str, Any] | None = None,
    id: str | None = None,
) -> ToolcallToolset:
    """A toolset of every tool of ``source`` (a marked module, a dotted name, a ``Toolbox``
    or a list of them).

    ``strict=True`` hands pydantic-ai toolcall's strict schema, marked ``strict``.
    ``timeout`` bounds each call as ``toolcall.arun``'s does (a timed-out call is a retry,
    as pydantic-ai's own timeouts are). ``max_retries`` is pydantic-ai's, per tool.
    ``inject`` supplies the injected parameters that are not the ``RunContext``.
    """
    return ToolcallToolset(
        toolbox(source),
        strict=strict,
        timeout=timeout,
        max_retries=max_retries,
        inject=inject,
        id=id,
    )


class ToolcallToolset(AbstractToolset[Any]):
    """The toolset :func:`toolset` builds; its tools are built once, not on every step."""

    def __init__(
        self,
        box: toolcall.Toolbox,
        *,
        strict: bool,
        timeout: float | None,
        max_retries: int,
        inject: Mapping[str, Any] | None,
        id: str | None,
    ) -> None:
        self._box = box
        self._timeout = timeout
        self._id = id
        self._specs = {s.name: s for s in specs(box, "openai", strict, _is_context, inject)}
        self._definitions = {
            name: ToolDefinition(
                name=name,
                parameters_json_schema=copy.deepcopy(spec.definition["function"]["parameters"]),
                description=spec.definition["function"].get("description"),
                strict=strict or None,
                metadata=_metadata(spec),
            )
            for name, spec in self._specs.items()
        }
        self._tools = {
            name: ToolsetTool(
                toolset=self, tool_def=definition, max_retries=max_retries, args_validator=_ANY
            )
            for name, definition in self._definitions.items()
        }

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The same tools every step: they were built once, with the toolset."""
        return dict(self._tools)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        spec = self._specs.get(name)
        inject = spec.inject(ctx) if spec is not None else None
        result = await self._box.arun(name, tool_args, inject=inject, timeout=self._timeout)
        value, error = answer(name, result, _media)
        if error is not None:
            raise ModelRetry(error.message)
        return value


def _media(found: tuple[Part, ...]) -> Any:
    """Media as pydantic-ai's ``BinaryContent``, which it sends the model as its own media
    (one value alone, a list when mixed with text)."""
    out = [
        part
        if isinstance(part, str)
        else fallback_text(part, "pydantic-ai")
        if part.kind == "link"
        else BinaryContent(data=base64.b64decode(part.data), media_type=part.mime_type)
        for part in found
    ]
    return out[0] if len(out) == 1 else out


def _metadata(spec: Spec) -> dict[str, Any] | None:
    found: dict[str, Any] = {}
    if spec.tool.title:
        found["title"] = spec.tool.title
    if spec.tool.annotations:
        found["annotations"] = dict(spec.tool.annotations)
    return found or None
