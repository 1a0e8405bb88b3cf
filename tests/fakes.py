"""Stand-ins shared by the tests that build dispatch plans from hand-written IR."""

from __future__ import annotations

from typing import Any


class FakeResolver:
    """Classes and providers from dicts; anything else is unresolvable (objects stay dicts)."""

    def __init__(
        self, classes: dict[str, type] | None = None, providers: dict[str, Any] | None = None
    ) -> None:
        self.classes = classes or {}
        self.providers = providers or {}

    def cls(self, ref: str) -> type:
        try:
            return self.classes[ref]
        except KeyError:
            raise LookupError(ref) from None

    def provider(self, ref: str) -> Any:
        try:
            return self.providers[ref]
        except KeyError:
            raise LookupError(ref) from None
