"""GitHub-style heading anchors (DESIGN.md, "Chunk key").

Lower-case the heading's plain text, drop punctuation (anything that is not a letter,
digit, space, hyphen or underscore), turn each space into ``-``; a repeated slug in the
same document gets ``-1``, ``-2``, ... in order of appearance. This follows the
behaviour of github-slugger, which GitHub uses for rendered Markdown.
"""

from __future__ import annotations

import re

_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def slugify(text: str) -> str:
    """The base slug of one heading text (no de-duplication)."""
    return _DROP.sub("", text.strip().lower()).replace(" ", "-")


class Slugger:
    """Hands out unique slugs for the headings of one document, in order."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, text: str) -> str:
        base = slugify(text)
        slug = base
        while slug in self._seen:
            self._seen[base] += 1
            slug = f"{base}-{self._seen[base]}"
        self._seen[slug] = 0
        return slug
