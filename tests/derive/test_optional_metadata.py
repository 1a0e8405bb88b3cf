"""Annotated metadata inside ``Optional[...]``, ``X | None`` and union arms (issue 36).

``name: Annotated[str, "the menu path"] | None = None`` is a common FastMCP style; its text
was dropped silently. Text, ``Field``, ``Doc``, ``Param`` and ``msgspec.Meta`` are read in an
arm as at the top, right after the top's own metadata; a constraint stays on its arm, where
dispatch enforces it on both of its paths. Arms that describe the value differently give the
first arm's description and a warning naming the others.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import toolcall
from toolcall._derive.module import derive_function
from toolcall._dispatch.fastpath import MISS, build_fastpath
from toolcall._dispatch.plan import build_plan
from toolcall._load import warm as loading

SOURCE = '''
__toolcall__ = True
from dataclasses import dataclass
from typing import Annotated, Optional, TypedDict, Union

import msgspec
from annotated_types import Ge, MinLen
from pydantic import Field
from typing_extensions import Doc

import toolcall


def menu(name: Annotated[str, "the menu path"] | None = None) -> str:
    """Open a menu."""
    return f"{name}"


def count(
    n: Optional[Annotated[int, Field(ge=1, description="how many, at least one")]] = None,
) -> str:
    """Count."""
    return f"{n!r}"


def kinds(
    doc: Optional[Annotated[str, Doc("documented")]] = None,
    param: Union[
        Annotated[int, toolcall.Param(description="an id", wire="string_integer")], None
    ] = None,
    meta: Annotated[float, msgspec.Meta(description="a ratio", le=1)] | None = None,
    examples: Annotated[str, Field(examples=["a", "b"])] | None = None,
) -> None:
    """Every kind of metadata in an arm."""


def ranked(
    top: Annotated[Annotated[str, "inner"] | None, "outer"] = None,
    entry: Annotated[str, "the arm's"] | None = None,
    empty: Annotated[str, toolcall.Param(description="")] | None = None,
    fielded: Annotated[str, "the annotation's"] | None = Field(None, description="the Field's"),
) -> None:
    """Precedence.

    Args:
        entry: the docstring's
        empty: the docstring's
        fielded: the docstring's
    """


@toolcall.param("decorated", description="the decorator's")
def decorated(decorated: Annotated[str, "the arm's"] | None = None) -> None:
    """The decorator wins."""


def either(
    key: Annotated[int, Ge(1), "an id"] | Annotated[str, MinLen(2), "a name"] = "ab",
    same: Annotated[int, "a key"] | Annotated[str, "a key"] | None = None,
) -> str:
    """Two arms, two descriptions."""
    return f"{key!r}"


class Row(TypedDict):
    label: Annotated[str, "the row's label"] | None


@dataclass
class Point:
    x: Optional[Annotated[int, Field(ge=0, description="the x coordinate")]] = None


def rows(row: Row, point: Point) -> None:
    """Fields read their arms too."""


@dataclass
class Place:
    """A named place."""

    name: str


def visit(place: Annotated[Place, toolcall.Param()] | None = None) -> None:
    """An arm with metadata but no text: the type's doc still describes it."""
'''


@pytest.fixture
def module(make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = make_module(SOURCE)
    made.caught = [str(w.message) for w in caught]  # type: ignore[attr-defined]
    return made


def properties(module: types.ModuleType, tool: str) -> dict[str, Any]:
    [found] = [t for t in toolcall.describe(module) if t["name"] == tool]
    return dict(found["parameters"]["properties"])


def test_text_in_an_optional_arm_is_the_description(module: types.ModuleType) -> None:
    """The issue's case: the text reaches the schema, in every format."""
    assert properties(module, "menu") == {
        "name": {"type": ["string", "null"], "description": "the menu path", "default": None}
    }
    [mcp] = [t for t in toolcall.emit(module, "mcp") if t["name"] == "menu"]
    assert mcp["inputSchema"]["properties"]["name"]["description"] == "the menu path"


def test_field_in_an_optional_arm_gives_description_and_constraint(
    module: types.ModuleType,
) -> None:
    """``Optional[Annotated[int, Field(ge=1, description=...)]]``: both, the bound on the
    non-null value."""
    assert properties(module, "count") == {
        "n": {
            "type": ["integer", "null"],
            "minimum": 1,
            "description": "how many, at least one",
            "default": None,
        }
    }


def test_every_kind_of_metadata_is_read_in_an_arm(module: types.ModuleType) -> None:
    """``Doc``, ``Param`` (description and wire), ``msgspec.Meta`` and ``Field(examples=)``."""
    assert properties(module, "kinds") == {
        "doc": {"type": ["string", "null"], "description": "documented", "default": None},
        "param": {
            "type": ["string", "null"],
            "pattern": "^-?[0-9]+$",
            "description": "an id",
            "default": None,
        },
        "meta": {
            "type": ["number", "null"],
            "maximum": 1,
            "description": "a ratio",
            "default": None,
        },
        "examples": {"type": ["string", "null"], "default": None, "examples": ["a", "b"]},
    }


def test_precedence_is_the_top_levels(module: types.ModuleType) -> None:
    """The whole annotation's text beats an arm's; an arm's beats a ``Field`` default's and
    the docstring's; ``Param(description="")`` in an arm suppresses the fallbacks; and
    ``@toolcall.param`` beats them all."""
    described = {name: p.get("description") for name, p in properties(module, "ranked").items()}
    assert described == {
        "top": "outer",
        "entry": "the arm's",
        "empty": None,  # no description at all: not the docstring's
        "fielded": "the annotation's",
    }
    assert properties(module, "decorated")["decorated"]["description"] == "the decorator's"


def test_arms_that_disagree_give_the_first_description_and_a_warning(
    module: types.ModuleType,
) -> None:
    """Two different texts: the first arm's, and one warning naming both; the same text in
    two arms is no disagreement."""
    props = properties(module, "either")
    assert (props["key"]["description"], props["same"]["description"]) == ("an id", "a key")
    disagreements = [line for line in module.caught if "described differently" in line]
    assert disagreements == [
        "either(key): the union's arms are described differently ('an id', 'a name'); the "
        "first, 'an id', describes it and the rest are not sent (write one description for "
        'the whole annotation: Annotated[A | B, "text"])'
    ]


def test_the_other_tools_warn_nothing(module: types.ModuleType) -> None:
    assert [line for line in module.caught if "described differently" not in line] == []


def test_each_constraint_stays_on_its_arm(module: types.ModuleType) -> None:
    """``Ge(1)`` bounds the integer arm only, ``MinLen(2)`` the string arm only."""
    assert properties(module, "either")["key"] == {
        "anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "minLength": 2}],
        "description": "an id",
        "default": "ab",
    }


def test_object_fields_read_their_arms(module: types.ModuleType) -> None:
    props = properties(module, "rows")
    assert props["row"]["properties"]["label"] == {
        "type": ["string", "null"],
        "description": "the row's label",
    }
    assert props["point"]["properties"]["x"] == {
        "type": ["integer", "null"],
        "minimum": 0,
        "description": "the x coordinate",
        "default": None,
    }


def paths(module: types.ModuleType, name: str) -> Callable[[dict[str, Any]], Any]:
    """``run`` of the tool through the generated fast path and through the general one,
    checked to agree; the general path's result."""
    fn = getattr(module, name)
    tool, derived = derive_function(fn)
    resolver = loading.LiveObjects(derived.classes, {})
    fast = build_fastpath(tool, fn, is_async=False, resolver=resolver)
    general = build_plan(tool, fn, resolver, fast=False).run
    assert fast is not None

    def call(args: dict[str, Any]) -> Any:
        result = general(args)
        quick = fast(args)
        assert quick is MISS or quick == result, (args, quick, result)
        assert toolcall.run(module, name, args) == result
        return result

    return call


def test_dispatch_enforces_an_arms_constraint_and_accepts_none(
    module: types.ModuleType,
) -> None:
    """What the schema says dispatch does: 0 breaks ``ge=1``, None and 1 pass."""
    call = paths(module, "count")
    assert call({"n": 1}) == toolcall.Ok("1")
    assert call({"n": None}) == toolcall.Ok("None")
    assert call({}) == toolcall.Ok("None")
    refused = call({"n": 0})
    assert (refused.error.kind, refused.error.argument) == ("invalid_argument", "n")
    assert refused.error.reason == "out_of_range"


def test_dispatch_applies_each_arms_constraint_to_that_arm_only(
    module: types.ModuleType,
) -> None:
    """An integer below 1 and a one-letter string are refused; 5 and "ab" pass, each checked
    only by its own arm's constraint."""
    call = paths(module, "either")
    assert call({"key": 5}) == toolcall.Ok("5")
    assert call({"key": "ab"}) == toolcall.Ok("'ab'")
    for value in (0, "a"):
        refused = call({"key": value})
        assert (refused.error.kind, refused.error.argument) == ("invalid_argument", "key")


def test_an_arm_without_text_keeps_its_types_doc(module: types.ModuleType) -> None:
    """``Annotated[Place, ...] | None`` is ``Place | None`` as far as the type's doc goes."""
    assert properties(module, "visit")["place"]["description"] == "A named place."
