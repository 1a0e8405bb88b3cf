"""Terms and documents: what a query and a tool are compared by, read from the IR alone."""

from __future__ import annotations

import hypothesis
import msgspec
import pytest
from hypothesis import strategies

from toolcall import ir
from toolcall._search.index import FIELDS, build_index
from toolcall._search.tokens import identifier_words, stem, terms

STRING = ir.Type(kind="string")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("get_weather", ["get", "weather"]),
        ("getWeather", ["get", "weather"]),
        ("HTTPServer2", ["http", "server", "2"]),
        ("qdrant-find", ["qdrant", "find"]),
        ("\uff37\uff45\uff41\uff54\uff48\uff45\uff52 Straße", ["weather", "strasse"]),  # NFKC
        ("ПОГОДА в Москве", ["погода", "в", "москве"]),
    ],
)
def test_identifier_words(text: str, expected: list[str]) -> None:
    assert identifier_words(text) == expected


@pytest.mark.parametrize(
    ("words", "one"),
    [
        (("files", "file"), "fil"),
        (("created", "create", "creating"), "creat"),
        (("running", "run"), "run"),
        (("cities", "city"), "city"),
        (("classes", "class"), "class"),
        (("boxes", "box"), "box"),
    ],
)
def test_stem_meets_inflections(words: tuple[str, ...], one: str) -> None:
    assert {stem(word) for word in words} == {one}


@pytest.mark.parametrize("word", ["string", "status", "class", "address", "email"])
def test_stem_keeps_words_that_only_look_inflected(word: str) -> None:
    assert stem(word) == word


def test_terms_drop_stop_words_and_pair_unspaced_scripts() -> None:
    assert terms("Get me the forecasts for Oslo") == ["forecast", "oslo"]
    assert terms("北京天气") == ["北京", "京天", "天气"]
    assert terms("天") == ["天"]


def test_document_reads_every_field_of_the_ir() -> None:
    """Nested field names and descriptions and enum values count; search keywords are a
    field of their own; hand-built tools (no module) work."""
    address = ir.Type(
        kind="object",
        fields=(
            ir.Field(name="postcode", type=STRING, description="postal code"),
            ir.Field(name="kind", type=ir.Type(kind="enum", values=("home", "office", 3))),
        ),
    )
    tool = ir.Tool(
        name="ship_parcel",
        title="Ship a parcel",
        description="Send a parcel.",
        parameters=(
            ir.Parameter(name="to", type=ir.Type(kind="array", items=address), description="who"),
            ir.Parameter(name="speed", type=ir.Type(kind="enum", values=("express", True))),
        ),
        module="shop.tools",
        search=("courier", "post"),
    )
    (doc,) = build_index([tool]).documents
    assert dict(doc.fields) == {
        "name": "ship_parcel Ship a parcel",
        "keywords": "courier post",
        "description": "Send a parcel.",
        "parameters": "to postcode kind speed",
        "parameter_descriptions": "who postal code",
        "enum_values": "home office 3 express",
        "module": "shop.tools",
    }
    assert tuple(name for name, _ in doc.fields) == FIELDS
    assert doc.text.splitlines()[0] == "ship_parcel Ship a parcel"


def test_a_tool_encoded_before_search_keywords_existed_still_decodes() -> None:
    """``search`` is the last field with a default: an entry written without it decodes, and
    a tool without keywords encodes to the same bytes as before (the IR digest is stable)."""
    old = msgspec.msgpack.encode({"name": "ping", "description": "Ping."})
    tool = msgspec.msgpack.decode(old, type=ir.Tool)
    assert tool.search == ()
    assert msgspec.msgpack.encode(tool) == old
    assert msgspec.structs.fields(ir.Tool)[-1].name == "search"


def test_index_of_no_tools_finds_nothing() -> None:
    assert build_index([]).search("anything", 5) == ()


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(strategies.text(strategies.characters(max_codepoint=127)))
def test_ascii_text_is_cut_into_the_words_of_any_text(text: str) -> None:
    """ASCII text takes a faster path to its words (translate and split); it finds exactly
    the words, hence the terms, of the path every other text takes (a non-ASCII word after
    it sends it there)."""
    assert terms(text) == terms(f"{text} \u00e9")[:-1]
    assert identifier_words(text) == identifier_words(f"{text} \u00e9")[:-1]
