"""The window's menus; their shortcuts are the window's keyboard shortcuts. And the About box."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QMenu

from ..bundle.reader import BundleReader
from .translation import tr


class MenuHandlers(Protocol):
    """What the menus call on the window (the window itself; a protocol, so this module does not
    import main_window, which imports it)."""

    viewer: Any  # has go_back() and go_forward()

    def open_settings(self) -> None: ...
    def show_about(self) -> None: ...
    def focus_question(self) -> None: ...
    def new_conversation(self) -> None: ...
    def stop(self) -> None: ...
    def copy_answer(self) -> None: ...
    def focus_search(self) -> None: ...
    def focus_contents(self) -> None: ...


@dataclass(frozen=True)
class MenuActions:
    """The menu actions the window enables and disables."""

    new: QAction
    copy: QAction
    back: QAction
    forward: QAction


def build_menus(window: QMainWindow, handlers: MenuHandlers) -> MenuActions:
    """Add the Lantern, Conversation and Guides menus to ``window`` and Esc to stop, calling ``handlers``
    (the same window); returns the actions the window keeps as its ``new_action``, ``copy_action``,
    ``back_action`` and ``forward_action``."""
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
    lantern = bar.addMenu(tr("&Lantern"))
    action(lantern, tr("&Settings…"), handlers.open_settings, "Ctrl+,",
           tr("Course bundle, chat model, threads, font size, language"))
    action(lantern, tr("&About Lantern"), handlers.show_about, tip=tr("Version, course, and where the log file is"))
    lantern.addSeparator()
    action(lantern, tr("&Quit"), window.close, QKeySequence.StandardKey.Quit)
    ask = bar.addMenu(tr("&Conversation"))
    action(ask, tr("Ask a &question"), handlers.focus_question, "Ctrl+L")
    new = action(ask, tr("&New conversation"), handlers.new_conversation, "Ctrl+N")
    action(ask, tr("&Stop the answer\tEsc"), handlers.stop)
    copy = action(ask, tr("&Copy answer with sources"), handlers.copy_answer)
    guides = bar.addMenu(tr("&Guides"))
    action(guides, tr("&Search the guides"), handlers.focus_search, "Ctrl+F")
    action(guides, tr("&Contents"), handlers.focus_contents, "Ctrl+T")
    back = action(guides, tr("&Back"), handlers.viewer.go_back, "Alt+Left")
    forward = action(guides, tr("&Forward"), handlers.viewer.go_forward, "Alt+Right")
    back.setEnabled(False)
    forward.setEnabled(False)
    QShortcut(QKeySequence(Qt.Key.Key_Escape), window, handlers.stop)
    return MenuActions(new, copy, back, forward)


def about_text(bundle: BundleReader) -> str:
    """What the About box says: the app's version, the course, and the log file's path."""
    from .. import __version__
    from ..logfile import current_log_file

    log_file = current_log_file()
    return (tr("Lantern {version}: answers from the course guides, offline.").format(version=__version__) + "\n\n"
            + tr("Course: {title} (corpus {corpus})").format(title=bundle.title, corpus=bundle.corpus_version[:12])
            + "\n" + tr("Bundle: {path}").format(path=bundle.path) + "\n"
            + tr("Log file: {path}").format(path=log_file if log_file else tr("none (messages go to the terminal)")))
