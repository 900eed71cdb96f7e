"""One grammar for each piece of text markup the app reads: sentences, citation markers, Markdown
links and list markers. Every module that cuts sentences or finds a marker, a link or a list item
imports it from here, so a rule is changed (and tested) in one place. Each pattern runs in linear
time on any input (``tests/test_grammar.py`` bounds it with an operation count).

- :data:`SENTENCE_END`, :func:`split_sentences`, :func:`sentence_spans`: where a sentence ends;
  :data:`ANSWER_SENTENCE_END` where one of the model's streamed sentences ends;
- :data:`CITATION_MARKER`, :func:`citation_numbers`: ``[2]``, ``[1, 3]``, ``[ 1; 2 ]``;
- :data:`MARKDOWN_LINK`, :func:`link_destination`: ``[text](dest "title")`` and ``![alt](src)``;
- :data:`LIST_MARKER`, :data:`LIST_MARKER_TEXT`: ``-``, ``*``, ``+``, ``1.``, ``1)`` at a line's start.
"""

from __future__ import annotations

import re

#: Where a sentence ends: after ``.``, ``!`` or ``?`` followed by whitespace and a capital, digit,
#: quote, bracket, star or backtick (the whitespace is the match), or right after ``。！？`` (an
#: empty match). "e.g. the pin" and "v1.2 is" are not cut. Not measured: the rule of
#: ``answer/blocks.py`` since issue 4, chosen over the budget's "any ``.!?`` before a space".
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\"“(\[])|(?<=[。！？])")

#: A citation marker the model writes or an answer shows: one or more source numbers in square
#: brackets, separated by ``,`` or ``;``, spaces allowed anywhere inside. Group 1 holds the
#: numbers (read them with :func:`citation_numbers`). Whether a match is a citation or code
#: (``items[1]``) is :func:`app.answer.citations.is_citation`'s call.
_CITATION_NUMBERS = r"\s*\d+(?:\s*[,;]\s*\d+)*\s*"
CITATION_MARKER = re.compile(rf"\[({_CITATION_NUMBERS})\]")
#: Where a sentence of the model's streamed answer ends: terminal punctuation (``.!?。！？``) with
#: the citation markers that follow it (``… pin 2. [1]``: the marker belongs to the sentence before),
#: then whitespace (looked at, not consumed); or a line break. Unlike :data:`SENTENCE_END` it does
#: not look at the next sentence's first letter, which a stream may not have delivered yet.
ANSWER_SENTENCE_END = re.compile(rf"[.!?。！？]+(?:\s*\[{_CITATION_NUMBERS}\])*(?=\s)|\n")

#: An inline Markdown link or image: ``[label](destination)``, ``![alt](source)``. Group 1 is the
#: label (no ``[`` or ``]`` inside), group 2 the raw destination with any title (at most one level
#: of balanced parentheses inside, as CommonMark allows: ``wiki/Foo_(bar)``). Linear time: the
#: label stops at the next bracket and the destination at the next unbalanced parenthesis, so
#: ``[[[[…`` or ``[a](((…`` never rescans the line.
MARKDOWN_LINK = re.compile(r"!?\[([^\[\]]*)\]\(((?:[^()]|\([^()]*\))*)\)")

#: The text of a list item's marker (for use inside other patterns): a bullet ``-``, ``*``,
#: ``+`` or an ordered number ``1.`` / ``1)``.
LIST_MARKER_TEXT = r"(?:[-*+]|\d+[.)])"
#: A list item's marker at the start of a line with its indentation (group 1) and the spaces after
#: it. ``LIST_MARKER.match(line)`` says whether a line starts an item; ``.end()`` is the width of
#: the marker a continuation line is indented by.
LIST_MARKER = re.compile(rf"^(\s*){LIST_MARKER_TEXT}\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph (a list of ``str``, none empty) cut at :data:`SENTENCE_END`;
    whitespace runs, line breaks included, are made one space first."""
    text = " ".join(text.split())
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``text`` cut into sentence and line pieces, as ``(start, end)`` character offsets that cover
    it in order: a piece ends right after a sentence's final punctuation (:data:`SENTENCE_END`;
    the whitespace after it opens the next piece) or right after a line break. ``[(0, 0)]`` for
    ``""``."""
    cuts = {m.start() for m in SENTENCE_END.finditer(text)}
    cuts.update(m.end() for m in re.finditer(r"\n", text))
    spans, start = [], 0
    for cut in sorted(cuts):
        if cut > start:
            spans.append((start, cut))
            start = cut
    if start < len(text):
        spans.append((start, len(text)))
    return spans or [(0, len(text))]


def citation_numbers(match: re.Match[str]) -> list[int]:
    """The source numbers of a :data:`CITATION_MARKER` match, in the order written (``[3, 1]`` ->
    ``[3, 1]``)."""
    return [int(x) for x in re.split(r"[,;]", match.group(1))]


def link_destination(match: re.Match[str]) -> str:
    """The address of a :data:`MARKDOWN_LINK` match without its angle brackets and title
    (``[a](<b c.md> "T")`` -> ``b c.md``; ``[a](b.md "T")`` -> ``b.md``); ``""`` when empty."""
    raw = match.group(2).strip()
    if raw.startswith("<") and ">" in raw:
        return raw[1:raw.index(">")]
    return raw.split(None, 1)[0] if raw else ""
