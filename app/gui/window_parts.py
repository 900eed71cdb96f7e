"""The main window's composed parts: the tabs on the left (Ask, Contents, Search) and the splitter
that holds them beside the guide viewer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from .translation import tr

TAB_ASK, TAB_CONTENTS, TAB_SEARCH = range(3)


def build_tabs(ask: QWidget, contents: QWidget, search: QWidget) -> QTabWidget:
    """The Ask, Contents and Search tabs, in that order (:data:`TAB_ASK` …), with their tooltips."""
    tabs = QTabWidget()
    tabs.setAccessibleName(tr("Ask, contents and search"))
    tabs.addTab(ask, tr("Ask"))
    tabs.addTab(contents, tr("Contents"))
    tabs.addTab(search, tr("Search"))
    tabs.setTabToolTip(TAB_ASK, tr("Ask a question (Ctrl+L)"))
    tabs.setTabToolTip(TAB_CONTENTS, tr("The course's table of contents (Ctrl+T)"))
    tabs.setTabToolTip(TAB_SEARCH, tr("Search the guides, no language model needed (Ctrl+F)"))
    return tabs


def build_splitter(left: QWidget, right: QWidget) -> QSplitter:
    """``left`` and ``right`` side by side, sharing the room (``main-splitter``, whose sizes the
    saved layout restores)."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setObjectName("main-splitter")
    splitter.addWidget(left)
    splitter.addWidget(right)
    splitter.setStretchFactor(0, 1)
    splitter.setStretchFactor(1, 1)
    splitter.setSizes([560, 720])
    return splitter
