"""The retriever: lexical leg + semantic leg + exact identifiers -> fusion -> evidence gate.

Each leg has its own candidate allowance so one cannot crowd out the other; chunks
that contain an identifier from the question verbatim (FTS5 phrase match) are always
candidates. A follow-up question is retrieved together with the previous user turn.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..bundle.reader import BundleReader
from ..embedding import Embedder
from ..ranking import diversify_sources, top_k
from ..records import Hit
from ..text.lexical import LexicalIndex
from ..text.tokenize import document_tokens, query_words
from ..usertext import clean_user_text
from .folders import MIN_TITLE_WORDS, FolderIndex, normalize_words
from .fusion import additive_fusion, reciprocal_rank_fusion, weighted_score_fusion
from .gate import judge
from .identifiers import extract_identifiers
from .links import is_navigation, link_only_target

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
#: Source crowding (app/ranking.py ``diversify_sources``): chunks of one guide
#: beyond this many are ranked after the other guides' chunks; 0 turns it off.
PER_SOURCE = 2
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
#: Query embeddings kept for reuse (a follow-up's previous turn was embedded by the last search).
QUERY_CACHE_SIZE = 8

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
    exact_weight: float = WEIGHTS["exact"]
    additive_c: float = ADDITIVE_C
    additive_exact: float = ADDITIVE_EXACT
    adaptive_coverage: float = ADAPTIVE_COVERAGE
    min_similarity: float = MIN_SIMILARITY
    min_lexical_coverage: float = MIN_LEXICAL_COVERAGE
    per_source: int = PER_SOURCE
    demote_navigation: bool = DEMOTE_NAVIGATION
    navigation_window: int = NAVIGATION_WINDOW
    history_weight: float = HISTORY_WEIGHT
    lexical_candidates: int = LEXICAL_CANDIDATES
    semantic_candidates: int = SEMANTIC_CANDIDATES
    exact_candidates: int = EXACT_CANDIDATES
    folder_candidates: int = FOLDER_CANDIDATES
    folder_max_chunks: int = FOLDER_MAX_CHUNKS


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


#: Words and openings by which a question refers back to the previous turn ("which socket does *it*
#: plug into?", "can I have more than one of *those*?", "*and* what if…", "what about…").
_REFERS_BACK = re.compile(
    r"\b(it|its|it's|itself|that|this|those|these|they|them|their|theirs|there|he|she|his|her|same|"
    r"also|instead|else|one|ones|former|latter|above|previous|earlier)\b|^\s*(and|but|so|ok|okay|then|"
    r"what about|how about)\b", re.IGNORECASE)


def refers_back(question: str) -> bool:
    """Whether ``question`` refers back to the previous turn (a pronoun such as *it*, *those*,
    *their*, or an opening such as "And…", "What about…"). Only such a question is a follow-up:
    a new, self-contained question is retrieved and gated on its own words, so an unrelated
    question after an answered one ("Where is the cafeteria?") is not answered from the previous
    turn's lesson (issue 11)."""
    return bool(_REFERS_BACK.search(question[:MAX_QUERY_CHARS]))


def previous_user_turn(history: list[dict] | None, question: str | None = None) -> str:
    """The last user message of ``history`` cut to MAX_QUERY_CHARS characters; '' when there is
    none, or when ``question`` is given and does not :func:`refers_back` to it."""
    if question is not None and not refers_back(question):
        return ""
    previous = [m["content"] for m in (history or []) if m.get("role") == "user" and m.get("content")]
    return previous[-1][:MAX_QUERY_CHARS] if previous else ""


def retrieval_query(question: str, history: list[dict] | None) -> str:
    """The text retrieved for: the question, preceded by the previous user turn when the question
    refers back to it. Each part is cut to MAX_QUERY_CHARS characters (the answerer refuses longer
    questions; the retriever stays fast on any input)."""
    question = question[:MAX_QUERY_CHARS]
    previous = previous_user_turn(history, question)
    return f"{previous}\n{question}" if previous else question


class Retriever:
    """Retrieval over one bundle. ``embedder=None`` (or an embedder that does not match the
    bundle's model) runs in the named degraded state ``keyword-only``.

    ``fusion`` is one of :data:`FUSIONS`; ``legs`` (a subset of :data:`LEGS`) are the legs
    every search runs unless :meth:`search` is given its own. Raises ``ValueError`` for an
    unknown fusion method or leg.
    """

    def __init__(self, bundle: BundleReader, embedder: Embedder | None, *, fusion: str = DEFAULT_FUSION,
                 legs: tuple[str, ...] = LEGS, settings: RetrievalSettings | None = None) -> None:
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
        self._folder_index: FolderIndex | None = None
        self._empty: list[tuple[str, str]] | None = None
        self._query_cache: dict[str, np.ndarray] = {}

    @property
    def degraded(self) -> tuple[str, ...]:
        return (KEYWORD_ONLY,) if self.embedder is None else ()

    @cached_property
    def lexical_index(self) -> LexicalIndex:
        """The bundle's BM25 index, loaded on first use (a few ms for IoT's 1,881 chunks). Raises
        :class:`BundleError` when the bundle has none."""
        return LexicalIndex(self.bundle.lexical_files())

    def search(self, question: str, k: int = 10, history: list[dict] | None = None,
               legs: tuple[str, ...] | None = None) -> Retrieval:
        """Rank chunks for ``question`` (a follow-up when ``history`` has a user turn); at most ``k`` hits.

        ``legs`` overrides the retriever's legs for this search (e.g. ``("lexical",)`` to
        measure the BM25 leg alone). ``timings_ms`` holds milliseconds per stage:
        ``lexical``, ``exact``, ``embed``, ``semantic``, ``folders``, ``fusion``.
        """
        legs = self.legs if legs is None else _check_legs(legs)
        question = clean_user_text(question[:MAX_QUERY_CHARS])
        history = [dict(m, content=clean_user_text(str(m.get("content", "")))) for m in (history or [])
                   if isinstance(m, dict)]
        timings: dict[str, float] = {}
        query = retrieval_query(question, history)
        previous = previous_user_turn(history, question)

        lexical_ids: list[int] = []
        bm25 = None
        if "lexical" in legs:
            t0 = time.perf_counter()
            if previous:
                bm25 = self.lexical_index.scores(question)
                bm25 += self.settings.history_weight * self.lexical_index.scores(previous)
            else:
                bm25 = self.lexical_index.scores(query)
            top = top_k(bm25, self.settings.lexical_candidates)  # best first, ties by chunk id
            lexical_ids = [int(i) + 1 for i in top if bm25[i] > 0]
            timings["lexical"] = (time.perf_counter() - t0) * 1000

        exact_ids: list[int] = []
        if "exact" in legs:
            t0 = time.perf_counter()
            for phrase in extract_identifiers(question):
                for cid in self.bundle.fts_phrase(phrase, self.settings.exact_candidates):
                    if cid not in exact_ids:
                        exact_ids.append(cid)
            exact_ids = exact_ids[:self.settings.exact_candidates]
            timings["exact"] = (time.perf_counter() - t0) * 1000

        semantic: list[tuple[int, float]] = []
        vector = None
        if self.embedder is not None and "semantic" in legs:
            t0 = time.perf_counter()
            vector = self._query_vector(question, previous)
            timings["embed"] = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            semantic = self.bundle.knn(vector, self.settings.semantic_candidates)
            timings["semantic"] = (time.perf_counter() - t0) * 1000
        semantic_ids = [cid for cid, _ in semantic]
        similarity = {cid: 1.0 - dist for cid, dist in semantic}

        folder_ids: set[int] = set()
        folder_lists: list[list[int]] = []
        if "folders" in legs:
            t0 = time.perf_counter()
            folder_ids, folder_lists = self._named_folder_candidates(question, bm25, vector, similarity)
            timings["folders"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        fused = self._fuse(query, lexical_ids, semantic_ids, exact_ids, bm25, vector, similarity, folder_lists)
        rows: dict = {}
        if self.settings.demote_navigation:  # before crowding, so a guide's places go to sections with content
            fused = self._demote_navigation(fused, k, rows)
        if self.settings.per_source:
            sources = self.bundle.chunk_sources
            fused = diversify_sources(fused, lambda cid: int(sources[cid]) if cid < sources.shape[0] else -cid,
                                      self.settings.per_source)
        if folder_ids:  # stable: the named folder's chunks first, each group in fused order
            fused = [f for f in fused if f[0] in folder_ids] + [f for f in fused if f[0] not in folder_ids]
        fused = fused[:k]
        rows.update(self.bundle.chunks([cid for cid, _ in fused if cid not in rows]))
        fused = self._follow_links(fused, rows, k)
        rows.update(self.bundle.chunks([cid for cid, _ in fused if cid not in rows]))
        lexical_rank = {cid: r for r, cid in enumerate(lexical_ids, 1)}
        semantic_rank = {cid: r for r, cid in enumerate(semantic_ids, 1)}
        exact = set(exact_ids)
        hits = tuple(
            Hit(chunk_id=cid, key=rows[cid].key, source=rows[cid].source, heading=rows[cid].heading,
                anchor=rows[cid].anchor, span=rows[cid].span, text=rows[cid].text, score=float(score),
                lexical_rank=lexical_rank.get(cid), semantic_rank=semantic_rank.get(cid),
                similarity=similarity.get(cid), exact_match=cid in exact)
            for cid, score in fused if cid in rows)
        timings["fusion"] = (time.perf_counter() - t0) * 1000

        best_similarity = max((1.0 - d for _, d in semantic), default=0.0) if vector is not None else None
        empty = self._empty_guides_named(question)
        judgement = judge(question, best_similarity=best_similarity, exact_matches=len(exact_ids),
                          in_vocabulary=self.lexical_index.has_token,
                          phrase_found=lambda phrase: bool(self.bundle.fts_phrase(phrase, 1)),
                          identifiers=extract_identifiers,
                          lexical_coverage=lambda known_only: self._best_coverage(query, lexical_ids, known_only),
                          empty_guides=bool(empty), min_similarity=self.settings.min_similarity,
                          min_coverage=self.settings.min_lexical_coverage)
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
        missing = [t for t in dict.fromkeys(texts) if t not in self._query_cache]
        if missing:
            for text, vec in zip(missing, self.embedder.embed(missing)):
                self._query_cache[text] = np.asarray(vec, dtype=np.float32)
        vectors = {t: self._query_cache[t] for t in texts}  # before eviction: it may drop the previous turn
        for t in texts:  # most recently used last, so the turns of this conversation stay cached
            self._query_cache[t] = self._query_cache.pop(t)
        while len(self._query_cache) > QUERY_CACHE_SIZE:
            self._query_cache.pop(next(iter(self._query_cache)))
        vector = vectors[question]
        if previous:
            vector = vector + self.settings.history_weight * vectors[previous]
            vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        return vector.astype(np.float32)

    def _demote_navigation(self, fused: list[tuple[int, float]], k: int, rows: dict) -> list[tuple[int, float]]:
        """Move navigation sections (app/retrieval/links.py ``is_navigation``) among the first
        ``k + NAVIGATION_WINDOW`` hits after the others (stable; scores unchanged). The chunk rows
        it reads are added to ``rows``, for the search to reuse."""
        window = fused[:k + self.settings.navigation_window]
        rows.update(self.bundle.chunks([cid for cid, _ in window]))
        known = self.bundle.first_chunks.keys()
        navigation = {cid for cid, _ in window
                      if cid in rows and is_navigation(rows[cid].text, rows[cid].source, known)}
        if not navigation:
            return fused
        return [f for f in window if f[0] not in navigation] + [f for f in window if f[0] in navigation] \
            + fused[len(window):]

    def _follow_links(self, fused: list[tuple[int, float]], rows: dict, k: int) -> list[tuple[int, float]]:
        """Place the first chunk of the guide a link-only section points to (app/retrieval/links.py)
        right after that section, with its score; at most ``k`` hits."""
        first = self.bundle.first_chunks
        out: list[tuple[int, float]] = []
        placed: set[int] = set()
        for cid, score in fused:
            if cid in placed:
                continue
            out.append((cid, score))
            placed.add(cid)
            row = rows.get(cid)
            target = link_only_target(row.text, row.source, first.keys()) if row is not None else None
            if target is not None and first[target] not in placed:
                out.append((first[target], score))
                placed.add(first[target])
        return out[:k]

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
              similarity: dict[int, float], folder_lists: list[list[int]] = ()) -> list[tuple[int, float]]:
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
            lexical_weight = tuning.lexical_weight
            if tuning.adaptive_coverage and cosine and lexical_ids:
                coverage = self._best_coverage(query, lexical_ids)
                lexical_weight *= min(1.0, coverage / tuning.adaptive_coverage)
            return weighted_score_fusion([cosine, lexical, exact],
                                         [tuning.semantic_weight, lexical_weight, tuning.exact_weight])
        bonus = {cid: tuning.additive_exact * exact.get(cid, 0.0) for cid in candidates}
        return additive_fusion(lexical, cosine, tuning.additive_c, bonus)

    def _best_coverage(self, query: str, lexical_ids: list[int], known_only: bool = False) -> float:
        """Share of the query's words found in the best lexical chunk (0..1); with
        ``known_only``, of the query's words that occur somewhere in the course."""
        if not lexical_ids:
            return 0.0
        words = query_words(query)
        if known_only:
            words = [w for w in words if any(self.lexical_index.has_token(v) for v in w)]
        row = self.bundle.chunks([lexical_ids[0]]).get(lexical_ids[0])
        if len(words) < (2 if known_only else 1) or row is None:
            return 0.0
        tokens = set(document_tokens(f"{row.heading}\n{row.text}"))
        return sum(any(v in tokens for v in w) for w in words) / len(words)


def _check_legs(legs) -> tuple[str, ...]:
    legs = tuple(legs)
    unknown = [leg for leg in legs if leg not in LEGS]
    if unknown or not legs:
        raise ValueError(f"legs must be a non-empty subset of {', '.join(LEGS)} (got {', '.join(legs) or 'none'})")
    return legs
