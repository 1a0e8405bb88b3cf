"""A recording HTTP server on 127.0.0.1 that answers canned JSON responses, for SDK round trips.

The provider SDKs are real clients: pointed at this server they serialise requests exactly as
they would for the provider, and parse the canned answers with their own models. Each request
takes the next queued answer; when the queue is empty (a test sent more requests than it
planned) the server answers 500, which the SDK raises, so the test fails loudly instead of
hanging. The request count is capped so a retry loop cannot run away either.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = ["Loopback", "Recorded"]

_MAX_REQUESTS = 32
_MAX_BODY = 1 << 20
_SOCKET_TIMEOUT = 5.0


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it; ``body`` is the decoded JSON (None if empty)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class Loopback:
    """``with Loopback() as server:`` serves on ``server.url`` until the block ends."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._answers: deque[tuple[int, Any]] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def pending(self) -> int:
        """Canned answers not yet requested."""
        with self._lock:
            return len(self._answers)

    def answer(self, body: Any, status: int = 200) -> None:
        """Queue the JSON ``body`` as the answer to the next unanswered request."""
        with self._lock:
            self._answers.append((status, body))

    def __enter__(self) -> Loopback:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, recorded: Recorded) -> tuple[int, Any]:
        with self._lock:
            self.requests.append(recorded)
            if len(self.requests) > _MAX_REQUESTS:
                return 503, {"error": {"message": "loopback: request limit reached"}}
            if not self._answers:
                return 500, {"error": {"message": "loopback: no canned answer left"}}
            return self._answers.popleft()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        loopback = self

        class Handler(BaseHTTPRequestHandler):
            timeout = _SOCKET_TIMEOUT

            def do_POST(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), _MAX_BODY)
                raw = self.rfile.read(length)
                recorded = Recorded(
                    method=self.command,
                    path=self.path,
                    headers={key.lower(): value for key, value in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                )
                status, answer = loopback._next(recorded)
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                """Keep the test output clean: requests are recorded, not logged."""

        return Handler
