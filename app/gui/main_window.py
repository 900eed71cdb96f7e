"""The main window: ask a question, read the answer, open its citations in the guide.

Left, three tabs: **Ask** (a note while the models load or when a model is missing; New
conversation / Copy answer; the earlier questions of the conversation, each reopening its
answer as it was shown, kept in memory only; the answer, rendered from Markdown with ``[n]``
links: the guides' own words as soon as the search is done, then the model's sentences above
them, each once it passed the checks (an unchecked token is never shown); the answer's state in
words; the numbered sources; the question box with Ask / Stop), **Contents** (the course's table of
contents) and **Search** (the FTS5 guide
search, which works without any model). Right: the guide viewer with Back / Forward. The
status bar names the course, the corpus version and build date, the model and any degraded
state. All heavy work runs in :class:`~app.gui.workers.AssistantWorker` on its own thread.

Keyboard: Ctrl+L question, Enter asks, Tab goes from the question to the answer (then its
citation links, Enter opens one) and the sources; Esc stops; Ctrl+N new conversation;
Alt+E the earlier questions (Up / Down reopen the previous / next answer);
Ctrl+F search the guides; Ctrl+T contents; Ctrl+C in the answer copies it with its sources;
Alt+Left / Alt+Right back and forward in the viewer; Ctrl+, settings.
"""

from __future__ import annotations

import logging
import re

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QThread, QTimer, QUrl, Signal
from PySide6.QtGui import QAccessible, QAction, QCloseEvent, QColor, QFont, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..answer.answerer import EXTRACTIVE_NOTE
from ..answer.prompt import HISTORY_CHARS
from ..bundle.reader import BundleReader
from ..config import Settings, settings_path
from ..errors import LanternError
from ..records import HEADING_SEPARATOR, Answer, Passage
from .browse import ContentsTree, GuideSearch
from .conversation import Conversation, Exchange
from .render import CITATION_MARKER, CITE_SCHEME, answer_as_text, answer_html, excerpt
from .settings_dialog import RESTART_NOTE, SettingsDialog
from .theme import answer_style, guide_style, muted_text, warning_text
from .viewer import ViewerPanel, bold_font
from .widgets import AnswerView, FitLabel
from .words import (  # noqa: F401
    ANSWER_PLACEHOLDER,
    DEGRADED_NOTES,
    DEGRADED_WORDS,
    EARLIER_LATEST,
    EARLIER_PLACEHOLDER,
    EARLIER_TITLE,
    EARLIER_WORDS,
    EVIDENCE_WORDS,
    LOADING_NOTE,
    SEARCH_ONLY_WORDS,
    STATE_WORDS,
    STOPPED_WORDS,
    evidence_status,
    finished_status,
    short_question,
)
from .workers import AssistantFactory, AssistantWorker

try:  # Qt >= 6.8: tell screen readers about the finished answer.
    from PySide6.QtGui import QAccessibleAnnouncementEvent
except ImportError:  # pragma: no cover - older Qt
    QAccessibleAnnouncementEvent = None

log = logging.getLogger(__name__)

HISTORY_TURNS = 3  # exchanges kept for follow-up questions
QUESTION_LINES = 3  # lines of "You asked: …" (a longer question is elided; the tooltip has it all)
EARLIER_CHARS = 90  # characters of a question in the earlier-questions box
STATUS_CHARS = 24  # characters of a status message kept when the status bar is short (the rest is elided)
TAB_ASK, TAB_CONTENTS, TAB_SEARCH = range(3)


def memory_text(answer: Answer) -> str:
    """What the window remembers of an answer for follow-up questions: the model's checked
    sentences of an ``answered`` reply (not the quotes below them), or the quoted blocks of an
    ``extractive`` one without the "From the guides:" line; whole blocks up to
    :data:`~app.answer.prompt.HISTORY_CHARS` characters (the first block cut if it alone is longer)."""
    text = answer.text
    if answer.state == "answered":
        text = text.partition(f"\n\n{EXTRACTIVE_NOTE}")[0]
    elif text.startswith(EXTRACTIVE_NOTE):
        text = text[len(EXTRACTIVE_NOTE):]
    blocks = [b.strip() for b in text.split("\n\n") if b.strip()]
    kept = blocks[:1]
    for block in blocks[1:]:
        if len("\n\n".join(kept + [block])) > HISTORY_CHARS:
            break
        kept.append(block)
    return "\n\n".join(kept)[:HISTORY_CHARS]


class MainWindow(QMainWindow):
    """The Lantern window over one open bundle.

    ``assistant_factory`` builds the :class:`~app.answer.answerer.Assistant`; it runs in the
    worker thread and may take a ``report(text, warning=False)`` argument for status notes.
    Attributes tests rely on: ``question_box``, ``ask_button``, ``stop_button``,
    ``new_button``, ``copy_button``, ``answer_view``, ``state_label``, ``notice``,
    ``sources_list``, ``tabs``, ``contents``, ``search``, ``viewer``, ``back_button``,
    ``forward_button``, ``worker``, ``answer`` (the last final :class:`Answer`), ``stopped``
    (whether Stop ended the last answer), ``history`` (the exchanges sent as memory),
    ``conversation`` (every finished exchange of this conversation, in memory only),
    ``earlier`` (the combo box of those questions), ``shown`` (the :class:`Exchange` on
    screen, None while a question runs), ``message_label`` (the status bar's message; see
    :meth:`show_status` / :meth:`status_text`), ``sources_title``. Labels showing text Lantern
    does not control are :class:`~app.gui.widgets.FitLabel`: ``text()`` is the whole text.
    ``evidence_shown(Answer)`` is emitted (in the GUI thread) once the guides' own words (the
    extractive answer) are on screen, before the model's checked sentences;
    ``answer_shown(Answer)`` and ``error_shown(str)`` once the window has shown a final answer or
    an error; ``models_loaded()`` once loading ended.
    """

    evidence_shown = Signal(object)
    answer_shown = Signal(object)
    error_shown = Signal(str)
    models_loaded = Signal()  # loading finished (ready or failed), in the GUI thread

    def __init__(self, bundle: BundleReader, assistant_factory: AssistantFactory, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.answer: Answer | None = None
        self.stopped = False
        self.busy = False
        self.ready = False
        self.degraded: tuple[str, ...] = ()
        self._passages: dict[int, Passage] = {}
        self.history: list[dict] = []
        self.conversation = Conversation()  # never saved: lab PCs are shared
        self.shown: Exchange | None = None
        self._streamed: list[str] = []  # the model's verified sentences of the running answer
        self._evidence: Answer | None = None  # the running answer's extractive evidence
        self._clear_when_done = False
        self._pending_question = ""
        self.setWindowTitle(f"Lantern — {bundle.title}")
        self.resize(1280, 820)
        self._build_widgets()
        self._build_status_bar()
        self._build_actions()
        self._apply_palette()
        self._restore_layout()
        self._start_worker(assistant_factory)

    # --- construction -----------------------------------------------------------------
    def _build_widgets(self) -> None:
        ask_page = QWidget()
        layout = QVBoxLayout(ask_page)
        layout.setContentsMargins(6, 6, 6, 6)

        # Labels of text Lantern does not control (questions, messages, names) wrap anywhere
        # or are elided (FitLabel), so no text widens the window; bold and colour are set as
        # font and palette, not style sheets, so they follow the font size (Settings) at once.
        self.notice = FitLabel(LOADING_NOTE)
        self.notice.setFrameShape(QFrame.StyledPanel)
        self.notice.setMargin(6)
        self.notice.setFont(bold_font())
        self.notice.setAccessibleName("Note")
        layout.addWidget(self.notice)

        top = QHBoxLayout()
        self.conversation_label = FitLabel("")
        self.conversation_label.setAccessibleName("Conversation")
        top.addWidget(self.conversation_label, 1)
        self.new_button = QPushButton("&New conversation")
        self.new_button.setAccessibleName("New conversation")
        self.new_button.setAccessibleDescription("Forget the previous questions and clear the answer (Ctrl+N)")
        self.new_button.setToolTip("Forget the previous questions and start over (Ctrl+N)")
        self.new_button.clicked.connect(self.new_conversation)
        self.copy_button = QPushButton("&Copy answer")
        self.copy_button.setAccessibleName("Copy answer")
        self.copy_button.setAccessibleDescription("Copy the answer and its sources as text (Ctrl+C in the answer)")
        self.copy_button.setToolTip("Copy the answer with its sources written out (Ctrl+C in the answer)")
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_answer)
        top.addWidget(self.new_button)
        top.addWidget(self.copy_button)
        layout.addLayout(top)

        # Earlier questions of this conversation: one line, hidden until there is one to go back to.
        self.earlier_row = QWidget()
        earlier = QHBoxLayout(self.earlier_row)
        earlier.setContentsMargins(0, 0, 0, 0)
        earlier_title = QLabel(EARLIER_TITLE)
        self.earlier = QComboBox()
        self.earlier.setAccessibleName("Earlier in this conversation")
        self.earlier.setAccessibleDescription("Your earlier questions, newest last; choosing one shows its answer "
                                              "and sources again as they were given")
        self.earlier.setToolTip("Show an earlier answer of this conversation again (Alt+E, then Up or Down)")
        self.earlier.setPlaceholderText(EARLIER_PLACEHOLDER)
        self.earlier.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.earlier.setMinimumContentsLength(16)
        self.earlier.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.earlier.setMaxVisibleItems(15)
        self.earlier.view().setAccessibleName("Earlier questions")
        self.earlier.view().setTextElideMode(Qt.ElideMiddle)  # long questions keep their end
        self.earlier.activated.connect(self.show_exchange)
        earlier_title.setBuddy(self.earlier)
        earlier.addWidget(earlier_title)
        earlier.addWidget(self.earlier, 1)
        self.earlier_row.hide()
        layout.addWidget(self.earlier_row)

        self.asked_label = FitLabel("", max_lines=QUESTION_LINES)
        self.asked_label.setAccessibleName("Your question")
        layout.addWidget(self.asked_label)

        self.answer_view = AnswerView()
        self.answer_view.setOpenLinks(False)
        self.answer_view.setAccessibleName("Answer")
        self.answer_view.setAccessibleDescription("The answer; Tab moves between its citation links, Enter opens one")
        self.answer_view.anchorClicked.connect(self._citation_clicked)
        self.answer_view.set_placeholder(ANSWER_PLACEHOLDER.format(title=self.bundle.title))
        layout.addWidget(self.answer_view, 3)

        self.state_label = FitLabel("")
        self.state_label.setAccessibleName("Answer state")
        layout.addWidget(self.state_label)

        self.sources_title = sources_title = QLabel("S&ources")
        sources_title.setFont(bold_font())
        layout.addWidget(sources_title)
        self.sources_list = QListWidget()
        self.sources_list.setAccessibleName("Sources")
        self.sources_list.setAccessibleDescription("Passages of the guides used for the answer; press Enter to open one")
        self.sources_list.setWordWrap(True)
        self.sources_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)  # wrap instead
        self.sources_list.setAlternatingRowColors(True)
        self.sources_list.itemActivated.connect(self._source_activated)
        self.sources_list.itemClicked.connect(self._source_activated)
        sources_title.setBuddy(self.sources_list)
        layout.addWidget(self.sources_list, 2)

        question_title = QLabel("&Question (Enter sends, Shift+Enter starts a new line)")
        layout.addWidget(question_title)
        self.question_box = QPlainTextEdit()
        self.question_box.setAccessibleName("Question")
        self.question_box.setAccessibleDescription("Type a question about the course and press Enter; "
                                                   "Tab then moves to the answer")
        self.question_box.setPlaceholderText("e.g. My OLED display stays blank, what should I check?")
        self.question_box.setTabChangesFocus(True)
        self._fit_question_box()
        question_title.setBuddy(self.question_box)
        layout.addWidget(self.question_box)

        buttons = QHBoxLayout()
        self.ask_button = QPushButton("&Ask")
        self.ask_button.setAccessibleName("Ask")
        self.ask_button.setAccessibleDescription("Send the question (Enter in the question box)")
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

        self.contents = ContentsTree(self.bundle)
        self.contents.open_requested.connect(self.open_location)
        self.search = GuideSearch(self.bundle)
        self.search.open_requested.connect(self.open_location)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Ask, contents and search")
        self.tabs.addTab(ask_page, "Ask")
        self.tabs.addTab(self.contents, "Contents")
        self.tabs.addTab(self.search, "Search")
        self.tabs.setTabToolTip(TAB_ASK, "Ask a question (Ctrl+L)")
        self.tabs.setTabToolTip(TAB_CONTENTS, "The course's table of contents (Ctrl+T)")
        self.tabs.setTabToolTip(TAB_SEARCH, "Search the guides, no language model needed (Ctrl+F)")

        right = ViewerPanel(self.bundle)
        self.viewer, self.guide_title = right.viewer, right.title
        self.back_button, self.forward_button = right.back_button, right.forward_button
        self.viewer.guide_opened.connect(self._guide_opened)
        self.viewer.failed.connect(self._show_note)
        self.viewer.history_changed.connect(self._history_changed)

        self.splitter = QSplitter(Qt.Horizontal)
        self.splitter.setObjectName("main-splitter")
        self.splitter.addWidget(self.tabs)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([560, 720])
        self.setCentralWidget(self.splitter)
        # After asking, Tab goes straight to the answer and its citations, then the sources.
        order = [self.question_box, self.answer_view, self.sources_list, self.ask_button, self.stop_button,
                 self.new_button, self.copy_button, self.earlier]
        for first, second in zip(order, order[1:]):
            self.setTabOrder(first, second)
        self._update_conversation_label()
        self.question_box.installEventFilter(self)  # Enter sends
        self.answer_view.installEventFilter(self)  # Ctrl+C copies the whole answer
        self.question_box.setFocus()

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        built = self.bundle.meta.get("built_at", "")
        # Messages go to a label of their own (not showMessage, which is drawn under the labels
        # on the right and cut off when they are wide); every label is elided when the bar is short.
        self.message_label = FitLabel("", max_lines=1, min_chars=STATUS_CHARS)
        self.message_label.setAccessibleName("Status")
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.timeout.connect(lambda: self.show_status(""))
        self.course_label = FitLabel(self.bundle.title, max_lines=1)
        self.course_label.setAccessibleName("Course")
        self.course_label.setToolTip(str(self.bundle.path))
        self.version_label = FitLabel(f"corpus {self.bundle.corpus_version[:12]}"
                                      + (f" · built {built[:10]}" if built else ""), max_lines=1)
        self.version_label.setToolTip(f"Corpus version {self.bundle.corpus_version}, built "
                                      f"{built or 'at an unknown time'}")
        self.version_label.setAccessibleName("Corpus version and build date")
        self.model_label = FitLabel("model: loading…", max_lines=1)
        self.model_label.setAccessibleName("Language model")
        self.degraded_label = FitLabel("", max_lines=1)
        self.degraded_label.setAccessibleName("Limitations")
        self.load_bar = QProgressBar()
        self.load_bar.setRange(0, 0)  # busy: loading has no measurable steps
        self.load_bar.setMaximumWidth(120)
        self.load_bar.setAccessibleName("Loading the models")
        bar.addWidget(self.load_bar)
        bar.addWidget(self.message_label, 1)
        for label in (self.course_label, self.version_label, self.model_label, self.degraded_label):
            bar.addPermanentWidget(label)
        bar.installEventFilter(self)  # share its width again when it, or a text in it, changes
        self.show_status("Loading the models…")

    def _fit_status_bar(self) -> None:
        """Share the status bar when its texts don't all fit (a big font, a narrow window): the
        message keeps up to :data:`STATUS_CHARS` characters, and the labels on the right give
        up room in proportion to their length; each elided label has its whole text as tooltip."""
        bar = self.statusBar()
        labels = [self.course_label, self.version_label, self.model_label, self.degraded_label]
        wants = [label.sizeHint().width() if label.text() else 0 for label in labels]
        spacing = 8
        room = bar.width() - 24 - spacing * (len(labels) + 1)  # the size grip and the gaps
        if self.load_bar.isVisible():
            room -= self.load_bar.width() + spacing
        message = self.message_label
        keep = min(message.sizeHint().width(), message.minimumSizeHint().width()) if message.text() else 0
        share = (room - keep) / sum(wants) if sum(wants) + keep > room and sum(wants) else None
        for label, want in zip(labels, wants):
            limit = 16_777_215 if share is None else max(label.minimumSizeHint().width(), int(want * share))
            if label.maximumWidth() != limit:
                label.setMaximumWidth(limit)

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        """Say ``text`` in the status bar (for ``timeout_ms``, or until the next message)."""
        self._message_timer.stop()
        self.message_label.setText(text)
        self._fit_status_bar()
        if text and timeout_ms:
            self._message_timer.start(timeout_ms)

    def status_text(self) -> str:
        """The status bar's message ('' when none)."""
        return self.message_label.text()

    def _build_actions(self) -> None:
        """The menus; their shortcuts are the window's keyboard shortcuts."""
        def action(menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
            act = QAction(text, self)
            if shortcut is not None:
                act.setShortcut(QKeySequence(shortcut))
            if tip:
                act.setStatusTip(tip)
            act.triggered.connect(slot)
            menu.addAction(act)
            return act

        bar = self.menuBar()
        lantern = bar.addMenu("&Lantern")
        action(lantern, "&Settings…", self.open_settings, "Ctrl+,", "Course bundle, chat model, threads, font size")
        action(lantern, "&About Lantern", self.show_about, tip="Version, course, and where the log file is")
        lantern.addSeparator()
        action(lantern, "&Quit", self.close, QKeySequence.Quit)
        ask = bar.addMenu("&Conversation")
        action(ask, "Ask a &question", self.focus_question, "Ctrl+L")
        self.new_action = action(ask, "&New conversation", self.new_conversation, "Ctrl+N")
        action(ask, "&Stop the answer\tEsc", self.stop)
        self.copy_action = action(ask, "&Copy answer with sources", self.copy_answer)
        guides = bar.addMenu("&Guides")
        action(guides, "&Search the guides", self.focus_search, "Ctrl+F")
        action(guides, "&Contents", self.focus_contents, "Ctrl+T")
        self.back_action = action(guides, "&Back", self.viewer.go_back, "Alt+Left")
        self.forward_action = action(guides, "&Forward", self.viewer.go_forward, "Alt+Right")
        self.back_action.setEnabled(False)
        self.forward_action.setEnabled(False)
        QShortcut(QKeySequence(Qt.Key_Escape), self, self.stop)

    def about_text(self) -> str:
        """What the About box says: the app's version, the course, and the log file's path."""
        from .. import __version__
        from ..logfile import current_log_file

        log_file = current_log_file()
        return (f"Lantern {__version__}: answers from the course guides, offline.\n\n"
                f"Course: {self.bundle.title} (corpus {self.bundle.corpus_version[:12]})\n"
                f"Bundle: {self.bundle.path}\n"
                f"Log file: {log_file if log_file else 'none (messages go to the terminal)'}")

    def show_about(self) -> None:
        QMessageBox.about(self, "About Lantern", self.about_text())

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
        w.evidence_ready.connect(self._evidence_ready)
        w.sentence.connect(self._sentence)
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
        if obj is self.question_box and event.type() == QEvent.FontChange:
            self._fit_question_box()
        if obj is self.statusBar() and event.type() in (QEvent.Resize, QEvent.LayoutRequest):
            self._fit_status_bar()
        if obj is self.question_box and event.type() == QEvent.KeyPress \
                and event.key() in (Qt.Key_Return, Qt.Key_Enter) \
                and not event.modifiers() & Qt.ShiftModifier:
            self.ask()
            return True
        if obj is self.answer_view and event.type() == QEvent.KeyPress and event.matches(QKeySequence.Copy) \
                and not self._answer_has_text_selection():
            self.copy_answer()
            return True
        return super().eventFilter(obj, event)

    def _fit_question_box(self) -> None:
        """Three lines of the question box's font (again after a font size change)."""
        box = self.question_box
        margins = box.contentsMargins()
        box.setFixedHeight(box.fontMetrics().lineSpacing() * 3 + int(2 * box.document().documentMargin())
                           + margins.top() + margins.bottom() + 4)

    def _answer_has_text_selection(self) -> bool:
        """True when the student selected text in the answer (a link focused with Tab doesn't count)."""
        cursor = self.answer_view.textCursor()
        return cursor.hasSelection() and not cursor.charFormat().isAnchor()

    def focus_question(self) -> None:
        self.tabs.setCurrentIndex(TAB_ASK)
        self.question_box.setFocus(Qt.ShortcutFocusReason)
        self.question_box.selectAll()

    def focus_search(self) -> None:
        self.tabs.setCurrentIndex(TAB_SEARCH)
        self.search.focus_box()

    def focus_contents(self) -> None:
        self.tabs.setCurrentIndex(TAB_CONTENTS)
        self.contents.setFocus(Qt.ShortcutFocusReason)
        if self.contents.currentItem() is None and self.contents.topLevelItemCount():
            self.contents.setCurrentItem(self.contents.topLevelItem(0))

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
        self.answer = None
        self.shown = None
        self.worker.stop_flag.clear()
        self._streamed = []
        self._evidence = None
        self._passages = {}
        self.answer_view.clear()
        self.sources_list.clear()
        self.asked_label.setText(f"You asked: {question}")
        if self.ready:  # the last answer's time is stale now (a loading note is not)
            self.show_status("")
        self.ask_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.copy_button.setEnabled(False)
        self._update_earlier()
        self._set_state("Searching the guides…" if self.ready else
                        "Waiting for the language model to load; the question is sent as soon as it is ready…")
        self._pending_question = question
        self.worker.ask_requested.emit(question, self.memory())

    def memory(self) -> list[dict]:
        """The history sent with the next question: the last :data:`HISTORY_TURNS` exchanges."""
        return [dict(m) for m in self.history[-2 * HISTORY_TURNS:]]

    def new_conversation(self) -> None:
        """Forget the previous exchanges and clear the answer (stops a running answer first)."""
        if self.busy:
            self._clear_when_done = True
            self.stop()
            return
        self.history = []
        self.conversation.clear()
        self.shown = None
        self.answer = None
        self._evidence, self._streamed = None, []
        self._passages = {}
        self.answer_view.clear()
        self.answer_view.setAccessibleDescription("The answer; Tab moves between its citation links, Enter opens one")
        self.sources_list.clear()
        self.asked_label.setText("")
        self.question_box.clear()
        self.copy_button.setEnabled(False)
        self._set_state("New conversation: earlier questions are forgotten.")
        self._update_conversation_label()
        self._update_earlier()
        self.focus_question()

    def answer_text(self) -> str:
        """The answer on screen as plain text with its citations written out (guide path › heading);
        while the model still works, the guides' words and the checked sentences shown so far."""
        if self.shown is None:
            if self._evidence is None or not self.busy:
                return ""
            # Cited as the final answer will be: the checked sentences' passages, then the quotes'.
            numbers = [int(n) for m in CITATION_MARKER.finditer(" ".join(self._streamed))
                       for n in re.split(r"\s*[,;]\s*", m.group(1))]
            numbers += [p.n for p in self._evidence.citations]
            listed = [self._passages[n] for n in dict.fromkeys(numbers) if n in self._passages]
            return answer_as_text(self._running_text(), [(p.n, p.hit.source, p.hit.heading) for p in listed])
        answer = self.shown.answer
        nearest = not answer.citations
        listed = answer.citations or (answer.passages if answer.state == "not-covered" else ())
        return answer_as_text(answer.text, [(p.n, p.hit.source, p.hit.heading) for p in listed], nearest=nearest)

    def copy_answer(self) -> None:
        """Put :meth:`answer_text` on the clipboard."""
        text = self.answer_text()
        if not text:
            self.show_status("There is no answer to copy yet.", 4000)
            return
        QApplication.clipboard().setText(text)
        self.show_status("Answer copied with its sources.", 4000)

    def _update_conversation_label(self) -> None:
        turns = min(len(self.history) // 2, HISTORY_TURNS)
        if not turns:
            self.conversation_label.setText("New conversation.")
        elif turns == 1:
            self.conversation_label.setText("A follow-up question can refer to your last question.")
        else:
            self.conversation_label.setText(f"A follow-up question can refer to your last {turns} questions.")

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
        self._update_earlier()

    def _clear_if_asked(self) -> None:
        """Finish a New conversation pressed while an answer was running."""
        if self._clear_when_done:
            self._clear_when_done = False
            self.new_conversation()

    # --- worker signals ---------------------------------------------------------------
    def _progress(self, text: str) -> None:
        self.show_status(text)

    def _ready(self, assistant) -> None:
        self.ready = True
        self.load_bar.hide()
        self.show_status("")
        self.model_label.setText(f"model: {assistant.model_name}" if assistant.model_name else "no language model")
        self.degraded = tuple(assistant.degraded)
        words = [DEGRADED_WORDS.get(d, d) for d in self.degraded]
        self.degraded_label.setText("; ".join(words))
        reason = getattr(assistant.retriever, "degraded_reason", "")
        tips = [f"keyword-only: {reason}." if reason and "keyword-only" in self.degraded else "",
                "search-only: the chat model could not be loaded." if "search-only" in self.degraded else ""]
        self.degraded_label.setToolTip("\n".join(t for t in tips if t))
        notes = [DEGRADED_NOTES[d] for d in self.degraded if d in DEGRADED_NOTES]
        self.notice.setText(" ".join(notes))
        self.notice.setVisible(bool(notes))
        if self.busy:
            self._set_state("Searching the guides…")
        self.models_loaded.emit()

    def _load_failed(self, message: str) -> None:
        self.load_bar.hide()
        self.show_status("The models could not be loaded.")
        self.model_label.setText("no language model")
        self.notice.setText(f"{message} You can still search the guides (Ctrl+F).")
        self._show_note(message)
        if self.busy:
            self._idle()
        self.models_loaded.emit()

    def _evidence_ready(self, evidence: Answer) -> None:
        """Show the guides' own words at once; the model's checked sentences go above them later."""
        self._evidence = evidence
        self._streamed = []
        self._passages = {p.n: p for p in evidence.passages}
        self.answer_view.setHtml(answer_html(evidence.text, set(self._passages), EXTRACTIVE_NOTE))
        self._fill_sources(evidence.passages, {p.n for p in evidence.citations})
        self.copy_button.setEnabled(True)
        if not self.stopped:
            self._set_state(SEARCH_ONLY_WORDS if "search-only" in evidence.degraded else EVIDENCE_WORDS)
        if "evidence" in evidence.timings_ms:
            self.show_status(evidence_status(evidence.timings_ms["evidence"] / 1000))
        self.evidence_shown.emit(evidence)

    def _sentence(self, text: str) -> None:
        """Add one verified sentence of the model above the quoted passages (the worker sends
        only sentences that passed every check; nothing else ever reaches the view)."""
        if self._evidence is None:
            return
        self._streamed.append(text)
        self.answer_view.setHtml(answer_html(self._running_text(), set(self._passages), EXTRACTIVE_NOTE))

    def _running_text(self) -> str:
        """The running answer as on screen: the checked sentences so far above the guides' words."""
        if self._evidence is None:
            return ""
        if not self._streamed:
            return self._evidence.text
        return " ".join(self._streamed) + "\n\n" + self._evidence.text

    def _finished(self, answer: Answer) -> None:
        self.answer = answer
        self._evidence, self._streamed = None, []
        self.conversation.add(Exchange(self._pending_question, answer, self.stopped))
        self._idle()
        state = self._show(self.conversation.latest)
        if answer.state in ("answered", "extractive"):
            self.history += [{"role": "user", "content": self._pending_question},
                             {"role": "assistant", "content": memory_text(answer)}]
        self._update_conversation_label()
        self.question_box.selectAll()  # typing replaces it; the question is shown above the answer
        timings = answer.timings_ms
        evidence = timings.get("evidence")
        self.show_status(finished_status(answer.state, timings.get("total", 0) / 1000,
                                         search_only="search-only" in answer.degraded, stopped=self.stopped,
                                         evidence=evidence / 1000 if evidence is not None else None), 8000)
        self._announce(f"{state} {self.answer_view.toPlainText()}")
        self.answer_shown.emit(answer)
        self._clear_if_asked()

    # --- earlier exchanges --------------------------------------------------------------
    def show_exchange(self, index: int) -> None:
        """Show exchange ``index`` of the conversation again, as it was shown when it finished:
        its question, answer (citation links open its own passages), sources and state, the
        state line saying that it is an earlier answer. Ignored while a question is running."""
        if self.busy or not 0 <= index < len(self.conversation):
            return
        state = self._show(self.conversation[index])
        self._announce(f"{state} {self.answer_view.toPlainText()}")

    def _show(self, exchange: Exchange) -> str:
        """Put ``exchange`` on screen; returns its state line."""
        answer = exchange.answer
        self.shown = exchange
        # Citations and sources open the passages of the answer on screen, never another one's.
        self._passages = {p.n: p for p in answer.passages}
        self.asked_label.setText(f"You asked: {exchange.question}")
        self.answer_view.setHtml(answer_html(answer.text, set(self._passages), EXTRACTIVE_NOTE))
        self._fill_sources(answer.passages, {p.n for p in answer.citations})
        state = self._state_words(exchange)
        if exchange is not self.conversation.latest:
            where = EARLIER_WORDS.format(n=self.conversation.index(exchange) + 1, total=len(self.conversation))
            state = f"{where} {state}"
        self._set_state(state)
        self.copy_button.setEnabled(bool(answer.text))
        self._update_earlier()
        return state

    @staticmethod
    def _state_words(exchange: Exchange) -> str:
        answer = exchange.answer
        if answer.state == "extractive" and "search-only" in answer.degraded:
            words = SEARCH_ONLY_WORDS
        else:
            words = STATE_WORDS.get(answer.state, answer.state)
        return f"{STOPPED_WORDS} {words}" if exchange.stopped else words

    def _update_earlier(self) -> None:
        """Fill the earlier-questions box from the conversation; it shows only when there is
        an exchange other than the one on screen, and is disabled while a question runs."""
        box = self.earlier
        box.blockSignals(True)
        box.clear()
        latest = self.conversation.latest
        for exchange in self.conversation:
            question = short_question(exchange.question, EARLIER_CHARS)  # the view elides it further
            box.addItem(f"{question} {EARLIER_LATEST}" if exchange is latest else question)
            answer_words = excerpt(exchange.answer.text, 160) or self._state_words(exchange)
            box.setItemData(box.count() - 1, answer_words, Qt.ToolTipRole)
        box.setCurrentIndex(self.conversation.index(self.shown) if self.shown is not None else -1)
        box.blockSignals(False)
        others = len(self.conversation) - (1 if self.shown is not None else 0)
        self.earlier_row.setVisible(others > 0)
        box.setEnabled(not self.busy)

    def _announce(self, text: str) -> None:
        """Tell screen readers the finished answer once (not the evidence and sentences as they arrive)."""
        self.answer_view.setAccessibleDescription(text)
        if QAccessibleAnnouncementEvent is not None and QAccessible.isActive():
            QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(self.answer_view, text))

    def _failed(self, message: str) -> None:
        self._idle()
        self.show_status("")
        self._set_state(message)
        self.error_shown.emit(message)
        self._clear_if_asked()

    def _crashed(self, message: str) -> None:
        if self.busy:
            self._idle()
        if not self.ready:
            self.model_label.setText("no language model")
        self._set_state(message)
        self._clear_if_asked()
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
        self.open_location(passage.hit.source, passage.hit.anchor, passage.hit.text)

    def open_location(self, guide: str, anchor: str = "", passage: str = "") -> None:
        """Open ``guide`` in the viewer at ``anchor`` with ``passage`` marked (contents, search, citations)."""
        try:
            self.viewer.open_guide(guide, anchor, passage)
        except LanternError as exc:
            self._show_note(str(exc))

    def _guide_opened(self, guide: str, anchor: str) -> None:
        item = self.contents.item_for(guide, anchor) or self.contents.item_for(guide, "")
        if item is not None:
            self.contents.setCurrentItem(item)

    def _history_changed(self, back: bool, forward: bool) -> None:
        self.back_action.setEnabled(back)
        self.forward_action.setEnabled(forward)

    # --- messages ---------------------------------------------------------------------
    def _set_state(self, text: str) -> None:
        self.state_label.setText(text)

    def _show_note(self, message: str) -> None:
        """A one-sentence problem that does not stop the app."""
        self.state_label.setText(message)
        self.show_status(message, 10000)

    # --- settings, palette, layout -----------------------------------------------------
    def open_settings(self) -> None:
        """The settings dialog; the font size applies at once, the rest at the next start."""
        before = Settings.load()
        dialog = SettingsDialog(before, self)
        if not dialog.exec():
            return
        after = dialog.settings
        if after.font_size and after.font_size != before.font_size:
            self.apply_font_size(after.font_size)
        changed = (after.bundle, after.chat_model, after.threads) != (before.bundle, before.chat_model, before.threads)
        self.show_status(f"Settings saved. {RESTART_NOTE}" if changed else "Settings saved.", 8000)

    def apply_font_size(self, points: int) -> None:
        """Make ``points`` the application's font size, at once (Settings → font size)."""
        app = QApplication.instance()
        font = QFont(app.font())
        font.setPointSize(points)
        app.setFont(font)

    def _apply_palette(self) -> None:
        """Style sheets from the current palette (called again when the system theme changes)."""
        palette = self.palette()
        self.answer_view.document().setDefaultStyleSheet(answer_style(palette))
        self.viewer.document().setDefaultStyleSheet(guide_style(palette))
        for label, colour in ((self.state_label, muted_text(palette)), (self.degraded_label, warning_text(palette))):
            own = QPalette()  # only the text colour is set; the rest follows the window's palette
            own.setColor(QPalette.WindowText, QColor(colour))
            label.setPalette(own)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() in (QEvent.PaletteChange, QEvent.ApplicationPaletteChange):
            self._apply_palette()
        super().changeEvent(event)

    @staticmethod
    def _layout_store() -> QSettings:
        """Window geometry and splitter positions, next to the settings file (not in it)."""
        return QSettings(str(settings_path().parent / "window.ini"), QSettings.IniFormat)

    def _restore_layout(self) -> None:
        store = self._layout_store()
        geometry, state = store.value("window/geometry"), store.value("window/splitter")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.splitter.restoreState(state)

    def save_layout(self) -> None:
        store = self._layout_store()
        store.setValue("window/geometry", self.saveGeometry())
        store.setValue("window/splitter", self.splitter.saveState())
        store.sync()

    # --- shutdown ---------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        self.save_layout()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop any answer and end the worker thread (waits for the current token)."""
        if self.thread_.isRunning():
            self.worker.stop_flag.set()
            self.thread_.quit()
            if not self.thread_.wait(30_000):
                log.warning("the assistant thread did not stop within 30 s")
