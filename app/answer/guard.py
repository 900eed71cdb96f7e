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

import re

_HARD = [
    r"\b(system|hidden|initial|original)\s+(prompt|instructions?|message|text)\b",
    r"\b(reveal|repeat|print|show|output|dump|leak)\b[^.?!]{0,60}\b(prompt|instructions|rules|hidden text)\b",
    r"\b(ignore|disregard|forget)\b[^.?!]{0,40}\b(instructions|rules|guidelines|prompt)\b",
    r"\bdeveloper mode\b|\bjailbreak\b|\bDAN\b|\bno (rules|restrictions|limits)\b|\bunrestricted\b",
    r"\bpretend (you are|you're|to be)\b|\byou are now\b|\bact as (an? )?(unrestricted|different|evil|hacker)",
    r"\bdo (exactly )?what (that|the|this) (note|guide|text|page|comment) says\b",
    r"\b(note|instructions?|message) (addressed|aimed|written) (to|at) (ai|assistants|language models)\b",
    r"\b(list|show)\b[^.?!]{0,40}\bfiles?\b[^.?!]{0,40}\b(loaded|on (my|the|your) disk|full path)",
]
_SOFT = [
    r"^\s*(system|admin|developer)\s+(override|message|notice)\s*:[^.?!]*[.?!]?",
    r"\b(you may|you can|allowed to) (skip|omit|drop) (the )?citations?[^.?!]*[.?!]?",
]
_OFF_TOPIC = [
    r"\b(write|compose|give|make up) (me )?(a |an )?(short |little |funny )?"
    r"(poem|story|song|rap|lyrics|sonnet|rhyme|riddle|limerick|haiku|joke|essay)"
    r"(?=\s*(?:$|[.?!,;]|about\b|on\b|for me\b|that\b|where\b|in the style\b))",
    r"\bplan (a|my|our) (trip|holiday|vacation|party|wedding)\b|\btell me a joke\b",
    r"\brecipe\b|\bbake\b|\bcook(ing)?\b",
    r"\b(maths?|math|history|english|chemistry|physics) (homework|essay|assignment)\b|\bfor my (history|english) essay\b",
    r"\bsolve\b[^.?!]{0,30}(=|\bfor x\b)",
    r"\bwho won\b|\bworld cup\b|\bfrench revolution\b|\bcapital of\b",
]

_HARD_RE = [re.compile(p, re.IGNORECASE) for p in _HARD]
_SOFT_RE = [re.compile(p, re.IGNORECASE) for p in _SOFT]
_OFF_RE = [re.compile(p, re.IGNORECASE) for p in _OFF_TOPIC]


def injection_kind(question: str) -> str:
    """``"hard"``, ``"soft"`` or ``""`` (no injection pattern found)."""
    if any(p.search(question) for p in _HARD_RE):
        return "hard"
    if any(p.search(question) for p in _SOFT_RE):
        return "soft"
    return ""


def strip_soft_injection(question: str) -> str:
    """The question with override preambles removed (what is left is retrieved and answered)."""
    for pattern in _SOFT_RE:
        question = pattern.sub(" ", question)
    return " ".join(question.split())


def is_off_topic(question: str) -> bool:
    """True when the question asks for something no course guide is for."""
    return any(p.search(question) for p in _OFF_RE)
