"""Citation checking by code: every ``[n]`` must name a source that was actually sent.

Markers such as ``[2]``, ``[1, 3]`` or ``[1][2]`` (:data:`app.text.grammar.CITATION_MARKER`) are read; numbers outside the sent
sources are removed from the text; the cited sources are returned in order of first
citation. The model's word is never trusted for which passages support the answer.
"""

from __future__ import annotations

import re

from ..ingest.markdown import fences
from ..text.grammar import CITATION_MARKER, citation_numbers

#: Inline code spans: brackets inside them (and inside fenced code blocks) are code, not citations.
_INLINE_CODE = re.compile(r"`[^`\n]+`")
#: A bracket right after one of these is an index or a list in code (``list[1]``, ``f([1, 2])``).
_CODE_BEFORE = re.compile(r"[\w(\[=,]$")


def is_citation(text: str, match: re.Match) -> bool:
    """Whether a ``[n]`` marker found in ``text`` is a citation: not inside code (a fenced block,
    :func:`~app.ingest.markdown.fences`, or an inline code span) and not directly after a word
    character, ``(``, ``[``, ``=`` or ``,``."""
    at = match.start()
    if _CODE_BEFORE.search(text[max(0, at - 1):at]):
        return False
    if any(fence.start <= at < fence.end for fence in fences(text)):
        return False
    return not any(code.start() <= at < code.end() for code in _INLINE_CODE.finditer(text))


def check_citations(text: str, sent: int) -> tuple[str, list[int]]:
    """``(text with unknown numbers removed, cited source numbers in first-cited order)``.

    ``sent`` is the number of sources sent (valid numbers are 1..sent). Brackets in code
    (``get_body([1, 2])``, ```` `items[2]` ````, fenced blocks) are left alone: they are
    neither citations nor removed.
    """
    cited: list[int] = []

    def keep(match: re.Match) -> str:
        if not is_citation(text, match):
            return match.group(0)
        numbers = citation_numbers(match)
        valid = [n for n in numbers if 1 <= n <= sent]
        for n in valid:
            if n not in cited:
                cited.append(n)
        return "[" + ", ".join(str(n) for n in valid) + "]" if valid else ""

    cleaned = CITATION_MARKER.sub(keep, text)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned)
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned).strip()
    return cleaned, cited
