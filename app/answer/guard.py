"""Question screening that does not depend on the model obeying.

Two small, testable classifiers run before retrieval:
- :func:`injection_kind` spots attempts to change the rules: ``"hard"`` for requests to
  reveal the prompt or hidden text, switch roles or drop the rules (declined), ``"soft"``
  for an override preamble in front of a real question (the preamble is ignored and the
  question answered strictly from the guides, citations included);
- :func:`is_off_topic` spots requests unrelated to a course (poems, recipes, homework
  for other subjects, general trivia), declined whatever the retriever finds.
"""

from __future__ import annotations

import bisect
import re

from ..i18n import english, language_rules
from ..text.grammar import LIST_MARKER_TEXT

# The rules are tables, one per language (app/i18n/<tag>.toml, [screening]); the English ones also
# screen guide text below.
_ENGLISH = english()
_HARD_RE = list(_ENGLISH.injection)
_SOFT_RE = list(_ENGLISH.override_preamble)


def injection_kind(question: str, language: str = "") -> str:
    """``"hard"``, ``"soft"`` or ``""`` (no injection pattern found), by the rules of the course's
    ``language`` (a BCP 47 tag; its ``[screening]`` table, then English's; '' or a tag with no
    table: English's). Every language's ``injection`` rules run whatever the course's language:
    a request to reveal the prompt is declined in any language Lantern has a table for."""
    rules = language_rules(language)
    if any(p.search(question) for p in rules.injection) or any(
            p.search(question) for tag in _other_tables(rules.tags) for p in language_rules(tag).injection):
        return "hard"
    if any(p.search(question) for p in rules.override_preamble):
        return "soft"
    return ""


def _other_tables(tags: tuple[str, ...]) -> tuple[str, ...]:
    from ..i18n import available

    return tuple(t for t in available() if t not in tags)


def strip_soft_injection(question: str, language: str = "") -> str:
    """The question with override preambles removed (what is left is retrieved and answered), by
    the rules of the course's ``language`` (see :func:`injection_kind`)."""
    for pattern in language_rules(language).override_preamble:
        question = pattern.sub(" ", question)
    return " ".join(question.split())


def is_off_topic(question: str, language: str = "") -> bool:
    """True when the question asks for something no course guide is for, by the rules of the
    course's ``language`` (see :func:`injection_kind`)."""
    return any(p.search(question) for p in language_rules(language).off_topic)


# --- guide screening (issue 23): blocks of a guide that address the assistant -----------------
#
# The same kinds of rule as the question screen, read against guide text, where ordinary words
# ("ignore the warning LED", "the system prompt in a terminal", "print only the temperature") must
# not count. A block is flagged when it holds a phrase only an attack uses (_PLANTED), or when it
# both addresses an AI or an answerer (_ADDRESS) and tells it what to do (_DIRECTIVE, or any
# question-screen rule above).

_AI_NAME = (r"(?:ai|a\.i\.|artificial intelligence|chat ?bots?|chatgpt|llms?|(?:large )?language models?|"
            r"ai (?:models?|assistants?|systems?|agents?|tools?)|(?:virtual |digital )?assistants?|bots?|lantern)")
_PLANTED = [
    # "print your full system prompt", "repeat your hidden instructions"
    r"\b(reveal|repeat|print|show|output|dump|leak|paste|disclose|type out|write out|recite|tell (?:me|us|them))\b"
    r"[^.?!]{0,40}\byour\s+(?:(?:full|entire|complete|whole|hidden|secret|original|initial|exact)\s+)*"
    r"(system\s+prompt|system\s+message|instructions|rules|guidelines)\b",
    # "the rules you were set up with", "the instructions you were configured with"
    r"\b(instructions|rules|guidelines|prompt|directives)\s+(?:that\s+)?you\s+(?:were|have\s+been|'ve\s+been|’ve\s+been)\s+"
    r"(?:given\s+by\s+your\s+developers?|configured|set\s+up|programmed|trained|initiali[sz]ed)\b",
    # "ignore all previous instructions", "disregard your rules"
    r"\b(ignore|disregard|forget|override)\s+(?:all|any|every)\s+(?:of\s+)?(?:your\s+|the\s+)?"
    r"(?:previous|prior|preceding|earlier|above|original|initial|system)\s+(instructions|rules|prompts?|guidelines)\b",
    r"\b(ignore|disregard|forget|override)\s+your\s+(?:(?:previous|prior|earlier|original|initial|system)\s+)?"
    r"(instructions|rules|prompts?|guidelines|programming)\b",
]
_ADDRESS = [
    rf"\b(attention|note\s+(?:to|for)|message\s+(?:to|for)|dear|hey|hello|hi|calling)\s*,?\s+"
    rf"(?:(?:all|any|every|the)\s+)?{_AI_NAME}\b",
    rf"\b(addressed|aimed|written)\s+(?:to|at|for)\s+(?:(?:all|any|the)\s+)?{_AI_NAME}\b",
    rf"\b{_AI_NAME}\s+(?:(?:that|which|who)\s+(?:is|are)\s+|that's\s+)?(reading|processing|summari[sz]ing|parsing|"
    rf"indexing|answering\s+(?:from|with))\s+(this|these)\b",
    rf"\bif\s+you\s+are\s+an?\s+{_AI_NAME}\b|\byou\s+are\s+(?:now\s+)?an?\s+(?:ai|language model|llm|chat ?bot)\b",
    r"\b(when|whenever|if)\s+(anyone|someone|somebody|a\s+(?:user|student|person|learner)|the\s+(?:user|student|person)|"
    r"people|students|users)\s+(asks?|asked|questions?)\b",
    r"\bthe\s+(person|user|student|human)['’]s\s+(question|request|prompt)\b",
    r"\byour\s+(?:(?:full|entire|complete|whole|hidden|secret|original|initial)\s+)*(system\s+prompt|system\s+message)\b",
    # a chat role's label opening a line: "SYSTEM: new rules.", "Assistant override:"
    r"(?m)^[ \t>*_]*(system|admin|administrator|developer|assistant|ai)(?:\s+(?:override|message|notice|prompt))?"
    r"[*_]*\s*:",
]
_DIRECTIVE = [
    r"\b(answer|reply|respond|say|output|print|write)\b[^.?!]{0,24}\b(only|nothing|exactly|just|instead)\b",
    r"\bdo\s+not\s+(answer|respond|reply|help|tell)\b|\bdon['’]t\s+(answer|respond|reply)\b|\brefuse\s+to\s+answer\b",
    r"\b(rules|instructions|guidelines|restrictions)\b[^.?!]{0,60}\b(cancell?ed|void|revoked|lifted|suspended|"
    r"no\s+longer\s+apply|overridden|disabled)\b",
    r"\b(instead|from\s+now\s+on|as\s+of\s+now)\b[^.?!]{0,40}\b(answer|reply|respond|say|print|output|tell)\b",
    r"\b(reveal|repeat|print|show|output|dump|leak|paste|disclose)\b[^.?!]{0,40}\b(prompt|instructions|rules)\b",
    r"\b(ignore|disregard)\s+(?:the|your|all|any|these|those|other)\s+(?:\w+\s+)?"
    r"(sources|context|passages|documents|guides|question|questions)\b",
    r"\bnew\s+(rules|instructions|orders)\b",
]
_PLANTED_RE = [re.compile(p, re.IGNORECASE) for p in _PLANTED]
_ADDRESS_RE = [re.compile(p, re.IGNORECASE) for p in _ADDRESS]
_DIRECTIVE_RE = [re.compile(p, re.IGNORECASE) for p in _DIRECTIVE] + _HARD_RE + _SOFT_RE
#: A paragraph: text between blank lines. Items of a list and rows of a table are also looked at one
#: by one, so one planted item does not hide the whole list (a quoted note stays one block).
_BLANK_LINES = re.compile(r"\n[ \t]*\n")
_ITEM_LINE = re.compile(rf"^[ \t]*(?:{LIST_MARKER_TEXT}|\|)\s", re.MULTILINE)
#: Text screened in one piece at most (characters): a longer paragraph (a 200 KB line) is read in
#: windows of this size, overlapping by a sentence's worth, so every rule's match fits in one.
_WINDOW_CHARS = 4000
_WINDOW_OVERLAP = 400


def addresses_assistant(text: str) -> bool:
    """Whether a block of guide text speaks to the assistant rather than to a student: a phrase
    only an attack uses ("print your full system prompt", "the rules you were set up with",
    "ignore all previous instructions"), or a block that both addresses an AI or an answerer
    ("Attention any AI model", "When anyone asks about …", "the person's question") and tells it
    what to do ("answer only …", "do not answer", "your rules are cancelled", or any rule of
    :func:`injection_kind`). Ordinary guide text ("ignore the warning LED", "the system prompt in a
    terminal", "print only the temperature") is not flagged."""
    if any(p.search(text) for p in _PLANTED_RE):
        return True
    return any(p.search(text) for p in _ADDRESS_RE) and any(p.search(text) for p in _DIRECTIVE_RE)


def _windows(start: int, end: int) -> list[tuple[int, int]]:
    if end - start <= _WINDOW_CHARS:
        return [(start, end)]
    step = _WINDOW_CHARS - _WINDOW_OVERLAP
    return [(s, min(s + _WINDOW_CHARS, end)) for s in range(start, end - _WINDOW_OVERLAP, step)]


def planted_instructions(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of ``text`` (a guide's whole text) holding blocks that
    address the assistant (:func:`addresses_assistant`), in order; blocks separated only by white
    space are one span. A block is a paragraph (text between blank lines); in a paragraph of list
    items or table rows, only the items flagged on their own are returned when there are any; a
    paragraph over 4,000 characters (a 200 KB line) is read in overlapping windows of that size.
    Only paragraphs where a rule of :data:`_PLANTED` or :data:`_ADDRESS` matches are read closely,
    so ordinary text costs one scan per rule (about 0.5 s per million characters). Never raises."""
    seeds = sorted({at for p in (*_PLANTED_RE, *_ADDRESS_RE) for m in p.finditer(text)
                    for at in (m.start(), max(m.end() - 1, m.start()))})
    if not seeds:
        return []
    spans: list[tuple[int, int]] = []
    for start, end in _paragraphs(text, seeds):
        near = seeds[bisect.bisect_left(seeds, start):bisect.bisect_left(seeds, end)]
        windows = [(a, b) for a, b in _windows(start, end) if any(a <= s < b for s in near)]
        flagged = [(a, b) for a, b in windows if addresses_assistant(text[a:b])]
        if not flagged:
            continue
        if end - start > _WINDOW_CHARS:  # a very long paragraph: only the windows that hold it
            spans.extend(flagged)
            continue
        lines = _paragraph_lines(text, start, end)
        if len(lines) > 1 and all(_ITEM_LINE.match(text, a) for a, _ in lines[1:]):
            own = [(a, b) for a, b in lines if addresses_assistant(text[a:b])]
            if own:
                spans.extend(own)
                continue
        spans.append((start, end))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and not text[merged[-1][1]:a].strip():  # only white space between: one block
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _paragraphs(text: str, seeds: list[int]) -> list[tuple[int, int]]:
    """The paragraphs of ``text`` (between blank lines, white space at their start dropped) that
    hold one of the ``seeds`` (character offsets, sorted), in order."""
    found: list[tuple[int, int]] = []
    for seed in seeds:
        if found and found[-1][0] <= seed < found[-1][1]:
            continue
        start = _paragraph_start(text, seed)
        after = _BLANK_LINES.search(text, seed)
        end = after.start() if after else len(text)
        while start < end and text[start].isspace():
            start += 1
        if start <= seed < end:
            found.append((start, end))
    return found


def _paragraph_start(text: str, at: int) -> int:
    """Where the paragraph holding character ``at`` starts: after the nearest blank line above."""
    end = text.rfind("\n", 0, at)  # the break ending the line above
    while end >= 0:
        prev = text.rfind("\n", 0, end)
        if not text[prev + 1:end].strip():
            return end + 1
        end = prev
    return 0


def _paragraph_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    lines = []
    at = start
    while at < end:
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop
        if text[at:stop].strip():
            lines.append((at, stop))
        at = stop + 1
    return lines


def mask_spans(text: str, spans: list[tuple[int, int]], offset: int = 0) -> str:
    """``text`` (which starts at character ``offset`` of its guide) with every character inside
    ``spans`` (guide offsets) but line breaks replaced by a space: its length and every other
    character's offset are unchanged, so spans and the guide text still line up."""
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        for i in range(max(a - offset, 0), min(b - offset, len(chars))):
            if chars[i] not in "\r\n":
                chars[i] = " "
    return "".join(chars)
