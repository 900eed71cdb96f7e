"""Lexical tokenizer: written words, their variants, Snowball stems.

Each written word (a run of word characters joined by ``-``, ``.``, ``_`` or ``'``)
yields a small set of *variants*: the word itself, the word with its joiners removed,
its parts, and the parts of a camelCase identifier, all lower-cased and stemmed with
the Snowball stemmer of the course's language (:data:`STEMMERS`; English when it has none), stop
words of that language dropped (:data:`STOP_WORDS`). ``wi-fi`` gives ``wi-fi``, ``wifi``, ``wi``, ``fi``;
``GroveLightSensor`` gives ``grovelightsensor``, ``grove``, ``light``, ``sensor``.
Documents are indexed with every variant; a query keeps the variants grouped by
written word so the scorer can count only the best variant of each word.

Chinese, Japanese and Korean text has no spaces between words, so a run of those
characters is split into overlapping character bigrams (``苏黎世温室`` gives ``苏黎``,
``黎世``, ``世温``, ``温室``; a lone character stays a unigram), each a written word of its
own: the usual dictionary-free way to index CJK text (e.g. Lucene's CJKBigramFilter).

The stemmer is chosen once per bundle: the builder picks it from the course's language tag
(:func:`stemmer_for`) and records its name in the bundle's lexical parameters; the query side reads
it back from there (:func:`app.text.lexical.bundle_stemmer`), so a question is always cut as the
course was. Every function here takes that name as ``stemmer`` (default ``"english"``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from bm25s import stopwords
from py_rust_stemmers import SnowballStemmer

#: Bump when tokenization changes: bundles record it and the reader rebuilds nothing silently.
#: 2: CJK bigrams. 3: the stemmer and stop words follow the course's language, their name recorded as
#: ``stemmer`` in the bundle's lexical parameters; English text gives the same tokens as version 2.
TOKENIZER_VERSION = 3
#: The oldest version this app searches: version-2 bundles were all stemmed in English, which is
#: what the query side uses for a bundle that records no ``stemmer``.
OLDEST_TOKENIZER_VERSION = 2
#: The stemmer when the course's language has none (or is unknown); the only one before version 3.
DEFAULT_STEMMER = "english"
#: Snowball stemmer (py-rust-stemmers' name) per language: a BCP 47 tag's language part -> stemmer.
#: A language not listed (Chinese, Japanese, Korean, Klingon, none) is stemmed as English.
STEMMERS = {
    "ar": "arabic", "da": "danish", "de": "german", "el": "greek", "en": "english", "es": "spanish",
    "fi": "finnish", "fr": "french", "hu": "hungarian", "it": "italian", "nb": "norwegian", "nl": "dutch",
    "nn": "norwegian", "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish",
}
#: Stop words per stemmer (bm25s' lists: English is Lucene's 33 words, the others Snowball's). A
#: stemmer not listed keeps the English ones.
STOP_WORDS = {
    "english": stopwords.STOPWORDS_EN, "danish": stopwords.STOPWORDS_DANISH, "dutch": stopwords.STOPWORDS_DUTCH,
    "french": stopwords.STOPWORDS_FRENCH, "german": stopwords.STOPWORDS_GERMAN,
    "italian": stopwords.STOPWORDS_ITALIAN, "norwegian": stopwords.STOPWORDS_NORWEGIAN,
    "portuguese": stopwords.STOPWORDS_PORTUGUESE, "russian": stopwords.STOPWORDS_RUSSIAN,
    "spanish": stopwords.STOPWORDS_SPANISH, "swedish": stopwords.STOPWORDS_SWEDISH,
    "turkish": stopwords.STOPWORDS_TURKISH,
}

_WORD = re.compile(r"\w+(?:[-.'’]\w+)*", re.UNICODE)
_JOINERS = re.compile(r"[-.'’_]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
#: Han, kana and Hangul: scripts written without spaces between words.
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def stemmer_for(language: str | None) -> str:
    """The stemmer's name for a course in ``language`` (a BCP 47 tag, any case: ``fr``, ``es-MX``;
    '' or None unknown): :data:`STEMMERS` of its language part, :data:`DEFAULT_STEMMER` for a
    language not listed. Never raises."""
    base = (language or "").strip().replace("_", "-").split("-")[0].lower()
    return STEMMERS.get(base, DEFAULT_STEMMER)


def known_stemmer(name: str) -> str:
    """``name`` when it is a stemmer of :data:`STEMMERS`, else :data:`DEFAULT_STEMMER`."""
    return name if name in STEMMERS.values() else DEFAULT_STEMMER


@lru_cache(maxsize=None)
def _snowball(stemmer: str) -> SnowballStemmer:
    return SnowballStemmer(known_stemmer(stemmer))


@lru_cache(maxsize=None)
def _stop_words(stemmer: str) -> frozenset[str]:
    return frozenset(STOP_WORDS.get(known_stemmer(stemmer), STOP_WORDS[DEFAULT_STEMMER]))


@lru_cache(maxsize=200_000)
def _stem(token: str, stemmer: str = DEFAULT_STEMMER) -> str:
    return _snowball(stemmer).stem_word(token)


@lru_cache(maxsize=200_000)
def word_variants(word: str, stemmer: str = DEFAULT_STEMMER) -> tuple[str, ...]:
    """The stemmed variants of one written word (empty for a stopword); first is the word itself.
    ``stemmer``: a name of :data:`STEMMERS` (its stop words too; an unknown name: English). Outside
    English, only a word written in ASCII is split as camelCase: ``_CAMEL`` knows ASCII letters only
    and would cut ``comodín`` into ``comod`` and ``n``, whose commonness drowns the word (English
    keeps that split so its bundles keep their tokens)."""
    if CJK.fullmatch(word):
        return (word,)
    stop = _stop_words(stemmer)
    lower = word.lower()
    if lower in stop:
        return ()
    found: list[str] = [lower]
    parts = [p for p in _JOINERS.split(word) if p]
    if len(parts) > 1:
        found.append("".join(parts).lower())
    for part in parts:
        camel = _CAMEL.findall(part) if part.isascii() or known_stemmer(stemmer) == DEFAULT_STEMMER else []
        pieces = [part] + (camel if len(camel) > 1 else [])
        for piece in pieces:
            p = piece.lower()
            if p and p not in stop:
                found.append(p)
    out: list[str] = []
    for token in found:
        stemmed = _stem(token, stemmer) if token.isalpha() else token
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


def query_words(text: str, stemmer: str = DEFAULT_STEMMER) -> list[tuple[str, ...]]:
    """One variant tuple per distinct written word of a query, stopwords dropped (``stemmer``: as
    :func:`word_variants`)."""
    seen: set[tuple[str, ...]] = set()
    words: list[tuple[str, ...]] = []
    for word in written_words(text):
        variants = word_variants(word, stemmer)
        if variants and variants not in seen:
            seen.add(variants)
            words.append(variants)
    return words


def document_tokens(text: str, stemmer: str = DEFAULT_STEMMER) -> list[str]:
    """Every variant of every word of a document, in order (BM25 counts repeats; ``stemmer``: as
    :func:`word_variants`)."""
    tokens: list[str] = []
    for word in written_words(text):
        tokens.extend(word_variants(word, stemmer))
    return tokens


def words_found(words: list[tuple[str, ...]], tokens: set[str] | frozenset[str]) -> int:
    """How many of ``words`` (:func:`query_words` output: one variant tuple per word) have a
    variant among ``tokens`` (a set of :func:`document_tokens`)."""
    return sum(any(v in tokens for v in w) for w in words)


def coverage(words: list[tuple[str, ...]], tokens: set[str] | frozenset[str]) -> float:
    """Share (0..1, higher is better) of ``words`` found in ``tokens`` (:func:`words_found`);
    0.0 when there are no words."""
    return words_found(words, tokens) / len(words) if words else 0.0
