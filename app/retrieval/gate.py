"""The evidence gate: does retrieval have strong enough evidence to answer from?

Two signals, combined by :func:`has_strong_evidence` (pure):

- **similarity**: the best chunk's cosine similarity to the query must reach a
  threshold (calibrated on two question sets, docs/retrieval.md), unless a chunk
  contains one of the question's identifiers verbatim;
- **unknown names**: a question that names something the course never mentions
  ("Modbus", "Node-RED", "MicroPython", "A4988") is about something else, however
  similar its other words are. A *name* is a written word that is not in the
  bundle's lexical vocabulary and looks like a proper name or identifier: a capital
  letter after the first character, a capitalised word that does not start a
  sentence, or letters mixed with digits. Plain words the course happens not to use
  ("gadget", "sprinkler") do not count: students paraphrase. A name that an FTS5
  phrase search finds (the vocabulary is stemmed, FTS5 is not) is not unknown.
"""

from __future__ import annotations

import re
from typing import Callable

from .tokenize import _WORD, word_variants

_SENTENCE_START = re.compile(r"(?:[.!?:;]\s+|\n\s*)$")


def looks_like_name(word: str, sentence_initial: bool) -> bool:
    """True for ``CoAP``, ``Node-RED``, ``A4988``, ``Modbus`` (mid-sentence); False for
    ``Gadget`` at the start of a sentence, ``gadget``, ``3.3``."""
    letters = [c for c in word if c.isalpha()]
    if not letters or len(word) < 2:  # "I" is a pronoun, not a name
        return False
    if any(c.isupper() for c in word[1:] if c.isalpha()):
        return True
    if any(c.isdigit() for c in word):
        return True
    return word[0].isupper() and not sentence_initial


def unknown_names(question: str, in_vocabulary: Callable[[str], bool]) -> list[str]:
    """Names in ``question`` (see the module docstring) whose written form, lower-cased
    and stemmed like the index, is not in the vocabulary; in order, de-duplicated."""
    found: list[str] = []
    for match in _WORD.finditer(question):
        word = match.group()
        variants = word_variants(word)
        if not variants or in_vocabulary(variants[0]):
            continue
        start = match.start()
        before = question[max(0, start - 80):start]  # a window keeps this linear in the question
        initial = (start <= 80 and not before.strip()) or bool(_SENTENCE_START.search(before))
        if looks_like_name(word, initial) and word not in found:
            found.append(word)
    return found


def has_strong_evidence(best_similarity: float | None, exact_matches: int, names_unknown: int,
                        min_similarity: float, lexical_coverage: float | None = None,
                        min_coverage: float = 0.6) -> bool:
    """The gate. A question naming something unknown (``names_unknown`` > 0) has no
    evidence, even when other identifiers of it match (``ESP32`` in an ESP32 course); else an
    exact identifier match is evidence; else the best cosine similarity must reach
    ``min_similarity`` (or, in keyword-only mode where ``best_similarity`` is None, the best
    chunk's share of query words ``lexical_coverage`` must reach ``min_coverage``)."""
    if names_unknown > 0:
        return False
    if exact_matches > 0:
        return True
    if best_similarity is not None:
        return best_similarity >= min_similarity
    return (lexical_coverage or 0.0) >= min_coverage
