"""botocore's validation of a Bedrock Converse request, through a stubbed client (no network):
what the Bedrock shapes toolcall makes are checked against."""

from __future__ import annotations

from typing import Any

_ANSWER = {
    "output": {"message": {"role": "assistant", "content": [{"text": "done"}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    "metrics": {"latencyMs": 1},
}


def converse(**request: Any) -> None:
    """Send ``request`` (``messages``, ``toolConfig``, ...) to a stubbed ``converse``; botocore
    raises ``ParamValidationError`` for a request the API would refuse."""
    import boto3
    from botocore.stub import Stubber

    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    with Stubber(client) as stub:
        stub.add_response("converse", _ANSWER)
        client.converse(modelId="anthropic.claude", **request)
        stub.assert_no_pending_responses()
