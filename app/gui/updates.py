"""Noticing that the open course's bundle file was replaced while the window is open.

``lantern install`` (or "Add or update a course…", ``lantern rollback``, a rebuild with ``-o``)
renames a new bundle over the installed file. The window keeps reading the file it opened (the
old one stays readable while it is open), so without a check its answers, viewer, status bar and
Course menu would stay on the old version until the course is chosen again.

:class:`CourseUpdateWatch` remembers the file's identity when the window opens it (device, inode,
size, modification time) and its ``meta`` (corpus version, build time, title, digest). A
:class:`QFileSystemWatcher` on the file and its folder, and :meth:`CourseUpdateWatch.check` before
each question, compare them again: a stat call, and only when the identity changed, the new file's
``meta`` (opened read-only, not verified: milliseconds). A different ``meta`` is an update; the
window then reloads the course (:mod:`app.gui.courses`) between questions.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from ..bundle.reader import BundleReader
from ..errors import LanternError
from .translation import tr

log = logging.getLogger(__name__)

#: Milliseconds to wait after the file system reports a change before looking: an install writes
#: a temporary file, keeps the previous version and renames, in quick succession.
SETTLE_MS = 400


class FileIdentity(NamedTuple):
    """What tells one file at a path from another: device, inode, size in bytes, mtime in ns."""

    device: int
    inode: int
    size: int
    mtime_ns: int


def file_identity(path: Path) -> FileIdentity | None:
    """The identity of the file at ``path``; None when it cannot be read (missing, mid-rename)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileIdentity(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def version_words(meta: dict[str, str]) -> str:
    """A bundle's version as the status bar names it: ``corpus 1a2b3c4d5e6f · built 2025-01-31``."""
    built = meta.get("built_at", "")[:10]
    return (tr("corpus {version}").format(version=meta.get("corpus_version", "?")[:12])
            + (" · " + tr("built {date}").format(date=built) if built else ""))


class CourseUpdateWatch(QObject):
    """Watches ``bundle``'s file. ``updated(dict)`` is emitted with the new file's ``meta`` once
    the file at that path holds another build than the one opened (each new build once).
    :attr:`changed_meta` is that ``meta`` (None while the file holds the opened build)."""

    updated = Signal(object)

    def __init__(self, bundle: BundleReader, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = bundle.path
        self.meta = dict(bundle.meta)
        self.identity = file_identity(self.path)
        self.changed_meta: dict[str, str] | None = None
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.check)
        self.watcher = QFileSystemWatcher(self)
        self._watch()
        self.watcher.fileChanged.connect(self._changed)  # methods, not lambdas holding self
        self.watcher.directoryChanged.connect(self._changed)

    def stop(self) -> None:
        """Watch no more (the window is closing): nothing is checked or emitted after this."""
        self._stopped = True
        self._timer.stop()
        self.watcher.blockSignals(True)

    def _changed(self, _path: str) -> None:
        self._timer.start()  # check once the file settles

    def _watch(self) -> None:
        """Watch the file and its folder (a rename over the file ends the file's own watch)."""
        for path, watched in ((self.path, self.watcher.files()), (self.path.parent, self.watcher.directories())):
            if str(path) not in watched and path.exists():
                self.watcher.addPath(str(path))

    def check(self) -> bool:
        """True when the file now holds another build than the one opened (``updated`` is then
        emitted the first time this build is seen). Raises nothing: a file that cannot be read
        now (missing, half-copied) is looked at again at the next change or question. After
        :meth:`stop`, False."""
        if self._stopped:
            return False
        self._watch()
        identity = file_identity(self.path)
        if identity is None or identity == self.identity:
            return self.changed_meta is not None
        try:
            reader = BundleReader(self.path, verify=False)
        except LanternError as exc:
            log.info("the course file changed but cannot be read yet: %s", exc)
            return self.changed_meta is not None
        try:
            meta = dict(reader.meta)
        finally:
            reader.close()
        self.identity = identity
        if meta == self.meta:  # the same build copied again (or touched)
            self.changed_meta = None
            return False
        if meta == self.changed_meta:
            return True
        self.changed_meta = meta
        log.info("the course file %s was replaced: %s -> %s", self.path, version_words(self.meta), version_words(meta))
        self.updated.emit(meta)
        return True
