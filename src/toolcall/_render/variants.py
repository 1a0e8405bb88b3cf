"""A module's variants: its schemas in each format's envelope, each list built when first
asked for.

A module's variants differ only in their envelopes (``envelope``): the schemas, one per tool
and strict value, are rendered (or read from the cache) once and shared by every list.
Building a list is then one envelope per tool, which a warm process pays only for the formats
it emits, and the cache stores the schemas alone (``_cache.nodes``), not eleven copies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from toolcall._frozen import FrozenList, seal, seal_list
from toolcall._render.envelope import Described, describe_item, envelope
from toolcall._shared.names import FORMATS

__all__ = ["CAPS", "Schemas", "Variants", "check_cap"]

CAPS: Final[dict[str, int]] = {"openai": 128, "responses": 128, "gemini": 512}
"""The most tools a provider accepts in one request, where it documents one: OpenAI refuses
more (``array_above_max_length``), Gemini more function declarations."""

Schemas = tuple[Sequence[Any], Sequence[Any]]
"""Each tool's frozen arguments schema for ``strict=False`` and for ``strict=True``."""

_KEYS: Final = frozenset(
    {(fmt, strict) for fmt in FORMATS for strict in (False, True)} | {("describe", False)}
)


class Variants:
    """A module's tool lists by ``(format, strict)``, and ``("describe", False)``.

    Constant time once built: ``emit`` returns the same frozen list on every call.

    Every list is the module's schemas (one per tool and strict value) in its format's
    envelope, built the first time it is asked for and returned as the same frozen object
    from then on, whichever thread asked first. ``schemas`` is the schemas or a function
    producing them, called once, on the first list asked for (a warm entry's are still
    msgpack until then). ``plain`` and ``strict`` hold the built lists by format, for
    ``strict=False`` and ``strict=True``: ``emit`` reads them without building a key tuple,
    a sixth of its time.
    """

    __slots__ = ("_frozen", "_loaded", "_module", "_source", "_tools", "plain", "strict")

    def __init__(
        self,
        tools: Sequence[Described],
        module: str,
        schemas: Schemas | Callable[[], Schemas],
    ) -> None:
        self._tools = tools
        self._module = module
        self._source = schemas
        self._loaded: Schemas | None = None if callable(schemas) else schemas
        self._frozen: dict[tuple[str, bool], FrozenList] = {}
        self.plain: dict[str, FrozenList] = {}
        self.strict: dict[str, FrozenList] = {}

    def schemas(self) -> Schemas:
        """The loose and strict schemas, produced on the first call."""
        loaded = self._loaded
        if loaded is None:
            source = self._source
            assert callable(source)
            loaded = self._loaded = source()
            self._source = loaded  # what produced them (msgpack bytes) can go
        return loaded

    def share(self, schemas: Schemas) -> None:
        """Hold ``schemas`` (equal to the rendered ones, with equal subtrees shared) instead,
        unless a list has been handed out already: a cold process then holds what a warm one
        does, not a copy of every subtree in every tool."""
        if not self._frozen:
            self._loaded = self._source = schemas

    @property
    def loaded(self) -> bool:
        """Whether the schemas exist yet (a warm entry's are produced on first use)."""
        return self._loaded is not None

    def __getitem__(self, key: tuple[str, bool]) -> FrozenList:
        try:
            return self._frozen[key]
        except KeyError:
            pass
        if key not in _KEYS:
            raise KeyError(key)
        fmt, strict = key
        loose, strict_schemas = self.schemas()
        tools = self._tools
        if fmt == "describe":
            module = self._module
            items = [describe_item(t, module, s, seal) for t, s in zip(tools, loose, strict=True)]
        else:
            schemas = strict_schemas if strict else loose
            flag = bool(strict)
            items = [envelope(t, fmt, flag, s, seal) for t, s in zip(tools, schemas, strict=True)]
        value: FrozenList = self._frozen.setdefault(key, seal_list(items))
        if fmt in FORMATS and len(items) <= CAPS.get(fmt, len(items)):
            # a list over its cap stays out of emit's fast lookup, whose miss then refuses it
            (self.strict if strict else self.plain)[fmt] = value
        return value


_FIX: Final = (
    "send the few a request needs: Toolbox.select(query, k) or toolcall.ToolSearch (see "
    "docs/large-catalogs.md)"
)


def check_cap(fmt: str, count: int, fix: str = _FIX) -> None:
    """Refuse a tool list longer than the provider ``fmt`` accepts, naming the cap and the fix."""
    cap = CAPS.get(fmt)
    if cap is not None and count > cap:
        api = "Gemini" if fmt == "gemini" else "OpenAI"
        msg = f"{count} tools is more than {api} accepts in one request ({cap}); {fix}"
        raise ValueError(msg)
