"""The window's geometry and splitter positions, kept next to the settings file (not in it)
so that the window opens as it was left. Nothing of the conversation is ever stored."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from ..config import settings_path


def layout_store() -> QSettings:
    """Window geometry and splitter positions, next to the settings file (not in it)."""
    return QSettings(str(settings_path().parent / "window.ini"), QSettings.Format.IniFormat)


def restore_layout(window: QMainWindow, splitter: QSplitter) -> None:
    """Give ``window`` and ``splitter`` the geometry and positions saved last, if any."""
    store = layout_store()
    geometry, state = store.value("window/geometry"), store.value("window/splitter")
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        splitter.restoreState(state)


def save_layout(window: QMainWindow, splitter: QSplitter) -> None:
    """Save ``window``'s geometry and ``splitter``'s positions."""
    store = layout_store()
    store.setValue("window/geometry", window.saveGeometry())
    store.setValue("window/splitter", splitter.saveState())
    store.sync()
