"""The main window: ask a question, read the streamed answer, open its citations in the guide.

Left: the answer (streamed, then rendered from Markdown with ``[n]`` links), the answer's
state in words, the numbered sources, the question box with Ask / Stop. Right: the guide
viewer. The status bar names the course, the corpus version, the model and any degraded
state. All heavy work runs in :class:`~app.gui.workers.AssistantWorker` on its own thread.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QObject, Qt, QThread, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QFont, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (QApplication, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMainWindow, QMessageBox,
                               QPlainTextEdit, QPushButton, QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from ..bundle.reader import BundleReader
from ..errors import LanternError
from ..records import HEADING_SEPARATOR, Answer, Passage
from .render import CITE_SCHEME, answer_html, excerpt
from .viewer import GuideViewer
from .workers import AssistantFactory, AssistantWorker

log = logging.getLogger(__name__)

#: The answer states and the degraded states in words a student understands.
STATE_WORDS = {
    "answered": "Answered from the guides. Click a number to open the cited section.",
    "extractive": "The model's answer couldn't be checked against the guides, so here are the most relevant passages.",
    "not-covered": "The guides don't cover this; the nearest sections are listed below.",
    "declined-off-topic": "Declined: that request isn't about this course.",
    "declined-injection": "Declined: Lantern only answers questions about the course guides.",
}
SEARCH_ONLY_WORDS = "Search only: no language model, so here are the most relevant passages."
DEGRADED_WORDS = {
    "keyword-only": "Keyword search only: the embedding model is missing",
    "search-only": "Search only: no language model, showing passages instead of answers",
}
STOPPED_WORDS = "Stopped: this is what was ready when you pressed Stop."
HISTORY_TURNS = 3  # exchanges kept for follow-up questions


class MainWindow(QMainWindow):
    """The Lantern window over one open bundle.

    ``assistant_factory`` builds the :class:`~app.answer.answerer.Assistant`; it runs in the
    worker thread and may take a ``report(text, warning=False)`` argument for status notes.
    Attributes tests rely on: ``question_box``, ``ask_button``, ``stop_button``,
    ``answer_view``, ``state_label``, ``sources_list``, ``viewer``, ``worker``, ``answer``
    (the last final :class:`Answer`), ``stopped`` (whether Stop ended the last answer).
    ``answer_shown(Answer)`` and ``error_shown(str)`` are emitted (in the GUI thread) once
    the window has shown a final answer or an error.
    """

    answer_shown = Signal(object)
    error_shown = Signal(str)

    def __init__(self, bundle: BundleReader, assistant_factory: AssistantFactory, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.answer: Answer | None = None
        self.stopped = False
        self.busy = False
        self.ready = False
        self._passages: dict[int, Passage] = {}
        self._history: list[dict] = []
        self._streamed: list[str] = []
        self.setWindowTitle(f"Lantern — {bundle.title}")
        self.resize(1280, 820)
        self._build_widgets()
        self._build_status_bar()
        self._build_shortcuts()
        self._start_worker(assistant_factory)

    # --- construction -----------------------------------------------------------------
    def _build_widgets(self) -> None:
        left = QWidget()
        layout = QVBoxLayout(left)
        layout.setContentsMargins(8, 8, 4, 8)

        self.answer_view = QTextBrowser()
        self.answer_view.setOpenLinks(False)
        self.answer_view.setAccessibleName("Answer")
        self.answer_view.setAccessibleDescription("The answer; citation numbers are links to the guides")
        self.answer_view.anchorClicked.connect(self._citation_clicked)
        self.answer_view.document().setDefaultStyleSheet("a { color: #1a5fb4; font-weight: bold; text-decoration: none; }"
                                                         " p { margin-bottom: 8px; }")
        self.answer_view.setPlaceholderText(f"Ask a question about {self.bundle.title}. "
                                            "Answers come from the course guides, with numbered citations.")
        layout.addWidget(self.answer_view, 2)

        self.state_label = QLabel("")
        self.state_label.setWordWrap(True)
        self.state_label.setAccessibleName("Answer state")
        self.state_label.setStyleSheet("color: #5e5c64;")
        layout.addWidget(self.state_label)

        sources_title = QLabel("Sources")
        sources_title.setStyleSheet("font-weight: bold;")
        layout.addWidget(sources_title)
        self.sources_list = QListWidget()
        self.sources_list.setAccessibleName("Sources")
        self.sources_list.setAccessibleDescription("Passages of the guides used for the answer; press Enter to open one")
        self.sources_list.setWordWrap(True)
        self.sources_list.setAlternatingRowColors(True)
        self.sources_list.itemActivated.connect(self._source_activated)
        self.sources_list.itemClicked.connect(self._source_activated)
        sources_title.setBuddy(self.sources_list)
        layout.addWidget(self.sources_list, 2)

        question_title = QLabel("&Question (Enter sends, Shift+Enter starts a new line)")
        layout.addWidget(question_title)
        self.question_box = QPlainTextEdit()
        self.question_box.setAccessibleName("Question")
        self.question_box.setPlaceholderText("e.g. My OLED display stays blank, what should I check?")
        self.question_box.setTabChangesFocus(True)
        self.question_box.setFixedHeight(self.question_box.fontMetrics().lineSpacing() * 3 + 16)
        self.question_box.installEventFilter(self)
        question_title.setBuddy(self.question_box)
        layout.addWidget(self.question_box)

        buttons = QHBoxLayout()
        self.ask_button = QPushButton("&Ask")
        self.ask_button.setAccessibleName("Ask")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self.ask)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setAccessibleName("Stop answering")
        self.stop_button.setToolTip("Stop the answer (Esc)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        buttons.addWidget(self.ask_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 8, 8, 8)
        self.guide_title = QLabel("Guide: click a citation to open the cited section here.")
        self.guide_title.setStyleSheet("font-weight: bold;")
        self.guide_title.setWordWrap(True)
        right_layout.addWidget(self.guide_title)
        self.viewer = GuideViewer(self.bundle)
        self.viewer.guide_opened.connect(self._guide_opened)
        self.viewer.failed.connect(self._show_note)
        right_layout.addWidget(self.viewer, 1)

        self.splitter = QSplitter(Qt.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([560, 720])
        self.setCentralWidget(self.splitter)
        self.setTabOrder(self.question_box, self.ask_button)
        self.setTabOrder(self.ask_button, self.stop_button)
        self.setTabOrder(self.stop_button, self.answer_view)
        self.setTabOrder(self.answer_view, self.sources_list)
        self.setTabOrder(self.sources_list, self.viewer)
        self.question_box.setFocus()

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.course_label = QLabel(self.bundle.title)
        self.course_label.setAccessibleName("Course")
        self.version_label = QLabel(f"corpus {self.bundle.corpus_version[:12]}")
        self.version_label.setToolTip(f"Corpus version {self.bundle.corpus_version}, built "
                                      f"{self.bundle.meta.get('built_at', 'at an unknown time')}")
        self.version_label.setAccessibleName("Corpus version")
        self.model_label = QLabel("")
        self.model_label.setAccessibleName("Language model")
        self.degraded_label = QLabel("")
        self.degraded_label.setAccessibleName("Limitations")
        self.degraded_label.setStyleSheet("color: #a51d2d;")
        for label in (self.course_label, self.version_label, self.model_label, self.degraded_label):
            bar.addPermanentWidget(label)
        bar.showMessage("Loading the models…")

    def _build_shortcuts(self) -> None:
        QShortcut(QKeySequence("Ctrl+L"), self, self.focus_question)
        QShortcut(QKeySequence(Qt.Key_Escape), self, self.stop)

    def _start_worker(self, factory: AssistantFactory) -> None:
        self.thread_ = QThread(self)
        self.thread_.setObjectName("lantern-assistant")
        self.worker = AssistantWorker(factory)
        self.worker.moveToThread(self.thread_)
        self.thread_.finished.connect(self.worker.deleteLater)
        w = self.worker
        w.progress.connect(self._progress)
        w.warning.connect(self._show_note)
        w.ready.connect(self._ready)
        w.load_failed.connect(self._load_failed)
        w.passages_ready.connect(self._passages_ready)
        w.token.connect(self._token)
        w.finished.connect(self._finished)
        w.failed.connect(self._failed)
        w.crashed.connect(self._crashed)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self.thread_.start()
        w.load_requested.emit()

    # --- keyboard ---------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if obj is self.question_box and event.type() == QEvent.KeyPress \
                and event.key() in (Qt.Key_Return, Qt.Key_Enter) \
                and not event.modifiers() & Qt.ShiftModifier:
            self.ask()
            return True
        return super().eventFilter(obj, event)

    def focus_question(self) -> None:
        self.question_box.setFocus(Qt.ShortcutFocusReason)
        self.question_box.selectAll()

    # --- asking -----------------------------------------------------------------------
    def ask(self) -> None:
        """Send the question box's text to the worker (ignored while an answer is running)."""
        question = self.question_box.toPlainText().strip()
        if self.busy:
            return
        if not question:
            self._set_state("Type a question first.")
            return
        self.busy = True
        self.stopped = False
        self.worker.stop_flag.clear()
        self._streamed = []
        self._passages = {}
        self.answer_view.clear()
        self.sources_list.clear()
        self.ask_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self._set_state("Searching the guides…" if self.ready else "Waiting for the models to load…")
        self.worker.ask_requested.emit(question, list(self._history[-2 * HISTORY_TURNS:]))
        self._pending_question = question

    def stop(self) -> None:
        """Ask the worker to stop between tokens; the answer so far is then finished as usual."""
        if not self.busy:
            return
        self.stopped = True
        self.worker.stop_flag.set()
        self.stop_button.setEnabled(False)
        self._set_state("Stopping…")

    def _idle(self) -> None:
        self.busy = False
        self.ask_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    # --- worker signals ---------------------------------------------------------------
    def _progress(self, text: str) -> None:
        self.statusBar().showMessage(text)

    def _ready(self, assistant) -> None:
        self.ready = True
        self.statusBar().clearMessage()
        self.model_label.setText(assistant.model_name or "no language model")
        words = [DEGRADED_WORDS.get(d, d) for d in assistant.degraded]
        self.degraded_label.setText("; ".join(words))
        reason = getattr(assistant.retriever, "degraded_reason", "")
        self.degraded_label.setToolTip(f"Keyword search only because {reason}." if reason else "")
        if self.busy:
            self._set_state("Searching the guides…")

    def _load_failed(self, message: str) -> None:
        self.statusBar().showMessage("The models could not be loaded.")
        self.model_label.setText("no language model")
        self._show_note(message)
        if self.busy:
            self._idle()

    def _passages_ready(self, passages: list) -> None:
        self._passages = {p.n: p for p in passages}
        self._fill_sources(passages, ())
        if not self.stopped:
            self._set_state(f"Writing an answer from {len(passages)} passages… (Esc stops)")

    def _token(self, piece: str) -> None:
        self._streamed.append(piece)
        cursor = self.answer_view.textCursor()
        cursor.movePosition(QTextCursor.End)
        cursor.insertText(piece)

    def _finished(self, answer: Answer) -> None:
        self._idle()
        self.answer = answer
        self._passages = {p.n: p for p in answer.passages}
        valid = {p.n for p in answer.passages}
        self.answer_view.setHtml(answer_html(answer.text, valid))
        self._fill_sources(answer.passages, {p.n for p in answer.citations})
        if answer.state == "extractive" and "search-only" in answer.degraded:
            words = SEARCH_ONLY_WORDS
        else:
            words = STATE_WORDS.get(answer.state, answer.state)
        self._set_state(f"{STOPPED_WORDS} {words}" if self.stopped else words)
        if answer.state in ("answered", "extractive"):
            self._history += [{"role": "user", "content": getattr(self, "_pending_question", "")},
                              {"role": "assistant", "content": answer.text}]
        self.statusBar().showMessage(f"Answered in {answer.timings_ms.get('total', 0) / 1000:.1f} s", 5000)
        self.answer_shown.emit(answer)

    def _failed(self, message: str) -> None:
        self._idle()
        self._set_state(message)
        self.error_shown.emit(message)

    def _crashed(self, message: str) -> None:
        if self.busy:
            self._idle()
        if not self.ready:
            self.model_label.setText("no language model")
        self._set_state(message)
        QMessageBox.critical(self, "Lantern", message)

    # --- sources and citations --------------------------------------------------------
    def _fill_sources(self, passages, cited: set[int] | tuple) -> None:
        self.sources_list.clear()
        for p in passages:
            title = self.bundle.source_title(p.hit.source)
            heading = [h for h in p.hit.heading.split(HEADING_SEPARATOR) if h]
            # The guide's own title is usually the first heading: don't say it twice, and name
            # only the section itself (the full heading path is in the tooltip).
            if heading and heading[0] == title:
                heading = heading[1:]
            label = HEADING_SEPARATOR.join([title] + heading[-1:])
            mark = " (cited)" if p.n in cited else ""
            item = QListWidgetItem(f"{p.n}. {label}{mark}\n    {excerpt(p.hit.text, 90)}")
            item.setData(Qt.UserRole, p.n)
            item.setToolTip(f"{p.hit.heading}\n{p.hit.source}#{p.hit.anchor}")
            if p.n in cited:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
            self.sources_list.addItem(item)

    def _source_activated(self, item: QListWidgetItem) -> None:
        self.open_citation(int(item.data(Qt.UserRole)))

    def _citation_clicked(self, url: QUrl) -> None:
        if url.scheme() == CITE_SCHEME:
            try:
                self.open_citation(int(url.path()))
            except ValueError:
                pass

    def open_citation(self, n: int) -> None:
        """Open passage ``n`` in the viewer: its guide, scrolled to its heading, passage marked."""
        passage = self._passages.get(n)
        if passage is None:
            return
        try:
            self.viewer.open_guide(passage.hit.source, passage.hit.anchor, passage.hit.text)
        except LanternError as exc:
            self._show_note(str(exc))

    def _guide_opened(self, guide: str, anchor: str) -> None:
        self.guide_title.setText(f"Guide: {self.bundle.source_title(guide)}  ({guide})")

    # --- messages ---------------------------------------------------------------------
    def _set_state(self, text: str) -> None:
        self.state_label.setText(text)

    def _show_note(self, message: str) -> None:
        """A one-sentence problem that does not stop the app."""
        self.state_label.setText(message)
        self.statusBar().showMessage(message, 10000)

    # --- shutdown ---------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop any answer and end the worker thread (waits for the current token)."""
        if self.thread_.isRunning():
            self.worker.stop_flag.set()
            self.thread_.quit()
            if not self.thread_.wait(30_000):
                log.warning("the assistant thread did not stop within 30 s")
