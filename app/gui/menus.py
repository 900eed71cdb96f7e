"""The window's menus; their shortcuts are the window's keyboard shortcuts. And the About box."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu

from ..bundle.reader import BundleReader

if TYPE_CHECKING:  # pragma: no cover
    from .main_window import MainWindow


@dataclass(frozen=True)
class MenuActions:
    """The menu actions the window enables and disables."""

    new: QAction
    copy: QAction
    back: QAction
    forward: QAction


def build_menus(window: MainWindow) -> MenuActions:
    """Add the Lantern, Conversation and Guides menus to ``window`` and Esc to stop; returns the
    actions the window keeps as its ``new_action``, ``copy_action``, ``back_action`` and ``forward_action``."""
    def action(menu: QMenu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, window)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    bar = window.menuBar()
    lantern = bar.addMenu("&Lantern")
    action(lantern, "&Settings…", window.open_settings, "Ctrl+,", "Course bundle, chat model, threads, font size")
    action(lantern, "&About Lantern", window.show_about, tip="Version, course, and where the log file is")
    lantern.addSeparator()
    action(lantern, "&Quit", window.close, QKeySequence.StandardKey.Quit)
    ask = bar.addMenu("&Conversation")
    action(ask, "Ask a &question", window.focus_question, "Ctrl+L")
    new = action(ask, "&New conversation", window.new_conversation, "Ctrl+N")
    action(ask, "&Stop the answer\tEsc", window.stop)
    copy = action(ask, "&Copy answer with sources", window.copy_answer)
    guides = bar.addMenu("&Guides")
    action(guides, "&Search the guides", window.focus_search, "Ctrl+F")
    action(guides, "&Contents", window.focus_contents, "Ctrl+T")
    back = action(guides, "&Back", window.viewer.go_back, "Alt+Left")
    forward = action(guides, "&Forward", window.viewer.go_forward, "Alt+Right")
    back.setEnabled(False)
    forward.setEnabled(False)
    QShortcut(QKeySequence(Qt.Key.Key_Escape), window, window.stop)
    return MenuActions(new, copy, back, forward)


def about_text(bundle: BundleReader) -> str:
    """What the About box says: the app's version, the course, and the log file's path."""
    from .. import __version__
    from ..logfile import current_log_file

    log_file = current_log_file()
    return (f"Lantern {__version__}: answers from the course guides, offline.\n\n"
            f"Course: {bundle.title} (corpus {bundle.corpus_version[:12]})\n"
            f"Bundle: {bundle.path}\n"
            f"Log file: {log_file if log_file else 'none (messages go to the terminal)'}")
