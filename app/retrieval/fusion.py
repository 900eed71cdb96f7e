"""Fusion of the retrieval legs into one ranking. Every function is pure; higher is better.

Three methods, compared with ``lantern eval`` (docs/retrieval.md):

- ``rrf``: reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009),
  ``score(d) = sum over lists L containing d of 1 / (k + rank_L(d))``, ranks from 1,
  ``k = 60`` as in the paper. Uses ranks only.
- ``weighted``: weighted sum of min-max normalized leg scores (the "convex combination"
  of Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval",
  ACM TOIS 2023): ``score(d) = sum_L w_L * (s_L(d) - min_L) / (max_L - min_L)`` with
  min and max taken over the candidate set of this query (a leg whose scores are all
  equal contributes ``w_L`` to the candidates that have a positive raw score, else 0).
- ``additive``: raw BM25 plus a scaled cosine similarity,
  ``score(d) = bm25(d) + c * cos(d)`` (the "BM25 + c x cosine" linear combination
  used by e.g. Ma et al., "A Replication Study of Dense Passage Retriever", 2021).
"""

from __future__ import annotations

RRF_K = 60


def reciprocal_rank_fusion(ranked_lists: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse lists of ids (each best first) into ``[(id, score)]``, best first; ties by id."""
    scores: dict[int, float] = {}
    for ranked in ranked_lists:
        for rank, item in enumerate(ranked, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return _ranked(scores)


def min_max_normalize(scores: dict[int, float]) -> dict[int, float]:
    """Scale ``{id: score}`` to [0, 1] by ``(s - min) / (max - min)``.

    When every score is equal (one candidate, or a flat leg), positive scores map to 1
    and the rest to 0, so a lone match still counts and "no match" never does.
    """
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low <= 1e-12:
        return {i: (1.0 if s > 0 else 0.0) for i, s in scores.items()}
    return {i: (s - low) / (high - low) for i, s in scores.items()}


def weighted_score_fusion(leg_scores: list[dict[int, float]], weights: list[float]) -> list[tuple[int, float]]:
    """Weighted sum of min-max normalized scores.

    ``leg_scores[j]`` maps candidate id -> raw score of leg ``j`` (higher is better; a
    candidate missing from a leg counts as that leg's minimum, i.e. 0 after
    normalization); ``weights[j]`` is that leg's weight. Returns ``[(id, score)]`` best
    first, ties by id. Raises ``ValueError`` when the two lists differ in length.
    """
    if len(leg_scores) != len(weights):
        raise ValueError(f"{len(leg_scores)} legs but {len(weights)} weights")
    fused: dict[int, float] = {}
    for scores, weight in zip(leg_scores, weights):
        for item, value in min_max_normalize(scores).items():
            fused[item] = fused.get(item, 0.0) + weight * value
    for scores in leg_scores:
        for item in scores:
            fused.setdefault(item, 0.0)
    return _ranked(fused)


def additive_fusion(bm25: dict[int, float], cosine: dict[int, float], c: float,
                    bonus: dict[int, float] | None = None) -> list[tuple[int, float]]:
    """``bm25(d) + c * cos(d) (+ bonus(d))`` over the union of ids; a missing value counts as 0.

    ``bm25`` are raw (unbounded, >= 0) lexical scores, ``cosine`` similarities in [-1, 1].
    Returns ``[(id, score)]`` best first, ties by id.
    """
    ids = set(bm25) | set(cosine) | set(bonus or {})
    fused = {i: bm25.get(i, 0.0) + c * cosine.get(i, 0.0) + (bonus or {}).get(i, 0.0) for i in ids}
    return _ranked(fused)


def _ranked(scores: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
