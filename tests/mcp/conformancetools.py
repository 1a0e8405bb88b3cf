"""The tools the public MCP conformance suite calls (``@modelcontextprotocol/conformance``).

Each scenario of the suite's tools surface calls a tool by a fixed name and checks what comes
back; these are written the way a user writes tools for serve-mcp (or for FastMCP: the
``Context`` methods are FastMCP's), returning the MCP SDK's own content types where the
scenario wants an image, audio or an embedded resource. ``scripts/conformance`` serves this
module and runs the suite against it.
"""

from __future__ import annotations

import base64
import dataclasses
import enum

import anyio
import mcp.types as mcp_types

from toolcall.mcp import Context

__toolcall__ = True

# a 1x1 red PNG and a 1-sample silent WAV: the smallest valid media the suite accepts
_PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
    )
).decode()
_WAV = base64.b64encode(
    b"RIFF&\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00D\xac\x00\x00\x88X\x01\x00"
    b"\x02\x00\x10\x00data\x02\x00\x00\x00\x00\x00"
).decode()


def test_simple_text() -> str:
    """Answer with a fixed sentence."""
    return "This is a simple text response for testing."


def test_image_content() -> mcp_types.ImageContent:
    """Answer with a small PNG image."""
    return mcp_types.ImageContent(data=_PNG, mime_type="image/png")


def test_audio_content() -> mcp_types.AudioContent:
    """Answer with a short WAV sound."""
    return mcp_types.AudioContent(data=_WAV, mime_type="audio/wav")


def test_embedded_resource() -> mcp_types.EmbeddedResource:
    """Answer with an embedded text resource."""
    return mcp_types.EmbeddedResource(
        resource=mcp_types.TextResourceContents(
            uri="test://embedded-resource",
            mime_type="text/plain",
            text="This is an embedded resource content.",
        )
    )


def test_multiple_content_types() -> list[mcp_types.ContentBlock]:
    """Answer with text, an image and a resource together."""
    return [
        mcp_types.TextContent(text="Multiple content types test:"),
        mcp_types.ImageContent(data=_PNG, mime_type="image/png"),
        mcp_types.EmbeddedResource(
            resource=mcp_types.TextResourceContents(
                uri="test://mixed-content-resource",
                mime_type="application/json",
                text='{"test":"data","value":123}',
            )
        ),
    ]


async def test_tool_with_logging(ctx: Context) -> str:
    """Log three messages while running."""
    await ctx.info("Tool execution started")
    await anyio.sleep(0.05)
    await ctx.info("Tool processing data")
    await anyio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Logging test completed"


async def test_tool_with_progress(ctx: Context) -> str:
    """Report progress 0, 50 and 100 of 100."""
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100)
        if step < 100:
            await anyio.sleep(0.05)
    return "Progress test completed"


def test_error_handling() -> str:
    """Always fail."""
    raise RuntimeError("This tool intentionally returns an error for testing")


async def test_sampling(prompt: str, ctx: Context) -> str:
    """Ask the client's model.

    Args:
        prompt: what to ask the model
    """
    answer = await ctx.sample(prompt, max_tokens=100)
    text = answer.text if isinstance(answer, mcp_types.TextContent) else answer.type
    return f"LLM response: {text}"


@dataclasses.dataclass
class _Contact:
    username: str
    """User's response"""
    email: str
    """User's email address"""


async def test_elicitation(message: str, ctx: Context) -> str:
    """Ask the user for a name and an email address.

    Args:
        message: what to tell the user
    """
    answer = await ctx.elicit(message, _Contact)
    content = dataclasses.asdict(answer.data) if answer.action == "accept" else {}
    return f"User response: action={answer.action}, content={content}"


class _Status(enum.Enum):
    ACTIVE = "active"
    INACTIVE = "inactive"
    PENDING = "pending"


@dataclasses.dataclass
class _Defaults:
    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: _Status = _Status.ACTIVE
    verified: bool = True


async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Ask the user for values that all have defaults."""
    answer = await ctx.elicit("Please review and update the form fields", _Defaults)
    content = dataclasses.asdict(answer.data) if answer.action == "accept" else {}
    return f"Elicitation completed: action={answer.action}, content={content}"


def _titled(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in pairs]


# the five enum forms of SEP-1330; the legacy enumNames form has no type that says it, so the
# schema is given as it is sent
_ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": _titled(
                ("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")
            ),
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": _titled(
                    ("value1", "First Choice"),
                    ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                )
            },
        },
    },
    "required": [],
}


async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Ask the user to pick from enums of every form."""
    answer = await ctx.elicit("Please select options", _ENUMS)
    content = answer.data if answer.action == "accept" else {}
    return f"Elicitation completed: action={answer.action}, content={content}"


async def test_reconnection(ctx: Context) -> str:
    """Close the call's SSE stream midway, so the client reconnects to hear the answer."""
    await anyio.sleep(0.05)
    await ctx.close_sse_stream()
    await anyio.sleep(0.1)
    return "Reconnection test completed"
