"""Quote rules: which passages are quoted, which of their blocks, and how the list of quotes ends.

Each rule is a small function named in :data:`~app.answer.settings.RULES`, switched off by leaving
its name out of :attr:`AnswerSettings.rules <app.answer.settings.AnswerSettings.rules>`. Three
stages, each a tuple of ``(name, rule)`` run in order (docs/answers.md, "Quote selection: the
pipeline", has an entry per rule):

- :data:`PASSAGE_RULES`, ``rule(passages, ctx) -> passages``: which scored passages may be quoted;
- :data:`BLOCK_RULES`, ``rule(chosen, blocks, ctx) -> chosen``: blocks added to a passage's best;
- :data:`QUOTE_RULES`, ``rule(quotes, ctx) -> quotes``: the quotes as a whole.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Callable, Sequence, TypeVar

from ..i18n import language_rules
from ..text.grammar import LIST_MARKER, LIST_MARKER_TEXT
from ..text.tokenize import DEFAULT_STEMMER, query_words, words_found
from .blocks import Unit
from .quotes import Quote
from .scorers import Candidate, PassageBlocks, Query, exact_bonus, heading_asks, holds_question_word, stop_stems
from .settings import AnswerSettings

#: A fence line of a code block (its info string, "```bash", is not a word of the block).
_FENCE_LINE = re.compile(r"(?m)^[ \t>]*(?:```|~~~)[^\n]*$")
_MARKUP_EDGE = re.compile(r"^[\s>*_+-]*(?:\d+[.)]\s+)?|[\s*_]+$")


@dataclass(frozen=True)
class RuleContext:
    """What every rule may read: the parsed question, the settings, and ``guide_text(path)``, a guide's
    whole text (None: not available, as in tests without a bundle)."""

    query: Query
    settings: AnswerSettings
    guide_text: Callable[[str], str] | None = None


# --- which passages are quoted ---------------------------------------------------------------

def near_best(passages: list[PassageBlocks], ctx: RuleContext) -> list[PassageBlocks]:
    """``near_best``: a passage after the first is kept when it comes from the same guide or its fused
    retrieval score is at least ``min_relative_score`` of the first's."""
    top = passages[0].passage.hit
    share = ctx.settings.min_relative_score
    return [b for b in passages if b.passage.hit.source == top.source
            or (top.score > 0 and b.passage.hit.score >= share * top.score)]


def relevant(passages: list[PassageBlocks], ctx: RuleContext) -> list[PassageBlocks]:
    """``relevant``: the passages with a scoring block that holds a question word in its own text (a
    heading alone is not enough, except for a ``name`` question or a heading that asks the question
    itself, :func:`~app.answer.scorers.heading_asks`: a FAQ's "Why does my command say Permission
    denied?" over "This message means…"); all of them when none has one."""
    q = ctx.query
    words = [*q.words, *q.context]
    kept = [b for b in passages
            if any(c.score > 0 and (q.kind == "name" or holds_question_word(c.unit, words, q.stemmer)
                                    or heading_asks(q, c.unit))
                   for c in b.candidates)]
    return kept or passages


# --- which blocks of a passage are quoted (the best one always) ------------------------------

def second_block(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``second_block``: the next best blocks, up to ``blocks_per_passage`` in all, that score above 0
    and at least ``second_block_share`` of the best's score without its ``exact_bonus`` (else a block
    with the exact identifier pushes out the sentence that explains it), while the quoted blocks stay
    within ``passage_quote_chars`` characters. A question the guide asks (:func:`asks`) is passed over:
    it holds no fact ("…mais ne saisissons pas `*.pdb` après la commande ?" was quoted instead of the
    Ctrl+C sentence after it; docs/answers.md, "A lesson's own questions")."""
    s = ctx.settings
    ranked = blocks.ranked()
    best = ranked[0]
    bar = best.score - (exact_bonus(ctx.query, best.unit, s) if s.on("exact_bonus") else 0.0)
    used = sum(len(u.text) for u in chosen)
    chosen = list(chosen)
    for c in [c for c in ranked[1:] if not asks(c.unit)][:s.blocks_per_passage - 1]:
        if c.score > 0 and c.score >= s.second_block_share * bar and used + len(c.unit.text) <= s.passage_quote_chars:
            chosen.append(c.unit)
            used += len(c.unit.text)
    return chosen


def asks(unit: Unit) -> bool:
    """Whether ``unit`` is a question the guide asks (a sentence ending in "?", "¿…?" included): it holds
    no fact itself, the text after it does."""
    return unit.kind == "sentence" and unit.text.rstrip("*_ ").endswith("?")


def counting(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``counting``: for a question asking "how many", every item of a list a chosen item belongs to
    (the items are the answer, not the one or two best of them)."""
    if not ctx.query.counting or not any(u.kind == "item" for u in chosen):
        return chosen
    lists = {u.start for u in chosen if u.kind == "item"}
    return chosen + [c.unit for c in blocks.candidates
                     if c.unit.kind == "item" and c.unit.start in lists and c.unit not in chosen]


def _after(unit: Unit, candidates: Sequence[Candidate]) -> Unit | None:
    return candidates[unit.order + 1].unit if unit.order + 1 < len(candidates) else None


@functools.lru_cache(maxsize=16)
def points_back_pattern(language: str) -> re.Pattern:
    """A sentence opening with a word that points back ("This behavior…", "Cela…", "Esto…"): the
    ``[quotes] points_back`` words of ``language``'s table (app/i18n) and English's."""
    words = sorted(language_rules(language).points_back, key=len, reverse=True)
    return re.compile(rf"^[*_]*(?:{'|'.join(map(re.escape, words))})\b", re.I)


def echoes(unit: Unit, words: Sequence[tuple[str, ...]], share: float, stemmer: str = DEFAULT_STEMMER,
           stop: frozenset[str] = frozenset()) -> bool:
    """Whether ``unit`` mostly restates the question (at least ``share`` of its own words, cut with
    ``stemmer`` and without the ``stop`` words, are among ``words``: an error message the student
    pasted, a problem statement) rather than answering it. A code block is an answer, never an echo;
    a lead-in with its code ("If we try `rm thesis`, we get an error: ```$ rm thesis```") is judged
    by its words, the code's included, its fence lines not."""
    if unit.kind != "lead-in" and "```" in unit.text:
        return False
    own = [w for w in query_words(_FENCE_LINE.sub(" ", unit.match_text), stemmer) if w[0] not in stop]
    if not own:
        return False
    asked = {v for w in words for v in w}
    return words_found(own, asked) >= share * len(own)


def echo(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``echo``: a best block that restates the question (:func:`echoes`, ``echo_share``; the course
    language's stop words not counted, as in the question's words) brings the block after it, its
    answer."""
    follower = _after(chosen[0], blocks.candidates)
    q = ctx.query
    if follower is None or follower in chosen or not echoes(
            chosen[0], q.words, ctx.settings.echo_share, q.stemmer, stop_stems(ctx.settings.language, q.stemmer)):
        return chosen
    return chosen + [follower]


def guide_question(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``guide_question``: a best block that is a question the guide asks ("…, so why does it work?")
    brings the block after it, which answers it."""
    best = chosen[0]
    after = _after(best, blocks.candidates)
    if asks(best) and after is not None and after not in chosen:
        return chosen + [after]
    return chosen


def points_back(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``points_back``: a chosen sentence opening with a word that points back ("This behavior…",
    "It…") brings the sentence before it in its paragraph: alone it does not say what it is about."""
    chosen = list(chosen)
    for unit in list(chosen):
        before = blocks.candidates[unit.order - 1].unit if unit.order else None
        if (unit.kind == "sentence" and before is not None and before not in chosen
                and before.kind == "sentence" and before.start == unit.start
                and points_back_pattern(ctx.settings.language).match(unit.text)):
            chosen.append(before)
    return chosen


def follows_on(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``follows_on``: a chosen sentence brings the next unit of its paragraph when that one opens with
    a word that points back and shows the example it speaks of ("…use `grep` with `-w`." then "This
    limits matches to words: ```grep -w The```"), while the quoted blocks stay within
    ``passage_quote_chars`` characters."""
    chosen = list(chosen)
    used = sum(len(u.text) for u in chosen)
    pattern = points_back_pattern(ctx.settings.language)
    for unit in list(chosen):
        after = _after(unit, blocks.candidates)
        if (unit.kind == "sentence" and after is not None and after not in chosen and after.kind == "lead-in"
                and after.start == unit.start and pattern.match(after.text)
                and used + len(after.text) <= ctx.settings.passage_quote_chars):
            chosen.append(after)
            used += len(after.text)
    return chosen


def after_example(chosen: list[Unit], blocks: PassageBlocks, ctx: RuleContext) -> list[Unit]:
    """``after_example``: a chosen lead-in whose sentence has at most ``example_lead_words`` words
    ("For example:", "Par exemple :") brings the sentence after its example, which says what the
    example shows ("Doing this may give you incorrect results")."""
    chosen = list(chosen)
    for unit in list(chosen):
        lead = unit.text.split("\n\n", 1)[0]
        after = _after(unit, blocks.candidates)
        if (unit.kind == "lead-in" and len(re.findall(r"\w+", lead)) <= ctx.settings.example_lead_words
                and after is not None and after.kind == "sentence" and after not in chosen):
            chosen.append(after)
    return chosen


# --- the quotes as a whole ---------------------------------------------------------------------

def heading(quotes: list[Quote], ctx: RuleContext) -> list[Quote]:
    """``heading``: each quote shows its first block's section heading unless the quote already holds
    it: it says what the quote is about and often names what the question asks for when the quote
    only describes it. Off: no heading is shown."""
    shown = []
    for q in quotes:
        name = q.units[0].heading
        words = " ".join(u.text for u in q.units).lower()
        shown.append(replace(q, heading=name if name.lower() not in words else ""))
    return shown


def duplicate(quotes: list[Quote], ctx: RuleContext) -> list[Quote]:
    """``duplicate``: a quote with the same words as an earlier one (the same lesson in two guides, a
    Python and an R version) is dropped."""
    kept: list[Quote] = []
    for q in quotes:
        if not any(q.text == earlier.text for earlier in kept):
            kept.append(q)
    return kept


def _lines(unit: Unit, min_chars: int) -> frozenset[str]:
    """The unit's lines of at least ``min_chars`` characters, without list markers and emphasis."""
    lines = (_MARKUP_EDGE.sub("", line) for line in unit.text.splitlines())
    return frozenset(line for line in lines if len(line) >= min_chars)


def repeats(quotes: list[Quote], ctx: RuleContext) -> list[Quote]:
    """``repeats``: a block whose every line (of at least ``repeat_line_chars`` characters) another quote
    shows too is dropped (overlapping chunks of one guide quote the same list or sentence twice): the
    block in the other quote holding more lines stays, or the earlier one when both hold the same. A
    quote left with no block is dropped."""
    lines = [[_lines(u, ctx.settings.repeat_line_chars) for u in q.units] for q in quotes]
    kept: list[Quote] = []
    for i, quote in enumerate(quotes):
        units = tuple(u for k, u in enumerate(quote.units)
                      if not lines[i][k] or not any(
                          lines[i][k] <= other and (lines[i][k] != other or j < i)
                          for j in range(len(quotes)) if j != i for other in lines[j]))
        if len(units) == len(quote.units):
            kept.append(quote)
        elif units:
            kept.append(replace(quote, units=units))
    return kept


def _is_list_line(line: str) -> bool:
    return bool(LIST_MARKER.match(line)) or (line[:1] in (" ", "\t") and bool(line.strip()))


def list_goes_on(quote: Quote, quotes: list[Quote], guide_text: Callable[[str], str]) -> bool:
    """Whether a list ``quote`` shows is cut: shortened with "…", or running on past either end of its
    passage into guide text that no other quote of the same guide shows."""
    lists = [u for u in quote.units if u.kind in ("item", "lead-in") and re.search(rf"(?m)^\s*{LIST_MARKER_TEXT}\s", u.text)]
    if not lists:
        return False
    if any(re.search(rf"(?m)^\s*{LIST_MARKER_TEXT}?\s*…\s*$", u.text) for u in lists):
        return True
    hit = quote.passage.hit
    guide = guide_text(hit.source)
    if guide[hit.span[0]:hit.span[1]] != hit.text:
        return False  # not the guide's text (a converted file): no way to tell
    seen = [q.passage.hit.span for q in quotes if q.passage.hit.source == hit.source]
    text = hit.text
    last = max(u.end for u in lists)
    if last <= len(text) and not text[last:].strip():  # the list ends the passage: does the guide go on?
        # (last > len(text): the list was completed from the guide, so it was read to its end)
        after = guide[hit.span[1]:]
        nxt = next((line for line in after.splitlines() if line.strip()), "")
        gap = len(after) - len(after.lstrip())
        if LIST_MARKER.match(nxt) and not any(start == hit.span[1] + gap or start == hit.span[1] for start, _ in seen):
            return True
    if not text[:min(u.start for u in lists)].strip():  # the list opens the passage: did it start before?
        before = guide[:hit.span[0]].rstrip()
        prev = before.splitlines()[-1] if before else ""
        if _is_list_line(prev) and not any(end >= len(before) and end <= hit.span[0] for _, end in seen):
            return True
    return False


def partial_list(quotes: list[Quote], ctx: RuleContext) -> list[Quote]:
    """``partial_list``: for a question asking for a count, the last quote whose list goes on in the
    guide (:func:`list_goes_on`) gets ``partial_list_note`` (needs ``guide_text``)."""
    if ctx.guide_text is None or not ctx.query.counting:
        return quotes
    partial = [i for i, q in enumerate(quotes) if list_goes_on(q, quotes, ctx.guide_text)]
    if not partial:
        return quotes
    quotes = list(quotes)
    quotes[partial[-1]] = replace(quotes[partial[-1]], note=ctx.settings.partial_list_note)
    return quotes


R = TypeVar("R")


def switched_on(stage: Sequence[tuple[str, R]], settings: AnswerSettings) -> list[R]:
    """The rules of ``stage`` that ``settings`` switches on, in order."""
    return [rule for name, rule in stage if settings.on(name)]


PASSAGE_RULES: tuple[tuple[str, Callable[[list[PassageBlocks], RuleContext], list[PassageBlocks]]], ...] = (
    ("near_best", near_best), ("relevant", relevant))
BLOCK_RULES: tuple[tuple[str, Callable[[list[Unit], PassageBlocks, RuleContext], list[Unit]]], ...] = (
    ("second_block", second_block), ("counting", counting), ("echo", echo),
    ("guide_question", guide_question), ("points_back", points_back), ("follows_on", follows_on),
    ("after_example", after_example))
QUOTE_RULES: tuple[tuple[str, Callable[[list[Quote], RuleContext], list[Quote]]], ...] = (
    ("heading", heading), ("duplicate", duplicate), ("repeats", repeats), ("partial_list", partial_list))


def choose_blocks(blocks: PassageBlocks, ctx: RuleContext) -> tuple[Unit, ...]:
    """The blocks quoted from one passage, in reading order: its best block, then what each
    :data:`BLOCK_RULES` rule switched on adds."""
    chosen = [blocks.ranked()[0].unit]
    for rule in switched_on(BLOCK_RULES, ctx.settings):
        chosen = rule(chosen, blocks, ctx)
    return tuple(sorted(chosen, key=lambda u: u.order))
