"""Sections that only point to another guide.

Course folders often hold a README section whose whole body is a link to another guide,
e.g. IoT for Beginners' "## Assignment" sections: ``[Investigate other GPS data](assignment.md)``.
For a question about it ("What's the assignment for the 'Location tracking' lesson?") the
link-only section ranks first, yet the answer is in the guide it links to. The retriever
therefore places the linked guide's first chunk right after such a section, with the same
score (``Retriever.search``).
"""

from __future__ import annotations

import posixpath
import re
from typing import Collection

_LINK = re.compile(r"!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: At most this many characters of other text (letters and digits) may surround the link.
MAX_OTHER_CHARS = 40


def _single_link(text: str, source: str, known: Collection[str]) -> str | None:
    """The course path of the one relative link that is all ``text`` says (at most
    MAX_OTHER_CHARS letters and digits besides it and the heading line), else None."""
    links = [m for m in _LINK.finditer(text) if not m.group(0).startswith("!")]
    if len(links) != 1:
        return None
    target = links[0].group(2).split("#", 1)[0]
    if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("/"):
        return None
    other = _LINK.sub(" ", text)
    other = re.sub(r"^#{1,6}\s.*$", " ", other, flags=re.MULTILINE)  # the section's own heading line
    if len(re.sub(r"\W", "", other)) > MAX_OTHER_CHARS:
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    return path if path in known and path != source else None


def _inside(path: str, source: str) -> bool:
    folder = posixpath.dirname(source)
    return not folder or path.startswith(folder + "/")


def link_only_target(text: str, source: str, known: Collection[str]) -> str | None:
    """The course path ``text`` (a chunk of guide ``source``) links to when the link is all it
    says: one relative Markdown link to a guide in ``known``, in the guide's own folder or below
    it, and at most MAX_OTHER_CHARS letters and digits of other text. ``None`` otherwise (web
    links, several links, prose, and links to other folders: a "## Next" section pointing to
    the next lesson is navigation, and following it ranked that lesson among a question's
    answers)."""
    path = _single_link(text, source, known)
    return path if path is not None and _inside(path, source) else None


def is_navigation(text: str, source: str, known: Collection[str]) -> bool:
    """True for a section that only points to a guide in another folder ("## Next\n\n[Lesson 5]
    (../05-wifi/README.md) connects the board to Wi-Fi."): it holds no answer of its own."""
    path = _single_link(text, source, known)
    return path is not None and not _inside(path, source)
