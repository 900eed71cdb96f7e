"""Checking the model's words sentence by sentence, as they stream (DESIGN.md, "Evidence first").

A sentence of the model's reply reaches the student only when it passes every check:
1. **citations**: each ``[n]`` names a passage that was sent (others are removed); a sentence with
   no valid marker is attributed by code to the sent passage that supports it best, if one does;
2. **support**: at least ``MIN_SUPPORT`` of its distinct words appear in the cited passages;
3. **facts**: every number (with its unit), identifier (code-like token, pin such as ``GPIO 2``,
   CLI flag, function or file name) and capitalised name in it appears in a cited passage,
   compared after :func:`normalise` (``GPIO2`` = ``GPIO 2``, ``3.3 V`` = ``3.3V``, ``8,000`` = ``8000``);
   a sentence with a negation ("not", "never", "can't") cites a passage that has one too;
4. **substance**: it states something: three words or more, not only markers or code fences, not a
   question, a lead-in ending in a colon, a heading, table row or link, not filler ("The answer is:"), not a
   refusal ("the guides don't cover this") while evidence was found, about the question (sharing a
   word with it or, for a follow-up, with the previous question), and not a near-copy of a
   sentence the extractive answer already quotes (REPEAT_SHARE of its words in one quoted sentence).
:class:`SentenceStream` cuts the streamed pieces into sentences; :func:`check_sentence` judges one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..ingest.markdown import fences
from ..records import Passage
from ..text.grammar import ANSWER_SENTENCE_END, CITATION_MARKER, citation_numbers, split_sentences
from ..text.tokenize import DEFAULT_STEMMER, coverage, document_tokens, query_words
from .citations import is_citation

#: An answer sentence must share at least this share of its distinct words with the passages it
#: cites, or it is dropped. 0.6 (issue 4) let SmolLM2's recombinations of passage words through
#: ("The number of kilobytes is 32,000 bytes"); measured on IoT in docs/answers.md.
MIN_SUPPORT = 0.8
#: A verified sentence whose words are at least this share of one quoted block's adds nothing.
REPEAT_SHARE = 0.9

#: A negation: a sentence that has one must cite a passage that has one (the commonest inversion of
#: a small model: "adding ci=None does not change the chart" from "can be disabled by adding ci=None").
_NEGATION = re.compile(r"\b(not|no|never|nothing|cannot|without|neither|nor)\b|n't\b", re.I)
_REFUSAL = re.compile(r"\b(don'?t|do not|doesn'?t|does not|cannot|can'?t)\s+(cover|mention|contain|answer|"
                      r"know|find|help)|\b(not covered|no information|not mentioned|as an ai)\b", re.I)
#: Not a statement of fact: a question, a lead-in ending in a colon, a Markdown heading, table row or
#: link, a heading path (" › "), or filler that announces an answer instead of giving it.
_NOT_A_STATEMENT = re.compile(r"[?:]\s*$|^\s*(#|\||>)|\]\(| › |^\s*(the answer is|answer:|in summary|to summarize|"
                              r"refer (back )?to|see (the|this) (lesson|guide|section))", re.I)
_UNIT = (r"(?:%|°c|°f|[kmgt]?hz|[mk]?v|m?a|mah|[kmg]?b|[kmg]ib|ms|s|sec|seconds?|minutes?|hours?|days?|"
         r"mm|cm|m|km|kg|g|w|kw|px|dpi|bps|kbps|mbps)")
#: A pin or port name and its number: "GPIO 2", "A 0", "D 13" (written in capitals).
_PIN_GAP = re.compile(r"\b([A-Z]{1,6})\s+(\d+)\b")
_UNIT_GAP = re.compile(rf"(?<=\d)\s+(?={_UNIT}(?![\w]))", re.I)
_NUMBER = re.compile(rf"(?<![\w.])(\d+(?:[.,]\d+)*)(?:\s?({_UNIT}))?(?![\w])", re.I)
#: Code-like tokens: inline code, words with _ . / :: or () inside, --flags, camelCase, and
#: letter-digit names such as GPIO2, A0, D13, ESP32.
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_IDENT = re.compile(r"(?<![\w-])(0x[0-9A-Fa-f]+\b|--?[A-Za-z][\w-]*|[A-Za-z_][\w]*(?:(?:\.|::|/|_)[\w]+)+(?:\([^()\n]{0,40}\))?|"
                    r"[A-Za-z_]\w*\([^()\n]{0,40}\)|[a-z]+[A-Z]\w*|[A-Z]{2,}\s?\d+|[A-Za-z]{1,4}\d+[A-Za-z\d]*)")
_NAME = re.compile(r"\b[A-Z][\w'’-]*[A-Za-z0-9]")
#: Capitalised words that are ordinary at any position.
_COMMON = frozenset("I The A An This That These Those It Its You Your We Our They Their If When Then Use Using "
                    "To In On At For From With By And Or But Not No Yes Also First Next Finally Each Every "
                    "Some Any All Both Step Note Make Run Open Set Add Check Click See Once After Before".split())


def normalise(text: str) -> str:
    """Lower-cased text with backticks and ``*`` removed, digit-letter gaps closed (``GPIO 2`` ->
    ``gpio2``, ``3.3 V`` -> ``3.3v``), thousands separators dropped (``8,000`` -> ``8000``) and
    whitespace runs made one space. Used to compare facts of a sentence with a passage."""
    text = _PIN_GAP.sub(r"\1\2", text.replace("`", "").replace("*", "")).lower()
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = _UNIT_GAP.sub("", text)
    return " ".join(text.split())


def facts(sentence: str) -> list[str]:
    """The numbers (with units), identifiers and capitalised names of ``sentence`` that a cited
    passage must contain, normalised (:func:`normalise`); citation markers are not facts. A number
    inside an identifier (the 2 of ``GPIO 2``) is part of that identifier, not a fact of its own."""
    text = CITATION_MARKER.sub(lambda m: " " if is_citation(sentence, m) else m.group(0), sentence)
    found: list[str] = [m.group(1) for m in _CODE_SPAN.finditer(text)]
    bare = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    taken: list[tuple[int, int]] = []

    def free(m: re.Match) -> bool:
        return not any(a < m.end() and m.start() < b for a, b in taken)

    for m in _IDENT.finditer(bare):
        found.append(m.group(0))
        taken.append(m.span())
    for m in _NUMBER.finditer(bare):
        if free(m):
            found.append(m.group(0))
            taken.append(m.span())
    first_word = re.match(r"\W*(\w+)", bare)
    for m in _NAME.finditer(bare):
        word = m.group(0)
        sentence_start = first_word is not None and m.start() == first_word.start(1)
        if not free(m) or word in _COMMON or (sentence_start and not re.search(r"[A-Z].*[A-Z]|\d", word)):
            continue
        found.append(word)
    out: list[str] = []
    for f in found:
        f = normalise(f).strip(" .,;:")
        f = f[:-2] if f.endswith("()") else f  # a call without arguments: its name
        if f.count("(") != f.count(")"):
            f = f.strip("()")
        if f and f not in out:
            out.append(f)
    return out


def missing_facts(sentence: str, passage_text: str) -> list[str]:
    """The facts of ``sentence`` that do not appear in ``passage_text`` (whole-token match after
    :func:`normalise`; a name also matches its plural or possessive)."""
    haystack = normalise(passage_text)
    missing = []
    for fact in facts(sentence):
        pattern = r"(?<![\w])" + re.escape(fact) + r"(?:s|es|'s|’s)?(?![\w])"
        if not re.search(pattern, haystack):
            missing.append(fact)
    return missing


def support(sentence: str, texts: list[str], stemmer: str = DEFAULT_STEMMER) -> float:
    """Share (0..1, higher is better) of ``sentence``'s distinct words found in ``texts`` (both cut
    with the course's ``stemmer``)."""
    words = query_words(CITATION_MARKER.sub(" ", sentence), stemmer)
    if not words:
        return 0.0
    tokens: set[str] = set()
    for text in texts:
        tokens.update(document_tokens(text, stemmer))
    return coverage(words, tokens)


@dataclass(frozen=True)
class Verdict:
    """The judgement on one sentence: ``ok``; ``text`` the sentence with only valid markers (and an
    attributed marker added when it had none); ``cited`` the passage numbers it cites; ``reason``
    why it was dropped (``empty``, ``form``, ``refusal``, ``off-question``, ``citation``, ``support``,
    ``facts``, ``negation``, ``repeat``)."""

    ok: bool
    text: str
    cited: tuple[int, ...] = ()
    reason: str = ""
    missing: tuple[str, ...] = field(default=())


def _passage_text(p: Passage) -> str:
    return f"{p.hit.heading}\n{p.hit.text}"


def check_sentence(sentence: str, passages: list[Passage], quoted: Sequence[str] = (),  # noqa: C901
                   min_support: float = MIN_SUPPORT, question: str = "", stemmer: str = DEFAULT_STEMMER) -> Verdict:
    """Judge one model sentence against the passages sent (``passages[i].n`` is its number in the
    prompt) and the blocks already quoted by the extractive answer (``quoted``). When ``question``
    is given (with a follow-up's previous turn), the sentence must share a word with it: a true
    sentence about something else does not answer it. Words are cut with the course's ``stemmer``."""
    sentence = sentence.strip()
    numbers_sent = {p.n: p for p in passages}
    cited: list[int] = []

    def keep(match: re.Match) -> str:
        if not is_citation(sentence, match):
            return match.group(0)
        valid = [n for n in citation_numbers(match) if n in numbers_sent]
        cited.extend(n for n in valid if n not in cited)
        return "[" + ", ".join(str(n) for n in valid) + "]" if valid else ""

    text = CITATION_MARKER.sub(keep, sentence)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    text = " ".join(text.split())
    plain = CITATION_MARKER.sub(" ", text)
    if "```" in plain or "~~~" in plain or len(re.findall(r"\w+", plain)) < 3:
        return Verdict(False, text, reason="empty")
    if _NOT_A_STATEMENT.search(plain):
        return Verdict(False, text, reason="form")
    if _REFUSAL.search(plain):
        return Verdict(False, text, reason="refusal")
    if question:
        asked = {v for w in query_words(question, stemmer) for v in w}
        if asked and not any(any(v in asked for v in w) for w in query_words(plain, stemmer)):
            return Verdict(False, text, reason="off-question")
    if cited:
        against = [numbers_sent[n] for n in cited]
    else:  # attribute the sentence to the passage that supports it best, if one does
        best = max(passages, key=lambda p: support(plain, [_passage_text(p)], stemmer), default=None)
        if best is None:
            return Verdict(False, text, reason="citation")
        against = [best]
    texts = [_passage_text(p) for p in against]
    if support(plain, texts, stemmer) < min_support:
        return Verdict(False, text, reason="support")
    missing = missing_facts(plain, "\n".join(texts))
    if missing:
        return Verdict(False, text, reason="facts", missing=tuple(missing))
    if _NEGATION.search(_CODE_SPAN.sub(" ", plain)) and not any(_NEGATION.search(_CODE_SPAN.sub(" ", t)) for t in texts):
        return Verdict(False, text, reason="negation")  # "does not change" from "can be disabled"
    words = set(query_words(plain, stemmer))
    for block in quoted:
        for quoted_sentence in split_sentences(block):
            if words and len(words & set(query_words(quoted_sentence, stemmer))) >= REPEAT_SHARE * len(words):
                return Verdict(False, text, reason="repeat")
    if not cited:
        cited = [against[0].n]
        text = re.sub(r"([.!?。！？]*)$", lambda m: f" [{cited[0]}]{m.group(1)}", text, count=1)
    return Verdict(True, text, tuple(cited))


class SentenceStream:
    """Cuts streamed text pieces into whole sentences.

    :meth:`feed` takes a piece and returns the sentences it completed: a sentence ends at ``.``,
    ``!``, ``?`` (or ``。！？``) with its trailing citation markers, once whitespace follows, or at a
    newline; :meth:`close` returns what is left. Text inside a code fence is one "sentence" (so it
    can be rejected whole).
    """

    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, piece: str) -> list[str]:
        self._buffer += piece
        out: list[str] = []
        while True:
            lead = len(self._buffer) - len(self._buffer.lstrip())
            fence = next(iter(fences(self._buffer)), None)
            if fence is not None and fence.start <= lead:  # the buffer starts with a fenced block
                if not fence.closed:
                    return out
                end = fence.end
            else:
                match = ANSWER_SENTENCE_END.search(self._buffer)
                if match is None:
                    return out
                end = match.end()
                # markers may follow the full stop after a space: "… pin 5. [1]" — wait for them
                rest = self._buffer[end:]
                if not rest.strip() or re.match(r"\s*\[\s*\d*\s*(?:[,;]\s*\d*\s*)*$", rest):
                    return out
                marker = re.match(rf"\s*{CITATION_MARKER.pattern}", rest)
                if marker:
                    end += marker.end()
            sentence, self._buffer = self._buffer[:end], self._buffer[end:]
            if sentence.strip():
                out.append(sentence.strip())

    def close(self) -> list[str]:
        rest, self._buffer = self._buffer.strip(), ""
        return [rest] if rest else []
