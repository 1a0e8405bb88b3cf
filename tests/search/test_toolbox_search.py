"""``Toolbox.search`` / ``select`` and ``toolcall.search``: over the IR, built once, under -OO."""

from __future__ import annotations

import json
import shutil
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from examples import orders, weather

import subproc
import toolcall
from files import write
from toolcall._api.toolbox import Toolbox, search
from toolcall._search import index, stored
from toolcall._shared.names import FORMATS

SHOP = '''
__toolcall__ = True
import toolcall
from typing import Literal


@toolcall.tool(search=["chargeback", "money back"])
def refund_payment(order_id: str) -> str:
    """Return a customer's payment.

    Args:
        order_id: the order whose payment goes back
    """
    return order_id


def track_parcel(tracking_number: str, carrier: Literal["dhl", "ups"] = "dhl") -> str:
    """Where a parcel is now.

    Args:
        tracking_number: the number on the shipping label
    """
    return tracking_number
'''


@pytest.fixture
def shop(make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
    return make_module(SHOP)


def test_search_reads_names_descriptions_parameters_and_enums(shop: types.ModuleType) -> None:
    box = Toolbox(weather, orders, shop)
    assert [h.name for h in box.search("where is my parcel")] == ["track_parcel"]
    assert box.search("shipping label")[0].why == (
        ("parameter_descriptions", ("shipping", "label")),
    )
    assert box.search("sent with ups")[0].name == "track_parcel"
    assert box.search("cancel_order 7", k=1)[0].why[0] == ("mention", ("cancel_order",))


def test_search_only_keywords_are_searched_and_never_emitted(shop: types.ModuleType) -> None:
    box = Toolbox(shop)
    (hit,) = box.search("I want a chargeback", k=1)
    assert (hit.name, hit.why) == ("refund_payment", (("keywords", ("chargeback",)),))
    assert box.tools()[0].search == ("chargeback", "money back")
    for fmt in FORMATS:
        for strict in (False, True):
            assert "chargeback" not in json.dumps(list(box.emit(fmt, strict)))
    assert "chargeback" not in json.dumps(list(box.describe()))


def test_search_keywords_take_a_string_or_strings_and_nothing_else() -> None:
    @toolcall.tool(search="money back")
    def one() -> None: ...

    assert toolcall.derive(one).search == ("money back",)
    with pytest.raises(TypeError, match="search must be a string or strings"):
        toolcall.tool(search=[1])  # type: ignore[list-item]


def test_the_index_is_built_on_the_first_search_and_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[int] = []
    original = stored.box_index

    def counting(entries: Any, tools: list[toolcall.ir.Tool]) -> index.Index:
        built.append(len(tools))
        return original(entries, tools)

    monkeypatch.setattr(stored, "box_index", counting)
    box = Toolbox(weather, orders)
    assert built == []  # building the box does not index it
    box.search("forecast")
    box.search("order", k=2)
    box.select("air quality", k=1)
    assert built == [5]
    selected = box.select("forecast", k=1)
    assert built == [5]
    selected.search("forecast")
    assert built == [5, 1]  # a selected box has an index of its own tools, built when searched


def test_select_is_pinned_then_hits_and_emits_in_every_format() -> None:
    box = Toolbox(weather, orders)
    selected = box.select("cancel my order", k=2, pinned=["air_quality", "get_weather"])
    assert selected.tool_names() == ("air_quality", "get_weather", "cancel_order", "place_order")
    for fmt in FORMATS:
        for strict in (False, True):
            full = {json.dumps(t, sort_keys=True) for t in box.emit(fmt, strict)}
            chosen = [json.dumps(t, sort_keys=True) for t in selected.emit(fmt, strict)]
            assert len(chosen) == 4
            assert set(chosen) <= full
    assert [d["name"] for d in selected.describe()] == list(selected.tool_names())
    assert selected.run("cancel_order", {"order_id": "A1"}) == box.run(
        "cancel_order", {"order_id": "A1"}
    )
    assert selected.run("convert_temperature", {}).error.kind == "unknown_tool"  # type: ignore[union-attr]


def test_select_keeps_a_pinned_hit_once_and_refuses_unknown_pins() -> None:
    box = Toolbox(weather, orders)
    assert box.select("cancel_order", k=1, pinned=["cancel_order"]).tool_names() == (
        "cancel_order",
    )
    with pytest.raises(ValueError, match="cannot pin 'nope'"):
        box.select("x", pinned=["nope"])


def test_a_selected_box_is_a_member_like_any_other() -> None:
    selected = Toolbox(weather).select("forecast", k=1)
    combined = Toolbox(selected, orders)
    assert combined.tool_names() == ("get_weather", "place_order", "cancel_order")
    with pytest.raises(ValueError, match="duplicate tool name 'get_weather'"):
        Toolbox(selected, weather)


@pytest.mark.parametrize(
    ("query", "k", "error"),
    [(None, 5, TypeError), ("x", 0, ValueError), ("x", True, ValueError), ("x", 2.0, ValueError)],
)
def test_bad_arguments(query: object, k: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        Toolbox(weather).search(query, k)  # type: ignore[arg-type]


def test_module_level_search() -> None:
    assert search(weather, orders, query="cancel an order", k=1) == Toolbox(weather, orders).search(
        "cancel an order", k=1
    )


def test_search_from_a_sourceless_deployment_under_OO(tmp_path: Path) -> None:
    """Entries built from source, then .py deleted and -OO: the same hits, found through the
    descriptions and parameter docs only the cache still holds."""
    project = tmp_path / "proj"
    write(project, "shop.py", SHOP)
    cache = tmp_path / "cache"
    env = {"TOOLCALL_CACHE": None, "TOOLCALL_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    code = (
        "import json, toolcall, shop\n"
        "from toolcall._api.toolbox import Toolbox\n"
        "box = Toolbox(shop)\n"
        "print(json.dumps([[h.name, h.score, h.why] for q in ('shipping label', 'payment') "
        "for h in box.search(q)]))\n"
    )

    def searched(*flags: str) -> list[object]:
        done = subproc.python(*flags, "-c", code, paths=[project], env=env, cwd=project)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    from_source = searched()
    assert [hit[0] for hit in from_source] == ["track_parcel", "refund_payment"]
    compiled = subproc.python("-OO", "-m", "compileall", "-q", "-b", project)
    assert compiled.returncode == 0, compiled.stderr
    (project / "shop.py").unlink()
    shutil.rmtree(project / "__pycache__", ignore_errors=True)
    assert searched("-OO") == from_source


def test_search_is_imported_by_the_first_search_not_by_a_toolbox() -> None:
    code = (
        "import sys, toolcall\n"
        "box = toolcall.Toolbox('examples.weather')\n"
        "before = 'toolcall._search' in sys.modules\n"
        "box.search('forecast')\n"
        "print(before, 'toolcall._search.index' in sys.modules)\n"
    )
    done = subproc.python("-c", code, paths=[subproc.ROOT], env={"TOOLCALL_CACHE": "0"})
    assert (done.returncode, done.stdout) == (0, "False True\n"), done.stderr
