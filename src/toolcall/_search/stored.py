"""What search keeps of a module, and the cache that lets the next process skip building it.

Counting the terms of every field of every tool is most of what building an index costs,
and the arithmetic over the counts the rest. So a module's counts are kept on its registry
entry (``ModuleEntry.search``), made on its first search or first unknown tool name, never
at import; and written to the cache by the process that made them, with the postings of the
module's own index once it is built, for the next warm process to read instead. The file is
named after the digest of the module's IR (which every counted text comes from), the
counting and scoring rules' version and the Unicode version text is folded with, so a
changed module, or one read by a Python folding text otherwise, never reads old counts; it is
read and checked like every cache entry (``_cache.store``), and anything wrong with it is a
miss: the counts are made again. A Toolbox of one module's tools uses the module's own index;
one over several modules (or some of a module's tools) takes each module's counts and
computes the statistics of the whole box (average field lengths, document frequencies)
itself. Runtime functions are counted in memory.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec

from toolcall import ir
from toolcall._cache import store
from toolcall._load.registry import ModuleEntry
from toolcall._search.index import (
    FIELDS,
    Index,
    Postings,
    SearchDocument,
    Terms,
    collection_paused,
    document,
    document_terms,
)
from toolcall._shared.digest import blake2b

__all__ = ["ModuleSearch", "box_index", "module_search", "suggest"]

TERMS_VERSION: Final = 1
"""The counting and scoring rules' version (``tokens``, ``document``, the BM25F constants): a
change to any of them must bump it, so that no process reads what the old rules made."""

SUGGESTIONS: Final = 3
_QUERY_CHARS: Final = 200
"""Of an unknown tool name, only so many characters are searched: a name is short, and a
model that sends a page of text as a name must not make the error path slow."""


class ModuleSearch:
    """One module's tools and term counts, by tool name, and its own index (built on first
    use). ``read`` says what came from the cache: ``""`` nothing, ``"terms"`` the counts,
    ``"index"`` the counts and the index's postings (the counts are then decoded only if a box
    of several modules asks for them, and no document is made unless a ranker asks)."""

    __slots__ = (
        "_documents",
        "_index",
        "_path",
        "_postings",
        "_saved",
        "_stored",
        "_terms",
        "read",
        "tools",
    )

    def __init__(
        self,
        tools: dict[str, ir.Tool],
        terms: dict[str, Terms] | None,
        *,
        documents: dict[str, SearchDocument] | None = None,
        path: Path | None = None,
        stored: store.StoredTerms | None = None,
    ) -> None:
        self.tools = tools
        self._terms = terms
        self._documents = documents
        self._path = path
        self._stored = stored
        self._postings: Postings | None = None if stored is None else stored.postings
        self.read = "" if stored is None else "terms" if stored.postings is None else "index"
        self._saved = self.read
        self._index: Index | None = None

    @property
    def documents(self) -> dict[str, SearchDocument]:
        """Each tool's search document (made on first use)."""
        if self._documents is None:
            self._documents = {name: document(tool) for name, tool in self.tools.items()}
        return self._documents

    @property
    def terms(self) -> dict[str, Terms]:
        """Each tool's counts: the stored ones, decoded on first use, or counted."""
        if self._terms is None:
            stored = None if self._stored is None else store.decode_counts(self._stored.tools)
            self._stored = None  # the counts' bytes are not kept once decoded
            if stored is not None and _fits(stored, len(self.tools)):
                self._terms = dict(zip(self.tools, stored, strict=True))
            else:  # not what was written: count, and write the counts again
                self._terms = {name: document_terms(d) for name, d in self.documents.items()}
                self._saved = ""
        return self._terms

    def index(self) -> Index:
        """The module's own index: its stored postings, or built (and then stored)."""
        if self._index is None:
            tools = list(self.tools.values())
            documents = None if self._documents is None else list(self._documents.values())
            if self._postings is not None:
                self._index = Index(tools, None, self._postings, documents)
            else:
                self._index = Index(tools, list(self.terms.values()), None, documents)
            self.save()
        return self._index

    def save(self) -> None:
        """Write what this process made for the next one (the counts, the index's postings
        once built); a cache that cannot be written is left as it is."""
        made = "index" if self._index is not None else "terms"
        if self._path is None or self._saved in (made, "index"):
            return
        record = store.StoredTerms(
            module=self._path.name.rpartition("-")[0],
            key=self._path.stem.rpartition("-")[2],
            tools=store.encode_counts(self.terms.values()),
            postings=None if self._index is None else self._index.postings,
        )
        if store.write_terms(self._path, record):
            self._saved = made


def module_search(entry: ModuleEntry) -> ModuleSearch:
    """The module's documents and counts: kept on its entry, read from the cache, or counted
    (written to the cache by ``save``)."""
    found: ModuleSearch | None = entry.search
    if found is None:
        found = entry.search = _load(entry)
    return found


def box_index(entries: Sequence[ModuleEntry], tools: Sequence[ir.Tool]) -> Index:
    """The index of a box's ``tools``, each from the entry at its position in ``entries``: a
    box of exactly one module's tools is that module's index; otherwise each module's counts
    (``module_search``) go into an index of the box's own."""
    if entries and all(entry is entries[0] for entry in entries):
        alone = module_search(entries[0])
        if list(alone.tools) == [tool.name for tool in tools]:
            return alone.index()
    terms: list[Terms] = []
    searches: dict[int, ModuleSearch] = {}
    for entry, tool in zip(entries, tools, strict=True):
        found = searches.get(id(entry))
        if found is None:
            found = searches[id(entry)] = module_search(entry)
        terms.append(found.terms[tool.name])
    for found in searches.values():
        found.save()
    return Index(tools, terms)


def suggest(index: Index, name: str) -> tuple[str, ...]:
    """The tools an unknown tool name may have meant, best first: a search for the name (a
    misspelling, another casing, a word of a description all find their tool)."""
    if not name.strip():
        return ()
    return tuple(hit.name for hit in index.search(name[:_QUERY_CHARS], SUGGESTIONS))


def _load(entry: ModuleEntry) -> ModuleSearch:
    tools = {tool.name: tool for tool in entry.ir.tools}
    path = None
    if entry.module is not None:  # a module's tools; a runtime function's are just counted
        directory = store.cache_dir()
        if directory is not None and store.trusted(directory):
            key = _key(entry.ir)
            path = store.terms_path(directory, entry.name, key)
            stored = store.read_terms(path, entry.name, key)
            if stored is not None and _postings_fit(stored.postings, len(tools)):
                return ModuleSearch(tools, None, path=path, stored=stored)
    with collection_paused():
        documents = {name: document(tool) for name, tool in tools.items()}
        terms = {name: document_terms(doc) for name, doc in documents.items()}
    return ModuleSearch(tools, terms, documents=documents, path=path)


def _fits(counts: store.Counts, count: int) -> bool:
    """Whether stored counts have the shape of this module's: one per tool, every field."""
    return len(counts) == count and all(len(fields) == len(FIELDS) for fields in counts)


def _postings_fit(postings: Postings | None, count: int) -> bool:
    """Whether stored postings name only tools there are, with a score for each."""
    return postings is None or all(
        len(positions) == len(scores)
        and min(positions, default=0) >= 0
        and max(positions, default=0) < count
        for positions, scores in postings.values()
    )


def _key(module_ir: ir.ModuleIR) -> str:
    """The digest of the module's IR (everything counting reads, and more), with the
    counting and scoring rules' version and the Unicode version text is folded with: the
    name of the cached counts."""
    h = blake2b(f"terms {TERMS_VERSION} {unicodedata.unidata_version}\0".encode())
    h.update(_encode(module_ir))
    return h.hexdigest()[:32]


_encode: Final = msgspec.msgpack.Encoder().encode
