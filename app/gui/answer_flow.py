"""The window's busy/ready state machine: the worker thread, a question from Ask to its
finished answer (the guides' words first, then the model's checked sentences above them), Stop,
New conversation, and reopening an earlier exchange. The conversation (never saved) is the one
record of what was asked; the model's memory is derived from it.

Stop and closing are bounded: a worker that has not ended :data:`STOP_GRACE_MS` after Stop (a
search that never returns) is set aside (:func:`~app.gui.workers.set_aside`) and another is
started over a reader of its own, so the student gets a usable window back; closing the window
waits at most :data:`SHUTDOWN_WAIT_MS` for the worker."""

from __future__ import annotations

import logging
from typing import Protocol, cast

from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from ..answer.remote import engine_words
from ..bundle.reader import BundleReader
from ..records import Answer
from .ask_panel import ANSWER_DESCRIPTION, AskPanel, state_words
from .conversation import Conversation, Exchange
from .render import final_answer_as_text, running_answer_as_text, running_text
from .status import StatusArea
from .translation import tr
from .words import (
    DEGRADED_NOTES,
    EARLIER_WORDS,
    EVIDENCE_WORDS,
    LOADING_NOTE,
    SEARCH_ONLY_WORDS,
    SET_ASIDE_WORDS,
    evidence_status,
    finished_status,
)
from .workers import AssistantFactory, AssistantWorker, LoadedStatus, set_aside

log = logging.getLogger(__name__)

#: Milliseconds a question may take to end after Stop before its worker is set aside and another
#: started (stopping normally takes one token, well under a second).
STOP_GRACE_MS = 4000
#: Milliseconds closing the window waits for the worker to end; then it is set aside and the
#: process ends without it (:func:`app.gui.workers.exit_if_workers_stuck`).
SHUTDOWN_WAIT_MS = 2000


class FlowWindow(Protocol):
    """What :class:`AnswerFlow` uses of its window (a :class:`~app.gui.main_window.MainWindow`)."""

    ask_panel: AskPanel
    status: StatusArea
    worker_bundle: BundleReader | None  # the worker thread's reader of the course

    def fresh_assistant_factory(self) -> AssistantFactory: ...
    def focus_question(self) -> None: ...
    def open_citation(self, n: int) -> None: ...


class AnswerFlow(QObject):
    """Runs ``window``'s questions on an :class:`~app.gui.workers.AssistantWorker` of its own
    thread. State: ``busy`` (a question runs), ``ready`` (the models are loaded), ``stopped``
    (Stop ended the last answer), ``answer`` (the last final answer), ``shown`` (the exchange on
    screen, None while a question runs), ``degraded``, ``conversation``. A QObject of the GUI
    thread, so the worker's signals reach it queued. Its signals (the window connects them) are the
    window's (:class:`~app.gui.main_window.MainWindow`), and ``note(str)``, a problem to show."""

    evidence_shown, answer_shown, error_shown = Signal(object), Signal(object), Signal(str)
    models_loaded, note = Signal(), Signal(str)

    def __init__(self, window: FlowWindow) -> None:
        self._widget = cast(QWidget, window)  # the window is a QMainWindow: the parent of what the flow makes
        super().__init__(self._widget)
        self.window = window
        self.panel = window.ask_panel
        self.status = window.status
        self.answer: Answer | None = None
        self.stopped = False
        self.busy = False
        self.ready = False
        self.degraded: tuple[str, ...] = ()
        self.keyword_reason = ""
        self.conversation = Conversation()  # never saved: lab PCs are shared
        self.shown: Exchange | None = None
        self._streamed: list[str] = []  # the model's verified sentences of the running answer
        self._evidence: Answer | None = None  # the running answer's extractive evidence
        self._clear_when_done = False
        self._pending_question = ""
        self._connections: list[tuple] = []  # (worker signal, slot) pairs, undone by shutdown()
        self._shut_down = False
        self._stop_timer = QTimer(self)  # Stop pressed: the worker has this long to end the question
        self._stop_timer.setSingleShot(True)
        self._stop_timer.timeout.connect(self._stop_overdue)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    def start_worker(self, factory: AssistantFactory) -> None:
        """Start the worker thread and ask it to load the models with ``factory``."""
        self.thread_ = QThread(self._widget)
        self.thread_.setObjectName("lantern-assistant")
        self.worker = AssistantWorker(factory)
        self.worker.moveToThread(self.thread_)
        self.thread_.finished.connect(self.worker.deleteLater)
        w = self.worker
        self._connections = [(w.progress, self._progress), (w.warning, self.note), (w.ready, self._ready),
                             (w.load_failed, self._load_failed), (w.evidence_ready, self._evidence_ready),
                             (w.sentence, self._sentence), (w.finished, self._finished), (w.failed, self._failed),
                             (w.crashed, self._crashed)]
        for signal, slot in self._connections:
            signal.connect(slot)
        self.thread_.start()
        w.load_requested.emit()

    def shutdown(self) -> None:
        """Stop any answer and end the worker thread (waits for the current token, at most
        :data:`SHUTDOWN_WAIT_MS`; a worker still running then is set aside), then stop listening
        to the worker: what it sent that has not arrived yet (the end of an answer that was
        running) is dropped, since the window is closing and its bundle may be closed next (a
        course switch). Only the first call does anything."""
        if self._shut_down:
            return
        self._shut_down = True
        self._stop_timer.stop()
        if self.thread_.isRunning():
            self.worker.stop_flag.set()
            self.thread_.quit()
            if not self.thread_.wait(SHUTDOWN_WAIT_MS):
                log.warning("the assistant thread did not stop within %d ms; it is set aside", SHUTDOWN_WAIT_MS)
                self._set_aside_worker()
        self._connections = []  # (once the thread has ended, the worker is deleted with its signals)
        QCoreApplication.removePostedEvents(self)  # the worker's queued signals to this flow

    def _set_aside_worker(self) -> None:
        """Stop listening to a worker that does not end and keep it (and the reader it uses)
        alive, parentless, until the process ends (:func:`~app.gui.workers.set_aside`)."""
        for signal, slot in self._connections:
            signal.disconnect(slot)
        self._connections = []
        self.worker.stop_flag.set()
        set_aside(self.thread_, self.worker, self.window.worker_bundle)
        QCoreApplication.removePostedEvents(self)  # what it sent before: the question is over

    def _stop_overdue(self) -> None:
        """Stop was pressed :data:`STOP_GRACE_MS` ago and the question still runs (a search that
        never returns): set its worker aside, start another, and give the window back with what
        was on screen (the guides' words, if they had arrived) and the state in words."""
        if not self.busy or self._shut_down:
            return
        log.warning("the assistant did not stop within %d ms of Stop; starting another", STOP_GRACE_MS)
        evidence = self._evidence
        self._set_aside_worker()
        self.ready = False
        self.status.show_loading()
        self.panel.notice.setText(tr(LOADING_NOTE))
        self.panel.notice.setVisible(True)
        self.start_worker(self.window.fresh_assistant_factory())
        if evidence is not None:  # finished as a stopped answer: the guides' words that were shown
            self._finished(evidence)
            self.panel.set_state(f"{self.panel.state_label.text()} {tr(SET_ASIDE_WORDS)}")
            return
        self._idle()
        self.panel.set_state(tr(SET_ASIDE_WORDS))
        self.error_shown.emit(tr(SET_ASIDE_WORDS))
        self._clear_if_asked()

    # --- asking -----------------------------------------------------------------------
    def ask(self, question: str) -> None:
        """Send ``question`` to the worker (ignored while an answer is running)."""
        panel = self.panel
        if self.busy:
            return
        if not question:
            panel.set_state(tr("Type a question first."))
            return
        self.busy = True
        self.stopped = False
        self.answer = None
        self.shown = None
        self.worker.stop_flag.clear()
        self._streamed = []
        self._evidence = None
        panel.clear_answer()
        panel.asked_label.setText(tr("You asked: {question}").format(question=question))
        if self.ready:  # the last answer's time is stale now (a loading note is not)
            self.status.show_status("")
        panel.ask_button.setEnabled(False)
        panel.stop_button.setEnabled(True)
        panel.copy_button.setEnabled(False)
        self._update_earlier()
        panel.set_state(tr("Searching the guides…") if self.ready else
                        tr("Waiting for the language model to load; the question is sent as soon as it is ready…"))
        self._pending_question = question
        self.worker.ask_requested.emit(question, self.conversation.memory())

    def new_conversation(self) -> None:
        """Forget the previous exchanges and clear the answer (stops a running answer first)."""
        if self.busy:
            self._clear_when_done = True
            self.stop()
            return
        panel = self.panel
        self.conversation.clear()
        self.shown = None
        self.answer = None
        self._evidence, self._streamed = None, []
        panel.clear_answer()
        panel.answer_view.setAccessibleDescription(tr(ANSWER_DESCRIPTION))
        panel.asked_label.setText("")
        panel.question_box.clear()
        panel.copy_button.setEnabled(False)
        panel.set_state(tr("New conversation: earlier questions are forgotten."))
        self.update_conversation_label()
        self._update_earlier()
        self.window.focus_question()

    def restore(self, conversation: Conversation, shown: Exchange | None = None) -> None:
        """Make ``conversation`` this window's, as when its course was left (issue 12: a course
        switched back to): its earlier questions listed, the model's memory derived from it again,
        and ``shown`` (default: its latest exchange; an exchange not in it counts as None) on
        screen as it was. Ignored while a question runs."""
        if self.busy:
            return
        self.conversation = conversation
        self._evidence, self._streamed = None, []
        target = shown if shown is not None and conversation.index(shown) >= 0 else conversation.latest
        self.answer = conversation.latest.answer if conversation.latest is not None else None
        if target is None:
            self.shown = None
            self.panel.clear_answer()
            self.panel.asked_label.setText("")
            self.panel.set_state("")
            self.panel.copy_button.setEnabled(False)
            self._update_earlier()
        else:
            self.show(target)
        self.update_conversation_label()

    def stop(self) -> None:
        """Ask the worker to stop between tokens; the answer so far is then finished as usual.
        A worker that has not ended within :data:`STOP_GRACE_MS` is set aside (:meth:`_stop_overdue`)."""
        if not self.busy:
            return
        self.stopped = True
        self.worker.stop_flag.set()
        self.panel.stop_button.setEnabled(False)
        self.panel.set_state(tr("Stopping…"))
        if not self._stop_timer.isActive():
            self._stop_timer.start(STOP_GRACE_MS)

    def _idle(self) -> None:
        self.busy = False
        self._stop_timer.stop()
        self.panel.ask_button.setEnabled(True)
        self.panel.stop_button.setEnabled(False)
        self._update_earlier()

    def _clear_if_asked(self) -> None:
        """Finish a New conversation pressed while an answer was running."""
        if self._clear_when_done:
            self._clear_when_done = False
            self.new_conversation()

    def update_conversation_label(self) -> None:
        self.panel.update_conversation_label(self.conversation.remembered_turns())

    def _update_earlier(self) -> None:
        self.panel.update_earlier(self.conversation, self.shown, self.busy)

    def answer_text(self) -> str:
        """The answer on screen as plain text with its citations written out (guide path › heading);
        while the model still works, the guides' words and the checked sentences shown so far."""
        if self.shown is not None:
            return final_answer_as_text(self.shown.answer)
        if self._evidence is None or not self.busy:
            return ""
        return running_answer_as_text(self._streamed, self._evidence, self.panel.passages)

    # --- worker signals ---------------------------------------------------------------
    def _progress(self, text: str) -> None:
        self.status.show_status(text)

    def _ready(self, loaded: LoadedStatus) -> None:
        self.ready = True
        self.degraded = loaded.degraded
        self.status.show_models(loaded.model_name, self.degraded, loaded.keyword_only_reason)
        self.keyword_reason = loaded.keyword_only_reason
        notes = [tr(DEGRADED_NOTES[d]) for d in self.degraded if d in DEGRADED_NOTES]
        self.panel.notice.setText(" ".join(notes))
        self.panel.notice.setVisible(bool(notes))
        if self.busy:
            self.panel.set_state(tr("Searching the guides…"))
        self.models_loaded.emit()

    def _load_failed(self, message: str) -> None:
        self.status.show_load_failed()
        self.panel.notice.setText(message + " " + tr("You can still search the guides (Ctrl+F)."))
        self.note.emit(message)
        if self.busy:
            self._idle()
        self.models_loaded.emit()

    def _evidence_ready(self, evidence: Answer) -> None:
        """Show the guides' own words at once, and the first cited passage in the viewer; the
        model's checked sentences go above them later."""
        self._evidence = evidence
        self._streamed = []
        self.panel.show_answer(evidence.text, evidence.passages, {p.n for p in evidence.citations})
        self.panel.copy_button.setEnabled(True)
        if not self.stopped:
            self.panel.set_state(tr(SEARCH_ONLY_WORDS if "search-only" in evidence.degraded else EVIDENCE_WORDS))
        if "evidence" in evidence.timings_ms:
            self.status.show_status(evidence_status(evidence.timings_ms["evidence"] / 1000))
        if evidence.citations:  # the reader's pane shows the first cited passage at once, not an empty viewer
            self.window.open_citation(evidence.citations[0].n)
        self.evidence_shown.emit(evidence)

    def _sentence(self, text: str) -> None:
        """Add one verified sentence of the model above the quoted passages (the worker sends
        only sentences that passed every check; nothing else ever reaches the view)."""
        if self._evidence is None:
            return
        self._streamed.append(text)
        self.panel.show_text(self._running_text())

    def _running_text(self) -> str:
        """The running answer as on screen: the checked sentences so far above the guides' words."""
        return running_text(self._streamed, self._evidence)

    def _finished(self, answer: Answer) -> None:
        self.answer = answer
        self._evidence, self._streamed = None, []
        exchange = Exchange(self._pending_question, answer, self.stopped)
        self.conversation.add(exchange)
        self._idle()
        state = self.show(exchange)
        self.update_conversation_label()
        self.panel.question_box.selectAll()  # typing replaces it; the question is shown above the answer
        timings = answer.timings_ms
        evidence = timings.get("evidence")
        if answer.engine.startswith("remote") or "engine-unavailable" in answer.degraded:  # who answered, this time
            self.status.show_models(engine_words(answer.model, answer.engine), answer.degraded, self.keyword_reason)
        self.status.show_status(finished_status(answer.state, timings.get("total", 0) / 1000,
                                                search_only="search-only" in answer.degraded, stopped=self.stopped,
                                                evidence=evidence / 1000 if evidence is not None else None), 8000)
        self.panel.announce(f"{state} {self.panel.answer_view.toPlainText()}")
        self.answer_shown.emit(answer)
        self._clear_if_asked()

    def _failed(self, message: str) -> None:
        self._idle()
        self.status.show_status("")
        self.panel.set_state(message)
        self.error_shown.emit(message)
        self._clear_if_asked()

    def _crashed(self, message: str) -> None:
        if self.busy:
            self._idle()
        if not self.ready:
            self.status.model_label.setText(tr("no language model"))
        self.panel.set_state(message)
        self._clear_if_asked()
        QMessageBox.critical(self._widget, "Lantern", message)

    # --- earlier exchanges --------------------------------------------------------------
    def show_exchange(self, index: int) -> None:
        """Show exchange ``index`` of the conversation again, as it was shown when it finished:
        its question, answer (citation links open its own passages), sources and state, the
        state line saying that it is an earlier answer. Ignored while a question is running."""
        if self.busy or not 0 <= index < len(self.conversation):
            return
        state = self.show(self.conversation[index])
        cited = self.conversation[index].answer.citations
        if cited:  # its first cited passage, as when it was first shown
            self.window.open_citation(cited[0].n)
        self.panel.announce(f"{state} {self.panel.answer_view.toPlainText()}")

    def show(self, exchange: Exchange) -> str:
        """Put ``exchange`` on screen; returns its state line."""
        answer = exchange.answer
        self.shown = exchange
        # Citations and sources open the passages of the answer on screen, never another one's.
        self.panel.asked_label.setText(tr("You asked: {question}").format(question=exchange.question))
        self.panel.show_answer(answer.text, answer.passages, {p.n for p in answer.citations})
        state = state_words(exchange)
        if exchange is not self.conversation.latest:
            where = tr(EARLIER_WORDS).format(n=self.conversation.index(exchange) + 1, total=len(self.conversation))
            state = f"{where} {state}"
        self.panel.set_state(state)
        self.panel.copy_button.setEnabled(bool(answer.text))
        self._update_earlier()
        return state
