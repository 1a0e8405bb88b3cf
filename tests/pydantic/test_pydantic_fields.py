"""SPEC 3b, pydantic ``Field`` in every placement, ``Annotated[T, "text"]`` and the precedence
of parameter descriptions, from tool functions written the way FastMCP and pydantic-ai tools
are: each schema is checked against pydantic's own for the same annotation, and ``run``
against what pydantic's validation accepts and rejects."""

from __future__ import annotations

import copy
import warnings
from typing import Annotated, Any

import pytest
from inline import pydantic_schema

import toolcall
from pydantic import Field, TypeAdapter, ValidationError

SEARCH = '''
__toolcall__ = True
from typing import Annotated
from pydantic import Field

def search_issues(
    query: Annotated[str, Field(description="Free-text query", min_length=2, max_length=200)],
    limit: Annotated[int, Field(ge=1, le=100, description="Results per page")] = 10,
    project: Annotated[str, Field(pattern=r"^[A-Z]{2,10}$", examples=["OPS", "WEB"])] = "OPS",
    ratio: Annotated[float, Field(gt=0, lt=1, multiple_of=0.25)] = 0.5,
    labels: Annotated[list[str], Field(max_length=5)] = [],
) -> list[str]:
    """Search the tracker.

    Args:
        query: ignored: the Field description wins
    """
    return [query, str(limit), project, str(ratio), ",".join(labels)]
'''

DEFAULTS = '''
__toolcall__ = True
from pydantic import Field

def post_message(
    text: str = Field(description="The message, at most 300 characters", max_length=300),
    channel: str = Field("general", description="Channel to post in"),
    mentions: list[str] = Field(default_factory=list, description="Users to mention"),
    silent: bool = Field(False),
) -> dict:
    """Post a message to a channel."""
    mentions.append("seen")
    return {"text": text, "channel": channel, "mentions": mentions, "silent": silent}

def required_by_ellipsis(city: str = Field(..., description="City name")) -> str:
    """Weather for a city."""
    return city
'''


def props(module: Any, tool: int = 0) -> dict[str, Any]:
    return copy.deepcopy(toolcall.describe(module)[tool]["parameters"]["properties"])


def test_annotated_field_schema_matches_pydantic(make_module):
    """Each Annotated[T, Field(...)] property is pydantic's schema for that annotation."""
    module = make_module(SEARCH)
    found = props(module)
    annotations = module.search_issues.__annotations__
    defaults = {"limit": 10, "project": "OPS", "ratio": 0.5, "labels": []}
    for name, prop in found.items():
        expected = pydantic_schema(annotations[name], keep_top_description=True)
        if name in defaults:
            expected["default"] = defaults[name]
        assert prop == expected, name
    assert found["query"]["description"] == "Free-text query"
    assert found["project"]["examples"] == ["OPS", "WEB"]


def test_annotated_field_strict_keeps_what_strict_accepts(make_module):
    """Strict mode keeps bounds and patterns, and drops what it rejects (lengths, examples)."""
    module = make_module(SEARCH)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strict = toolcall.emit(module, "openai", strict=True)[0]["function"]["parameters"]
    limit = strict["properties"]["limit"]
    assert limit == {
        "type": ["integer", "null"],
        "minimum": 1,
        "maximum": 100,
        "description": "Results per page",
    }
    assert "examples" not in strict["properties"]["project"]
    assert strict["properties"]["project"]["pattern"] == "^[A-Z]{2,10}$"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("limit", 1000),
        ("limit", 0),
        ("limit", 50),
        ("query", "x"),
        ("query", "ok"),
        ("query", "y" * 201),
        ("project", "ops"),
        ("project", "OPS"),
        ("ratio", 0.3),
        ("ratio", 0.75),
        ("ratio", 1),
        ("labels", ["a"] * 6),
        ("labels", ["a"] * 5),
    ],
)
def test_annotated_field_is_enforced_like_pydantic(make_module, name, value):
    """run accepts exactly what pydantic's validation of the same annotation accepts."""
    module = make_module(SEARCH)
    args = {"query": "bugs", name: value}
    try:
        TypeAdapter(module.search_issues.__annotations__[name]).validate_python(value)
        accepted = True
    except ValidationError:
        accepted = False
    result = toolcall.run(module, "search_issues", args)
    assert isinstance(result, toolcall.Ok) is accepted, result
    if not accepted:
        assert result.error.kind == "invalid_argument"
        assert result.error.path == (name,)


def test_field_defaults(make_module):
    """Field(...) / Field(description=) are required, Field(3) a default, default_factory
    optional without one; the function receives the values, never a FieldInfo."""
    module = make_module(DEFAULTS)
    schema = toolcall.describe(module)[0]["parameters"]
    assert schema["required"] == ["text"]
    assert schema["properties"]["channel"] == {
        "type": "string",
        "description": "Channel to post in",
        "default": "general",
    }
    assert schema["properties"]["mentions"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Users to mention",
    }
    assert schema["properties"]["text"]["maxLength"] == 300
    first = toolcall.run(module, "post_message", {"text": "hi"})
    assert first == toolcall.Ok(
        {"text": "hi", "channel": "general", "mentions": ["seen"], "silent": False}
    )
    second = toolcall.run(module, "post_message", {"text": "hi", "silent": None})
    assert second.value["mentions"] == ["seen"]  # a fresh default_factory() each call
    assert toolcall.run(module, "post_message", {}).error.kind == "missing_argument"
    too_long = toolcall.run(module, "post_message", {"text": "x" * 301})
    assert too_long.error.reason == "too_long"
    assert toolcall.describe(module)[1]["parameters"]["required"] == ["city"]


@pytest.mark.parametrize("fast", [True, False])
def test_field_default_never_reaches_the_function_async(make_module, fast):
    """arun, too, passes the Field's default, not the FieldInfo."""
    import asyncio

    module = make_module(
        """
        __toolcall__ = True
        from pydantic import Field

        async def count(n: int = Field(3, ge=0)) -> int:
            '''Count.'''
            return n + 1
        """
    )
    assert asyncio.run(toolcall.arun(module, "count", {})) == toolcall.Ok(4)


def test_plain_string_metadata_is_the_description(make_module):
    """Annotated[T, "text"] (the Agents SDK and FastMCP idiom) describes the parameter."""
    module = make_module(
        '''
        __toolcall__ = True
        from typing import Annotated

        def get_weather(
            city: Annotated[str, "The city to look up"],
            units: Annotated[str, "metric or imperial"] = "metric",
        ) -> str:
            """Weather."""
            return city
        '''
    )
    found = props(module)
    assert found["city"] == {"type": "string", "description": "The city to look up"}
    assert found["units"]["description"] == "metric or imperial"


def test_description_precedence(make_module):
    """@toolcall.param, then Param, then annotation metadata, then a Field default, then the
    docstring entry, then the type's doc."""
    module = make_module(
        '''
        __toolcall__ = True
        from typing import Annotated, TypedDict
        from pydantic import Field
        import toolcall

        class Spot(TypedDict):
            """A place on the map."""
            lat: float

        @toolcall.param("a", description="from the decorator")
        def f(
            a: Annotated[str, toolcall.Param(description="from Param")],
            b: Annotated[str, toolcall.Param(description="from Param"), Field(description="meta")],
            c: Annotated[str, Field(description="from metadata")] = Field("x", description="dflt"),
            d: str = Field("x", description="from the Field default"),
            e: str = "x",
            g: Spot | None = None,
        ) -> None:
            """F.

            Args:
                c: docstring
                d: docstring
                e: from the docstring
            """
        '''
    )
    found = props(module)
    assert [found[n].get("description") for n in "abcdeg"] == [
        "from the decorator",
        "from Param",
        "from metadata",
        "from the Field default",
        "from the docstring",
        "A place on the map.",
    ]


@pytest.mark.parametrize(
    ("field", "setting"),
    [
        ('Field(alias="q")', "alias='q'"),
        ('Field(validation_alias="q")', "validation_alias='q'"),
        ("Field(max_digits=3)", "max_digits=3"),
        ("Field(deprecated=True)", "deprecated=True"),
    ],
)
def test_unhonoured_settings_warn(make_module, field, setting):
    """A Field setting toolcall does not carry out warns, naming function, parameter, setting."""
    with pytest.warns(toolcall.ToolcallWarning) as caught:
        module = make_module(
            f"""
            __toolcall__ = True
            from typing import Annotated
            from pydantic import Field

            def lookup(query: Annotated[str, {field}]) -> str:
                '''Look up.'''
                return query
            """
        )
    assert module.__toolcall__
    messages = [str(w.message) for w in caught]
    assert any("lookup(query)" in m and setting in m for m in messages), messages


def test_field_constraint_on_the_wrong_type_warns(make_module):
    """A constraint that cannot apply says so instead of vanishing."""
    with pytest.warns(toolcall.ToolcallWarning, match=r"pick\(flag\).*minimum=1"):
        module = make_module(
            """
            __toolcall__ = True
            from typing import Annotated
            from pydantic import Field

            def pick(flag: Annotated[str, Field(ge=1)]) -> str:
                '''Pick.'''
                return flag
            """
        )
    assert module.__toolcall__


def test_examples_from_field_default(make_module):
    """Field(examples=...) as a default is emitted too."""
    module = make_module(
        """
        __toolcall__ = True
        from pydantic import Field

        def geocode(address: str = Field(examples=["1 Main St"])) -> str:
            '''Geocode.'''
            return address
        """
    )
    assert props(module)["address"] == {"type": "string", "examples": ["1 Main St"]}


def test_annotated_field_reference_is_pydantic():
    """The reference itself: pydantic gives these constraints for the annotation."""
    assert pydantic_schema(Annotated[int, Field(ge=1, le=100)]) == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
    }


def test_a_field_info_subclass_is_a_field(make_module):
    """A library's ``FieldInfo`` subclass (SQLModel's ``Field`` returns one) is a ``Field``
    default like pydantic's own: its value is emitted and passed, never the object."""
    module = make_module(
        """
        __toolcall__ = True
        from pydantic.fields import FieldInfo

        class OwnFieldInfo(FieldInfo):
            pass

        def count(n: int = OwnFieldInfo(default=3, description="How many")) -> int:
            '''Count.'''
            return n + 1
        """
    )
    schema = toolcall.describe(module)[0]["parameters"]
    assert schema["properties"]["n"] == {"type": "integer", "description": "How many", "default": 3}
    assert toolcall.run(module, "count", {}) == toolcall.Ok(4)
