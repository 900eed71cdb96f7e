"""The human language a course is written in: checked when the instructor gives it, else guessed.

``lantern build --language TAG`` records a BCP 47 language tag (``en``, ``de``, ``pt-BR``) in the
bundle's ``meta``; without it, :func:`detect_language` guesses one from the guides' prose with
py3langid, the maintained fork of langid.py (naive Bayes over byte n-grams, about 140 languages; its
4.4 MB model ships in the wheel and loads in about a second; no randomness: the same guides give the
same guess, and nothing is downloaded):

- only prose counts: the guides are parsed as Markdown (:mod:`app.ingest.markdown`) and code,
  HTML, tables, link targets and URLs are left out;
- the prose is classified in pieces of whole paragraphs of at least :data:`PIECE_CHARS` characters,
  at most :data:`TEXT_CHARS` of each guide and :data:`SAMPLE_CHARS` in all, so one huge guide does
  not speak for the course and a guide with sections in two languages counts for both;
- a piece whose normalised probability (py3langid's ``norm_probs``) is below :data:`MIN_CONFIDENCE`
  abstains; the course's language is the one holding :data:`AGREEMENT` of the other pieces' characters.

Anything less clear is unknown (''): a wrong language is worse than none. The guess serves to
show the language in the course list; nothing in retrieval depends on it.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Iterable, Iterator

from ..errors import LanternError
from ..text.tokenize import CJK
from .markdown import parser

#: Characters of prose read for a guess in all, and at most this many of each guide.
SAMPLE_CHARS = 200_000
TEXT_CHARS = 20_000
#: Share of the classified prose (by characters) whose language must agree (a choice, not measured).
AGREEMENT = 2 / 3
#: Smallest piece classified (paragraphs are joined up to it), and the probability below which a
#: piece abstains. Measured on 1 Dec 2026 with py3langid 0.4.0: of 2,431 pieces (1.0 M characters) of
#: the English guides of esp32-starter, IoT for Beginners, hostile and the held-out Data Science course,
#: none was wrong at 0.9 or more and 2.5% of the characters abstained (a repeated log, tables without a
#: header row); of 7,454 pieces of Linux message catalogues in 37 languages, 128 were wrong, all below
#: 0.9 (at most 0.82; Croatian as Bosnian 0.79, Chinese as Wu, Indonesian as Malay), the right ones'
#: median 0.92-1.0 (Indonesian 0.83, Croatian 0.56: mostly unknown); the tests' samples 0.96-1.0,
#: "Check the wiring." 0.47. Pieces of 600 let the hostile set's Chinese-and-Arabic section through
#: (Moroccan Arabic, 0.95); pieces of 200 abstain more (2.8%).
PIECE_CHARS = 300
MIN_CONFIDENCE = 0.9

#: What a language tag may look like: a 2-3 letter language, then optional script, region or
#: variant subtags (BCP 47, e.g. ``en``, ``pt-BR``, ``zh-Hant``, ``sr-Latn-RS``).
LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")

#: English names of common languages, by tag (others are shown as their tag).
LANGUAGE_NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "da": "Danish", "de": "German",
    "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian", "fa": "Persian", "fi": "Finnish",
    "fr": "French", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian",
    "it": "Italian", "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "ms": "Malay",
    "nb": "Norwegian Bokmål", "nl": "Dutch", "nn": "Norwegian Nynorsk", "no": "Norwegian", "pl": "Polish",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian",
    "sv": "Swedish", "sw": "Swahili", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese",
    "zh": "Chinese",
}

_URL = re.compile(r"\b\w+://\S+|\bwww\.\S+")


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True, min_confidence=MIN_CONFIDENCE)


def preload_identifier() -> None:
    """Load py3langid's model now (0.7-1.1 s on a 2-core PC, once per process) instead of in the first
    question whose language is asked (app/assistant.py :func:`warm_up`)."""
    _identifier()


def _paragraphs(text: str) -> Iterator[str]:
    """The prose of a Markdown guide, paragraph by paragraph (headings, list items and quotes too),
    without code, HTML, tables, link targets or URLs; at most :data:`TEXT_CHARS` characters."""
    size, table = 0, False
    for token in parser().parse(text[:4 * TEXT_CHARS]):
        if token.type in ("table_open", "table_close"):
            table = token.type == "table_open"
        elif token.type == "inline" and not table:
            words = " ".join(c.content for c in token.children or () if c.type in ("text", "image"))
            words = _URL.sub(" ", words).strip()[:TEXT_CHARS - size]
            if words:
                yield words
                size += len(words)
                if size >= TEXT_CHARS:
                    return


def prose(text: str) -> str:
    """The prose :func:`detect_language` reads of one Markdown guide (paragraphs joined by newlines)."""
    return "\n".join(_paragraphs(text))


def detect_language(texts: Iterable[str]) -> str:
    """Guess the language tag (``en``, ``de``, ``ja``…) of a course from ``texts`` (the guides'
    decoded text, code files left out by the caller); '' when unsure."""
    votes: Counter[str] = Counter()
    piece, total = "", 0
    for paragraph in (p for text in texts for p in _paragraphs(text)):
        paragraph = paragraph[:SAMPLE_CHARS - total]
        piece = f"{piece}\n{paragraph}" if piece else paragraph
        total += len(paragraph)
        if len(piece) >= PIECE_CHARS or total >= SAMPLE_CHARS:
            votes[_classify(piece)] += len(piece)
            piece = ""
            if total >= SAMPLE_CHARS:
                break
    if piece:
        votes[_classify(piece)] += len(piece)
    votes.pop("", None)
    if not votes:
        return ""
    tag, weight = votes.most_common(1)[0]
    return tag if weight >= AGREEMENT * sum(votes.values()) else ""


_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")


def question_language(question: str) -> str:
    """The language tag of one question when it is clear, else '': a question mostly in Chinese,
    Japanese or Korean script is ``zh``/``ja``/``ko`` by its script, one with Spanish's opening
    ``¿``/``¡`` is ``es`` (py3langid is unsure of "¿Cómo conecto el sensor?"); otherwise py3langid's guess
    at :data:`MIN_CONFIDENCE` (a short English question is usually unsure, so '')."""
    letters = [c for c in question if c.isalpha()]
    cjk = sum(bool(CJK.match(c)) for c in letters)
    if letters and cjk >= len(letters) / 2:
        return "ja" if _KANA.search(question) else "ko" if _HANGUL.search(question) else "zh"
    if "¿" in question or "¡" in question:  # opening marks only Spanish writes
        return "es"
    return _classify(question) if len(letters) >= 12 else ""


def _classify(piece: str) -> str:
    """py3langid's language tag for ``piece``; '' below :data:`MIN_CONFIDENCE` (``und``) or for
    text in no language (``zxx``)."""
    tag, _ = _identifier().classify(piece)
    return "" if tag in ("und", "zxx") else tag


def check_language(tag: str) -> str:
    """``tag`` as a BCP 47 language tag in its usual case (``EN`` -> ``en``, ``pt-br`` -> ``pt-BR``,
    ``zh-hant`` -> ``zh-Hant``). Raises :class:`LanternError` with an example when it is not one."""
    tag = tag.strip().replace("_", "-")
    if not LANGUAGE_TAG.match(tag):
        raise LanternError(f"The language {tag!r} is not a language tag; give one such as --language en, "
                           "--language de or --language pt-BR.")
    first, *rest = tag.split("-")
    fixed = [first.lower()]
    for sub in rest:
        fixed.append(sub.upper() if len(sub) == 2 or (len(sub) == 3 and sub.isdigit())
                     else sub.title() if len(sub) == 4 and sub.isalpha() else sub.lower())
    return "-".join(fixed)


def language_name(tag: str) -> str:
    """The English name of a language tag for people (``de`` -> ``German``, ``pt-BR`` ->
    ``Portuguese (BR)``); the tag itself for a language not in :data:`LANGUAGE_NAMES`, '' for ''."""
    if not tag:
        return ""
    first, _, rest = tag.partition("-")
    name = LANGUAGE_NAMES.get(first.lower())
    if name is None:
        return tag
    return f"{name} ({rest})" if rest else name
