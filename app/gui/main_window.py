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
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QMessageBox

from ..bundle.reader import BundleReader
from ..config import Settings
from ..errors import LanternError
from ..export.window import install_export
from ..report.feedback import attach_feedback
from .answer_flow import AnswerFlow
from .appearance import apply_font_size, apply_palette
from .ask_panel import AskPanel
from .browse import ContentsTree, GuideSearch
from .collector import collect_soon
from .conversation import HISTORY_TURNS, Conversation, Exchange, memory_text  # noqa: F401
from .flow_state import FlowState
from .layout_state import restore_layout, save_layout
from .menus import about_text, build_menus
from .settings_dialog import RESTART_NOTE, SettingsDialog
from .status import StatusArea
from .translation import tr
from .updates import CourseUpdateWatch
from .viewer import ViewerPanel
from .window_parts import TAB_ASK, TAB_CONTENTS, TAB_SEARCH, build_splitter, build_tabs
from .words import DEGRADED_NOTES, EVIDENCE_WORDS, LOADING_NOTE, STATE_WORDS, STOPPED_WORDS, UPDATE_RESTART_WORDS  # noqa: F401
from .workers import AssistantFactory

if TYPE_CHECKING:  # pragma: no cover
    from ..answer.answerer import Assistant

log = logging.getLogger(__name__)


class MainWindow(QMainWindow, FlowState):
    """The Lantern window over one open bundle: the composition of the Ask tab
    (:class:`~app.gui.ask_panel.AskPanel`), the contents and search tabs, the guide viewer, the
    status bar (:class:`~app.gui.status.StatusArea`), the menus (:mod:`app.gui.menus`), the
    busy/ready state machine (:class:`~app.gui.answer_flow.AnswerFlow`, whose state the window shows
    through :class:`~app.gui.flow_state.FlowState`) and the saved layout (:mod:`app.gui.layout_state`).

    ``assistant_factory`` builds the :class:`~app.answer.answerer.Assistant`; it runs in the
    worker thread and may take a ``report(text, warning=False)`` argument for status notes.
    ``bundle`` is read in the GUI thread only (guides, contents, search); the assistant reads
    its own reader of the same bundle, ``worker_bundle`` (:meth:`BundleReader.reopen`, as the
    course switcher opens it), which :meth:`close_bundles` closes with ``bundle``.
    Attributes tests rely on: ``question_box``, ``ask_button``, ``stop_button``,
    ``new_button``, ``copy_button``, ``answer_view``, ``state_label``, ``notice``,
    ``sources_list``, ``tabs``, ``contents``, ``search``, ``viewer``, ``back_button``,
    ``forward_button``, ``worker``, ``answer`` (the last final :class:`Answer`), ``stopped``
    (whether Stop ended the last answer), ``history`` (the exchanges sent as memory, derived
    from the conversation), ``conversation`` (every finished exchange of this conversation, in
    memory only), ``earlier`` (the combo box of those questions), ``shown`` (the
    :class:`Exchange` on screen, None while a question runs), ``message_label`` (the status
    bar's message; see :meth:`show_status` / :meth:`status_text`), ``sources_title``. Labels
    showing text Lantern does not control are :class:`~app.gui.widgets.FitLabel`: ``text()`` is
    the whole text. ``evidence_shown(Answer)`` is emitted (in the GUI thread) once the guides'
    own words (the extractive answer) are on screen, before the model's checked sentences;
    ``answer_shown(Answer)`` and ``error_shown(str)`` once the window has shown a final answer or
    an error; ``models_loaded()`` once loading ended.

    ``factory_for(reader)`` (optional) makes an assistant factory over another reader of the
    course: used when a worker that did not stop is set aside and another is started
    (:meth:`fresh_assistant_factory`). ``update_watch`` notices that the bundle file was replaced
    (:mod:`app.gui.updates`); ``on_course_updated(question)`` (set by the course switcher) then
    reloads the course between questions, with the question being asked if there is one, and
    returns whether it did.
    """

    evidence_shown = Signal(object)
    answer_shown = Signal(object)
    error_shown = Signal(str)
    models_loaded = Signal()  # loading finished (ready or failed), in the GUI thread

    def __init__(self, bundle: BundleReader, assistant_factory: AssistantFactory, parent=None, *,
                 worker_bundle: BundleReader | None = None,
                 factory_for: Callable[[BundleReader], AssistantFactory] | None = None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.worker_bundle = worker_bundle
        self._assistant_factory = assistant_factory
        self._factory_for = factory_for
        self.on_course_updated: Callable[[str], bool] | None = None
        self._update_waiting = False
        self.setWindowTitle(tr("Lantern — {title}").format(title=bundle.title))
        self.resize(1280, 820)
        # The Ask tab's and the status bar's widgets are also the window's attributes (tests use them).
        panel = self.ask_panel = AskPanel(bundle)
        self.notice, self.conversation_label, self.asked_label, self.state_label = (
            panel.notice, panel.conversation_label, panel.asked_label, panel.state_label)
        self.new_button, self.copy_button, self.ask_button, self.stop_button = (
            panel.new_button, panel.copy_button, panel.ask_button, panel.stop_button)
        self.earlier_row, self.earlier, self.question_box = panel.earlier_row, panel.earlier, panel.question_box
        self.answer_view, self.sources_title, self.sources_list = panel.answer_view, panel.sources_title, panel.sources_list
        status = self.status = StatusArea(self.statusBar(), bundle, self)
        self.message_label, self.course_label, self.version_label = (
            status.message_label, status.course_label, status.version_label)
        self.model_label, self.degraded_label, self.load_bar = status.model_label, status.degraded_label, status.load_bar
        self.course_menu: QMenu | None = None  # the Course menu, added by the course switcher (app.gui.courses)
        flow = self.flow = AnswerFlow(self)
        for name in ("evidence_shown", "answer_shown", "error_shown", "models_loaded"):  # the flow's, passed on
            getattr(flow, name).connect(getattr(self, name))
        flow.note.connect(self._show_note)
        self._build_widgets()
        actions = build_menus(self, self)
        self.export = install_export(self)  # File menu: export, print; the answer's context menu (app/export)
        self.new_action, self.copy_action = actions.new, actions.copy
        self.back_action, self.forward_action = actions.back, actions.forward
        self._apply_palette()
        restore_layout(self, self.splitter)
        self.update_watch = CourseUpdateWatch(bundle, self)
        self.update_watch.updated.connect(self._course_file_replaced)
        self.answer_shown.connect(self._after_question)
        self.feedback = attach_feedback(self)  # "Did this help?" and the instructor's report (app/report)
        self.error_shown.connect(self._after_question)
        self.flow.start_worker(assistant_factory)

    def _build_widgets(self) -> None:
        panel = self.ask_panel
        panel.new_button.clicked.connect(self.new_conversation)
        panel.copy_button.clicked.connect(self.copy_answer)
        panel.ask_button.clicked.connect(self.ask)
        panel.stop_button.clicked.connect(self.stop)
        panel.earlier.activated.connect(self.show_exchange)
        panel.ask_requested.connect(self.ask)
        panel.copy_requested.connect(self.copy_answer)
        panel.citation_requested.connect(self.open_citation)
        panel.guide_requested.connect(self.open_location)
        panel.link_refused.connect(self._show_note)

        self.contents = ContentsTree(self.bundle)
        self.contents.open_requested.connect(self.open_location)
        self.search = GuideSearch(self.bundle)
        self.search.open_requested.connect(self.open_location)
        self.tabs = build_tabs(panel, self.contents, self.search)

        right = ViewerPanel(self.bundle)
        self.viewer, self.guide_title = right.viewer, right.title
        self.back_button, self.forward_button = right.back_button, right.forward_button
        self.viewer.guide_opened.connect(self._guide_opened)
        self.viewer.failed.connect(self._show_note)
        self.viewer.history_changed.connect(self._history_changed)

        self.splitter = build_splitter(self.tabs, right)
        self.setCentralWidget(self.splitter)
        # After asking, Tab goes straight to the answer and its citations, then the sources.
        order = [self.question_box, self.answer_view, self.sources_list, self.ask_button, self.stop_button,
                 self.new_button, self.copy_button, self.earlier]
        for first, second in zip(order, order[1:]):
            self.setTabOrder(first, second)
        self.flow.update_conversation_label()
        self.question_box.setFocus()

    # --- status bar and About ---------------------------------------------------------
    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        """Say ``text`` in the status bar (for ``timeout_ms``, or until the next message)."""
        self.status.show_status(text, timeout_ms)

    def status_text(self) -> str:
        """The status bar's message ('' when none)."""
        return self.status.text()

    def about_text(self) -> str:
        """What the About box says: the app's version, the course, and the log file's path."""
        return about_text(self.bundle)

    def show_about(self) -> None:
        QMessageBox.about(self, tr("About Lantern"), self.about_text())

    # --- keyboard ---------------------------------------------------------------------
    def focus_question(self) -> None:
        self.tabs.setCurrentIndex(TAB_ASK)
        self.question_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.question_box.selectAll()

    def focus_search(self) -> None:
        self.tabs.setCurrentIndex(TAB_SEARCH)
        self.search.focus_box()

    def focus_contents(self) -> None:
        self.tabs.setCurrentIndex(TAB_CONTENTS)
        self.contents.setFocus(Qt.FocusReason.ShortcutFocusReason)
        first = self.contents.topLevelItem(0)  # None when the contents are empty
        if self.contents.currentItem() is None and first is not None:
            self.contents.setCurrentItem(first)

    # --- asking (the state machine is AnswerFlow's) -----------------------------------
    def ask(self) -> None:
        """Send the question box's text to the worker (ignored while an answer is running). When
        the course's file was replaced by another build, the course is reloaded first and the
        question asked in the new version (:attr:`on_course_updated`)."""
        question = self.question_box.toPlainText().strip()
        if question and not self.busy and self.on_course_updated is not None and self.update_watch.check():
            self._update_waiting = False
            if self.on_course_updated(question):
                return
        self.flow.ask(question)

    def stop(self) -> None:
        """Ask the worker to stop between tokens; the answer so far is then finished as usual."""
        self.flow.stop()

    def new_conversation(self) -> None:
        """Forget the previous exchanges and clear the answer (stops a running answer first)."""
        self.flow.new_conversation()

    def restore_conversation(self, conversation: Conversation, shown: Exchange | None = None) -> None:
        """Make ``conversation`` (with its follow-up memory) this window's and show ``shown`` (default:
        its latest exchange) as it was: the course switcher's way of giving a course back its
        conversation (:mod:`app.gui.courses`). Ignored while a question runs."""
        self.flow.restore(conversation, shown)

    def show_exchange(self, index: int) -> None:
        """Show exchange ``index`` of the conversation again, as it was shown when it finished."""
        self.flow.show_exchange(index)

    def answer_text(self) -> str:
        """The answer on screen as plain text with its citations written out (guide path › heading);
        while the model still works, the guides' words and the checked sentences shown so far."""
        return self.flow.answer_text()

    def copy_answer(self) -> None:
        """Put :meth:`answer_text` on the clipboard."""
        text = self.answer_text()
        if not text:
            self.show_status(tr("There is no answer to copy yet."), 4000)
            return
        QApplication.clipboard().setText(text)
        self.show_status(tr("Answer copied with its sources."), 4000)

    # --- citations and the viewer -----------------------------------------------------
    def open_citation(self, n: int) -> None:
        """Open passage ``n`` in the viewer: its guide, scrolled to its heading, passage marked."""
        passage = self.ask_panel.passages.get(n)
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

    def _show_note(self, message: str) -> None:
        """A one-sentence problem that does not stop the app."""
        self.state_label.setText(message)
        self.show_status(message, 10000)

    # --- a course updated while open ---------------------------------------------------
    def _course_file_replaced(self, _meta: dict) -> None:
        """The bundle file now holds another build: reload the course now, or once the running
        question is over; a window without a course switcher can only say so."""
        if self.on_course_updated is None:
            self._show_note(tr(UPDATE_RESTART_WORDS))
            return
        self._update_waiting = True
        if not self.busy:
            QTimer.singleShot(0, self, self._load_waiting_update)

    def _after_question(self, _result: object) -> None:
        if self._update_waiting:
            QTimer.singleShot(0, self, self._load_waiting_update)

    def _load_waiting_update(self) -> None:
        if self._update_waiting and not self.busy and self.on_course_updated is not None:
            self._update_waiting = False
            self.on_course_updated("")

    def show_update_note(self, message: str) -> None:
        """Say ``message`` (the course was updated) on the state line and in the status bar, and
        again in the status bar once the models are loaded (loading replaces its message)."""
        self._show_note(message)
        self.models_loaded.connect(lambda: self.show_status(message, 15000), Qt.ConnectionType.SingleShotConnection)

    def fresh_assistant_factory(self) -> AssistantFactory:
        """The factory for a worker started after one was set aside: over a new reader of the
        course (the set-aside worker keeps its own) when the window has ``factory_for``; else the
        window's factory. A reader that cannot be opened (the file was replaced meanwhile) makes
        a factory that raises its one-sentence :class:`LanternError`."""
        if self._factory_for is None or self.worker_bundle is None:
            return self._assistant_factory
        try:
            reader = self.bundle.reopen()
        except LanternError as exc:
            problem = exc

            def cannot_open() -> Assistant:
                raise problem
            return cannot_open
        self.worker_bundle = reader
        return self._factory_for(reader)

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
        changed = ((after.bundle, after.chat_model, after.threads, after.ui_language)
                   != (before.bundle, before.chat_model, before.threads, before.ui_language))
        saved = tr("Settings saved.")
        self.show_status(f"{saved} {tr(RESTART_NOTE)}" if changed else saved, 8000)

    def apply_font_size(self, points: int) -> None:
        """Make ``points`` the application's font size, at once (Settings → font size)."""
        apply_font_size(points)

    def _apply_palette(self) -> None:
        """Style sheets from the current palette (called again when the system theme changes)."""
        apply_palette(self.palette(), self.answer_view, self.viewer, self.state_label, self.degraded_label)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._apply_palette()
        super().changeEvent(event)

    def save_layout(self) -> None:
        save_layout(self, self.splitter)

    # --- shutdown ---------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        self.save_layout()
        self.shutdown()
        collect_soon()  # the closed window is collected in the GUI thread (app/gui/collector.py)
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop any answer and end the worker thread (waits for the current token, at most
        :data:`~app.gui.answer_flow.SHUTDOWN_WAIT_MS`), and stop watching the bundle file."""
        self.update_watch.stop()
        self._update_waiting = False
        self.flow.shutdown()

    def close_bundles(self) -> None:
        """Close the window's reader and the worker's (after :meth:`shutdown`; a worker thread that
        did not stop keeps its reader open rather than have it closed under it)."""
        self.bundle.close()
        if self.worker_bundle is not None and not self.flow.thread_.isRunning():
            self.worker_bundle.close()

