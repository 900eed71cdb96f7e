"""Lexical leg: BM25 (bm25s) with coverage scaling and best-variant-per-word scoring.

The index is built at bundle time from each chunk's indexed text (title, heading path,
text) and stored in the bundle as bm25s's own files, so opening a bundle does not
re-tokenize the corpus. Document ``i`` of the index is chunk id ``i + 1``. The index is cut with
the stemmer of the course's language (app/text/tokenize.py), recorded as ``stemmer`` in the
bundle's ``meta['lexical']`` and read back by :func:`bundle_stemmer`.

Scoring of a query with written words ``w_1..w_m`` against chunk ``d``:

    base(d)     = sum_j  max_{v in variants(w_j)} BM25(v, d)      (Robertson & Zaragoza 2009, bm25s "lucene" variant)
    coverage(d) = |{j : max_v BM25(v, d) > 0}| / m
    score(d)    = base(d) * max(0.5, 0.5 + 0.5 * coverage(d))      (full score at full coverage, ~2/3 at a third, floor 0.5)

Higher is better. Counting only the best variant stops ``wi-fi`` (four variants)
from counting four times; coverage scaling stops one rare word from carrying a chunk.
"""

from __future__ import annotations

import json
import logging
import math
import tempfile
from pathlib import Path

import bm25s
import numpy as np

from .tokenize import DEFAULT_STEMMER, TOKENIZER_VERSION, document_tokens, known_stemmer, query_words

logging.getLogger("bm25s").setLevel(logging.WARNING)
log = logging.getLogger(__name__)

BM25_PARAMS = {"method": "lucene", "k1": 1.2, "b": 0.75}
COVERAGE_FLOOR = 0.5


def build_index(indexed_texts: list[str], stemmer: str = DEFAULT_STEMMER) -> dict[str, bytes]:
    """Build a BM25 index over texts (in chunk-id order), cut with ``stemmer`` (a name of
    :data:`~app.text.tokenize.STEMMERS`); returns bm25s's files as ``{name: bytes}``."""
    corpus = [document_tokens(t, stemmer) or [""] for t in indexed_texts]
    model = bm25s.BM25(**BM25_PARAMS)
    model.index(corpus, show_progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        model.save(tmp)
        return {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir()) if p.is_file()}


def index_params(stemmer: str = DEFAULT_STEMMER) -> dict:
    """Parameters recorded in the bundle's meta, with the ``stemmer`` the index was cut with."""
    return {**BM25_PARAMS, "tokenizer_version": TOKENIZER_VERSION, "coverage_floor": COVERAGE_FLOOR,
            "bm25s": bm25s.__version__, "stemmer": stemmer}


def bundle_stemmer(meta: dict[str, str]) -> str:
    """The stemmer a bundle's lexical index was cut with, from its ``meta`` (key -> value): the
    ``stemmer`` of ``meta['lexical']``; English when absent (tokenizer version 2 stemmed every course
    in English) or unreadable. A name this app does not have is searched as English, with one log
    line. Never raises."""
    try:
        params = json.loads(meta.get("lexical") or "{}")
        name = str(params.get("stemmer") or DEFAULT_STEMMER) if isinstance(params, dict) else DEFAULT_STEMMER
    except ValueError:
        return DEFAULT_STEMMER
    if known_stemmer(name) != name:
        log.warning("The bundle's index was cut with the stemmer %r, which this app lacks; English is used.", name[:40])
    return known_stemmer(name)


class LexicalIndex:
    """A loaded BM25 index; ``stemmer`` (the one it was built with, :func:`bundle_stemmer`) cuts
    the queries."""

    def __init__(self, files: dict[str, bytes], stemmer: str = DEFAULT_STEMMER) -> None:
        self.stemmer = known_stemmer(stemmer)
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in files.items():
                (Path(tmp) / name).write_bytes(data)
            self._model = bm25s.BM25.load(tmp, mmap=False)
        self._vocab: dict[str, int] = self._model.vocab_dict
        self.num_docs = int(self._model.scores["num_docs"])

    def has_token(self, token: str) -> bool:
        """True when ``token`` (a stemmed variant, as :func:`word_variants` gives it) occurs in the corpus."""
        return token in self._vocab

    def document_frequency(self, token: str) -> int:
        """Number of chunks holding ``token`` (a stemmed variant, as :func:`word_variants` gives it); 0 when none."""
        tid = self._vocab.get(token)
        if tid is None:
            return 0
        indptr = self._model.scores["indptr"]
        return int(indptr[tid + 1] - indptr[tid])

    def idf(self, variants: tuple[str, ...]) -> float:
        """Inverse document frequency of a question word (one :func:`query_words` variant tuple), > 0,
        higher for rarer words: ``ln(1 + (N - df + 0.5) / (df + 0.5))`` over the ``N`` chunks, with
        ``df`` the chunks holding its commonest variant (BM25's IDF, Lucene form; Robertson & Zaragoza
        2009). A word the course never uses gets the highest value, ``ln(1 + 2N + 1)``."""
        df = max((self.document_frequency(v) for v in variants), default=0)
        return math.log(1.0 + (self.num_docs - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> np.ndarray:
        """``(num_docs,) float32`` scores for every chunk (index i is chunk id i + 1)."""
        words = query_words(query, self.stemmer)
        total = np.zeros(self.num_docs, dtype=np.float32)
        if not words:
            return total
        matched = np.zeros(self.num_docs, dtype=np.float32)
        for variants in words:
            best = np.zeros(self.num_docs, dtype=np.float32)
            for token in variants:
                tid = self._vocab.get(token)
                if tid is not None:
                    np.maximum(best, self._model.get_scores_from_ids([tid]), out=best)
            total += best
            matched += best > 0
        coverage = matched / len(words)
        return total * np.maximum(COVERAGE_FLOOR, 0.5 + 0.5 * coverage)
