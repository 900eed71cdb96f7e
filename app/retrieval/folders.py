"""Named folders: a question that names a lesson, project or guide folder.

Course folders are usually numbered and titled (``2-farm/lessons/5-migrate-application-
to-the-cloud/README.md`` titled "Migrate your application logic to the cloud";
``lessons/03-dht11/``). A question naming one of them ("in Lesson 3", "Project 2",
"the 'Keep your plant secure' lesson", "03-dht11") should be answered from that folder
first. :class:`FolderIndex` finds the named folders; the retriever ranks their chunks first.

Rules, in order (a folder is a path prefix ending in ``/``):
1. a quoted span ('…', "…", “…”, ‘…’), or the words of "the X lesson" / "the X project",
   equal, ignoring case and punctuation, to a folder's title (the title of its
   README/index guide, with or without a "Lesson 5:" prefix) or to its name without
   the number prefix (a span naming more than :data:`MAX_NUMBERED` folders is ignored);
2. an unquoted folder title of at least three words contained in the question;
3. a folder name with a hyphen or digit (``03-dht11``, ``location-tracking``) written in it;
4. "lesson N", "project N", "chapter N", "unit N", "module N": folders numbered N (a
   leading ``N-`` or ``0N-``); for "project" only top-level folders, otherwise folders
   below a ``lessons``-like folder when there are any. A number that names more than
   :data:`MAX_NUMBERED` folders is ambiguous and ignored, unless a named project
   narrows it.
Only the deepest of nested matches is kept.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ..bundle.checks import MAX_PATH_PARTS, path_problem
from ..i18n import every_language_words

MAX_NUMBERED = 2
MIN_TITLE_WORDS = 3

_QUOTED = re.compile(r"(?<!\w)'([^']{3,120})'(?!\w)|\"([^\"]{3,120})\"|“([^”]{3,120})”|‘([^’]{3,120})’")
_NUMBERED_REF = re.compile(r"\b(lesson|project|chapter|unit|module)\s+(\d{1,3})\b", re.IGNORECASE)
_THE_X_LESSON = re.compile(r"\bthe\s+([\w][\w\s-]{2,60}?)\s+(?:lesson|project|chapter|unit|module)\b",
                           re.IGNORECASE)
_TITLE_PREFIX = re.compile(r"^(?:lesson|project|chapter|unit|module|part)\s+\d+\s*[:.\-–]\s*", re.IGNORECASE)
_NUMBER_PREFIX = re.compile(r"^(\d{1,3})[-_. ]+(.*)$")
_GROUPING = {"lessons", "chapters", "units", "modules", "projects", "parts"} | every_language_words("lesson_folders")
_INDEX_STEMS = {"readme", "index"}


def normalize_words(text: str) -> str:
    """``text`` case-folded, as its words separated by single spaces (punctuation dropped)."""
    return " ".join(re.findall(r"\w+", text.casefold()))


@dataclass(frozen=True)
class Folder:
    """One folder of the course: ``path`` ends in ``/``; ``number`` from a ``N-`` prefix."""

    path: str
    depth: int
    number: int | None
    name: str
    names: frozenset[str]
    parent_name: str


class FolderIndex:
    """The folders of a course, built from its ``(source path, title)`` pairs."""

    def __init__(self, sources: list[tuple[str, str]]) -> None:
        titles: dict[str, str] = {}
        self._index_guides: dict[str, str] = {}
        folders: set[str] = set()
        for path, title in sources:
            # The folders above the guide: one pass over at most MAX_PATH_PARTS parts, so no path can
            # loop (``dirname('/')`` is ``'/'``). A path that is not relative and inside the course
            # (the reader refuses bundles holding one) names no folder.
            if path_problem(path):
                continue
            parts = path.split("/", MAX_PATH_PARTS)[:-1]
            directory = "/".join(parts)
            stem = posixpath.splitext(posixpath.basename(path))[0].lower()
            if directory and stem in _INDEX_STEMS:
                titles[directory] = title
                self._index_guides[directory + "/"] = path
            for depth in range(1, len(parts) + 1):
                folders.add("/".join(parts[:depth]))
        self._titles = {directory + "/": title for directory, title in titles.items()}
        self.folders: list[Folder] = []
        for directory in sorted(folders):
            segment = posixpath.basename(directory)
            match = _NUMBER_PREFIX.match(segment)
            number, bare = (int(match.group(1)), match.group(2)) if match else (None, segment)
            names = {normalize_words(bare)}
            if directory in titles:
                names |= {normalize_words(titles[directory]), normalize_words(_TITLE_PREFIX.sub("", titles[directory]))}
            self.folders.append(Folder(path=directory + "/", depth=directory.count("/") + 1, number=number,
                                       name=segment.lower(), names=frozenset(n for n in names if n),
                                       parent_name=posixpath.basename(posixpath.dirname(directory)).lower()))
        self._build_lookups()

    def lessons(self) -> list[tuple[str, str]]:
        """``(index guide path, title)`` of the course's lessons in course order: the numbered
        folders with an index guide (README/index) below a ``lessons``-like folder, or, when there
        are none, the numbered top-level folders with one. [] for a course not laid out in
        numbered folders."""
        titled = [f for f in self.folders if f.number is not None and f.path in self._index_guides]
        chosen = [f for f in titled if f.parent_name in _GROUPING] or [f for f in titled if f.depth == 1]
        chosen.sort(key=lambda f: ([int(n) if n.isdigit() else 0 for n in re.findall(r"(\d+)[-_. ]", f.path)],
                                   f.path))
        titles = dict(self._titles)
        return [(self._index_guides[f.path], titles.get(f.path, f.name)) for f in chosen]

    def named(self, question: str) -> list[str]:
        """Path prefixes (ending in ``/``) of the folders ``question`` names, deepest only; may be
        empty. Dictionary lookups only, so the cost grows with the question, not the course."""
        found: set[str] = set()
        quoted = [normalize_words(next(g for g in m.groups() if g)) for m in _QUOTED.finditer(question)]
        quoted += [normalize_words(m.group(1)) for m in _THE_X_LESSON.finditer(question)]
        for span in quoted:
            matches = self._by_name.get(span, ())
            if len(matches) <= MAX_NUMBERED:  # a name shared by many folders (``nightlight``) is ambiguous
                found.update(matches)
        words = normalize_words(question).split()
        # A title or folder name shared by more folders than MAX_NUMBERED is a topic, not a name:
        # IoT's nine `code/*/soil-moisture-sensor/` folders put code files first for any question
        # on soil moisture sensors.
        for n in range(MIN_TITLE_WORDS, min(len(words), self._longest_title) + 1):
            for i in range(len(words) - n + 1):
                matches = self._by_title.get(" ".join(words[i:i + n]), ())
                if len(matches) <= MAX_NUMBERED:
                    found.update(matches)
        for token in re.findall(r"\w+(?:[-.]\w+)*", question.casefold()):
            matches = self._by_segment.get(token, ())
            if len(matches) <= MAX_NUMBERED:
                found.update(matches)
        found |= self._numbered(question)
        return sorted(p for p in found if not any(o != p and o.startswith(p) for o in found))

    def _build_lookups(self) -> None:
        self._by_name: dict[str, list[str]] = {}
        self._by_title: dict[str, list[str]] = {}
        self._by_segment: dict[str, list[str]] = {}
        for folder in self.folders:
            for name in folder.names:
                self._by_name.setdefault(name, []).append(folder.path)
                if len(name.split()) >= MIN_TITLE_WORDS:
                    self._by_title.setdefault(name, []).append(folder.path)
            if ("-" in folder.name or any(c.isdigit() for c in folder.name)) and len(folder.name) >= 5:
                self._by_segment.setdefault(folder.name, []).append(folder.path)
        self._longest_title = max((len(t.split()) for t in self._by_title), default=0)

    def _numbered(self, question: str) -> set[str]:
        refs = [(kind.lower(), int(n)) for kind, n in _NUMBERED_REF.findall(question)]
        projects = {f.path for kind, n in refs if kind == "project" for f in self.folders
                    if f.depth == 1 and f.number == n}
        out = set(projects)
        for kind, n in refs:
            if kind == "project":
                continue
            numbered = [f for f in self.folders if f.number == n]
            grouped = [f for f in numbered if f.parent_name in _GROUPING]
            chosen = grouped or numbered
            if projects:
                chosen = [f for f in chosen if any(f.path.startswith(p) for p in projects)]
            if 0 < len(chosen) <= MAX_NUMBERED:
                out |= {f.path for f in chosen}
        if len(projects) > MAX_NUMBERED:
            out -= projects
        return out
