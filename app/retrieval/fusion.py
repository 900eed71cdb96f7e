"""Fusion of ranked candidate lists.

Reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009):
``score(d) = sum over lists L containing d of 1 / (k + rank_L(d))`` with ranks from 1
and ``k = 60`` as in the paper. Higher is better; a chunk found by both legs outranks
one found by a single leg at the same rank.
"""

from __future__ import annotations

RRF_K = 60


def reciprocal_rank_fusion(ranked_lists: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse lists of ids (each best first) into ``[(id, score)]``, best first; ties by id."""
    scores: dict[int, float] = {}
    for ranked in ranked_lists:
        for rank, item in enumerate(ranked, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
