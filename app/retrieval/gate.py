"""The evidence gate: does retrieval have strong enough evidence to answer from?

Two signals, combined by :func:`has_strong_evidence` (pure):

- **similarity**: the best chunk's cosine similarity to the query must reach a
  threshold (calibrated on two question sets, docs/retrieval.md), unless a chunk
  contains one of the question's identifiers verbatim;
- **unknown names**: a question that names something the course never mentions
  ("Modbus", "Node-RED", "MicroPython", "A4988") is about something else, however
  similar its other words are (:mod:`app.retrieval.gate_names` says what a name is;
  :mod:`app.retrieval.gate_terms` holds the rules for a defined term, code-shaped key
  terms, named features and bare values; :mod:`app.retrieval.gate_timetable` the rule for a
  question about when the class meets).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

from ..text.tokenize import CJK, DEFAULT_STEMMER
from .gate_names import is_measure, looks_like_name, unknown_names  # noqa: F401  (re-exported)
from .gate_terms import (  # noqa: F401  (re-exported)
    _VALUE_EDGES,
    MAX_TERM_WORDS,
    NEAR_TOKENS,
    bare_values,
    missing_features,
    missing_key_terms,
    undefined_term,
)
from .gate_timetable import timetable_unanswered


def outside_embedding_languages(question: str) -> bool:
    """True when at least half of the question's letters are Chinese, Japanese or Korean.

    The default embedding model (all-MiniLM-L6-v2) was trained on English text, so its
    similarity says little about such a question (hostile-006 on its own passage: 0.24).
    The retriever then asks for lexical evidence instead: the best BM25 chunk must hold at
    least MIN_LEXICAL_COVERAGE of the question's character bigrams that occur in the course,
    and the question must have two or more of those.
    """
    letters = [c for c in question if c.isalpha()]
    if not letters:
        return False
    cjk = sum(len(run) for run in CJK.findall(question))
    return cjk * 2 >= len(letters)


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


@dataclass(frozen=True)
class Judgement:
    """The gate's decision for one question: ``has_evidence``, and ``missing``: the names and key
    terms of the question the course never mentions (unknown names, an undefined term, missing
    code-shaped key terms), in order; they are why the question is not covered."""

    has_evidence: bool
    missing: tuple[str, ...]


def judge(question: str, *, best_similarity: float | None, exact_matches: int,
          in_vocabulary: Callable[[str], bool], phrase_found: Callable[[str], bool],
          identifiers: Callable[[str], list[str]], lexical_coverage: Callable[[bool], float],
          empty_guides: bool, min_similarity: float, min_coverage: float,
          words_near: Callable[[list[str]], bool] | None = None, language: str = "",
          stemmer: str = DEFAULT_STEMMER, passages: Sequence[str] = ()) -> Judgement:
    """Whether retrieval's hits are evidence for ``question`` (the rules of docs/retrieval.md, in
    order): a question naming something the course never mentions (:func:`unknown_names`,
    :func:`undefined_term`, :func:`missing_key_terms`, :func:`missing_features`,
    :func:`bare_values`) or a guide with no text (``empty_guides``)
    has none; else :func:`has_strong_evidence` decides from ``best_similarity`` (cosine, None in
    keyword-only mode), ``exact_matches`` and, without a similarity, ``lexical_coverage(False)``
    (share of the question's words in the best BM25 chunk, 0..1); a question mostly in Chinese,
    Japanese or Korean that fails is judged by ``lexical_coverage(True)`` (share of its words the
    course knows) instead. ``in_vocabulary``, ``phrase_found``, ``identifiers`` and ``words_near``
    (optional: whether a list of words occurs in one chunk within NEAR_TOKENS tokens) are the
    course lookups the name rules use; ``language`` the course's tag (its rules, app/i18n, count
    with English's); ``stemmer`` the one the lexical index was cut with (``in_vocabulary`` is asked
    for its stems). ``passages``: the retrieved chunks' texts, best first; a timetable question
    none of them answers with a time or a date has no evidence (:func:`timetable_unanswered`)."""
    names = unknown_names(question, in_vocabulary, phrase_found, language, stemmer)
    term = undefined_term(question, in_vocabulary, phrase_found, words_near, language, stemmer)
    if term and term not in names:
        names.append(term)
    names += [t for t in missing_key_terms(question, phrase_found, identifiers) if t not in names]
    names += [t for t in missing_features(question, in_vocabulary, phrase_found, language, stemmer)
              if t not in names]
    values = bare_values(question, phrase_found)
    names += [t for t in values or () if t not in names]
    coverage = lexical_coverage(False) if best_similarity is None else None
    has_evidence = has_strong_evidence(best_similarity, exact_matches, len(names), min_similarity,
                                       coverage, min_coverage)
    if values == [] and all(len(t.strip(_VALUE_EDGES)) >= 3 for t in question.split()):
        # Only values, each in the guides: the chunks holding them are the evidence. ("2" or "42"
        # alone is in too many places to mean one; the similarity decides for them, as for words.)
        has_evidence = True
    if empty_guides:  # the guide the question names is there, but has nothing to answer from
        has_evidence = False
    elif not has_evidence and not names and outside_embedding_languages(question):
        # The English embedding model cannot judge this question: judge it lexically.
        has_evidence = lexical_coverage(True) >= min_coverage
    if has_evidence and timetable_unanswered(question, passages, language):
        has_evidence = False
    return Judgement(has_evidence, tuple(names))
