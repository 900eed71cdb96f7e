"""The question, parsed once: a :class:`Question` record built by :func:`parse_question`.

Each rule that depends on the question's shape reads this record (or the one small function
here that fills its field) instead of matching the question again: the answerer's
:func:`asks_outline`, the evidence gate's :func:`definition_term`, the follow-up rule
:func:`refers_back`, and the quote selector's :func:`question_kind`, :func:`asks_count` and
:func:`code_tokens` (``app/answer/extractive.py`` imports the grammars from here; it does not yet
read the record itself). docs/answers.md, "The question".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from .i18n import english, language_rules
from .ingest.language import question_language
from .retrieval.identifiers import extract_identifiers
from .retrieval.settings import MAX_QUERY_CHARS

# The rules of the question's shape are tables, one per language (app/i18n/<tag>.toml, [question]);
# a course's language's rules run first, then English's. The English ones, named:
_ENGLISH = english()
#: A question about the course's outline ("How many lessons are there?", "What does this course
#: cover?"): no one section answers it, so retrieval finds none (MiniLM similarity 0.20 on the demo
#: course); the lesson guides' titles, in course order, do.
OUTLINE = _ENGLISH.outline[0]
#: "What is a digital twin?", "What are geofences?", "What does QoS mean?": the term asked about
#: (group ``term``; group ``the`` when "the" precedes it).
DEFINITION = _ENGLISH.definition
#: Words and openings by which a question refers back to the previous turn ("which socket does *it*
#: plug into?", "can I have more than one of *those*?", "*and* what if…", "what about…").
REFERS_BACK = _ENGLISH.refers_back[0]
#: A question asking for a count ("how many steps…", "the number of rules").
COUNT = _ENGLISH.counting[0]
#: A question asking for steps, a command or a fix: opening with "how", or "how do I…" / "how to…" after
#: a clause of context ("After writing my .gitignore, how do I…"), "what fixes it", "is there an
#: option…". Not "how far / many / long…" (a quantity: a ``value`` question). Six dev sets: WD +1, no other count moved.
HOW = _ENGLISH.how[0]
#: A question asking what something is called or stands for (not measured on its own).
NAME = _ENGLISH.name[0]
#: A question asking which one or how much: a number, a setting, a name in code (not measured on its own).
VALUE = _ENGLISH.value[0]
#: An operator of two to four symbols in the question (``===``, ``&&``, ``->``): a code token.
OPERATOR = re.compile(r"(?<![^\s`(])[=!<>&|+\-*/%^~:.?]{2,4}(?![^\s`),.;?])")


@dataclass(frozen=True)
class Question:
    """One question, parsed once (:func:`parse_question`).

    ``text`` as asked; ``kind`` (:func:`question_kind`: ``how``, ``name``, ``value`` or ``other``);
    ``counting`` (:func:`asks_count`); ``outline`` (:func:`asks_outline`); ``defined_term`` and
    ``definite`` (:func:`definition_term`: the term a "what is / what does … mean" question asks
    about, '' if none, and whether "the" precedes it); ``code_tokens`` (:func:`code_tokens`);
    ``language`` (a property, worked out when first read); ``refers_back`` (:func:`refers_back`) and ``context`` (the previous
    user turn it refers back to, at most MAX_QUERY_CHARS characters; '' for a new question)."""

    text: str
    kind: str = "other"
    counting: bool = False
    outline: bool = False
    defined_term: str = ""
    definite: bool = False
    code_tokens: tuple[str, ...] = ()
    refers_back: bool = False
    context: str = ""

    @cached_property
    def language(self) -> str:
        """The question's language tag (:func:`~app.ingest.language.question_language`: ``en``,
        ``de``…; '' when unclear). Lazy: the language model's first use loads it (about 1.2 s)."""
        return question_language(self.text)

    @property
    def shape(self) -> str:
        """One word for the question's shape, first match wins: ``outline``, ``definition``,
        ``how-many``, then :attr:`kind` (``how``, ``name``, ``value``, ``other``)."""
        if self.outline:
            return "outline"
        if self.defined_term:
            return "definition"
        if self.counting:
            return "how-many"
        return self.kind


def parse_question(text: str, history: list[dict] | None = None, language: str = "") -> Question:
    """The :class:`Question` record of ``text``; ``history`` (chat messages, ``role`` and
    ``content``) gives the previous user turn for a question that refers back to it. ``language``
    is the course's language tag: its rules (app/i18n) are read first, then English's ('' or a tag
    with no table: English's alone)."""
    term, definite = definition_term(text, language)
    back = refers_back(text, language)
    return Question(text=text, kind=question_kind(text, language), counting=asks_count(text, language),
                    outline=asks_outline(text, language),
                    defined_term=term, definite=definite, code_tokens=tuple(code_tokens(text)),
                    refers_back=back,
                    context=last_user_turn(history) if back else "")


def _any(patterns, text: str) -> bool:
    return any(p.search(text) for p in patterns)


def asks_outline(question: str, language: str = "") -> bool:
    """Whether ``question`` asks about the course's outline (:data:`OUTLINE`; ``language``: the
    course's tag, whose ``outline`` rules are read too)."""
    return _any(language_rules(language).outline, question)


def definition_term(question: str, language: str = "") -> tuple[str, bool]:
    """``(term, definite)`` of a question that is nothing but "what is / what are / what does …
    mean" about a term (:data:`DEFINITION`): the term with its spaces collapsed, and whether "the"
    precedes it (a definite article: group ``the`` of the rule); ``("", False)`` for any other
    question. ``language``: the course's tag (its ``definition`` rules first, then English's)."""
    for pattern in language_rules(language).definition:
        match = pattern.match(question)
        if match:
            return " ".join(match.group("term").split()), bool(match.group("the"))
    return "", False


def refers_back(question: str, language: str = "") -> bool:
    """Whether ``question`` refers back to the previous turn (:data:`REFERS_BACK`: a pronoun such
    as *it*, *those*, *their*, or an opening such as "And…", "What about…"; in its first
    MAX_QUERY_CHARS characters; ``language``: the course's tag, whose cues are read too)."""
    return _any(language_rules(language).refers_back, question[:MAX_QUERY_CHARS])


def last_user_turn(history: list[dict] | None) -> str:
    """The last non-empty user message of ``history``, cut to MAX_QUERY_CHARS characters; ''."""
    previous = [m["content"] for m in (history or []) if m.get("role") == "user" and m.get("content")]
    return previous[-1][:MAX_QUERY_CHARS] if previous else ""


def asks_count(question: str, language: str = "") -> bool:
    """Whether the question asks for a count ("how many…", "the number of…"; ``language``: the
    course's tag, whose ``counting`` rules are read too)."""
    return _any(language_rules(language).counting, question)


def question_kind(question: str, language: str = "") -> str:
    """``how`` (asks for steps, a command or code), ``name`` (asks what something is called or
    stands for), ``value`` (asks which one or how much: a number, a setting, a name in code) or
    ``other``; first match wins, in that order (``language``: the course's tag, whose rules are
    read too)."""
    rules = language_rules(language)
    for kind, patterns in (("how", rules.how), ("name", rules.name), ("value", rules.value)):
        if _any(patterns, question):
            return kind
    return "other"


def code_tokens(question: str) -> list[str]:
    """The question's code tokens matched verbatim: identifiers (:func:`extract_identifiers`, single
    tokens with a symbol or digit, or lowerCamelCase; not product names such as ``JavaScript``) and
    operators of two to four symbols (``===``, ``&&``, ``->``)."""
    tokens = [t for t in extract_identifiers(question) if " " not in t.strip()
              and (re.search(r"[^A-Za-z]", t.strip("`")) or re.match(r"[a-z]+[A-Z]", t.strip("`")))]
    tokens += [m.group() for m in OPERATOR.finditer(question) if m.group() not in ("..", "...", "--")]
    return list(dict.fromkeys(t.strip("`") for t in tokens if t.strip("`")))
