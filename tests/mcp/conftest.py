"""Fixtures every MCP test shares: anyio on asyncio, and both ways a client connects."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    """How the in-process client connects: initialize handshake, or the 2026 protocol."""
    return str(request.param)
