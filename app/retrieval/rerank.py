"""Re-ranking the fused candidates with the relevance model (issue 24).

The cross-encoder (:mod:`app.retrieval.relevance`) reads the question and each of the first
``depth`` fused chunks together and gives the probability that the chunk answers the question. The
window is re-ordered by a blend of that probability and the fused score (min-max normalised over the
window), so a chunk the legs agreed on is not thrown away on one low model score:

    blended = weight * probability + (1 - weight) * normalised fused score

Chunks after the window keep their fused order after every chunk of the window. With
``weight = 0`` the order is the fused order. Scores are "higher is better" throughout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np


class Relevance(Protocol):
    """What re-ranking needs of :class:`~app.retrieval.relevance.RelevanceModel`."""

    def score(self, question: str, passages: Sequence[str]): ...


def rerank(question: str, fused: list[tuple[int, float]], text_of: Callable[[int], str], model: Relevance,
           depth: int, weight: float) -> list[tuple[int, float]]:
    """``fused`` (``[(chunk id, fused score)]``, best first) with its first ``depth`` re-ordered by
    the blended score above; the returned scores are the blended ones (in [0, 1]) for the window and
    below every one of them, in the old order, for the rest. ``text_of`` gives a chunk's indexed text.
    ``depth <= 0``, ``weight <= 0`` or fewer than two chunks: ``fused`` unchanged. Raises nothing the
    model does not raise."""
    window = fused[:max(depth, 0)]
    if len(window) < 2 or weight <= 0:
        return fused
    probability = np.asarray(model.score(question, [text_of(cid) for cid, _ in window]).probability, dtype=np.float64)
    scores = np.array([s for _, s in window], dtype=np.float64)
    span = float(scores.max() - scores.min())
    normalised = (scores - scores.min()) / span if span > 0 else np.ones_like(scores)
    blended = weight * probability + (1.0 - weight) * normalised
    order = sorted(range(len(window)), key=lambda i: (-blended[i], i))
    head = [(window[i][0], float(blended[i])) for i in order]
    floor = float(blended.min())
    tail = [(cid, floor - 1e-6 * (n + 1)) for n, (cid, _) in enumerate(fused[len(window):])]
    return head + tail
