"""What search keeps of a module, and the cache that lets the next process skip counting.

Counting the terms of every field of every tool is most of what building an index costs
(the rest is arithmetic over the counts). So a module's counts are kept on its registry
entry (``ModuleEntry.search``), made on its first search or first unknown tool name, never
at import; and written to the cache by the process that counted them, for the next warm
process to read instead. The file is named after the digest of exactly what was counted
(every field's text of every tool, the counting rule's version, the Unicode version the
text was folded with), so a changed module, or one read by a Python folding text otherwise,
never reads old counts; it is read and checked like every cache entry (``_cache.store``),
and anything wrong with it is a miss: the counts are made again. A Toolbox over several
modules takes each module's counts and computes the statistics of the whole box (average
field lengths, document frequencies) itself; its runtime functions are counted in memory.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Final

from toolcall import ir
from toolcall._cache import store
from toolcall._load.registry import ModuleEntry
from toolcall._search.index import (
    FIELDS,
    Index,
    SearchDocument,
    Terms,
    document,
    document_terms,
)
from toolcall._shared.digest import blake2b

__all__ = ["ModuleSearch", "box_index", "module_search", "suggest"]

TERMS_VERSION: Final = 1
"""The counting rule's version (``tokens``, ``document``): a change to either must bump it,
so that no process reads counts made by the old rule."""

SUGGESTIONS: Final = 3
_QUERY_CHARS: Final = 200
"""Of an unknown tool name, only so many characters are searched: a name is short, and a
model that sends a page of text as a name must not make the error path slow."""


class ModuleSearch:
    """One module's search documents and term counts, by tool name, and its own index
    (built on its first unknown tool name). ``read`` says the counts came from the cache."""

    __slots__ = ("_index", "documents", "read", "terms")

    def __init__(
        self, documents: dict[str, SearchDocument], terms: dict[str, Terms], read: bool
    ) -> None:
        self.documents = documents
        self.terms = terms
        self.read = read
        self._index: Index | None = None

    def index(self) -> Index:
        if self._index is None:
            self._index = Index(list(self.documents.values()), list(self.terms.values()))
        return self._index


def module_search(entry: ModuleEntry) -> ModuleSearch:
    """The module's documents and counts: kept on its entry, read from the cache, or counted
    (and written to the cache for the next process)."""
    found: ModuleSearch | None = entry.search
    if found is None:
        found = entry.search = _load(entry)
    return found


def box_index(entries: Sequence[ModuleEntry | None], tools: Sequence[ir.Tool]) -> Index:
    """The index of a box's ``tools``, each from the entry in ``entries`` at its position
    (None for a tool counted here): a module's counts are its ``module_search``."""
    documents: list[SearchDocument] = []
    terms: list[Terms] = []
    for entry, tool in zip(entries, tools, strict=True):
        if entry is not None:
            kept = module_search(entry)
            documents.append(kept.documents[tool.name])
            terms.append(kept.terms[tool.name])
        else:
            found = document(tool)
            documents.append(found)
            terms.append(document_terms(found))
    return Index(documents, terms)


def suggest(index: Index, name: object) -> tuple[str, ...]:
    """The tools an unknown tool name may have meant, best first: a search for the name (a
    misspelling, another casing, a word of a description all find their tool)."""
    if not isinstance(name, str) or not name.strip():
        return ()
    return tuple(hit.name for hit in index.search(name[:_QUERY_CHARS], SUGGESTIONS))


def _load(entry: ModuleEntry) -> ModuleSearch:
    documents = {tool.name: document(tool) for tool in entry.ir.tools}
    path = key = None
    if entry.module is not None:  # a module's tools; a runtime function's are just counted
        directory = store.cache_dir()
        if directory is not None and store.trusted(directory):
            key = _key(documents.values())
            path = store.terms_path(directory, entry.name, key)
            stored = store.read_terms(path, entry.name, key)
            if stored is not None and _fits(stored.tools, len(documents)):
                terms = dict(zip(documents, stored.tools, strict=True))
                return ModuleSearch(documents, terms, read=True)
    terms = {name: document_terms(doc) for name, doc in documents.items()}
    if path is not None and key is not None:
        record = store.StoredTerms(module=entry.name, key=key, tools=tuple(terms.values()))
        store.write_terms(path, record)
    return ModuleSearch(documents, terms, read=False)


def _fits(tools: tuple[Terms, ...], count: int) -> bool:
    """Whether stored counts have the shape of this module's: one per tool, every field."""
    return len(tools) == count and all(len(fields) == len(FIELDS) for fields in tools)


def _key(documents: Iterable[SearchDocument]) -> str:
    """The digest of everything counting reads, which names the cached counts."""
    h = blake2b()
    h.update(f"terms {TERMS_VERSION} {unicodedata.unidata_version}\0".encode())
    for found in documents:
        for field, text in found.fields:
            h.update(f"{field}\0".encode())
            h.update(text.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        h.update(b"\1")
    return h.hexdigest()[:32]
