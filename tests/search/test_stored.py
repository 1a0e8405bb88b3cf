"""A module's search terms in the cache: counted once, read by the next warm process.

The process whose first search had to count a module's terms writes them beside its entry,
named after the digest of what was counted; the next process reads them instead of counting.
The hits are the same either way; a changed module, or a broken, truncated or foreign file,
is a miss (counted again, never an exception, never a wrong hit); a cache that cannot be
written still searches; and a warm start that does not search never imports search at all.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from examples import weather

import subproc
from files import write
from toolcall._api.toolbox import Toolbox
from toolcall._cache import store
from toolcall._load import registry
from toolcall.cli.cache import main as cache_main

SHOP = '''
__toolcall__ = True
from typing import Literal


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

STOCK = '''
__toolcall__ = True


def count_stock(sku: str) -> int:
    """How many of an item the warehouse holds."""
    return 0
'''

# Records which tools' terms are counted and documents made (``document_terms``, ``document``),
# then searches a box of both modules and a runtime function (an index of the box's own, from
# the modules' counts), asks run() about an unknown name and searches a box of one module
# (both: that module's own index).
SEARCH = """
import json, sys, toolcall, shop, stock
from toolcall._load import registry
from toolcall._search import stored

counted, made = [], []
original, make = stored.document_terms, stored.document
stored.document_terms = lambda doc: counted.append(doc.name) or original(doc)
stored.document = lambda tool: made.append(tool.name) or make(tool)

def restock(sku: str) -> str:
    '''Order more of an item for the warehouse.'''
    return sku

box = toolcall.Toolbox(shop, stock, restock)
hits = [[h.name, h.score, h.why] for q in ("parcel label", "warehouse item", "payment")
        for h in box.search(q)]
unknown = toolcall.run(shop, "track_parcle", {}).error.names
alone = [[h.name, h.score, h.why] for h in toolcall.Toolbox(shop).search("parcel label payment")]
print(json.dumps({
    "alone": alone,
    "read": {m: registry.find(m).search.read for m in ("shop", "stock")},
    "counted": sorted(counted),
    "made": sorted(made),
    "hits": hits,
    "unknown": unknown,
}))
"""


def project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    write(root, "shop.py", SHOP)
    write(root, "stock.py", STOCK)
    return root, tmp_path / "cache"


def search(root: Path, cache: Path, **env: str) -> Any:
    return subproc.json_run(root, cache, SEARCH, **env)


def terms_files(cache: Path) -> list[str]:
    return sorted(path.name for path in cache.glob("*.tcs"))


def test_the_next_process_reads_the_counts_and_finds_the_same(tmp_path: Path) -> None:
    """First process: counted and written, one file per module, with the postings of the
    module's own index where one was built. Second: read, nothing counted but the runtime
    function, the same hits to the last digit in both kinds of box, run()'s suggestions too."""
    root, cache = project(tmp_path)
    first = search(root, cache)
    assert first["read"] == {"shop": "", "stock": ""}
    assert first["counted"] == ["count_stock", "refund_payment", "restock", "track_parcel"]
    assert [name.rpartition("-")[0] for name in terms_files(cache)] == ["shop", "stock"]
    second = search(root, cache)
    assert second["read"] == {"shop": "index", "stock": "terms"}
    assert second["counted"] == second["made"] == ["restock"]  # no document of a module
    assert second["hits"] == first["hits"]
    assert second["alone"] == first["alone"]
    assert second["unknown"] == first["unknown"] == ["track_parcel"]
    without = search(root, cache, TOOLCALL_CACHE="0")
    assert (without["hits"], without["alone"]) == (first["hits"], first["alone"])
    assert [hit[0] for hit in first["hits"]][:2] == ["track_parcel", "count_stock"]


def test_a_changed_module_never_reads_the_old_counts(tmp_path: Path) -> None:
    """Another description is other content: counted again, found by its new words."""
    root, cache = project(tmp_path)
    search(root, cache)
    write(root, "stock.py", STOCK.replace("warehouse holds", "depot keeps"))
    changed = search(root, cache)
    assert changed["read"] == {"shop": "index", "stock": ""}
    assert "count_stock" not in [hit[0] for hit in changed["hits"][:2]]
    assert len(terms_files(cache)) == 3


def test_a_broken_truncated_or_foreign_file_is_a_miss(tmp_path: Path) -> None:
    """Damage and a file holding another module's counts are misses, counted again and
    rewritten; the hits never change."""
    root, cache = project(tmp_path)
    expected = search(root, cache)["hits"]
    shop_file, stock_file = sorted(cache.glob("*.tcs"))
    data = bytearray(shop_file.read_bytes())
    data[-3] ^= 0xFF
    shop_file.write_bytes(bytes(data))
    stock_file.write_bytes(stock_file.read_bytes()[:20])
    broken = search(root, cache)
    assert (broken["read"], broken["hits"]) == ({"shop": "", "stock": ""}, expected)
    assert search(root, cache)["read"] == {"shop": "index", "stock": "terms"}  # rewritten
    shop_file.write_bytes(stock_file.read_bytes())  # another module's counts, renamed
    foreign = search(root, cache)
    assert (foreign["read"], foreign["hits"]) == ({"shop": "", "stock": "terms"}, expected)


def test_a_cache_that_cannot_be_written_still_searches(tmp_path: Path) -> None:
    """A cache directory that cannot be created (under a file), and a disabled cache: the
    search counts in memory and answers the same."""
    root, cache = project(tmp_path)
    expected = search(root, cache)["hits"]
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    unwritable = search(root, blocked / "cache")
    assert (unwritable["read"], unwritable["hits"]) == ({"shop": "", "stock": ""}, expected)
    disabled = search(root, cache, TOOLCALL_CACHE="0")
    assert (disabled["read"], disabled["hits"]) == ({"shop": "", "stock": ""}, expected)


def test_a_warm_start_that_does_not_search_never_imports_search(tmp_path: Path) -> None:
    """Emitting and running known tools of a warm module loads no search code; the counts
    stay on disk until a search or an unknown name asks for them."""
    root, cache = project(tmp_path)
    search(root, cache)
    code = """
        import json, sys, toolcall, shop
        toolcall.emit(shop)
        toolcall.run(shop, "track_parcel", {"tracking_number": "1Z"})
        toolcall.Toolbox(shop).run("refund_payment", {"order_id": "7"})
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("toolcall._search"))))
    """
    assert subproc.json_run(root, cache, code) == []


def test_toolcall_cache_lists_cleans_and_clears_the_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A module's counts are listed as search terms, valid while it has a valid entry beside
    them; ``clean`` removes them once it has none, ``clear`` always."""
    root, cache = project(tmp_path)
    search(root, cache)
    assert cache_main(["list", "--cache-dir", str(cache)]) == 0
    listed = [line.split() for line in capsys.readouterr().out.splitlines()[1:-1]]
    assert sorted((row[0], row[-2:] == ["(search", "terms)"]) for row in listed) == [
        ("shop", False),
        ("shop", True),
        ("stock", False),
        ("stock", True),
    ]
    code = """
        import json, sys
        from toolcall._cache import maintenance
        infos = maintenance.scan(sys.argv[1])
        print(json.dumps([[i.module, i.status] for i in infos if i.path.suffix == ".tcs"]))
    """
    listed = subproc.json_run(root, cache, code, str(cache))
    assert listed == [["shop", "valid"], ["stock", "valid"]]
    (root / "stock.py").unlink()
    listed = subproc.json_run(root, cache, code, str(cache))
    assert listed == [["shop", "valid"], ["stock", "entry gone"]]
    assert cache_main(["clean", "--cache-dir", str(cache)]) == 0
    assert [name.rpartition("-")[0] for name in terms_files(cache)] == ["shop"]
    assert cache_main(["clear", "--cache-dir", str(cache)]) == 0
    assert terms_files(cache) == []


def test_stored_postings_or_counts_of_another_shape_are_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_module: Callable[..., types.ModuleType]
) -> None:
    """A file that checks out but whose postings name a tool that is not there is a miss;
    counts of another shape are counted again (and written again), the postings still used."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    module = make_module(SHOP)
    entry = registry.find(module.__name__)
    assert entry is not None

    def fresh(*members: Any) -> list[Any]:
        entry.search = None  # what a new process starts with
        return [Toolbox(*members).search(q) for q in ("parcel label", "payment forecast")]

    alone, both = fresh(module), fresh(module, weather)
    (path,) = (tmp_path / "cache").glob(f"{module.__name__}-*.tcs")
    good = store.read_terms(path, module.__name__, path.stem.rpartition("-")[2])
    assert good is not None
    assert good.postings is not None
    assert (fresh(module), entry.search.read) == (alone, "index")
    postings = {term: ([99], [1.0]) for term in good.postings}
    assert store.write_terms(path, msgspec.structs.replace(good, postings=postings))
    assert (fresh(module), entry.search.read) == (alone, "")
    assert fresh(module) == alone  # rewritten by the miss
    short = store.encode_counts(store.decode_counts(good.tools)[:1])  # type: ignore[index]
    assert store.write_terms(path, msgspec.structs.replace(good, tools=short))
    assert (fresh(module, weather), entry.search.read) == (both, "index")
    rewritten = store.read_terms(path, module.__name__, good.key)
    assert rewritten is not None
    assert bytes(rewritten.tools) == bytes(good.tools)
