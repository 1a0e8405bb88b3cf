"""The OpenAI Responses API's function tool, from the Chat Completions one ``emit`` renders:
for :func:`toolcall.providers.responses_tools` and :class:`toolcall.ToolSearch` alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["flat_function"]


def flat_function(tool: Mapping[str, Any]) -> dict[str, Any] | None:
    """``{"type": "function", "name", "description", "parameters", "strict"}`` for a Chat
    Completions function tool (None for anything else, which the Responses API takes as it is).

    ``strict`` is always set: the Responses API treats an absent one as ``true``, which a
    schema rendered without ``strict=True`` does not satisfy.
    """
    function = tool.get("function")
    if tool.get("type") != "function" or not isinstance(function, Mapping):
        return None
    flat: dict[str, Any] = {"type": "function", "name": function["name"]}
    if "description" in function:
        flat["description"] = function["description"]
    flat["parameters"] = function.get("parameters")
    flat["strict"] = bool(function.get("strict", False))
    return flat
