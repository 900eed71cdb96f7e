"""Extractive answers: the answer blocks of the best passages that answer the question, each cited.

The extractive answer is the evidence shown as soon as retrieval is done (DESIGN.md, "Evidence
first"): the guides' own words, not a fallback. Each passage is cut into answer blocks
(:mod:`app.answer.blocks`: a sentence, a lead-in with the list/code/table it introduces, a list
item, a code block, a table row with its header); :func:`choose_quotes` then runs the quote
pipeline (docs/answers.md, "Quote selection: the pipeline"):

1. the question is parsed once into a :class:`~app.answer.scorers.Query` (:func:`make_query`);
2. each block gets its word score (:func:`~app.answer.scorers.score_block`: the share of the
   question's words it holds, best variant per word and IDF-weighted, plus the code-token and
   question-shape bonuses);
3. the passage rules choose the quotable passages (:data:`~app.answer.rules.PASSAGE_RULES`);
4. the scorers add to their blocks' scores (:func:`~app.answer.scorers.rescore`: the block's
   meaning when an embedding model is loaded, and any scorer passed in, such as a relevance model);
5. each passage gives its best block and what the block rules add (:data:`~app.answer.rules.BLOCK_RULES`);
6. the quote rules finish the list (:data:`~app.answer.rules.QUOTE_RULES`: the heading, no quote or
   block twice, the partial-list note).

Every constant is in :class:`~app.answer.settings.AnswerSettings`; a rule or scorer is switched off
by leaving its name out of ``AnswerSettings.rules``.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Callable, Sequence

from ..ingest.markdown import parse_blocks
from ..question import asks_count, code_tokens, question_kind
from ..records import Passage
from ..text.tokenize import DEFAULT_STEMMER, query_words
from .blocks import Unit, passage_units
from .quotes import Quote as Quote
from .rules import PASSAGE_RULES, QUOTE_RULES, RuleContext, choose_blocks, switched_on
from .scorers import Candidate, PassageBlocks, Query, Scorer, SimilarityScorer, rescore, score_block, stop_stems
from .settings import PARTIAL_LIST_NOTE as PARTIAL_LIST_NOTE
from .settings import RULES, AnswerSettings

# The question's shape (``asks_count``, ``question_kind``, ``code_tokens``) is read by app/question.py's
# functions, the one copy of its grammars (issue 25).


def make_query(question: str, context: str = "",
               word_weight: Callable[[tuple[str, ...]], float] | None = None, language: str = "",
               stemmer: str = DEFAULT_STEMMER) -> Query:
    """The question parsed once for quote selection: its words (cut with the course's ``stemmer``),
    the previous turn's (``context``), its kind, code tokens and whether it asks for a count (by the
    rules of the course's ``language`` tag and English's); ``word_weight`` (the bundle's IDF) is
    looked up once per word."""
    words = query_words(question, stemmer)
    context_words = query_words(context, stemmer) if context else []
    stop = stop_stems(language, stemmer)  # the language table's stop words (the stemmer's are dropped already)
    if stop:
        words = [w for w in words if w[0] not in stop]
        context_words = [w for w in context_words if w[0] not in stop]
    if word_weight is not None:
        word_weight = {w: word_weight(w) for w in [*words, *context_words]}.__getitem__
    return Query(tuple(words), tuple(context_words), question_kind(question, language),
                 tuple(code_tokens(question)), asks_count(question, language), word_weight, stemmer=stemmer)


def extractive_answer(question: str, passages: list[Passage], max_passages: int | None = None,
                      per_passage: int | None = None, context: str = "",
                      guide_text: Callable[[str], str] | None = None,
                      similarity: Callable[[list[str]], list[float]] | None = None) -> tuple[str, list[Passage]]:
    """``(answer Markdown, cited passages)`` of :func:`choose_quotes` (same arguments): each quote's
    Markdown, in passage order; ``("", [])`` when no passage has a quotable block."""
    quotes = choose_quotes(question, passages, max_passages, per_passage, context, guide_text, similarity)
    return "\n\n".join(q.markdown for q in quotes), [q.passage for q in quotes]


def choose_quotes(question: str, passages: list[Passage], max_passages: int | None = None,
                  per_passage: int | None = None, context: str = "",
                  guide_text: Callable[[str], str] | None = None,
                  similarity: Callable[[list[str]], list[float]] | None = None,
                  word_weight: Callable[[tuple[str, ...]], float] | None = None,
                  settings: AnswerSettings = AnswerSettings(), scorers: Sequence[Scorer] = ()) -> list[Quote]:
    """The best answer blocks (at most ``per_passage``, default ``settings.blocks_per_passage``) of each
    of the first ``max_passages`` (default ``settings.max_passages``) quotable passages, in passage
    order, one :class:`Quote` per passage; ``[]`` when no passage has a block.

    ``context`` is the previous user turn of a follow-up: its words count HISTORY_WEIGHT (0.6) of
    the question's own, as in retrieval. ``guide_text(path)`` returns a guide's whole text (used to
    give a table row that starts a chunk its header row); ``similarity(texts)`` gives the cosine
    of the question to each text (the ``similarity`` scorer; None: words only); ``word_weight(word)``
    weighs a question word (the bundle's IDF, :meth:`LexicalIndex.idf`; None: 1 each). ``scorers`` run
    after ``similarity`` on the quoted passages' blocks (:class:`~app.answer.scorers.Scorer`: where a
    relevance model plugs in). A passage with no block holding a question word is not quoted unless
    nothing else is (rule ``relevant``). Measurements: docs/answers.md.
    """
    settings = replace(settings, max_passages=settings.max_passages if max_passages is None else max_passages,
                       blocks_per_passage=settings.blocks_per_passage if per_passage is None else per_passage)
    query = make_query(question, context, word_weight, settings.language, settings.stemmer)
    ctx = RuleContext(query, settings, guide_text)
    scored = [b for b in (_scored_blocks(p, ctx) for p in passages) if b.candidates]
    if not scored:
        return []
    for passage_rule in switched_on(PASSAGE_RULES, settings):
        scored = passage_rule(scored, ctx)
    quotable = scored[:settings.max_passages]
    if similarity is not None and settings.on("similarity"):
        scorers = [SimilarityScorer(similarity, settings), *scorers]
    scorers = [s for s in scorers if s.name not in RULES or settings.on(s.name)]
    quotable = rescore(query, quotable, scorers)
    quotes = [Quote(b.passage, choose_blocks(b, ctx), "") for b in quotable]
    for quote_rule in switched_on(QUOTE_RULES, settings):
        quotes = quote_rule(quotes, ctx)
    return quotes


def _scored_blocks(passage: Passage, ctx: RuleContext) -> PassageBlocks:
    """The passage's blocks that start inside its own text (the guide's text after it only finishes
    the last one: :func:`_continuation`), each with its :func:`~app.answer.scorers.score_block`."""
    hit, query, guide_text = passage.hit, ctx.query, ctx.guide_text
    text = hit.text + (_continuation(passage, guide_text, ctx.settings) if guide_text is not None else "")
    units: list[Unit] = [
        u for u in passage_units(text, hit.heading, offset=hit.span[0], words=[*query.words, *query.context],
                                 stemmer=query.stemmer,
                                 guide_text=functools.partial(guide_text, hit.source) if guide_text else None)
        if u.start < len(hit.text.rstrip())]
    return PassageBlocks(passage, tuple(Candidate(u, score_block(query, u, ctx.settings)) for u in units))


def _continuation(passage: Passage, guide_text: Callable[[str], str], settings: AnswerSettings) -> str:
    """The guide's text right after ``passage`` up to the end of the block that follows it (at most
    ``settings.continuation_chars`` characters); '' when the passage's text is not the guide's own at its span
    (a converted file) or the guide ends there. Only blocks that start inside the passage are
    quoted, so this completes a lead-in or a sentence the chunk cut, never adds a new block."""
    hit = passage.hit
    guide = guide_text(hit.source)
    start, end = hit.span
    if guide[start:end] != hit.text:
        return ""
    rest = guide[end:end + settings.continuation_chars]
    if not hit.text.rstrip().endswith(":"):
        # Only the line the chunk was cut in (none when it ends at a line's end).
        if hit.text.endswith("\n"):
            return ""
        cut = rest.find("\n")
        return rest if cut < 0 else rest[:cut]
    blocks = parse_blocks(rest)
    return rest[:blocks[0].end] if blocks else ""
