"""The window's earlier exchanges: listed, reopened as they were shown, never saved. Offscreen on fakes.

Shares the tiny course, the window fixture and helpers of ``tests/test_gui.py`` (bound below
by assignment, so pytest finds the fixtures here too).
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt, QUrl  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.gui.conversation import EXCHANGES_KEPT, Conversation, Exchange  # noqa: E402
from app.gui.main_window import STATE_WORDS, STOPPED_WORDS  # noqa: E402
from app.gui.words import EARLIER_LATEST, EARLIER_WORDS  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel  # noqa: E402

config_dir = shared.config_dir
gui_bundle = shared.gui_bundle
windows = shared.windows
open_window, ask_with_enter = shared.open_window, shared.ask_with_enter

FIRST = shared.QUESTION  # retrieves the OLED troubleshooting section first
FIRST_REPLY = shared.REPLY
SECOND = "How do I blink the onboard LED on GPIO 2 with digitalWrite?"  # retrieves the blink lesson first
# Not a near-copy of the quoted sentence (that adds nothing and is dropped): the answer is `answered`.
SECOND_REPLY = "Use digitalWrite on GPIO 2 to blink the onboard LED [1]."
OFF_TOPIC = "Write me a poem about the sea"


class ScriptedChatModel(FakeChatModel):
    """The fake chat model, replying with the next of ``replies`` to each question."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies[0])
        self.replies = replies

    def stream(self, messages, max_tokens, should_stop=None):
        self.reply = self.replies[min(len(self.calls), len(self.replies) - 1)]
        return super().stream(messages, max_tokens, should_stop)


def ask_and_wait(qtbot, window, question: str) -> None:
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText(question)
        window.ask()


def sources_shown(window) -> list[tuple[str, bool, int]]:
    """The sources list as the student sees it: text, bold (cited), passage number."""
    items = [window.sources_list.item(i) for i in range(window.sources_list.count())]
    return [(item.text(), item.font().bold(), item.data(Qt.UserRole)) for item in items]


def two_questions(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, ScriptedChatModel([FIRST_REPLY, SECOND_REPLY]))
    ask_and_wait(qtbot, window, FIRST)
    first = {"html": window.answer_view.toHtml(), "sources": sources_shown(window),
             "state": window.state_label.text(), "text": window.answer_text()}
    assert window.earlier_row.isHidden(), "the list shows before there is anything earlier"
    ask_and_wait(qtbot, window, SECOND)
    return window, first


def test_two_questions_then_the_first_reopens_with_its_own_citations_and_sources(qtbot, windows, gui_bundle):
    window, first = two_questions(qtbot, windows, gui_bundle)
    first_answer, second_answer = window.conversation[0].answer, window.conversation[1].answer
    assert first_answer.state == second_answer.state == "answered"
    # The two answers' passage [1] are different sections, so a mix-up would show.
    first_cited, second_cited = first_answer.passages[0].hit, second_answer.passages[0].hit
    assert (first_cited.source, first_cited.anchor) == ("lessons/oled.md", "blank-display")
    assert second_cited.source == "lessons/blink.md"

    box = window.earlier
    assert not window.earlier_row.isHidden() and box.isEnabled()
    assert [box.itemText(i) for i in range(box.count())] == [FIRST, f"{SECOND} {EARLIER_LATEST}"]
    assert box.currentIndex() == 1  # the answer on screen
    assert "0x3C" in box.itemData(0, Qt.ToolTipRole)  # an excerpt of its answer
    assert "digitalWrite" in box.itemData(1, Qt.ToolTipRole)

    # Keyboard: Alt+E reaches the list, Up reopens the previous answer.
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    qtbot.keyClick(window, Qt.Key_E, Qt.AltModifier)
    assert box.hasFocus()
    qtbot.keyClick(box, Qt.Key_Up)
    assert box.currentIndex() == 0 and window.shown is window.conversation[0]
    assert window.asked_label.text() == f"You asked: {FIRST}"
    assert window.answer_view.toHtml() == first["html"]
    assert "0x3C" in window.answer_view.toPlainText() and "cite:1" in window.answer_view.toHtml()
    assert sources_shown(window) == first["sources"]
    assert any(bold and "(cited)" in text for text, bold, _ in sources_shown(window))
    earlier = EARLIER_WORDS.format(n=1, total=2)
    assert window.state_label.text() == f"{earlier} {STATE_WORDS['answered']}"
    assert first["state"] == STATE_WORDS["answered"]
    assert earlier in window.answer_view.accessibleDescription()  # announced as an earlier answer

    # Its [1] opens the first answer's passage, not the latest answer's passage 1.
    window.viewer.guide = ""
    window.answer_view.anchorClicked.emit(QUrl("cite:1"))
    assert (window.viewer.guide, window.viewer.anchor) == ("lessons/oled.md", "blank-display")
    assert "0x3C" in window.viewer.marked
    # So does its sources list.
    window.open_location("lessons/blink.md")
    window.sources_list.setCurrentRow(0)
    window.sources_list.setFocus()
    qtbot.keyClick(window.sources_list, Qt.Key_Return)
    assert (window.viewer.guide, window.viewer.anchor) == ("lessons/oled.md", "blank-display")

    # Copy answer copies the answer on screen.
    assert window.answer_text() == first["text"]
    QApplication.clipboard().clear()
    window.copy_button.click()
    assert QApplication.clipboard().text() == first["text"]
    assert "digitalWrite" not in first["text"]

    # Down returns to the latest answer, with its own passages and the usual state line.
    box.setFocus()
    qtbot.keyClick(box, Qt.Key_Down)
    assert window.shown is window.conversation.latest
    assert window.asked_label.text() == f"You asked: {SECOND}"
    assert window.state_label.text() == STATE_WORDS["answered"]
    window.answer_view.anchorClicked.emit(QUrl("cite:1"))
    assert window.viewer.guide == "lessons/blink.md"
    # The model's memory is untouched by reopening: still both exchanges, in order, each answer
    # remembered as the model's checked sentences (not the quotes below them).
    assert [m["content"] for m in window.history] == [FIRST, FIRST_REPLY, SECOND, SECOND_REPLY]


def test_asking_again_returns_to_the_normal_flow(qtbot, windows, gui_bundle):
    window, _ = two_questions(qtbot, windows, gui_bundle)
    window.show_exchange(0)
    ask_with_enter(qtbot, window, "Which pins does the OLED display use?")
    # While the question runs nothing earlier can be reopened (the answer streams into the view).
    assert window.busy and window.shown is None
    assert not window.earlier.isEnabled() and window.earlier.currentIndex() == -1
    window.show_exchange(0)
    assert window.asked_label.text() == "You asked: Which pins does the OLED display use?"
    qtbot.waitUntil(lambda: not window.busy, timeout=5000)
    assert window.earlier.isEnabled() and window.earlier.count() == 3
    assert window.earlier.currentIndex() == 2 and window.shown is window.conversation.latest
    assert not window.state_label.text().startswith(EARLIER_WORDS.split("{")[0])


def test_new_conversation_empties_the_earlier_list(qtbot, windows, gui_bundle):
    window, _ = two_questions(qtbot, windows, gui_bundle)
    window.show_exchange(0)
    window.new_button.click()
    assert len(window.conversation) == 0 and window.shown is None and window.history == []
    assert window.earlier.count() == 0 and window.earlier_row.isHidden()
    assert window.answer_text() == "" and window.sources_list.count() == 0
    ask_and_wait(qtbot, window, FIRST)
    assert window.earlier_row.isHidden()  # the only exchange is the one on screen
    qtbot.keyClick(window, Qt.Key_N, Qt.ControlModifier)
    assert window.earlier.count() == 0


def test_declined_and_stopped_answers_are_listed_but_not_remembered(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, ScriptedChatModel([FIRST_REPLY]))
    ask_and_wait(qtbot, window, OFF_TOPIC)
    declined = window.answer
    assert declined.state == "declined-off-topic"
    assert window.history == []  # not sent as memory
    ask_and_wait(qtbot, window, FIRST)
    assert [e.question for e in window.conversation] == [OFF_TOPIC, FIRST]
    window.show_exchange(0)
    assert window.state_label.text() == f"{EARLIER_WORDS.format(n=1, total=2)} {STATE_WORDS['declined-off-topic']}"
    assert window.sources_list.count() == 0
    # A stopped answer keeps its "Stopped" wording when reopened.
    window.conversation.add(Exchange("Stopped question", declined, stopped=True))
    window.conversation.add(Exchange("Another", declined))
    window.show_exchange(2)
    assert window.state_label.text().startswith(f"{EARLIER_WORDS.format(n=3, total=4)} {STOPPED_WORDS}")


def test_the_list_keeps_the_newest_fifty():
    conversation = Conversation()
    assert conversation.limit == EXCHANGES_KEPT == 50
    for i in range(EXCHANGES_KEPT + 5):
        conversation.add(Exchange(f"question {i}", answer=None))
    assert len(conversation) == 50
    assert conversation[0].question == "question 5" and conversation.latest.question == "question 54"
    same = Exchange("question 54", None)
    assert conversation.index(same) == -1 and conversation.index(conversation.latest) == 49


def test_the_window_drops_the_oldest_exchange_beyond_the_limit(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, ScriptedChatModel([FIRST_REPLY, SECOND_REPLY, FIRST_REPLY]))
    window.conversation.limit = 2
    for question in (FIRST, SECOND, "What does the OLED I2C scanner print?"):
        ask_and_wait(qtbot, window, question)
    box = window.earlier
    assert box.count() == 2 and box.itemText(0) == SECOND
    window.show_exchange(0)
    assert window.state_label.text().startswith(EARLIER_WORDS.format(n=1, total=2))


def test_the_conversation_is_never_written_to_disk(qtbot, windows, gui_bundle, config_dir, tmp_path, monkeypatch):
    written: list[tuple[str, object]] = []
    original = QSettings.setValue

    def spy(self, key, value):
        written.append((key, value))
        return original(self, key, value)

    monkeypatch.setattr(QSettings, "setValue", spy)
    window, _ = two_questions(qtbot, windows, gui_bundle)
    window.show_exchange(0)
    window.close()  # saves the window layout
    assert {key for key, _ in written} <= {"window/geometry", "window/splitter"}
    assert (config_dir / "window.ini").exists()
    for path in tmp_path.rglob("*"):  # the settings folder, the bundle, anything else written
        if path.is_file():
            data = path.read_bytes()
            for secret in (FIRST, SECOND, SECOND_REPLY):
                assert secret.encode() not in data, f"{secret!r} was written to {path}"


def test_the_earlier_list_is_in_the_tab_order_and_named(qtbot, windows, gui_bundle):
    window, _ = two_questions(qtbot, windows, gui_bundle)
    box = window.earlier
    assert box.accessibleName() == "Earlier in this conversation" and box.accessibleDescription()
    assert box.focusPolicy() & Qt.TabFocus
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    window.copy_button.setFocus()
    qtbot.keyClick(window.copy_button, Qt.Key_Tab)
    assert box.hasFocus()
    # One line: the answer view keeps its room.
    assert box.height() < 2.5 * box.fontMetrics().height() + 16
