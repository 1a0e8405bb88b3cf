"""A return annotation toolcall cannot encode is a derivation warning naming the function,
the class and the fix, so ``toolcall check`` fails on it; every kind it can encode is
silent."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import subproc
import toolcall
from files import write

BIN = Path(sys.executable).parent

FIX = (
    "which toolcall cannot encode as a tool result, so every call would fail; return plain "
    "data, a dataclass, a TypedDict, a msgspec Struct, an attrs class, a pydantic model or "
    "toolcall.Image/Audio/File (or convert the value in the tool)"
)

TOOLS = '''
__toolcall__ = True
import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, TypedDict

import attrs
import msgspec
import pydantic
import toolcall


class Opaque:
    pass


class Quote(pydantic.BaseModel):
    price: float


@dataclasses.dataclass
class Cell:
    x: int


@attrs.define
class Level:
    depth: int


class Row(msgspec.Struct):
    n: int


class Pair(NamedTuple):
    a: int


class Doc(TypedDict):
    title: str


def opaque() -> Opaque:
    """Returns a plain class."""
    return Opaque()


def opaques() -> dict[str, list[Opaque]]:
    """Nested plain class."""
    return {}


def lines() -> Iterator[str]:
    """A generator."""
    yield "a"


def later() -> Callable[[], int]:
    """A callable."""
    return lambda: 1


def fine_model() -> Quote | list[Quote] | pydantic.RootModel[list[int]]:
    """Models."""
    return Quote(price=1)


def fine_others() -> tuple[Cell, Level, Row, Pair, Doc, Iterable[int], Any, "Unresolved"]:
    """Other kinds."""
    raise NotImplementedError


def fine_media() -> list[str | toolcall.Image | toolcall.Audio | toolcall.File]:
    """Media."""
    return []


def fine_url() -> pydantic.HttpUrl | None:
    """A pydantic type."""
    return None
'''


@pytest.fixture
def tools(make_module: Any) -> Any:
    with warnings.catch_warnings(record=True):
        return make_module(TOOLS)


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("opaque", "Opaque"),
        ("opaques", "Opaque"),
        ("lines", "Iterator (a value consumed once or called, not data)"),
        ("later", "Callable (a value consumed once or called, not data)"),
    ],
)
def test_an_unencodable_return_annotation_warns_naming_function_and_fix(
    tools: Any, name: str, what: str
) -> None:
    with pytest.warns(toolcall.ToolcallWarning) as caught:
        toolcall.derive(getattr(tools, name))
    assert [str(w.message) for w in caught] == [
        f"{name}: the return annotation names {what}, {FIX}"
    ]


@pytest.mark.parametrize("name", ["fine_model", "fine_others", "fine_media", "fine_url"])
def test_every_encodable_return_annotation_is_silent(tools: Any, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolcall.ToolcallWarning)
        toolcall.derive(getattr(tools, name))


def test_check_fails_on_an_unencodable_return(tmp_path: Path) -> None:
    """``toolcall check`` prints the warning at the function and exits 1."""
    write(
        tmp_path,
        "tools.py",
        '''
        __toolcall__ = True

        class Opaque:
            pass

        def opaque(city: str) -> Opaque:
            """Returns a plain class."""
            return Opaque()
        ''',
    )
    result = subproc.python(BIN / "toolcall", "check", "tools.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == f"tools.py:7: opaque: the return annotation names Opaque, {FIX}\n"
