"""The gate's name rule: the names a question writes that the course never mentions.

A question that names something the course never mentions ("Modbus", "Node-RED",
"MicroPython", "A4988") is about something else, however similar its other words are
(:func:`app.retrieval.gate.judge`). A *name* is a written word that is not in the
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
from typing import Callable

from ..i18n import LanguageRules, english, language_rules
from ..text.tokenize import _WORD, DEFAULT_STEMMER, word_variants

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


def unknown_names(question: str, in_vocabulary: Callable[[str], bool],
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
    previous_end = -1
    for match in _WORD.finditer(question):
        word, start = match.group(), match.start()
        initial = _sentence_initial(question, start)
        if run and (initial or question[previous_end:start] != " " or not word[0].isupper()):
            _close_run(run, found, rules, phrase_found)
        if word[0].isupper() and not initial and not _never_a_name(word, rules):
            run.append(word)
        previous_end = match.end()
        if word not in found and _unknown_word(word, initial, rules, in_vocabulary, phrase_found, stemmer):
            found.append(word)
    _close_run(run, found, rules, phrase_found)
    return _named_whole(found)


def _named_whole(found: list[str]) -> list[str]:
    """``found`` with each unknown run of capitalised words said once: a run with one unknown word
    is said by that word ("Pico" of "Raspberry Pi Pico", the rest being in the guides); a run with two
    or more is said whole, where its first unknown word stood ("Bluetooth Low Energy", not "Bluetooth",
    "Energy"); a run with none stays as it is."""
    runs = [name for name in found if " " in name]
    whole = {run: [part for part in run.split() if part in found] for run in runs}
    whole = {run: parts for run, parts in whole.items() if len(parts) >= 2}
    said_by: dict[str, str] = {}
    for run, parts in whole.items():
        for part in parts:
            said_by.setdefault(part, run)
    out: list[str] = []
    for name in found:
        if " " in name and name not in whole and any(part in found for part in name.split()):
            continue  # one unknown word says it
        name = said_by.get(name, name)
        if name not in out:
            out.append(name)
    return out


def _sentence_initial(question: str, start: int) -> bool:
    """Whether the word at character ``start`` of ``question`` opens a sentence (the question's
    start, after ``.!?:;`` or a line break, or after "¿" / "¡")."""
    before = question[max(0, start - 80):start]  # a window keeps this linear in the question
    if before.endswith(tuple(_OPENING_MARKS)):  # "¿Qué…": the mark opens a sentence
        before = f"{before.rstrip(_OPENING_MARKS)}. " if before.rstrip(_OPENING_MARKS).strip() else ""
    return (start <= 80 and not before.strip()) or bool(_SENTENCE_START.search(before))


def _close_run(run: list[str], found: list[str], rules: LanguageRules,
               phrase_found: Callable[[str], bool] | None) -> None:
    """End a run of capitalised words: add it to ``found`` when it is a name the course does not
    know (:func:`_known_run`; an opener such as "The" left out), then empty ``run``."""
    words = run[1:] if run and run[0].lower() in rules.run_openers else run
    if len(words) >= 2 and phrase_found is not None and any(len(w) > 1 for w in words):
        phrase = " ".join(words)
        if phrase not in found and not _known_run(words, phrase_found):
            found.append(phrase)
    run.clear()


def _unknown_word(word: str, initial: bool, rules: LanguageRules, in_vocabulary: Callable[[str], bool],
                  phrase_found: Callable[[str], bool] | None, stemmer: str) -> bool:
    """Whether ``word`` looks like a name (:func:`looks_like_name`) the course never mentions: an
    acronym looked up as written, any other word by its stem, either also as an FTS5 phrase."""
    variants = word_variants(word, stemmer)
    if not variants or not looks_like_name(word, initial, rules):
        return False
    if _is_acronym(word):  # stemming mangles acronyms: look for the written form, unstemmed
        known = in_vocabulary(word.lower()) or (phrase_found is not None and phrase_found(word))
    else:
        known = in_vocabulary(variants[0]) or (phrase_found is not None and phrase_found(word))
    return not known
