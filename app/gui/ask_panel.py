"""The Ask tab: the note, New conversation / Copy answer, the earlier questions, the question
asked, the answer (Markdown with ``[n]`` links), its state in words, the numbered sources, and
the question box with Ask / Stop. It shows what it is given; :mod:`app.gui.answer_flow` decides
what that is and when."""

from __future__ import annotations

from urllib.parse import unquote

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import QAccessible, QFont, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ..answer.replies import note_in
from ..bundle.reader import BundleReader
from ..records import HEADING_SEPARATOR, Passage
from ..retrieval.links import GUIDE, classify_link, link_refusal
from .conversation import Conversation, Exchange
from .passage_text import excerpt
from .render import CITE_SCHEME, GUIDE_SCHEME, answer_html
from .translation import QT_TR_NOOP, tr
from .viewer import bold_font
from .widgets import AnswerView, FitLabel
from .words import (
    ANSWER_PLACEHOLDER,
    DEGRADED_NOTES,
    EARLIER_LATEST,
    EARLIER_PLACEHOLDER,
    EARLIER_TITLE,
    LOADING_NOTE,
    QUESTION_PLACEHOLDER,
    SEARCH_ONLY_WORDS,
    STATE_WORDS,
    STOPPED_WORDS,
    short_question,
)

try:  # Qt >= 6.8: tell screen readers about the finished answer.
    from PySide6.QtGui import QAccessibleAnnouncementEvent
    HAS_ANNOUNCEMENTS = True
except ImportError:  # pragma: no cover - older Qt
    HAS_ANNOUNCEMENTS = False

QUESTION_LINES = 3  # lines of "You asked: …" (a longer question is elided; the tooltip has it all)
EARLIER_CHARS = 90  # characters of a question in the earlier-questions box
ANSWER_DESCRIPTION = QT_TR_NOOP("The answer; Tab moves between its citation links, Enter opens one")


def state_words(exchange: Exchange) -> str:
    """The state line of a finished exchange."""
    answer = exchange.answer
    if answer.state == "extractive" and "search-only" in answer.degraded:
        words = tr(SEARCH_ONLY_WORDS)
    else:
        words = tr(STATE_WORDS.get(answer.state, answer.state))
    if "engine-unavailable" in answer.degraded:  # the lab's engine failed (app/answer/remote.py): say so first
        words = f"{tr(DEGRADED_NOTES['engine-unavailable'])} {words}"
    return f"{tr(STOPPED_WORDS)} {words}" if exchange.stopped else words


class AskPanel(QWidget):
    """The Ask tab's widgets (attributes named as in :class:`~app.gui.main_window.MainWindow`).
    ``passages`` are those of the answer on screen: its citations and sources open them.
    Signals: ``ask_requested()`` (Enter in the question box), ``copy_requested()`` (Ctrl+C in
    the answer with no text selected), ``citation_requested(int)`` (a citation or a source),
    ``guide_requested(str, str)`` (a link in a quote to a guide: its path and anchor),
    ``link_refused(str)`` (any other link in the answer: one sentence saying what it is; it is
    never followed)."""

    ask_requested = Signal()
    copy_requested = Signal()
    citation_requested = Signal(int)
    guide_requested = Signal(str, str)
    link_refused = Signal(str)

    def __init__(self, bundle: BundleReader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.passages: dict[int, Passage] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        # Labels of text Lantern does not control (questions, messages, names) wrap anywhere
        # or are elided (FitLabel), so no text widens the window; bold and colour are set as
        # font and palette, not style sheets, so they follow the font size (Settings) at once.
        self._build_notice(layout)
        self._build_top_row(layout)
        self._build_earlier_row(layout)
        self._build_answer(layout, bundle)
        self._build_sources(layout)
        self._build_question(layout, bundle)
        self._build_buttons(layout)
        self.question_box.installEventFilter(self)  # Enter sends
        self.answer_view.installEventFilter(self)  # Ctrl+C copies the whole answer

    def _build_notice(self, layout: QVBoxLayout) -> None:
        """The note (models loading, a model missing, a problem)."""
        self.notice = FitLabel(tr(LOADING_NOTE))
        self.notice.setFrameShape(QFrame.Shape.StyledPanel)
        self.notice.setMargin(6)
        self.notice.setFont(bold_font())
        self.notice.setAccessibleName(tr("Note"))
        layout.addWidget(self.notice)

    def _build_top_row(self, layout: QVBoxLayout) -> None:
        """The conversation line with New conversation and Copy answer."""
        top = QHBoxLayout()
        self.conversation_label = FitLabel("")
        self.conversation_label.setAccessibleName(tr("Conversation"))
        top.addWidget(self.conversation_label, 1)
        self.new_button = QPushButton(tr("&New conversation"))
        self.new_button.setAccessibleName(tr("New conversation"))
        self.new_button.setAccessibleDescription(tr("Forget the previous questions and clear the answer (Ctrl+N)"))
        self.new_button.setToolTip(tr("Forget the previous questions and start over (Ctrl+N)"))
        self.copy_button = QPushButton(tr("&Copy answer"))
        self.copy_button.setAccessibleName(tr("Copy answer"))
        self.copy_button.setAccessibleDescription(tr("Copy the answer and its sources as text (Ctrl+C in the answer)"))
        self.copy_button.setToolTip(tr("Copy the answer with its sources written out (Ctrl+C in the answer)"))
        self.copy_button.setEnabled(False)
        top.addWidget(self.new_button)
        top.addWidget(self.copy_button)
        layout.addLayout(top)

    def _build_earlier_row(self, layout: QVBoxLayout) -> None:
        """Earlier questions of this conversation: one line, hidden until there is one to go back to."""
        self.earlier_row = QWidget()
        earlier = QHBoxLayout(self.earlier_row)
        earlier.setContentsMargins(0, 0, 0, 0)
        earlier_title = QLabel(tr(EARLIER_TITLE))
        self.earlier = QComboBox()
        self.earlier.setAccessibleName(tr("Earlier in this conversation"))
        self.earlier.setAccessibleDescription(tr("Your earlier questions, newest last; choosing one shows its answer "
                                                 "and sources again as they were given"))
        self.earlier.setToolTip(tr("Show an earlier answer of this conversation again (Alt+E, then Up or Down)"))
        self.earlier.setPlaceholderText(tr(EARLIER_PLACEHOLDER))
        self.earlier.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.earlier.setMinimumContentsLength(16)
        self.earlier.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.earlier.setMaxVisibleItems(15)
        self.earlier.view().setAccessibleName(tr("Earlier questions"))
        self.earlier.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)  # long questions keep their end
        earlier_title.setBuddy(self.earlier)
        earlier.addWidget(earlier_title)
        earlier.addWidget(self.earlier, 1)
        self.earlier_row.hide()
        layout.addWidget(self.earlier_row)

    def _build_answer(self, layout: QVBoxLayout, bundle: BundleReader) -> None:
        """The question asked, the answer, and its state in words."""
        self.asked_label = FitLabel("", max_lines=QUESTION_LINES)
        self.asked_label.setAccessibleName(tr("Your question"))
        layout.addWidget(self.asked_label)

        self.answer_view = AnswerView()
        self.answer_view.setOpenLinks(False)
        self.answer_view.setAccessibleName(tr("Answer"))
        self.answer_view.setAccessibleDescription(tr(ANSWER_DESCRIPTION))
        self.answer_view.anchorClicked.connect(self._citation_clicked)
        self.answer_view.set_placeholder(tr(ANSWER_PLACEHOLDER).format(title=bundle.title))
        layout.addWidget(self.answer_view, 4)  # the reply gets two thirds of the room the sources share

        self.state_label = FitLabel("")
        self.state_label.setAccessibleName(tr("Answer state"))
        layout.addWidget(self.state_label)

    def _build_sources(self, layout: QVBoxLayout) -> None:
        """The numbered sources under their title."""
        self.sources_title = sources_title = QLabel(tr("S&ources"))
        sources_title.setFont(bold_font())
        layout.addWidget(sources_title)
        self.sources_list = QListWidget()
        self.sources_list.setAccessibleName(tr("Sources"))
        self.sources_list.setAccessibleDescription(tr("Passages of the guides used for the answer; press Enter to "
                                                      "open one"))
        self.sources_list.setWordWrap(True)
        self.sources_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # wrap instead
        self.sources_list.setAlternatingRowColors(True)
        self.sources_list.itemActivated.connect(self._source_activated)
        self.sources_list.itemClicked.connect(self._source_activated)
        sources_title.setBuddy(self.sources_list)
        layout.addWidget(self.sources_list, 2)  # (the first cited passage also opens in the viewer)

    def _build_question(self, layout: QVBoxLayout, bundle: BundleReader) -> None:
        """The question box under its title."""
        question_title = QLabel(tr("&Question (Enter sends, Shift+Enter starts a new line)"))
        layout.addWidget(question_title)
        self.question_box = QPlainTextEdit()
        self.question_box.setAccessibleName(tr("Question"))
        self.question_box.setAccessibleDescription(tr("Type a question about the course and press Enter; "
                                                      "Tab then moves to the answer"))
        self.question_box.setPlaceholderText(tr(QUESTION_PLACEHOLDER).format(title=bundle.title))
        self.question_box.setTabChangesFocus(True)
        self.fit_question_box()
        question_title.setBuddy(self.question_box)
        layout.addWidget(self.question_box)

    def _build_buttons(self, layout: QVBoxLayout) -> None:
        """Ask and Stop."""
        buttons = QHBoxLayout()
        self.ask_button = QPushButton(tr("&Ask"))
        self.ask_button.setAccessibleName(tr("Ask"))
        self.ask_button.setAccessibleDescription(tr("Send the question (Enter in the question box)"))
        self.ask_button.setDefault(True)
        self.stop_button = QPushButton(tr("Stop"))
        self.stop_button.setAccessibleName(tr("Stop answering"))
        self.stop_button.setToolTip(tr("Stop the answer (Esc)"))
        self.stop_button.setEnabled(False)
        buttons.addWidget(self.ask_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)

    # --- keyboard ---------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if obj is self.question_box and event.type() == QEvent.Type.FontChange:
            self.fit_question_box()
        if not isinstance(event, QKeyEvent) or event.type() != QEvent.Type.KeyPress:
            return super().eventFilter(obj, event)
        if obj is self.question_box and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.ask_requested.emit()
            return True
        if obj is self.answer_view and event.matches(QKeySequence.StandardKey.Copy) \
                and not self._answer_has_text_selection():
            self.copy_requested.emit()
            return True
        return super().eventFilter(obj, event)

    def fit_question_box(self) -> None:
        """Three lines of the question box's font (again after a font size change)."""
        box = self.question_box
        margins = box.contentsMargins()
        box.setFixedHeight(box.fontMetrics().lineSpacing() * 3 + int(2 * box.document().documentMargin())
                           + margins.top() + margins.bottom() + 4)

    def _answer_has_text_selection(self) -> bool:
        """True when the student selected text in the answer (a link focused with Tab doesn't count)."""
        cursor = self.answer_view.textCursor()
        return cursor.hasSelection() and not cursor.charFormat().isAnchor()

    # --- what is shown ----------------------------------------------------------------
    def show_answer(self, text: str, passages, cited) -> None:
        """Put an answer's ``text`` on screen with its ``passages`` as sources (``cited`` in bold)."""
        self.passages = {p.n: p for p in passages}
        self.show_text(text)
        self.fill_sources(passages, cited)

    def show_text(self, text: str) -> None:
        """Replace the answer's text, keeping its passages (a sentence of the model arrived)."""
        sources = {n: p.hit.source for n, p in self.passages.items()}
        self.answer_view.setHtml(answer_html(text, set(self.passages), note_in(text), sources))

    def clear_answer(self) -> None:
        self.passages = {}
        self.answer_view.clear()
        self.sources_list.clear()

    def set_state(self, text: str) -> None:
        self.state_label.setText(text)

    def fill_sources(self, passages, cited: set[int] | tuple) -> None:
        self.sources_list.clear()
        for p in passages:
            title = self.bundle.source_title(p.hit.source)
            heading = [h for h in p.hit.heading.split(HEADING_SEPARATOR) if h]
            # The guide's own title is usually the first heading: don't say it twice, and name
            # only the section itself (the full heading path is in the tooltip).
            if heading and heading[0] == title:
                heading = heading[1:]
            label = HEADING_SEPARATOR.join([title] + heading[-1:])
            mark = " " + tr("(cited)") if p.n in cited else ""
            item = QListWidgetItem(f"{p.n}. {label}{mark}\n    {excerpt(p.hit.text, 90)}")
            item.setData(Qt.ItemDataRole.UserRole, p.n)
            item.setToolTip(f"{p.hit.heading}\n{p.hit.source}#{p.hit.anchor}")
            if p.n in cited:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
            self.sources_list.addItem(item)

    def _source_activated(self, item: QListWidgetItem) -> None:
        self.citation_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _citation_clicked(self, url: QUrl) -> None:
        if url.scheme() == CITE_SCHEME:
            try:
                self.citation_requested.emit(int(url.path()))
            except ValueError:
                pass
            return
        if url.scheme() == GUIDE_SCHEME:
            encoded = QUrl.ComponentFormattingOption.FullyEncoded
            self.guide_requested.emit(unquote(url.path(encoded)), unquote(url.fragment(encoded)))
            return
        href = url.toString()
        target = classify_link("", href)
        # A course path the answer could not tie to a quote's guide is looked up from the course root.
        if target.kind == GUIDE:
            self.guide_requested.emit(target.path, target.anchor)
        else:
            self.link_refused.emit(link_refusal(target, href))

    def update_earlier(self, conversation: Conversation, shown: Exchange | None, busy: bool) -> None:
        """Fill the earlier-questions box from the conversation; it shows only when there is
        an exchange other than the one on screen, and is disabled while a question runs."""
        box = self.earlier
        box.blockSignals(True)
        box.clear()
        latest = conversation.latest
        for exchange in conversation:
            question = short_question(exchange.question, EARLIER_CHARS)  # the view elides it further
            box.addItem(f"{question} {tr(EARLIER_LATEST)}" if exchange is latest else question)
            answer_words = excerpt(exchange.answer.text, 160) or state_words(exchange)
            box.setItemData(box.count() - 1, answer_words, Qt.ItemDataRole.ToolTipRole)
        box.setCurrentIndex(conversation.index(shown) if shown is not None else -1)
        box.blockSignals(False)
        others = len(conversation) - (1 if shown is not None else 0)
        self.earlier_row.setVisible(others > 0)
        box.setEnabled(not busy)

    def update_conversation_label(self, turns: int) -> None:
        """Say how many earlier questions a follow-up can refer to."""
        if not turns:
            self.conversation_label.setText(tr("New conversation."))
        elif turns == 1:
            self.conversation_label.setText(tr("A follow-up question can refer to your last question."))
        else:
            self.conversation_label.setText(tr("A follow-up question can refer to your last {turns} questions.")
                                            .format(turns=turns))

    def announce(self, text: str) -> None:
        """Tell screen readers the finished answer once (not the evidence and sentences as they arrive)."""
        self.answer_view.setAccessibleDescription(text)
        if HAS_ANNOUNCEMENTS and QAccessible.isActive():
            QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(self.answer_view, text))
