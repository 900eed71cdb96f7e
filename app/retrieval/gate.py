"""The evidence gate: does retrieval have strong enough evidence to answer from?

Two signals, combined by :func:`has_strong_evidence` (pure):

- **similarity**: the best chunk's cosine similarity to the query must reach a
  threshold (calibrated on two question sets, docs/retrieval.md), unless a chunk
  contains one of the question's identifiers verbatim;
- **unknown names**: a question that names something the course never mentions
  ("Modbus", "Node-RED", "MicroPython", "A4988") is about something else, however
  similar its other words are. A *name* is a written word that is not in the
  bundle's lexical vocabulary and looks like a proper name or identifier: a capital
  letter after the first character, a capitalised word that does not start a
  sentence, or letters mixed with digits. Plain words the course happens not to use
  ("gadget", "sprinkler") do not count: students paraphrase. A name that an FTS5
  phrase search finds (the vocabulary is stemmed, FTS5 is not) is not unknown. Two
  refinements: an all-capitals acronym is looked up unstemmed, because stemming
  mangles it (``AWS`` stems to ``aw``, which the vocabulary may hold); and a run of two or
  more capitalised words ("The Things Network", "AWS IoT Core") is a name of its own that
  must occur as a phrase, even when each word occurs somewhere on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..i18n import LanguageRules, english, language_rules
from ..question import definition_term
from ..text.tokenize import _WORD, CJK, DEFAULT_STEMMER, word_variants

_SENTENCE_START = re.compile(r"(?:[.!?:;]\s+|\n\s*)$")
_OPENING_MARKS = "¿¡"  # open a Spanish question or exclamation: the word after one starts a sentence
_ENGLISH = english()  # the names rules' words are tables per language (app/i18n/<tag>.toml, [names])
#: The English pronoun "I" and its contractions, capitalised wherever they stand: never names.
_PRONOUN_I = _ENGLISH.not_names[0]
#: Capitalised words that open a name run without being part of the name ("The Things Network").
_RUN_OPENERS = _ENGLISH.run_openers
#: Units a number may carry and still be a quantity, not a name ("3.3V", "10MB", "2.4GHz", "100ms",
#: "5kg", "8pm", "30am" of "8:30am"), lower-cased: SI and IEC prefixes with the units a course
#: mentions, times of day, and multipliers ("2x").
_UNITS = ("(?:[kmgtpunµ]?(?:b|bit|bits|bps|byte|bytes|ib|v|a|w|wh|ah|hz|s|sec|secs|g|l|m|ohm|ohms|Ω)|"
          "am|pm|h|hr|hrs|min|mins|d|ms|us|ns|mm|cm|km|in|ft|lb|lbs|oz|c|f|°c|°f|px|pt|em|x|dpi|fps|rpm|"
          "db|dbm|mah|kwh|nm|%)")
#: Written forms that are measures or labels, never names: a quantity with its unit, a time of day
#: ("20:00" is two numbers), an ordinal ("21st"), a version ("v2", "v1.2.3"), a hexadecimal code
#: ("0x3C").
_MEASURE = re.compile(rf"^(?:\d+(?:[.,]\d+)*{_UNITS}|\d+(?:st|nd|rd|th)|v\d+(?:\.\d+)*[a-z]?|0x[0-9a-f]+)$",
                      re.IGNORECASE)
#: Capitalised calendar words are ordinary words, not names ("open on Saturdays", "due in May").
_CALENDAR = _ENGLISH.calendar


def is_measure(word: str) -> bool:
    """True for a quantity with its unit, a time, an ordinal, a version or a hexadecimal code
    (``3.3V``, ``8pm``, ``21st``, ``v1.2``, ``0x3C``): a label the course may write another way
    (``20:00``, ``3.3 V``), never an unknown name. ``ESP32`` and ``A4988`` are names."""
    return bool(_MEASURE.match(word))


def _is_calendar_word(word: str, rules: LanguageRules = _ENGLISH) -> bool:
    lower = word.lower()
    return lower in rules.calendar or (lower.endswith("s") and lower[:-1] in rules.calendar)


def _never_a_name(word: str, rules: LanguageRules) -> bool:
    """A word no capital makes a name: "I", "I'm" (``not_names``), a stop word of the course's
    language, a calendar word (``Saturdays``, ``Mai``)."""
    return (any(p.match(word) for p in rules.not_names) or word.lower() in rules.stop_words
            or _is_calendar_word(word, rules))


def looks_like_name(word: str, sentence_initial: bool, rules: LanguageRules = _ENGLISH) -> bool:
    """True for ``CoAP``, ``Node-RED``, ``A4988``, ``Modbus`` (mid-sentence); False for
    ``Gadget`` at the start of a sentence, ``gadget``, ``3.3``, measures (:func:`is_measure`:
    ``3.3V``, ``8pm``, ``21st``, ``v2``, ``0x3C``), calendar words (``Saturdays``, ``May``) and the
    words ``rules`` (a language's table, app/i18n) never takes for names ("I", "I'm", stop words)."""
    letters = [c for c in word if c.isalpha()]
    if not letters or len(word) < 2 or any(p.match(word) for p in rules.not_names):  # "I", "I'm": a pronoun
        return False
    if is_measure(word) or _never_a_name(word, rules):
        return False
    if any(c.isupper() for c in word[1:] if c.isalpha()):
        return True
    if any(c.isdigit() for c in word):
        return True
    return word[0].isupper() and not sentence_initial


def _known_run(words: list[str], phrase_found: Callable[[str], bool]) -> bool:
    """Whether a run of capitalised words is known to the course: found as a phrase, or made of
    known parts in a row, each a phrase of two words or more ("Wio Terminal" + "Light Sensor": a
    student writes component names in title case) or an acronym or code-like word ("GDP", "ESP32");
    the run's first word may stand alone (judged by the single-word rule) only before acronyms or
    code-like words ("Oceania" + "GDP"), not before phrases ("Google" + "Cloud Storage", "Azure" +
    "Machine Learning" are names of their own). A plain capitalised word later in a run is part of a
    name ("Things Network", "IoT Core"); a run longer than MAX_RUN_WORDS is a name."""
    if phrase_found(" ".join(words)):
        return True
    if len(words) > MAX_RUN_WORDS:
        return False

    def code_like(word: str) -> bool:
        return _is_acronym(word) or any(c.isupper() or c.isdigit() for c in word[1:])

    done: dict[int, bool] = {}  # each start is split once: at most 15 phrase lookups for 6 words

    def splits(i: int) -> bool:
        if i == len(words):
            return True
        if i not in done:
            done[i] = any((i, j) != (0, len(words)) and phrase_found(" ".join(words[i:j])) and splits(j)
                          for j in range(len(words), i + 1, -1)) or (code_like(words[i]) and splits(i + 1))
        return done[i]
    return splits(0) or (all(code_like(w) for w in words[1:]) and not code_like(words[0]))


#: Longest run of capitalised words split into known parts (the splits grow with its length).
MAX_RUN_WORDS = 6


def _is_acronym(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def unknown_names(question: str, in_vocabulary: Callable[[str], bool],  # noqa: C901
                  phrase_found: Callable[[str], bool] | None = None, language: str = "",
                  stemmer: str = DEFAULT_STEMMER) -> list[str]:
    """Names in ``question`` (see the module docstring) the course never mentions, in
    order, de-duplicated.

    ``in_vocabulary(stem)`` tells whether a stemmed token is in the lexical index;
    ``phrase_found(text)`` (optional) whether ``text`` occurs as a phrase in some chunk.
    Without ``phrase_found`` only single words are judged, by the vocabulary alone. ``language``:
    the course's tag, whose ``[names]`` words (app/i18n) count with English's. A run of single
    letters ("P D Q" in a formula) is not a name, and a word after "¿" or "¡" opens a sentence.
    ``stemmer``: the one the lexical index was cut with (app/text/tokenize.py).
    """
    rules = language_rules(language)
    found: list[str] = []
    run: list[str] = []  # consecutive capitalised words, mid-sentence

    def close_run() -> None:
        words = run[1:] if run and run[0].lower() in rules.run_openers else run
        if len(words) >= 2 and phrase_found is not None and any(len(w) > 1 for w in words):
            phrase = " ".join(words)
            if phrase not in found and not _known_run(words, phrase_found):
                found.append(phrase)
        run.clear()

    previous_end = -1
    for match in _WORD.finditer(question):
        word, start = match.group(), match.start()
        before = question[max(0, start - 80):start]  # a window keeps this linear in the question
        if before.endswith(tuple(_OPENING_MARKS)):  # "¿Qué…": the mark opens a sentence
            before = f"{before.rstrip(_OPENING_MARKS)}. " if before.rstrip(_OPENING_MARKS).strip() else ""
        initial = (start <= 80 and not before.strip()) or bool(_SENTENCE_START.search(before))
        if run and (initial or question[previous_end:start] != " " or not word[0].isupper()):
            close_run()
        if word[0].isupper() and not initial and not _never_a_name(word, rules):
            run.append(word)
        previous_end = match.end()
        variants = word_variants(word, stemmer)
        if not variants or word in found or not looks_like_name(word, initial, rules):
            continue
        if _is_acronym(word):  # stemming mangles acronyms: look for the written form, unstemmed
            known = in_vocabulary(word.lower()) or (phrase_found is not None and phrase_found(word))
        else:
            known = in_vocabulary(variants[0]) or (phrase_found is not None and phrase_found(word))
        if not known:
            found.append(word)
    close_run()
    return [name for name in found if not (" " in name and any(part in found for part in name.split()))]


#: A defined term longer than this many words is a description, not a term ("the difference
#: between MQTT and HTTP"), and is left to the other rules.
MAX_TERM_WORDS = 3


#: Most tokens between the first and the last word of a several-word term after "the" in one chunk
#: for the term to count as the course's own words put together ("the onboard LED pin": "the
#: onboard LED ... `LED_PIN`"), not a name the course never uses ("the AWS SDK"). About a clause:
#: a noun phrase the guides describe sits in one.
NEAR_TOKENS = 8


def undefined_term(question: str, in_vocabulary: Callable[[str], bool],  # noqa: C901
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
    tag (its ``definition`` rules, app/i18n, are read first); ``stemmer``: as :func:`unknown_names`."""
    term, definite = definition_term(question, language)
    words = term.split()
    if not words or len(words) > MAX_TERM_WORDS or not any(c.isalpha() for c in term):
        return ""
    if re.search(r"\w['’]s?\b", term):
        return ""  # "the lab's closing time": an attribute of something, not a term
    if definite and term.islower() and all(
            (v := word_variants(w, stemmer)) and in_vocabulary(v[0]) for w in words):
        # "What is the closing time?", "What is the default port?": asks for a value in ordinary
        # words the course uses, not for the definition of a term of art.
        return ""
    if phrase_found(term):
        return ""
    if words[-1].lower().endswith("s") and len(words[-1]) > 3 and phrase_found(" ".join(words[:-1] + [words[-1][:-1]])):
        return ""
    if len(words) == 1:
        variants = word_variants(words[0], stemmer)
        if variants and in_vocabulary(variants[0]):
            return ""
    elif definite and words_near is not None and all(any(c.isalnum() for c in w) for w in words):
        singular = words[:-1] + [words[-1][:-1]] if words[-1].lower().endswith("s") and len(words[-1]) > 3 else None
        if words_near(words) or (singular is not None and words_near(singular)):
            return ""
    return term


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


def outside_embedding_languages(question: str) -> bool:
    """True when at least half of the question's letters are Chinese, Japanese or Korean.

    The default embedding model (all-MiniLM-L6-v2) was trained on English text, so its
    similarity says little about such a question (hostile-006 on its own passage: 0.24).
    The retriever then asks for lexical evidence instead: the best BM25 chunk must hold at
    least MIN_LEXICAL_COVERAGE of the question's character bigrams that occur in the course,
    and the question must have two or more of those.
    """
    letters = [c for c in question if c.isalpha()]
    if not letters:
        return False
    cjk = sum(len(run) for run in CJK.findall(question))
    return cjk * 2 >= len(letters)


def has_strong_evidence(best_similarity: float | None, exact_matches: int, names_unknown: int,
                        min_similarity: float, lexical_coverage: float | None = None,
                        min_coverage: float = 0.6) -> bool:
    """The gate. A question naming something unknown (``names_unknown`` > 0) has no
    evidence, even when other identifiers of it match (``ESP32`` in an ESP32 course); else an
    exact identifier match is evidence; else the best cosine similarity must reach
    ``min_similarity`` (or, in keyword-only mode where ``best_similarity`` is None, the best
    chunk's share of query words ``lexical_coverage`` must reach ``min_coverage``)."""
    if names_unknown > 0:
        return False
    if exact_matches > 0:
        return True
    if best_similarity is not None:
        return best_similarity >= min_similarity
    return (lexical_coverage or 0.0) >= min_coverage


@dataclass(frozen=True)
class Judgement:
    """The gate's decision for one question: ``has_evidence``, and ``missing``: the names and key
    terms of the question the course never mentions (unknown names, an undefined term, missing
    code-shaped key terms), in order; they are why the question is not covered."""

    has_evidence: bool
    missing: tuple[str, ...]


def judge(question: str, *, best_similarity: float | None, exact_matches: int,
          in_vocabulary: Callable[[str], bool], phrase_found: Callable[[str], bool],
          identifiers: Callable[[str], list[str]], lexical_coverage: Callable[[bool], float],
          empty_guides: bool, min_similarity: float, min_coverage: float,
          words_near: Callable[[list[str]], bool] | None = None, language: str = "",
          stemmer: str = DEFAULT_STEMMER) -> Judgement:
    """Whether retrieval's hits are evidence for ``question`` (the rules of docs/retrieval.md, in
    order): a question naming something the course never mentions (:func:`unknown_names`,
    :func:`undefined_term`, :func:`missing_key_terms`, :func:`missing_features`,
    :func:`bare_values`) or a guide with no text (``empty_guides``)
    has none; else :func:`has_strong_evidence` decides from ``best_similarity`` (cosine, None in
    keyword-only mode), ``exact_matches`` and, without a similarity, ``lexical_coverage(False)``
    (share of the question's words in the best BM25 chunk, 0..1); a question mostly in Chinese,
    Japanese or Korean that fails is judged by ``lexical_coverage(True)`` (share of its words the
    course knows) instead. ``in_vocabulary``, ``phrase_found``, ``identifiers`` and ``words_near``
    (optional: whether a list of words occurs in one chunk within NEAR_TOKENS tokens) are the
    course lookups the name rules use; ``language`` the course's tag (its rules, app/i18n, count
    with English's); ``stemmer`` the one the lexical index was cut with (``in_vocabulary`` is asked
    for its stems)."""
    names = unknown_names(question, in_vocabulary, phrase_found, language, stemmer)
    term = undefined_term(question, in_vocabulary, phrase_found, words_near, language, stemmer)
    if term and term not in names:
        names.append(term)
    names += [t for t in missing_key_terms(question, phrase_found, identifiers) if t not in names]
    names += [t for t in missing_features(question, in_vocabulary, phrase_found, language, stemmer)
              if t not in names]
    values = bare_values(question, phrase_found)
    names += [t for t in values or () if t not in names]
    coverage = lexical_coverage(False) if best_similarity is None else None
    has_evidence = has_strong_evidence(best_similarity, exact_matches, len(names), min_similarity,
                                       coverage, min_coverage)
    if values == [] and all(len(t.strip(_VALUE_EDGES)) >= 3 for t in question.split()):
        # Only values, each in the guides: the chunks holding them are the evidence. ("2" or "42"
        # alone is in too many places to mean one; the similarity decides for them, as for words.)
        has_evidence = True
    if empty_guides:  # the guide the question names is there, but has nothing to answer from
        has_evidence = False
    elif not has_evidence and not names and outside_embedding_languages(question):
        # The English embedding model cannot judge this question: judge it lexically.
        has_evidence = lexical_coverage(True) >= min_coverage
    return Judgement(has_evidence, tuple(names))
