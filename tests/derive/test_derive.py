"""SPEC sections 1 and 2: which functions become tools and what is read from them."""

from __future__ import annotations

import warnings

import pytest

import toolcall
from toolcall._scalars import INTEGER_STRING_PATTERN


def schema(module, tool: int = 0) -> dict:
    return toolcall.describe(module)[tool]["parameters"]


def prop(module, name: str, tool: int = 0) -> dict:
    return schema(module, tool)["properties"][name]


def derive_warnings(make_module, source: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = make_module(source)
        toolcall.tool_names(module)
    return module, [str(w.message) for w in caught if w.category is toolcall.ToolcallWarning]


# --- marking and discovery ----------------------------------------------------------


def test_only_literal_true_marks(make_module):
    """`__toolcall__ = 1` is not the literal True, so the module is not a tool module."""
    module = make_module("__toolcall__ = 1\ndef f(x: int) -> int: return x\n")
    with pytest.raises(toolcall.NotAToolModule, match="__toolcall__ = True"):
        toolcall.emit(module, "openai")


def test_unmarked_module_by_name(make_module):
    """A dotted name of an unmarked module raises NotAToolModule, a TypeError."""
    module = make_module("def f(x: int) -> int: return x\n")
    with pytest.raises(TypeError):
        toolcall.tool_names(module.__name__)


def test_discovery_rules(make_module):
    """Public functions defined here, in order; no classes, lambdas, imports, aliases, excluded."""
    module = make_module(
        """
        __toolcall__ = True
        import toolcall
        from os.path import join

        def b(x: int) -> int: return x
        async def a(x: int) -> int: return x
        def _private(x: int) -> int: return x
        class Klass: pass
        lam = lambda x: x
        alias = b
        @toolcall.exclude
        def hidden(x: int) -> int: return x
        def no_params(): return 1
        """
    )
    assert toolcall.tool_names(module) == ("b", "a", "no_params")


def test_all_restricts_candidates(make_module):
    """With `__all__`, only the functions it names are tools (still in definition order)."""
    module = make_module(
        """
        __toolcall__ = True
        __all__ = ["second", "first"]
        def first(x: int) -> int: return x
        def second(x: int) -> int: return x
        def third(x: int) -> int: return x
        """
    )
    assert toolcall.tool_names(module) == ("first", "second")


def test_unannotated_function_skipped_with_warning(make_module):
    """Parameters but no annotation at all: skipped, with a warning naming it."""
    module, caught = derive_warnings(
        make_module, "__toolcall__ = True\ndef loose(a, b): return a\ndef ok(a: int): return a\n"
    )
    assert toolcall.tool_names(module) == ("ok",)
    assert any("loose" in message for message in caught)


def test_single_unannotated_parameter_is_any(make_module):
    """One unannotated parameter among annotated ones gets `{}` and a warning."""
    module, caught = derive_warnings(
        make_module, "__toolcall__ = True\ndef f(a: int, b) -> None: pass\n"
    )
    assert prop(module, "b") == {}
    assert any("f(b)" in message for message in caught)


def test_warning_points_at_function(make_module):
    """Derivation warnings carry the function's file and line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = make_module("__toolcall__ = True\n\n\ndef loose(a, b): return a\n")
        toolcall.tool_names(module)
    (w,) = [w for w in caught if w.category is toolcall.ToolcallWarning]
    assert w.filename == module.__file__
    assert w.lineno == 4


def test_args_never_exposed_kwargs_open(make_module):
    """`*args` is not a parameter; `**kwargs: T` opens the object with T's schema."""
    module, caught = derive_warnings(
        make_module,
        """
        __toolcall__ = True
        def f(a: int, *rest: int, **extra: str) -> None: pass
        def only(*names: str) -> None: pass
        """,
    )
    assert schema(module) == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": {"type": "string"},
    }
    assert any("only" in message and "*args" in message for message in caught)


def test_type_providers_per_module(make_module):
    """`__toolcall_types__` entries (class or instance) resolve unknown classes, and coerce."""
    module = make_module(
        """
        __toolcall__ = True
        import toolcall

        class Money:
            def __init__(self, text): self.text = text

        class MoneyType:
            def resolve(self, tp, args):
                if tp is Money:
                    return toolcall.ir.Type(kind="string", pattern=r"^-?\\d+\\.\\d{2}$")
                return None
            def coerce(self, value):
                return Money(value)

        __toolcall_types__ = [MoneyType]

        def price(amount: Money) -> str:
            return type(amount).__name__ + ":" + amount.text
        """
    )
    assert prop(module, "amount") == {"type": "string", "pattern": r"^-?\d+\.\d{2}$"}
    assert toolcall.run(module, "price", {"amount": "1.50"}) == toolcall.Ok("Money:1.50")


def test_providers_cannot_replace_builtins(make_module):
    """Providers are tried after the built-ins: one claiming `int` changes nothing."""
    module = make_module(
        """
        __toolcall__ = True
        import toolcall
        class Greedy:
            def resolve(self, tp, args):
                return toolcall.ir.Type(kind="string")
        __toolcall_types__ = [Greedy()]
        def f(n: int) -> int: return n
        """
    )
    assert prop(module, "n") == {"type": "integer"}


# --- defaults -------------------------------------------------------------------------


def test_defaults(make_module):
    """Literal, constant, enum and tuple defaults are emitted; unrepresentable ones dropped."""
    module = make_module(
        """
        __toolcall__ = True
        import datetime, enum
        LIMIT = 10
        class Color(enum.Enum):
            RED = "red"
            BLUE = "blue"
        class Thing: pass
        def f(
            a: int = 3,
            b: int = LIMIT,
            c: Color = Color.BLUE,
            d: tuple[int, int] = (1, 2),
            e: object = Thing(),
            g: datetime.date = datetime.date(2020, 1, 1),
        ) -> None: pass
        """
    )
    props = schema(module)["properties"]
    assert props["a"]["default"] == 3
    assert props["b"]["default"] == 10
    assert props["c"]["default"] == "blue"
    assert props["d"]["default"] == [1, 2]
    assert "default" not in props["e"]
    assert "default" not in props["g"]
    assert schema(module)["required"] == []


def test_default_outside_domain_warns(make_module):
    """`days: int = "x"`: no default key, and a warning at derivation."""
    module, caught = derive_warnings(
        make_module, "__toolcall__ = True\ndef f(days: int = 'x') -> None: pass\n"
    )
    assert prop(module, "days") == {"type": "integer"}
    assert any("default" in message and "f(days)" in message for message in caught)


# --- descriptions -----------------------------------------------------------------------


def test_tool_description_first_paragraph(make_module):
    """The first paragraph, continuation lines joined; `# Title` stripped."""
    module = make_module(
        '''
        __toolcall__ = True
        def f(x: int) -> None:
            """# Forecasts

            Get the forecast
            for a city.

            More text.
            """
        '''
    )
    assert toolcall.describe(module)[0]["description"] == "Get the forecast for a city."


def test_an_unreadable_parameter_section_is_kept_and_warns(make_module):
    """A parameter section with no readable entry stays in the description, with a warning."""
    with pytest.warns(toolcall.ToolcallWarning, match="parameter section toolcall cannot read"):
        module = make_module(
            '''
            __toolcall__ = True
            def search(query: str) -> list:
                """Search the catalogue.

                Parameters:
                    Write the query the way the user wrote it.
                """
            '''
        )
    description = toolcall.describe(module)[0]["description"]
    assert description == (
        "Search the catalogue.\n\nParameters:\n    Write the query the way the user wrote it."
    )


@pytest.mark.parametrize(
    "doc",
    [
        "Args:\n    city: the city name\n",
        "Parameters\n----------\ncity : str\n    the city name\n",
        ":param city: the city name\n",
        "## Parameters\n\n* `city` - the city name\n",
    ],
    ids=["google", "numpy", "sphinx", "markdown"],
)
def test_parameter_docs_every_style(make_module, doc):
    """Each docstring style documents the parameter."""
    indented = "\n".join("            " + line for line in doc.splitlines())
    module = make_module(
        f'''
        __toolcall__ = True
        def f(city: str) -> None:
            """Find a city.

{indented}
            """
        '''
    )
    assert prop(module, "city") == {"type": "string", "description": "the city name"}


def test_description_precedence(make_module):
    """Param(description) > docstring entry > type doc > none; Param(description='') suppresses."""
    module = make_module(
        '''
        __toolcall__ = True
        from typing import Annotated, TypedDict
        import toolcall

        class Address(TypedDict):
            """A postal address."""
            street: str

        def f(
            a: Annotated[Address, toolcall.Param(description="from Param")],
            b: Address,
            c: Address,
            d: Annotated[Address, toolcall.Param(description="")],
            e: Address | None = None,
            g: list[Address] | None = None,
        ) -> None:
            """Do it.

            Args:
                a: from the docstring
                b: from the docstring
            """
        '''
    )
    props = schema(module)["properties"]
    assert props["a"]["description"] == "from Param"
    assert props["b"]["description"] == "from the docstring"
    assert props["c"]["description"] == "A postal address."
    assert "description" not in props["d"]
    assert props["e"]["description"] == "A postal address."
    assert "description" not in props["g"]


def test_param_decorator_and_unknown_name(make_module):
    """`@toolcall.param` sets description and wire; a name the function lacks warns."""
    module, caught = derive_warnings(
        make_module,
        """
        __toolcall__ = True
        import toolcall
        @toolcall.param("user_id", wire="string_integer", description="Snowflake id")
        @toolcall.param("nope", description="x")
        def ban(user_id: int) -> int: return user_id
        """,
    )
    assert prop(module, "user_id") == {
        "type": "string",
        "pattern": INTEGER_STRING_PATTERN,
        "description": "Snowflake id",
    }
    assert any("nope" in message for message in caught)
    assert toolcall.run(module, "ban", {"user_id": "123456789012345678901"}) == toolcall.Ok(
        123456789012345678901
    )


def test_documented_parameter_that_does_not_exist_warns(make_module):
    """A docstring entry for a parameter the function lacks warns."""
    _, caught = derive_warnings(
        make_module,
        '''
        __toolcall__ = True
        def f(city: str) -> None:
            """Find.

            Args:
                town: a typo
            """
        ''',
    )
    assert any("town" in message for message in caught)


def test_alias_docstring_fallback_and_chain(make_module):
    """An attribute docstring under a type alias is the fallback; alias chains are followed."""
    module = make_module(
        '''
        __toolcall__ = True
        Location = tuple[float, float]
        """A lat/lon pair."""
        Place = Location

        def f(here: Location, there: Place | None = None) -> None: pass
        '''
    )
    props = schema(module)["properties"]
    assert props["here"]["description"] == "A lat/lon pair."
    assert props["there"]["description"] == "A lat/lon pair."


@pytest.mark.parametrize("kind", ["typeddict", "dataclass", "struct"])
def test_field_docs_become_nested_descriptions(make_module, kind):
    """Field attribute docstrings and Annotated Param descriptions describe nested properties."""
    header = {
        "typeddict": "from typing import TypedDict\nclass Item(TypedDict):",
        "dataclass": "from dataclasses import dataclass\n@dataclass\nclass Item:",
        "struct": "import msgspec\nclass Item(msgspec.Struct):",
    }[kind]
    module = make_module(
        f'''
__toolcall__ = True
from typing import Annotated
import toolcall
{header}
    sku: str
    """Stock keeping unit."""
    qty: Annotated[int, toolcall.Param(description="How many.")]

def f(item: Item) -> None: pass
'''
    )
    props = prop(module, "item")["properties"]
    assert props["sku"] == {"type": "string", "description": "Stock keeping unit."}
    assert props["qty"] == {"type": "integer", "description": "How many."}


def test_future_annotations_and_forward_refs(make_module):
    """`from __future__ import annotations` and forward references resolve."""
    module = make_module(
        """
        from __future__ import annotations
        __toolcall__ = True
        from typing import TypedDict

        def f(item: Item, n: int | None = None) -> None: pass

        class Item(TypedDict):
            name: str
        """
    )
    assert prop(module, "item")["properties"] == {"name": {"type": "string"}}
    assert prop(module, "n") == {"type": ["integer", "null"], "default": None}


def test_unresolvable_forward_ref_warns(make_module):
    """An unresolvable forward reference is `{}` with a warning; the others still resolve."""
    module, caught = derive_warnings(
        make_module,
        "from __future__ import annotations\n__toolcall__ = True\n"
        "def f(a: Nowhere, b: int) -> None: pass\n",
    )
    assert prop(module, "a") == {}
    assert prop(module, "b") == {"type": "integer"}
    assert any("Nowhere" in message for message in caught)


def test_tool_name_rule_warns(make_module):
    """A tool name outside ^[a-zA-Z0-9_-]{1,64}$ warns at derivation."""
    _, caught = derive_warnings(
        make_module, "__toolcall__ = True\ndef café(x: int) -> None: pass\n"
    )
    assert any("café" in message for message in caught)


def test_recursion_stops_at_reentry(make_module):
    """A recursive type becomes `{}` at its first re-entry."""
    module = make_module(
        """
        from __future__ import annotations
        __toolcall__ = True
        from typing import TypedDict
        class Node(TypedDict):
            value: int
            children: list[Node]
        def f(tree: Node) -> int: return tree["value"]
        """
    )
    assert prop(module, "tree")["properties"]["children"] == {"type": "array", "items": {}}
    deep = {"value": 1, "children": [{"value": 2, "children": [{"anything": True}]}]}
    assert toolcall.run(module, "f", {"tree": deep}) == toolcall.Ok(1)


def test_inlining_budget(make_module):
    """Past 100 inlinings the rest is `{}` and the build warns."""
    classes = "\n".join(f"class T{i}(TypedDict):\n    x: int\n" for i in range(105))
    params = ", ".join(f"p{i}: T{i}" for i in range(105))
    module, caught = derive_warnings(
        make_module,
        "__toolcall__ = True\nfrom typing import TypedDict\n"
        f"{classes}\ndef f({params}) -> None: pass\n",
    )
    assert prop(module, "p99")["type"] == "object"
    assert prop(module, "p104") == {}
    assert any("100" in message for message in caught)


def test_strict_limitations_warn_at_derivation(make_module):
    """Open objects, tuples and Any cannot be expressed in strict mode: each warns once."""
    _, caught = derive_warnings(
        make_module,
        "__toolcall__ = True\nfrom typing import Any\n"
        "def f(filters: dict[str, str], pair: tuple[int, str], x: Any) -> None: pass\n",
    )
    strict = [message for message in caught if "strict mode" in message]
    assert len(strict) == 3
    assert [name in " ".join(strict) for name in ("filters", "pair", "x")] == [True] * 3


def test_inlining_budget_is_per_tool(make_module):
    """Many tools sharing an object type each get it inlined: the budget is per tool."""
    tools = "\n".join(f"def t{i}(item: Item) -> None: pass" for i in range(120))
    module, caught = derive_warnings(
        make_module,
        "__toolcall__ = True\nfrom typing import TypedDict\n"
        f"class Item(TypedDict):\n    x: int\n{tools}\n",
    )
    assert prop(module, "item", tool=119)["properties"] == {"x": {"type": "integer"}}
    assert not any("inline" in message for message in caught)


def test_a_class_many_tools_take_is_derived_once_per_module(make_module, monkeypatch):
    """Twenty tools taking one TypedDict: its fields are read once, every tool gets them,
    and what reading them said (a warning about one field) is said for every tool, as if
    each had read them itself."""
    from toolcall._derive import types as derive_types

    built: list[str] = []
    real = derive_types.object_type

    def counting(resolver, tp, where):
        built.append(tp.__qualname__)
        return real(resolver, tp, where)

    monkeypatch.setattr(derive_types, "object_type", counting)
    tools = "\n".join(f"def t{i}(item: Item, other: Other) -> None: pass" for i in range(20))
    module, caught = derive_warnings(
        make_module,
        "__toolcall__ = True\nfrom typing import TypedDict\n"
        "class Item(TypedDict):\n    x: int\n    by_id: dict[int, str]\n"
        f"class Other(TypedDict):\n    item: Item\n{tools}\n",
    )
    assert sorted(built) == ["Item", "Other"]
    item = {
        "x": {"type": "integer"},
        "by_id": {"type": "object", "additionalProperties": {"type": "string"}},
    }
    for i in range(20):
        assert prop(module, "item", tool=i)["properties"] == item
        assert prop(module, "other", tool=i)["properties"]["item"]["properties"] == item
    assert len([m for m in caught if m.startswith("Item.by_id: JSON object keys")]) == 40


def test_a_shared_class_spends_each_tools_budget_as_if_built_there(make_module):
    """The budget a shared class used is charged again in every tool that takes it: the
    second tool runs out at the same place as the first."""
    classes = "\n".join(f"class T{i}(TypedDict):\n    x: int\n" for i in range(60))
    fields = "\n".join(f"    f{i}: T{i}" for i in range(60))
    module, caught = derive_warnings(
        make_module,
        "__toolcall__ = True\nfrom typing import TypedDict\n"
        f"{classes}\nclass Big(TypedDict):\n{fields}\n"
        "def a(one: Big, two: Big) -> None: pass\n"
        "def b(one: Big, two: Big) -> None: pass\n",
    )
    for tool in (0, 1):
        assert prop(module, "one", tool)["properties"]["f59"]["type"] == "object"
        two = prop(module, "two", tool)["properties"]
        assert two["f37"]["type"] == "object"  # 100 - 61 (one) - 1 (two itself) = 38 left
        assert two["f38"] == {}
    assert len([m for m in caught if "nested types to inline" in m]) == 2


def test_a_module_getattr_is_never_run_by_discovery(make_module):
    """``__all__`` and ``__toolcall_types__`` are read from the module's ``__dict__``: a marked
    module's ``__getattr__`` (lazy attributes) never runs while its tools are found."""
    module = make_module(
        """
        __toolcall__ = True
        def __getattr__(name):
            raise KeyError(name)
        def ping(x: int) -> int:
            return x
        """
    )
    assert toolcall.tool_names(module) == ("ping",)
