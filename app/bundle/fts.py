"""Guide search's FTS5 text: the query built from what a student typed, and the snippet cleaned for
one line of the Search tab (:meth:`app.bundle.reader.BundleReader.search_guides` uses both)."""

from __future__ import annotations

import re

from .schema import quote_fts

#: Guide search: the first characters of each word that are searched. FTS5 splits a quoted term into
#: tokens and matches them as a phrase; one pasted 126,000-character "word" of punctuation and letters
#: (``(c(c(c…``) made a 63,000-token phrase that took 7 s and 530 MB (16 s for ``1]1]1]…``) in the
#: fuzz run (docs/security.md). Words are prefix terms, so a longer one is still found by its start.
SEARCH_WORD_CHARS = 64


def guide_search_query(text: str) -> tuple[str, str]:
    """FTS5 queries for what a student typed: ``(all words, any word)``, each word a quoted
    prefix term (``"oled"* "bla"*``); ``("", "")`` when nothing searchable is left.

    Every word goes through :func:`quote_fts`, so ``C++``, ``AND``, ``"`` and ``-v`` are
    searched as text, never parsed as FTS5 syntax. Pieces without a letter or digit are dropped
    (FTS5 would find no token in them); each word is cut to its first SEARCH_WORD_CHARS characters.
    """
    words = [w[:SEARCH_WORD_CHARS] for w in text.split() if re.search(r"\w", w)][:12]
    terms = [quote_fts(w) + "*" for w in words]
    return " ".join(terms), " OR ".join(terms)


def clean_snippet(snippet: str) -> str:
    """One line of a snippet: Markdown heading marks, emphasis, backticks and runs of
    whitespace removed (the match markers stay)."""
    lines = [re.sub(r"^#{1,6}\s+", "", line.strip()) for line in snippet.splitlines()]
    text = re.sub(r"\*\*|__|`", "", " ".join(lines))
    return " ".join(text.split())
