"""The window's geometry and splitter positions, kept next to the settings file (not in it)
so that the window opens as it was left. Nothing of the conversation is ever stored.

The file (``window.ini``) holds two values, under 1 KB. One that is not a regular file (a named
pipe would block the window until something wrote to it) or is over :data:`MAX_LAYOUT_BYTES` is
neither read nor written: the window opens at its default size, and one line in the log says why.
"""

from __future__ import annotations

import logging
import stat
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from ..config import settings_path

log = logging.getLogger(__name__)

#: The largest ``window.ini`` read (bytes): the file Lantern writes is under 1 KB. Not measured.
MAX_LAYOUT_BYTES = 65_536


def layout_path() -> Path:
    """``window.ini``, next to the settings file."""
    return settings_path().parent / "window.ini"


def layout_store() -> QSettings | None:
    """Window geometry and splitter positions, next to the settings file (not in it); None (and one
    log line) when ``window.ini`` is there but is not a regular file or is over MAX_LAYOUT_BYTES."""
    path = layout_path()
    try:
        found = path.stat()
    except OSError:
        found = None  # not there yet (or unreadable: Qt then keeps the values in memory)
    if found is not None and (not stat.S_ISREG(found.st_mode) or found.st_size > MAX_LAYOUT_BYTES):
        what = "is not a regular file" if not stat.S_ISREG(found.st_mode) else f"is {found.st_size:,} bytes"
        log.warning("%s %s; the window's size and layout are neither restored nor saved (delete it to fix)", path, what)
        return None
    return QSettings(str(path), QSettings.Format.IniFormat)


def restore_layout(window: QMainWindow, splitter: QSplitter) -> None:
    """Give ``window`` and ``splitter`` the geometry and positions saved last, if any."""
    store = layout_store()
    if store is None:
        return
    geometry, state = store.value("window/geometry"), store.value("window/splitter")
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        splitter.restoreState(state)


def save_layout(window: QMainWindow, splitter: QSplitter) -> None:
    """Save ``window``'s geometry and ``splitter``'s positions (not when :func:`layout_store` refuses the file)."""
    store = layout_store()
    if store is None:
        return
    store.setValue("window/geometry", window.saveGeometry())
    store.setValue("window/splitter", splitter.saveState())
    store.sync()
