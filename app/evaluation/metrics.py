"""Ranking metrics over one ranked list, as pure functions. Higher is better for all.

A ranked list is given as ``relevant``: a sequence of booleans, one per hit, best
first (``relevant[i]`` is True when the hit at rank ``i + 1`` is relevant). Relevance
itself is decided by :func:`source_relevance` or :func:`section_relevance`, which
follow the question format of ../shared/README.md.

Definitions follow Manning, Raghavan & Schütze, *Introduction to Information
Retrieval* (2008), ch. 8, and Järvelin & Kekäläinen, "Cumulated gain-based evaluation
of IR techniques", ACM TOIS 20(4), 2002 (nDCG with binary gains and a log2 discount).
"""

from __future__ import annotations

import math
import re
from typing import Sequence

from ..records import HEADING_SEPARATOR


def hit_at_k(relevant: Sequence[bool], k: int) -> float:
    """Hit@k (success@k): 1.0 when a relevant item is among the first ``k``, else 0.0."""
    return 1.0 if any(relevant[:k]) else 0.0


def first_relevant_rank(relevant: Sequence[bool]) -> int | None:
    """The 1-based rank of the first relevant item, or None."""
    return next((i for i, r in enumerate(relevant, 1) if r), None)


def reciprocal_rank(relevant: Sequence[bool], k: int = 10) -> float:
    """RR@k = 1 / rank of the first relevant item within the first ``k``, else 0.0.

    Averaged over questions this is MRR@k (Voorhees, TREC-8 QA track, 1999).
    """
    rank = first_relevant_rank(relevant[:k])
    return 1.0 / rank if rank else 0.0


def ndcg_at_k(gains: Sequence[float], k: int, n_relevant: int) -> float:
    """nDCG@k = DCG@k / IDCG@k with ``DCG@k = sum_{i=1..k} gain_i / log2(i + 1)``.

    ``gains`` are per-rank gains (0 or 1 here); ``n_relevant`` is how many relevant
    items exist, so the ideal ranking puts ``min(n_relevant, k)`` gains of 1 first.
    Returns 0.0 when ``n_relevant`` is 0. Raises ``ValueError`` for ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    if n_relevant <= 0:
        return 0.0
    dcg = sum(g / math.log2(i + 1) for i, g in enumerate(gains[:k], 1))
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(n_relevant, k) + 1))
    return dcg / ideal


def novel_source_gains(sources: Sequence[str], expected: Sequence[str]) -> list[float]:
    """Binary gains for nDCG where each expected *source* is one relevant item: a hit
    gains 1 the first time its source (one of ``expected``) appears, later chunks of the
    same source gain 0, so nDCG stays in [0, 1] with ``n_relevant = len(set(expected))``."""
    wanted, seen, gains = set(expected), set(), []
    for source in sources:
        fresh = source in wanted and source not in seen
        seen.add(source)
        gains.append(1.0 if fresh else 0.0)
    return gains


def normalize_heading(text: str) -> str:
    """Heading text compared ignoring case and runs of whitespace."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def section_matches(heading_path: str, expected_section: str) -> bool:
    """True when ``expected_section`` equals (ignoring case and runs of spaces) any heading
    of ``heading_path`` (headings joined with `` › ``, as in :class:`app.records.Hit`)."""
    wanted = normalize_heading(expected_section)
    return any(normalize_heading(h) == wanted for h in heading_path.split(HEADING_SEPARATOR))


def source_relevance(sources: Sequence[str], expected: Sequence[str]) -> list[bool]:
    """Per hit: its source is one of the expected sources."""
    wanted = set(expected)
    return [s in wanted for s in sources]


def section_relevance(sources: Sequence[str], headings: Sequence[str], expected: Sequence[str],
                      expected_section: str) -> list[bool]:
    """Per hit: its source is expected *and* its heading path contains the expected section."""
    wanted = set(expected)
    return [s in wanted and section_matches(h, expected_section) for s, h in zip(sources, headings)]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) with linear interpolation between order statistics
    (numpy's default, Hyndman & Fan type 7); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def precision_recall(predicted: Sequence[bool], actual: Sequence[bool]) -> tuple[float, float]:
    """Precision and recall of binary predictions against the truth (NaN when undefined)."""
    tp = sum(p and a for p, a in zip(predicted, actual))
    n_pred, n_true = sum(predicted), sum(actual)
    return (tp / n_pred if n_pred else float("nan"), tp / n_true if n_true else float("nan"))
