"""SPEC 3b, pydantic models and pydantic's own types as parameters and nested fields, from
tools in the styles of the MCP python-sdk, FastMCP and pydantic-ai: the schema is pydantic's
own for the model once inlined, and ``run`` accepts and rejects what pydantic does, hands the
function a model instance and runs the model's validators."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from inline import pydantic_schema

import toolcall
from pydantic import TypeAdapter, ValidationError

LIBRARY = '''
__toolcall__ = True
from typing import Literal, Optional
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass


class Author(BaseModel):
    """Who wrote a book."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str = Field(min_length=1)
    """Full name as printed on the cover."""
    born: Optional[int] = None
    """Year of birth, when known."""


class Book(BaseModel):
    """A book in the catalogue."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    title: str = Field(max_length=120, description="Title as printed")
    year: int = Field(ge=1450, le=2100)
    """Year of first publication."""
    authors: list[Author] = []
    format: Literal["paperback", "hardcover", "ebook"] = "paperback"
    ratings: dict[str, int] = Field(default_factory=dict)

    @field_validator("title")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the title must not be blank")
        return value.strip()


class Shelf(BaseModel):
    """A shelf, which may hold smaller shelves."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    label: str
    books: list[Book] = []
    children: list["Shelf"] = []


class Filters(BaseModel):
    """Search filters; unknown keys are kept for the backend."""

    model_config = ConfigDict(extra="allow")

    genre: Optional[str] = None

    @model_validator(mode="after")
    def one_of(self) -> "Filters":
        if self.genre == "none":
            raise ValueError("pick a real genre")
        return self


@pydantic_dataclass
class Window:
    """A date window."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


def add_book(book: Book, shelf: str = "new") -> str:
    """Add a book to the catalogue."""
    authors = [type(a).__name__ for a in book.authors]
    return f"{type(book).__name__}:{book.title}:{book.year}:{authors}"


def file_shelf(shelf: Shelf) -> int:
    """File a shelf."""
    return len(shelf.children)


def find_books(
    filters: Filters | None = None, window: Optional[Window] = None, picks: list[Book] = []
) -> str:
    """Find books."""
    extra = filters.model_extra if filters else None
    return f"{type(filters).__name__}:{extra}:{type(window).__name__}"
'''

MODELS = ("Author", "Book", "Shelf", "Filters", "Window")


@pytest.fixture
def library(make_module):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = make_module(LIBRARY)
        toolcall.describe(module)
    return module


def prop(module: Any, tool: int, name: str) -> dict[str, Any]:
    found = copy.deepcopy(toolcall.describe(module)[tool]["parameters"]["properties"][name])
    found.pop("description", None)
    return found


def test_model_parameter_schema_is_pydantic_inlined(library):
    """A BaseModel parameter: pydantic's schema with refs inlined and no titles."""
    assert prop(library, 0, "book") == pydantic_schema(library.Book)
    schema = prop(library, 0, "book")
    assert schema["additionalProperties"] is False
    assert schema["properties"]["authors"]["items"]["properties"]["name"] == {
        "type": "string",
        "minLength": 1,
        "description": "Full name as printed on the cover.",
    }
    assert "$ref" not in repr(schema)
    assert "title': 'Book" not in repr(schema)


def test_recursive_model_stops_at_reentry(library):
    """A model that contains itself is inlined once; the re-entry is {} (as pydantic's
    schema is when its recursion is cut at the same place)."""
    schema = prop(library, 1, "shelf")
    assert schema == pydantic_schema(library.Shelf)
    assert schema["properties"]["children"]["items"] == {}


def test_optional_open_model_and_pydantic_dataclass(library):
    """Optional models, extra="allow" (an open object) and a pydantic dataclass."""
    assert prop(library, 2, "filters") == {
        **pydantic_schema(library.Filters | None),
        "default": None,
    }
    assert prop(library, 2, "filters")["additionalProperties"] == {}
    assert prop(library, 2, "window") == {**pydantic_schema(library.Window | None), "default": None}
    assert prop(library, 2, "picks")["items"] == pydantic_schema(library.Book)


def test_model_docstring_describes_the_parameter(library):
    """The model's docstring is its type doc (read from source)."""
    described = toolcall.describe(library)[0]["parameters"]["properties"]["book"]
    assert described["description"] == "A book in the catalogue."


BOOK_CALLS = [
    {"title": "Dune", "year": 1965},
    {"title": "Dune", "year": 1200},
    {"title": "  ", "year": 1965},
    {"title": "Dune", "year": 1965, "isbn": "x"},
    {"title": "Dune", "year": 1965, "authors": [{"name": ""}]},
    {"title": "Dune", "year": 1965, "authors": [{"name": "Frank Herbert", "born": 1920}]},
    {"title": "Dune", "year": 1965, "format": "scroll"},
    {"title": "Dune"},
    {"title": "Dune", "year": "1965"},
    {"title": "Dune", "year": 1965, "ratings": {"goodreads": 4}},
    "not an object",
]


@pytest.mark.parametrize("book", BOOK_CALLS)
def test_model_dispatch_agrees_with_pydantic(library, book):
    """run accepts what Book.model_validate accepts, hands over a Book, and reports a
    failure at the path pydantic names."""
    try:
        library.Book.model_validate(book)
        accepted, loc = True, ()
    except ValidationError as exc:
        accepted, loc = False, exc.errors()[0]["loc"]
    result = toolcall.run(library, "add_book", {"book": book})
    assert isinstance(result, toolcall.Ok) is accepted, result
    if accepted:
        assert result.value.startswith("Book:")
    else:
        assert result.error.kind == "invalid_argument"
        assert result.error.path == ("book", *loc)


def test_validators_run_and_their_message_reaches_the_model(library):
    """A field validator's ValueError is an invalid_argument carrying its message."""
    result = toolcall.run(library, "add_book", {"book": {"title": "  ", "year": 1965}})
    assert result.error.path == ("book", "title")
    assert "the title must not be blank" in result.error.message
    assert toolcall.run(library, "add_book", {"book": {"title": " Dune ", "year": 1965}}) == (
        toolcall.Ok("Book:Dune:1965:[]")
    )
    bad = toolcall.run(library, "find_books", {"filters": {"genre": "none"}})
    assert "pick a real genre" in bad.error.message


def test_nested_models_are_instances(library):
    """Nested models arrive as model instances; extra keys of an open model are kept."""
    done = toolcall.run(
        library, "add_book", {"book": {"title": "D", "year": 1965, "authors": [{"name": "F"}]}}
    )
    assert done == toolcall.Ok("Book:D:1965:['Author']")
    found = toolcall.run(
        library,
        "find_books",
        {"filters": {"genre": "sf", "shelf": 3}, "window": {"start": 1, "end": 2}},
    )
    assert found == toolcall.Ok("Filters:{'shelf': 3}:Window")
    out = toolcall.run(library, "find_books", {"window": {"start": -1, "end": 2}})
    assert out.error.path == ("window", "start")
    assert out.error.reason == "out_of_range"


def test_explicit_null_inside_a_model_means_absent(library):
    """Strict mode sends null for an optional field; inside a model it still means the
    default (pydantic alone would refuse null for a str field with a default)."""
    with pytest.raises(ValidationError):
        library.Book.model_validate({"title": "D", "year": 1965, "format": None})
    result = toolcall.run(
        library, "add_book", {"book": {"title": "D", "year": 1965, "format": None}}
    )
    assert result == toolcall.Ok("Book:D:1965:[]")
    kept = toolcall.run(
        library,
        "add_book",
        {"book": {"title": "D", "year": 1965, "authors": [{"name": "F", "born": None}]}},
    )
    assert isinstance(kept, toolcall.Ok)


def test_model_sent_as_json_text(library):
    """A nested object sent as JSON text is decoded, as for every object."""
    done = toolcall.run(library, "add_book", {"book": '{"title": "D", "year": 1965}'})
    assert done == toolcall.Ok("Book:D:1965:[]")


def test_model_inside_a_typeddict_on_every_python(make_module):
    """A typing.TypedDict holding a model works (pydantic itself refuses typing.TypedDict on
    3.11): toolcall walks the TypedDict and pydantic validates the model inside it."""
    module = make_module(
        """
        __toolcall__ = True
        from typing import TypedDict
        from pydantic import BaseModel, Field

        class Line(BaseModel):
            sku: str
            qty: int = Field(gt=0)

        class Order(TypedDict):
            lines: list[Line]
            note: str

        def place(order: Order) -> str:
            '''Place an order.'''
            return type(order["lines"][0]).__name__
        """
    )
    assert toolcall.run(
        module, "place", {"order": {"lines": [{"sku": "a", "qty": 1}], "note": ""}}
    ) == toolcall.Ok("Line")
    bad = toolcall.run(module, "place", {"order": {"lines": [{"sku": "a", "qty": 0}], "note": ""}})
    assert bad.error.path == ("order", "lines", 0, "qty")


def test_model_field_settings_not_in_the_schema_warn(make_module):
    """A model field setting the schema cannot carry warns, naming the field and setting."""
    with pytest.warns(toolcall.ToolcallWarning, match=r"Item\.price: .*deprecated"):
        module = make_module(
            """
            __toolcall__ = True
            from pydantic import BaseModel, Field

            class Item(BaseModel):
                price: float = Field(deprecated="use cost")

            def sell(item: Item) -> float:
                '''Sell.'''
                return item.price
            """
        )
    assert module.__toolcall__


def test_field_alias_is_the_property_name(make_module):
    """A model field's alias is the key pydantic validates, so it is the property's name."""
    module = make_module(
        """
        __toolcall__ = True
        from pydantic import BaseModel, Field

        class Query(BaseModel):
            from_: str = Field(alias="from")

        def route(query: Query) -> str:
            '''Route.'''
            return query.from_
        """
    )
    schema = toolcall.describe(module)[0]["parameters"]["properties"]["query"]
    assert list(schema["properties"]) == ["from"]
    assert toolcall.run(module, "route", {"query": {"from": "OSL"}}) == toolcall.Ok("OSL")


OWNED = [
    ("EmailStr", ["ada@example.com", "not an email", 5]),
    ("AnyUrl", ["https://example.com/x", "nope", ""]),
    ("HttpUrl", ["https://example.com", "ftp://example.com"]),
    ("SecretStr", ["hunter2", 5]),
    ("conint(ge=1, lt=10)", [1, 10, 0, 5.0, "5"]),
    ("constr(min_length=2, pattern=r'^[a-z]+$')", ["ab", "a", "AB"]),
    ("PositiveInt", [1, 0, -3]),
    ("NonNegativeFloat", [0.0, -0.5, 2]),
    ("UUID4", ["6ba7b810-9dad-41d1-80b4-00c04fd430c8", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"]),
]


@pytest.mark.parametrize(("annotation", "values"), OWNED)
def test_pydantic_types(make_module, annotation, values):
    """pydantic's own types: pydantic's schema (writeOnly aside, which describes output)
    and the values pydantic's validation accepts."""
    module = make_module(
        f"""
        __toolcall__ = True
        from pydantic import AnyUrl, EmailStr, HttpUrl, NonNegativeFloat, PositiveInt
        from pydantic import SecretStr, UUID4, conint, constr

        def take(value: {annotation}) -> str:
            '''Take a value.'''
            return type(value).__name__
        """
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolcall.ToolcallWarning)
        schema = prop(module, 0, "value")
    hint = module.take.__annotations__["value"]
    expected = pydantic_schema(hint)
    expected.pop("writeOnly", None)
    assert schema == expected
    adapter = TypeAdapter(hint)
    for value in values:
        try:
            wanted: Any = type(adapter.validate_python(value)).__name__
        except ValidationError:
            wanted = None
        result = toolcall.run(module, "take", {"value": value})
        if wanted is None:
            assert result.error.kind == "invalid_argument", (value, result)
        else:
            # toolcall's own int/str rules may be stricter than pydantic's lax mode ("5")
            assert result == toolcall.Ok(wanted) or (
                isinstance(value, str) and not isinstance(result, toolcall.Ok)
            ), (value, result)


def test_model_schema_strict_variant(library):
    """Strict mode: every model field required, optionals nullable, closed objects."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strict = toolcall.emit(library, "openai", strict=True)[0]["function"]["parameters"]
    book = strict["properties"]["book"]
    assert book["required"] == ["title", "year", "authors", "format", "ratings"]
    assert book["properties"]["format"]["enum"] == ["paperback", "hardcover", "ebook", None]
    assert "default" not in book["properties"]["format"]


def test_pydantic_reference_for_models_is_really_pydantic(library):
    """The reference schema is pydantic's (sanity: it sees the validator-free shape)."""
    assert pydantic_schema(library.Author)["properties"]["born"] == {
        "type": ["integer", "null"],
        "default": None,
        "description": "Year of birth, when known.",
    }
