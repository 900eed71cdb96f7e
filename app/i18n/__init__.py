"""Lantern's words and rules per language: one TOML table per language in this folder.

``<tag>.toml`` (``en``, ``fr``, ``es``) holds, for one language, the lines Lantern writes into a
reply (``[replies]``, ``[languages]``) and into an exported conversation (``[export]``:
app/export/words.py) and the rules it reads a question with (``[screening]``:
off-topic requests, injections, override preambles; ``[question]``: the question's shape and
follow-up cues; ``[names]``: the unknown-names rules of the evidence gate). ``en.toml`` is the
reference a translator copies (docs/answers.md, "Languages").

:func:`language_rules` gives the table a course reads with: its language's rules first, then the
English ones (a student may ask in English in any course), its language's texts with the English
ones for any left out. A tag with no table (``qya``, ``''``, ``pt-BR`` without ``pt.toml``) gets
English alone, never an exception.
"""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
REFERENCE = "en"
#: The rule lists of a table: (section, key) -> the :class:`LanguageRules` field holding them.
PATTERN_KEYS = {
    ("screening", "injection"): "injection", ("screening", "override_preamble"): "override_preamble",
    ("screening", "off_topic"): "off_topic", ("question", "outline"): "outline",
    ("question", "definition"): "definition", ("question", "refers_back"): "refers_back",
    ("question", "counting"): "counting", ("question", "how"): "how", ("question", "name"): "name",
    ("question", "value"): "value", ("question", "timetable"): "timetable",
    ("names", "named_feature"): "named_feature",
}
#: The word lists of ``[names]``.
WORD_KEYS = ("run_openers", "calendar", "stop_words", "not_a_name", "lesson_folders")
#: The word lists of ``[quotes]`` (quote selection, app/answer/rules.py).
QUOTE_WORD_KEYS = ("points_back", "defines")


@dataclass(frozen=True)
class LanguageRules:
    """One language's texts and rules (or a course's: its language's, then English's).

    ``tags``: the languages merged, first wins (``("fr", "en")``). ``replies``, ``export`` and ``web``
    (the words of ``lantern serve``'s page): text name -> template (``str.format`` placeholders, see
    ``en.toml``). ``languages``: tag -> language name in the replies' language. Each rule field is a
    tuple of compiled patterns (matched ignoring case; ``not_names`` with case); each word field a
    frozenset of lower-case words."""

    tags: tuple[str, ...]
    replies: dict[str, str] = field(default_factory=dict)
    export: dict[str, str] = field(default_factory=dict)
    web: dict[str, str] = field(default_factory=dict)
    languages: dict[str, str] = field(default_factory=dict)
    injection: tuple[re.Pattern, ...] = ()
    override_preamble: tuple[re.Pattern, ...] = ()
    off_topic: tuple[re.Pattern, ...] = ()
    outline: tuple[re.Pattern, ...] = ()
    definition: tuple[re.Pattern, ...] = ()
    refers_back: tuple[re.Pattern, ...] = ()
    counting: tuple[re.Pattern, ...] = ()
    how: tuple[re.Pattern, ...] = ()
    name: tuple[re.Pattern, ...] = ()
    value: tuple[re.Pattern, ...] = ()
    #: ``[question] timetable``: a question asking when a class, exam or deadline is (app/retrieval/gate_timetable.py)
    timetable: tuple[re.Pattern, ...] = ()
    named_feature: tuple[re.Pattern, ...] = ()
    not_names: tuple[re.Pattern, ...] = ()
    run_openers: frozenset[str] = frozenset()
    calendar: frozenset[str] = frozenset()
    stop_words: frozenset[str] = frozenset()
    not_a_name: frozenset[str] = frozenset()
    lesson_folders: frozenset[str] = frozenset()
    #: ``[quotes]``: words that open a sentence pointing back to the one before ("This…", "Cela…", "Esto…")
    points_back: frozenset[str] = frozenset()
    #: ``[quotes]``: the words of a sentence that defines a term ("is", "means", "known as"; "signifie")
    defines: frozenset[str] = frozenset()

    @property
    def language(self) -> str:
        """The tag whose texts the replies are written in (the first of :attr:`tags`)."""
        return self.tags[0]

    def text(self, key: str, **values: object) -> str:
        """The reply text ``key`` (a ``[replies]`` name of ``en.toml``) with ``values`` filled in.
        Raises KeyError for a name ``en.toml`` does not have."""
        template = self.replies[key]
        return template.format(**values) if values else template

    def language_name(self, tag: str) -> str:
        """``tag``'s language named in the replies' language: this table's ``[languages]``, else
        the English name, else the tag itself."""
        from ..ingest.language import LANGUAGE_NAMES

        base = tag.split("-")[0].lower()
        return self.languages.get(base) or LANGUAGE_NAMES.get(base, tag)


def base_tag(tag: str | None) -> str:
    """The language part of a BCP 47 tag, lower-cased (``pt-BR`` -> ``pt``, ``FR`` -> ``fr``); ''
    for '' or None."""
    return (tag or "").strip().replace("_", "-").split("-")[0].lower()


def available() -> tuple[str, ...]:
    """The tags that have a table in this folder, sorted (``("en", "es", "fr")``)."""
    return _tables_in(HERE)


@lru_cache(maxsize=4)
def _tables_in(folder: Path) -> tuple[str, ...]:
    """The stems of ``folder``'s ``*.toml`` files, sorted; listed once per folder (it was 8% of a
    served question's time when listed each time: py-spy, IoT course, 30 students at once)."""
    return tuple(sorted(p.stem for p in folder.glob("*.toml")))


def has_table(tag: str | None) -> bool:
    """Whether ``tag``'s language (:func:`base_tag`) has a table that loads."""
    base = base_tag(tag)
    return bool(base) and re.fullmatch(r"[a-z]{2,3}", base) is not None and _table(base) is not None


@lru_cache(maxsize=None)
def _table(base: str) -> LanguageRules | None:
    """The table of one language as written (no English merged), or None when there is none or it
    cannot be read (then one line is logged and the language falls back to English). A broken
    ``en.toml`` raises: Lantern's own install is damaged."""
    path = HERE / f"{base}.toml"
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return _compiled(base, data)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, re.error, TypeError, AttributeError) as exc:
        if base == REFERENCE:
            raise
        log.warning("The language table %s cannot be read (%s); English is used instead.", path.name, exc)
        return None


def _compiled(tag: str, data: dict) -> LanguageRules:
    patterns: dict[str, Any] = {}
    for (section, key), name in PATTERN_KEYS.items():
        patterns[name] = tuple(re.compile(p, re.IGNORECASE) for p in data.get(section, {}).get(key, []))
    names = data.get("names", {})
    words: dict[str, Any] = {key: frozenset(str(w).lower() for w in names.get(key, [])) for key in WORD_KEYS}
    quotes = data.get("quotes", {})
    words.update({key: frozenset(str(w).lower() for w in quotes.get(key, [])) for key in QUOTE_WORD_KEYS})
    return LanguageRules(
        tags=(tag,), replies={str(k): str(v) for k, v in data.get("replies", {}).items()},
        export={str(k): str(v) for k, v in data.get("export", {}).items()},
        web={str(k): str(v) for k, v in data.get("web", {}).items()},
        languages={str(k): str(v) for k, v in data.get("languages", {}).items()},
        not_names=tuple(re.compile(p) for p in names.get("not_names", [])), **patterns, **words)


@lru_cache(maxsize=64)
def language_rules(tag: str | None) -> LanguageRules:
    """The rules and texts for a course (or question) in ``tag`` (a BCP 47 tag, any case; '' or
    None: unknown). English alone for ``en``, an unknown tag or a language with no readable table;
    else that language's rules first and English's after, its texts with English's for any it
    leaves out. Never raises for a tag."""
    english = _table(REFERENCE)
    assert english is not None, "app/i18n/en.toml is missing"
    base = base_tag(tag)
    own = _table(base) if base and base != REFERENCE and re.fullmatch(r"[a-z]{2,3}", base) else None
    if own is None:
        return english
    merged: dict = {name: getattr(own, name) + getattr(english, name)
                    for name in (*PATTERN_KEYS.values(), "not_names")}
    merged.update({key: getattr(own, key) | getattr(english, key) for key in (*WORD_KEYS, *QUOTE_WORD_KEYS)})
    return LanguageRules(tags=(base, REFERENCE), replies={**english.replies, **own.replies},
                         export={**english.export, **own.export}, web={**english.web, **own.web},
                         languages=dict(own.languages), **merged)


def every_language_words(key: str) -> frozenset[str]:
    """The union of one ``[names]`` word list (a name of :data:`WORD_KEYS`) over every table that
    loads: folder names such as ``lessons``, ``lecons``, ``lecciones`` mean the same in any course."""
    return frozenset(w for tag in available() for w in getattr(_table(tag) or english(), key))


def english() -> LanguageRules:
    """English's rules and texts alone (the reference table)."""
    return language_rules(REFERENCE)
