"""Run every question of a question file through the retriever, once per mode.

Modes: ``hybrid`` (the retriever's own legs and fusion, what the app runs), ``lexical``
(BM25 leg alone) and ``semantic`` (embedding leg alone; skipped in keyword-only mode).
For the hybrid mode the run also records which passages the answer stage would send
to the model: the question is screened like the answerer does (injection / off-topic
guard), the evidence gate must pass, and :meth:`Assistant.select_passages` applies the
context budget to the hits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..answer.answerer import Assistant, ContextBudget
from ..answer.guard import injection_kind, is_off_topic, strip_soft_injection
from ..retrieval.retriever import Retriever
from .questions import EvalQuestion

#: Depth of the ranked list every metric looks at (MRR@10, nDCG@10); the answerer also asks for 10.
RANK_DEPTH = 10
MODE_LEGS = {"hybrid": None, "lexical": ("lexical",), "semantic": ("semantic",)}


@dataclass(frozen=True)
class ModeRun:
    """One question in one mode: sources and heading paths of the hits, best first."""

    sources: tuple[str, ...]
    headings: tuple[str, ...]
    has_evidence: bool
    best_similarity: float | None
    exact_matches: int
    unknown_names: tuple[str, ...]
    timings_ms: dict = field(compare=False)


@dataclass(frozen=True)
class QuestionResult:
    """A question's runs by mode; ``guard`` is ``declined-injection``, ``declined-off-topic``
    or ``""``; ``sent`` are the ``(source, heading)`` of the passages the answerer would send."""

    question: EvalQuestion
    runs: dict
    guard: str
    sent: tuple[tuple[str, str], ...]


def available_modes(retriever: Retriever) -> tuple[str, ...]:
    """The modes this retriever can run (no semantic leg without a matching embedder)."""
    return ("hybrid", "lexical") if retriever.embedder is None else ("hybrid", "lexical", "semantic")


def run_questions(retriever: Retriever, questions: Iterable[EvalQuestion], *,
                  modes: tuple[str, ...] | None = None, budget: ContextBudget | None = None,
                  progress: Callable[[int, int], None] | None = None) -> list[QuestionResult]:
    """Run each question in every available mode. One warm-up search (not recorded) runs
    first so lazy loading does not count as latency. ``timings_ms`` gets a ``total``.
    ``modes`` limits the modes (``hybrid`` is always run, the report needs it)."""
    questions = list(questions)
    modes = tuple(m for m in available_modes(retriever) if modes is None or m in modes or m == "hybrid")
    assistant = Assistant(retriever, None, budget)
    retriever.search("warm-up query", k=RANK_DEPTH)
    results: list[QuestionResult] = []
    for done, q in enumerate(questions, 1):
        text, guard = q.question, ""
        kind = injection_kind(text, retriever.language)  # the course's language's screening too (app/i18n)
        if kind == "hard":
            guard = "declined-injection"
        elif kind == "soft":
            text = strip_soft_injection(text, retriever.language) or text
        if not guard and is_off_topic(text, retriever.language):
            guard = "declined-off-topic"
        runs: dict[str, ModeRun] = {}
        sent: tuple[tuple[str, str], ...] = ()
        for mode in modes:
            t0 = time.perf_counter()
            retrieval = retriever.search(text, k=RANK_DEPTH, history=list(q.history), legs=MODE_LEGS[mode])
            timings = dict(retrieval.timings_ms, total=(time.perf_counter() - t0) * 1000)
            runs[mode] = ModeRun(sources=tuple(h.source for h in retrieval.hits),
                                 headings=tuple(h.heading for h in retrieval.hits),
                                 has_evidence=retrieval.has_evidence, best_similarity=retrieval.best_similarity,
                                 exact_matches=retrieval.exact_matches,
                                 unknown_names=retrieval.unknown_names, timings_ms=timings)
            if mode == "hybrid" and not guard and retrieval.has_evidence:
                sent = tuple((p.hit.source, p.hit.heading) for p in assistant.select_passages(retrieval.hits, retrieval.query))
        results.append(QuestionResult(question=q, runs=runs, guard=guard, sent=sent))
        if progress is not None:
            progress(done, len(questions))
    return results
