"""Exact identifiers in a question: function names, pins, flags, paths, error strings.

These are searched as FTS5 phrases so a chunk that contains them verbatim is always
among the candidates, however BM25 and the embedding rank it.
"""

from __future__ import annotations

import re

_QUOTED = re.compile(r"`([^`]{2,200})`|\"([^\"]{3,200})\"|“([^”]{3,200})”")
_TOKEN = re.compile(r"[^\s`\"“”,;!?()\[\]{}]+(?:\([^\s)]*\))?")


def _looks_like_identifier(token: str) -> bool:
    """True for code-shaped tokens: camelCase, snake_case, ``--flags``, ``key=value``,
    paths, calls ``f(x)``, dotted names, and letter-digit mixes such as ``D0`` or ``ESP32``."""
    core = token.strip(".:'’")
    if len(core) < 2:
        return False
    if re.search(r"[a-z]{2}[A-Z]", core):  # camelCase (not IoT, WiFi, CoAP); linear, unlike [a-z]{2,}
        return True
    if any(mark in core for mark in ("_", "=", "/", "(", "::")) or core.startswith("-"):
        return True
    if re.search(r"\w\.\w", core):  # dotted names: Arduino.h, client.loop
        return True
    return bool(re.fullmatch(r"[A-Za-z]+\d+[A-Za-z0-9]*|0x[0-9A-Fa-f]+", core))


#: An operator of shells and programming languages written with symbols only (``$@``, ``>>``, ``2>&1``,
#: ``===``, ``!$``, ``&&``, Git's ``<<<<<<<``): no word of it reaches BM25 or FTS5, so it is looked for as
#: written, the whole run of symbols (two to eight; a longer run is a rule or a drawing); a run of question
#: marks, exclamation marks, dots or dashes alone is punctuation.
_OPERATOR = re.compile(r"(?<![\w`$@#%&|<>*!~^=+:-])(\d?[$@#%&|<>*!~^=+:-]{2,8}\d?|\$[@#?*!0-9])(?![\w`$@#%&|<>*!~^=+:-])")
_PUNCTUATION = re.compile(r"[?!.\-]+|:-?|-:")


#: The symbols a question may ask about one at a time (``#``, ``*``, ``~``, ``|``, ``>``).
_SYMBOLS = "#*~|><&;!$%^"
#: A symbol named as one: "le joker *", "el carácter #", "the pipe |".
_NAMED_SYMBOL = re.compile(r"\b(?:caract[eè]res?|symboles?|op[ée]rateurs?|jokers?|signes?|car[áa]cter(?:es)?|"
                           r"s[íi]mbolos?|operador(?:es)?|comod[íi]n(?:es)?|signos?|characters?|symbols?|"
                           rf"operators?|wildcards?|signs?|pipe|tilde|hash)\s+([{re.escape(_SYMBOLS)}])(?=[\s?,.!]|$)",
                           re.IGNORECASE)
#: A symbol standing alone between spaces; "!" and ";" are left out, as French sets them apart ("Merci !").
_LONE_SYMBOL = re.compile(r"(?:^|(?<=[\s¿¡]))([#*~|><&$%^])(?=[\s?,.!]|$)")
#: Words of a question short enough that a symbol alone in it is what it asks about ("¿Qué hace #?",
#: "What does | do?", "Que fait > ?"). Not measured: the longest of these shapes is four words.
SYMBOL_QUESTION_WORDS = 6


def symbols_asked(question: str) -> list[str]:
    """The single symbols ``question`` asks about, in order, de-duplicated: one in backticks
    (`` `#` ``), one after a word naming it ("le joker *", "el carácter #"), or the one symbol
    standing alone in a question of at most :data:`SYMBOL_QUESTION_WORDS` words. A symbol is too
    common to look for as written (every comment, heading and product holds ``#``), so it is
    looked for as a guide explains it: in inline code (:func:`extract_operators`)."""
    found = re.findall(rf"`([{re.escape(_SYMBOLS)}])`", question) + _NAMED_SYMBOL.findall(question)
    if not found:
        lone = _LONE_SYMBOL.findall(question)
        if len(lone) == 1 and len(re.findall(r"\w+", question)) <= SYMBOL_QUESTION_WORDS:
            found = lone
    return list(dict.fromkeys(found))


def extract_operators(question: str, limit: int = 3) -> list[str]:
    """Symbol-only operators of ``question`` (``$@``, ``>>``, ``2>&1``), in order, de-duplicated, then
    the single symbols it asks about (:func:`symbols_asked`) in backticks, as a guide writes one it
    explains (`` `#` ``); at most ``limit``. Searched as written
    (:meth:`app.bundle.reader.BundleReader.chunks_containing`)."""
    out: list[str] = []
    for match in _OPERATOR.finditer(question.replace("`", " ")):
        token = match.group(1)
        if not _PUNCTUATION.fullmatch(token) and token not in out:
            out.append(token)
    out += [f"`{symbol}`" for symbol in symbols_asked(question)]
    return out[:limit]


#: A symbol that may stand next to an operator's own symbols (">>" is not found inside ">>>" or "2>>").
_OPERATOR_EDGE = "$@#%&|<>*!~^=+:-"


def holds_operator(text: str, operator: str) -> bool:
    """Whether ``text`` holds ``operator`` (from :func:`extract_operators`) as written and whole: not
    inside a longer run of symbols (``>>`` in ``>>>``, Python's prompt) and, for an operator of ``>``
    alone, not as the quote markers opening a line (``>> ## Solution`` is a quote in a quote)."""
    edge = re.escape(_OPERATOR_EDGE)
    for match in re.finditer(rf"(?<![{edge}]){re.escape(operator)}(?![{edge}])", text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if set(operator) == {">"} and not text[line_start:match.start()].strip(" \t>"):
            continue
        return True
    return False


def extract_identifiers(question: str, limit: int = 6) -> list[str]:
    """Quoted spans and identifier-shaped tokens of ``question``, in order, de-duplicated."""
    found: list[str] = []
    for match in _QUOTED.finditer(question):
        span = next(g for g in match.groups() if g)
        found.append(span.strip())
    unquoted = _QUOTED.sub(" ", question)
    for match in _TOKEN.finditer(unquoted):
        token = match.group().strip(".:'’")
        if _looks_like_identifier(token):
            found.append(token)
    out: list[str] = []
    for item in found:
        if item and item.lower() not in {o.lower() for o in out}:
            out.append(item)
    return out[:limit]
