"""A box's search index and its default ranking: BM25F over the fields of each tool's IR.

Each tool is one document of several fields, each with its own weight and length
normalisation (BM25F: the fields' term frequencies are weighted and normalised first, then
saturated once, so a term repeated across fields does not count twice as much as it should).
A tool whose name the query spells out (``get_weather``, ``getWeather``, ``get weather``, or
the name with one letter wrong) comes before every tool that only matches its words: a user who
names a tool means that tool.

The index is plain dictionaries built once, on the box's first search; a query walks only the
postings of its own terms. Scores are summed in a fixed order and ties are broken by name, so
every Python gives the same hits in the same order.
"""

from __future__ import annotations

import gc
import heapq
import math
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Final, Protocol

import msgspec

from toolcall import ir
from toolcall._search.tokens import counts, fold, identifier_words, terms

__all__ = [
    "FIELDS",
    "Hit",
    "Index",
    "Postings",
    "Ranker",
    "SearchDocument",
    "Terms",
    "build_index",
    "collection_paused",
    "document",
    "document_terms",
]

FIELDS: Final = (
    "name",
    "keywords",
    "description",
    "parameters",
    "parameter_descriptions",
    "enum_values",
    "module",
)
"""A document's fields, in the order ``Hit.why`` lists them."""

_WEIGHT: Final = {
    "name": 3.0,
    "keywords": 2.0,
    "description": 1.0,
    "parameters": 0.8,
    "parameter_descriptions": 0.5,
    "enum_values": 0.5,
    "module": 0.3,
}
"""How much one occurrence in each field counts, against one in the description."""

_B: Final = {
    "name": 0.3,
    "keywords": 0.3,
    "description": 0.75,
    "parameters": 0.5,
    "parameter_descriptions": 0.75,
    "enum_values": 0.5,
    "module": 0.0,
}
"""Length normalisation per field: a long description dilutes a match; a name barely does."""

_WEIGHTS: Final = tuple(_WEIGHT[field] for field in FIELDS)
_BS: Final = tuple(_B[field] for field in FIELDS)
_K1: Final = 1.2
_NESTED_DEPTH: Final = 3
"""How deep nested object fields (names, descriptions, enum values) are read."""


class SearchDocument(msgspec.Struct, frozen=True, kw_only=True):
    """What search knows of one tool, for a :class:`Ranker` to score.

    ``fields`` pairs each field's name (one of ``name``, ``keywords``, ``description``,
    ``parameters``, ``parameter_descriptions``, ``enum_values``, ``module``) with its text;
    ``text`` is all of them in one string, what an embedding model would be given.
    """

    name: str
    text: str
    fields: tuple[tuple[str, str], ...]


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    """One tool found by a search: its name, its score, and why it matched.

    ``why`` pairs a field (``mention`` when the query names the tool, else one of the
    document fields) with the query's words found there, fields in a fixed order. Hits come
    best first: tools the query names, then by score, ties by name.
    """

    name: str
    score: float
    why: tuple[tuple[str, tuple[str, ...]], ...] = ()


class Ranker(Protocol):
    """Scores a query against every tool of a box; higher is better.

    Called as ``ranker(query, documents)`` with the same tuple of documents on every search of
    a box (so an embedding ranker can embed them once and keep the vectors); returns one
    score per document, in the documents' order. toolcall downloads no model: wrap your own.
    """

    def __call__(self, query: str, documents: Sequence[SearchDocument], /) -> Sequence[float]: ...


Terms = tuple[dict[str, int], ...]
"""One tool's terms: for each field of ``FIELDS``, in that order, each term's count."""


def document_terms(document: SearchDocument) -> Terms:
    """What indexing reads of a document: its fields' terms, counted (what the cache keeps)."""
    return tuple(counts(text) if text else {} for _, text in document.fields)


Postings = dict[str, tuple[list[int], list[float]]]
"""Each term's documents (positions) and what it adds to each one's score."""


class Index:
    """Tools' documents, their weighted and normalised term frequencies, and the name forms.

    ``terms`` are the tools' ``document_terms``, read from the cache or counted here;
    ``postings``, an earlier index's ``postings`` of these very tools (the cache's), with
    which ``terms`` may be None: ``why`` then counts the terms of the hits alone. The
    documents (``documents``, made from the tools when not given) are only read by a ranker,
    ``why`` and counting: an index read from the cache answers without them.
    """

    __slots__ = (
        "_documents",
        "_exact",
        "_fields",
        "_names",
        "_near",
        "_spaced",
        "_tools",
        "postings",
    )

    def __init__(
        self,
        tools: Sequence[ir.Tool],
        terms: Sequence[Terms] | None = None,
        postings: Postings | None = None,
        documents: Sequence[SearchDocument] | None = None,
    ) -> None:
        self._tools = tuple(tools)
        self._names = [tool.name for tool in self._tools]
        self._documents = None if documents is None else tuple(documents)
        self._exact: dict[str, list[int]] = {}
        self._spaced: dict[tuple[str, ...], list[int]] = {}
        self._near: dict[str, list[int]] | None = None
        with collection_paused():
            if postings is None:
                if terms is None:
                    terms = [document_terms(doc) for doc in self.documents]
                postings = _postings(terms)
            self._fields = terms
            self.postings = postings
            for position, name in enumerate(self._names):
                parts = tuple(identifier_words(name))
                if len(parts) < 2:  # a one-word name is a word, not a mention
                    continue
                folded = fold(name)
                self._exact.setdefault(folded, []).append(position)
                self._spaced.setdefault(parts, []).append(position)

    @property
    def documents(self) -> tuple[SearchDocument, ...]:
        """What search knows of each tool, in the tools' order (made on first use)."""
        if self._documents is None:
            self._documents = tuple(document(tool) for tool in self._tools)
        return self._documents

    def _near_names(self) -> dict[str, list[int]]:
        """Each multi-word name of six letters or more under each of its one-letter
        deletions, written with and without its separators: two spellings one typo apart
        share one (built the first time a query has a word that looks like a misspelt
        name)."""
        if self._near is None:
            self._near = {}
            for folded, found in self._exact.items():
                if len(folded) >= 6:
                    joined = _joined(folded)
                    for variant in {joined, *_deletions(folded), *_deletions(joined)}:
                        self._near.setdefault(variant, []).extend(found)
        return self._near

    def search(self, query: str, k: int, ranker: Ranker | None = None) -> tuple[Hit, ...]:
        """The ``k`` best hits for ``query`` (fewer when fewer tools match it)."""
        query_terms = terms(query)
        spelled = _spelled(query, query_terms)
        mentioned = self._mentions(query)
        if ranker is None:
            scores = self._bm25f(list(dict.fromkeys(query_terms)))
        else:
            scores = [float(score) for score in ranker(query, self.documents)]
            if len(scores) != len(self._names):
                msg = (
                    f"the ranker returned {len(scores)} scores for {len(self._names)} "
                    "documents; it must return one score per document"
                )
                raise ValueError(msg)
        # Only scores at least the k-th best can be hits (found in C, no key function), so the
        # full order (named tools first, then score, then name) sorts a handful, not the box.
        floor = heapq.nlargest(k, scores)[-1] if len(scores) > k else -math.inf
        if ranker is None:
            floor = max(floor, math.ulp(0.0))  # the default ranking: a hit matched something
        candidates = {p for p, score in enumerate(scores) if score >= floor} | mentioned.keys()
        ranked = sorted(
            candidates,
            key=lambda p: (-mentioned.get(p, 0), -scores[p], self._names[p]),
        )[:k]
        return tuple(
            Hit(
                name=self._names[p],
                score=scores[p],
                why=self._why(p, query_terms, spelled, p in mentioned),
            )
            for p in ranked
        )

    def _bm25f(self, query_terms: list[str]) -> list[float]:
        """Every document's score, in document order (0.0: no term of the query)."""
        scores = [0.0] * len(self._names)
        for term in query_terms:
            found = self.postings.get(term)
            if found is not None:
                for position, value in zip(*found, strict=True):
                    scores[position] += value
        return scores

    def _mentions(self, query: str) -> dict[int, int]:
        """Tools the query names: 2 for the name as written, 1 spaced out or one letter off."""
        found: dict[int, int] = {}
        folded = fold(query)
        for word in _NAMEISH.findall(folded):
            for position in self._exact.get(word, ()):
                found[position] = 2
        words = identifier_words(query)
        for size in range(2, min(len(words), _LONGEST_NAME) + 1):
            for start in range(len(words) - size + 1):
                for position in self._spaced.get(tuple(words[start : start + size]), ()):
                    found.setdefault(position, 1)
        for word in _NAMEISH.findall(folded):
            if len(word) < 5 or word in self._exact or not _looks_like_a_name(word, query):
                continue
            near = self._near_names()
            for variant in (word, *_deletions(word)):
                for position in (*self._exact.get(variant, ()), *near.get(variant, ())):
                    name = fold(self._names[position])
                    if _one_edit(word, name) or _one_edit(word, _joined(name)):
                        found.setdefault(position, 1)
        return found

    def _why(
        self, position: int, query_terms: list[str], spelled: dict[str, str], mentioned: bool
    ) -> tuple[tuple[str, tuple[str, ...]], ...]:
        why: list[tuple[str, tuple[str, ...]]] = []
        if mentioned:
            why.append(("mention", (self._names[position],)))
        if self._fields is not None:
            fields = self._fields[position]
        elif self._documents is not None:
            fields = document_terms(self._documents[position])
        else:  # one hit's document, not every tool's
            fields = document_terms(document(self._tools[position]))
        for field, found in zip(FIELDS, fields, strict=True):
            matched = tuple(dict.fromkeys(spelled[t] for t in query_terms if t in found))
            if matched:
                why.append((field, matched))
        return tuple(why)


def _postings(terms: Sequence[Terms]) -> Postings:
    """BM25F's postings of documents with these ``terms``."""
    count = len(terms) or 1
    sizes = [[sum(found.values()) for found in fields] for fields in terms]
    average = [(sum(row[i] for row in sizes) / count) or 1.0 for i in range(len(FIELDS))]
    # BM25F: a term's frequency in each field, weighted and normalised by the field's
    # length, added up over the fields, then saturated once. Each document's sums are
    # made in a small dict of its own, then appended to the terms' postings by a plain loop
    # (Python 3.11's specialised bytecode beats map and deque over bound methods here). The
    # saturation is BM25's expression in its own order, so scores stay the same to the last
    # bit (a reordered product moved them by one ulp).
    found: defaultdict[str, list[int]] = defaultdict(list)
    weighted: defaultdict[str, list[float]] = defaultdict(list)
    for position, (fields, lengths) in enumerate(zip(terms, sizes, strict=True)):
        merged: dict[str, float] = {}
        get = merged.get
        for tf, length, weight, b, mean in zip(
            fields, lengths, _WEIGHTS, _BS, average, strict=True
        ):
            if tf:
                scale = weight / (1.0 - b + b * length / mean)
                for term, times in tf.items():
                    merged[term] = get(term, 0.0) + scale * times
        for term, value in merged.items():
            found[term].append(position)
            weighted[term].append(value)
    postings: Postings = {}
    k1, k1_plus_one = _K1, _K1 + 1  # locals: read once per posting, not looked up
    for term, positions in found.items():
        tfs = weighted[term]
        idf = math.log(1.0 + (count - len(tfs) + 0.5) / (len(tfs) + 0.5))
        postings[term] = positions, [idf * tf * k1_plus_one / (k1 + tf) for tf in tfs]
    return postings


@contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic collector paused while an index's counts and postings are made.

    Building an index allocates a few containers per field of every tool (the counts, the
    postings' lists) and frees none of them: a collection meanwhile finds nothing to free,
    only walks the growing index and promotes it to the older generations, whose full
    collections walk every live object (a sixth of a 10,000-tool build). Building runs no
    user code and makes no cycle. The collector's state is the program's: it is left as it
    was found (``_derive.source`` pauses it around a module's AST for the same reason).
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def build_index(tools: Sequence[ir.Tool]) -> Index:
    """The index of ``tools``, every one counted here (``Index`` takes stored terms too)."""
    return Index(tools)


_NAMEISH: Final = re.compile(r"[\w-]+")
_LONGEST_NAME: Final = 8


def _spelled(query: str, query_terms: list[str]) -> dict[str, str]:
    """Each term of the query as the user wrote it (``why`` shows words, not stems)."""
    spelled: dict[str, str] = {}
    for word in identifier_words(query):
        for term in terms(word):
            spelled.setdefault(term, word)
    for term in query_terms:
        spelled.setdefault(term, term)
    return spelled


def document(tool: ir.Tool) -> SearchDocument:
    """What search reads of one tool: its fields' texts, taken from the IR alone."""
    parameters: list[str] = []
    descriptions: list[str] = []
    values: list[str] = []
    for parameter in tool.parameters:
        parameters.append(parameter.name)
        if parameter.description:
            descriptions.append(parameter.description)
        _read_type(parameter.type, parameters, descriptions, values, _NESTED_DEPTH)
    if tool.kwargs is not None:
        _read_type(tool.kwargs, parameters, descriptions, values, _NESTED_DEPTH)
    fields = (
        ("name", " ".join(filter(None, (tool.name, tool.title)))),
        ("keywords", " ".join(tool.search)),
        ("description", tool.description),
        ("parameters", " ".join(parameters)),
        ("parameter_descriptions", " ".join(descriptions)),
        ("enum_values", " ".join(values)),
        ("module", tool.module),
    )
    text = "\n".join(text for _, text in fields if text)
    return SearchDocument(name=tool.name, text=text, fields=fields)


def _read_type(
    node: ir.Type, names: list[str], descriptions: list[str], values: list[str], depth: int
) -> None:
    """Nested field names and descriptions and every enum value, down to ``depth`` objects."""
    for value in node.values:
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            values.append(str(value))
    if depth == 0:
        return
    for child in _children(node):
        _read_type(child, names, descriptions, values, depth)
    for field in node.fields:
        names.append(field.name)
        if field.description:
            descriptions.append(field.description)
        _read_type(field.type, names, descriptions, values, depth - 1)


def _children(node: ir.Type) -> Iterator[ir.Type]:
    if node.items is not None:
        yield node.items
    yield from node.prefix_items
    yield from node.variants
    if node.additional is not None:
        yield node.additional


def _looks_like_a_name(folded: str, query: str) -> bool:
    """Whether a query word is written as an identifier (``get_wether``, ``getWether``): only
    those are compared with the names letter by letter, so a plain word never pays for it."""
    if "_" in folded or "-" in folded:
        return True
    return any(
        word.casefold() == folded and not word.islower() and not word.isupper()
        for word in _NAMEISH.findall(query)
    )


def _joined(name: str) -> str:
    return name.replace("_", "").replace("-", "")


def _deletions(word: str) -> Iterator[str]:
    return (word[:i] + word[i + 1 :] for i in range(len(word)))


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap of two
    neighbouring letters (the typos people make)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        swapped = i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
        return a[i + 1 :] == b[i + 1 :] or (swapped and a[i + 2 :] == b[i + 2 :])
    return a[i:] == b[i + 1 :]
