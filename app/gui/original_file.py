"""The viewer's "Open the original file" action: a guide converted from a Word, PowerPoint,
OpenDocument, EPUB, notebook or PDF file, built with ``lantern build --keep-originals``, can be
opened in the program the PC uses for that kind of file.

The original's bytes come from the bundle (app/bundle/originals.py), never from the course folder
or the network. Before anything is written, the guide's extension must be one of the document types
of :data:`app.bundle.originals.ORIGINAL_TYPES` (a bundle naming ``tool.exe`` or ``run.sh`` is
refused), the bytes' sha256 must equal the guide's, and the bytes must be a file of that type
(:func:`app.bundle.originals.fits_its_type`: a bundle whose hash was recomputed over other bytes is
still refused). The copy goes to one private folder of the system's temporary folder per process
(only this user may read it), in a sub-folder named by the digest, under the guide's own file name,
read-only, and is handed to the system through :meth:`QDesktopServices.openUrl` as a ``file:`` URL;
opening the same original again reuses that copy while its bytes still match. Nothing is ever run
by Lantern itself; the system opens a document with its default program. Copies are left to the
system's usual clean-up of temporary files (the program may still have them open when Lantern quits).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import tempfile
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QToolButton

from ..bundle.originals import fits_its_type, is_original, original_extension, original_path
from ..errors import LanternError
from .translation import tr


def original_bytes(bundle, guide: str) -> bytes:
    """The bytes of ``guide``'s original file kept in ``bundle`` (a :class:`BundleReader`).

    Raises :class:`LanternError` with one sentence when the guide's type is not a document type,
    the bundle holds no original for it, or the bytes differ from the guide's sha256."""
    if not original_extension(guide):
        raise LanternError(tr("{guide} is not a Word, PowerPoint, OpenDocument, EPUB, notebook or PDF file; "
                              "Lantern opens only those.").format(guide=guide))
    found = bundle.asset(original_path(guide))
    if found is None:
        raise LanternError(tr("This course bundle does not hold the original of {guide}; ask your instructor "
                              "to build it with --keep-originals.").format(guide=guide))
    data = found[1]
    rows = bundle._query("SELECT sha256 FROM sources WHERE path = ?", (guide,))
    if not rows or rows[0][0] != hashlib.sha256(data).hexdigest():
        raise LanternError(tr("The original of {guide} in this bundle does not match the guide; ask your "
                              "instructor to build the bundle again.").format(guide=guide))
    if not fits_its_type(guide, data):
        raise LanternError(tr("The original of {guide} in this bundle is not a {kind} file; Lantern will not "
                              "open it, so ask your instructor to build the bundle again.")
                           .format(guide=guide, kind=original_extension(guide)))
    return data


#: This process's private folder for copies, per parent folder (None: the system's temporary folder).
_PRIVATE_FOLDERS: dict[Path | None, Path] = {}


def _private_folder(folder: Path | None) -> Path:
    """This process's private folder (mode 0700) under ``folder``, made on first use (again if removed)."""
    private = _PRIVATE_FOLDERS.get(folder)
    if private is None or not private.is_dir():
        private = Path(tempfile.mkdtemp(prefix="lantern-original-", dir=folder))
        _PRIVATE_FOLDERS[folder] = private
    return private


def _holds(target: Path, digest: str) -> bool:
    """Whether the file ``target`` exists and its sha256 is ``digest``."""
    try:
        return hashlib.sha256(target.read_bytes()).hexdigest() == digest
    except OSError:
        return False


def write_private_copy(guide: str, data: bytes, folder: Path | None = None) -> Path:
    """Write ``data`` as the guide's file name, read-only for this user, to ``<private>/<digest>/``,
    where ``<private>`` is this process's private folder (mode 0700) under ``folder`` (default: the
    system's temporary folder); returns its path. A copy already there with the same bytes is
    reused, so opening one original many times writes it once.

    Raises :class:`LanternError` when it cannot be written (a full disk, no temporary folder)."""
    name = posixpath.basename(guide)
    digest = hashlib.sha256(data).hexdigest()
    try:
        holder = _private_folder(folder) / digest[:32]
        holder.mkdir(mode=0o700, exist_ok=True)
        target = holder / name
        if _holds(target, digest):
            return target
        if target.exists():  # a copy changed since: replace it (read-only, so writable first for Windows)
            os.chmod(target, 0o600)
            target.unlink()
        handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o400)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
    except OSError as exc:
        raise LanternError(tr("Could not write a copy of {guide} to open it ({reason}); free some disk "
                              "space and try again.").format(guide=guide, reason=exc.strerror or exc)) from exc
    return target


def open_original(bundle, guide: str) -> Path:
    """Write ``guide``'s original (:func:`original_bytes`) to a private copy and hand its ``file:``
    URL to the system's default program; returns the copy's path.

    Raises :class:`LanternError` with one sentence when it cannot be opened."""
    target = write_private_copy(guide, original_bytes(bundle, guide))
    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(target))):
        raise LanternError(tr("No program on this PC opens {name} files; a copy is at {path}.")
                           .format(name=target.suffix, path=target))
    return target


class OriginalFileButton(QToolButton):
    """"Open the original file" for the guide shown: hidden when the bundle keeps no originals,
    enabled only when it keeps the shown guide's. ``failed`` carries a one-sentence message."""

    failed = Signal(str)
    opened = Signal(str)  # the path of the copy handed to the system

    def __init__(self, bundle, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.guide = ""
        self.setText(tr("Open the original file"))
        self.setAccessibleName(tr("Open the original file"))
        self.setEnabled(False)
        self.setVisible(any(is_original(path) for path in bundle.asset_paths))
        self.clicked.connect(self.open_shown)

    def show_for(self, guide: str) -> None:
        """Follow the guide shown: enabled when the bundle keeps its original."""
        self.guide = guide
        kept = bool(original_extension(guide)) and original_path(guide) in self.bundle.asset_paths
        self.setEnabled(kept)
        self.setToolTip(tr("Open {name} in the program this PC uses for it").format(name=posixpath.basename(guide))
                        if kept else tr("This guide's original file is not in the course bundle"))

    def open_shown(self) -> None:
        """Open the shown guide's original (:func:`open_original`); a problem is sent as ``failed``."""
        try:
            target = open_original(self.bundle, self.guide)
        except LanternError as exc:
            self.failed.emit(str(exc))
            return
        self.opened.emit(str(target))
