"""The window's side of the instructor's report: "Did this help?" with two small buttons under
each finished reply, the plain-words notice while the report is on, and logging each finished
reply (:class:`~app.report.recorder.ReplyRecorder`).

It is attached to a :class:`~app.gui.main_window.MainWindow` from outside
(:func:`attach_feedback`): it listens to the window's signals and reads its answer flow, so the
window's own code does not change. The buttons are reachable with Tab right after the answer,
have accessible names ("Helped", "Didn't help") and are checkable, so a screen reader says which
one was chosen. The answer is kept only while the report is on; otherwise the buttons say so.
When the lab-wide settings file cannot be used (damaged, unreadable, too large), the sentence saying
so stays under the question box, so nobody takes the report for on (or off) when the admin's choice
was never read.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from ..config import lab_settings_problems
from ..gui.translation import QT_TR_NOOP, tr
from ..gui.widgets import FitLabel
from .recorder import ReplyRecorder, report_enabled

log = logging.getLogger(__name__)

# In the window's language where shown (app/gui/translation.py; scripts/translations.sh collects them).
HELP_QUESTION = QT_TR_NOOP("Did this help?")
THANKS_KEPT = QT_TR_NOOP("Thank you; your instructor will see it, without your name.")
THANKS_NOT_KEPT = QT_TR_NOOP("Thank you. (The instructor's report is off on this PC, so nothing is kept.)")
THANKS_PAUSED = QT_TR_NOOP("Thank you. (Logging is paused, so it could not be kept.)")
#: recorder.KEPT_NOTICE, marked for translation here (the recorder has no Qt; a test keeps the two equal).
KEPT_NOTICE_TR = QT_TR_NOOP("Questions are kept on this PC for your instructor, without your name.")
#: What the status bar says when the log cannot be written; the reason, in English, goes to the log file.
PAUSED_TR = QT_TR_NOOP("Logging for the instructor's report is paused; answers go on as usual.")


class FeedbackBar(QWidget):
    """"Did this help?" and the checkable buttons ``helped_button`` / ``unhelped_button``, with
    ``thanks_label`` saying what became of the answer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.prompt = QLabel(tr(HELP_QUESTION))
        self.helped_button = QPushButton(tr("Helped"))
        self.helped_button.setAccessibleName(tr("Helped"))
        self.helped_button.setAccessibleDescription(tr("Tell your instructor this answer helped"))
        self.unhelped_button = QPushButton(tr("Didn't help"))
        self.unhelped_button.setAccessibleName(tr("Didn't help"))
        self.unhelped_button.setAccessibleDescription(tr("Tell your instructor this answer did not help"))
        self.thanks_label = QLabel("")
        self.thanks_label.setAccessibleName(tr("Feedback"))
        self.thanks_label.setWordWrap(True)
        for button in (self.helped_button, self.unhelped_button):
            button.setCheckable(True)
            button.setAutoDefault(False)  # Enter in the question box still asks
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        row.addWidget(self.prompt)
        row.addWidget(self.helped_button)
        row.addWidget(self.unhelped_button)
        row.addWidget(self.thanks_label, 1)

    def show_choice(self, helped: bool | None, thanks: str = "") -> None:
        """Check the button of ``helped`` (None: neither) and say ``thanks``."""
        self.helped_button.setChecked(helped is True)
        self.unhelped_button.setChecked(helped is False)
        self.thanks_label.setText(thanks)


class FeedbackHook(QObject):
    """Logs ``window``'s finished replies through ``recorder`` (None: the report is off) and
    keeps the bar in step with the exchange on screen. ``choices`` maps ``id(exchange)`` to
    ``[exchange, row id or None, helped or None]``."""

    def __init__(self, window: Any, recorder: ReplyRecorder | None) -> None:
        super().__init__(window)
        self.window = window
        self.recorder = recorder
        self.choices: dict[int, list] = {}
        panel = window.ask_panel
        layout = panel.layout()
        self.bar = FeedbackBar(panel)
        layout.insertWidget(layout.indexOf(panel.state_label) + 1, self.bar)
        self.bar.hide()
        self.notice: QLabel | None = None
        if recorder is not None:
            self.notice = QLabel(tr(KEPT_NOTICE_TR))
            self.notice.setAccessibleName(tr("Instructor's report"))
            self.notice.setWordWrap(True)
            layout.addWidget(self.notice)
        #: What of the lab-wide settings file is not applied (the admin's report choice may be), kept
        #: in view for as long as the window is open; None when that file is fine or missing.
        self.lab_notice: FitLabel | None = None
        self.lab_problems = lab_settings_problems()
        if self.lab_problems:  # framed like the Ask tab's note; a long path wraps inside the window
            self.lab_notice = FitLabel(" ".join(self.lab_problems))
            self.lab_notice.setFrameShape(QFrame.Shape.StyledPanel)
            self.lab_notice.setMargin(6)
            self.lab_notice.setAccessibleName(tr("Note"))
            layout.addWidget(self.lab_notice)
        window.setTabOrder(window.answer_view, self.bar.helped_button)
        window.setTabOrder(self.bar.helped_button, self.bar.unhelped_button)
        window.setTabOrder(self.bar.unhelped_button, window.sources_list)
        self.bar.helped_button.clicked.connect(lambda: self.answer(True))
        self.bar.unhelped_button.clicked.connect(lambda: self.answer(False))
        window.answer_shown.connect(self._finished)
        # The answer view changes whenever another exchange is shown, a question starts or the
        # conversation is cleared (by a button, a shortcut or the menu).
        for signal in (window.error_shown, window.evidence_shown, window.answer_view.textChanged,
                       panel.earlier.activated):
            signal.connect(self._sync_later)

    def _finished(self, answer) -> None:
        exchange = self.window.flow.conversation.latest
        if exchange is not None and exchange.answer is answer:
            row_id = None
            if self.recorder is not None:
                bundle = self.window.bundle
                row_id = self.recorder.record(bundle.meta, bundle.path, exchange.question, answer)
            self.choices[id(exchange)] = [exchange, row_id, None]
        self.sync()

    def _sync_later(self, *_args) -> None:
        QTimer.singleShot(0, self, self.sync)  # after the window has handled the same signal

    def sync(self) -> None:
        """Show the bar under a finished exchange on screen (with its earlier choice), hide it otherwise."""
        flow = self.window.flow
        shown = flow.shown
        self.bar.setVisible(shown is not None and not flow.busy)
        entry = self.choices.get(id(shown)) if shown is not None else None
        self.bar.show_choice(entry[2] if entry else None)

    def answer(self, helped: bool) -> None:
        """The student pressed Helped (True) or Didn't help (False) for the exchange on screen."""
        shown = self.window.flow.shown
        if shown is None:
            return
        entry = self.choices.setdefault(id(shown), [shown, None, None])
        entry[2] = helped
        if self.recorder is None:
            thanks = THANKS_NOT_KEPT
        elif entry[1] is not None and self.recorder.feedback(entry[1], helped):
            thanks = THANKS_KEPT
        else:
            thanks = THANKS_PAUSED
        self.bar.show_choice(helped, tr(thanks))


def attach_feedback(window: Any) -> FeedbackHook:
    """Give ``window`` (a :class:`~app.gui.main_window.MainWindow`) the "Did this help?" buttons,
    and, when the report is on (:func:`~app.report.recorder.report_enabled`), the notice and the
    log of its finished replies; a log that cannot be written is said once in the status bar. What
    of the lab-wide settings file is not applied (:func:`~app.config.lab_settings_problems`: a
    damaged file, for one) stays in view under the question box as long as the window is open."""
    recorder = None
    if report_enabled():
        recorder = ReplyRecorder(on_pause=lambda text: _paused(window, text))
    return FeedbackHook(window, recorder)


def _paused(window: Any, text: str) -> None:
    """Say once in the status bar, in the window's language, that logging paused; ``text`` (English,
    with the reason) goes to the log file."""
    log.warning("%s", text)
    window.show_status(tr(PAUSED_TR), 15000)
