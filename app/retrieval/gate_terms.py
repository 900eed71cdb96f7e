"""The gate's term rules: a defined term, code-shaped key terms, named features and bare values
of a question that the course never mentions (:func:`app.retrieval.gate.judge` reads them with the
name rule of :mod:`app.retrieval.gate_names`)."""

from __future__ import annotations

import re
from typing import Callable

from ..i18n import english, language_rules
from ..question import definition_term
from ..text.tokenize import DEFAULT_STEMMER, word_variants
from .gate_names import is_measure

_ENGLISH = english()  # the rules' words are tables per language (app/i18n/<tag>.toml, [names])

#: A defined term longer than this many words is a description, not a term ("the difference
#: between MQTT and HTTP"), and is left to the other rules.
MAX_TERM_WORDS = 3


#: Most tokens between the first and the last word of a several-word term after "the" in one chunk
#: for the term to count as the course's own words put together ("the onboard LED pin": "the
#: onboard LED ... `LED_PIN`"), not a name the course never uses ("the AWS SDK"). About a clause:
#: a noun phrase the guides describe sits in one.
NEAR_TOKENS = 8

def undefined_term(question: str, in_vocabulary: Callable[[str], bool],
                   phrase_found: Callable[[str], bool],
                   words_near: Callable[[list[str]], bool] | None = None, language: str = "",
                   stemmer: str = DEFAULT_STEMMER) -> str:
    """The term a definition question asks about ("What is a digital twin?" -> "digital twin")
    when the course never mentions it, else ''. Only questions that are nothing but "what is /
    what are / what does … mean" about a term of at most MAX_TERM_WORDS words are judged; a
    possessive phrase ("the lab's closing time") and "the" followed by lower-case words the
    course uses ("the closing time": a value, not a term) are not terms. The term is known when it
    occurs as a phrase (FTS5), as a phrase without a plural ``s``, for a single word when its stem
    is in the lexical vocabulary, or, for several words after "the", when ``words_near(words)``
    (optional) finds them all in one chunk within NEAR_TOKENS tokens of one another (also with
    the last word's plural ``s`` dropped): "What is the onboard LED pin?" and "What is the OLED
    I2C address?" look up a thing the guides describe in their own words ("the onboard LED …
    LED_PIN"). "What is a/an …?" and "What is …?" ask for the definition of a term of art, which
    the guides must name as a phrase: "What is a digital twin?" (both words in IoT, never as a
    phrase) and "What is a flux capacitor?" (no "flux") stay unknown. ``language``: the course's
    tag (its ``definition`` rules, app/i18n, are read first); ``stemmer``: as :func:`~app.retrieval.gate_names.unknown_names`."""
    term, definite = definition_term(question, language)
    words = term.split()
    if _not_a_term(term, words, definite, in_vocabulary, stemmer):
        return ""
    return "" if _term_known(term, words, definite, in_vocabulary, phrase_found, words_near, stemmer) else term


def _not_a_term(term: str, words: list[str], definite: bool, in_vocabulary: Callable[[str], bool],
                stemmer: str) -> bool:
    """Whether the words a definition question asks about are no term to judge: none, more than
    MAX_TERM_WORDS, no letter, a possessive phrase, or "the" before ordinary words the course uses."""
    if not words or len(words) > MAX_TERM_WORDS or not any(c.isalpha() for c in term):
        return True
    if re.search(r"\w['’]s?\b", term):
        return True  # "the lab's closing time": an attribute of something, not a term
    # "What is the closing time?", "What is the default port?": asks for a value in ordinary
    # words the course uses, not for the definition of a term of art.
    return definite and term.islower() and all(
        (v := word_variants(w, stemmer)) and in_vocabulary(v[0]) for w in words)


def _term_known(term: str, words: list[str], definite: bool, in_vocabulary: Callable[[str], bool],
                phrase_found: Callable[[str], bool], words_near: Callable[[list[str]], bool] | None,
                stemmer: str) -> bool:
    """Whether the course knows the term (the ways :func:`undefined_term` lists, in its order)."""
    if phrase_found(term):
        return True
    singular = words[:-1] + [words[-1][:-1]] if words[-1].lower().endswith("s") and len(words[-1]) > 3 else None
    if singular is not None and phrase_found(" ".join(singular)):
        return True
    if len(words) == 1:
        variants = word_variants(words[0], stemmer)
        return bool(variants) and in_vocabulary(variants[0])
    if definite and words_near is not None and all(any(c.isalnum() for c in w) for w in words):
        return words_near(words) or (singular is not None and words_near(singular))
    return False


#: Written abbreviations that look like dotted names ("e.g.") but are ordinary words.
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m", "u.s", "u.k", "ph.d"})
#: The shapes of a key term: a command-line flag, a call, snake_case, camelCase, a dotted name
#: (``client.loop``, ``Arduino.h``), ``key=value``.
_KEY_TERM = re.compile(r"^--?[A-Za-z][\w-]*$|\w\(|[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Za-z]{2}\.[A-Za-z]|\w=\w")


def _callee(term: str) -> str:
    """A call cut inside its arguments (``SARIMAX(order=(4,1,0)``: unbalanced brackets) stands for the
    function it calls (``SARIMAX``): a formula is not a name; any other ``term`` as it is."""
    return term if term.count("(") == term.count(")") else term.split("(", 1)[0]


def missing_key_terms(question: str, phrase_found: Callable[[str], bool],
                      identifiers: Callable[[str], list[str]]) -> list[str]:
    """Code-shaped key terms of ``question`` (see _KEY_TERM: ``--frobnicate``, ``read_csv()``,
    ``df.pivot_table``, ``ci=None``) that no chunk contains as a phrase, in order.

    ``identifiers(question)`` lists the question's identifier-shaped tokens and quoted spans
    (:func:`app.retrieval.identifiers.extract_identifiers`); ``phrase_found(text)`` tells whether
    ``text`` occurs as an FTS5 phrase in some chunk. A quoted span with a space (a pasted error
    message, whose wording varies), numbers, measures (:func:`is_measure`), abbreviations such as
    "e.g." and capitalised names (judged by :func:`unknown_names`) are not key terms here. A key
    term missing from every guide means the question is about something the course does not
    cover, however close its other words are (issue 14, "adjacent topics").
    """
    missing: list[str] = []
    for identifier in identifiers(question):
        term = _callee(identifier.strip().strip("`'\"“”.,:;!?"))
        if not term or " " in term or len(term) > 80 or term.lower().rstrip(".") in _ABBREVIATIONS:
            continue
        if is_measure(term) or not re.search(r"[A-Za-z]{2}", term) or not _KEY_TERM.search(term):
            continue
        if term not in missing and not phrase_found(term):
            missing.append(term)
    return missing


#: "the satisfies operator", "the justify-content property", "the useState hook": the word before
#: a noun naming the kinds of things a course about code or tools teaches (app/i18n/en.toml [names]
#: named_feature). Wider nouns ("type", "tool", "syntax", "mode") are left out: students use them
#: with their own words ("the three-dots syntax").
_NAMED_FEATURE = _ENGLISH.named_feature[0]
#: Words that describe rather than name a feature ("the same method", "the built-in function").
_NOT_A_NAME = _ENGLISH.not_a_name


def missing_features(question: str, in_vocabulary: Callable[[str], bool],
                     phrase_found: Callable[[str], bool], language: str = "",
                     stemmer: str = DEFAULT_STEMMER) -> list[str]:
    """Names of features the question asks about ("the **satisfies** operator", "the
    **justify-content** property": a word right before a noun of _NAMED_FEATURE, after "the") that
    the course never uses (not in the lexical vocabulary, not an FTS5 phrase), in order. The nearby
    sections on the same kind of thing are not an answer about that one (issue 14, "named
    features"). ``language``: the course's tag, whose ``named_feature`` rules ("l'opérateur
    **satisfies**") and ``not_a_name`` words (app/i18n) count with English's."""
    rules = language_rules(language)
    missing: list[str] = []
    for match in (m for pattern in rules.named_feature for m in pattern.finditer(question)):
        name = match.group(1).strip(".-")
        if not name or name.lower() in rules.not_a_name or not re.search(r"[A-Za-z]", name) or is_measure(name):
            continue
        variants = word_variants(name, stemmer)
        known = (bool(variants) and any(in_vocabulary(v) for v in variants)) or phrase_found(name)
        if not known and name not in missing:
            missing.append(name)
    return missing


_BARE_VALUE = re.compile(r"^(?:\d+(?:[.,:]\d+)*(?:[a-zµΩ°%]+)?|v\d+(?:\.\d+)*[a-z]?|0x[0-9a-f]+)$", re.IGNORECASE)
#: Punctuation around a value that is not part of it ("v1.2.3?", "(3.3V)").
_VALUE_EDGES = "?!.,;:()[]\"'“”"
_NUMBER_AND_UNIT = re.compile(r"^(\d+(?:[.,:]\d+)*)([a-zµΩ°%]+)$", re.IGNORECASE)


def bare_values(question: str, phrase_found: Callable[[str], bool]) -> list[str] | None:
    """For a question made only of numbers, times, versions, quantities or codes ("42", "8:30pm",
    "v1.2.3", "3.3V", "0x3C"; surrounding punctuation ignored): those no chunk contains as a phrase
    (a quantity also as number and unit apart, "3.3 V"), in order; None for any question with a
    word in it. Such a question asks about that value and nothing else: without the value in the
    guides the nearest sections ("3.3 V" for "v1.2.3") are no evidence, and with it they are."""
    tokens = [t.strip(_VALUE_EDGES) for t in question.split()]
    tokens = [t for t in tokens if t]
    if not tokens or not all(_BARE_VALUE.match(t) for t in tokens):
        return None
    missing = []
    for token in dict.fromkeys(tokens):
        split = _NUMBER_AND_UNIT.match(token)
        if not phrase_found(token) and not (split and phrase_found(f"{split.group(1)} {split.group(2)}")):
            missing.append(token)
    return missing
