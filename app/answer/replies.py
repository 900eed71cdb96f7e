"""The answerer's fixed replies, and the lines it writes around the quoted evidence.

``NOT_COVERED_TEXT`` (and :func:`not_covered_text`, saying why when the gate knows),
``OFF_TOPIC_TEXT``, ``INJECTION_TEXT``, ``EXTRACTIVE_NOTE`` above the quotes, and
:func:`sibling_sections`, the line naming the other subsections of a quoted passage's section.
The constants are the English texts; every text is read from the course language's table
(app/i18n/<tag>.toml, ``[replies]``) by :func:`reply_text`, English where there is none.
"""

from __future__ import annotations

import re

from ..i18n import available, english, has_table, language_rules
from ..ingest.language import question_language
from ..records import HEADING_SEPARATOR, Passage, heading_leaf

NOT_COVERED_TEXT = english().text("not_covered")
OFF_TOPIC_TEXT = english().text("off_topic")
INJECTION_TEXT = english().text("injection")
EXTRACTIVE_NOTE = english().text("from_guides")


def note_in(text: str) -> str:
    """The "From the guides:" line (:data:`EXTRACTIVE_NOTE` in any language with a table) that ``text``
    holds on a line of its own, the earliest one; '' when it holds none. The window, the export and the
    web page split a reply there whatever the course's language."""
    found = [(m.start(), note) for note in {language_rules(tag).text("from_guides") for tag in available()}
             for m in [re.search(rf"(?m)^{re.escape(note)}$", text)] if m]
    return min(found)[1] if found else ""


def reply_text(key: str, language: str = "", **values: object) -> str:
    """The reply text ``key`` (a ``[replies]`` name of app/i18n/en.toml: ``not_covered``,
    ``off_topic``, ``injection``, ``from_guides``, ``outline``…) in the course's ``language`` (a
    BCP 47 tag; English for '', an unknown tag or a text not translated), ``values`` filled in."""
    return language_rules(language).text(key, **values)


def _shorten(name: str, limit: int = 40) -> str:
    """``name`` cut to ``limit`` characters with "…" (a pasted 300-character word stays readable)."""
    return name if len(name) <= limit else name[:limit - 1] + "…"


def not_covered_text(retrieval, question: str = "", course_language: str = "") -> str:
    """The not-covered reply, saying why when the gate knows: a question in another language than
    the guides' (``course_language``, the bundle's tag; '' when unknown), names the guides never
    mention, or a guide the question names that has no text. Written in the course's language (its
    table in app/i18n, else English); the note on a question in another language is written in
    the question's language when it has a table, else in the course's."""
    rules = language_rules(course_language)
    asked = question_language(question) if question and course_language else ""
    if asked and asked.split("-")[0] != course_language.split("-")[0]:
        note = language_rules(asked) if has_table(asked) else rules
        return note.text("other_language", guides=note.language_name(course_language),
                         asked=note.language_name(asked))
    if retrieval.empty_guides:
        return rules.text("empty_guide", guide=retrieval.empty_guides[0])
    if retrieval.unknown_names:
        names = rules.text("list_separator").join(rules.text("quoted_name", name=_shorten(n))
                                                  for n in retrieval.unknown_names[:3])
        return rules.text("never_mention", names=names)
    return rules.text("not_covered")


def sibling_sections(cited: list[Passage], evidence: list[Passage],
                     language: str = "") -> tuple[str, list[Passage]] | None:
    """A line naming the evidence passages that are other subsections of the same section as a quoted
    passage ("*Troubleshooting: the display stays blank* also covers: *Wrong I2C address* [6], …"),
    and those passages; None when there are none. A question such as "what should I check?" is
    answered by every item of a troubleshooting section, and only three are quoted. Only sections
    two levels or more below the guide's title count (a guide's top-level sections are not one list).
    The line is written in the course's ``language`` (``also_covers`` of its table, else English)."""
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
    rules = language_rules(language)
    section = heading_leaf(parent(more[0])[1])
    items = rules.text("list_separator").join(f"*{heading_leaf(p.hit.heading)}* [{p.n}]" for p in more)
    return rules.text("also_covers", section=section, items=items), more
