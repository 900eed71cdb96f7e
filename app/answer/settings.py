"""The extractive answer's tuning: every constant with the measurement behind it (or "not
measured"), the names of the quote rules and scorers that can be switched off, and the one frozen
record, :class:`AnswerSettings`, that :func:`~app.answer.extractive.choose_quotes` is given
(docs/answers.md, "Quote selection: the pipeline"). Counts are answers holding an expected phrase,
search-only, unless said otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Passages quoted at most. Measured on IoT (docs/answers.md, "Citations into an expected source"):
#: up to 3 passages, 44/46 answers cite an expected source; up to 2, 42/46.
MAX_PASSAGES = 3
#: Blocks quoted per passage at most. Three instead of two: IoT 38, demo 22 (unchanged), but the median
#: IoT reply grows from 861 to 1,112 characters (docs/answers.md, "Answer blocks").
BLOCKS_PER_PASSAGE = 2
#: ``near_best``: a passage after the first is quoted when its fused score is at least this share of
#: the best's (or it comes from the same guide). IoT, answers citing an expected source: 0.8 44/46,
#: 0.9 42/46, same guide only 38/46 (docs/answers.md, "Citations into an expected source").
MIN_RELATIVE_SCORE = 0.8
#: ``word_share``: a question word found only in a block's heading counts this much of one found in
#: its text. Not measured.
HEADING_WEIGHT = 0.5
#: ``shape_bonus``: added to a block with code, a command or numbered steps when the question asks how
#: to do something (HOW_BONUS), and to a definition-like block when it asks for a name or term
#: (NAME_BONUS). Not measured (requiring a question word in the block itself changed no count).
HOW_BONUS = 0.25
NAME_BONUS = 0.2
#: ``shape_bonus``: added to a block holding a number or a name in code when the question asks "which
#: one / how much": "Which resistor should I use?" is answered by the table of values, not the sentence
#: on what a resistor does. Six dev sets: demo +1, no count lower, the same at 0.1, 0.15 and 0.3
#: (docs/answers.md, "Fifth session").
VALUE_BONUS = 0.15
#: ``exact_bonus``: added to a block's score times the share of the question's code tokens
#: (``cloneNode(true)``, ``--sku``, ``===``) it holds verbatim. The rule: Web Development (held out)
#: 19 -> 21 of 25 with ``guide_question``, IoT 38, demo 20, DS 19 unchanged (docs/answers.md, "Held-out
#: sets"); the value 0.25 not measured.
EXACT_BONUS = 0.25
#: ``similarity``: weight of a block's cosine similarity to the question added to its score. The
#: scorer: IoT 33 -> 37 of 46 (docs/answers.md, "Answer blocks"); the weight 0.5 not measured on
#: blocks (on single sentences, weights 0.3 to 1.0 were no better than words alone).
SIMILARITY_WEIGHT = 0.5
#: ``similarity``: characters of a block (heading included) that are embedded: 256 (about 64 MiniLM
#: tokens) instead of 400 changed 5 of 151 replies over five question sets and no count, and cut IoT's
#: evidence p95 from 193-199 ms to 125-156 ms in three alternating runs (docs/answers.md).
SIMILARITY_CHARS = 256
#: ``similarity``: blocks of each quoted passage embedded (its best by score so far): 3 instead of
#: every block, the same counts (IoT 37, demo 18), evidence p50 about 190 -> 95 ms (docs/answers.md,
#: "Answer blocks").
SIMILARITY_BLOCKS = 3
#: ``relevance``: weight of the relevance model's probability (app/retrieval/relevance.py, issue 24) that a
#: block answers the question, added to the block's score; it reads the first SIMILARITY_CHARS characters of
#: each passage's RELEVANCE_BLOCKS best blocks so far. Used only when a relevance model is loaded;
#: measurement: docs/answers.md, "Relevance model".
RELEVANCE_WEIGHT = 0.5
RELEVANCE_BLOCKS = 4
#: ``second_block``: a second block of a passage is quoted when it scores at least this share of the
#: passage's best. 0.4 since question words are weighted by IDF (the best block's lead over the rest
#: grew: at 0.5, three second blocks holding the answer were dropped on the demo and Web Development
#: sets; docs/answers.md, "Fourth session"); 0.7 -> 0.5 before IDF: IoT 37 -> 38, demo 18 -> 20.
SECOND_BLOCK_SHARE = 0.4
#: ``second_block``: most characters of quoted blocks per passage (a long code block or list counts
#: once, whole). Not measured.
PASSAGE_QUOTE_CHARS = 600
#: ``echo``: a block echoes the question when at least this share of its own words are the
#: question's. The rule (with nested list items cut into blocks): IoT 29 -> 31 of 46 (docs/answers.md,
#: "Answer blocks"); the share 0.6 not measured.
ECHO_SHARE = 0.6
#: ``after_example``: a lead-in whose sentence has at most this many words ("For example:", "Par exemple :",
#: "Por ejemplo:") says nothing itself, so the sentence after its example, which says what the example
#: shows, is quoted with it. The rule: French dev set 15 -> 16 of 24 (shfr-012, "des résultats
#: incorrects"), Spanish, demo and IoT replies unchanged (docs/answers.md, "Languages"); 3 not measured.
EXAMPLE_LEAD_WORDS = 3
#: ``repeats``: a line shorter than this (characters, list marker and emphasis stripped) is not
#: compared when looking for a block quoted twice: short lines ("Task", "}") repeat without repeating
#: content. The rule: dev-set replies repeating a line across quotes 15 -> 10 of 139, no count changed
#: (docs/answers.md, "Fourth session"); 30 not measured.
REPEAT_LINE_CHARS = 30
#: Most characters of guide text after a passage read to finish its last block (a lead-in whose list,
#: code or table the chunker put in the next chunk; a sentence cut at the chunk's end). The rule: a
#: lead-in quoted alone in 7 of 157 replies, now none (docs/answers.md, "Answer blocks"); 1500 not
#: measured.
CONTINUATION_CHARS = 1500
#: ``partial_list``: the note under a quoted list that goes on in the guide, for a question asking for
#: a count, so the student does not count the items shown and take that for the answer
#: (tests/test_bug_classes.py).
PARTIAL_LIST_NOTE = ("Only part of the list is quoted here: it goes on in the guide, "
                     "so open the section to see every item.")

#: Scorers and rules of quote selection, in the order they run (docs/answers.md names each);
#: :attr:`AnswerSettings.rules` lists those switched on.
RULES = (
    # added to a block's word share (app/answer/scorers.py)
    "exact_bonus", "shape_bonus",
    # which passages are quoted (app/answer/rules.py)
    "near_best", "relevant",
    # scorers run on the quoted passages' blocks (app/answer/scorers.py)
    "similarity", "relevance",
    # which blocks of a passage are quoted, besides its best (app/answer/rules.py)
    "second_block", "counting", "echo", "guide_question", "points_back", "follows_on", "after_example",
    # the list of quotes (app/answer/rules.py)
    "heading", "duplicate", "repeats", "partial_list",
)


@dataclass(frozen=True)
class AnswerSettings:
    """Quote selection's tuning, one record (defaults: the module constants above, where each value's
    measurement is written down). ``rules`` names the scorers and rules switched on (a subset of
    :data:`RULES`; the order does not matter, they run in :data:`RULES` order). Tests and experiments
    pass another with ``dataclasses.replace(AnswerSettings(), rules=...)`` instead of changing the
    constants."""

    max_passages: int = MAX_PASSAGES
    blocks_per_passage: int = BLOCKS_PER_PASSAGE
    min_relative_score: float = MIN_RELATIVE_SCORE
    heading_weight: float = HEADING_WEIGHT
    how_bonus: float = HOW_BONUS
    name_bonus: float = NAME_BONUS
    value_bonus: float = VALUE_BONUS
    exact_bonus: float = EXACT_BONUS
    similarity_weight: float = SIMILARITY_WEIGHT
    similarity_chars: int = SIMILARITY_CHARS
    similarity_blocks: int = SIMILARITY_BLOCKS
    relevance_weight: float = RELEVANCE_WEIGHT
    relevance_blocks: int = RELEVANCE_BLOCKS
    second_block_share: float = SECOND_BLOCK_SHARE
    passage_quote_chars: int = PASSAGE_QUOTE_CHARS
    echo_share: float = ECHO_SHARE
    example_lead_words: int = EXAMPLE_LEAD_WORDS
    repeat_line_chars: int = REPEAT_LINE_CHARS
    continuation_chars: int = CONTINUATION_CHARS
    partial_list_note: str = PARTIAL_LIST_NOTE
    rules: tuple[str, ...] = RULES
    #: the course's language tag: the question's shape is read by its rules too (app/i18n); '' English
    language: str = ""
    #: the stemmer the course's words were cut with (app/text/tokenize.py; the bundle records it)
    stemmer: str = "english"

    def __post_init__(self) -> None:
        unknown = [r for r in self.rules if r not in RULES]
        if unknown:
            raise ValueError(f"unknown quote rules {unknown}; known: {', '.join(RULES)}")

    def on(self, rule: str) -> bool:
        """Whether the scorer or rule named ``rule`` (one of :data:`RULES`) is switched on."""
        return rule in self.rules
