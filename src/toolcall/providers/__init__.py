"""A provider's tool call in, the tool-result message it expects back out.

Each helper takes the SDK's objects or the same data as plain dicts, and a
:class:`toolcall.Toolbox` (or anything with ``run`` / ``arun``). The shapes produced
(``text`` is ``toolcall.encode_result(value)``, or ``{"error": "<message>"}``):

========================  ===============================================================
OpenAI Chat Completions   ``{"role": "tool", "tool_call_id": id, "content": text}``
OpenAI Responses          ``{"type": "function_call_output", "call_id": id, "output": text}``
Anthropic Messages        ``{"type": "tool_result", "tool_use_id": id, "content": text}``
                          plus ``"is_error": True`` when the call failed
Gemini (google-genai)     ``{"function_response": {"id": id, "name": name, "response":
                          {"output": value}}}``, or ``{"error": message}`` as the response
Bedrock Converse          ``{"toolResult": {"toolUseId": id, "content": [{"text": text}],
                          "status": "success"}}`` (``"error"`` when the call failed)
========================  ===============================================================

Given a :class:`toolcall.ToolSearch`, a ``search_tools`` call is answered with the found tools'
definitions; with ``defer="client"``, Anthropic's with ``tool_reference`` blocks, and
``responses_tool_search_output(s)`` answer the Responses API's client-executed
``tool_search_call`` items with ``tool_search_output`` items.
"""

from __future__ import annotations

from toolcall.providers._wire import SupportsArun, SupportsRun
from toolcall.providers.anthropic import (
    AnthropicToolResult,
    aanthropic_tool_result,
    aanthropic_tool_results,
    anthropic_tool_result,
    anthropic_tool_results,
)
from toolcall.providers.bedrock import (
    BedrockToolResult,
    abedrock_tool_results,
    bedrock_tool_result,
    bedrock_tool_results,
)
from toolcall.providers.gemini import (
    GeminiFunctionResponse,
    agemini_function_responses,
    gemini_function_response,
    gemini_function_responses,
)
from toolcall.providers.openai import (
    OpenAIToolMessage,
    ResponsesFunctionCallOutput,
    ResponsesToolSearchOutput,
    aopenai_tool_message,
    aopenai_tool_messages,
    aresponses_output,
    aresponses_outputs,
    openai_tool_message,
    openai_tool_messages,
    responses_output,
    responses_outputs,
    responses_tool_search_output,
    responses_tool_search_outputs,
    responses_tools,
)

__all__ = [  # the helpers, and the types they take and give
    "AnthropicToolResult",
    "BedrockToolResult",
    "GeminiFunctionResponse",
    "OpenAIToolMessage",
    "ResponsesFunctionCallOutput",
    "ResponsesToolSearchOutput",
    "SupportsArun",
    "SupportsRun",
    "aanthropic_tool_result",
    "aanthropic_tool_results",
    "abedrock_tool_results",
    "agemini_function_responses",
    "anthropic_tool_result",
    "anthropic_tool_results",
    "aopenai_tool_message",
    "aopenai_tool_messages",
    "aresponses_output",
    "aresponses_outputs",
    "bedrock_tool_result",
    "bedrock_tool_results",
    "gemini_function_response",
    "gemini_function_responses",
    "openai_tool_message",
    "openai_tool_messages",
    "responses_output",
    "responses_outputs",
    "responses_tool_search_output",
    "responses_tool_search_outputs",
    "responses_tools",
]
