"""Ranking helpers shared by retrieval and the bundle's own searches: top-k selection (the lexical
leg, the KNN search) and source crowding (hybrid retrieval, guide search)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Callable, TypeVar

import numpy as np

#: What is ranked (a chunk id, a row) and what groups it (a source id, a guide path).
Item = TypeVar("Item")
Source = TypeVar("Source", bound=Hashable)


def top_k(scores: np.ndarray, k: int, ties: np.ndarray | None = None) -> np.ndarray:
    """``(min(k, n),) int64`` positions of the ``k`` highest of ``scores`` (``(n,)``, higher is
    better), best first; equal scores are ordered by ``ties[position]`` ascending (default: the
    position itself), also at the k-th place, so the result never depends on ``argpartition``'s
    internals. ``k`` ≤ 0 gives an empty array. O(n + k log k)."""
    k = min(int(k), scores.shape[0])
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)  # the k-th place goes to the smallest tie keys among these
    need = k - above.shape[0]
    keys = tied if ties is None else ties[tied]
    if tied.shape[0] > need:
        tied = tied[np.argpartition(keys, need - 1)[:need]]
    top = np.concatenate([above, tied])
    tie = top if ties is None else ties[top]
    return top[np.lexsort((tie, -scores[top]))].astype(np.int64)


def diversify_sources(fused: list[tuple[Item, float]], source_of: dict[Item, Source] | Callable[[Item], Source],
                      per_source: int, factor: float = 0.0) -> list[tuple[Item, float]]:
    """Limit how many chunks of one guide lead the ranking ("source crowding", as web search
    limits results per host): walking ``fused`` best first, the chunks of a source beyond its
    first ``per_source`` are crowded. With ``factor`` 0 they are moved, in order, after every
    chunk that was not moved; with ``factor`` in (0, 1] each is placed as if its score were
    ``factor`` × its score ("soft" crowding: a guide's third chunk far ahead of every other
    guide's keeps its place, one about as good as theirs waits). Nothing is dropped and the
    scores returned are unchanged; ``per_source <= 0`` returns ``fused`` as it is.

    ``source_of`` maps a chunk id to its source id (a dict or a function); any item and source
    will do (guide search ranks rows by guide path). Scores are higher-is-better.
    """
    if per_source <= 0:
        return list(fused)
    lookup = source_of.__getitem__ if isinstance(source_of, dict) else source_of
    seen: dict[Source, int] = {}
    kept: list[tuple[Item, float]] = []
    moved: list[tuple[Item, float]] = []
    for item in fused:
        source = lookup(item[0])
        seen[source] = seen.get(source, 0) + 1
        (kept if seen[source] <= per_source else moved).append(item)
    if factor <= 0 or not moved:
        return kept + moved
    # Merge, keeping each list's order: a crowded chunk goes before the first kept chunk whose
    # score is below factor x its own (kept chunks first on a tie; a negative score, which
    # additive fusion can give, is lowered by the same share of its size).
    merged: list[tuple[Item, float]] = []
    waiting = list(moved)

    def lowered(score: float) -> float:  # factor x score, also below the score when it is negative
        return score - (1.0 - factor) * abs(score)

    for item in kept:
        while waiting and lowered(waiting[0][1]) > item[1]:
            merged.append(waiting.pop(0))
        merged.append(item)
    return merged + waiting
