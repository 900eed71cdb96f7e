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

import dataclasses
import logging
import re
import time
from typing import Callable

from ..errors import ModelError, QuestionError
from ..ingest.language import LANGUAGE_NAMES, question_language
from ..ingest.screen import read_planted
from ..records import HEADING_SEPARATOR, Answer, Hit, Passage, heading_leaf
from ..retrieval.retriever import Retriever, previous_user_turn
from ..usertext import clean_user_text
from .budget import ContextBudget, select_passages  # noqa: F401  (ContextBudget re-exported)
from .citations import is_citation
from .extractive import choose_quotes
from .guard import injection_kind, is_off_topic, mask_spans, planted_instructions, strip_soft_injection
from .llm import ChatModel
from .prompt import build_messages, clean_history
from .verify import MIN_SUPPORT, SentenceStream, check_sentence

log = logging.getLogger(__name__)

SEARCH_ONLY = "search-only"
MAX_QUESTION_CHARS = 2000
#: Passages the extractive answer may quote from (more than the model's prompt budget holds: on IoT
#: an expected phrase is in the six whole chunks for 41 of 46 questions, in the budget's four trimmed
#: passages for 37; docs/answers.md).
EVIDENCE_PASSAGES = 6

NOT_COVERED_TEXT = "The guides don't cover this. The nearest sections are listed below."


def _shorten(name: str, limit: int = 40) -> str:
    """``name`` cut to ``limit`` characters with "…" (a pasted 300-character word stays readable)."""
    return name if len(name) <= limit else name[:limit - 1] + "…"


def not_covered_text(retrieval, question: str = "", course_language: str = "") -> str:
    """The not-covered reply, saying why when the gate knows: a question in another language than
    the guides' (``course_language``, the bundle's tag; '' when unknown), names the guides never
    mention, or a guide the question names that has no text."""
    asked = question_language(question) if question and course_language else ""
    if asked and asked.split("-")[0] != course_language.split("-")[0]:
        guides = LANGUAGE_NAMES.get(course_language.split("-")[0], course_language)
        this = LANGUAGE_NAMES.get(asked, asked)
        return (f"The guides are in {guides} and this question seems to be in {this}, so I could not match it "
                f"to them. Ask it in {guides}; the nearest sections are listed below.")
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
EXTRACTIVE_NOTE = "From the guides:"
#: A question about the course's outline ("How many lessons are there?", "What does this course
#: cover?"): no one section answers it, so retrieval finds none (MiniLM similarity 0.20 on the demo
#: course); the lesson guides' titles, in course order, do.
_KINDS = r"(?:lessons|chapters|units|modules|projects|parts|topics)"
_OUTLINE = re.compile(
    rf"^\s*(?:how many {_KINDS}(?: are there| does (?:the|this) course have| (?:are )?in (?:the|this) course)?|"
    rf"what {_KINDS} (?:are there|are in (?:the|this) course|(?:does|do) (?:the|this) course (?:have|cover|include|contain))|"
    rf"(?:list|show me|give me|tell me)(?: all)?(?: of)? the {_KINDS}(?: of| in)?(?: (?:the|this) course)?|"
    r"what(?:'s|’s| is) in (?:this|the) course|what does (?:this|the) course (?:cover|teach|contain|include)|"
    rf"what (?:are|is) (?:the|this) course(?:'s|’s)? (?:{_KINDS}|structure|outline))\s*[?.!]*\s*$",
    re.IGNORECASE)


def sibling_sections(cited: list[Passage], evidence: list[Passage]) -> tuple[str, list[Passage]] | None:
    """A line naming the evidence passages that are other subsections of the same section as a quoted
    passage ("*Troubleshooting: the display stays blank* also covers: *Wrong I2C address* [6], …"),
    and those passages; None when there are none. A question such as "what should I check?" is
    answered by every item of a troubleshooting section, and only three are quoted. Only sections
    two levels or more below the guide's title count (a guide's top-level sections are not one list)."""
    def parent(p: Passage) -> tuple[str, str]:
        return p.hit.source, HEADING_SEPARATOR.join(p.hit.heading.split(HEADING_SEPARATOR)[:-1])

    groups = {parent(p) for p in cited if p.hit.heading.count(HEADING_SEPARATOR) >= 2}
    shown = {p.hit.key for p in cited} | {(p.hit.source, p.hit.heading) for p in cited}
    more: list[Passage] = []
    for p in evidence:
        if (parent(p) in groups and p.hit.key not in shown and (p.hit.source, p.hit.heading) not in shown
                and p.hit.heading.count(HEADING_SEPARATOR) >= 2):
            shown.add((p.hit.source, p.hit.heading))
            more.append(p)
    if not more:
        return None
    section = heading_leaf(parent(more[0])[1])
    items = ", ".join(f"*{heading_leaf(p.hit.heading)}* [{p.n}]" for p in more)
    return f"*{section}* also covers: {items}.", more


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
        passages = [Passage(n, Hit(chunk_id=cid, key=row.key, source=row.source, heading=row.heading,
                                   anchor=row.anchor, span=row.span, text=row.text, score=1.0))
                    for n, (cid, row) in enumerate(((firsts[path], rows[firsts[path]]) for path, _ in lessons), 1)]
        items = "\n".join(f"{n}. {title} [{n}]" for n, (_, title) in enumerate(lessons, 1))
        return f"{EXTRACTIVE_NOTE} the course has {len(lessons)} lessons, by their guides' titles:\n\n{items}", passages

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
                hit = dataclasses.replace(hit, text=mask_spans(hit.text, spans, hit.span[0]))
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
            return [float(v) for v in embedder.embed(texts) @ asked]
        return similarity

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
        """
        question = clean_user_text(question or "").strip()
        history = [dict(m, content=clean_user_text(str(m.get("content", "")))) if isinstance(m, dict) else m
                   for m in (history or [])]
        if not question:
            raise QuestionError("The question is empty; type a question about the course.")
        if len(question) > MAX_QUESTION_CHARS:
            raise QuestionError(f"The question is {len(question):,} characters long; the limit is "
                                f"{MAX_QUESTION_CHARS:,}. Shorten it to the part you need answered.")
        version = self.retriever.bundle.corpus_version
        started = time.perf_counter()

        def since() -> float:
            return (time.perf_counter() - started) * 1000

        def done(state: str, text: str, passages=(), citations=(), timings=None, checks=None,
                 missing=()) -> Answer:
            t = dict(timings or {})
            t["total"] = since()
            return Answer(state=state, text=text, passages=tuple(passages), citations=tuple(citations),
                          corpus_version=version, model=self.model_name, degraded=self.degraded, timings_ms=t,
                          checks=dict(checks or {}), missing_terms=tuple(missing))

        kind = injection_kind(question)
        if kind == "hard":
            return done("declined-injection", INJECTION_TEXT)
        if kind == "soft":
            question = strip_soft_injection(question) or question
        if is_off_topic(question):
            return done("declined-off-topic", OFF_TOPIC_TEXT)

        if _OUTLINE.search(question):
            outline = self._outline()
            if outline:
                text, passages = outline
                return done("extractive", text, passages, passages, {"evidence": since()})
        history = clean_history(history)
        retrieval = self.retriever.search(question, k=10, history=history)
        hits = self.screen_hits(retrieval.hits)  # planted instructions are never quoted nor sent
        timings = dict(retrieval.timings_ms)
        timings["retrieval"] = since()
        if not retrieval.has_evidence or not hits:
            nearest = [Passage(n, h) for n, h in enumerate(hits[:3], 1)]
            text = not_covered_text(retrieval, question, self.retriever.bundle.meta.get("language", ""))
            return done("not-covered", text, nearest, (), timings,
                        missing=retrieval.unknown_names)

        evidence = [Passage(n, h) for n, h in enumerate(hits[:EVIDENCE_PASSAGES], 1)]
        context = previous_user_turn(history, question)
        quotes = choose_quotes(question, evidence, context=context, guide_text=self._guide_text,
                               similarity=self._similarity(question), word_weight=self.retriever.lexical_index.idf)
        quoted, cited = "\n\n".join(q.markdown for q in quotes), [q.passage for q in quotes]
        if not cited:
            return done("not-covered", NOT_COVERED_TEXT, evidence[:3], (), timings)
        siblings = sibling_sections(cited, evidence)
        if siblings:
            line, more = siblings
            quoted, cited = f"{quoted}\n\n{line}", cited + more
        timings["evidence"] = since()
        extractive_text = f"{EXTRACTIVE_NOTE}\n\n{quoted}"
        if on_evidence is not None:
            on_evidence(done("extractive", extractive_text, evidence, cited, timings))
        if self.llm is None or (should_stop is not None and should_stop()):
            return done("extractive", extractive_text, evidence, cited, timings)

        masked = {h.key for h in hits if any(a < h.span[1] and b > h.span[0] for a, b in self.planted_spans(h.source))}
        sent = [Passage(p.n, dataclasses.replace(p.hit, text=_squeeze(p.hit.text))) if p.hit.key in masked else p
                for p in self.select_passages(hits, retrieval.query)]
        try:
            messages, sent = self._fit_messages(self.llm, question, sent, history)
        except QuestionError:  # the evidence stands; the model cannot read this question
            return done("extractive", extractive_text, evidence, cited, timings)
        # The model reads its passages numbered 1..m; the student sees the evidence's numbers.
        number = {p.hit.key: p.n for p in evidence}
        for p in sent:
            if p.hit.key not in number:
                extra = Passage(len(evidence) + 1, hits[[h.key for h in hits].index(p.hit.key)])
                evidence.append(extra)
                number[p.hit.key] = extra.n
        shown_n = {p.n: number[p.hit.key] for p in sent}
        blocks = [b for b in quoted.split("\n\n") if b.strip()]
        checks = {"sentences": 0, "shown": 0}
        verified: list[str] = []
        verified_cited: list[int] = []

        def judge(sentence: str) -> None:
            checks["sentences"] += 1
            verdict = check_sentence(sentence, sent, blocks, MIN_SUPPORT, question=f"{context}\n{question}")
            if not verdict.ok:
                checks[verdict.reason] = checks.get(verdict.reason, 0) + 1
                return
            text = _renumber(verdict.text, shown_n)
            if text in verified:
                checks["repeat"] = checks.get("repeat", 0) + 1
                return
            verified.append(text)
            verified_cited.extend(shown_n[n] for n in verdict.cited if shown_n[n] not in verified_cited)
            checks["shown"] += 1
            timings.setdefault("first_verified", since())
            if on_sentence is not None:
                on_sentence(text)

        stream = SentenceStream()
        try:
            for piece in self.llm.stream(messages, self.budget.answer_tokens, should_stop):
                timings.setdefault("first_token", since())
                for sentence in stream.feed(piece):
                    judge(sentence)
        except ModelError as exc:  # e.g. the context overflowed: the evidence stands
            log.warning("generation failed: %s", exc)
        if should_stop is None or not should_stop():
            for sentence in stream.close():
                judge(sentence)
        timings["generate"] = since() - timings["evidence"]
        if not verified:
            return done("extractive", extractive_text, evidence, cited, timings, checks)
        by_n = {p.n: p for p in evidence}
        citations = [by_n[n] for n in verified_cited] + [p for p in cited if p.n not in verified_cited]
        text = " ".join(verified) + "\n\n" + extractive_text
        return done("answered", text, evidence, citations, timings, checks)


def _squeeze(text: str) -> str:
    """A passage's text with the blank lines and long runs of spaces a blanked block leaves made
    one (the model reads no padding)."""
    return re.sub(r"[ \t]{40,}", " ", re.sub(r"\n[ \t]*\n(?:[ \t]*\n)*", "\n\n", text)).strip()


def _renumber(text: str, numbers: dict[int, int]) -> str:
    """``text`` with each citation marker's prompt numbers replaced by the shown numbers (brackets
    in code, such as ``items[1]``, are left alone)."""
    def swap(match: re.Match) -> str:
        if not is_citation(text, match):
            return match.group(0)
        return "[" + ", ".join(str(numbers.get(int(x), int(x))) for x in re.split(r"\s*,\s*", match.group(1))) + "]"
    return re.sub(r"\[(\d+(?:\s*,\s*\d+)*)\]", swap, text)
