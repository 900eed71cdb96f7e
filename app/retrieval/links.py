"""Sections that only point to another guide.

Course folders often hold a README section whose whole body is a link to another guide,
e.g. IoT for Beginners' "## Assignment" sections: ``[Investigate other GPS data](assignment.md)``.
For a question about it ("What's the assignment for the 'Location tracking' lesson?") the
link-only section ranks first, yet the answer is in the guide it links to. The retriever
therefore places the linked guide's first chunk right after such a section, with the same
score (``Retriever.search``).

:func:`classify_link` says what any link in a guide or a quote points to (a course file, the web,
a file on this PC, a script, a place outside the course), and :func:`link_refusal` says in one
sentence why the app does not follow it: the window opens course guides and nothing else.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Collection
from urllib.parse import unquote, urlsplit

from ..text.grammar import MARKDOWN_LINK, link_destination

#: At most this many characters of other text (letters and digits) may surround the link.
MAX_OTHER_CHARS = 40


def _single_link(text: str, source: str, known: Collection[str]) -> str | None:
    """The course path of the one relative link that is all ``text`` says (at most
    MAX_OTHER_CHARS letters and digits besides it and the heading line), else None."""
    links = [m for m in MARKDOWN_LINK.finditer(text) if not m.group(0).startswith("!")]
    if len(links) != 1:
        return None
    target = link_destination(links[0]).split("#", 1)[0]
    if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("/"):
        return None
    other = MARKDOWN_LINK.sub(" ", text)
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


#: What a link points to (:attr:`LinkTarget.kind`).
GUIDE, WEB, MAIL, FILE, SCRIPT, OUTSIDE, OTHER = "guide", "web", "mail", "file", "script", "outside", "other"
_WEB_SCHEMES = {"http", "https", "ftp", "ftps"}
_SCRIPT_SCHEMES = {"javascript", "vbscript", "livescript", "jscript"}
#: Characters of a link's address quoted in a message (a script link can be very long).
MESSAGE_HREF_CHARS = 80


@dataclass(frozen=True)
class LinkTarget:
    """What a link points to: ``kind`` is one of GUIDE (``path`` is the course-root path, ``anchor``
    the heading anchor, '' for the top), WEB, MAIL, FILE (a file on this PC: ``file:``, a Windows
    drive or network path), SCRIPT (``javascript:``), OUTSIDE (a relative path that climbs out of the
    course folder) or OTHER (any other scheme)."""

    kind: str
    path: str = ""
    anchor: str = ""


def classify_link(guide: str, href: str) -> LinkTarget:
    """What ``href``, a link written in guide ``guide`` (a course-root path; '' for the root),
    points to. A path is relative to the guide's folder, or to the course root when it starts with
    ``/`` (as on GitHub); ``#anchor`` alone is a place in the same guide. Never raises."""
    href = href.strip()
    if re.match(r"^[A-Za-z]:[\\/]", href) or href.startswith("\\\\"):
        return LinkTarget(FILE)  # a Windows drive (C:\...) or network path (\\server\share)
    try:
        parts = urlsplit(href)
    except ValueError:  # e.g. an unbalanced [ in the host
        return LinkTarget(OTHER)
    scheme = parts.scheme.lower()
    if scheme in _WEB_SCHEMES or (not scheme and parts.netloc):
        return LinkTarget(WEB)
    if scheme == "mailto":
        return LinkTarget(MAIL)
    if scheme == "file" or len(scheme) == 1:  # file:, or a Windows drive letter (c:%5CWindows)
        return LinkTarget(FILE)
    if scheme in _SCRIPT_SCHEMES:
        return LinkTarget(SCRIPT)
    if scheme:
        return LinkTarget(OTHER)
    anchor = unquote(parts.fragment)
    if not parts.path:
        return LinkTarget(GUIDE, guide, anchor)
    path = unquote(parts.path).replace("\\", "/")
    joined = path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(guide), path)
    normal = posixpath.normpath(joined) if joined else "."
    if normal == ".." or normal.startswith("../") or normal == ".":
        return LinkTarget(OUTSIDE)
    return LinkTarget(GUIDE, normal, anchor)


def link_refusal(target: LinkTarget, href: str) -> str:
    """One sentence saying why a link of ``target.kind`` other than GUIDE is not followed (the
    app is offline and opens only the course's own guides), quoting at most
    :data:`MESSAGE_HREF_CHARS` characters of ``href``."""
    shown = " ".join(href.split())
    if len(shown) > MESSAGE_HREF_CHARS:
        shown = shown[:MESSAGE_HREF_CHARS - 1] + "…"
    if target.kind == WEB:
        return f"{shown} is a web link; Lantern works offline, so open it in a browser."
    if target.kind == MAIL:
        return f"{shown} is an e-mail address; write to it from your e-mail program."
    if target.kind == FILE:
        return f"{shown} is a link to a file on this PC, not to the course; Lantern opens only the course's guides."
    if target.kind == SCRIPT:
        return f"{shown} is a script link; Lantern never runs scripts from a guide."
    if target.kind == OUTSIDE:
        return f"{shown} points outside the course folder; Lantern opens only the course's guides."
    if target.kind == GUIDE:
        return f"{target.path or shown} is not a guide in this course bundle."
    return f"{shown} is a kind of link Lantern cannot open; it opens only the course's guides."
