"""SPEC 1 and 3b for code written for other frameworks: injected parameters (recognised by
module and class name, without importing the framework), ``@toolcall.tool`` and
``__toolcall_description__ = "full"``."""

from __future__ import annotations

import asyncio
import warnings

import pytest

import toolcall

# Stand-ins for the frameworks' classes: recognition is by module and class name only, so a
# class with the same ``__module__`` and name is what the real framework hands over.
FRAMEWORKS = '''
__toolcall__ = True
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar
import toolcall

D = TypeVar("D")

def _from(module, cls):
    cls.__module__ = module
    return cls

Context = _from("fastmcp.server.context", type("Context", (), {}))
SdkContext = _from("mcp.server.fastmcp.server", type("Context", (), {}))
class RunContext(Generic[D]):
    pass
RunContext = _from("pydantic_ai.tools", RunContext)
class RunContextWrapper(Generic[D]):
    pass
RunContextWrapper = _from("agents.run_context", RunContextWrapper)
class ToolContext(RunContextWrapper[D]):
    pass
ToolContext = _from("agents.tool_context", ToolContext)
InjectedToolArg = _from("langchain_core.tools.base", type("InjectedToolArg", (), {}))
class InjectedToolCallId(InjectedToolArg):
    pass
InjectedToolCallId = _from("langchain_core.tools.base", InjectedToolCallId)
class InjectedState:
    def __init__(self, field=None):
        self.field = field
InjectedState = _from("langgraph.prebuilt.tool_node", InjectedState)


async def fastmcp_tool(query: str, ctx: Context) -> str:
    """FastMCP style."""
    return f"{query}:{type(ctx).__name__}"

def sdk_tool(query: str, ctx: SdkContext | None = None) -> str:
    """MCP SDK style, with a default."""
    return f"{query}:{ctx}"

def pydantic_ai_tool(ctx: RunContext[int], city: str) -> str:
    """pydantic-ai style: the context first."""
    return f"{city}:{ctx}"

def agents_tool(wrapper: RunContextWrapper[Any], tool_ctx: ToolContext[Any], n: int) -> str:
    """Agents SDK style."""
    return f"{n}:{wrapper}:{tool_ctx}"

def langchain_tool(
    query: str,
    user_id: Annotated[str, InjectedToolArg],
    call_id: Annotated[str, InjectedToolCallId],
    state: Annotated[dict, InjectedState("messages")],
) -> str:
    """LangChain style."""
    return f"{query}:{user_id}:{call_id}:{state}"

def own_tool(
    query: str, session: Annotated[dict, toolcall.Injected], *, verbose: bool = False
) -> str:
    """toolcall's own marker."""
    return f"{query}:{session['user']}"
'''


@pytest.fixture
def frameworks(make_module):
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolcall.ToolcallWarning)
        module = make_module(FRAMEWORKS)
        toolcall.describe(module)
    return module


def names(module, index: int) -> list[str]:
    return list(toolcall.describe(module)[index]["parameters"]["properties"])


def test_injected_parameters_are_not_in_the_schema(frameworks):
    """Framework contexts and Injected markers are left out, with no warning."""
    assert [names(frameworks, i) for i in range(6)] == [
        ["query"],
        ["query"],
        ["city"],
        ["n"],
        ["query"],
        ["query", "verbose"],
    ]
    assert toolcall.describe(frameworks)[0]["parameters"]["required"] == ["query"]


def test_run_supplies_injected_values(frameworks):
    """run(..., inject=...) passes them; names a tool does not take are ignored."""
    everything = {"ctx": "C", "wrapper": "W", "tool_ctx": "T", "user_id": "u1", "call_id": "c1"}
    everything["state"] = {"messages": []}
    everything["session"] = {"user": "ada"}
    assert toolcall.run(frameworks, "pydantic_ai_tool", {"city": "Oslo"}, inject=everything) == (
        toolcall.Ok("Oslo:C")
    )
    assert toolcall.run(frameworks, "agents_tool", {"n": 2}, inject=everything) == (
        toolcall.Ok("2:W:T")
    )
    assert toolcall.run(frameworks, "langchain_tool", {"query": "q"}, inject=everything) == (
        toolcall.Ok("q:u1:c1:{'messages': []}")
    )
    assert toolcall.run(frameworks, "own_tool", {"query": "q"}, inject=everything) == (
        toolcall.Ok("q:ada")
    )
    done = asyncio.run(toolcall.arun(frameworks, "fastmcp_tool", {"query": "q"}, inject={"ctx": 1}))
    assert done == toolcall.Ok("q:int")


def test_injected_parameter_with_a_default_may_be_left_out(frameworks):
    """Without a value the function's own default applies."""
    assert toolcall.run(frameworks, "sdk_tool", {"query": "q"}) == toolcall.Ok("q:None")
    assert toolcall.run(frameworks, "sdk_tool", {"query": "q"}, inject={}) == toolcall.Ok("q:None")


def test_missing_injected_value_is_a_type_error(frameworks):
    """No value and no default is the program's mistake: TypeError naming the parameter."""
    with pytest.raises(TypeError, match=r"own_tool: the injected parameter 'session'"):
        toolcall.run(frameworks, "own_tool", {"query": "q"})
    with pytest.raises(TypeError, match="'ctx'"):
        asyncio.run(toolcall.arun(frameworks, "fastmcp_tool", {"query": "q"}, inject={}))


def test_the_model_cannot_fill_an_injected_parameter(frameworks):
    """An injected name sent by the model is an unknown argument, not a way in."""
    result = toolcall.run(
        frameworks,
        "own_tool",
        {"query": "q", "session": {"user": "eve"}},
        inject={"session": {"user": "ada"}},
    )
    assert result.error.kind == "unknown_arguments"


def test_frameworks_are_not_imported(tmp_path):
    """Recognition reads names only: none of the frameworks is imported (checked in a child
    interpreter: the adapter tests import the real frameworks into this one)."""
    import textwrap

    import subproc

    (tmp_path / "framework_tools.py").write_text(textwrap.dedent(FRAMEWORKS))
    names = ("fastmcp", "pydantic_ai", "agents", "langchain_core", "langgraph")
    code = (
        "import sys, toolcall, framework_tools; toolcall.describe(framework_tools); "
        f"print([name for name in {names!r} if name in sys.modules])"
    )
    done = subproc.python("-c", code, paths=[tmp_path])
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


TOOL_META = '''
__toolcall__ = True
import toolcall

@toolcall.tool(
    name="qdrant-find",
    description="Look up memories by meaning.",
    title="Find memories",
    annotations={"readOnlyHint": True, "openWorldHint": False},
)
def find(query: str) -> list[str]:
    """Ignored: the decorator's description wins."""
    return [query]

@toolcall.tool
def plain(x: int) -> int:
    """Plain."""
    return x
'''


def test_tool_decorator(make_module):
    """name, description, title and annotations; title and annotations only in mcp."""
    module = make_module(TOOL_META)
    assert toolcall.tool_names(module) == ("qdrant-find", "plain")
    mcp = toolcall.emit(module, "mcp")[0]
    assert mcp["name"] == "qdrant-find"
    assert mcp["description"] == "Look up memories by meaning."
    assert mcp["title"] == "Find memories"
    assert mcp["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    openai = toolcall.emit(module, "openai")[0]["function"]
    assert set(openai) == {"name", "description", "parameters"}
    assert toolcall.run(module, "qdrant-find", {"query": "q"}) == toolcall.Ok(["q"])
    assert "title" not in toolcall.emit(module, "mcp")[1]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"name": "has space"}, ValueError),
        ({"name": "x" * 65}, ValueError),
        ({"name": "weather\n"}, ValueError),  # `$` would admit a trailing newline
        ({"name": "météo"}, ValueError),  # ASCII only
        ({"annotations": {"readonly": True}}, ValueError),
        ({"annotations": {"readOnlyHint": "yes"}}, TypeError),
        ({"annotations": ["readOnlyHint"]}, TypeError),
    ],
)
def test_tool_decorator_refuses_bad_metadata(kwargs, error):
    """A tool name off the providers' rule, or an unknown MCP hint, fails at once."""
    with pytest.raises(error):
        toolcall.tool(**kwargs)


def test_full_description(make_module):
    """__toolcall_description__ = "full": the whole docstring except the parameter sections."""
    module = make_module(
        '''
        __toolcall__ = True
        __toolcall_description__ = "full"

        def describe_log_groups(prefix: str, limit: int = 50) -> list[str]:
            """List CloudWatch log groups.

            Use this before querying logs: the names it returns are what the
            other tools take.

            Args:
                prefix: only groups whose name starts with this
                limit: at most this many

            Returns:
                The group names, newest first.
            """
            return []

        def numpy_style(a: int) -> int:
            """Add one.

            Parameters
            ----------
            a
                the number

            Notes
            -----
            Overflow is not checked.
            """
            return a

        def markdown_style(a: int) -> int:
            """Add two.

            ## Parameters
            - a: the number

            ## Usage
            Call it twice for four.
            """
            return a
        '''
    )
    described = toolcall.describe(module)
    assert described[0]["description"] == (
        "List CloudWatch log groups.\n\nUse this before querying logs: the names it returns "
        "are what the\nother tools take.\n\nReturns:\n    The group names, newest first."
    )
    assert described[0]["parameters"]["properties"]["prefix"]["description"] == (
        "only groups whose name starts with this"
    )
    assert described[1]["description"] == "Add one.\n\nNotes\n-----\nOverflow is not checked."
    assert described[2]["description"] == "Add two.\n\n## Usage\nCall it twice for four."


def test_unknown_description_mode_warns(make_module):
    """A value other than "summary" / "full" warns and falls back to the summary."""
    with pytest.warns(toolcall.ToolcallWarning, match="__toolcall_description__"):
        module = make_module(
            '''
            __toolcall__ = True
            __toolcall_description__ = "everything"

            def f(x: int) -> int:
                """First.

                Second.
                """
                return x
            '''
        )
    assert toolcall.describe(module)[0]["description"] == "First."


def test_returns_is_resolved_without_warnings(make_module):
    """ir.Tool.returns is the resolved return annotation; one toolcall cannot express is
    ``{}`` (it only describes), and warns only because no value of it can be sent
    (tests/derive/test_returns.py)."""
    module = make_module(
        '''
        __toolcall__ = True
        from typing import TypedDict

        class Forecast(TypedDict):
            temp: float

        class Opaque:
            pass

        def forecast(city: str) -> Forecast:
            """Forecast."""
            return {"temp": 1.0}

        def opaque(city: str) -> Opaque:
            """Opaque."""
            return Opaque()
        '''
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolcall.ToolcallWarning)
        tool = toolcall.derive(module.forecast)
    with pytest.warns(toolcall.ToolcallWarning, match="names Opaque, which toolcall cannot"):
        other = toolcall.derive(module.opaque)
    assert tool.returns is not None
    assert [f.name for f in tool.returns.fields] == ["temp"]
    assert other.returns == toolcall.ir.Type(kind="any")
