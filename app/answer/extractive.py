"""Extractive answers: the answer blocks of the best passages that answer the question, each cited.

The extractive answer is the evidence shown as soon as retrieval is done (DESIGN.md, "Evidence
first"): the guides' own words, not a fallback. Each passage is cut into answer blocks
(:mod:`app.answer.blocks`: a sentence, a lead-in with the list/code/table it introduces, a list
item, a code block, a table row with its header); blocks are scored by the share of the
question's words they contain (best variant per word, as in the lexical leg), with a bonus for
commands, code and numbered steps when the question asks how to do something, and for a
definition when it asks what something is called, and (when an embedding model is loaded) the
block's meaning. The section heading is shown with each quote.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..ingest.markdown import parse_blocks
from ..records import Passage
from ..retrieval.identifiers import extract_identifiers
from ..retrieval.settings import HISTORY_WEIGHT
from ..text.tokenize import document_tokens, query_words, words_found
from .blocks import Unit, passage_units

#: A question asking for a count ("how many steps…", "the number of rules"): a list it quotes that
#: goes on beyond the quoted passages gets PARTIAL_LIST_NOTE, so the student does not count the
#: items shown and take that for the answer.
_COUNT = re.compile(r"\bhow many\b|\bthe number of\b", re.I)
_ITEM_LINE = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
PARTIAL_LIST_NOTE = ("Only part of the list is quoted here: it goes on in the guide, "
                     "so open the section to see every item.")

#: Weight of a block's cosine similarity to the question (``similarity``) added to its word score,
#: and the characters of a block (heading included) that are embedded: 256 (about 64 MiniLM
#: tokens) instead of 400 changed 5 of 151 replies over five question sets and no count, and cut
#: IoT's evidence p95 from 193-199 ms to 125-156 ms in three alternating runs (docs/answers.md).
SIMILARITY_WEIGHT = 0.5
SIMILARITY_CHARS = 256
SIMILARITY_BLOCKS = 3
#: A passage after the first is quoted when its fused score is at least this share of the best's
#: (or it comes from the same guide).
MIN_RELATIVE_SCORE = 0.8
#: Question-word coverage added to a block with code, a command or numbered steps when the question
#: asks how to do something; and to a definition-like block when it asks for a name or term.
HOW_BONUS = 0.25
NAME_BONUS = 0.2
#: Added to a block holding a number or a name in code when the question asks "which one / how much"
#: (``value``): "Which resistor should I use?" is answered by the table of values, not the sentence
#: on what a resistor does. Six dev sets: demo +1, no count lower, the same at 0.1, 0.15 and 0.3.
VALUE_BONUS = 0.15
#: A question word found only in a block's heading counts this much of one found in its text.
HEADING_WEIGHT = 0.5
#: A second block of a passage is quoted when it scores at least this share of the passage's best.
#: 0.4 since question words are weighted by IDF (the best block's lead over the rest grew: at 0.5,
#: three second blocks holding the answer were dropped on the demo and Web Development sets).
SECOND_BLOCK_SHARE = 0.4
#: Most characters of quoted blocks per passage (a long code block or list counts once, whole).
PASSAGE_QUOTE_CHARS = 600

#: A question asking for steps, a command or a fix: opening with "how", or "how do I…" / "how to…" after
#: a clause of context ("After writing my .gitignore, how do I…"), "what fixes it", "is there an
#: option…". Not "how far / many / long…" (a quantity: a ``value`` question). Six dev sets: WD +1, no other count moved.
_HOW = re.compile(r"^\s*(how\b(?!\s+(many|much|long|far|often|big|fast|large|small)\b)|"
                  r"what (command|code|steps?)\b|which (command|function|method)\b|"
                  r"(show|tell) me how\b|what do i (run|type)\b|steps? (to|for)\b)|"
                  r"([,;:.!?]\s+|\b(and|so|but|then)\s+)(how (do|can|should|could|would) (i|we|you)\b|how to\b)|"
                  r"\bwhat (fixes|solves)\b|\bwhat (do|should|can) (i|we) (do|run|type)\b|"
                  r"\bis there (a|an) (\w+ )?(command|option|flag|setting|way)\b", re.I)
_NAME = re.compile(r"\b(called|stand for|stands for|(name|term|word) (for|of)|what do (you|we) call|"
                   r"known as|what does \S+ mean)\b", re.I)
_VALUE = re.compile(r"^\s*which\b|[,;:.!?]\s+which\b|\bhow (many|much|long|far|often|big|fast|large|small)\b|"
                    r"\bby default\b|\b(what|which) (\w+ )?(value|number|default|setting)s?\b|\bset to\b", re.I)
#: A block holding a number or a name in code: what a "which one / how much" question asks for.
_HAS_VALUE = re.compile(r"\d|`[^`\n]+`")
_URL = re.compile(r"\]\([^)\s]*\)|https?://\S+")
_LIST_NUMBER = re.compile(r"(?m)^\s*\d+[.)]\s")


def _has_value(text: str) -> bool:
    """Whether ``text`` holds a number or a name in code, not counting list numbers and link targets."""
    return bool(_HAS_VALUE.search(_URL.sub("", _LIST_NUMBER.sub("", text))))


_DEFINITION = re.compile(r"\b(is|are|means|called|known as|refers to|stands for|is short for)\b", re.I)
#: Added to a block's score times the share of the question's code tokens (identifiers such as
#: ``cloneNode(true)``, ``--sku``, operators such as ``===``) that the block holds verbatim: the words
#: of ``===`` and ``!==`` rows are the same, their symbols are not.
EXACT_BONUS = 0.25
_OPERATOR = re.compile(r"(?<![^\s`(])[=!<>&|+\-*/%^~:.?]{2,4}(?![^\s`),.;?])")
#: A sentence opening with a word that points back ("This behavior…", "It…", "These…") is read with
#: the sentence before it in its paragraph: alone it does not say what it is about.
_POINTS_BACK = re.compile(r"^[*_]*(this|these|that|those|it|its|they|their|such|both|here|there)\b", re.I)


def question_kind(question: str) -> str:
    """``how`` (asks for steps, a command or code), ``name`` (asks what something is called or
    stands for), ``value`` (asks which one or how much: a number, a setting, a name in code) or ``other``."""
    if _HOW.search(question):
        return "how"
    if _NAME.search(question):
        return "name"
    if _VALUE.search(question):
        return "value"
    return "other"


def code_tokens(question: str) -> list[str]:
    """The question's code tokens matched verbatim: identifiers (:func:`extract_identifiers`, single
    tokens with a symbol or digit, or lowerCamelCase; not product names such as ``JavaScript``) and
    operators of two to four symbols (``===``, ``&&``, ``->``)."""
    tokens = [t for t in extract_identifiers(question) if " " not in t.strip()
              and (re.search(r"[^A-Za-z]", t.strip("`")) or re.match(r"[a-z]+[A-Z]", t.strip("`")))]
    tokens += [m.group() for m in _OPERATOR.finditer(question) if m.group() not in ("..", "...", "--")]
    return list(dict.fromkeys(t.strip("`") for t in tokens if t.strip("`")))


def _verbatim_share(tokens: list[str], text: str) -> float:
    """Share of ``tokens`` found in ``text`` as whole tokens (not inside a longer run of symbols
    or word characters: ``===`` is not in ``!==``)."""
    if not tokens:
        return 0.0
    found = 0
    for token in tokens:
        edge_l = r"(?<![\w=!<>&|+\-*/%^~:.?])" if not token[0].isalnum() else r"(?<![\w])"
        edge_r = r"(?![\w=!<>&|+\-*/%^~])" if not token[-1].isalnum() else r"(?![\w])"
        if re.search(edge_l + re.escape(token) + edge_r, text):
            found += 1
    return found / len(tokens)


def _coverage(words: Sequence[tuple[str, ...]], tokens: set[str], heading_tokens: set[str],
              weight: Callable[[tuple[str, ...]], float] | None = None) -> float:
    """Found question words, each counting its ``weight`` (1 when None) in ``tokens`` and
    HEADING_WEIGHT times that when found only in the heading."""
    found = 0.0
    for w in words:
        if any(v in tokens for v in w):
            found += weight(w) if weight else 1.0
        elif any(v in heading_tokens for v in w):
            found += HEADING_WEIGHT * (weight(w) if weight else 1.0)
    return found


def block_score(unit: Unit, words: list[tuple[str, ...]], context: Sequence[tuple[str, ...]] = (),
                context_weight: float = 0.0, kind: str = "other", code: Sequence[str] = (),
                weight: Callable[[tuple[str, ...]], float] | None = None) -> float:
    """Score of one answer block (higher is better; 0..1 plus bonuses of at most HOW_BONUS and
    EXACT_BONUS): the weighted share of question words in the block, plus the question kind's bonus
    when the block has that shape, plus EXACT_BONUS times the share of the question's ``code`` tokens
    the block holds verbatim. Each word weighs ``weight(word)`` (the course's IDF: a rare word the
    block shares says more about what is asked than a common one; 1 each when None), previous-turn
    words ``context_weight`` times that."""
    if not words and not context:
        return 0.0
    tokens = set(document_tokens(unit.match_text))
    heading_tokens = set(document_tokens(unit.heading))
    found = (_coverage(words, tokens, heading_tokens, weight)
             + context_weight * _coverage(context, tokens, heading_tokens, weight))
    total = sum(weight(w) for w in words) + context_weight * sum(weight(w) for w in context) if weight \
        else len(words) + context_weight * len(context)
    score = found / max(1e-9, total)
    if code:
        score += EXACT_BONUS * _verbatim_share(list(code), unit.match_text)
    own = _coverage(words, tokens, set()) > 0  # the bonus needs a question word in the block itself
    if own and kind == "how" and (unit.has_code or unit.is_steps):
        score += HOW_BONUS
    elif own and kind == "name" and _DEFINITION.search(unit.match_text):
        score += NAME_BONUS
    elif own and kind == "value" and _has_value(unit.text):
        score += VALUE_BONUS
    return score


#: A block echoes the question when at least this share of its own words are the question's.
ECHO_SHARE = 0.6


def _echoes(unit: Unit, words: list[tuple[str, ...]]) -> bool:
    """Whether ``unit`` mostly restates the question (an error message the student pasted, a problem
    statement) rather than answering it."""
    own = query_words(unit.match_text)
    if not own or "```" in unit.text:
        return False
    asked = {v for w in words for v in w}
    return words_found(own, asked) >= ECHO_SHARE * len(own)


def _merge_rows(texts: list[str], kinds: list[str]) -> list[str]:
    """Consecutive table rows that share a header become one table (the header once); consecutive
    list items become one list."""
    out: list[str] = []
    previous = ""
    for text, kind in zip(texts, kinds):
        lines = text.splitlines()
        if kind == "row" and previous == "row" and len(lines) >= 3 and out[-1].splitlines()[:2] == lines[:2]:
            out[-1] += "\n" + "\n".join(lines[2:])
        elif kind == "item" and previous == "item":
            out[-1] += "\n" + text
        else:
            out.append(text)
        previous = kind
    return out


def _format_quote(units: list[Unit], n: int, heading: str) -> str:
    """Markdown for one passage's quoted blocks followed by ``[n]``; a heading in italics first.
    Sentences run on in one paragraph; lists, code and tables keep their lines."""
    prefix = f"*{heading}*" if heading else ""
    if all(u.kind == "sentence" and "\n" not in u.text for u in units):
        body = " ".join(u.text for u in units) + f" [{n}]"
        return f"{prefix}: {body}" if prefix else body
    parts = ([prefix] if prefix else []) + _merge_rows([u.text for u in units], [u.kind for u in units])
    last = parts[-1].rstrip()
    if last.endswith(("```", "~~~")) or last.splitlines()[-1].lstrip().startswith(("|", "-", "*", "+")) \
            or re.match(r"\s*\d+[.)]\s", last.splitlines()[-1]):
        parts.append(f"[{n}]")
    else:
        parts[-1] = f"{last} [{n}]"
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Quote:
    """The blocks quoted from one passage: ``units`` in reading order, ``heading`` shown before them
    ('' when none); :attr:`markdown` is how the extractive answer shows them, ending in ``[n]``."""

    passage: Passage
    units: tuple[Unit, ...]
    heading: str
    note: str = ""

    @property
    def markdown(self) -> str:
        quoted = _format_quote(list(self.units), self.passage.n, self.heading)
        return f"{quoted}\n\n*{self.note}*" if self.note else quoted

    @property
    def text(self) -> str:
        """The quoted words without the citation marker (heading first when shown)."""
        body = "\n\n".join(u.text for u in self.units)
        return f"{self.heading}\n\n{body}" if self.heading else body


def extractive_answer(question: str, passages: list[Passage], max_passages: int = 3,
                      per_passage: int = 2, context: str = "",
                      guide_text: Callable[[str], str] | None = None,
                      similarity: Callable[[list[str]], list[float]] | None = None) -> tuple[str, list[Passage]]:
    """``(answer Markdown, cited passages)`` of :func:`choose_quotes` (same arguments): each quote's
    Markdown, in passage order; ``("", [])`` when no passage has a quotable block."""
    quotes = choose_quotes(question, passages, max_passages, per_passage, context, guide_text, similarity)
    return "\n\n".join(q.markdown for q in quotes), [q.passage for q in quotes]


def choose_quotes(question: str, passages: list[Passage], max_passages: int = 3,
                  per_passage: int = 2, context: str = "",
                  guide_text: Callable[[str], str] | None = None,
                  similarity: Callable[[list[str]], list[float]] | None = None,
                  word_weight: Callable[[tuple[str, ...]], float] | None = None) -> list[Quote]:
    """The best answer blocks (at most ``per_passage``) of each of the first ``max_passages``
    quotable passages, in passage order, one :class:`Quote` per passage.

    ``context`` is the previous user turn of a follow-up: its words count HISTORY_WEIGHT (0.6) of
    the question's own, as in retrieval. ``guide_text(path)`` returns a guide's whole text (used to
    give a table row that starts a chunk its header row); ``similarity(texts)`` gives the cosine
    of the question to each text (the blocks' meaning; None: words only); ``word_weight(word)`` weighs
    a question word (the bundle's IDF, :meth:`LexicalIndex.idf`; None: 1 each). A passage with no block
    holding a question word is not quoted unless nothing else is. Measurements: docs/answers.md.
    """
    words = query_words(question)
    context_words = query_words(context) if context else []
    if word_weight is not None:
        word_weight = {w: word_weight(w) for w in [*words, *context_words]}.__getitem__
    kind = question_kind(question)
    code = code_tokens(question)
    counting = bool(_COUNT.search(question))
    scored: list[tuple[Passage, list[tuple[float, Unit]]]] = []
    for p in passages:
        text = p.hit.text + (_continuation(p, guide_text) if guide_text is not None else "")
        found = [u for u in passage_units(text, p.hit.heading, offset=p.hit.span[0], words=[*words, *context_words],
                                          guide_text=functools.partial(guide_text, p.hit.source) if guide_text else None)
                 if u.start < len(p.hit.text.rstrip())]
        if found:
            scored.append((p, [(block_score(u, words, context_words, HISTORY_WEIGHT, kind, code, word_weight), u)
                               for u in found]))
    if not scored:
        return []
    # Passages with blocks to quote; a further passage is quoted only when it is nearly as strong as
    # the best quotable one or from the same guide (measured on IoT: docs/answers.md).
    top = scored[0][0].hit
    quotable = [(p, s) for p, s in scored if p.hit.source == top.source
                or (top.score > 0 and p.hit.score >= MIN_RELATIVE_SCORE * top.score)]
    # A passage is relevant when one of its blocks holds a question word in its own text (a heading
    # alone is not enough, except for a question asking what something is called).
    relevant = [(p, s) for p, s in quotable
                if any(score > 0 and (kind == "name" or _coverage(words + list(context_words),
                                                                   set(document_tokens(u.match_text)), set()))
                       for score, u in s)]
    quotable = (relevant or quotable)[:max_passages]
    if similarity is not None:
        # Meaning as well as words: a paraphrased question matches the block that answers it. Only
        # the quoted passages' blocks are embedded (the time to evidence grows with their number).
        candidates = [{id(u) for _, u in sorted(s, key=lambda su: (-su[0], su[1].order))[:SIMILARITY_BLOCKS]}
                      for _, s in quotable]
        texts = [f"{u.heading}: {u.match_text}"[:SIMILARITY_CHARS]
                 for (_, s), keep in zip(quotable, candidates) for _, u in s if id(u) in keep]
        sims = iter(similarity(texts))
        quotable = [(p, [(score + SIMILARITY_WEIGHT * max(0.0, float(next(sims))) if id(u) in keep else score, u)
                         for score, u in s]) for (p, s), keep in zip(quotable, candidates)]
    quotes: list[Quote] = []
    for passage, units in quotable:
        ranked = sorted(units, key=lambda su: (-su[0], su[1].order))
        # The verbatim bonus picks the best block; the bar for a second block is the best's score
        # without it (else a block with the exact identifier pushes out the sentence that explains it).
        best_score = ranked[0][0] - (EXACT_BONUS * _verbatim_share(code, ranked[0][1].match_text) if code else 0.0)
        chosen = [ranked[0][1]]
        used = len(chosen[0].text)
        for score, unit in ranked[1:per_passage]:
            if score > 0 and score >= SECOND_BLOCK_SHARE * best_score and used + len(unit.text) <= PASSAGE_QUOTE_CHARS:
                chosen.append(unit)
                used += len(unit.text)
        if counting and any(u.kind == "item" for u in chosen):
            # "How many…": the items of the list are the answer, not the one or two best of them.
            lists = {u.start for u in chosen if u.kind == "item"}
            chosen += [u for _, u in units if u.kind == "item" and u.start in lists and u not in chosen]
        best = chosen[0]
        if _echoes(best, words) and best.order + 1 < len(units):
            # The block restating the question (a quoted error, a problem statement) is followed
            # by its answer: quote the next block too.
            follower = units[best.order + 1][1]
            if follower not in chosen:
                chosen.append(follower)
        after = units[best.order + 1][1] if best.order + 1 < len(units) else None
        if best.kind == "sentence" and best.text.rstrip("*_ ").endswith("?") and after is not None \
                and after not in chosen:
            chosen.append(after)  # the best block is a question the guide asks: its answer follows
        for unit in list(chosen):
            before = units[unit.order - 1][1] if unit.order else None
            if (unit.kind == "sentence" and before is not None and before not in chosen
                    and before.kind == "sentence" and before.start == unit.start
                    and _POINTS_BACK.match(unit.text)):
                chosen.append(before)
        chosen.sort(key=lambda u: u.order)
        # The heading is always shown (unless the quote already holds it): it says what the quote is
        # about and often names what the question asks for when the quote only describes it (IoT,
        # answers holding an expected phrase: 31/46 when shown only if it shares a question word,
        # 33/46 always; docs/answers.md).
        heading = chosen[0].heading
        shown_heading = heading if heading.lower() not in " ".join(u.text for u in chosen).lower() else ""
        quote = Quote(passage, tuple(chosen), shown_heading)
        if any(quote.text == earlier.text for earlier in quotes):
            continue  # the same words in another guide (a Python and an R version of a lesson)
        quotes.append(quote)
    quotes = _without_repeats(quotes)
    if guide_text is not None and counting:
        partial = [i for i, q in enumerate(quotes) if _list_goes_on(q, quotes, guide_text)]
        if partial:
            last = quotes[partial[-1]]
            quotes[partial[-1]] = Quote(last.passage, last.units, last.heading, PARTIAL_LIST_NOTE)
    return quotes


#: A line shorter than this (characters, list marker and emphasis stripped) is not compared when
#: looking for a block quoted twice: short lines ("Task", "}") repeat without repeating content.
REPEAT_LINE_CHARS = 30
_MARKUP_EDGE = re.compile(r"^[\s>*_+-]*(?:\d+[.)]\s+)?|[\s*_]+$")


def _lines(unit: Unit) -> frozenset[str]:
    """The unit's lines of at least REPEAT_LINE_CHARS characters, without list markers and emphasis."""
    lines = (_MARKUP_EDGE.sub("", line) for line in unit.text.splitlines())
    return frozenset(line for line in lines if len(line) >= REPEAT_LINE_CHARS)


def _without_repeats(quotes: list[Quote]) -> list[Quote]:
    """``quotes`` without a block whose every line another quote shows too (overlapping chunks of
    one guide quote the same list or sentence twice): the block in the other quote holding more
    lines stays, or the earlier one when both hold the same. A quote left with no block is dropped."""
    lines = [[_lines(u) for u in q.units] for q in quotes]
    kept: list[Quote] = []
    for i, quote in enumerate(quotes):
        units = tuple(u for k, u in enumerate(quote.units)
                      if not lines[i][k] or not any(
                          lines[i][k] <= other and (lines[i][k] != other or j < i)
                          for j in range(len(quotes)) if j != i for other in lines[j]))
        if len(units) == len(quote.units):
            kept.append(quote)
        elif units:
            kept.append(Quote(quote.passage, units, quote.heading, quote.note))
    return kept


#: Most characters of guide text after a passage read to finish its last block (a lead-in whose
#: list, code or table the chunker put in the next chunk; a sentence cut at the chunk's end).
CONTINUATION_CHARS = 1500


def _continuation(passage: Passage, guide_text: Callable[[str], str]) -> str:
    """The guide's text right after ``passage`` up to the end of the block that follows it (at most
    CONTINUATION_CHARS characters); '' when the passage's text is not the guide's own at its span
    (a converted file) or the guide ends there. Only blocks that start inside the passage are
    quoted, so this completes a lead-in or a sentence the chunk cut, never adds a new block."""
    hit = passage.hit
    guide = guide_text(hit.source)
    start, end = hit.span
    if guide[start:end] != hit.text:
        return ""
    rest = guide[end:end + CONTINUATION_CHARS]
    if not hit.text.rstrip().endswith(":"):
        # Only the line the chunk was cut in (none when it ends at a line's end).
        if hit.text.endswith("\n"):
            return ""
        cut = rest.find("\n")
        return rest if cut < 0 else rest[:cut]
    blocks = parse_blocks(rest)
    return rest[:blocks[0].end] if blocks else ""


def _is_list_line(line: str) -> bool:
    return bool(_ITEM_LINE.match(line)) or (line[:1] in (" ", "\t") and bool(line.strip()))


def _list_goes_on(quote: Quote, quotes: list[Quote], guide_text: Callable[[str], str]) -> bool:
    """Whether a list ``quote`` shows is cut: shortened with "…", or running on past either end of its
    passage into guide text that no other quote of the same guide shows."""
    lists = [u for u in quote.units if u.kind in ("item", "lead-in") and re.search(r"(?m)^\s*([-*+]|\d+[.)])\s", u.text)]
    if not lists:
        return False
    if any(re.search(r"(?m)^\s*(?:[-*+]|\d+[.)])?\s*…\s*$", u.text) for u in lists):
        return True
    hit = quote.passage.hit
    guide = guide_text(hit.source)
    if guide[hit.span[0]:hit.span[1]] != hit.text:
        return False  # not the guide's text (a converted file): no way to tell
    seen = [q.passage.hit.span for q in quotes if q.passage.hit.source == hit.source]
    text = hit.text
    last = max(u.end for u in lists)
    if last > len(text):  # the list was completed from the guide (_continuation): it was read to its end
        pass
    elif not text[last:].strip():  # the list ends the passage: does the guide go on?
        after = guide[hit.span[1]:]
        nxt = next((line for line in after.splitlines() if line.strip()), "")
        gap = len(after) - len(after.lstrip())
        if _ITEM_LINE.match(nxt) and not any(start == hit.span[1] + gap or start == hit.span[1] for start, _ in seen):
            return True
    if not text[:min(u.start for u in lists)].strip():  # the list opens the passage: did it start before?
        before = guide[:hit.span[0]].rstrip()
        prev = before.splitlines()[-1] if before else ""
        if _is_list_line(prev) and not any(end >= len(before) and end <= hit.span[0] for _, end in seen):
            return True
    return False
