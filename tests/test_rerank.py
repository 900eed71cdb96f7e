"""Re-ranking the fused candidates with the relevance model (app/retrieval/rerank.py): a fake model
whose probability is given per passage text, so the blend and the window are checked exactly."""

from __future__ import annotations

import numpy as np

from app.retrieval.relevance import Scores
from app.retrieval.rerank import rerank

TEXTS = {1: "one", 2: "two", 3: "three", 4: "four"}


class TableModel:
    def __init__(self, table: dict[str, float]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def score(self, question, passages):
        self.calls.append(list(passages))
        return Scores(np.array([self.table[p] for p in passages], dtype=np.float32), 0)


FUSED = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.1)]


def test_a_chunk_the_model_calls_the_answer_moves_up_within_the_window():
    model = TableModel({"one": 0.0, "two": 0.1, "three": 1.0})
    out = rerank("q", FUSED, TEXTS.__getitem__, model, depth=3, weight=0.7)
    assert [cid for cid, _ in out] == [3, 1, 2, 4]
    assert model.calls == [["one", "two", "three"]]  # only the window is scored


def test_chunks_after_the_window_keep_their_order_after_every_window_chunk():
    model = TableModel({"one": 0.0, "two": 0.0})
    out = rerank("q", FUSED, TEXTS.__getitem__, model, depth=2, weight=1.0)
    assert [cid for cid, _ in out][2:] == [3, 4]
    assert max(s for _, s in out[2:]) < min(s for _, s in out[:2])


def test_weight_zero_or_no_depth_leaves_the_fused_order():
    model = TableModel({"one": 0.0, "two": 1.0, "three": 1.0, "four": 1.0})
    assert rerank("q", FUSED, TEXTS.__getitem__, model, depth=4, weight=0.0) == FUSED
    assert rerank("q", FUSED, TEXTS.__getitem__, model, depth=0, weight=0.5) == FUSED
    assert model.calls == []


def test_the_fused_score_still_counts_when_the_model_is_unsure():
    # equal probabilities: the blend falls back on the fused order
    model = TableModel({"one": 0.5, "two": 0.5, "three": 0.5})
    out = rerank("q", FUSED, TEXTS.__getitem__, model, depth=3, weight=0.5)
    assert [cid for cid, _ in out] == [1, 2, 3, 4]
