"""The retriever: lexical leg + semantic leg + exact identifiers -> fusion -> evidence gate.

Each leg has its own candidate allowance so one cannot crowd out the other; chunks
that contain an identifier from the question verbatim (FTS5 phrase match) are always
candidates. A follow-up question is retrieved together with the previous user turn.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..bundle.reader import BundleReader
from ..caches import VectorCache
from ..embedding import Embedder
from ..ranking import diversify_sources, top_k
from ..records import Hit
from ..text.lexical import LexicalIndex, bundle_stemmer
from ..text.tokenize import coverage, document_tokens, query_words
from ..usertext import clean_user_text
from .exact import exact_candidates
from .folders import MIN_TITLE_WORDS, FolderIndex, normalize_words
from .followups import previous_user_turn, retrieval_query
from .fusion import additive_fusion, reciprocal_rank_fusion, weighted_score_fusion
from .gate import NEAR_TOKENS, judge
from .identifiers import extract_identifiers
from .reorder import follow_links, navigation_last
from .rerank import Relevance, rerank
from .settings import DEFAULT_FUSION, FUSIONS, KEYWORD_ONLY, LEGS, MAX_QUERY_CHARS, QUERY_CACHE_SIZE, RetrievalSettings


@dataclass(frozen=True)
class Retrieval:
    """Hits best first (``score`` = fused score, higher is better), and what the gate decided.

    ``best_similarity`` is the highest cosine similarity of the semantic leg (None when it
    did not run); ``exact_matches`` counts chunks found by exact-identifier phrase search;
    ``unknown_names`` are names in the question the course never mentions (app/retrieval/gate.py);
    ``empty_guides`` are paths of guides the question names by title that have no text.
    """

    query: str
    hits: tuple[Hit, ...]
    has_evidence: bool
    degraded: tuple[str, ...] = ()
    timings_ms: dict = field(default_factory=dict, compare=False)
    best_similarity: float | None = None
    exact_matches: int = 0
    unknown_names: tuple[str, ...] = ()
    empty_guides: tuple[str, ...] = ()


@dataclass
class _Candidates:
    """One search's candidates, leg by leg: ``lexical_ids`` (best BM25 first, score > 0) and
    ``bm25`` (the score of every chunk, chunk id - 1 indexed; None without the lexical leg),
    ``exact_ids`` (exact-identifier matches; ``symbol_ids``, those explaining a symbol asked about),
    ``semantic`` (``[(chunk id, cosine distance)]`` nearest first) and ``vector`` (the query's unit
    vector; None without the semantic leg),
    ``similarity`` (chunk id -> cosine similarity, -1..1, higher is more alike; filled in as
    fusion scores more candidates), ``folder_ids`` and ``folder_lists`` (the named folders' chunks,
    and their best per leg)."""

    lexical_ids: list[int] = field(default_factory=list)
    bm25: np.ndarray | None = None
    exact_ids: list[int] = field(default_factory=list)
    symbol_ids: list[int] = field(default_factory=list)
    semantic: list[tuple[int, float]] = field(default_factory=list)
    vector: np.ndarray | None = None
    similarity: dict[int, float] = field(default_factory=dict)
    folder_ids: set[int] = field(default_factory=set)
    folder_lists: list[list[int]] = field(default_factory=list)

    @property
    def semantic_ids(self) -> list[int]:
        """The semantic leg's chunk ids, nearest first."""
        return [cid for cid, _ in self.semantic]


class Retriever:
    """Retrieval over one bundle. ``embedder=None`` (or an embedder that does not match the
    bundle's model) runs in the named degraded state ``keyword-only``.

    ``fusion`` is one of :data:`FUSIONS`; ``legs`` (a subset of :data:`LEGS`) are the legs
    every search runs unless :meth:`search` is given its own. Raises ``ValueError`` for an
    unknown fusion method or leg.
    """

    def __init__(self, bundle: BundleReader, embedder: Embedder | None, *, fusion: str = DEFAULT_FUSION,
                 legs: tuple[str, ...] = LEGS, settings: RetrievalSettings | None = None,
                 relevance: Relevance | None = None) -> None:
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r}; expected one of {', '.join(FUSIONS)}")
        self.fusion = fusion
        self.settings = settings or RetrievalSettings()
        self.legs = _check_legs(legs)
        self.bundle = bundle
        self.degraded_reason = ""
        if embedder is None:
            self.degraded_reason = "the embedding model is not available"
        elif (embedder.model_id, embedder.dim) != (bundle.meta["embedding_model_id"], bundle.embedding_dim) \
                or embedder.checksum != bundle.meta["embedding_checksum"]:
            self.degraded_reason = (f"the bundle was built with {bundle.meta['embedding_model_id']} "
                                    f"({bundle.embedding_dim} dims, sha256 {bundle.meta['embedding_checksum'][:12]}…); "
                                    f"this app has {embedder.model_id} ({embedder.dim} dims, sha256 {embedder.checksum[:12]}…)")
            embedder = None
        self.embedder = embedder
        #: the relevance model re-ranking the fused candidates (app/retrieval/rerank.py), or None
        self.relevance = relevance
        self._folder_index: FolderIndex | None = None
        self._empty: list[tuple[str, str]] | None = None
        #: question embeddings, shared by the threads of `lantern serve` (a follow-up's previous turn too)
        self._query_cache = VectorCache(QUERY_CACHE_SIZE)
        #: embeddings of the blocks quote selection scored (app/answer/answerer.py), shared by questions
        self.block_vectors = VectorCache()

    @property
    def degraded(self) -> tuple[str, ...]:
        return (KEYWORD_ONLY,) if self.embedder is None else ()

    @property
    def language(self) -> str:
        """The course's language tag from the bundle's meta ('' when unknown): the gate and the
        follow-up cues read its rules (app/i18n) as well as English's."""
        return str(self.bundle.meta.get("language") or "")

    @cached_property
    def stemmer(self) -> str:
        """The stemmer the bundle's words were cut with (``english``, ``french``…; recorded at build
        time from the course's language, :func:`~app.text.lexical.bundle_stemmer`): questions are
        cut the same way, here and in quote selection."""
        return bundle_stemmer(self.bundle.meta)

    @cached_property
    def lexical_index(self) -> LexicalIndex:
        """The bundle's BM25 index, loaded on first use (a few ms for IoT's 1,881 chunks). Raises
        :class:`BundleError` when the bundle has none."""
        return LexicalIndex(self.bundle.lexical_files(), self.stemmer)

    def search(self, question: str, k: int = 10, history: list[dict] | None = None,
               legs: tuple[str, ...] | None = None) -> Retrieval:
        """Rank chunks for ``question`` (a follow-up when ``history`` has a user turn); at most ``k`` hits.

        ``legs`` overrides the retriever's legs for this search (e.g. ``("lexical",)`` to
        measure the BM25 leg alone). ``timings_ms`` holds milliseconds per stage:
        ``lexical``, ``exact``, ``embed``, ``semantic``, ``folders``, ``fusion``.

        Steps: :meth:`_candidates` (each leg's), :meth:`_rank` (fusion and reordering),
        :meth:`_hits`, then :meth:`_judged` (the evidence gate).
        """
        legs = self.legs if legs is None else _check_legs(legs)
        question = clean_user_text(question[:MAX_QUERY_CHARS])
        history = [dict(m, content=clean_user_text(str(m.get("content", "")))) for m in (history or [])
                   if isinstance(m, dict)]
        timings: dict[str, float] = {}
        query = retrieval_query(question, history, self.language)
        found = self._candidates(question, previous_user_turn(history, question, self.language), query, legs, timings)
        t0 = time.perf_counter()
        fused, rows = self._rank(query, found, k)
        hits = self._hits(fused, rows, found)
        timings["fusion"] = _ms_since(t0)
        return self._judged(question, query, hits, found, timings)

    def _candidates(self, question: str, previous: str, query: str, legs: tuple[str, ...],
                    timings: dict[str, float]) -> _Candidates:
        """Each leg's candidates in ``legs`` (the semantic leg only with an embedder), each leg's
        milliseconds added to ``timings``. ``previous`` is the previous user turn ('' if none);
        ``query`` the question joined with it (:func:`retrieval_query`)."""
        found = _Candidates()
        if "lexical" in legs:
            t0 = time.perf_counter()
            if previous:
                found.bm25 = self.lexical_index.scores(question)
                found.bm25 += self.settings.history_weight * self.lexical_index.scores(previous)
            else:
                found.bm25 = self.lexical_index.scores(query)
            bm25 = found.bm25
            top = top_k(bm25, self.settings.lexical_candidates)  # best first, ties by chunk id
            found.lexical_ids = [int(i) + 1 for i in top if bm25[i] > 0]
            timings["lexical"] = _ms_since(t0)
        if "exact" in legs:
            t0 = time.perf_counter()
            found.exact_ids, found.symbol_ids = exact_candidates(self.bundle, question, self.settings.exact_candidates,
                                                                 found.bm25)
            timings["exact"] = _ms_since(t0)
        if self.embedder is not None and "semantic" in legs:
            t0 = time.perf_counter()
            found.vector = self._query_vector(question, previous)
            timings["embed"] = _ms_since(t0)
            t0 = time.perf_counter()
            found.semantic = self.bundle.knn(found.vector, self.settings.semantic_candidates)
            timings["semantic"] = _ms_since(t0)
        found.similarity = {cid: 1.0 - dist for cid, dist in found.semantic}
        if "folders" in legs:
            t0 = time.perf_counter()
            found.folder_ids, found.folder_lists = self._named_folder_candidates(
                question, found.bm25, found.vector, found.similarity)
            timings["folders"] = _ms_since(t0)
        return found

    def _rank(self, query: str, found: _Candidates, k: int) -> tuple[list[tuple[int, float]], dict]:
        """At most ``k`` ``[(chunk id, fused score)]``, best first, and the chunk rows read so far:
        the legs fused (:meth:`_fuse`), navigation pages last (:func:`navigation_last`), at most
        ``per_source`` chunks a guide (:func:`diversify_sources`), the named folders' chunks first (and
        before them the chunks explaining a symbol asked about, :func:`~app.retrieval.exact.exact_candidates`),
        then the pages linked from a hit followed (:func:`follow_links`)."""
        fused = self._fuse(query, found.lexical_ids, found.semantic_ids, found.exact_ids, found.bm25, found.vector,
                           found.similarity, found.folder_lists)
        rows: dict = {}
        if self.relevance is not None and self.settings.rerank_depth > 0 and \
                "rerank" in getattr(self.relevance, "uses", ("rerank",)):
            rows.update(self.bundle.chunks([cid for cid, _ in fused[:self.settings.rerank_depth]]))
            fused = rerank(query, fused, lambda cid: rows[cid].text, self.relevance,
                           self.settings.rerank_depth, self.settings.rerank_weight)
        if self.settings.demote_navigation:  # before crowding, so a guide's places go to sections with content
            window = k + self.settings.navigation_window
            rows.update(self.bundle.chunks([cid for cid, _ in fused[:window]]))
            fused = navigation_last(fused, window, rows, self.bundle.first_chunks.keys())
        if self.settings.per_source:
            sources = self.bundle.chunk_sources
            fused = diversify_sources(fused, lambda cid: int(sources[cid]) if cid < sources.shape[0] else -cid,
                                      self.settings.per_source, self.settings.crowding_factor)
        folder_ids = found.folder_ids
        if folder_ids:  # stable: the named folder's chunks first, each group in fused order
            fused = [f for f in fused if f[0] in folder_ids] + [f for f in fused if f[0] not in folder_ids]
        if found.symbol_ids:  # then the chunks explaining a symbol asked about ("¿Qué hace #?") lead
            first = set(found.symbol_ids)
            fused = [f for f in fused if f[0] in first] + [f for f in fused if f[0] not in first]
        fused = fused[:k]
        rows.update(self.bundle.chunks([cid for cid, _ in fused if cid not in rows]))
        fused = follow_links(fused, rows, self.bundle.first_chunks, k)
        rows.update(self.bundle.chunks([cid for cid, _ in fused if cid not in rows]))
        return fused, rows

    @staticmethod
    def _hits(fused: list[tuple[int, float]], rows: dict, found: _Candidates) -> tuple[Hit, ...]:
        """A :class:`Hit` for each fused chunk whose row was read, with its rank in each leg."""
        lexical_rank = {cid: r for r, cid in enumerate(found.lexical_ids, 1)}
        semantic_rank = {cid: r for r, cid in enumerate(found.semantic_ids, 1)}
        exact = set(found.exact_ids)
        similarity = found.similarity
        return tuple(
            Hit(rows[cid], float(score), lexical_rank=lexical_rank.get(cid), semantic_rank=semantic_rank.get(cid),
                similarity=similarity.get(cid), exact_match=cid in exact)
            for cid, score in fused if cid in rows)

    def _judged(self, question: str, query: str, hits: tuple[Hit, ...], found: _Candidates,
                timings: dict[str, float]) -> Retrieval:
        """The :class:`Retrieval` of ``hits`` with the evidence gate's verdict
        (:func:`~app.retrieval.gate.judge`) and the empty guides the question names."""
        best_similarity = max((1.0 - d for _, d in found.semantic), default=0.0) if found.vector is not None else None
        empty = self._empty_guides_named(question)
        lexical_ids, exact_ids = found.lexical_ids, found.exact_ids
        judgement = judge(question, best_similarity=best_similarity, exact_matches=len(exact_ids),
                          in_vocabulary=self.lexical_index.has_token,
                          phrase_found=lambda phrase: bool(self.bundle.fts_phrase(phrase, 1)),
                          words_near=lambda words: bool(self.bundle.fts_near(words, NEAR_TOKENS, 1)),
                          identifiers=extract_identifiers,
                          lexical_coverage=lambda known_only: self._best_coverage(query, lexical_ids, known_only),
                          empty_guides=bool(empty), min_similarity=self.settings.min_similarity,
                          min_coverage=self.settings.min_lexical_coverage, language=self.language,
                          stemmer=self.stemmer, passages=[hit.text for hit in hits])
        return Retrieval(query=query, hits=hits, has_evidence=judgement.has_evidence, degraded=self.degraded,
                         timings_ms=timings, best_similarity=best_similarity, exact_matches=len(exact_ids),
                         unknown_names=judgement.missing, empty_guides=empty)

    def question_vector(self, question: str) -> np.ndarray:
        """``(dim,) float32`` unit embedding of ``question`` alone, as :meth:`search` embedded it
        (reused from the cache when the question was just searched). Needs an embedder."""
        return self._query_vector(clean_user_text(question[:MAX_QUERY_CHARS]), "")

    def _query_vector(self, question: str, previous: str) -> np.ndarray:
        """``(dim,) float32`` unit query vector: the question's embedding, plus HISTORY_WEIGHT times
        the previous user turn's for a follow-up. Recent texts' embeddings are reused."""
        texts = [question, previous] if previous else [question]
        assert self.embedder is not None, "semantic search needs an embedder"
        vectors = dict(zip(texts, self._query_cache.vectors(texts, self.embedder.embed)))
        vector = vectors[question]
        if previous:
            vector = vector + self.settings.history_weight * vectors[previous]
            vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        return vector.astype(np.float32)

    def embed_blocks(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim) float32`` embeddings of answer blocks' texts: those the build stored
        (app/bundle/block_vectors.py) read back, the others embedded now. Needs an embedder."""
        assert self.embedder is not None, "block embeddings need an embedder"
        stored = self.bundle.stored_block_vectors(texts)
        missing = [t for t in texts if t not in stored]
        fresh = dict(zip(missing, self.embedder.embed(missing))) if missing else {}
        rows = [stored[t] if t in stored else fresh[t] for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.embedder.dim)

    def _empty_guides_named(self, question: str) -> tuple[str, ...]:
        """Paths of the guides without chunks (say, only front matter) whose title, of at least
        MIN_TITLE_WORDS words, the question contains (ignoring case and punctuation)."""
        if self._empty is None:
            self._empty = [(path, f" {normalize_words(title)} ") for path, title in self.bundle.empty_sources()
                           if len(normalize_words(title).split()) >= MIN_TITLE_WORDS]
        if not self._empty:
            return ()
        text = f" {normalize_words(question)} "
        return tuple(path for path, title in self._empty if title in text)

    @property
    def folder_index(self) -> FolderIndex:
        if self._folder_index is None:
            self._folder_index = FolderIndex([(s.path, s.title) for s in self.bundle.sources()])
        return self._folder_index

    def _named_folder_candidates(self, question: str, bm25: np.ndarray | None, vector: np.ndarray | None,
                                 similarity: dict[int, float]) -> tuple[set[int], list[list[int]]]:
        """Chunk ids of the folders ``question`` names, and up to FOLDER_CANDIDATES of them per
        leg (best BM25 first; best cosine first), so the folder's best chunks are candidates."""
        prefixes = self.folder_index.named(question)
        ids = self.bundle.chunk_ids_under(prefixes) if prefixes else []
        lists: list[list[int]] = []
        if not ids:
            return set(), lists
        if bm25 is not None:
            ranked = sorted(ids, key=lambda cid: (-bm25[cid - 1], cid))
            lists.append([cid for cid in ranked[:self.settings.folder_candidates] if bm25[cid - 1] > 0])
        if vector is not None and len(ids) <= self.settings.folder_max_chunks:
            for cid, stored in self.bundle.vectors([cid for cid in ids if cid not in similarity]).items():
                similarity[cid] = float(np.dot(stored, vector))
            lists.append(sorted(ids, key=lambda cid: (-similarity.get(cid, -1.0), cid))[:self.settings.folder_candidates])
        return set(ids), lists

    def _fuse(self, query: str, lexical_ids: list[int], semantic_ids: list[int], exact_ids: list[int],
              bm25: np.ndarray | None, vector: np.ndarray | None,
              similarity: dict[int, float], folder_lists: Sequence[list[int]] = ()) -> list[tuple[int, float]]:
        """Fused ``[(chunk id, score)]`` best first. Score-based methods score every candidate
        on every active leg: BM25 from the full score array, cosine from the stored vector
        for candidates the KNN did not return (``similarity`` is filled in place). Named-folder
        candidates (``folder_lists``) join the candidate set; under RRF each is one more list."""
        if self.fusion == "rrf":
            return reciprocal_rank_fusion([lexical_ids, semantic_ids, exact_ids, *folder_lists])
        extra = [cid for ranked in folder_lists for cid in ranked]
        candidates = list(dict.fromkeys(lexical_ids + semantic_ids + exact_ids + extra))
        lexical = {cid: float(bm25[cid - 1]) for cid in candidates} if bm25 is not None else {}
        cosine: dict[int, float] = {}
        if vector is not None:
            missing = [cid for cid in candidates if cid not in similarity]
            for cid, stored in self.bundle.vectors(missing).items():
                similarity[cid] = float(np.dot(stored, vector))
            cosine = {cid: similarity[cid] for cid in candidates if cid in similarity}
        exact = {cid: 1.0 for cid in exact_ids}
        tuning = self.settings
        if self.fusion == "weighted":
            semantic_weight, lexical_weight = tuning.leg_weights(self.stemmer)  # the lexical leg leads outside English
            if tuning.adaptive_coverage and cosine and lexical_ids:
                coverage = self._best_coverage(query, lexical_ids)
                lexical_weight *= min(1.0, coverage / tuning.adaptive_coverage)
            return weighted_score_fusion([cosine, lexical, exact],
                                         [semantic_weight, lexical_weight, tuning.exact_weight])
        bonus = {cid: tuning.additive_exact * exact.get(cid, 0.0) for cid in candidates}
        return additive_fusion(lexical, cosine, tuning.additive_c, bonus)

    def _best_coverage(self, query: str, lexical_ids: list[int], known_only: bool = False) -> float:
        """Share of the query's words found in the best lexical chunk (0..1); with
        ``known_only``, of the query's words that occur somewhere in the course."""
        if not lexical_ids:
            return 0.0
        words = query_words(query, self.stemmer)
        if known_only:
            words = [w for w in words if any(self.lexical_index.has_token(v) for v in w)]
        row = self.bundle.chunks([lexical_ids[0]]).get(lexical_ids[0])
        if len(words) < (2 if known_only else 1) or row is None:
            return 0.0
        tokens = set(document_tokens(f"{row.heading}\n{row.text}", self.stemmer))
        return coverage(words, tokens)


def _check_legs(legs) -> tuple[str, ...]:
    legs = tuple(legs)
    unknown = [leg for leg in legs if leg not in LEGS]
    if unknown or not legs:
        raise ValueError(f"legs must be a non-empty subset of {', '.join(LEGS)} (got {', '.join(legs) or 'none'})")
    return legs


def _ms_since(t0: float) -> float:
    """Milliseconds since ``t0`` (a :func:`time.perf_counter` reading)."""
    return (time.perf_counter() - t0) * 1000
