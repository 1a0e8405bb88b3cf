"""Who may call the tools: bearer-token verifiers for the SDK's ``TokenVerifier`` protocol.

The SDK does the HTTP side (``AuthenticationMiddleware`` with its ``BearerAuthBackend``,
``RequireAuthMiddleware`` answering 401/403 with ``WWW-Authenticate``, and the RFC 9728
protected-resource metadata route); this module supplies what it verifies tokens with, in
the two shapes FastMCP users know (``StaticTokenVerifier``, ``JWTVerifier``), and the
``AuthSettings`` that wire them. A token is read from a file or an environment variable,
never from the command line, where ``ps`` shows it to every user of the machine.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings

__all__ = ["Auth", "AuthSource", "JWTVerifier", "StaticTokenVerifier", "read_secret"]


class StaticTokenVerifier:
    """Accepts exactly one bearer token (compared in constant time), with ``scopes``.

    For a service-to-service deployment with a shared secret; use :class:`JWTVerifier` where
    an authorization server issues tokens.
    """

    def __init__(self, token: str, *, scopes: Sequence[str] = (), client_id: str = "static"):
        if not token:
            msg = "the bearer token is empty"
            raise ValueError(msg)
        self._token = token.encode()
        self._scopes = list(scopes)
        self._client_id = client_id

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode(errors="surrogateescape"), self._token):
            return None
        return AccessToken(token=token, client_id=self._client_id, scopes=self._scopes)


class JWTVerifier:
    """Verifies signed JWTs (PyJWT, which the mcp SDK depends on) against a JWKS URL or a
    public key, checking the signature, ``exp`` (required), ``nbf``, ``iss`` and ``aud``.

    Scopes are read from ``scope`` (space-separated, RFC 8693) or ``scp`` (a list or a
    string), as FastMCP's ``JWTVerifier`` does; the scopes a request needs are checked by the
    SDK (``AuthSettings.required_scopes``: 403 ``insufficient_scope``). Keys fetched from
    ``jwks_url`` are cached and the fetch runs off the event loop.
    """

    def __init__(
        self,
        *,
        jwks_url: str | None = None,
        public_key: str | None = None,
        issuer: str | None = None,
        audience: str | Sequence[str] | None = None,
        algorithms: Sequence[str] = ("RS256",),
        leeway: float = 0,
    ) -> None:
        import jwt

        if (jwks_url is None) == (public_key is None):
            msg = "give exactly one of jwks_url and public_key"
            raise ValueError(msg)
        self._jwt = jwt
        self._jwks = None if jwks_url is None else jwt.PyJWKClient(jwks_url, lifespan=300)
        self._key = public_key
        self._issuer = issuer
        self._audience = audience if audience is None or isinstance(audience, str) else [*audience]
        self._algorithms = list(algorithms)
        self._leeway = leeway

    async def verify_token(self, token: str) -> AccessToken | None:
        jwt = self._jwt
        try:
            if self._jwks is not None:
                signing = await anyio.to_thread.run_sync(self._jwks.get_signing_key_from_jwt, token)
                key: Any = signing.key
            else:
                key = self._key
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=self._algorithms,
                audience=self._audience,
                issuer=self._issuer,
                leeway=self._leeway,
                options={"require": ["exp"], "verify_aud": self._audience is not None},
            )
        except (jwt.PyJWTError, ValueError, TypeError):
            return None
        expires = claims.get("exp")
        if not isinstance(expires, int | float) or expires < time.time() - self._leeway:
            return None
        subject = claims.get("sub")
        client = claims.get("client_id") or claims.get("azp") or subject or "unknown"
        return AccessToken(
            token=token,
            client_id=str(client),
            scopes=_scopes(claims),
            expires_at=int(expires),
            subject=None if subject is None else str(subject),
            claims=claims,
        )


def _scopes(claims: dict[str, Any]) -> list[str]:
    for name in ("scope", "scp"):
        found = claims.get(name)
        if isinstance(found, str):
            return found.split()
        if isinstance(found, list):
            return [str(item) for item in found]
    return []


@dataclass
class Auth:
    """How a served endpoint authenticates: the verifier, and what the metadata says.

    ``resource_url`` is this server's public URL (``https://mcp.example.com/mcp``), the
    resource of the protected-resource metadata served at
    ``/.well-known/oauth-protected-resource/<path>``; it defaults to the URL served.
    ``authorization_servers`` are the issuers clients get tokens from (for a JWT verifier,
    its issuer); without one there is no metadata route (a static token has no issuer).
    ``required_scopes`` must all be in a token, else 403.
    """

    verifier: TokenVerifier
    authorization_servers: Sequence[str] = ()
    required_scopes: Sequence[str] = ()
    resource_url: str | None = None
    documentation_url: str | None = field(default=None)

    def settings(self, served_url: str) -> AuthSettings:
        """The SDK's settings; the audience is the verifier's to check, not the SDK's."""
        resource = self.resource_url or served_url
        issuers = list(self.authorization_servers)
        return AuthSettings(
            issuer_url=issuers[0] if issuers else resource,  # type: ignore[arg-type]
            resource_server_url=resource if issuers else None,  # type: ignore[arg-type]
            required_scopes=list(self.required_scopes) or None,
            validate_token_resource=False if issuers else None,
            service_documentation_url=self.documentation_url,  # type: ignore[arg-type]
        )


def read_secret(file: str | os.PathLike[str] | None, variable: str | None) -> str:
    """The token in ``file`` (surrounding whitespace removed) or environment ``variable``.

    Raises ``ValueError`` with one line naming the source when it is missing or empty.
    """
    if file is not None:
        try:
            text = Path(file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            msg = f"cannot read the token file {os.fspath(file)}: {exc.__class__.__name__}"
            raise ValueError(msg) from None
        source = f"the token file {os.fspath(file)}"
    elif variable is not None:
        text = os.environ.get(variable, "").strip()
        source = f"environment variable {variable}"
    else:
        msg = "no token source"
        raise ValueError(msg)
    if not text:
        msg = f"{source} is empty or missing"
        raise ValueError(msg)
    return text


@dataclass
class AuthSource:
    """Where a server process finds its authentication, never the secret itself: a worker
    process rebuilds its :class:`Auth` from this (the token stays in its file or variable)."""

    token_file: str | None = None
    token_env: str | None = None
    jwks_url: str | None = None
    public_key_file: str | None = None
    issuer: str | None = None
    audience: list[str] = field(default_factory=list)
    algorithms: list[str] = field(default_factory=lambda: ["RS256"])
    required_scopes: list[str] = field(default_factory=list)
    authorization_servers: list[str] = field(default_factory=list)
    resource_url: str | None = None

    def build(self) -> Auth | None:
        """The :class:`Auth` described, None when nothing is; ``ValueError`` (one line)
        for a source that is unreadable, empty or contradictory."""
        token = self.token_file is not None or self.token_env is not None
        signed = self.jwks_url is not None or self.public_key_file is not None
        if token and signed:
            msg = "give either a bearer token or a JWT key, not both"
            raise ValueError(msg)
        if self.token_file is not None and self.token_env is not None:
            msg = "give the bearer token in a file or in a variable, not both"
            raise ValueError(msg)
        if self.jwks_url is not None and self.public_key_file is not None:
            msg = "give a JWKS URL or a public key file, not both"
            raise ValueError(msg)
        verifier: TokenVerifier
        issuers = list(self.authorization_servers)
        if token:
            verifier = StaticTokenVerifier(read_secret(self.token_file, self.token_env))
        elif signed:
            key = None
            if self.public_key_file is not None:
                key = read_secret(self.public_key_file, None)
            verifier = JWTVerifier(
                jwks_url=self.jwks_url,
                public_key=key,
                issuer=self.issuer,
                audience=self.audience or None,
                algorithms=self.algorithms,
            )
            if not issuers and self.issuer is not None:
                issuers = [self.issuer]
        else:
            if self.required_scopes:
                msg = "required scopes need a token or a JWT key to read them from"
                raise ValueError(msg)
            return None
        return Auth(
            verifier,
            authorization_servers=issuers,
            required_scopes=self.required_scopes,
            resource_url=self.resource_url,
        )
