"""Scorers of answer blocks: how well each block of a passage answers the question (higher is better).

A block's score starts as its :func:`word_share` (the question's words it holds) plus
:func:`exact_bonus` and :func:`shape_bonus` (:func:`score_block`); that score chooses which passages
are quoted (app/answer/rules.py). Then each :class:`Scorer` adds to the scores of the quoted
passages' blocks: :class:`SimilarityScorer` (the block's meaning), and the place where a relevance
model of our own (issue 24) plugs in as one more scorer (:func:`rescore`). docs/answers.md, "Quote
selection: the pipeline", names each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Protocol, Sequence

from ..i18n import language_rules
from ..records import Passage
from ..retrieval.settings import HISTORY_WEIGHT
from ..text.grammar import MARKDOWN_LINK
from ..text.tokenize import DEFAULT_STEMMER, document_tokens, word_variants
from .blocks import Unit
from .settings import SIMILARITY_CHARS, AnswerSettings

Word = tuple[str, ...]

#: A block holding a number or a name in code: what a "which one / how much" question asks for.
_HAS_VALUE = re.compile(r"\d|`[^`\n]+`")
_URL = re.compile(r"https?://\S+")
#: Keys to press (``<kbd>Ctrl</kbd>+<kbd>C</kbd>``): like a command, a "how do I" answer.
_KEYS = re.compile(r"<kbd>", re.I)
_LIST_NUMBER = re.compile(r"(?m)^\s*\d+[.)]\s")


@dataclass(frozen=True)
class Query:
    """What quote selection needs of the question, parsed once (app/answer/extractive.py
    ``make_query``): its ``words`` and the previous turn's (``context``, counting ``context_weight``
    of the question's own), each a word's variants (:func:`~app.text.tokenize.query_words`); its
    ``kind`` (``how``, ``name``, ``value`` or ``other``); its ``code`` tokens matched verbatim; whether
    it asks for a count (``counting``); ``weight(word)``, a word's weight (the bundle's IDF; None:
    1 each); and the ``stemmer`` the words were cut with (the blocks are cut with it too)."""

    words: tuple[Word, ...]
    context: tuple[Word, ...] = ()
    kind: str = "other"
    code: tuple[str, ...] = ()
    counting: bool = False
    weight: Callable[[Word], float] | None = field(default=None, compare=False)
    context_weight: float = HISTORY_WEIGHT
    stemmer: str = DEFAULT_STEMMER


@dataclass(frozen=True)
class Candidate:
    """One answer block of a passage with its score so far (higher is better; 0: no question word)."""

    unit: Unit
    score: float


@dataclass(frozen=True)
class PassageBlocks:
    """A passage and its scored blocks, in reading order (``candidates[i].unit.order == i``)."""

    passage: Passage
    candidates: tuple[Candidate, ...]

    def ranked(self) -> list[Candidate]:
        """The candidates best first (ties: reading order)."""
        return sorted(self.candidates, key=lambda c: (-c.score, c.unit.order))


@lru_cache(maxsize=16)
def stop_stems(language: str, stemmer: str = DEFAULT_STEMMER) -> frozenset[str]:
    """The stop words of ``language``'s table (app/i18n) as :func:`~app.text.tokenize.query_words`
    writes them (stemmed with ``stemmer``; the stemmer's own stop words are dropped already): left out
    of the question's words and of a block's when they are compared."""
    words = language_rules(language).stop_words
    return frozenset(words) | frozenset(v[0] for w in words if (v := word_variants(w, stemmer)))


@lru_cache(maxsize=8192)
def text_tokens(text: str, stemmer: str = DEFAULT_STEMMER) -> frozenset[str]:
    """The document tokens of ``text`` (:func:`~app.text.tokenize.document_tokens`, cut with
    ``stemmer``), as a set."""
    return frozenset(document_tokens(text, stemmer))


def found_words(words: Sequence[Word], tokens: frozenset[str], heading_tokens: frozenset[str],
             weight: Callable[[Word], float] | None, heading_weight: float) -> float:
    """Found question words, each counting its ``weight`` (1 when None) in ``tokens`` and
    ``heading_weight`` times that when found only in ``heading_tokens``."""
    found = 0.0
    for w in words:
        if any(v in tokens for v in w):
            found += weight(w) if weight else 1.0
        elif any(v in heading_tokens for v in w):
            found += heading_weight * (weight(w) if weight else 1.0)
    return found


def holds_question_word(unit: Unit, words: Sequence[Word], stemmer: str = DEFAULT_STEMMER) -> bool:
    """Whether the block's own text (not its heading, cut with ``stemmer``) holds one of ``words``."""
    return found_words(words, text_tokens(unit.match_text, stemmer), frozenset(), None, 0.0) > 0


#: :func:`heading_asks`: the IDF-weighted share of the question's words a heading must hold to count as
#: the question itself. Set by one case (a French FAQ, docs/answers.md, "rule-relevant"); not tuned.
HEADING_ASKS_SHARE = 0.75


def heading_asks(query: Query, unit: Unit) -> bool:
    """Whether the block's heading holds at least :data:`HEADING_ASKS_SHARE` of the question's own words
    (IDF-weighted; at least two words), as a FAQ heading that is the student's question does."""
    words, weight = query.words, query.weight
    if len(words) < 2 or not unit.heading:
        return False
    found = found_words(words, text_tokens(unit.heading, query.stemmer), frozenset(), weight, 0.0)
    total = sum(weight(w) for w in words) if weight else len(words)
    return found >= HEADING_ASKS_SHARE * total


def word_share(query: Query, unit: Unit, settings: AnswerSettings) -> float:
    """``word_share``: the weighted share of the question's words the block holds, 0..1 (a word found
    only in its heading counts ``settings.heading_weight``; previous-turn words ``query.context_weight``
    of the question's own); 0 for a question without words."""
    words, context, weight = query.words, query.context, query.weight
    if not words and not context:
        return 0.0
    tokens, heading_tokens = text_tokens(unit.match_text, query.stemmer), text_tokens(unit.heading, query.stemmer)
    share = settings.heading_weight
    found = (found_words(words, tokens, heading_tokens, weight, share)
             + query.context_weight * found_words(context, tokens, heading_tokens, weight, share))
    total = sum(weight(w) for w in words) + query.context_weight * sum(weight(w) for w in context) if weight \
        else len(words) + query.context_weight * len(context)
    return found / max(1e-9, total)


def verbatim_share(tokens: Sequence[str], text: str) -> float:
    """Share of ``tokens`` found in ``text`` as whole tokens (not inside a longer run of symbols
    or word characters: ``===`` is not in ``!==``); 0 for no tokens."""
    if not tokens:
        return 0.0
    found = 0
    for token in tokens:
        edge_l = r"(?<![\w=!<>&|+\-*/%^~:.?])" if not token[0].isalnum() else r"(?<![\w])"
        edge_r = r"(?![\w=!<>&|+\-*/%^~])" if not token[-1].isalnum() else r"(?![\w])"
        if re.search(edge_l + re.escape(token) + edge_r, text):
            found += 1
    return found / len(tokens)


def exact_bonus(query: Query, unit: Unit, settings: AnswerSettings) -> float:
    """``exact_bonus``: ``settings.exact_bonus`` times the share of the question's code tokens the block
    holds verbatim (the words of the ``===`` and ``!==`` rows are the same, their symbols are not)."""
    return settings.exact_bonus * verbatim_share(query.code, unit.match_text) if query.code else 0.0


def has_value(text: str) -> bool:
    """Whether ``text`` holds a number or a name in code, not counting list numbers and link targets."""
    return bool(_HAS_VALUE.search(_URL.sub("", MARKDOWN_LINK.sub(r"\1", _LIST_NUMBER.sub("", text)))))


@lru_cache(maxsize=16)
def definition_words(language: str) -> re.Pattern:
    """The words of a defining sentence in the course's ``language`` and English (``[quotes]`` ``defines``
    of app/i18n), each matched whole, ignoring case."""
    words = sorted(language_rules(language).defines, key=len, reverse=True)
    return re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.I) if words \
        else re.compile(r"(?!)")


def shape_bonus(query: Query, unit: Unit, settings: AnswerSettings) -> float:
    """``shape_bonus``: when the block holds a question word in its own text and has the shape the
    question's kind asks for, ``settings.how_bonus`` (code, a command, keys to press or numbered steps
    for ``how``), ``name_bonus`` (a definition for ``name``: :func:`definition_words` of the course's
    language) or ``value_bonus`` (a number or a name in code for ``value``); else 0."""
    if not holds_question_word(unit, query.words, query.stemmer):
        return 0.0
    if query.kind == "how" and (unit.has_code or _KEYS.search(unit.text) or unit.is_steps):
        return settings.how_bonus
    if query.kind == "name" and definition_words(settings.language).search(unit.match_text):
        return settings.name_bonus
    if query.kind == "value" and has_value(unit.text):
        return settings.value_bonus
    return 0.0


def score_block(query: Query, unit: Unit, settings: AnswerSettings) -> float:
    """A block's score before the scorers of :func:`rescore` (higher is better; 0..1 plus bonuses of at
    most ``exact_bonus`` and the largest shape bonus): :func:`word_share` + :func:`exact_bonus` +
    :func:`shape_bonus`, each bonus only when switched on; 0 for a question without words."""
    if not query.words and not query.context:
        return 0.0
    score = word_share(query, unit, settings)
    if query.code and settings.on("exact_bonus"):
        score += exact_bonus(query, unit, settings)
    if settings.on("shape_bonus"):
        score += shape_bonus(query, unit, settings)
    return score


class Scorer(Protocol):
    """A scorer run on the quoted passages' blocks (:func:`rescore`): for each passage, one number per
    block (in ``candidates`` order) added to its score; 0.0 leaves a block as it was. Higher is better;
    ``name`` names it in logs and docs. A relevance model of our own (issue 24) is one of these."""

    @property
    def name(self) -> str: ...

    def __call__(self, query: Query, passages: Sequence[PassageBlocks]) -> list[list[float]]: ...


@dataclass(frozen=True)
class SimilarityScorer:
    """``similarity``: ``settings.similarity_weight`` times the cosine (negative: 0) of the question to
    each passage's ``settings.similarity_blocks`` best blocks so far (heading and text, first
    ``settings.similarity_chars`` characters), in one call of ``similarity(texts)``, which returns one
    cosine per text. Meaning as well as words: a paraphrased question matches the block that answers
    it; only a few blocks are embedded because the time to evidence grows with their number."""

    similarity: Callable[[list[str]], list[float]]
    settings: AnswerSettings
    name: str = "similarity"

    def __call__(self, query: Query, passages: Sequence[PassageBlocks]) -> list[list[float]]:
        s = self.settings
        return best_blocks_scored(passages, s.similarity_blocks, s.similarity_chars, self.similarity, s.similarity_weight)


@dataclass(frozen=True)
class RelevanceScorer:
    """``relevance``: ``settings.relevance_weight`` times the relevance model's probability (0..1, higher:
    the block answers the question; app/retrieval/relevance.py) for each passage's
    ``settings.relevance_blocks`` best blocks so far (heading and text, first ``settings.similarity_chars``
    characters), in one call of ``relevance(texts)``, which returns one probability per text. The model
    reads the question and the block together, so it can tell the block naming the answer from one
    that only shares the question's words."""

    relevance: Callable[[list[str]], list[float]]
    settings: AnswerSettings
    name: str = "relevance"

    def __call__(self, query: Query, passages: Sequence[PassageBlocks]) -> list[list[float]]:
        s = self.settings
        return best_blocks_scored(passages, s.relevance_blocks, s.similarity_chars, self.relevance, s.relevance_weight)


def similarity_text(unit: Unit, chars: int = SIMILARITY_CHARS) -> str:
    """What a block scorer reads of ``unit``: its heading and match text, the first ``chars``
    characters. The build embeds every block's (app/bundle/block_vectors.py), so the two must agree."""
    return f"{unit.heading}: {unit.match_text}"[:chars]


def best_blocks_scored(passages: Sequence[PassageBlocks], blocks: int, chars: int,
                       score: Callable[[list[str]], list[float]], weight: float) -> list[list[float]]:
    """For each passage, ``weight`` times ``score`` (negative: 0) of its ``blocks`` best blocks so far
    (heading and text, first ``chars`` characters), read in one call of ``score(texts)``; 0.0 for the
    other blocks. What :class:`SimilarityScorer` and :class:`RelevanceScorer` share."""
    keep = [{id(c.unit) for c in p.ranked()[:blocks]} for p in passages]
    texts = [similarity_text(c.unit, chars) for p, k in zip(passages, keep) for c in p.candidates if id(c.unit) in k]
    values = iter(score(texts) if texts else [])
    return [[weight * max(0.0, float(next(values))) if id(c.unit) in k else 0.0
             for c in p.candidates] for p, k in zip(passages, keep)]


def rescore(query: Query, passages: list[PassageBlocks], scorers: Sequence[Scorer]) -> list[PassageBlocks]:
    """``passages`` with each scorer's numbers added to their blocks' scores, scorers in order (each
    sees the scores the ones before it left)."""
    for scorer in scorers:
        added = scorer(query, passages)
        passages = [PassageBlocks(p.passage, tuple(Candidate(c.unit, c.score + a) for c, a in zip(p.candidates, adds)))
                    for p, adds in zip(passages, added)]
    return passages
