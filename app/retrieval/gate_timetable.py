"""The gate's timetable rule: a question about when the class meets needs a time or a date.

"Quand a lieu l'examen final ?", "¿Hay clase el viernes?", "À quelle heure commence le cours
demain ?" ask for the course's timetable. A syllabus guide can answer them, and then its passage
holds a time of day or a date ("le mardi à 14 h", "el 12/03"). When none of the passages a
reply would quote holds one, the closest the guides come is text that shares the question's words
("au cours de", "la clase `Path`"), and quoting it would answer something else: the question is
not covered.

In English the similarity floor already catches these questions (4 of 4 on the demo course,
docs/answers.md, "Timetable questions"); the English embedding model rates French and Spanish
text alike whatever it says, so the floor cannot (docs/retrieval.md, "A floor per language").
The question shapes are rules of each language's table (``[question] timetable``,
app/i18n/<tag>.toml); English has none. A time or a date in a passage is read the same way in
every language, with the table's calendar words (``[names] calendar``: weekdays and months).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..i18n import REFERENCE, english, language_rules

#: A time of day or a date written with digits: "14 h", "14h30", "10:00", "9 am", "9 p.m.",
#: "12/03", "12/03/2027", "2027-01-12". A duration ("2 h") passes too: the rule then keeps
#: today's answer, which is the safe side.
TIME_OR_DATE = re.compile(
    r"\b(?:[01]?\d|2[0-3])\s?[h:]\s?[0-5]\d\b|\b(?:[01]?\d|2[0-3])\s?h\b"
    r"|\b\d{1,2}\s?(?:am|pm|a\.\s?m\.|p\.\s?m\.)|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE)
#: Passages read, best first: as many as a reply quotes (``MAX_PASSAGES``, app/answer/settings.py).
#: Further down, a course's own dates come up by the words they share with the question
#: ("diciembre vendría antes de julio" in a lesson on naming files, 4th for "¿Qué día es el
#: parcial?" on the Spanish shell lesson).
PASSAGES_READ = 3
_WORD = re.compile(r"\w+", re.UNICODE)
#: Fenced code blocks and inline code: a course's data and command output ("2012-11-05,deer,5",
#: `ls -l`'s "Jul 24 14:38") write dates that are not the timetable.
_CODE = re.compile(r"(?ms)^[ \t]*(```|~~~).*?(^[ \t]*\1|\Z)|`[^`\n]*`")


def asks_timetable(question: str, language: str = "") -> bool:
    """True when ``question`` asks when a class, session, exam or deadline of the course is, in a
    shape of its language's table (``[question] timetable``; the course's language, then
    English, which has none)."""
    return any(p.search(question) for p in language_rules(language).timetable)


def holds_time_or_date(text: str, language: str = "") -> bool:
    """True when ``text`` writes a time of day or a date (:data:`TIME_OR_DATE`) or names a weekday
    or a month in ``language`` (its table's ``[names] calendar``: in a French course, "May" is
    more often Louisa May Alcott than a month), outside code blocks and inline code."""
    text = _CODE.sub(" ", text)
    if TIME_OR_DATE.search(text):
        return True
    rules = language_rules(language)
    calendar = rules.calendar if rules.language == REFERENCE else rules.calendar - english().calendar
    return any(word in calendar for word in _WORD.findall(text.lower()))


def timetable_unanswered(question: str, passages: Sequence[str], language: str = "") -> bool:
    """True when ``question`` asks for the timetable (:func:`asks_timetable`) and none of
    the first :data:`PASSAGES_READ` of ``passages`` (the retrieved chunks' texts, best first)
    holds a time or a date (:func:`holds_time_or_date`): the question is then not covered."""
    return asks_timetable(question, language) and \
        not any(holds_time_or_date(p, language) for p in passages[:PASSAGES_READ])
