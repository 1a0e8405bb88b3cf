"""Each peer's real path, built from the same functions toolcall gets.

Imports happen inside the functions, so that a fresh interpreter measuring one peer's
start-up loads that peer only. Where a peer offers several ways, the one its own runtime
uses is taken, and where that path would add work toolcall does not do (pydantic-ai runs a
sync tool in a worker thread), the cheaper path is measured and the choice said here.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Callable
from typing import Any


def tool_functions(module: types.ModuleType) -> list[Callable[..., Any]]:
    """The module's public functions, in definition order: the tools every peer registers."""
    return [
        fn
        for name, fn in vars(module).items()
        if type(fn) is types.FunctionType
        and fn.__module__ == module.__name__
        and not name.startswith("_")
    ]


# -- validating and calling one tool (figures 1 and 2) -------------------------------------


def pydantic_validate_call(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``pydantic.validate_call``: the decorated function, called as ``wrapped(**args)``."""
    from pydantic import validate_call

    return validate_call(fn)


def pydantic_ai_validator(fn: Callable[..., Any]) -> Callable[..., dict[str, Any]]:
    """pydantic-ai's function-schema validator (``validator.validate_python``).

    ``ToolManager._validate_tool_args`` calls it as ``validate_python(args,
    allow_partial="off", context=ctx.validation_context)``, and the benchmark does the same;
    ``FunctionSchema.call`` would then run a sync tool in a worker thread, after the agent's
    ``RunContext`` and hooks. The benchmark calls the function directly on the validated
    arguments instead: the thread hop and the agent machinery are left out, in the peer's
    favour.
    """
    from pydantic_ai._function_schema import function_schema
    from pydantic_ai.tools import GenerateToolJsonSchema

    schema = function_schema(fn, GenerateToolJsonSchema)
    if schema.takes_ctx or schema.positional_fields:
        msg = f"{fn.__name__}: the benchmark calls tools with keyword arguments only"
        raise ValueError(msg)
    validate: Callable[..., dict[str, Any]] = schema.validator.validate_python
    return validate


def msgspec_arguments(fn: Callable[..., Any]) -> type:
    """A ``msgspec.Struct`` of the function's parameters (closed, keyword-only), so that
    ``fn(**msgspec.structs.asdict(msgspec.convert(args, Struct)))`` validates and calls.

    msgspec enforces its own ``Meta`` constraints only, so the ``annotated_types`` bounds of
    the benchmark module are not checked on this path (it does less work than the others).
    """
    import inspect
    import typing

    import msgspec

    hints = typing.get_type_hints(fn, include_extras=True)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.default is inspect.Parameter.empty:
            fields.append((parameter.name, hints[parameter.name]))
        else:
            fields.append((parameter.name, hints[parameter.name], parameter.default))
    struct: type = msgspec.defstruct(fn.__name__, fields, kw_only=True, forbid_unknown_fields=True)
    return struct


def langchain_tool(fn: Callable[..., Any]) -> Any:
    """LangChain's ``@tool`` (Google docstrings parsed), called with ``.invoke(args)``."""
    from langchain_core.tools import tool

    return tool(fn, parse_docstring=True)


# -- MCP servers (figure 3) -----------------------------------------------------------------


def fastmcp_server(functions: list[Callable[..., Any]]) -> Any:
    from fastmcp import FastMCP

    server = FastMCP("bench")
    for fn in functions:
        server.tool(fn)
    return server


def fastmcp_client(server: Any) -> Any:
    """FastMCP's in-memory client: ``async with client: await client.call_tool(...)``."""
    from fastmcp import Client

    return Client(server)


def mcp_server(functions: list[Callable[..., Any]]) -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")
    for fn in functions:
        server.add_tool(fn)
    return server


def mcp_client(server: Any) -> Any:
    """The mcp SDK's in-memory client (``mcp.Client`` on a server object)."""
    from mcp import Client

    return Client(server)


# -- every schema of a module (figure 5) ----------------------------------------------------


def schemas_pydantic(functions: list[Callable[..., Any]]) -> list[Any]:
    from pydantic import TypeAdapter

    return [TypeAdapter(fn).json_schema() for fn in functions]


def schemas_pydantic_ai(functions: list[Callable[..., Any]]) -> list[Any]:
    from pydantic_ai import Tool

    return [Tool(fn).tool_def.parameters_json_schema for fn in functions]


def schemas_msgspec(functions: list[Callable[..., Any]]) -> list[Any]:
    import msgspec

    structs = [msgspec_arguments(fn) for fn in functions]
    return list(msgspec.json.schema_components(structs)[0])


def schemas_fastmcp(functions: list[Callable[..., Any]]) -> list[Any]:
    server = fastmcp_server(functions)
    return [tool.parameters for tool in asyncio.run(server.list_tools())]


def schemas_mcp(functions: list[Callable[..., Any]]) -> list[Any]:
    server = mcp_server(functions)
    return [tool.input_schema for tool in asyncio.run(server.list_tools())]


def schemas_langchain(functions: list[Callable[..., Any]]) -> list[Any]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return [convert_to_openai_tool(langchain_tool(fn)) for fn in functions]


SCHEMAS: dict[str, Callable[[list[Callable[..., Any]]], list[Any]]] = {
    "pydantic": schemas_pydantic,
    "pydantic-ai": schemas_pydantic_ai,
    "msgspec": schemas_msgspec,
    "FastMCP": schemas_fastmcp,
    "mcp SDK": schemas_mcp,
    "LangChain": schemas_langchain,
}
