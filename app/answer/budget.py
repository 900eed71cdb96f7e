"""Context budget: which passages, trimmed how, go into the prompt.

The budget is in model tokens, not characters, so prompt size is a constant per model
and always fits its context window. Measured on this 2-core machine (issue 4), the
default 135M model reads about 150-200 prompt tokens per second, so the source budget
sets the time to first token; ``docs/answers.md`` records the curve of evidence kept
against time to first token from which the default was chosen.

A chunk longer than ``passage_chars`` is trimmed to its most relevant window of whole
lines/sentences (the window holding the most question words), and its span is narrowed
to that window, so a citation highlights exactly what the model read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ingest.markdown import fences
from ..records import Hit, Passage
from ..text.grammar import sentence_spans
from ..text.tokenize import DEFAULT_STEMMER, document_tokens, query_words, words_found


@dataclass(frozen=True)
class ContextBudget:
    """At most ``max_passages`` passages and ``source_tokens`` tokens of source text per prompt;
    each passage at most ``passage_chars`` characters; ``answer_tokens`` is the most the model writes."""

    max_passages: int = 4
    source_tokens: int = 400
    passage_chars: int = 600
    answer_tokens: int = 160


def _pieces(text: str) -> list[tuple[int, int]]:
    """Sentence/line pieces of ``text`` (:func:`~app.text.grammar.sentence_spans`) as (start, end)
    offsets, covering the text in order. A fenced code block is one piece, so a window never starts
    inside one: the extractive answer and the model would otherwise read code as prose and the
    prose after it as code."""
    spans = sentence_spans(text)
    for fence in fences(text):
        inside = [sp for sp in spans if sp[1] > fence.start and sp[0] < fence.end]
        if len(inside) > 1:
            merged = (min(inside[0][0], fence.start), max(inside[-1][1], fence.end))
            first = spans.index(inside[0])
            spans[first:first + len(inside)] = [merged]
    return spans


def trim_to_window(text: str, question: str, max_chars: int, stemmer: str = DEFAULT_STEMMER) -> tuple[int, int]:
    """Offsets ``(start, end)`` into ``text`` of the window of consecutive pieces, at most
    ``max_chars`` long, holding the most distinct question words (earliest window on ties; both cut
    with the course's ``stemmer``)."""
    if len(text) <= max_chars:
        return 0, len(text)
    words = query_words(question, stemmer)
    pieces = _pieces(text)
    token_sets = [set(document_tokens(text[a:b], stemmer)) for a, b in pieces]
    best, best_score = (0, 0), -1.0
    for i in range(len(pieces)):
        j, found = i, set()
        while j < len(pieces) and pieces[j][1] - pieces[i][0] <= max_chars:
            found |= token_sets[j]
            j += 1
        if j == i:  # one piece longer than the window: cut it
            score = words_found(words, token_sets[i])
            window = (pieces[i][0], pieces[i][0] + max_chars)
        else:
            score = words_found(words, found)
            window = (pieces[i][0], pieces[j - 1][1])
        if score > best_score:
            best, best_score = window, score
    start, end = best
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def select_passages(hits: list[Hit] | tuple[Hit, ...], question: str, budget: ContextBudget,
                    count_tokens: Callable[[str], int], stemmer: str = DEFAULT_STEMMER) -> list[Passage]:
    """The best hits, trimmed (:func:`trim_to_window`, with the course's ``stemmer``), that fit the
    budget; numbered from 1 in rank order.

    The first passage is always kept (trimmed further if it alone exceeds the token budget).
    """
    chosen: list[Hit] = []
    used = 0
    for hit in hits:
        if len(chosen) >= budget.max_passages:
            break
        start, end = trim_to_window(hit.text, question, budget.passage_chars, stemmer)
        text = hit.text[start:end]
        tokens = count_tokens(text)
        if chosen and used + tokens > budget.source_tokens:
            continue
        if not chosen and tokens > budget.source_tokens:
            start, end = trim_to_window(hit.text, question, max(80, len(text) * budget.source_tokens // tokens),
                                        stemmer)
            text = hit.text[start:end]
            tokens = count_tokens(text)
        chosen.append(hit.with_text(text, (hit.span[0] + start, hit.span[0] + end)))
        used += tokens
    return [Passage(n, h) for n, h in enumerate(chosen, 1)]
