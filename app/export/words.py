"""The words Lantern writes into an exported conversation, in one language (issue 27; no Qt).

Titles, the course line, "Question 1", each answer's state, the headings ("From the guides",
"Nearest sections", "References") and the reference lines are :class:`ExportWords`; the answers'
own text (quotes, checked sentences, a not-covered or declined reply) is exported as it was
written, in the course's language. Which language the words are in (docs/gui.md, "Exports"):

- on the command line (``lantern ask --format markdown``, ``lantern export``), the course's, as the
  replies are: :func:`course_words`, the ``[export]`` table of the course's language in app/i18n
  (English for a language without one, and for any text its table leaves out);
- in the window, the window's: :func:`app.export.window.window_words`, the same texts passed
  through Qt's translation with the rest of the window.

Dates and times are written in digits (``2026-12-02 14:05 CET``) in every language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..i18n import REFERENCE, english, language_rules

#: The words of an answer's state (:data:`app.records.ANSWER_STATES`), by state.
STATE_KEYS = {"answered": "answered", "extractive": "extractive", "not-covered": "not_covered",
              "declined-off-topic": "declined_off_topic", "declined-injection": "declined_injection"}
#: Texts only the command line writes: ``lantern export --history``'s (the window has no history file,
#: and says what it saved with its own translated words) and ``lantern ask``'s labels (``sources``,
#: ``in_short``; the window shows its own).
HISTORY_KEYS = ("history_note", "no_answer", "saved", "answers_one", "answers_other", "references_one",
                "references_other", "sources", "in_short")


@dataclass(frozen=True)
class ExportWords:
    """The export's words in ``language`` (a tag, written as the HTML page's ``lang``): ``texts``
    maps a name of ``en.toml``'s ``[export]`` table to its template; a name left out is English's."""

    language: str = REFERENCE
    texts: Mapping[str, str] = field(default_factory=dict)

    def text(self, key: str, **values: object) -> str:
        """The text ``key`` with ``values`` filled in (``str.format``). Raises KeyError for a name
        ``en.toml``'s ``[export]`` table does not have."""
        template = self.texts.get(key) or english().export[key]
        return template.format(**values) if values else template

    def state(self, state: str) -> str:
        """The words of an answer's ``state`` (``answered``, ``not-covered``…); an unknown state as written."""
        return self.text(STATE_KEYS[state]) if state in STATE_KEYS else state

    def count(self, key: str, number: int) -> str:
        """``number`` of what ``key`` names, in words: the text ``{key}_one`` for 1, ``{key}_other``
        for any other number (``count("answers", 2)``: "2 answers", "2 réponses"). Raises KeyError
        as :meth:`text`."""
        return self.text(f"{key}_one" if number == 1 else f"{key}_other", count=number)

    def label(self, key: str) -> str:
        """The text ``key`` as a label before what it names (``From the guides:``, ``D’après les guides :``)."""
        return self.text("colon", text=self.text(key))


def course_words(language: str | None) -> ExportWords:
    """The words for an export of a course in ``language`` (a BCP 47 tag; '' or None: unknown, then
    English): its table's ``[export]`` texts. Never raises for a tag."""
    rules = language_rules(language)
    return ExportWords(rules.language, dict(rules.export))


def english_words() -> ExportWords:
    """The words in English (exports of a course of unknown language, and tests)."""
    return course_words(REFERENCE)
