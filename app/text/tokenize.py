"""Lexical tokenizer: written words, their variants, Snowball stems.

Each written word (a run of word characters joined by ``-``, ``.``, ``_`` or ``'``)
yields a small set of *variants*: the word itself, the word with its joiners removed,
its parts, and the parts of a camelCase identifier, all lower-cased and stemmed with
the Snowball English stemmer. ``wi-fi`` gives ``wi-fi``, ``wifi``, ``wi``, ``fi``;
``GroveLightSensor`` gives ``grovelightsensor``, ``grove``, ``light``, ``sensor``.
Documents are indexed with every variant; a query keeps the variants grouped by
written word so the scorer can count only the best variant of each word.

Chinese, Japanese and Korean text has no spaces between words, so a run of those
characters is split into overlapping character bigrams (``苏黎世温室`` gives ``苏黎``,
``黎世``, ``世温``, ``温室``; a lone character stays a unigram), each a written word of its
own: the usual dictionary-free way to index CJK text (e.g. Lucene's CJKBigramFilter).
"""

from __future__ import annotations

import re
from functools import lru_cache

from bm25s.stopwords import STOPWORDS_EN
from py_rust_stemmers import SnowballStemmer

#: Bump when tokenization changes: bundles record it and the reader rebuilds nothing silently.
TOKENIZER_VERSION = 2

_WORD = re.compile(r"\w+(?:[-.'’]\w+)*", re.UNICODE)
_JOINERS = re.compile(r"[-.'’_]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP = frozenset(STOPWORDS_EN)
#: Han, kana and Hangul: scripts written without spaces between words.
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_stemmer = SnowballStemmer("english")


@lru_cache(maxsize=200_000)
def _stem(token: str) -> str:
    return _stemmer.stem_word(token)


@lru_cache(maxsize=200_000)
def word_variants(word: str) -> tuple[str, ...]:
    """The stemmed variants of one written word (empty for a stopword); first is the word itself."""
    if CJK.fullmatch(word):
        return (word,)
    lower = word.lower()
    if lower in _STOP:
        return ()
    found: list[str] = [lower]
    parts = [p for p in _JOINERS.split(word) if p]
    if len(parts) > 1:
        found.append("".join(parts).lower())
    for part in parts:
        camel = _CAMEL.findall(part)
        pieces = [part] + (camel if len(camel) > 1 else [])
        for piece in pieces:
            p = piece.lower()
            if p and p not in _STOP:
                found.append(p)
    out: list[str] = []
    for token in found:
        stemmed = _stem(token) if token.isalpha() else token
        if stemmed not in out:
            out.append(stemmed)
    return tuple(out)


def written_words(text: str):
    """The written words of ``text`` in order: runs of word characters joined by ``-``, ``.``,
    ``_`` or ``'``, with every CJK run inside one split into character bigrams."""
    for match in _WORD.finditer(text):
        word = match.group()
        if not CJK.search(word):
            yield word
            continue
        position = 0
        for run in CJK.finditer(word):
            before = _JOINERS.sub(" ", word[position:run.start()]).strip()
            if before:
                yield from before.split()
            chars = run.group()
            yield from (chars[i:i + 2] for i in range(max(1, len(chars) - 1)))
            position = run.end()
        after = _JOINERS.sub(" ", word[position:]).strip()
        if after:
            yield from after.split()


def query_words(text: str) -> list[tuple[str, ...]]:
    """One variant tuple per distinct written word of a query, stopwords dropped."""
    seen: set[tuple[str, ...]] = set()
    words: list[tuple[str, ...]] = []
    for word in written_words(text):
        variants = word_variants(word)
        if variants and variants not in seen:
            seen.add(variants)
            words.append(variants)
    return words


def document_tokens(text: str) -> list[str]:
    """Every variant of every word of a document, in order (BM25 counts repeats)."""
    tokens: list[str] = []
    for word in written_words(text):
        tokens.extend(word_variants(word))
    return tokens


def words_found(words: list[tuple[str, ...]], tokens: set[str] | frozenset[str]) -> int:
    """How many of ``words`` (:func:`query_words` output: one variant tuple per word) have a
    variant among ``tokens`` (a set of :func:`document_tokens`)."""
    return sum(any(v in tokens for v in w) for w in words)


def coverage(words: list[tuple[str, ...]], tokens: set[str] | frozenset[str]) -> float:
    """Share (0..1, higher is better) of ``words`` found in ``tokens`` (:func:`words_found`);
    0.0 when there are no words."""
    return words_found(words, tokens) / len(words) if words else 0.0
