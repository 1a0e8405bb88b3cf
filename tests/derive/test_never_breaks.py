"""No annotation takes derivation down, and what it emits means what run does (issue 21.1).

A grammar of typing constructs and pydantic / annotated-types / msgspec metadata (nested,
optional, unions, ``Annotated`` stacks, ``Field`` in every placement, constructs JSON cannot
carry) generates annotations; for each one:

- deriving never raises, and no internal error is contained (the containment warning would
  hide a bug, so it fails the test too);
- every emitted schema, in every format, strict or not, is valid JSON Schema (2020-12);
- ``run`` agrees with the non-strict schema over a pool of JSON values: a value the schema
  accepts is not refused as invalid, and a value ``run`` accepts is one the schema accepts.
  The second half is skipped where the user's own words are the schema (``WithJsonSchema``,
  ``json_schema_extra``) and where pydantic validates the parameter (its lax mode takes
  ``"1"`` for an int, which no schema of an int says); JSON text for an array or object, which
  dispatch documents it decodes, is not in the pool.

The examples are bounded and derandomized with no database, so ``scripts/test`` stays fast and
every run checks the same annotations.

The containment itself (an unexpected error costs one parameter its schema, never the module)
is checked directly at the end.
"""

from __future__ import annotations

import enum
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import annotated_types as at
import jsonschema
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic.json_schema import SkipJsonSchema

import toolcall
from budget import examples
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, Strict, WithJsonSchema

FORMATS = ("openai", "anthropic", "mcp", "gemini", "bedrock")


class Shade(enum.Enum):
    DARK = "dark"
    LIGHT = "light"


class Part(BaseModel):
    name: str
    n: Annotated[int, Field(ge=0)] = 0


class Row(TypedDict):
    name: str
    n: int


class Opaque:
    """A class toolcall knows nothing about."""


def _same(value: Any) -> Any:
    return value


LEAVES: list[Any] = [
    int,
    str,
    float,
    bool,
    type(None),
    Any,
    Literal["a", "b"],
    Literal[1, 2],
    Shade,
    Part,
    Row,
    Opaque,
    Callable[[int], int],
    type[int],
]

# (metadata, whether the schema is the user's own words, whether pydantic validates it)
METADATA: list[tuple[Any, bool, bool]] = [
    (Field(description="d"), False, False),
    (Field(ge=0), False, False),
    (Field(max_length=3), False, False),
    (Field(min_length=1, description="m"), False, False),
    (Field(pattern="^a"), False, False),
    (Field(examples=[1]), False, False),
    (Field(default=None), False, False),
    (Field(json_schema_extra={"x-k": 1}), True, False),
    (Field(json_schema_extra={"examples": ["e"]}), True, False),
    (WithJsonSchema({"type": "integer"}), True, False),
    (WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "null"}]}), True, False),
    (AfterValidator(_same), False, True),
    (BeforeValidator(_same), False, True),
    (Strict(), False, False),
    (at.Ge(1), False, False),
    (at.MaxLen(2), False, False),
    (msgspec.Meta(description="meta"), False, False),
    ("plain text", False, False),
    ({"unhashable": ["metadata"]}, False, False),
]


class Hint:
    """A generated annotation and what it holds."""

    def __init__(self, tp: Any, own_words: bool = False, pydantic: bool = False) -> None:
        self.tp = tp
        self.own_words = own_words
        self.pydantic = pydantic

    def __repr__(self) -> str:
        return repr(self.tp)


def _combine(kids: list[Hint], tp: Any, own: bool = False, pyd: bool = False) -> Hint:
    return Hint(
        tp,
        own or any(k.own_words for k in kids),
        pyd or any(k.pydantic for k in kids),
    )


def _annotated(inner: Hint, picks: list[tuple[Any, bool, bool]]) -> Hint:
    return _combine(
        [inner],
        Annotated[(inner.tp, *(m for m, _, _ in picks))],
        any(own for _, own, _ in picks),
        any(pyd for _, _, pyd in picks),
    )


def _extend(children: st.SearchStrategy[Hint]) -> st.SearchStrategy[Hint]:
    pair = st.tuples(children, children)
    return st.one_of(
        children.map(lambda h: _combine([h], list[h.tp])),
        children.map(lambda h: _combine([h], tuple[h.tp, ...])),
        pair.map(lambda p: _combine(list(p), tuple[p[0].tp, p[1].tp])),
        children.map(lambda h: _combine([h], dict[str, h.tp])),
        children.map(lambda h: _combine([h], Optional[h.tp])),  # noqa: UP045 (the spelling)
        pair.map(lambda p: _combine(list(p), Union[p[0].tp, p[1].tp])),  # noqa: UP007
        children.map(lambda h: _combine([h], Union[h.tp, SkipJsonSchema[None]])),  # noqa: UP007
        st.tuples(children, st.lists(st.sampled_from(METADATA), min_size=1, max_size=3)).map(
            lambda p: _annotated(p[0], p[1])
        ),
    )


HINTS = st.recursive(st.sampled_from(LEAVES).map(Hint), _extend, max_leaves=4)

VALUES: list[Any] = [
    0,
    1,
    -5,
    2.5,
    "a",
    "abcd",
    "",
    True,
    None,
    [],
    [1],
    [1, 1],
    ["a", "b"],
    [1, "a"],
    {},
    {"a": 1},
    {"name": "n", "n": 1},
    {"name": "n"},
    "dark",
]

ENVELOPES = ("parameters", "input_schema", "inputSchema", "parametersJsonSchema")
REFUSED = ("invalid_argument", "missing_argument", "unknown_arguments")


def _tool(hint: Any) -> Callable[..., Any]:
    def tool(x):  # type: ignore[no-untyped-def]
        """Echo the value."""
        return x

    tool.__annotations__ = {"x": hint, "return": Any}
    return tool


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@settings(
    max_examples=examples(60),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(HINTS)
def test_any_annotation_derives_valid_schemas_that_run_agrees_with(hint: Hint) -> None:
    """Any generated annotation derives without an internal error into valid schemas that run
    agrees with."""
    fn = _tool(hint.tp)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tool = toolcall.derive(fn)
        schemas = [
            toolcall.render(tool, fmt, strict=strict) for fmt in FORMATS for strict in (False, True)
        ]
        box = toolcall.Toolbox(fn)
    contained = [str(w.message) for w in caught if "raised" in str(w.message)]
    assert contained == [], contained
    for rendered in schemas:
        for schema in _parameter_schemas(rendered):
            jsonschema.Draft202012Validator.check_schema(schema)
    schema = toolcall.render(tool, "mcp")["inputSchema"]
    validator = jsonschema.Draft202012Validator(schema)
    for value in VALUES:
        args = {"x": value}
        accepted_by_schema = validator.is_valid(args)
        result = box.run("tool", args)
        refused = isinstance(result, toolcall.Err) and result.error.kind in REFUSED
        if accepted_by_schema and not hint.own_words and not hint.pydantic:
            assert not refused, (hint, value, schema, result)
        if not refused and not hint.own_words and not hint.pydantic:
            assert accepted_by_schema, (hint, value, schema, result)


def _parameter_schemas(rendered: Any) -> list[Any]:
    """The parameters schema of a rendered tool, whatever its format's envelope."""
    found: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                envelope = key in ENVELOPES
                if envelope or (
                    key == "json" and isinstance(value, dict) and "properties" in value
                ):
                    found.append(value)
                else:
                    walk(value)

    walk(toolcall._frozen.thaw(rendered))
    assert found, rendered
    return found


# -- containment ----------------------------------------------------------------------------


def test_an_internal_error_costs_one_parameter_its_schema(make_module):
    """An object the annotation holds that breaks toolcall's reading (here a class named
    ``Doc`` whose ``documentation`` raises) makes that parameter ``{}``, with a warning naming
    module, function, parameter, construct and the exception; the rest derives."""
    with pytest.warns(toolcall.ToolcallWarning) as caught:
        module = make_module(
            """
            __toolcall__ = True
            from typing import Annotated

            class Doc:
                @property
                def documentation(self):
                    raise RuntimeError("no docs here")

            def f(a: Annotated[int, Doc()], b: int = 2) -> int:
                '''F.'''
                return a + b

            def g(c: str) -> str:
                '''G.'''
                return c
            """,
            name="tc_contained",
        )
    messages = [str(w.message) for w in caught]
    assert any(
        m.startswith("tc_contained.f(a): deriving the annotation Annotated[int, ")
        and "raised RuntimeError: no docs here" in m
        for m in messages
    ), messages
    assert toolcall.tool_names(module) == ("f", "g")
    schema = toolcall.emit(module, "mcp")[0]["inputSchema"]
    assert schema["properties"] == {"a": {}, "b": {"type": "integer", "default": 2}}
    assert schema["required"] == ["a"]
    assert toolcall.run(module, "f", {"a": 1}) == toolcall.Ok(3)


def test_check_exits_1_on_a_contained_error(tmp_path):
    """``toolcall check`` exits 1 and names the error when derivation contained one."""
    import subproc

    (tmp_path / "tc_broken_tools.py").write_text(
        "__toolcall__ = True\n"
        "from typing import Annotated\n"
        "class Doc:\n"
        "    @property\n"
        "    def documentation(self):\n"
        "        raise RuntimeError('no docs here')\n"
        "def f(a: Annotated[int, Doc()]) -> int:\n"
        "    '''F.'''\n"
        "    return a\n"
    )
    result = subproc.python(
        Path(sys.executable).parent / "toolcall",
        "check",
        "tc_broken_tools.py",
        cwd=tmp_path,
        env={"TOOLCALL_CACHE": "0"},
    )
    assert result.returncode == 1, result
    assert "raised RuntimeError: no docs here" in result.stdout
