"""The contexts more frameworks inject into their tools (issue 36): Strands, Letta, Haystack,
pipecat, Microsoft agent-framework, google-adk and LlamaIndex workflows.

Recognition is by class name and defining package, nothing imported, so each framework is
stood in for by a class of its name in a module of its real path, written as a package on
``sys.path`` (none of these frameworks is a dependency here). Such a parameter is absent from
the schema, supplied through ``run(..., inject=...)``, and derived without a warning.
"""

from __future__ import annotations

import asyncio
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import toolcall
from files import write

# Where each framework defines the class its tools receive (module path, class name).
CLASSES = {
    "strands/agent/agent.py": "Agent",
    "strands/types/tools.py": "ToolContext",
    "letta/schemas/agent.py": "AgentState",
    "haystack/components/agents/state/state.py": "State",
    "pipecat/services/llm_service.py": "FunctionCallParams",
    "agent_framework/_middleware.py": "FunctionInvocationContext",
    "google/adk/tools/tool_context.py": "ToolContext",
    "google/adk/agents/context.py": "Context",
    "workflows/context/context.py": "Context",
    "llama_index/core/workflow/context.py": "Context",
}
PACKAGES = ("strands", "letta", "haystack", "pipecat", "agent_framework", "workflows")
PACKAGES += ("llama_index", "google.adk")

TOOLS = '''
__toolcall__ = True
from agent_framework._middleware import FunctionInvocationContext
from google.adk.agents.context import Context as AdkContext
from google.adk.tools.tool_context import ToolContext as AdkToolContext
from haystack.components.agents.state.state import State
from letta.schemas.agent import AgentState
from llama_index.core.workflow.context import Context as LlamaContext
from pipecat.services.llm_service import FunctionCallParams
from strands.agent.agent import Agent
from strands.types.tools import ToolContext
from workflows.context.context import Context


def strands_tool(query: str, agent: Agent, tool_context: ToolContext) -> str:
    """Strands: the agent and the tool context."""
    return f"{query}:{agent}:{tool_context}"


def letta_tool(agent_state: "AgentState", label: str) -> str:
    """Letta: the agent's state first, as a string annotation."""
    return f"{label}:{agent_state}"


def haystack_tool(city: str, state: State) -> str:
    """Haystack: the agent's state."""
    return f"{city}:{state}"


async def pipecat_tool(params: FunctionCallParams) -> str:
    """pipecat: everything arrives in the call's params."""
    return f"{params}"


def agent_framework_tool(n: int, context: FunctionInvocationContext | None = None) -> str:
    """agent-framework: the invocation context, optional."""
    return f"{n}:{context}"


def adk_tool(city: str, tool_context: AdkToolContext) -> str:
    """google-adk: the tool context."""
    return f"{city}:{tool_context}"


def adk_context_tool(city: str, tool_context: AdkContext) -> str:
    """google-adk's later releases: the one Context class."""
    return f"{city}:{tool_context}"


async def workflow_tool(ctx: Context, query: str) -> str:
    """LlamaIndex workflows (the llama-index-workflows package)."""
    return f"{query}:{ctx}"


async def llama_index_tool(ctx: LlamaContext, query: str) -> str:
    """LlamaIndex workflows, as llama_index.core re-exported them."""
    return f"{query}:{ctx}"
'''

# tool -> (what the model sees, what the program injects)
EXPECTED = {
    "strands_tool": (["query"], ["agent", "tool_context"]),
    "letta_tool": (["label"], ["agent_state"]),
    "haystack_tool": (["city"], ["state"]),
    "pipecat_tool": ([], ["params"]),
    "agent_framework_tool": (["n"], ["context"]),
    "adk_tool": (["city"], ["tool_context"]),
    "adk_context_tool": (["city"], ["tool_context"]),
    "workflow_tool": (["query"], ["ctx"]),
    "llama_index_tool": (["query"], ["ctx"]),
}


def _ours(name: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in PACKAGES)


@pytest.fixture
def fake_frameworks(tmp_path: Path) -> Iterator[Path]:
    """The frameworks' modules, each class at its real path; removed again afterwards.

    ``google`` gets no ``__init__.py``: it is a namespace package that google-genai shares."""
    for relative, name in CLASSES.items():
        path = Path(relative)
        for parent in list(path.parents)[:-1]:
            if parent != Path("google"):
                write(tmp_path, str(parent / "__init__.py"))
        write(tmp_path, relative, f"class {name}:\n    pass\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if _ours(name)]:
            del sys.modules[name]


@pytest.fixture
def tools(fake_frameworks: Path, make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolcall.ToolcallWarning)
        module = make_module(TOOLS)
        toolcall.describe(module)
    return module


def test_each_framework_class_is_at_its_real_path(tools: types.ModuleType) -> None:
    """The stand-ins are what the frameworks hand over: same class name, same module."""
    assert vars(tools)["State"].__module__ == "haystack.components.agents.state.state"
    assert vars(tools)["AdkToolContext"].__module__ == "google.adk.tools.tool_context"


def test_injected_parameters_are_not_in_the_schema_and_not_warned(
    tools: types.ModuleType,
) -> None:
    """Each context is left out of the schema (the fixture turns any warning into an error);
    the model sees the other parameters only."""
    described = {tool["name"]: tool["parameters"] for tool in toolcall.describe(tools)}
    assert {name: list(schema["properties"]) for name, schema in described.items()} == {
        name: seen for name, (seen, _) in EXPECTED.items()
    }
    assert described["pipecat_tool"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    derived = {name: list(toolcall.derive(getattr(tools, name)).injected) for name in EXPECTED}
    assert derived == {name: injected for name, (_, injected) in EXPECTED.items()}


def test_run_supplies_each_injected_value(tools: types.ModuleType) -> None:
    """``inject=`` hands the program's values to the function; the model's arguments stay
    its own."""
    inject = {
        "agent": "A",
        "tool_context": "T",
        "agent_state": "S",
        "state": "H",
        "params": "P",
        "context": "F",
        "ctx": "C",
    }
    arguments = {"query": "q", "label": "l", "city": "Oslo", "n": 2}
    results = {
        name: asyncio.run(
            toolcall.arun(tools, name, {key: arguments[key] for key in seen}, inject=inject)
        )
        for name, (seen, _) in EXPECTED.items()
    }
    assert results == {
        "strands_tool": toolcall.Ok("q:A:T"),
        "letta_tool": toolcall.Ok("l:S"),
        "haystack_tool": toolcall.Ok("Oslo:H"),
        "pipecat_tool": toolcall.Ok("P"),
        "agent_framework_tool": toolcall.Ok("2:F"),
        "adk_tool": toolcall.Ok("Oslo:T"),
        "adk_context_tool": toolcall.Ok("Oslo:T"),
        "workflow_tool": toolcall.Ok("q:C"),
        "llama_index_tool": toolcall.Ok("q:C"),
    }


def test_an_optional_context_may_be_left_out(tools: types.ModuleType) -> None:
    """Without a value the function's own default applies; without one and no default, it
    is the program's mistake (TypeError), as for every injected parameter."""
    assert toolcall.run(tools, "agent_framework_tool", {"n": 1}) == toolcall.Ok("1:None")
    with pytest.raises(TypeError, match="'state'"):
        toolcall.run(tools, "haystack_tool", {"city": "Oslo"})


def test_the_same_names_elsewhere_are_parameters(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """A class is recognised by its package too: an ``Agent`` or a ``State`` of one's own
    is a type the model is asked for, with the usual warning that toolcall does not know it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = make_module(
            """
        __toolcall__ = True


        class Agent:
            pass


        class State:
            pass


        def mine(agent: Agent, state: State) -> None:
            \"\"\"Take an agent and a state.\"\"\"
        """
        )
        [described] = toolcall.describe(module)
    assert described["parameters"]["required"] == ["agent", "state"]
    assert [str(w.message).split(";")[0] for w in caught] == [
        "mine(agent): toolcall does not know the type Agent",
        "mine(state): toolcall does not know the type State",
        "mine: agent (Any) accepts any value, which strict mode cannot express",
        "mine: state (Any) accepts any value, which strict mode cannot express",
    ]
