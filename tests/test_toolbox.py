"""Toolbox construction: what a clash says when both members are one and the same function."""

from __future__ import annotations

import types
from collections.abc import Callable

import pytest
from examples import weather

import toolcall


def test_module_and_its_own_function_are_named_as_such() -> None:
    """A module and one of its functions: not "defined by both X and X", but what happened."""
    with pytest.raises(ValueError, match="duplicate tool name") as info:
        toolcall.Toolbox(weather, weather.get_weather)
    assert str(info.value) == (
        "duplicate tool name 'get_weather': module examples.weather and function "
        "examples.weather.get_weather are the same tool; pass each module or function once"
    )


def test_member_given_twice() -> None:
    """The same module twice (object and dotted name) is named once, as given twice."""
    with pytest.raises(ValueError, match="duplicate tool name") as info:
        toolcall.Toolbox(weather, "examples.weather")
    assert str(info.value) == (
        "duplicate tool name 'get_weather': module examples.weather is given twice; "
        "pass each module or function once"
    )


def test_two_functions_sharing_a_name_still_name_both(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """Different functions with one tool name: both owners, each with its kind."""
    other = make_module("__toolcall__ = True\ndef get_weather(city: str) -> None: pass\n")
    with pytest.raises(ValueError, match="duplicate tool name") as info:
        toolcall.Toolbox(weather, other.get_weather)
    assert str(info.value) == (
        "duplicate tool name 'get_weather': defined by both module examples.weather and "
        f"function {other.__name__}.get_weather; rename one of them"
    )
