"""The answerer: screen the question, retrieve, gate, show the evidence, then the model's verified words.

Order of work (DESIGN.md, "Evidence first"): as soon as retrieval is done, the extractive answer
(answer blocks of the best passages, each cited) is ready and handed to ``on_evidence``; only then
does the model run, and its reply is checked sentence by sentence as it streams
(:mod:`app.answer.verify`); each sentence that passes goes to ``on_sentence``. Nothing unverified
is ever handed out.

States: ``answered`` (verified sentences of the model above the quoted evidence),
``extractive`` (the quoted evidence alone: no model, or none of its sentences passed),
``not-covered`` (the evidence gate found no strong evidence; the nearest sections are listed and
the model is not asked), ``declined-off-topic`` and ``declined-injection``.
"""

from __future__ import annotations

import re
from typing import Callable

from ..errors import QuestionError
from ..ingest.screen import read_planted
from ..question import Question, parse_question
from ..records import Answer, Hit, Passage
from ..retrieval.retriever import Retrieval, Retriever
from .budget import ContextBudget, select_passages  # noqa: F401  (ContextBudget re-exported)
from .extractive import choose_quotes
from .guard import injection_kind, is_off_topic, mask_spans, planted_instructions, strip_soft_injection
from .llm import ChatModel
from .prompt import build_messages, clean_history
from .replies import (
    NOT_COVERED_TEXT,  # noqa: F401  (re-exported)
    not_covered_text,
    reply_text,
    sibling_sections,
)
from .scorers import RelevanceScorer
from .settings import AnswerSettings
from .streaming import ReplyCheck, stream_checked
from .turn import (  # noqa: F401  (MAX_QUESTION_CHARS re-exported)
    MAX_QUESTION_CHARS,
    _Asked,
    _checked_question,
    _Evidence,
    _shown_numbers,
    _squeeze,
    _Turn,
)

SEARCH_ONLY = "search-only"
#: Passages the extractive answer may quote from (more than the model's prompt budget holds: on IoT
#: an expected phrase is in the six whole chunks for 41 of 46 questions, in the budget's four trimmed
#: passages for 37; docs/answers.md).
EVIDENCE_PASSAGES = 6

class Assistant:
    """Answers questions from one bundle. ``llm=None`` runs in the ``search-only`` state."""

    def __init__(self, retriever: Retriever, llm: ChatModel | None, budget: ContextBudget | None = None) -> None:
        self.retriever = retriever
        self.llm = llm
        self.budget = budget or ContextBudget()
        self._titles = {s.path: s.title for s in retriever.bundle.sources()}
        self._guides: dict[str, str] = {}
        # Blocks of the guides that address the assistant (app/ingest/screen.py): those the build
        # recorded; a bundle built before screening records none, and its guides are screened here,
        # each once, when first needed (about 0.5 s per million characters: on IoT it doubled the
        # first answers' time, median 38 -> 83 ms, so a recorded list is not screened again).
        recorded = read_planted(retriever.bundle.meta)
        self._screen_now = recorded is None
        self._recorded: dict[str, list[tuple[int, int]]] = {}
        for block in recorded or []:
            self._recorded.setdefault(block.source, []).append((block.start, block.end))
        self._planted: dict[str, list[tuple[int, int]]] = {}
        self.language = retriever.language  # the replies' language; its rules read the question (app/i18n)
        self.stemmer = retriever.stemmer  # the course's words' stemmer (app/text/tokenize.py): quotes cut with it
        self._quote_settings = AnswerSettings(language=self.language, stemmer=self.stemmer,
                                              partial_list_note=reply_text("partial_list", self.language))

    @property
    def degraded(self) -> tuple[str, ...]:
        if self.llm is None:
            return self.retriever.degraded + (SEARCH_ONLY,)
        return self.retriever.degraded + tuple(getattr(self.llm, "degraded", ()))  # the lab's engine failed

    @property
    def engine(self) -> str:
        """Who runs the chat model: ``in-app``, ``remote http://host:port`` (app/answer/remote.py), '' for none."""
        return getattr(self.llm, "engine_label", "in-app") if self.llm is not None else ""

    @property
    def model_name(self) -> str:
        return self.llm.name if self.llm is not None else ""

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for the loaded model (about 4 characters a token without one)."""
        return self.llm.count_tokens(text) if self.llm is not None else max(1, len(text) // 4)

    def select_passages(self, hits, question: str = "") -> list[Passage]:
        """The passages that would be sent for ``hits``: trimmed and within the token budget."""
        return select_passages(hits, question, self.budget, self.count_tokens, self.stemmer)

    def _fit_messages(self, llm: ChatModel, question: str, passages: list[Passage],
                      history: list[dict]) -> tuple[list[dict], list[Passage]]:
        """Messages whose prompt fits ``llm``'s context window with room for the answer, dropping the
        last passages if needed. Raises :class:`QuestionError` when even the question alone does not fit."""
        limit = llm.n_ctx - self.budget.answer_tokens
        while True:
            messages = build_messages(question, passages, self._titles, history)
            if llm.prompt_tokens(messages) <= limit:
                return messages, passages
            if history:
                history = history[2:]
            elif len(passages) > 1:
                passages = passages[:-1]
            else:
                raise QuestionError(f"The question is too long for the model's {llm.n_ctx:,}-token context "
                                    "window; shorten it to the part you need answered.")

    def _outline(self) -> tuple[str, list[Passage]] | None:
        """The course's lessons as a numbered list of their guides' titles, each citing the
        lesson guide's first chunk; None when the course is not laid out in numbered lesson
        folders with index guides (:meth:`FolderIndex.lessons`), or has fewer than two."""
        bundle = self.retriever.bundle
        firsts = bundle.first_chunks
        lessons = [(path, title) for path, title in self.retriever.folder_index.lessons() if path in firsts]
        if len(lessons) < 2:
            return None
        rows = bundle.chunks([firsts[path] for path, _ in lessons])
        passages = [Passage(n, Hit(rows[firsts[path]], 1.0)) for n, (path, _) in enumerate(lessons, 1)]
        items = "\n".join(f"{n}. {title} [{n}]" for n, (_, title) in enumerate(lessons, 1))
        note = reply_text("from_guides", self.language)
        return f"{reply_text('outline', self.language, from_guides=note, count=len(lessons))}\n\n{items}", passages

    def _guide_text(self, path: str) -> str:
        """A guide's whole text with its planted blocks blanked (:meth:`planted_spans`; cached; used
        to give a table row its header and a list its continuation)."""
        if path not in self._guides:
            text = self.retriever.bundle.source_text(path)
            found = planted_instructions(text) if self._screen_now else []
            self._planted[path] = sorted(set(self._recorded.get(path, [])) | set(found))
            self._guides[path] = mask_spans(text, self._planted[path])
        return self._guides[path]

    def planted_spans(self, path: str) -> list[tuple[int, int]]:
        """Character spans of the guide ``path`` that address the assistant and are never quoted nor
        sent to the model: those the build recorded in the bundle, or for a bundle built before
        screening, those :func:`~app.answer.guard.planted_instructions` finds now."""
        if path not in self._planted:
            if not self._screen_now:  # no need to read the guide
                self._planted[path] = sorted(set(self._recorded.get(path, [])))
            else:
                self._guide_text(path)
        return self._planted[path]

    def screen_hits(self, hits) -> list[Hit]:
        """``hits`` with every planted block (:meth:`planted_spans`) blanked out of their text (spaces,
        so spans still line up with the guide); a hit left with no word is dropped."""
        kept = []
        for hit in hits:
            spans = [(a, b) for a, b in self.planted_spans(hit.source) if a < hit.span[1] and b > hit.span[0]]
            if spans:
                hit = hit.with_text(mask_spans(hit.text, spans, hit.span[0]))
                if not re.search(r"\w", hit.text):
                    continue
            kept.append(hit)
        return kept

    def _similarity(self, question: str) -> Callable[[list[str]], list[float]] | None:
        """Cosine similarity (-1..1, higher is more alike) of ``question`` to each of some texts, with
        the bundle's embedding model; None in ``keyword-only`` (no embedder)."""
        embedder = self.retriever.embedder
        if embedder is None:
            return None

        def similarity(texts: list[str]) -> list[float]:
            asked = self.retriever.question_vector(question)  # embedded by the search already
            return [float(v) for v in self.retriever.block_vectors.vectors(texts, self.retriever.embed_blocks) @ asked]
        return similarity

    def _relevance_scorers(self, question: str) -> list[RelevanceScorer]:
        """The ``relevance`` block scorer with the retriever's relevance model; [] without one."""
        model = self.retriever.relevance
        if model is None or "blocks" not in getattr(model, "uses", ("blocks",)):
            return []
        return [RelevanceScorer(lambda texts: [float(p) for p in model.score(question, texts).probability],
                                self._quote_settings)]

    def answer(self, question: str, history: list[dict] | None = None, *,
               on_evidence: Callable[[Answer], None] | None = None,
               on_sentence: Callable[[str], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> Answer:
        """Answer one question.

        ``on_evidence(answer)`` receives the extractive answer (state ``extractive``, its passages
        and citations) as soon as retrieval is done, before the model runs; ``on_sentence(text)``
        receives each of the model's sentences that passed every check, in order, with citation
        markers numbered as in ``answer.passages``. ``should_stop()`` turning true ends generation
        (the verified sentences so far are kept). ``timings_ms`` of the result: ``retrieval``,
        ``evidence`` (question received to extractive answer ready), ``first_token``,
        ``first_verified`` and ``total``, all from the question's arrival (ms; a stage that did not
        run is absent). Raises :class:`QuestionError` for an empty or over-long question.

        Steps: :func:`_checked_question`, :meth:`_screen_question` (declined?),
        :meth:`_outline_answer`, retrieval and :meth:`screen_hits` (:meth:`_not_covered`?),
        :meth:`_quote_evidence`, then :meth:`_model_answer`.
        """
        question, history = _checked_question(question, history)
        begin = getattr(self.llm, "begin_reply", None)  # a reply's own state (the lab's engine: app/answer/remote.py)
        if begin is not None:
            begin()
        turn = _Turn(self, self.retriever.bundle.corpus_version)
        question, declined = self._screen_question(question, turn)
        if declined is not None:
            return declined
        history = clean_history(history)
        parsed = parse_question(question, history, self.language)
        outline = self._outline_answer(parsed, turn)
        if outline is not None:
            return outline
        retrieval = self.retriever.search(question, k=10, history=history)
        hits = self.screen_hits(retrieval.hits)  # planted instructions are never quoted nor sent
        timings = dict(retrieval.timings_ms)
        timings["retrieval"] = turn.since()
        if not retrieval.has_evidence or not hits:
            return self._not_covered(question, retrieval, hits, timings, turn)
        context = parsed.context
        found = self._quote_evidence(question, hits, context)
        if not found.cited:
            return turn.done("not-covered", reply_text("not_covered", self.language), found.passages[:3], (), timings)
        timings["evidence"] = turn.since()
        if on_evidence is not None:
            on_evidence(turn.done("extractive", found.text, found.passages, found.cited, timings))
        if self.llm is None or (should_stop is not None and should_stop()):
            return turn.done("extractive", found.text, found.passages, found.cited, timings)
        asked = _Asked(question, context, history, hits, retrieval.query)
        return self._model_answer(self.llm, asked, found, turn, timings, on_sentence, should_stop)

    def _screen_question(self, question: str, turn: _Turn) -> tuple[str, Answer | None]:
        """The question to answer (a soft injection stripped, :func:`strip_soft_injection`) and
        None, or the question and the declined answer: ``declined-injection`` for a hard
        injection, ``declined-off-topic`` for a request that is not about the course."""
        kind = injection_kind(question, self.language)
        if kind == "hard":
            return question, turn.done("declined-injection", reply_text("injection", self.language))
        if kind == "soft":
            question = strip_soft_injection(question, self.language) or question
        if is_off_topic(question, self.language):
            return question, turn.done("declined-off-topic", reply_text("off_topic", self.language))
        return question, None

    def _outline_answer(self, question: Question, turn: _Turn) -> Answer | None:
        """For a question about the course's outline (:attr:`Question.outline`), the extractive
        answer listing its lessons (:meth:`_outline`); None for any other question, or a course
        without numbered lesson folders."""
        if not question.outline:
            return None
        outline = self._outline()
        if not outline:
            return None
        text, passages = outline
        return turn.done("extractive", text, passages, passages, {"evidence": turn.since()})

    def _not_covered(self, question: str, retrieval: Retrieval, hits: list[Hit], timings: dict,
                     turn: _Turn) -> Answer:
        """The ``not-covered`` answer: :func:`not_covered_text`, the three nearest hits as its
        passages (none cited), and the names the course never mentions as ``missing_terms``."""
        nearest = [Passage(n, h) for n, h in enumerate(hits[:3], 1)]
        text = not_covered_text(retrieval, question, self.language)
        return turn.done("not-covered", text, nearest, (), timings, missing=retrieval.unknown_names)

    def _quote_evidence(self, question: str, hits: list[Hit], context: str) -> _Evidence:
        """The extractive answer from the first :data:`EVIDENCE_PASSAGES` hits: the blocks
        :func:`choose_quotes` picks, then the line naming their sibling sections
        (:func:`sibling_sections`); ``cited`` is empty when nothing is worth quoting."""
        evidence = [Passage(n, h) for n, h in enumerate(hits[:EVIDENCE_PASSAGES], 1)]
        quotes = choose_quotes(question, evidence, context=context, guide_text=self._guide_text,
                               similarity=self._similarity(question), word_weight=self.retriever.lexical_index.idf,
                               settings=self._quote_settings, scorers=self._relevance_scorers(question))
        quoted, cited = "\n\n".join(q.markdown for q in quotes), [q.passage for q in quotes]
        note = reply_text("from_guides", self.language)
        if not cited:
            return _Evidence(evidence, quoted, cited, note)
        siblings = sibling_sections(cited, evidence, self.language)
        if siblings:
            line, more = siblings
            quoted, cited = f"{quoted}\n\n{line}", cited + more
        return _Evidence(evidence, quoted, cited, note)

    def _prompt_passages(self, hits: list[Hit], query: str) -> list[Passage]:
        """The passages for the model's prompt (:meth:`select_passages` for the retrieval query),
        a passage with a planted block blanked out squeezed (:func:`_squeeze`)."""
        masked = {h.key for h in hits if any(a < h.span[1] and b > h.span[0] for a, b in self.planted_spans(h.source))}
        return [Passage(p.n, p.hit.with_text(_squeeze(p.hit.text))) if p.hit.key in masked else p
                for p in self.select_passages(hits, query)]

    def _model_answer(self, llm: ChatModel, asked: _Asked, found: _Evidence, turn: _Turn, timings: dict,
                      on_sentence: Callable[[str], None] | None,
                      should_stop: Callable[[], bool] | None) -> Answer:
        """The model's verified sentences above the extractive answer (``answered``), or the
        extractive answer alone when the question does not fit the model's context or none of
        its sentences passed (``extractive``). Sets ``timings["generate"]`` (ms from the evidence
        to the reply's end) when the model ran."""
        try:
            messages, sent = self._fit_messages(llm, asked.question, self._prompt_passages(asked.hits, asked.query),
                                                asked.history)
        except QuestionError:  # the evidence stands; the model cannot read this question
            return turn.done("extractive", found.text, found.passages, found.cited, timings)
        shown_n = _shown_numbers(sent, found.passages, asked.hits)
        blocks = [b for b in found.quoted.split("\n\n") if b.strip()]
        check = ReplyCheck(sent, blocks, f"{asked.context}\n{asked.question}", shown_n, turn.since, timings,
                           on_sentence, stemmer=self.stemmer)
        stream_checked(llm, messages, self.budget.answer_tokens, should_stop, check)
        timings["generate"] = turn.since() - timings["evidence"]
        if not check.verified:
            return turn.done("extractive", found.text, found.passages, found.cited, timings, check.checks)
        by_n = {p.n: p for p in found.passages}
        citations = [by_n[n] for n in check.cited] + [p for p in found.cited if p.n not in check.cited]
        text = " ".join(check.verified) + "\n\n" + found.text
        return turn.done("answered", text, found.passages, citations, timings, check.checks)
