"""The answerer's fixed replies, and the lines it writes around the quoted evidence.

``NOT_COVERED_TEXT`` (and :func:`not_covered_text`, saying why when the gate knows),
``OFF_TOPIC_TEXT``, ``INJECTION_TEXT``, ``EXTRACTIVE_NOTE`` above the quotes, and
:func:`sibling_sections`, the line naming the other subsections of a quoted passage's section.
"""

from __future__ import annotations

from ..ingest.language import LANGUAGE_NAMES, question_language
from ..records import HEADING_SEPARATOR, Passage, heading_leaf

NOT_COVERED_TEXT = "The guides don't cover this. The nearest sections are listed below."
OFF_TOPIC_TEXT = ("I can only help with this course. That request isn't about the course guides, "
                  "so I'll leave it there; ask me anything about the lessons.")
INJECTION_TEXT = ("I can't do that: I answer questions about the course from its guides and keep my rules "
                  "and setup private. Ask me about the lessons and I'll point you to the right guide.")
EXTRACTIVE_NOTE = "From the guides:"


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
