"""One question's records for :class:`~app.answer.answerer.Assistant`: the question checked as
typed, its clock and answers' maker (:class:`_Turn`), what the model is asked with
(:class:`_Asked`), the extractive evidence (:class:`_Evidence`), and the numbering of the passages
the model reads."""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Protocol

from ..errors import QuestionError
from ..records import Answer, Hit, Passage
from ..usertext import clean_user_text
from .replies import EXTRACTIVE_NOTE

MAX_QUESTION_CHARS = 2000


class _Answerer(Protocol):
    """What :class:`_Turn` reads of the assistant when it makes an answer (read then, not before:
    the lab's engine may fail during the reply)."""

    @property
    def model_name(self) -> str: ...

    @property
    def degraded(self) -> tuple[str, ...]: ...

    @property
    def engine(self) -> str: ...


def _checked_question(question: str, history: list[dict] | None) -> tuple[str, list]:
    """The question and history as typed, cleaned (:func:`clean_user_text`; the question also
    stripped). Raises :class:`QuestionError` for an empty question or one over
    :data:`MAX_QUESTION_CHARS` characters."""
    question = clean_user_text(question or "").strip()
    cleaned = [dict(m, content=clean_user_text(str(m.get("content", "")))) if isinstance(m, dict) else m
               for m in (history or [])]
    if not question:
        raise QuestionError("The question is empty; type a question about the course.")
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionError(f"The question is {len(question):,} characters long; the limit is "
                            f"{MAX_QUESTION_CHARS:,}. Shorten it to the part you need answered.")
    return question, cleaned


def _shown_numbers(sent: list[Passage], evidence: list[Passage], hits: list[Hit]) -> dict[int, int]:
    """Prompt number -> shown number for each passage the model reads (it reads them numbered
    1..m; the student sees the evidence's numbers). A prompt passage that is not yet evidence is
    appended to ``evidence`` (in place) with the next number."""
    number = {p.hit.key: p.n for p in evidence}
    for p in sent:
        if p.hit.key not in number:
            extra = Passage(len(evidence) + 1, hits[[h.key for h in hits].index(p.hit.key)])
            evidence.append(extra)
            number[p.hit.key] = extra.n
    return {p.n: number[p.hit.key] for p in sent}


@dataclasses.dataclass
class _Turn:
    """One question's clock and its answers' maker: :meth:`since` is milliseconds since the
    question was accepted; :meth:`done` makes the :class:`Answer` with ``timings_ms["total"]``."""

    assistant: _Answerer
    corpus_version: str
    started: float = dataclasses.field(default_factory=time.perf_counter)

    def since(self) -> float:
        """Milliseconds since the question was accepted."""
        return (time.perf_counter() - self.started) * 1000

    def done(self, state: str, text: str, passages=(), citations=(), timings=None, checks=None,
             missing=()) -> Answer:
        """The answer in ``state``, with ``timings`` (ms) plus ``total`` now."""
        t = dict(timings or {})
        t["total"] = self.since()
        return Answer(state=state, text=text, passages=tuple(passages), citations=tuple(citations),
                      corpus_version=self.corpus_version, model=self.assistant.model_name,
                      degraded=self.assistant.degraded, timings_ms=t, checks=dict(checks or {}),
                      missing_terms=tuple(missing), engine=self.assistant.engine)


@dataclasses.dataclass
class _Asked:
    """What the model is asked with: the question, the previous user turn (``context``, '' if
    none), the cleaned history, the screened hits and the retrieval query."""

    question: str
    context: str
    history: list[dict]
    hits: list[Hit]
    query: str


@dataclasses.dataclass
class _Evidence:
    """The extractive answer: ``passages`` (the evidence shown, numbered from 1; the model's extra
    passages are appended), ``quoted`` (the quoted blocks' Markdown, blank-line separated) and
    ``cited`` (the quoted passages, then the sibling sections named)."""

    passages: list[Passage]
    quoted: str
    cited: list[Passage]
    note: str = EXTRACTIVE_NOTE

    @property
    def text(self) -> str:
        """The extractive answer's text: ``note`` (:data:`EXTRACTIVE_NOTE` in the course's language)
        above the quotes."""
        return f"{self.note}\n\n{self.quoted}"


def _squeeze(text: str) -> str:
    """A passage's text with the blank lines and long runs of spaces a blanked block leaves made
    one (the model reads no padding)."""
    return re.sub(r"[ \t]{40,}", " ", re.sub(r"\n[ \t]*\n(?:[ \t]*\n)*", "\n\n", text)).strip()
