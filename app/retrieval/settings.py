"""The retriever's tuning: every constant with the measurement behind it, and the one frozen
record, :class:`RetrievalSettings`, a :class:`~app.retrieval.retriever.Retriever` is given
(docs/retrieval.md)."""

from __future__ import annotations

from dataclasses import dataclass

from ..text.tokenize import DEFAULT_STEMMER

LEXICAL_CANDIDATES = 40
SEMANTIC_CANDIDATES = 40
EXACT_CANDIDATES = 8
#: Candidates each leg adds from a folder the question names (app/retrieval/folders.py);
#: folders with more chunks than FOLDER_MAX_CHUNKS are scored by the lexical leg only.
FOLDER_CANDIDATES = 8
FOLDER_MAX_CHUNKS = 2000

#: The legs a search can run: BM25, embedding KNN, FTS5 phrase matches of exact identifiers,
#: and the named-folder boost (chunks of a folder the question names are ranked first).
LEGS = ("lexical", "semantic", "exact", "folders")
#: Fusion methods (app/retrieval/fusion.py); the default was chosen with ``lantern eval``
#: on two question sets (docs/retrieval.md).
FUSIONS = ("rrf", "weighted", "additive")
DEFAULT_FUSION = "weighted"
#: ``weighted`` fusion: weights of the min-max normalized semantic, lexical and exact legs. (A
#: heading/title leg was measured at 0.1 and 0.2 and lowered IoT MRR; it is gone: docs/retrieval.md.)
WEIGHTS = {"semantic": 0.7, "lexical": 0.3, "exact": 0.2}
#: ``weighted`` fusion's semantic and lexical weights for a course cut with its own language's stemmer
#: (French, Spanish, German…; not English, and not a language with no stemmer: issue 27). The embedding
#: model is English-only and rates any French or Spanish text as alike, while BM25 reads the course's
#: words, so the lexical leg leads. Development sets (the shell lesson in French / Spanish, search-only,
#: docs/retrieval.md, "Fusion weights for a course not in English"), reply holds the fact and MRR@10:
#: 0.7/0.3 14/24 0.843, 15/24 0.912; 0.6/0.4 14, 17; 0.5/0.5 14, 17; 0.45/0.55 15, 17; 0.4/0.6 15/24 0.873,
#: 17/24 0.912; 0.35/0.65 and 0.3/0.7 14, 17; 0.2/0.8 13, 17; 0.1/0.9 and 0.05/0.95 13, 17. English courses
#: keep WEIGHTS (the demo set's replies and ranks identical).
OTHER_LANGUAGE_WEIGHTS = {"semantic": 0.4, "lexical": 0.6}
#: ``additive`` fusion: ``bm25 + ADDITIVE_C * cosine``, plus ``ADDITIVE_EXACT`` for an exact hit.
ADDITIVE_C = 20.0
ADDITIVE_EXACT = 5.0

#: Evidence gate (app/retrieval/gate.py): a question has strong evidence when a chunk
#: contains one of its identifiers verbatim, or it names nothing the course never mentions
#: and its best chunk's cosine similarity reaches MIN_SIMILARITY. Calibrated on two question
#: sets (docs/retrieval.md); keyword-only mode, which has no similarity, uses the lexical
#: coverage of the best chunk instead.
MIN_SIMILARITY = 0.25
MIN_LEXICAL_COVERAGE = 0.6
#: Source crowding (app/ranking.py ``diversify_sources``): chunks of one guide beyond this many
#: are crowded (see CROWDING_FACTOR); 0 turns it off.
PER_SOURCE = 2
#: Soft crowding: a guide's chunk beyond its first PER_SOURCE is placed as if its fused score were
#: this share of it (0: after every other guide's chunks). 0.8, measured on five question sets
#: (docs/retrieval.md, "Soft crowding"): a guide's third chunk far ahead of every other guide's
#: keeps its place (answers holding the fact: demo 20 -> 21, Data Science 19 -> 20, Instructor
#: Training 15 -> 16; IoT, Web Development and Turing Way unchanged; no rank metric moved).
CROWDING_FACTOR = 0.8
#: Navigation sections (a heading and a link to another lesson: "## Next") rank after the other
#: hits among the first k + NAVIGATION_WINDOW; they hold no answer of their own.
DEMOTE_NAVIGATION = True
NAVIGATION_WINDOW = 10
#: ``weighted`` fusion trusts BM25 in proportion to how much of the question it matched: the
#: lexical weight is scaled by ``min(1, c / ADAPTIVE_COVERAGE)``, where ``c`` is the share of the
#: question's words in the best BM25 chunk. A paraphrase ("the little LCD on my Seeed gadget")
#: matches few words, and the chunk that matches them is usually not the answer. IoT MRR@10:
#: off 0.860, 0.5 -> 0.874, 0.6 -> 0.885, 0.7 -> 0.874, 0.8 -> 0.851 (demo set 1.0 throughout);
#: 0.6 is also the keyword-only gate's coverage floor. 0 turns it off.
ADAPTIVE_COVERAGE = 0.6

#: Follow-ups: the previous user turn counts this much of the question's own weight, in both
#: legs: BM25 ``scores(question) + w * scores(previous)``, and the query vector is
#: ``normalize(e(question) + w * e(previous))`` (history terms weighted below the current turn,
#: as in the "historical query expansion" of Lin et al., "Query Reformulation using Query
#: History for Passage Retrieval in Conversational Search", 2020). Retrieving the two as one text
#: (w = 1) let an earlier question outrank a new topic ("How do I wire the DHT11 sensor?" after
#: an OLED question). Follow-up MRR@10, IoT (6 questions that refer back) / demo (8, 4 of them
#: new topics): one text 0.917 / 0.889; w = 0.8 0.889 / 0.906; 0.7 0.889 / 0.917; 0.6 0.917 / 1.0;
#: 0.5 0.875 / 1.0; 0.2 0.597 / 1.0 (docs/retrieval.md).
HISTORY_WEIGHT = 0.6
#: Question embeddings kept for reuse: a follow-up's previous turn was embedded by the last search, and
#: students of one lab ask the same questions through `lantern serve` (384 float32 each: 256 are 0.4 MB).
QUERY_CACHE_SIZE = 256

#: Re-ranking with the relevance model (app/retrieval/rerank.py, issue 24): the first RERANK_DEPTH fused
#: chunks are re-ordered by ``RERANK_WEIGHT * probability + (1 - RERANK_WEIGHT) * normalised fused score``.
#: Used only when a relevance model is loaded. Measurement: docs/retrieval.md, "Relevance model".
RERANK_DEPTH = 20
RERANK_WEIGHT = 0.5

KEYWORD_ONLY = "keyword-only"
#: Longest question (and previous turn) retrieved for, in characters; longer text is cut.
MAX_QUERY_CHARS = 4000


@dataclass(frozen=True)
class RetrievalSettings:
    """The retriever's tuning, one record (defaults: the module constants above, where each value's
    measurement is written down). Tests and benchmarks pass another with
    ``dataclasses.replace(RetrievalSettings(), per_source=0)`` instead of changing the constants."""

    semantic_weight: float = WEIGHTS["semantic"]
    lexical_weight: float = WEIGHTS["lexical"]
    other_language_semantic_weight: float = OTHER_LANGUAGE_WEIGHTS["semantic"]
    other_language_lexical_weight: float = OTHER_LANGUAGE_WEIGHTS["lexical"]
    exact_weight: float = WEIGHTS["exact"]
    additive_c: float = ADDITIVE_C
    additive_exact: float = ADDITIVE_EXACT
    adaptive_coverage: float = ADAPTIVE_COVERAGE
    min_similarity: float = MIN_SIMILARITY
    min_lexical_coverage: float = MIN_LEXICAL_COVERAGE
    per_source: int = PER_SOURCE
    crowding_factor: float = CROWDING_FACTOR
    demote_navigation: bool = DEMOTE_NAVIGATION
    navigation_window: int = NAVIGATION_WINDOW
    history_weight: float = HISTORY_WEIGHT
    lexical_candidates: int = LEXICAL_CANDIDATES
    semantic_candidates: int = SEMANTIC_CANDIDATES
    exact_candidates: int = EXACT_CANDIDATES
    folder_candidates: int = FOLDER_CANDIDATES
    folder_max_chunks: int = FOLDER_MAX_CHUNKS
    rerank_depth: int = RERANK_DEPTH
    rerank_weight: float = RERANK_WEIGHT

    def leg_weights(self, stemmer: str) -> tuple[float, float]:
        """``weighted`` fusion's ``(semantic, lexical)`` weights for a course whose words are cut with
        ``stemmer`` (app/text/tokenize.py): the ``other_language_*`` pair for a stemmer other than
        English's (:data:`OTHER_LANGUAGE_WEIGHTS`), else ``semantic_weight`` and ``lexical_weight``."""
        if stemmer == DEFAULT_STEMMER:
            return self.semantic_weight, self.lexical_weight
        return self.other_language_semantic_weight, self.other_language_lexical_weight
