"""A conversation as a document to keep or hand in: each answer with its question, its verified
sentences and its quotes, and one reference list for every citation (no Qt, no disk).

:func:`conversation_document` turns finished exchanges (question, :class:`~app.records.Answer`,
when it was answered) and the course they came from into a :class:`ConversationDocument`. The
citation markers of every answer (``[2]``, ``[1, 3]``: the answer's own passage numbers) are
renumbered to the reference list's numbers, which run 1, 2, 3… in the order first cited over the
whole conversation; one guide section cited by several answers is one reference.
:mod:`app.export.render` writes the document as Markdown or HTML, :mod:`app.export.printing`
prints it (PDF, print preview).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Iterable, Mapping

from ..answer.citations import is_citation
from ..answer.replies import note_in
from ..records import HEADING_SEPARATOR, Answer, Passage
from ..text.grammar import CITATION_MARKER, citation_numbers
from .words import ExportWords, english_words


@dataclass(frozen=True)
class CourseInfo:
    """The course an exported conversation is about: bundle ``title``, ``course_id``,
    ``course_version`` (e.g. ``2026-12-02-a482c15b``; '' for bundles without one) and
    ``corpus_version`` (64 hex digits)."""

    title: str
    course_id: str = ""
    course_version: str = ""
    corpus_version: str = ""

    @classmethod
    def from_meta(cls, meta: Mapping[str, str], fallback_title: str = "") -> CourseInfo:
        """The course of a bundle's ``meta`` table (:attr:`BundleReader.meta`)."""
        return cls(title=meta.get("title") or fallback_title, course_id=meta.get("course_id", ""),
                   course_version=meta.get("course_version", ""), corpus_version=meta.get("corpus_version", ""))


@dataclass(frozen=True)
class Reference:
    """One entry of the reference list: ``number`` (from 1), the guide's ``source`` path (relative
    to the course root, ``/`` separators), its ``guide_title`` ('' when unknown), the ``section``
    (heading path joined with `` › ``; '' for text before the first heading), the course's
    ``course`` title and ``course_version``, the ``corpus_version`` the answer was pinned to, and
    ``date``, the day of the first answer citing it."""

    number: int
    source: str
    guide_title: str
    section: str
    course: str
    course_version: str
    corpus_version: str
    date: str


@dataclass(frozen=True)
class ExportedAnswer:
    """One exchange of the document. ``verified`` holds the model's checked sentences (Markdown,
    markers renumbered; '' when the model wrote none), ``quotes`` the quoted blocks of the guides
    (Markdown, markers renumbered; '' when none), ``reply`` the fixed reply of a declined or
    not-covered answer (plain text), ``state`` the words of its state (:meth:`ExportWords.state`), ``references
    the numbers of the references it cites, ``nearest`` the guide sections of a not-covered answer
    (``guide › section`` strings), ``answered_at`` when it finished (UTC)."""

    number: int
    question: str
    state: str
    verified: str
    quotes: str
    reply: str
    references: tuple[int, ...]
    nearest: tuple[str, ...]
    answered_at: datetime


@dataclass(frozen=True)
class ConversationDocument:
    """A conversation ready to render: the ``course``, its ``answers`` (oldest first), the
    ``references`` (by number), when it was ``exported_at`` (UTC) and the ``words`` Lantern writes
    around them (:mod:`app.export.words`; English by default)."""

    course: CourseInfo
    answers: tuple[ExportedAnswer, ...]
    references: tuple[Reference, ...]
    exported_at: datetime
    words: ExportWords = field(default_factory=english_words)

    @property
    def title(self) -> str:
        """The document's title: "Questions to Lantern: <course title>" in :attr:`words`' language."""
        if self.course.title:
            return self.words.text("title", course=self.course.title)
        return self.words.text("title_untitled")


@dataclass(frozen=True)
class Asked:
    """An exchange to export: the ``question`` as typed, the final ``answer``, whether Stop ended
    it (``stopped``), when it finished (``answered_at``; None: the export's time) and ``note``,
    words replacing the state's (:meth:`ExportWords.state`; '' keeps them)."""

    question: str
    answer: Answer
    stopped: bool = False
    answered_at: datetime | None = None
    note: str = ""


def split_answer(answer: Answer) -> tuple[str, str, str]:
    """``(verified, quotes, reply)`` of an answer's text: an ``answered`` text is the checked
    sentences, a blank line and the extractive answer ("From the guides:" above the quotes); an
    ``extractive`` one only the latter; any other state's text is a fixed reply."""
    text = answer.text.strip()
    if answer.state not in ("answered", "extractive"):
        return "", "", text
    note = note_in(text)  # in the course's language
    verified, note, quotes = text.partition(note) if note else (text, "", "")
    if not note:  # an answer without the note: all of it is the model's (or all quotes)
        return (text, "", "") if answer.state == "answered" else ("", text, "")
    return verified.strip(), quotes.strip(), ""


class _Numbering:
    """Reference numbers over a whole conversation, one per guide section, first cited first."""

    def __init__(self, course: CourseInfo, guide_title: Callable[[str], str]) -> None:
        self.course = course
        self.guide_title = guide_title
        self.references: dict[tuple[str, str], Reference] = {}

    def number(self, passage: Passage, corpus_version: str, day: str) -> int:
        key = (passage.hit.source, passage.hit.heading)
        if key not in self.references:
            same = not corpus_version or corpus_version == self.course.corpus_version
            self.references[key] = Reference(
                number=len(self.references) + 1, source=passage.hit.source,
                guide_title=self.guide_title(passage.hit.source), section=passage.hit.heading,
                course=self.course.title, course_version=self.course.course_version if same else "",
                corpus_version=corpus_version or self.course.corpus_version, date=day)
        return self.references[key].number


def renumber(text: str, numbers: Mapping[int, int]) -> str:
    """``text`` with each citation marker's passage numbers replaced by ``numbers[n]``; a marker
    naming a number not in ``numbers`` and brackets in code (``items[1]``) are left alone."""
    def swap(match: re.Match) -> str:
        found = citation_numbers(match)
        if not is_citation(text, match) or any(n not in numbers for n in found):
            return match.group(0)
        return "[" + ", ".join(str(numbers[n]) for n in dict.fromkeys(found)) + "]"
    return CITATION_MARKER.sub(swap, text)


def _nearest(answer: Answer) -> tuple[str, ...]:
    if answer.state != "not-covered":
        return ()
    seen = dict.fromkeys(" › ".join(p for p in (x.hit.source, x.hit.heading) if p) for x in answer.passages)
    return tuple(seen)


def conversation_document(asked: Iterable[Asked], course: CourseInfo, *,
                          guide_title: Callable[[str], str] = lambda path: "",
                          now: datetime | None = None, words: ExportWords | None = None) -> ConversationDocument:
    """The document of ``asked`` (oldest first) about ``course``. ``guide_title(path)`` names a
    guide ('' when unknown; e.g. :meth:`BundleReader.source_title`); ``now`` is the export's time
    (default: now, UTC), also used for an exchange without ``answered_at``; ``words``: the words
    Lantern writes around the answers (default English; :mod:`app.export.words`)."""
    now = now or datetime.now(timezone.utc)
    words = words or english_words()
    numbering = _Numbering(course, guide_title)
    answers = []
    for i, item in enumerate(asked, 1):
        answer = item.answer
        when = item.answered_at or now
        day = when.astimezone().date().isoformat()  # the day where the export is made
        numbers = {p.n: numbering.number(p, answer.corpus_version, day) for p in answer.citations}
        verified, quotes, reply = split_answer(answer)
        state = item.note or words.state(answer.state)
        answers.append(ExportedAnswer(
            number=i, question=item.question, state=f"{words.text('stopped')} {state}" if item.stopped else state,
            verified=renumber(verified, numbers), quotes=renumber(quotes, numbers), reply=reply,
            references=tuple(dict.fromkeys(numbers.values())), nearest=_nearest(answer), answered_at=when))
    return ConversationDocument(course=course, answers=tuple(answers),
                                references=tuple(numbering.references.values()), exported_at=now, words=words)


def reference_text(ref: Reference, words: ExportWords | None = None) -> str:
    """One reference as plain text: guide (title and path), section, course title and version,
    corpus version (first 12 hex digits) and date, e.g. ``Lesson 4: OLED (lessons/oled.md),
    section "Lesson 4 › Wiring". ESP32 Starter Lab, course version 2026-12-02-a482c15b, corpus
    a482c15bc143. Cited 2026-12-02.`` (a section path starting with the guide's title is given
    without it), in ``words``' language (default English)."""
    words = words or english_words()
    titled = bool(ref.guide_title) and ref.guide_title != ref.source
    guide = f"{ref.guide_title} ({ref.source})" if titled else ref.source
    within = ref.section
    if titled and within.startswith(ref.guide_title + HEADING_SEPARATOR):  # the guide's title is its first heading
        within = within[len(ref.guide_title + HEADING_SEPARATOR):]
    section = ", " + words.text("section", section=within) if within and within != ref.guide_title else ""
    course = ", ".join(x for x in (
        ref.course, words.text("course_version", version=ref.course_version) if ref.course_version else "",
        words.text("corpus", corpus=ref.corpus_version[:12]) if ref.corpus_version else "") if x)
    return f"{guide}{section}." + (f" {course}." if course else "") + " " + words.text("cited", date=ref.date)
