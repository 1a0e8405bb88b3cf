"""Only an authenticated client reaches a tool over HTTP, shown on real processes (issue 22.1)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from served import Served, client, modern_call, modern_headers, serving

from loopback import Loopback
from toolcall.cli.main import main

pytestmark = pytest.mark.anyio

TOKEN = "tc-test-token-7f3a"
ISSUER = "https://issuer.example"
AUDIENCE = "toolcall-tests"


@pytest.fixture(scope="module")
def token_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("secrets") / "token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture(scope="module")
def static(token_file: Path) -> Iterator[Served]:
    with serving("prodtools", "--auth-token-file", str(token_file), "--access-log") as served:
        yield served


def post(served: Served, token: str | None, n: int) -> httpx2.Response:
    headers = modern_headers(name="tag")
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx2.post(served.url, headers=headers, json=modern_call("tag", {"n": n}), timeout=30)


def called(served: Served, marker: int) -> list[str]:
    """Access-log lines of calls that reached the tool with argument ``marker``... which the
    log never shows: so count the calls of ``tag`` instead."""
    del marker
    return [line for line in served.access("call") if "tool=tag" in line]


def test_missing_or_wrong_token_gets_401_and_reaches_no_tool(static: Served) -> None:
    """A missing, wrong or extended token gets 401 with a Bearer challenge, and no tool runs for
    it."""
    before = len(called(static, 0))
    missing = post(static, None, 101)
    wrong = post(static, "not-the-token", 102)
    longer = post(static, TOKEN + "x", 103)
    assert [missing.status_code, wrong.status_code, longer.status_code] == [401, 401, 401]
    assert missing.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    assert missing.json() == {
        "error": "invalid_token",
        "error_description": "Authentication required",
    }
    good = post(static, TOKEN, 104)
    assert good.status_code == 200
    assert json.loads(good.json()["result"]["content"][0]["text"])["n"] == 104
    static.wait_for(lambda _: len(called(static, 0)) == before + 1)
    assert len(called(static, 0)) == before + 1  # only the authenticated call ran


async def test_the_sdk_client_needs_the_token(static: Served) -> None:
    """The MCP SDK's client is refused without the right token and served with it."""
    before = len(called(static, 0))
    with anyio.fail_after(30):
        for token in (None, "wrong"):
            with pytest.raises(Exception) as refused:  # noqa: PT011  # a group, checked below
                async with client(static.url, token) as session:
                    await session.call_tool("tag", {"n": 1})
            assert [type(leaf) for leaf in _leaves(refused.value)] == [MCPError]
        async with client(static.url, TOKEN) as session:
            result = await session.call_tool("tag", {"n": 7})
    assert isinstance(result, CallToolResult)
    assert result.structured_content is not None
    assert result.structured_content["n"] == 7
    static.wait_for(lambda _: len(called(static, 0)) == before + 1)
    statuses = [line.split("status=")[1].split()[0] for line in static.access("request")]
    assert statuses.count("401") >= 2


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def test_healthz_needs_no_token(static: Served) -> None:
    """The health check answers without a token."""
    answer = httpx2.get(f"{static.base}/healthz", timeout=30)
    assert (answer.status_code, answer.json()) == (200, {"status": "ok"})


def test_token_from_an_environment_variable() -> None:
    """``--auth-token-env`` reads the token from the named environment variable."""
    with serving("prodtools", "--auth-token-env", "TC_TOKEN", env={"TC_TOKEN": TOKEN}) as served:
        assert post(served, None, 1).status_code == 401
        assert post(served, TOKEN, 2).status_code == 200


def test_an_empty_token_source_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty token file or environment variable stops the server with one line naming it."""
    empty = tmp_path / "empty"
    empty.write_text("\n")
    argv = ["serve-mcp", "prodtools", "--transport", "http", "--auth-token-file", str(empty)]
    assert main(argv) == 1
    assert (
        capsys.readouterr().err == f"toolcall: error: the token file {empty} is empty or missing\n"
    )
    assert (
        main(["serve-mcp", "prodtools", "--transport", "http", "--auth-token-env", "TC_NONE_XYZ"])
        == 1
    )
    assert capsys.readouterr().err == (
        "toolcall: error: environment variable TC_NONE_XYZ is empty or missing\n"
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1"])
def test_a_public_bind_without_auth_is_refused(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line, exit status 2 (a usage error), before any module is imported."""
    assert main(["serve-mcp", "no_such_module_xyz", "--transport", "http", "--host", host]) == 2
    assert capsys.readouterr().err == (
        f"toolcall: error: refusing to serve {host} without authentication: give a token "
        "(--auth-token-file, --auth-token-env) or a JWT key (--jwt-jwks-url, "
        "--jwt-public-key-file), or --allow-unauthenticated\n"
    )


def test_workers_need_stateless(capsys: pytest.CaptureFixture[str]) -> None:
    """A session lives in one worker: several workers without --stateless are refused."""
    assert main(["serve-mcp", "prodtools", "--transport", "http", "--workers", "2"]) == 2
    assert capsys.readouterr().err == (
        "toolcall: error: --workers needs --transport http --stateless\n"
    )


def test_a_token_on_the_command_line_is_not_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    """There is no ``--auth-token``: a secret on the command line would show in the process list."""
    with pytest.raises(SystemExit) as exited:
        main(["serve-mcp", "prodtools", "--transport", "http", "--auth-token", TOKEN])
    assert exited.value.code == 2
    assert "--auth-token" in capsys.readouterr().err


def test_allow_unauthenticated_serves_a_public_address() -> None:
    """``--allow-unauthenticated`` lets the server take a public address without a token."""
    with serving("prodtools", "--host", "0.0.0.0", "--allow-unauthenticated") as served:
        url = served.url.replace("0.0.0.0", "127.0.0.1")
        answer = httpx2.post(
            url, headers=modern_headers(name="tag"), json=modern_call("tag", {"n": 3}), timeout=30
        )
        assert answer.status_code == 200
        assert served.stop() == 0


# -- JWT --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keys() -> tuple[Any, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public.decode()


def signed(private: Any, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now + 600, "iat": now}
    body.update(claims)
    body = {key: value for key, value in body.items() if value is not None}
    return jwt.encode(body, private, algorithm="RS256", headers={"kid": "k1"})


JWT_ARGS = ("--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE, "--required-scope", "tools")


@pytest.fixture(scope="module")
def with_key(keys: tuple[Any, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    pem = tmp_path_factory.mktemp("keys") / "public.pem"
    pem.write_text(keys[1])
    with serving("prodtools", "--jwt-public-key-file", str(pem), *JWT_ARGS) as served:
        yield served


def test_jwt_claims_are_checked(with_key: Served, keys: tuple[Any, str]) -> None:
    """A JWT is accepted only with the right key, audience, issuer, an expiry to come and the
    scope (``scope`` or ``scp``); the scope alone missing is 403."""
    private = keys[0]
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases = {
        "good": signed(private, scope="tools other"),
        "scp list": signed(private, scp=["tools"]),
        "no scope": signed(private, scope="other"),
        "wrong audience": signed(private, aud="someone-else", scope="tools"),
        "wrong issuer": signed(private, iss="https://evil.example", scope="tools"),
        "expired": signed(private, exp=int(time.time()) - 60, scope="tools"),
        "no expiry": signed(private, exp=None, scope="tools"),
        "other key": signed(other, scope="tools"),
        "not a jwt": "abc.def.ghi",
    }
    statuses = {name: post(with_key, token, 1).status_code for name, token in cases.items()}
    assert statuses == {
        "good": 200,
        "scp list": 200,
        "no scope": 403,
        "wrong audience": 401,
        "wrong issuer": 401,
        "expired": 401,
        "no expiry": 401,
        "other key": 401,
        "not a jwt": 401,
    }


def test_protected_resource_metadata(with_key: Served) -> None:
    """A refused request points to the protected-resource metadata, which names the resource, the
    issuer and the scope."""
    refused = post(with_key, None, 1)
    metadata_url = f"{with_key.base}/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata_url}"' in refused.headers["www-authenticate"]
    metadata = httpx2.get(metadata_url, timeout=30).json()
    assert metadata["resource"] == with_key.url
    assert metadata["authorization_servers"] == [ISSUER]
    assert metadata["scopes_supported"] == ["tools"]


def test_jwt_against_a_jwks_url(keys: tuple[Any, str]) -> None:
    """Keys are fetched from a JWKS URL once and kept for the calls after."""
    private = keys[0]
    jwk = json.loads(RSAAlgorithm.to_jwk(private.public_key()))
    with Loopback() as jwks:
        for _ in range(4):
            jwks.answer({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]})
        url = f"{jwks.url}/jwks.json"
        with serving("prodtools", "--jwt-jwks-url", url, *JWT_ARGS) as served:
            assert post(served, signed(private, scope="tools"), 1).status_code == 200
            assert post(served, signed(private, scope="tools"), 2).status_code == 200
            assert post(served, "abc", 3).status_code == 401
        assert [request.path for request in jwks.requests] == ["/jwks.json"]  # cached
