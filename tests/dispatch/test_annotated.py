"""A parameter's annotated default or validator holds on every dispatch path (issue 21).

A default written as ``Annotated[T, Field(default=...)]`` has no Python default behind it, and a
pydantic validator is invisible in the IR: the generated fast path must not take such a tool
(it would call the function without the argument, or skip the validator), sync or async,
freshly derived or loaded from the cache."""

from __future__ import annotations

import asyncio
import importlib

import toolcall
from toolcall._dispatch.plan import needs_general_path

SOURCE = '''
__toolcall__ = True
from typing import Annotated
from pydantic import AfterValidator, Field
from pydantic.json_schema import SkipJsonSchema

def _twice(v):
    return v * 2

def titled(title: Annotated[str, Field(default="untitled")], n: int = 1) -> str:
    """Title."""
    return f"{title}:{n}"

async def atitled(title: Annotated[str, Field(default_factory=lambda: "made")]) -> str:
    """Title, awaited."""
    return title

def doubled(n: Annotated[int, AfterValidator(_twice)]) -> int:
    """Double."""
    return n

def hidden(n: int, secret: SkipJsonSchema[int] = Field(7)) -> int:
    """Hidden."""
    return n + secret
'''


def test_annotation_defaults_and_validators_on_every_path(make_module, tmp_path, monkeypatch):
    """Annotated defaults and validators hold sync and async, freshly derived and from the cache."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    module = make_module(SOURCE)
    for attempt in range(2):
        if attempt:  # the second time from the cache entry the first import wrote
            module = importlib.reload(module)
        assert toolcall.run(module, "titled", {}) == toolcall.Ok("untitled:1")
        assert toolcall.run(module, "titled", {"n": 2}) == toolcall.Ok("untitled:2")
        assert asyncio.run(toolcall.arun(module, "atitled", {})) == toolcall.Ok("made")
        assert toolcall.run(module, "doubled", {"n": 4}) == toolcall.Ok(8)
        assert toolcall.run(module, "hidden", {"n": 1}) == toolcall.Ok(8)
        refused = toolcall.run(module, "doubled", {"n": "x"}).error
        assert (refused.kind, refused.path) == ("invalid_argument", ("n",))


def test_the_fast_path_is_refused_where_the_signature_cannot_bind(make_module):
    """A tool whose annotated default or validator the fast path would skip is left to the
    general path."""
    module = make_module(SOURCE)
    tools = {tool["name"]: tool for tool in toolcall.describe(module)}
    assert set(tools) == {"titled", "atitled", "doubled", "hidden"}
    derived = {name: toolcall.derive(getattr(module, name)) for name in tools}
    assert needs_general_path(derived["titled"], module.titled)
    assert needs_general_path(derived["atitled"], module.atitled)
    assert needs_general_path(derived["hidden"], module.hidden)


BESIDE_A_BAD_ANNOTATION = '''
from __future__ import annotations
__toolcall__ = True
from typing import Annotated
from pydantic import AfterValidator, Field

def _twice(v):
    return v * 2

def titled(title: Annotated[str, Field(default="untitled")], other: Undefined = None) -> str:
    """Title."""
    return title

def doubled(n: Annotated[int, AfterValidator(_twice)], other: Undefined = None) -> int:
    """Double."""
    return n
'''


def test_one_unresolvable_annotation_keeps_the_others_defaults_and_validators(make_module):
    """Dispatch reads the live annotations one by one, as derivation does: one that does not
    resolve must not cost a neighbour its ``Field`` default or its validator (the function
    was called without ``title``, and ``n`` went unvalidated)."""
    module = make_module(BESIDE_A_BAD_ANNOTATION)
    assert toolcall.run(module, "titled", {}) == toolcall.Ok("untitled")
    assert toolcall.run(module, "doubled", {"n": 4}) == toolcall.Ok(8)
