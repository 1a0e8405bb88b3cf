"""The default ranking (BM25F over the IR's fields, a named tool first) and the Ranker hook."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from toolcall import ir
from toolcall._search.index import Hit, SearchDocument, build_index

STRING = ir.Type(kind="string")


def tool(name: str, description: str = "", *params: ir.Parameter, **more: object) -> ir.Tool:
    return ir.Tool(name=name, description=description, parameters=params, **more)  # type: ignore[arg-type]


def param(name: str, description: str = "", values: tuple[str, ...] = ()) -> ir.Parameter:
    kind = ir.Type(kind="enum", values=values) if values else STRING
    return ir.Parameter(name=name, type=kind, description=description)


CATALOG = [
    tool("get_weather", "Get the forecast for a city.", param("city", "city name, e.g. Oslo")),
    tool(
        "convert_temperature",
        "Convert a temperature between units.",
        param("unit", "", ("celsius", "fahrenheit", "kelvin")),
    ),
    tool("send_email", "Send an email message.", param("to", "recipient address")),
    tool("search_files", "Find files whose name matches a pattern.", param("pattern")),
    tool("list_files", "List the files of a directory.", param("path", "directory to list")),
    tool("cancel_order", "Cancel an order.", param("order_id", "the order to cancel")),
    tool("refund", "Give the customer their money back.", search=("chargeback", "reimburse")),
    tool("天气预报", "查询城市的天气预报。", param("城市", "城市名称")),
]
INDEX = build_index(CATALOG)


def names(query: str, k: int = 5) -> list[str]:
    return [hit.name for hit in INDEX.search(query, k)]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("what's the forecast in Oslo?", "get_weather"),  # description
        ("how hot in fahrenheit", "convert_temperature"),  # enum value only
        ("email the recipient address", "send_email"),  # name, description, parameter doc
        ("cancel order 42", "cancel_order"),
        ("a chargeback for my last purchase", "refund"),  # a search-only keyword
        ("北京的天气", "天气预报"),  # no spaces: character pairs
        ("Forecasts for OSLO", "get_weather"),  # case and plural
    ],
)
def test_the_right_tool_comes_first(query: str, first: str) -> None:
    assert names(query)[0] == first


def test_a_named_tool_comes_first_whatever_the_other_words_say() -> None:
    """``list_files`` written out beats ``search_files``, which matches more of the words."""
    query = "use list_files to search files matching a pattern"
    assert names(query)[:2] == ["list_files", "search_files"]
    (hit, *_) = INDEX.search(query, 5)
    assert hit.why[0] == ("mention", ("list_files",))


@pytest.mark.parametrize(
    "query",
    ["listFiles please", "list-files", "the list files tool", "call list_flies", "run listFlies"],
)
def test_a_name_spelled_another_way_or_one_letter_off_is_a_mention(query: str) -> None:
    hit = INDEX.search(query, 5)[0]
    assert (hit.name, hit.why[0]) == ("list_files", ("mention", ("list_files",)))


def test_a_one_word_name_is_a_word_not_a_mention() -> None:
    """ "refund" in a query is an ordinary word: it matches the name field, it is no mention."""
    (hit,) = INDEX.search("refund", 5)
    assert hit.why == (("name", ("refund",)),)


def test_why_lists_fields_in_order_with_the_words_as_written() -> None:
    (hit,) = INDEX.search("Sending EMAILS", 1)
    assert hit == Hit(
        name="send_email",
        score=hit.score,
        why=(("name", ("sending", "emails")), ("description", ("sending", "emails"))),
    )


def test_no_match_no_hits_and_fewer_hits_than_k() -> None:
    assert names("zebra") == []
    assert names("the of and") == []
    assert names("files", k=10) == ["list_files", "search_files"]


def test_ties_are_broken_by_name() -> None:
    twins = build_index([tool(n, "Frobnicate the widget.") for n in ("zeta", "alpha", "mid")])
    hits = twins.search("frobnicate", 3)
    assert [h.name for h in hits] == ["alpha", "mid", "zeta"]
    assert len({h.score for h in hits}) == 1


def test_scores_are_exact_and_ordered() -> None:
    """Same catalog, same query: the same floats, bit for bit (the tests run on 3.11-3.15)."""
    hits = INDEX.search("find files in a directory", 3)
    assert [h.name for h in hits] == ["list_files", "search_files"]
    assert hits == build_index(CATALOG).search("find files in a directory", 3)
    assert hits[0].score > hits[1].score > 0


class Reverse:
    """A stand-in for an embedding ranker: it sees every document, the same tuple each time."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Sequence[SearchDocument]]] = []

    def __call__(self, query: str, documents: Sequence[SearchDocument]) -> list[float]:
        self.seen.append((query, documents))
        return [float(i) for i in range(len(documents))]


def test_a_ranker_replaces_the_scores_and_keeps_why() -> None:
    ranker = Reverse()
    hits = INDEX.search("files", 3, ranker)
    assert [h.name for h in hits] == ["天气预报", "refund", "cancel_order"]
    assert [h.score for h in hits] == [7.0, 6.0, 5.0]
    INDEX.search("other", 3, ranker)
    assert ranker.seen[0][1] is ranker.seen[1][1] is INDEX.documents
    assert ranker.seen[0][0] == "files"


def test_a_named_tool_still_comes_first_with_a_ranker() -> None:
    hits = INDEX.search("get_weather", 2, Reverse())
    assert [h.name for h in hits] == ["get_weather", "天气预报"]


def test_a_ranker_must_score_every_document() -> None:
    with pytest.raises(ValueError, match="returned 1 scores for 8 documents"):
        INDEX.search("x", 3, lambda query, documents: [1.0])
