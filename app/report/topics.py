"""Questions the guides did not serve, grouped into topics an instructor can act on.

Two passes, both deterministic:

1. A question for which the evidence gate named missing terms (names and key terms the guides
   never mention) joins the topic of its most frequent missing term across all the questions
   ("zigbee": 7 questions).
2. The others are grouped by word similarity: each question's content words (stopwords dropped,
   Snowball-stemmed, as retrieval tokenizes them: :func:`app.text.tokenize.query_words`) are
   compared with each topic's first question by Jaccard similarity; at least
   :data:`SIMILARITY` joins the topic, else the question starts a new one. The topic is named
   after its most common words.

The words are read in the language of the question's course: its bundle's on the PC that makes
the report (``languages``: course id -> language tag), else the tag logged with the question (a
course not installed there), else English; that is, with its Snowball stemmer and stop words
(:func:`app.text.tokenize.stemmer_for`) and its table's ``[names] stop_words`` (app/i18n:
"comment", "pourquoi"…), an elided stop word dropped (``l'installation`` is ``installation``), so
"Comment installer le paquet sur la carte ?" and "L'installation des paquets ne marche pas" make
one topic in a French course (two when read as English).

Measured on a few hundred questions this takes milliseconds; the pass is quadratic in the
number of topics, which stays small because the report only groups questions that need attention.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..i18n import language_rules
from ..text.tokenize import DEFAULT_STEMMER, STOP_WORDS, query_words, stemmer_for, written_words
from .log import LoggedQuestion

#: Jaccard similarity of content words (0..1) at which a question joins a topic.
SIMILARITY = 0.34
#: Example questions kept per topic.
EXAMPLES = 3
#: Words of asking that say nothing about the topic (beyond retrieval's stopwords).
ASKING_WORDS = frozenset("how what why when where which who whom whose does do did can could should would shall "
                         "will my i me we our you your is are was were be it its get got need want".split())

#: A word starting with an elided one- or two-letter word: ``l'installation``, ``qu'est``.
_ELISION = re.compile(r"^(\w{1,2})['’](\w.*)$")


@dataclass
class Topic:
    """A group of questions: ``label`` names it (a missing term, or its most common words),
    ``missing`` says whether it came from missing terms; ``questions`` are the rows, first asked first."""

    label: str
    missing: bool
    questions: list[LoggedQuestion] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.questions)

    def examples(self, n: int = EXAMPLES) -> list[str]:
        """Up to ``n`` different question texts of the topic, most recent first."""
        seen: dict[str, None] = {}
        for row in reversed(self.questions):
            seen.setdefault(row.question, None)
        return list(seen)[:n]

    def as_json(self) -> dict:
        return {"topic": self.label, "from_missing_terms": self.missing, "count": self.count,
                "examples": self.examples(), "ids": [r.id for r in self.questions]}


def needs_attention(row: LoggedQuestion) -> bool:
    """A question the guides did not serve: "not covered", or a reply the student said did not help."""
    return row.state == "not-covered" or row.helped is False


def group_topics(rows: list[LoggedQuestion], languages: Mapping[str, str] | None = None) -> list[Topic]:
    """The topics of ``rows`` (usually those that :func:`needs_attention`), largest first
    (ties: by label). ``languages``: course id -> the course's language tag (``fr``, ``es-MX``) of the
    courses installed on this PC; a row's words are read in its course's language from there, else
    in the language logged with it (``row.language``), else in English."""
    languages = languages or {}
    term_counts = Counter(t.lower() for r in rows for t in dict.fromkeys(r.missing_terms))
    by_term: dict[str, Topic] = {}
    similar: list[tuple[frozenset[str], Topic]] = []
    for row in rows:
        if row.missing_terms:
            term = max((t.lower() for t in row.missing_terms), key=lambda t: (term_counts[t], t))
            by_term.setdefault(term, Topic(term, True)).questions.append(row)
            continue
        words = _content_words(row.question, language_of(row, languages))
        for seed, topic in similar:
            if _jaccard(words, seed) >= SIMILARITY:
                topic.questions.append(row)
                break
        else:
            similar.append((words, Topic("", False, [row])))
    for _seed, topic in similar:
        topic.label = _common_words(topic.questions, languages)
    topics = list(by_term.values()) + [t for _s, t in similar]
    return sorted(topics, key=lambda t: (-t.count, t.label))


def language_of(row: LoggedQuestion, languages: Mapping[str, str]) -> str:
    """The language tag ``row``'s words are read in: its course's in ``languages`` (the installed
    bundle's), else the one logged with it, else '' (English)."""
    return languages.get(row.course_id) or row.language


def _content_words(text: str, language: str = "") -> frozenset[str]:
    """The content words of ``text`` stemmed in ``language`` (a tag; '' English): no stopwords of
    that language, no :data:`ASKING_WORDS`, none of its table's ``[names] stop_words``; outside
    English an elided stop word goes too (``l'installation`` is ``installation``)."""
    stemmer = stemmer_for(language)
    asking = ASKING_WORDS | language_rules(language).stop_words
    words = (_unelided(w, stemmer) for w in written_words(text))
    kept = " ".join(w for w in words if w.lower() not in asking)
    return frozenset(variants[0] for variants in query_words(kept, stemmer))


def _unelided(word: str, stemmer: str) -> str:
    """``word`` without a leading elided stop word of ``stemmer``'s language (French ``l'``, ``qu'``)."""
    elided = _ELISION.match(word)
    if stemmer == DEFAULT_STEMMER or not elided or elided.group(1).lower() not in STOP_WORDS.get(stemmer, ()):
        return word
    return elided.group(2)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _common_words(rows: list[LoggedQuestion], languages: Mapping[str, str], n: int = 3) -> str:
    """The ``n`` content words most questions of ``rows`` share, as written (lower case)."""
    counts: Counter[str] = Counter()
    for row in rows:
        language = language_of(row, languages)
        words = {w.lower() for w in written_words(row.question) if _content_words(w, language)}
        counts.update(words)
    top = [w for w, _c in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]]
    return ", ".join(top) or "(no words)"
