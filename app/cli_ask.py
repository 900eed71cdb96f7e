"""``lantern ask``'s text output: the evidence first, as soon as retrieval is done, then the
model's sentences that passed every check, one by one (nothing unverified is printed), then the
sources. The citations are numbered 1, 2, 3… in the order they are first printed, and the list uses
those numbers (the answer's own numbers skip the passages it did not quote)."""

from __future__ import annotations

import re

from .records import join_heading
from .report.recorder import record_cli_reply
from .text.grammar import CITATION_MARKER, citation_numbers


def print_checked_answer(assistant, bundle, query: str, history: list[dict] | None) -> None:
    """Answer ``query`` with ``assistant`` (over ``bundle``, a reader) and print it as it comes
    (module docstring); the reply is recorded for the instructor's report when that is on."""
    from .export.words import course_words

    words = course_words(str(bundle.meta.get("language") or ""))  # the course's language, as the reply
    printed = {"evidence": False, "sentences": 0}
    shown: dict[int, int] = {}  # the answer's passage number -> the number printed

    def show_evidence(evidence) -> None:
        printed["evidence"] = True
        print(_shown_numbers(evidence.text, shown, {p.n for p in evidence.passages}), flush=True)

    def show_sentence(text: str) -> None:
        if not printed["sentences"]:
            print("\n" + words.text("colon", text=words.text("in_short", checked=words.text("answer_checked"))))
        printed["sentences"] += 1
        print(_shown_numbers(text, shown, None), flush=True)

    answer = assistant.answer(query, history, on_evidence=show_evidence, on_sentence=show_sentence)
    record_cli_reply(bundle, query, answer)  # the instructor's report, when it is on
    if not printed["evidence"]:
        print(_shown_numbers(answer.text, shown, {p.n for p in answer.passages}))
    listed = answer.citations or ([] if printed["evidence"] else answer.passages)
    _print_sources(listed, words.label("sources" if answer.citations else "nearest"), shown)
    if answer.degraded:
        print(f"\n({', '.join(answer.degraded)})")


def _shown_numbers(text: str, shown: dict[int, int], known: set[int] | None) -> str:
    """``text`` with each citation marker's passage numbers replaced by the numbers printed:
    ``shown`` maps a passage number to its printed number and gains the next free number for each
    passage first cited here. Only numbers in ``known`` count (None: every number); brackets in
    code (``items[1]``) are left alone."""
    from .answer.citations import is_citation

    def swap(match: re.Match) -> str:
        numbers = citation_numbers(match)
        if not is_citation(text, match) or any(known is not None and n not in known for n in numbers):
            return match.group(0)
        for n in numbers:
            shown.setdefault(n, len(shown) + 1)
        return "[" + ", ".join(str(shown[n]) for n in numbers) + "]"
    return CITATION_MARKER.sub(swap, text)


def _print_sources(passages, title: str, shown: dict[int, int]) -> None:
    """Print ``title`` and one line per passage, ``[n] guide › heading``, in the order of ``n``
    printed (``shown``; a passage the text never cited gets the next free number)."""
    if not passages:
        return
    for p in passages:
        shown.setdefault(p.n, len(shown) + 1)
    print(f"\n{title}")
    for p in sorted(passages, key=lambda p: shown[p.n]):
        where = join_heading(p.hit.source, p.hit.heading)
        print(f"  [{shown[p.n]}] {where}")
