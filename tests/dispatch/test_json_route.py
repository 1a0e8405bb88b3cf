"""The typed JSON route (issue 38): arguments given as JSON text are read by msgspec into
typed mirrors of the parameters, and the answer is exactly ``run(json.loads(text))``'s,
whatever the text: what the mirrors do not take goes the way of ``json.loads``."""

from __future__ import annotations

import asyncio
import json
import linecache
import sys
import types
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_fastpath_source import GREET, greet
from test_fuzz import JSON

import toolcall
from budget import examples
from fakes import FakeResolver
from toolcall._dispatch import plan
from toolcall._dispatch.fastpath import build_fastpath
from toolcall._dispatch.jsonroute import text_route

TOOLS = """
import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal, NamedTuple, NotRequired

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from typing_extensions import TypedDict

__toolcall__ = True


class Line(TypedDict):
    sku: str
    qty: Annotated[int, Ge(1)]
    gift_wrap: NotRequired[bool]


class Dated(TypedDict):
    day: datetime.date
    note: NotRequired[str | None]


@dataclasses.dataclass
class Address:
    street: str
    city: str
    country: str = "NO"


class Pair(NamedTuple):
    a: int
    b: float = 0.5


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def weather(city: str, days: int = 3) -> Any:
    \"\"\"Scalars.\"\"\"
    return (city, days)


def order(
    lines: list[Line],
    ship_to: Address,
    mode: Literal["air", "sea"] = "sea",
    after: datetime.date | None = None,
) -> Any:
    \"\"\"Nested.\"\"\"
    return (lines, ship_to, mode, after)


def bounded(
    name: Annotated[str, MinLen(2), MaxLen(5)],
    count: Annotated[int, Ge(-3), Lt(10)] = 0,
    ratio: Annotated[float, Gt(0), Le(1)] = 0.5,
    tags: Annotated[list[str], MaxLen(3)] = [],
    scaled: Annotated[int, Ge(0.5)] = 1,
) -> Any:
    \"\"\"Constraints.\"\"\"
    return (name, count, ratio, tags, scaled)


def kinds(
    colour: Colour,
    level: Level = Level.LOW,
    size: Literal[1, 2, 3] = 1,
    when: datetime.datetime | None = None,
    key: uuid.UUID | None = None,
    price: decimal.Decimal = decimal.Decimal("1"),
    pair: Pair | None = None,
    dated: list[Dated] = [],
) -> Any:
    \"\"\"Enums and values JSON does not carry.\"\"\"
    return (colour, level, size, when, key, price, pair, dated)


def containers(
    xs: tuple[int, ...] = (),
    ys: set[str] = set(),
    flag: bool | None = None,
    numbers: list[float] = [],
    /,
    nothing: None = None,
) -> Any:
    \"\"\"Positional-only containers.\"\"\"
    return (xs, ys, flag, nothing, numbers)


def batch(label: str, count: int = 0, lines: list[Line] = [], rows: list[list[int]] = []) -> Any:
    \"\"\"A list after other arguments.\"\"\"
    return (label, count, lines, rows)


def anything(value: Any, choice: int | str = 0) -> Any:
    \"\"\"No mirror: the text takes the json.loads route.\"\"\"
    return (value, choice)
"""

SHIP = '"ship_to": {"street": "s", "city": "c"}'
KEY = '"12345678-1234-1234-1234-123456789abc"'
SHIP_NULL = '"ship_to": {"street": "s", "city": "c", "country": null}'

NAMES = ("weather", "order", "bounded", "kinds", "containers", "batch", "anything")

_MODULE: list[types.ModuleType] = []


def tools() -> types.ModuleType:
    """One module for every example (hypothesis reuses no function-scoped fixture); in
    ``sys.modules``, so its classes resolve."""
    if not _MODULE:
        module = types.ModuleType("toolcall_json_route_tools")
        sys.modules[module.__name__] = module
        exec(compile(TOOLS, "<json-route tools>", "exec"), vars(module))
        _MODULE.append(module)
    return _MODULE[0]


def answer(result: toolcall.Ok[Any] | toolcall.Err) -> Any:
    """All a caller sees of a result: the value's repr (types included), or the error."""
    if isinstance(result, toolcall.Ok):
        return ("ok", repr(result.value))
    e = result.error
    return ("err", e.kind, e.message, e.path, e.reason, e.argument, repr(e.value), e.names)


def expected(name: str, text: str | bytes) -> Any:
    """``run(json.loads(text))``, or, for text that is not JSON, json.loads's refusal."""
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return answer(toolcall.run(tools(), name, decoded))


def check(name: str, text: str) -> None:
    """The text, and its UTF-8 bytes (json.loads reads a BOM there), answer as json.loads
    of each."""
    for sent in (text, text.encode("utf-8", "surrogatepass")):
        got = answer(toolcall.run(tools(), name, sent))
        want = expected(name, sent)
        if want is None:
            assert got[:2] == ("err", "invalid_arguments"), (sent, got)
        else:
            assert got == want, sent


# -- random and adversarial texts -------------------------------------------------------------

_NUMBERS = st.sampled_from(
    [
        "0", "-0", "1", "2", "-3", "10", "1.0", "2.0", "0.5", "-0.0", "1e2", "1E-2", "1e400",
        "-1e400", "9007199254740993", "123456789012345678901234567890", "NaN", "Infinity",
        "-Infinity", "0.1", "1.5", "true", "false", "null",
    ]
)  # fmt: skip
_STRINGS = st.sampled_from(
    [
        '""', '"a"', '"ab"', '"abcdef"', '"air"', '"sea"', '"rail"', '"red"', '"blue"',
        '"RED"', '"2024-01-02"', '"2024-1-2"', '"2024-01-02T03:04:05"',
        '"2024-01-02T03:04:05.1234567Z"', '"2024-01-02 03:04"', '"12.50"', '"1e5"', '"5"',
        '"\\ud800"', '"a\\udc00"', '"\\ud83d\\ude00"', '"\\u00e9t\\u00e9"', '"\\u0000"',
        '"12345678-1234-1234-1234-123456789abc"', '"12345678123412341234123456789abc"',
        '"[1, 2]"', '"{\\"a\\": 1}"', '"x\\ny"',
    ]
)  # fmt: skip
_KEYS = st.sampled_from(
    [
        "city", "days", "lines", "ship_to", "mode", "after", "sku", "qty", "gift_wrap",
        "street", "country", "name", "count", "ratio", "tags", "scaled", "colour", "level",
        "size", "when", "key", "price", "pair", "dated", "day", "note", "a", "b", "xs", "ys",
        "flag", "nothing", "numbers", "value", "choice", "other", "cit\\u0079",
    ]
)  # fmt: skip


def _objects(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(_KEYS, inner), max_size=5)
    return pairs.map(lambda items: "{" + ", ".join(f'"{k}": {v}' for k, v in items) + "}")


_TEXTS = st.recursive(
    _NUMBERS | _STRINGS,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
        | _objects(inner)
    ),
    max_leaves=14,
)


def _valid(name: str) -> st.SearchStrategy[str]:
    """Texts near the happy path of each tool, so that the typed route takes most of them."""
    line = st.fixed_dictionaries(
        {"sku": st.text(max_size=4), "qty": st.integers(-1, 3)},
        optional={"gift_wrap": st.booleans() | st.none()},
    )
    address = st.fixed_dictionaries(
        {"street": st.text(max_size=4), "city": st.sampled_from(["Oslo", "x"])},
        optional={"country": st.sampled_from(["SE", None, 1])},
    )
    shapes: dict[str, st.SearchStrategy[Any]] = {
        "weather": st.fixed_dictionaries(
            {"city": st.text(max_size=6)},
            optional={"days": st.integers(-2, 2**70) | st.none() | st.floats(0, 4)},
        ),
        "order": st.fixed_dictionaries(
            {"lines": st.lists(line, max_size=3), "ship_to": address},
            optional={
                "mode": st.sampled_from(["air", "sea", "rail", None]),
                "after": st.sampled_from(["2024-02-03", "2024-02-30", None, 5]),
            },
        ),
        "bounded": st.fixed_dictionaries(
            {"name": st.text(max_size=6)},
            optional={
                "count": st.integers(-5, 12) | st.floats(-4, 11),
                "ratio": st.floats(-0.5, 1.5) | st.integers(-1, 2),
                "tags": st.lists(st.text(max_size=2), max_size=5),
                "scaled": st.integers(-1, 2) | st.floats(0, 2),
            },
        ),
        "kinds": st.fixed_dictionaries(
            {"colour": st.sampled_from(["red", "blue", "green", 1])},
            optional={
                "level": st.sampled_from([1, 2, 3, 1.0, True, "1"]),
                "size": st.sampled_from([1, 3, 4, 2.0, None]),
                "when": st.sampled_from(["2024-01-02T03:04:05Z", "2024-01-02", "x", None]),
                "key": st.uuids().map(str) | st.sampled_from(["nope", None]),
                "price": st.sampled_from(["12.50", "1e3", 5, 5.5, "x"]),
                "pair": st.fixed_dictionaries(
                    {"a": st.integers(0, 3)}, optional={"b": st.floats(0, 1) | st.integers(0, 2)}
                )
                | st.none(),
                "dated": st.lists(
                    st.fixed_dictionaries(
                        {"day": st.sampled_from(["2024-01-02", "bad"])},
                        optional={"note": st.sampled_from(["n", None])},
                    ),
                    max_size=2,
                ),
            },
        ),
        "containers": st.fixed_dictionaries(
            {},
            optional={
                "xs": st.lists(st.integers(0, 3), max_size=3),
                "ys": st.lists(st.sampled_from(["a", "b"]), max_size=3),
                "flag": st.booleans() | st.none(),
                "nothing": st.none() | st.just(0),
                "numbers": st.lists(st.integers(-2, 2) | st.floats(-1, 1), max_size=3),
            },
        ),
        "batch": st.fixed_dictionaries(
            {"label": st.text(max_size=3)},
            optional={
                "count": st.integers(-1, 2) | st.none(),
                "lines": st.lists(line, max_size=3),
                "rows": st.lists(st.lists(st.integers(0, 2) | st.text(max_size=1), max_size=2)),
            },
        ),
        "anything": st.fixed_dictionaries(
            {"value": st.integers() | st.text(max_size=3)},
            optional={"choice": st.integers(0, 2) | st.text(max_size=2)},
        ),
    }
    return shapes[name].map(json.dumps)


@settings(max_examples=examples(600), deadline=None)
@given(name=st.sampled_from(NAMES), data=st.data())
def test_valid_looking_text_answers_as_its_decoded_value(name: str, data: st.DataObject) -> None:
    """Texts near each tool's happy path (and just off it) answer as their decoded value."""
    check(name, data.draw(_valid(name)))


@settings(max_examples=examples(600), deadline=None)
@given(name=st.sampled_from(NAMES), text=_TEXTS)
def test_adversarial_text_answers_as_its_decoded_value(name: str, text: str) -> None:
    """Any text of numbers JSON spells many ways, NaN, duplicate keys, escaped keys, lone
    surrogates, big integers and JSON inside strings answers as ``json.loads`` of it."""
    check(name, text)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("weather", '{"city": "Oslo", "days": 2}'),
        ("weather", '{"city": "Oslo", "days": null}'),
        ("weather", '{"city": "Oslo", "city": "Rome"}'),
        ("weather", '{"city": "Oslo", "city": 1}'),
        ("weather", '{"city": 1, "city": "Oslo"}'),
        ("weather", '{"cit\\u0079": "Oslo"}'),
        ("weather", '{"city": "\\ud800"}'),
        ("weather", '{"city": "\ud800"}'),
        ("weather", '{"city": "Oslo", "days": 2.0}'),
        ("weather", '{"city": "Oslo", "days": true}'),
        ("weather", '{"city": "Oslo", "days": NaN}'),
        ("weather", '{"city": "Oslo", "other": 1}'),
        ("weather", '"{\\"city\\": \\"Oslo\\"}"'),
        ("weather", "\ufeff{}"),
        ("weather", ' \t\n{"city": "x"}\r '),
        ("order", '{"lines": [{"sku": "A", "qty": 1, "extra": 2}], ' + SHIP + '}'),
        ("order", '{"lines": [{"sku": "A", "qty": 0}], ' + SHIP + '}'),
        ("order", '{"lines": [{"sku": "A", "qty": 1, "gift_wrap": null}], ' + SHIP_NULL + '}'),
        ("order", '{"lines": "[]", ' + SHIP + '}'),
        ("bounded", '{"name": "\\ud834\\udd1e\\ud834\\udd1e"}'),
        ("bounded", '{"name": "abcdef"}'),
        ("bounded", '{"name": "ab", "count": 10}'),
        ("bounded", '{"name": "ab", "ratio": 1}'),
        ("bounded", '{"name": "ab", "scaled": 0}'),
        ("containers", '{"ys": ["a", "a"]}'),
        ("containers", '{"numbers": [1, 2.5, 123456789012345678901234567890]}'),
    ],
)  # fmt: skip
def test_edge_texts_answer_as_their_decoded_value(name: str, text: str) -> None:
    """Duplicate keys (the last wins), escaped keys, null for an optional, integral floats,
    booleans for integers, bounds at their edges, lengths in code points, repeated set items."""
    check(name, text)


# -- where the decoder stopped -------------------------------------------------------------------

_LINE_VALUES = st.fixed_dictionaries(
    {"sku": st.sampled_from(["A", "", 1]), "qty": st.sampled_from([1, 2, 0, -1, 2.0, "1"])},
    optional={"gift_wrap": st.sampled_from([True, None, 1]), "x": st.just(1)},
)
_BATCH_VALUES = {
    "label": st.sampled_from(['"x"', "1", "null", '"\\u0041"']),
    "count": st.sampled_from(["0", "3", '"3"', "1.5", "null"]),
    "lines": st.lists(_LINE_VALUES | st.sampled_from([[], "{}", None]), max_size=4).map(json.dumps),
    "rows": st.lists(st.lists(st.sampled_from([1, 2, "3", None]), max_size=3), max_size=3).map(
        json.dumps
    ),
    "other": st.just("1"),
    "l\\u0069nes": st.just("[]"),
}


_GOOD_LINE = st.fixed_dictionaries({"sku": st.just("A"), "qty": st.integers(1, 3)})


@st.composite
def _batch_texts(draw: st.DrawFn) -> str:
    """Mostly valid arguments in any order, a bad item somewhere in ``lines``, and now and
    then a bad or repeated argument, an unknown one or an escaped name anywhere."""
    pairs: list[tuple[str, str]] = []
    for key in draw(st.permutations(["label", "count", "lines", "rows"])):
        if key == "lines":
            lines = draw(st.lists(_GOOD_LINE, max_size=5))
            if draw(st.booleans()):
                lines.insert(draw(st.integers(0, len(lines))), draw(_LINE_VALUES))
            pairs.append((key, json.dumps(lines)))
        elif draw(st.integers(0, 4)):
            pairs.append((key, {"label": '"x"', "count": "2", "rows": "[[1]]"}[key]))
        elif draw(st.booleans()):
            pairs.append((key, draw(_BATCH_VALUES[key])))
    for _ in range(draw(st.integers(0, 2)) if not draw(st.integers(0, 2)) else 0):
        key = draw(st.sampled_from(sorted(_BATCH_VALUES)))
        pairs.insert(draw(st.integers(0, len(pairs))), (key, draw(_BATCH_VALUES[key])))
    return "{" + ", ".join(f'"{key}": {value}' for key, value in pairs) + "}"


@settings(max_examples=examples(600), deadline=None)
@given(text=_batch_texts())
def test_text_refused_inside_a_list_answers_as_its_decoded_value(text: str) -> None:
    """Where the decoder stops inside an item of a list, only that item is walked again when
    what comes before it was checked: in any order of the arguments, with repeated and
    escaped keys, unknown arguments, bad values before and after the list, and bad items
    anywhere in it, the answer is ``run(json.loads(text))``'s."""
    check("batch", text)


_FLOATS = st.from_regex(r"\A-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?\Z")


@settings(max_examples=examples(1000), deadline=None)
@given(
    text=JSON.flatmap(
        lambda value: st.sampled_from(
            [json.dumps(value), json.dumps(value, ensure_ascii=False), json.dumps(value, indent=1)]
        )
    )
    | _FLOATS
    | _TEXTS
    | st.text(max_size=12)
)
@example(text="1" * 4300)
@example(text="-" + "9" * 4301)  # past Python's digit limit: json.loads refuses it
@example(text='{"a": 1, "b": 2, "a": [3]}')
@example(text='"\\ud83d\\ude00 \\ud800"')
def test_msgspec_reads_what_it_takes_as_json_loads_does(text: str) -> None:
    """The decode of refused text: whatever msgspec accepts, it reads exactly as ``json.loads``
    (types, float bits, key order, the last of a repeated key), so the msgspec upgrade that
    changes this fails here."""
    try:
        got = plan._untyped(text)
    except Exception:
        return
    assert _exact(got) == _exact(json.loads(text))


def _exact(value: Any) -> Any:
    """``value`` with every type, key order and float spelled out."""
    if isinstance(value, dict):
        return ("dict", [(key, _exact(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_exact(item) for item in value])
    return (type(value).__name__, repr(value))


# -- which route ran ----------------------------------------------------------------------------


class Counted:
    """Counts the untyped decodes of the text while installed: ``json.loads``'s, and the
    msgspec decode that reads the text as it does."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        loads, untyped = json.loads, plan._untyped

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return loads(*args, **kwargs)

        def counted_untyped(text: str) -> Any:
            self.calls += 1
            return untyped(text)

        monkeypatch.setattr(json, "loads", counted)
        monkeypatch.setattr(plan, "_untyped", counted_untyped)


@pytest.mark.parametrize("name", ["weather", "order", "bounded", "kinds", "containers", "batch"])
def test_each_mirrored_tool_has_a_typed_route(name: str) -> None:
    """Every parameter type of these tools has a mirror."""
    tool = toolcall.derive(getattr(tools(), name))
    assert text_route(tool, _Resolver(), lambda text, exc: None) is not None


def test_a_type_without_mirror_leaves_the_tool_without_the_route() -> None:
    """``Any`` and a union have no mirror: the tool's text goes the json.loads way."""
    tool = toolcall.derive(tools().anything)
    assert text_route(tool, _Resolver(), lambda text, exc: None) is None


class _Resolver:
    """The tools module's classes, by their IR reference."""

    def cls(self, ref: str) -> type:
        module, _, name = ref.partition(":")
        found: type = getattr(sys.modules[module], name)
        return found

    def provider(self, ref: str) -> Any:
        raise LookupError(ref)


@pytest.mark.parametrize(
    ("name", "text", "decodes"),
    [
        ("weather", '{"city": "Oslo", "days": 2}', 0),
        ("order", '{"lines": [{"sku": "A", "qty": 2}], ' + SHIP + ', "after": "2024-01-02"}', 0),
        ("kinds", '{"colour": "red", "level": 2, "key": ' + KEY + ', "pair": {"a": 1}}', 0),
        ("containers", '{"xs": [1, 2], "ys": ["a"]}', 0),
        ("bounded", '{"name": "ab", "count": -3, "ratio": 1, "tags": ["x"], "scaled": 1}', 0),
        ("weather", '{"city": "Oslo", "days": "2"}', 1),
        ("order", '{"lines": [{"sku": "A", "qty": 0}], ' + SHIP + '}', 1),
        ("order", '{"lines": [], ' + SHIP + ', "after": "2024-02-30"}', 1),
        ("kinds", '{"colour": "green"}', 1),
        ("anything", '{"value": 1}', 1),
    ],
)  # fmt: skip
def test_text_is_decoded_again_only_when_the_typed_route_refuses_it(
    monkeypatch: pytest.MonkeyPatch, name: str, text: str, decodes: int
) -> None:
    """Text the mirrors take is never decoded again; text they refuse is decoded once."""
    module = tools()
    toolcall.run(module, name, text)  # prepared, the decoder built
    counted = Counted(monkeypatch)
    result = toolcall.run(module, name, text)
    assert counted.calls == decodes
    assert answer(result) == expected(name, text)


def test_the_decoder_is_built_on_the_first_text_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool called with mappings never builds its mirrors; the first text call builds
    them once."""
    built: list[Any] = []
    decoder = msgspec.json.Decoder

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(args)
        return decoder(*args, **kwargs)

    monkeypatch.setattr(msgspec.json, "Decoder", counting)
    source = TOOLS.replace("def weather(", "def weather2(")
    module = types.ModuleType("toolcall_json_route_lazy")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, "<json-route lazy>", "exec"), vars(module))
        assert toolcall.run(module, "weather2", {"city": "a"}) == toolcall.Ok(("a", 3))
        assert built == []
        assert toolcall.run(module, "weather2", '{"city": "a"}') == toolcall.Ok(("a", 3))
        assert toolcall.run(module, "weather2", '{"city": "b", "days": 1}') == toolcall.Ok(("b", 1))
        assert len(built) == 1
    finally:
        del sys.modules[module.__name__]


# -- the generated code ---------------------------------------------------------------------------


def test_the_text_branch_of_a_small_tool_is_pinned() -> None:
    """A scalar tool's text branch: one decode (the length and the bound are the mirror's,
    checked in C), an explicit null read as absent, the call; anything else to ``_text``,
    with the decoder's refusal."""
    refused: list[Any] = []
    route = text_route(GREET, FakeResolver(), lambda text, exc: refused.append(exc))
    assert route is not None
    fast = build_fastpath(GREET, greet, is_async=False, resolver=FakeResolver(), text=route.write)
    assert fast is not None
    source = "".join(linecache.getlines(fast.__code__.co_filename))
    assert source.startswith(
        "def make(fn, _fallback, _ABSENT, _raised, _exited, _Ok, _decode, _text, _tb, _k1, "
        "_k2, _utf8):\n"
        "    def fast(args):\n"
        "        cls = type(args)\n"
        "        if cls is not dict:\n"
        "            if cls is str or cls is bytes:\n"
        "                try:\n"
        "                    s = _decode(args)\n"
        "                    v0 = s.f0\n"
        "                    v1 = s.f1\n"
        "                    if v1 is None:\n"
        "                        v1 = _ABSENT\n"
        "                except Exception as exc:\n"
        "                    return _text(args, exc)\n"
        "                try:\n"
        "                    if v1 is _ABSENT:\n"
        "                        value = fn(v0)\n"
        "                    else:\n"
        "                        value = fn(v0, v1)\n"
    )
    assert source.endswith(
        "    def arm__decode(value):\n"
        "        nonlocal _decode\n"
        "        _decode = value\n"
        "    return fast, arm__decode"
    )
    assert fast('{"name": "ab", "times": 2}') == toolcall.Ok("abab")
    assert fast(b'{"name": "ab", "times": null}') == toolcall.Ok("ab")
    assert refused == []
    for text in ('{"name": "ab", "times": 0}', '{"name": "' + "x" * 21 + '"}', '{"name": 1}'):
        fast(text)
    assert [type(exc) for exc in refused] == [msgspec.ValidationError] * 3


ASYNC_TOOLS = """
from typing import Literal

__toolcall__ = True


async def fetch(url: str, tries: int = 1, mode: Literal["a", "b"] = "a") -> tuple:
    \"\"\"Fetch.\"\"\"
    return (url, tries, mode)
"""


@pytest.mark.parametrize(
    "text",
    [
        '{"url": "u", "tries": 2, "mode": "b"}',
        '{"url": "u", "tries": null}',
        '{"url": "u", "tries": 2.0}',
        '{"url": "u", "mode": "c"}',
        '{"url": "u", "url": 3}',
        "{",
    ],
)
def test_an_async_tool_reads_text_as_its_decoded_value(
    make_module: Callable[..., types.ModuleType], text: str
) -> None:
    """``arun`` on an ``async def`` tool: the typed route, and the general one for what it
    refuses, answer as ``arun(json.loads(text))`` (or json.loads's refusal)."""
    module = make_module(ASYNC_TOOLS)
    got = answer(asyncio.run(toolcall.arun(module, "fetch", text)))
    try:
        decoded = json.loads(text)
    except ValueError:
        assert got[:2] == ("err", "invalid_arguments")
        return
    assert got == answer(asyncio.run(toolcall.arun(module, "fetch", decoded)))
    assert answer(toolcall.run(module, "fetch", text))[1] == "async_tool"
