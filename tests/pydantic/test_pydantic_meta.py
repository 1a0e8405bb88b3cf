"""Pydantic's JSON-schema metadata means what pydantic means (SPEC 3b, issue 21).

``WithJsonSchema``, ``SkipJsonSchema``, ``json_schema_extra``, ``Field`` defaults inside
``Annotated``, pydantic types with a ``Field`` default, ``Discriminator``/``Tag`` unions and the
functional validators, each compared with what pydantic (``TypeAdapter``) or FastMCP gives for
the same function, and ``run`` checked against the schema."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from fastmcp.tools import Tool as FastMCPTool

import toolcall

AGE = '''
__toolcall__ = True
from typing import Annotated
from pydantic import Field, WithJsonSchema

Age = Annotated[
    int,
    Field(ge=0, description="An age"),
    WithJsonSchema({"type": "integer", "description": "Age in years"}),
]

def set_age(age: Age) -> int:
    """Set the age."""
    return age

def other(name: str) -> str:
    """Another tool of the same module."""
    return name
'''


def props(module: Any, tool: int = 0, *, fmt: str = "mcp", strict: bool = False) -> Any:
    found = toolcall.emit(module, fmt, strict=strict)[tool]
    schema = found["inputSchema"] if fmt == "mcp" else found["function"]["parameters"]
    return copy.deepcopy(dict(schema["properties"]))


def quiet(make_module: Any, source: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolcall.ToolcallWarning)
        return make_module(source)


def test_with_json_schema_replaces_the_schema_and_the_type_is_still_validated(make_module):
    """The logfire-mcp alias: the schema given, as pydantic gives it; dispatch still checks
    the int and its ge=0 (pydantic does too); the other tools of the module derive."""
    module = quiet(make_module, AGE)
    assert props(module) == {"age": {"type": "integer", "description": "Age in years"}}
    assert toolcall.tool_names(module) == ("set_age", "other")
    fastmcp = FastMCPTool.from_function(module.set_age).parameters["properties"]
    assert props(module) == fastmcp
    assert toolcall.run(module, "set_age", {"age": 4}) == toolcall.Ok(4)
    low = toolcall.run(module, "set_age", {"age": -1}).error
    assert (low.kind, low.reason, low.path) == ("invalid_argument", "out_of_range", ("age",))
    text = toolcall.run(module, "set_age", {"age": "x"}).error
    assert (text.kind, text.reason) == ("invalid_argument", "expected_integer")


def test_with_json_schema_nested_and_optional(make_module):
    """Inside a list, and widened with null where the parameter takes None, like pydantic."""
    module = quiet(
        make_module,
        """
        __toolcall__ = True
        from typing import Annotated
        from pydantic import WithJsonSchema

        def f(
            xs: list[Annotated[int, WithJsonSchema({"type": "number"})]],
            y: Annotated[int, WithJsonSchema({"type": "integer", "x-a": 1})] | None = None,
        ) -> int:
            '''F.'''
            return len(xs)
        """,
    )
    assert props(module) == {
        "xs": {"type": "array", "items": {"type": "number"}},
        "y": {"anyOf": [{"type": "integer", "x-a": 1}, {"type": "null"}], "default": None},
    }
    assert props(module, fmt="openai", strict=True)["y"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}]
    }
    assert FastMCPTool.from_function(module.f).parameters["properties"] == props(module)
    bad = toolcall.run(module, "f", {"xs": [1.5]}).error
    assert (bad.reason, bad.path) == ("expected_integer", ("xs", 0))


def test_field_default_inside_annotated(make_module):
    """The Agents SDK's case: optional with its default, and run passes it when omitted."""
    module = quiet(
        make_module,
        """
        __toolcall__ = True
        from typing import Annotated
        from pydantic import Field

        def post(
            body: str,
            title: Annotated[str, Field(description="The title", default="")],
            tags: Annotated[list[str], Field(default_factory=list, max_length=3)],
        ) -> str:
            '''Post.'''
            return f"{title!r} {tags!r}"
        """,
    )
    schema = toolcall.emit(module, "mcp")[0]["inputSchema"]
    assert schema["required"] == ["body"]
    assert schema["properties"]["title"] == {
        "type": "string",
        "description": "The title",
        "default": "",
    }
    assert schema["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": 3,
    }
    fastmcp = FastMCPTool.from_function(module.post).parameters
    assert fastmcp["required"] == ["body"]
    assert fastmcp["properties"]["title"] == schema["properties"]["title"]
    assert toolcall.run(module, "post", {"body": "b"}) == toolcall.Ok("'' []")
    assert toolcall.run(module, "post", {"body": "b", "title": "T"}) == toolcall.Ok("'T' []")
    assert toolcall.run(module, "post", {"body": "b", "title": None}) == toolcall.Ok("'' []")


POST = '''
__toolcall__ = True
from typing import Annotated
from pydantic import Field

def post(title: Annotated[str, Field(default="none")]) -> str:
    """Post."""
    return title
'''


def test_field_default_inside_annotated_is_trusted_from_the_cache(make_module):
    """A cached entry's default is checked against the annotation's (no Python default)."""
    from toolcall import ir
    from toolcall._load import trust

    module = quiet(make_module, POST)
    tool = toolcall.derive(module.post)
    entry = ir.ModuleIR(module=module.__name__, tools=(tool,))
    functions, _ = trust.verify(module, entry, (), [module.post], {})
    assert functions == {"post": module.post}
    title = ir.Parameter(
        name="title", type=ir.Type(kind="string"), required=False, has_default=True, default="x"
    )
    changed = ir.Tool(name="post", parameters=(title,), module=module.__name__, qualname="post")
    with pytest.raises(trust.Untrusted, match="default"):
        trust.verify(
            module, ir.ModuleIR(module=module.__name__, tools=(changed,)), (), [module.post], {}
        )
    assert toolcall.run(module, "post", {}) == toolcall.Ok("none")


def test_pydantic_type_with_a_field_default(make_module):
    """``query: HttpUrl = Field(..., description=...)``: pydantic's schema and validation."""
    module = quiet(
        make_module,
        """
        __toolcall__ = True
        from pydantic import Field, HttpUrl

        def fetch(query: HttpUrl = Field(..., description="The page")) -> str:
            '''Fetch.'''
            return str(query)
        """,
    )
    assert props(module) == {
        "query": {
            "type": "string",
            "format": "uri",
            "minLength": 1,
            "maxLength": 2083,
            "description": "The page",
        }
    }
    assert FastMCPTool.from_function(module.fetch).parameters["properties"] == props(module)
    bad = toolcall.run(module, "fetch", {"query": 42}).error
    assert (bad.kind, bad.path) == ("invalid_argument", ("query",))
    assert toolcall.run(module, "fetch", {"query": "https://x.org"}) == toolcall.Ok(
        "https://x.org/"
    )


def test_json_schema_extra_dict_is_merged(make_module):
    """livekit's enum and the mcp SDK's x-mcp-header are kept; strict keeps the enum only."""
    module = quiet(
        make_module,
        """
        __toolcall__ = True
        from typing import Annotated
        from pydantic import Field

        def call(
            voice: Annotated[str, Field(json_schema_extra={"enum": ["a", "b"]})],
            token: Annotated[
                str, Field(description="T", json_schema_extra={"x-mcp-header": "X-Token"})
            ],
            size: Annotated[int, Field(json_schema_extra={"examples": [3]})] = 3,
        ) -> str:
            '''Call.'''
            return voice
        """,
    )
    assert props(module) == {
        "voice": {"type": "string", "enum": ["a", "b"]},
        "token": {"type": "string", "x-mcp-header": "X-Token", "description": "T"},
        "size": {"type": "integer", "examples": [3], "default": 3},
    }
    assert FastMCPTool.from_function(module.call).parameters["properties"] == props(module)
    assert props(module, fmt="openai", strict=True) == {
        "voice": {"type": "string", "enum": ["a", "b"]},
        "token": {"type": "string", "description": "T"},
        "size": {"type": ["integer", "null"]},
    }


def test_json_schema_extra_callable_is_applied(make_module):
    """A callable json_schema_extra edits the schema as in FastMCP; dispatch still checks what
    the type says."""
    module = quiet(
        make_module,
        """
        __toolcall__ = True
        from typing import Annotated
        from pydantic import Field

        def _mark(schema):
            schema["format"] = "email"
            schema.pop("maxLength")

        def send(to: Annotated[str, Field(max_length=9, json_schema_extra=_mark)]) -> str:
            '''Send.'''
            return to
        """,
    )
    assert props(module) == {"to": {"type": "string", "format": "email"}}
    assert FastMCPTool.from_function(module.send).parameters["properties"] == props(module)
    # the schema is the user's words; dispatch still checks what the type says
    assert toolcall.run(module, "send", {"to": "x" * 10}).error.reason == "too_long"


def test_skip_json_schema_parameter_union_variant_and_model_field(make_module):
    """SkipJsonSchema hides a parameter, a union member or a model field from the schema, and run
    refuses what it hides."""
    module = quiet(
        make_module,
        """
        __toolcall__ = True
        from pydantic import BaseModel, Field
        from pydantic.json_schema import SkipJsonSchema

        class Item(BaseModel):
            name: str
            secret: SkipJsonSchema[int] = 1

        def f(
            item: Item,
            a: int | SkipJsonSchema[None] = None,
            b: SkipJsonSchema[int] = 5,
            c: SkipJsonSchema[int] = Field(6),
        ) -> str:
            '''F.'''
            return f"{item.secret} {a} {b} {c}"
        """,
    )
    assert props(module) == {
        "item": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": False,
        },
        "a": {"type": "integer"},
    }
    assert toolcall.run(module, "f", {"item": {"name": "n"}}) == toolcall.Ok("1 None 5 6")
    hidden = toolcall.run(module, "f", {"item": {"name": "n"}, "b": 1}).error
    assert (hidden.kind, hidden.names) == ("unknown_arguments", ("b",))
    field = toolcall.run(module, "f", {"item": {"name": "n", "secret": 2}}).error
    assert (field.reason, field.path) == ("unknown_field", ("item", "secret"))


def test_skip_json_schema_without_a_default_warns_and_stays(make_module):
    """SkipJsonSchema on a parameter without a default warns and leaves it in the schema."""
    with pytest.warns(toolcall.ToolcallWarning, match=r"f\(b\): SkipJsonSchema .*no"):
        module = make_module(
            """
            __toolcall__ = True
            from pydantic.json_schema import SkipJsonSchema

            def f(b: SkipJsonSchema[int]) -> int:
                '''F.'''
                return b
            """
        )
    assert props(module) == {"b": {"type": "integer"}}


def test_union_with_a_callable_keeps_what_json_can_carry(make_module):
    """``Union[str, Callable]``: pydantic's schema (the string), and a warning naming it."""
    with pytest.warns(toolcall.ToolcallWarning) as caught:
        module = make_module(
            """
            __toolcall__ = True
            from typing import Callable, Union

            def f(x: Union[str, Callable]) -> str:
                '''F.'''
                return str(x)
            """
        )
    messages = [str(w.message) for w in caught]
    assert any("f(x)" in m and "Callable" in m and "leaves it out" in m for m in messages)
    assert not any("does not know the type" in m for m in messages), messages
    assert props(module) == {"x": {"type": "string"}}
    assert toolcall.run(module, "f", {"x": 1}).error.reason == "expected_string"


TAGGED = """
__toolcall__ = True
from typing import Annotated, Literal, Union
from pydantic import BaseModel, Discriminator, Field, Tag

class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int

class Dog(BaseModel):
    kind: Literal["dog"]
    bark: str

def by_field(pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]) -> str:
    '''By a field.'''
    return type(pet).__name__

def _pick(value):
    return "dog" if "bark" in value else "cat"

Pet = Union[Annotated[Cat, Tag("cat")], Annotated[Dog, Tag("dog")]]

def by_function(pet: Annotated[Pet, Discriminator(_pick)]) -> str:
    '''By a function.'''
    return type(pet).__name__
"""


def test_discriminated_unions(make_module):
    """A field discriminator is already a tagged union (each variant's literal); a callable
    one is pydantic's to run."""
    module = quiet(make_module, TAGGED)
    cat = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["cat"]}, "lives": {"type": "integer"}},
        "required": ["kind", "lives"],
        "additionalProperties": False,
    }
    assert props(module)["pet"]["anyOf"][0] == cat
    assert toolcall.run(module, "by_field", {"pet": {"kind": "dog", "bark": "w"}}) == toolcall.Ok(
        "Dog"
    )
    bad = toolcall.run(module, "by_field", {"pet": {"kind": "cow"}}).error
    assert (bad.kind, bad.path[0]) == ("invalid_argument", "pet")
    assert toolcall.run(
        module, "by_function", {"pet": {"kind": "dog", "bark": "w"}}
    ) == toolcall.Ok("Dog")
    wrong = toolcall.run(module, "by_function", {"pet": {"kind": "cat", "bark": "w"}}).error
    assert (wrong.kind, wrong.path[0]) == ("invalid_argument", "pet")


VALIDATED = """
__toolcall__ = True
from typing import Annotated
from pydantic import AfterValidator, BeforeValidator, PlainValidator, WrapValidator

def _positive(v):
    if v <= 0:
        raise ValueError("must be positive")
    return v

def _double(v: int) -> int:
    return v * 2

def after(x: Annotated[int, AfterValidator(_positive), AfterValidator(_double)]) -> int:
    '''After.'''
    return x

def _strip(v):
    return v.strip() if isinstance(v, str) else v

def before(x: Annotated[int, BeforeValidator(_strip)]) -> int:
    '''Before.'''
    return x

def plain(x: Annotated[str, PlainValidator(lambda v: f"<{v}>")]) -> str:
    '''Plain.'''
    return x

def wrap(x: Annotated[int, WrapValidator(lambda v, handler: handler(v) + 1)]) -> int:
    '''Wrap.'''
    return x

def nested(xs: list[Annotated[int, AfterValidator(_double)]]) -> list[int]:
    '''Nested.'''
    return xs
"""


def test_validators_run_when_the_parameter_is_validated(make_module):
    """Pydantic's functional validators run when their parameter is validated, their errors a
    value_error."""
    module = quiet(make_module, VALIDATED)
    assert props(module, 0) == {"x": {"type": "integer"}}
    assert toolcall.run(module, "after", {"x": 3}) == toolcall.Ok(6)
    refused = toolcall.run(module, "after", {"x": -1}).error
    assert (refused.kind, refused.reason, refused.path) == (
        "invalid_argument",
        "value_error",
        ("x",),
    )
    assert "must be positive" in refused.message
    assert toolcall.run(module, "before", {"x": " 4 "}) == toolcall.Ok(4)
    assert toolcall.run(module, "plain", {"x": 5}) == toolcall.Ok("<5>")
    assert toolcall.run(module, "wrap", {"x": 1}) == toolcall.Ok(2)
    assert toolcall.run(module, "nested", {"xs": [1, 2]}) == toolcall.Ok([2, 4])
    assert toolcall.run(module, "nested", {"xs": "[1, 2]"}) == toolcall.Ok([2, 4])
    bad = toolcall.run(module, "nested", {"xs": ["a"]}).error
    assert (bad.kind, bad.path) == ("invalid_argument", ("xs", 0))


MODELS = """
__toolcall__ = True
from pydantic import BaseModel, ConfigDict

class Line(BaseModel):
    sku: str

class Order(BaseModel):
    lines: list[Line]

class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str

class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str

def place(order: Order) -> int:
    '''Place.'''
    return len(order.lines)

def keep(o: Open) -> dict:
    '''Keep.'''
    return o.model_dump()

def shut(c: Closed) -> str:
    '''Shut.'''
    return c.name
"""


def test_model_extra_agrees_with_its_schema(make_module):
    """extra='ignore' (the default) is closed in the schema, so run refuses unknown keys at
    their path; extra='allow' is open and keeps them; extra='forbid' is pydantic's refusal."""
    module = quiet(make_module, MODELS)
    assert props(module, 0)["order"]["additionalProperties"] is False
    assert props(module, 1)["o"]["additionalProperties"] == {}
    unknown = toolcall.run(module, "place", {"order": {"lines": [{"sku": "a", "qty": 1}]}}).error
    assert (unknown.kind, unknown.reason, unknown.path, unknown.value) == (
        "invalid_argument",
        "unknown_field",
        ("order", "lines", 0, "qty"),
        1,
    )
    top = toolcall.run(module, "place", {"order": {"lines": [], "note": "x"}}).error
    assert (top.reason, top.path) == ("unknown_field", ("order", "note"))
    assert toolcall.run(module, "place", {"order": {"lines": [{"sku": "a"}]}}) == toolcall.Ok(1)
    assert toolcall.run(module, "keep", {"o": {"name": "n", "k": 2}}) == toolcall.Ok(
        {"name": "n", "k": 2}
    )
    forbid = toolcall.run(module, "shut", {"c": {"name": "n", "k": 2}}).error
    assert (forbid.reason, forbid.path) == ("unknown_field", ("c", "k"))


def test_validators_on_a_plain_class_field_warn_and_pydantic_examples_are_kept(make_module):
    """A TypedDict field's validator runs nowhere: a warning says so; ``Examples`` is kept."""
    with pytest.warns(toolcall.ToolcallWarning, match=r"Row\.n: AfterValidator on a field"):
        module = make_module(
            """
            __toolcall__ = True
            from typing import Annotated, TypedDict
            from pydantic import AfterValidator
            from pydantic.json_schema import Examples

            class Row(TypedDict):
                n: Annotated[int, AfterValidator(abs)]

            def f(row: Row, word: Annotated[str, Examples(["hi"])]) -> int:
                '''F.'''
                return row["n"]
            """
        )
    assert props(module)["word"] == {"type": "string", "examples": ["hi"]}


AGENTS_SDK = '''
__toolcall__ = True
from typing import Annotated
from pydantic import Field

def optional_with_default(
    required_param: str, optional_param: Annotated[float, Field(default=5.0, ge=0.0)]
) -> str:
    """The Agents SDK's test_function_with_annotated_field_optional_with_default."""
    return f"{required_param}: {optional_param}"

def multiple_constraints(
    x: Annotated[int, Field(default=10, ge=1, le=100, description="a number")],
) -> int:
    """Several constraints and a default in one Field."""
    return x
'''


def test_the_agents_sdk_annotated_default_cases(make_module):
    """The schema the Agents SDK's own tests assert, and the call they make."""
    module = quiet(make_module, AGENTS_SDK)
    first, second = (tool["inputSchema"] for tool in toolcall.emit(module, "mcp"))
    assert first["required"] == ["required_param"]
    assert first["properties"]["optional_param"] == {
        "type": "number",
        "minimum": 0.0,
        "default": 5.0,
    }
    assert second == {
        "type": "object",
        "properties": {
            "x": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "a number",
                "default": 10,
            }
        },
        "required": [],
        "additionalProperties": False,
    }
    args = {"required_param": "test"}
    assert toolcall.run(module, "optional_with_default", args) == toolcall.Ok("test: 5.0")
    low = toolcall.run(module, "optional_with_default", {**args, "optional_param": -1}).error
    assert (low.reason, low.path) == ("out_of_range", ("optional_param",))
    assert toolcall.run(module, "multiple_constraints", {}) == toolcall.Ok(10)
