"""Terms: what a query and a tool are compared by.

One rule for both sides, so whatever a user types meets what an author wrote: NFKC (full-width
letters, ligatures) then casefold (``ß`` meets ``ss``), identifiers split where their author
joined words (``getWeather``, ``get_weather``, ``HTTPServer2``), scripts written without spaces
(Chinese, Japanese, Thai) cut into overlapping character pairs, a short English stop list and a
light suffix rule (``forecasts`` meets ``forecast``, ``searching`` meets ``search``). The suffix
rule is deliberately small: it must never merge two words an author would keep apart, and it
must give the same term on every Python (no locale, no data files).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from itertools import chain
from typing import Final

__all__ = ["counts", "fold", "identifier_words", "terms"]

_WORD: Final = re.compile(r"[^\W_]+", re.UNICODE)
# Inside one word: an upper-case run before a capitalised word (HTTPServer), a capitalised or
# lower-case run, digits.
_PART: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+")
_ASCII_BREAKS: Final = bytes(c if chr(c).isalnum() else 0x20 for c in range(256))
"""A byte table: every ASCII character ``_WORD`` does not match, as a space."""
_UNSPACED: Final = re.compile(
    "[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+"
)

STOP: Final = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "for",
        "from",
        "get",
        "give",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "show",
        "that",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    }
)
"""Words that say nothing about which tool is meant. ``get`` is one: half of every catalog's
names start with it, and a query's "get me" must not pull them all up."""


def fold(text: str) -> str:
    """The text as search compares it: NFKC, then casefold."""
    return text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()


def identifier_words(text: str) -> list[str]:
    """The words of a name or a text, split at case changes, digits and punctuation, folded."""
    found: list[str] = []
    for word in _words(text):
        found.extend(_split(word))
    return found


def terms(text: str) -> list[str]:
    """The index terms of ``text``, in order (repeats kept: they are term frequencies)."""
    found: list[str] = []
    for word in _words(text):
        found.extend(_terms_of(word))
    return found


def counts(text: str) -> Counter[str]:
    """Each index term of ``text`` and how many times it occurs (``terms``, counted in C:
    an index counts every field of every tool)."""
    return Counter(chain.from_iterable(map(_terms_of, _words(text))))


def _words(text: str) -> list[str]:
    """``_WORD``'s matches; for ASCII text (most of any catalog) the same words are cut by
    ``bytes.translate`` (a table lookup per byte, where ``str.translate`` looks each character
    up in a dict) and ``split``, over twice as fast as the expression."""
    if text.isascii():
        return text.encode().translate(_ASCII_BREAKS).decode().split()
    return _WORD.findall(unicodedata.normalize("NFKC", text))


@functools.lru_cache(maxsize=1 << 16)
def _split(word: str) -> tuple[str, ...]:
    """One word's parts, folded (cached: a catalog repeats its words thousands of times)."""
    parts = _PART.findall(word) if word.isascii() else ()
    return tuple(fold(part) for part in parts or (word,))


@functools.lru_cache(maxsize=1 << 16)
def _terms_of(word: str) -> tuple[str, ...]:
    found: list[str] = []
    for part in _split(word):
        if part in STOP:
            continue
        if _UNSPACED.fullmatch(part):
            found.extend(_pairs(part))
        elif not part.isascii() and _UNSPACED.search(part):
            for piece in _split_scripts(part):
                found.extend(_pairs(piece) if _UNSPACED.fullmatch(piece) else [stem(piece)])
        else:
            found.append(stem(part))
    return tuple(found)


def stem(word: str) -> str:
    """A light, fixed suffix rule for English words (others are left as they are).

    Plurals, then ``-ing``/``-ed`` when a vowel is left, then a doubled consonant, then a
    final ``e``: ``files``/``file``, ``created``/``create``/``creating``, ``running``/``run``
    all meet, and ``string``, ``status`` and ``class`` stay whole.
    """
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and _VOWEL.search(word[:-3]) and len(word) >= 6:
        word = word[:-3]
    elif word.endswith("ed") and not word.endswith("eed") and _VOWEL.search(word[:-2]):
        word = word[:-2] if len(word) >= 5 else word
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeioulsz":
        word = word[:-1]
    if word.endswith("e") and len(word) >= 4:
        word = word[:-1]
    return word


_VOWEL: Final = re.compile("[aeiouy]")


def _pairs(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _split_scripts(word: str) -> list[str]:
    pieces: list[str] = []
    last = 0
    for match in _UNSPACED.finditer(word):
        if match.start() > last:
            pieces.append(word[last : match.start()])
        pieces.append(match.group())
        last = match.end()
    if last < len(word):
        pieces.append(word[last:])
    return pieces
