"""The courses ``lantern serve`` offers: the installed course library (app/bundle/library.py), the
bundles of ``--dir`` folders, or one ``--bundle``; each opened read-only, once, when first asked.

Only these bundles are ever read: a course is named by its course id, and a guide or image by its
exact course path inside that bundle, so no file path from a request reaches the file system.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..bundle.library import STATE_OK, CourseEntry, CourseFolder, list_courses, probe_bundle
from ..errors import BundleError, LanternError

if TYPE_CHECKING:  # pragma: no cover
    from ..answer.answerer import Assistant
    from ..bundle.reader import BundleReader

#: ``make_assistant(bundle path) -> Assistant``: how a course is opened (the command loads the
#: models once and shares them; tests pass fakes).
MakeAssistant = Callable[[Path], "Assistant"]


class UnknownCourse(LanternError):
    """The request names a course this server does not offer."""


@dataclass(frozen=True)
class ServedCourse:
    """One course on offer: its library entry, without the file's path (never sent to browsers)."""

    course_id: str
    title: str
    version: str
    language: str
    guides: int | None
    degraded: tuple[str, ...]
    path: Path

    def as_json(self) -> dict:
        """One entry of ``GET /api/courses``: ``course_id``, ``title``, ``version``, ``language``
        (None when unknown), ``guides`` (count), ``degraded`` (named states) and ``words``: the page's
        texts in the course's language (``[web]`` of app/i18n, English's for any it leaves out)."""
        from ..i18n import language_rules

        return {"course_id": self.course_id, "title": self.title, "version": self.version,
                "language": self.language or None, "guides": self.guides, "degraded": list(self.degraded),
                "words": dict(language_rules(self.language).web)}


def _served(entry: CourseEntry) -> ServedCourse:
    return ServedCourse(entry.course_id, entry.title, entry.version, entry.language, entry.guides,
                        tuple(entry.degraded or ()), entry.path)


def find_courses(bundle: Path | None = None, dirs: list[Path] | None = None,
                 embedding: tuple[str, int, str] | None = None) -> list[ServedCourse]:
    """The courses to serve: ``bundle`` alone, else the newest good bundle of each course in
    ``dirs``, else in the installed course library. Raises :class:`BundleError` (one sentence)
    when ``bundle`` cannot be served or no good course is found."""
    if bundle is not None:
        entry = probe_bundle(Path(bundle), "bundle", embedding=embedding)
        if entry.state != STATE_OK:
            raise BundleError(entry.reason or f"The course bundle {bundle} cannot be served; choose another file.")
        return [_served(entry)]
    folders = [CourseFolder("dir", Path(d)) for d in dirs] if dirs else None
    entries = [e for e in list_courses(folders, embedding=embedding) if e.state == STATE_OK]
    if not entries:
        where = ", ".join(str(d) for d in dirs) if dirs else "the installed course library"
        raise BundleError(f"No course bundle that can be served was found in {where}; pass --bundle FILE or "
                          "--dir FOLDER, or install a course with `lantern install`.")
    return [_served(e) for e in entries]


class CourseLibrary:
    """The served courses by course id, each course's assistant made once on first use
    (thread-safe: a request waits while another opens the same course)."""

    def __init__(self, courses: list[ServedCourse], make_assistant: MakeAssistant) -> None:
        self.courses = {c.course_id: c for c in courses}
        self._make = make_assistant
        self._assistants: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def default_id(self) -> str:
        """The course shown first (the first found)."""
        return next(iter(self.courses))

    def listing(self) -> list[dict]:
        return [c.as_json() for c in self.courses.values()]

    def course(self, course_id: object) -> ServedCourse:
        """The course ``course_id``; raises :class:`UnknownCourse` for any other value."""
        if not isinstance(course_id, str) or course_id not in self.courses:
            raise UnknownCourse("That course is not offered here; pick one of the courses in the list.")
        return self.courses[course_id]

    def assistant(self, course_id: object) -> Assistant:
        """The assistant of ``course_id`` (opened now when first asked). Raises :class:`UnknownCourse`."""
        course = self.course(course_id)
        with self._lock:
            if course.course_id not in self._assistants:
                self._assistants[course.course_id] = self._make(course.path)
            return self._assistants[course.course_id]

    def bundle(self, course_id: object) -> BundleReader:
        """The open bundle of ``course_id``. Raises :class:`UnknownCourse`."""
        return self.assistant(course_id).retriever.bundle
