"""The human language a course is written in: checked when the instructor gives it, else guessed.

``lantern build --language TAG`` records a BCP 47 language tag (``en``, ``de``, ``pt-BR``) in the
bundle's ``meta``; without it, :func:`detect_language` guesses one from the guides' prose with no
model and no extra dependency, in a few milliseconds:

- code (fenced blocks, inline code), links, URLs and HTML tags are dropped; each guide is guessed
  on its own and the guides vote (:func:`detect_language`), so one huge table or log does not
  speak for the course; at most :data:`SAMPLE_CHARS` characters are read in all;
- the writing system decides first: kana is Japanese, Hangul Korean, other Han characters Chinese,
  and Greek, Hebrew, Thai and Devanagari have one language each here (when at least
  :data:`SCRIPT_SHARE` of the letters are of that script: a Russian guide still holds Latin
  identifiers);
- among languages sharing a script (Latin, Cyrillic, Arabic), the one whose most frequent
  function words ("the", "and", "der", "und", "и", "на"…; words of one letter are not counted)
  make up the largest share of the words wins, if that share is at least :data:`MIN_SHARE` and
  :data:`MARGIN` times the runner-up's, over at least :data:`MIN_WORDS` words.

Anything less clear is unknown (''): a wrong language is worse than none. The guess serves to
show the language in the course list; nothing in retrieval depends on it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

from ..errors import LanternError
from .markdown import fences

#: Characters of the guides' prose read for a guess (enough for any language; bounds the cost),
#: and at most this many of each guide.
SAMPLE_CHARS = 200_000
TEXT_CHARS = 20_000
#: Share of the guessed guides' prose (by characters) whose guess must agree.
AGREEMENT = 2 / 3
#: Fewest words (of the winning script) for a guess among languages of one script.
MIN_WORDS = 25
#: Smallest share of the words that must be the winner's function words.
MIN_SHARE = 0.08
#: How many times the runner-up's share the winner's must be.
MARGIN = 1.5
#: Share of the letters a non-Latin script needs to decide the language.
SCRIPT_SHARE = 0.3

#: What a language tag may look like: a 2-3 letter language, then optional script, region or
#: variant subtags (BCP 47, e.g. ``en``, ``pt-BR``, ``zh-Hant``, ``sr-Latn-RS``).
LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")

#: English names of the languages :func:`detect_language` knows, and a few more, by tag.
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

#: The most frequent function words of each language guessed by its words, by script. Words
#: shared by several languages of one script count for each of them.
FUNCTION_WORDS = {
    "latin": {
        "en": "the and of to a in is that it for you on with are this be as by or from can your not "
              "an if when at will which have",
        "de": "der die und das ist nicht ein eine mit den von zu auf für sich des dem im wird sie auch "
              "es wenn oder werden kann",
        "fr": "le la les et des un une est que pour dans du en pas sur qui au ce il avec vous sont "
              "par plus se ou",
        "es": "el la los las y de que en un una es por para con no se del al lo como su más pero "
              "este esta o",
        "it": "il di che la e è per un una non in con del della le si sono da gli al come anche "
              "questo più nel",
        "pt": "o a os as e de que em um uma é do da para com não no na por se mais ao dos das como",
        "nl": "de het een en van is dat in op te niet met voor zijn er die ook als aan je bij maar "
              "wordt naar",
        "sv": "och att det som en är på för av med till den inte har om ett de kan men eller du sig "
              "från",
        "da": "og at det som en er på for af med til den ikke har om et de kan men eller du sig fra",
        "nb": "og at det som en er på for av med til den ikke har om et de kan men eller du seg fra",
        "fi": "ja on ei se että hän oli ovat kun tai mutta jos myös ole kanssa voi tämä sen niin "
              "joka",
        "pl": "i w na z że nie się do to jest jak o co ale po tak jego od dla przez są lub oraz",
        "cs": "a v se na je že to s z do o ve jako pro by ale jsou k i tak podle nebo který",
        "tr": "ve bir bu için ile da de çok olan gibi daha ne ya kadar ama sonra her veya olarak "
              "en değil",
        "id": "yang dan di ini dengan untuk dari dalam itu tidak ke akan pada adalah juga atau bisa "
              "ada kita",
        "ro": "și în de la cu un o este că pe din nu se care mai pentru sau ca ce sunt",
        "hu": "a az és hogy nem is egy ez meg de van csak már mint ha el vagy még kell",
        "vi": "và của là có không được cho một những các này trong với người đã khi để đến",
    },
    "cyrillic": {
        "ru": "и в не на что с как это по но из у к для то же от так за вы если или при",
        "uk": "і в не на що з як це та до для від але у й же щоб є або при так",
        "bg": "и в не на че с как това за от да се е по са но или при ще към",
        "sr": "и у не на да је се са за од као то али или из по су ће",
    },
    "arabic": {
        "ar": "في من على إلى أن هذا التي الذي عن مع كان ما لا هو هي ذلك",
        "fa": "در و به از که این را با است برای یک آن می شود هم تا",
    },
}
_WORDS = {script: {lang: frozenset(w for w in words.split() if len(w) > 1) for lang, words in langs.items()}
          for script, langs in FUNCTION_WORDS.items()}

# Code, links and markup are not the course's language (fenced code blocks: markdown.fences).
_STRIP = re.compile(r"`[^`\n]*`|https?://\S+|<[^>\n]*>|\]\([^)\n]*\)")
_WORD = re.compile(r"[^\W\d_]+")


def _script(ch: str) -> str:
    """The writing system of one letter, by its code point ('' for none of those counted)."""
    o = ord(ch)
    if o < 0x250 or 0x1E00 <= o < 0x1F00:
        return "latin"
    if 0x400 <= o < 0x530:
        return "cyrillic"
    if 0x370 <= o < 0x400 or 0x1F00 <= o < 0x2000:
        return "greek"
    if 0x590 <= o < 0x600:
        return "hebrew"
    if 0x600 <= o < 0x700 or 0xFB50 <= o < 0xFE00:
        return "arabic"
    if 0x900 <= o < 0x980:
        return "devanagari"
    if 0xE00 <= o < 0xE80:
        return "thai"
    if 0x3040 <= o < 0x3100 or 0x31F0 <= o < 0x3200 or 0xFF66 <= o < 0xFFA0:
        return "kana"
    if 0xAC00 <= o < 0xD7B0 or 0x1100 <= o < 0x1200 or 0x3130 <= o < 0x3190:
        return "hangul"
    if 0x4E00 <= o < 0xA000 or 0x3400 <= o < 0x4DC0 or 0xF900 <= o < 0xFB00:
        return "han"
    return ""


#: Scripts that name one language here.
_ONE_LANGUAGE = {"greek": "el", "hebrew": "he", "devanagari": "hi", "thai": "th"}


def prose(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` with code, links, URLs and HTML tags removed, at most ``limit`` characters."""
    text = text[:4 * limit]
    kept, at = [], 0
    for fence in fences(text):
        kept.append(text[at:fence.start])
        at = fence.end
    kept.append(text[at:])
    return _STRIP.sub(" ", " ".join(kept))[:limit]


def detect_language(texts: Iterable[str]) -> str:
    """Guess the language tag (``en``, ``de``, ``ja``…) of a course from ``texts`` (the guides'
    decoded text, code samples left out by the caller); '' when unsure.

    Each guide with enough prose gets a guess of its own (up to :data:`TEXT_CHARS` of its prose,
    up to :data:`SAMPLE_CHARS` in all); a guess weighs as much as the prose it was made from, and
    the course's language is the one holding :data:`AGREEMENT` of that weight. A guide that cannot
    be guessed (a huge table, a log) abstains. When no guide can be guessed alone (many short
    guides), their prose is pooled and guessed once.
    """
    votes: Counter[str] = Counter()
    pooled: list[str] = []
    size = 0
    for text in texts:
        sample = prose(text)
        if not sample.strip():
            continue
        pooled.append(sample)
        tag = _guess(sample)
        if tag:
            votes[tag] += len(sample)
        size += len(sample)
        if size >= SAMPLE_CHARS:
            break
    if votes:
        tag, weight = votes.most_common(1)[0]
        return tag if weight >= AGREEMENT * sum(votes.values()) else ""
    return _guess("\n".join(pooled))


def _guess(sample: str) -> str:
    """The language tag of one prose sample by its script and function words; '' when unsure."""
    scripts = Counter(_script(ch) for ch in sample if ch.isalpha())
    scripts.pop("", None)
    letters = sum(scripts.values())
    if not letters:
        return ""
    cjk = scripts["kana"] + scripts["han"] + scripts["hangul"]
    if cjk >= SCRIPT_SHARE * letters:
        if scripts["kana"] >= 0.1 * cjk:
            return "ja"
        return "ko" if scripts["hangul"] > scripts["han"] else "zh"
    others = {s: n for s, n in scripts.items() if s not in ("latin", "kana", "han", "hangul")}
    top = max(others, key=others.__getitem__, default="")
    script = top if top and others[top] >= SCRIPT_SHARE * letters else "latin"
    if script in _ONE_LANGUAGE:
        return _ONE_LANGUAGE[script]
    if script not in _WORDS:
        return ""
    # One-letter words are left out: a table of variables or grades ("a", "i", "x") says nothing.
    words = [w.lower() for w in _WORD.findall(sample) if len(w) > 1 and _script(w[0]) == script]
    if len(words) < MIN_WORDS:
        return ""
    counts = Counter(words)
    shares = sorted(((sum(counts[w] for w in vocab) / len(words), lang) for lang, vocab in _WORDS[script].items()),
                    reverse=True)
    (best, lang), (second, _) = shares[0], shares[1]
    if best >= MIN_SHARE and best >= MARGIN * second:
        return lang
    return ""


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
