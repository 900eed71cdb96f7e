"""Top-k selection shared by the lexical leg, the semantic leg and the bundle's KNN search."""

from __future__ import annotations

import numpy as np


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
