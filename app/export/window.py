"""The window's exporting and printing: a **File** menu (*Export conversation…* Ctrl+Shift+E,
*Export this answer…*, *Print…* Ctrl+P, *Print this answer…*) and the same two "this answer"
items at the end of the answer view's context menu.

Exports hold the conversation's finished exchanges (or the one on screen), written as Markdown,
HTML or PDF by the chosen file's ending, atomically; a path that cannot be written gets one
sentence in the status bar and leaves nothing behind. *Print…* opens Qt's print preview
(:class:`QPrintPreviewDialog`) of the same document the PDF is printed from.

The words Lantern writes into these exports and printouts (:func:`window_words`: the title, "Question 1",
each answer's state, the headings, the references) are in the window's language, translated by Qt
with the rest of the window; the answers' own text stays in the course's language, as the window
shows it (docs/gui.md, "Exports").
"""

from __future__ import annotations

import weakref
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence, cast

from PySide6.QtCore import QObject, QPoint, QStandardPaths, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu

from ..errors import LanternError
from ..gui.translation import current_language, tr
from .document import Asked, ConversationDocument, CourseInfo, conversation_document
from .files import SUFFIXES, export_format, write_document
from .printing import print_document, text_document
from .render import to_html, to_markdown
from .words import ExportWords

#: The save dialog's file types, the first one chosen by default.
FILE_TYPES = {"PDF (*.pdf)": "pdf", "Web page, HTML (*.html *.htm)": "html", "Markdown (*.md)": "markdown"}
NOTHING_YET = {"export": "There is no answer to export yet; ask a question first.",
               "print": "There is no answer to print yet; ask a question first."}


class ExportActions(QObject):
    """The export and print actions of ``window``, a :class:`~app.gui.main_window.MainWindow` (its
    ``bundle``, ``conversation``, ``shown``, ``answer_view``, ``answer_shown`` and ``show_status``
    are used; made by :func:`install_export`). ``ask_path(title,
    suggested)`` asks where to save (a save dialog; tests replace it) and returns the path or None;
    ``preview`` is the last print preview opened."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window: Any = cast(Any, window)  # a MainWindow (a QMainWindow with more)
        self.widget = window
        self.ask_path: Callable[[str, Path], Path | None] = self._save_dialog
        self.preview: QPrintPreviewDialog | None = None
        self._printer: QPrinter | None = None
        self.folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
                           or Path.home())
        self._answered_at: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.window.answer_shown.connect(self._stamp)
        self.menu = QMenu(tr("&File"), window)
        self.export_action = self._action(tr("&Export conversation…"), self.export_conversation, "Ctrl+Shift+E",
                                          tr("Save every answer of this conversation with its references "
                                             "(Markdown, HTML or PDF)"))
        self.export_answer_action = self._action(tr("Export this &answer…"), self.export_shown,
                                                 tip=tr("Save the answer on screen with its references"))
        self.menu.addSeparator()
        self.print_action = self._action(tr("&Print…"), self.print_conversation, QKeySequence.StandardKey.Print,
                                         tr("Print this conversation with its references (a preview first)"))
        self.print_answer_action = self._action(tr("Print this a&nswer…"), self.print_shown,
                                                tip=tr("Print the answer on screen with its references"))
        bar = window.menuBar()  # after the Lantern menu (the application's menu, as on macOS)
        menus = bar.actions()
        bar.insertMenu(menus[1], self.menu) if len(menus) > 1 else bar.addMenu(self.menu)
        view = self.window.answer_view
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._context_menu)

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self.menu)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.setStatusTip(tip)
        act.triggered.connect(slot)
        self.menu.addAction(act)
        return act

    def _stamp(self, _answer: object) -> None:
        latest = self.window.conversation.latest
        if latest is not None and latest not in self._answered_at:
            self._answered_at[latest] = datetime.now(timezone.utc)

    # --- the document ---------------------------------------------------------------------
    def document(self, exchanges: Sequence[Any]) -> ConversationDocument:
        """The export of ``exchanges`` (:class:`~app.gui.conversation.Exchange`, oldest first)."""
        bundle = self.window.bundle
        asked = [Asked(e.question, e.answer, e.stopped, self._answered_at.get(e)) for e in exchanges]
        return conversation_document(asked, CourseInfo.from_meta(bundle.meta, bundle.title),
                                     guide_title=bundle.source_title, words=window_words())

    def _chosen(self, alone: bool, what: str) -> list[Any]:
        """The exchanges to export or print (the one on screen when ``alone``); [] after saying why."""
        exchanges = ([self.window.shown] if self.window.shown is not None else []) if alone \
            else list(self.window.conversation)
        if not exchanges:
            self.window.show_status(tr(NOTHING_YET[what]), 6000)
        return exchanges

    # --- export -----------------------------------------------------------------------------
    def export_conversation(self) -> None:
        """Ask for a file and save the whole conversation there."""
        self._export(self._chosen(False, "export"), tr("Export conversation"))

    def export_shown(self) -> None:
        """Ask for a file and save the answer on screen there."""
        self._export(self._chosen(True, "export"), tr("Export this answer"))

    def _export(self, exchanges: list[Any], title: str) -> None:
        if not exchanges:
            return
        course = self.window.bundle.meta.get("course_id") or "conversation"
        suggested = self.folder / f"lantern-{course}-{datetime.now().strftime('%Y-%m-%d-%H%M')}.pdf"
        path = self.ask_path(title, suggested)
        if path is not None:
            self.save(exchanges, path)

    def save(self, exchanges: Sequence[Any], path: Path) -> bool:
        """Write ``exchanges`` to ``path`` (format by its ending) and say so in the status bar;
        a problem is one sentence there instead (nothing written). Returns whether it was saved."""
        doc = self.document(exchanges)
        try:
            write_document(Path(path), lambda: to_markdown(doc), lambda: to_html(doc), doc.title)
        except LanternError as exc:
            self.window.show_status(str(exc), 15000)
            return False
        self.folder = Path(path).parent
        count = len(doc.answers)
        refs = len(doc.references)
        answers = tr("1 answer") if count == 1 else tr("%n answers", count)
        references = tr("1 reference") if refs == 1 else tr("%n references", refs)
        self.window.show_status(tr("Saved {answers} with {references} to {name}.").format(
            answers=answers, references=references, name=Path(path).name), 8000)
        return True

    def _save_dialog(self, title: str, suggested: Path) -> Path | None:
        name, chosen = QFileDialog.getSaveFileName(self.widget, title, str(suggested),
                                                   ";;".join(FILE_TYPES), next(iter(FILE_TYPES)))
        if not name:
            return None
        path = Path(name)
        try:
            export_format(path)
        except LanternError:  # no known ending: the chosen file type's
            path = path.with_name(path.name + SUFFIXES[FILE_TYPES.get(chosen, "pdf")])
        return path

    # --- print ------------------------------------------------------------------------------
    def print_conversation(self) -> None:
        """Open the print preview of the whole conversation."""
        self.open_preview(self._chosen(False, "print"))

    def print_shown(self) -> None:
        """Open the print preview of the answer on screen."""
        self.open_preview(self._chosen(True, "print"))

    def open_preview(self, exchanges: Sequence[Any]) -> QPrintPreviewDialog | None:
        """Open (not modal to the app: window-modal) the print preview of ``exchanges``; returns it."""
        if not exchanges:
            return None
        doc = self.document(exchanges)
        page = text_document(to_html(doc))
        if self.preview is not None:
            self.preview.close()
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setDocName(doc.title)
        dialog = QPrintPreviewDialog(printer, self.widget)
        dialog.setWindowTitle(tr("Print preview: {title}").format(title=doc.title))
        dialog.paintRequested.connect(lambda device: print_document(page, device))
        self.preview, self._printer = dialog, printer  # the printer lives as long as its dialog
        dialog.open()
        return dialog

    # --- the answer's context menu ----------------------------------------------------------
    def answer_menu(self, pos: QPoint) -> QMenu:
        """The answer view's context menu at viewport position ``pos``: Qt's own items (copy, select
        all, copy link) then *Export this answer…* and *Print this answer…*."""
        view = self.window.answer_view
        at = pos + QPoint(view.horizontalScrollBar().value(), view.verticalScrollBar().value())
        menu = view.createStandardContextMenu(at)
        menu.addSeparator()
        for text, slot in ((tr("Export this answer…"), self.export_shown),
                           (tr("Print this answer…"), self.print_shown)):
            menu.addAction(text, slot).setEnabled(self.window.shown is not None)
        return menu

    def _context_menu(self, pos: QPoint) -> None:
        menu = self.answer_menu(pos)
        menu.exec(self.window.answer_view.viewport().mapToGlobal(pos))
        menu.deleteLater()


def window_words() -> ExportWords:
    """The words of an export made in the window, in the window's language (its Qt translation);
    the English texts are those of ``[export]`` in app/i18n/en.toml (a test keeps them the same)."""
    return ExportWords(current_language(), {
        "title": tr("Questions to Lantern: {course}"), "title_untitled": tr("Questions to Lantern"),
        "untitled_course": tr("(untitled course)"),
        "course_line": tr("Course: {course}. Exported {when} by Lantern, answers drawn only from the course guides."),
        "course_version": tr("course version {version}"), "corpus": tr("corpus {corpus}"),
        "colon": tr("{text}:"), "question": tr("Question {number}"), "answer": tr("Answer"),
        "answer_checked": tr("each sentence checked against the passage it cites"),
        "from_guides": tr("From the guides"), "nearest": tr("Nearest sections"), "references": tr("References"),
        "image": tr("image: {alt}"), "figure": tr("figure"), "section": tr('section "{section}"'),
        "cited": tr("Cited {date}."),
        "answered": tr("Answered from the guides: each sentence was checked against the passage it cites."),
        "extractive": tr("Quoted from the guides."), "not_covered": tr("Not covered by the guides."),
        "declined_off_topic": tr("Declined: the request was not about this course."),
        "declined_injection": tr("Declined: Lantern only answers questions about the course guides."),
        "stopped": tr("Stopped before the answer was finished."),
    })


def install_export(window: QMainWindow) -> ExportActions:
    """Add the File menu and the answer's export and print items to ``window`` (a
    :class:`~app.gui.main_window.MainWindow`); returns the actions (the window keeps them as
    ``export``)."""
    return ExportActions(window)
