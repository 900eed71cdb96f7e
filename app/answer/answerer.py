"""The answerer: screen the question, retrieve, gate, budget, generate, check citations.

States (DESIGN.md): ``answered`` (the model's answer with checked, supported
citations), ``extractive`` (the best passages' sentences, cited, when the model is
missing or its answer could not be checked), ``not-covered`` (the evidence gate found no
strong evidence; the nearest sections are listed and the model is not asked),
``declined-off-topic`` and ``declined-injection``.
"""

from __future__ import annotations

import time
from typing import Callable

from ..errors import QuestionError
from ..records import Answer, Passage
from ..retrieval.retriever import Retriever, previous_user_turn
from .budget import ContextBudget, select_passages  # noqa: F401  (ContextBudget re-exported)
from .citations import check_citations
from .extractive import extractive_answer, supported_sentences
from .guard import injection_kind, is_off_topic, strip_soft_injection
from .llm import ChatModel
from .prompt import build_messages, clean_history

SEARCH_ONLY = "search-only"
MAX_QUESTION_CHARS = 2000
#: An answer sentence must share at least this share of its distinct words with the passages it
#: cites (all sent passages when it cites none), or it is removed as unsupported.
MIN_SUPPORT = 0.6

NOT_COVERED_TEXT = "The guides don't cover this. The nearest sections are listed below."


def _shorten(name: str, limit: int = 40) -> str:
    """``name`` cut to ``limit`` characters with "…" (a pasted 300-character word stays readable)."""
    return name if len(name) <= limit else name[:limit - 1] + "…"


def not_covered_text(retrieval) -> str:
    """The not-covered reply, saying why when the gate knows: names the guides never mention,
    or a guide the question names that has no text."""
    if retrieval.empty_guides:
        return (f"The guide {retrieval.empty_guides[0]} has no text yet, so the guides don't cover this. "
                "The nearest sections are listed below.")
    if retrieval.unknown_names:
        names = ", ".join(f"“{_shorten(n)}”" for n in retrieval.unknown_names[:3])
        return f"The guides don't cover this: they never mention {names}. The nearest sections are listed below."
    return NOT_COVERED_TEXT
OFF_TOPIC_TEXT = ("I can only help with this course. That request isn't about the course guides, "
                  "so I'll leave it there; ask me anything about the lessons.")
INJECTION_TEXT = ("I can't do that: I answer questions about the course from its guides and keep my rules "
                  "and setup private. Ask me about the lessons and I'll point you to the right guide.")
EXTRACTIVE_NOTE = "From the guides (the most relevant passages):"


class Assistant:
    """Answers questions from one bundle. ``llm=None`` runs in the ``search-only`` state."""

    def __init__(self, retriever: Retriever, llm: ChatModel | None, budget: ContextBudget | None = None) -> None:
        self.retriever = retriever
        self.llm = llm
        self.budget = budget or ContextBudget()
        self._titles = {s.path: s.title for s in retriever.bundle.sources()}

    @property
    def degraded(self) -> tuple[str, ...]:
        return self.retriever.degraded + (() if self.llm is not None else (SEARCH_ONLY,))

    @property
    def model_name(self) -> str:
        return self.llm.name if self.llm is not None else ""

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for the loaded model (about 4 characters a token without one)."""
        return self.llm.count_tokens(text) if self.llm is not None else max(1, len(text) // 4)

    def select_passages(self, hits, question: str = "") -> list[Passage]:
        """The passages that would be sent for ``hits``: trimmed and within the token budget."""
        return select_passages(hits, question, self.budget, self.count_tokens)

    def _fit_messages(self, question: str, passages: list[Passage], history: list[dict]):
        """Messages whose prompt fits the context window with room for the answer, dropping the
        last passages if needed. Raises :class:`QuestionError` when even the question alone does not fit."""
        limit = self.llm.n_ctx - self.budget.answer_tokens
        while True:
            messages = build_messages(question, passages, self._titles, history)
            if self.llm.prompt_tokens(messages) <= limit:
                return messages, passages
            if history:
                history = history[2:]
            elif len(passages) > 1:
                passages = passages[:-1]
            else:
                raise QuestionError(f"The question is too long for the model's {self.llm.n_ctx:,}-token context "
                                    "window; shorten it to the part you need answered.")

    def answer(self, question: str, history: list[dict] | None = None, *,
               on_passages: Callable[[list[Passage]], None] | None = None,
               on_token: Callable[[str], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> Answer:
        """Answer one question. Raises :class:`QuestionError` for an empty or over-long question."""
        question = (question or "").strip()
        if not question:
            raise QuestionError("The question is empty; type a question about the course.")
        if len(question) > MAX_QUESTION_CHARS:
            raise QuestionError(f"The question is {len(question):,} characters long; the limit is "
                                f"{MAX_QUESTION_CHARS:,}. Shorten it to the part you need answered.")
        version = self.retriever.bundle.corpus_version
        started = time.perf_counter()

        def done(state: str, text: str, passages=(), citations=(), timings=None) -> Answer:
            t = dict(timings or {})
            t["total"] = (time.perf_counter() - started) * 1000
            return Answer(state=state, text=text, passages=tuple(passages), citations=tuple(citations),
                          corpus_version=version, model=self.model_name, degraded=self.degraded, timings_ms=t)

        kind = injection_kind(question)
        if kind == "hard":
            return done("declined-injection", INJECTION_TEXT)
        if kind == "soft":
            question = strip_soft_injection(question) or question
        if is_off_topic(question):
            return done("declined-off-topic", OFF_TOPIC_TEXT)

        history = clean_history(history)
        retrieval = self.retriever.search(question, k=10, history=history)
        timings = dict(retrieval.timings_ms)
        if not retrieval.has_evidence or not retrieval.hits:
            nearest = [Passage(n, h) for n, h in enumerate(retrieval.hits[:3], 1)]
            return done("not-covered", not_covered_text(retrieval), nearest, (), timings)

        passages = self.select_passages(retrieval.hits, retrieval.query)
        if self.llm is not None:
            messages, passages = self._fit_messages(question, passages, history)
        if on_passages is not None:
            on_passages(passages)
        if self.llm is not None:
            t0 = time.perf_counter()
            pieces: list[str] = []
            for piece in self.llm.stream(messages, self.budget.answer_tokens, should_stop):
                if not pieces:
                    timings["first_token"] = (time.perf_counter() - t0) * 1000
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
            timings["generate"] = (time.perf_counter() - t0) * 1000
            text, cited_numbers = check_citations("".join(pieces), len(passages))
            if cited_numbers:
                text, cited_numbers = supported_sentences(text, passages, MIN_SUPPORT)
            if cited_numbers:
                return done("answered", text, passages, [passages[n - 1] for n in cited_numbers], timings)
        text, cited = extractive_answer(question, passages, context=previous_user_turn(history))
        if not cited:
            return done("not-covered", NOT_COVERED_TEXT, passages[:3], (), timings)
        return done("extractive", f"{EXTRACTIVE_NOTE}\n\n{text}", passages, cited, timings)
