"""The window's layout with awkward text: long questions, big fonts, placeholder, passage highlight.

Offscreen on fakes; shares the tiny course, the window fixture and helpers of ``tests/test_gui.py``.
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtGui import QFont  # noqa: E402
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget  # noqa: E402

from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.config import Settings  # noqa: E402
from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.passage_text import locate_words, passage_words  # noqa: E402
from app.gui.words import finished_status  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel, FakeEmbedder  # noqa: E402

config_dir = shared.config_dir
gui_bundle = shared.gui_bundle
windows = shared.windows
open_window = shared.open_window

LONG = "Why_do_I_get_" + "E" * 300  # a pasted compiler line or URL: no spaces at all
HUGE = "x" * 50_000


def ask_and_wait(qtbot, window, question: str) -> None:
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText(question)
        window.ask()


def settle(qtbot) -> None:
    """Let pending layout requests run (as the event loop does between two user actions)."""
    qtbot.wait(20)
    QApplication.processEvents()


@pytest.fixture()
def app_font():
    """Restore the application font after a test that changes it."""
    app = QApplication.instance()
    saved = QFont(app.font())
    yield
    app.setFont(saved)


# --- 1: a question with no spaces never widens the window ------------------------------------
def test_a_question_without_spaces_never_widens_the_window(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    settle(qtbot)
    width = window.width()
    ask_and_wait(qtbot, window, LONG)
    settle(qtbot)
    assert window.width() == width
    label = window.asked_label
    limit = 60 * label.fontMetrics().averageCharWidth() + 20
    assert label.sizeHint().width() <= limit and label.minimumSizeHint().width() <= limit
    assert window.minimumSizeHint().width() < width
    # Shortened to at most three lines, with "…"; the whole question is in the tooltip.
    shown = label.shown_text()
    assert shown.count("\n") <= 2 and shown.endswith("…")
    assert " ".join(shown.split()).startswith("You asked: Why_do_I_get_E")
    assert label.height() <= 3 * label.fontMetrics().lineSpacing() + 12
    assert label.text() == f"You asked: {LONG}"
    assert "".join(label.toolTip().split()) == f"Youasked:{LONG}"
    assert all(label.fontMetrics().horizontalAdvance(line) <= label.contentsRect().width()
               for line in shown.splitlines())

    # The earlier-questions box lists it shortened and stays one narrow line.
    ask_and_wait(qtbot, window, shared.QUESTION)
    settle(qtbot)
    box = window.earlier
    assert not window.earlier_row.isHidden()
    assert len(box.itemText(0)) <= 100 and box.itemText(0).startswith("Why_do_I_get_E")
    assert box.sizeHint().width() <= limit
    assert window.width() == width
    # Reopening it and starting over keep the width too.
    window.show_exchange(0)
    settle(qtbot)
    assert window.width() == width
    window.new_conversation()
    settle(qtbot)
    assert window.width() == width and window.asked_label.shown_text() == ""


def test_a_search_for_a_long_word_never_widens_the_window(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    settle(qtbot)
    width = window.width()
    window.focus_search()
    window.search.box.setText("zz" + "Q" * 400)
    window.search.search()
    settle(qtbot)
    assert "No section of the guides contains" in window.search.count_label.text()
    assert window.width() == width


def test_a_long_guide_path_in_the_viewer_title_never_widens_the_window(qtbot, windows, tmp_path):
    course = tmp_path / "course"
    folder = course / ("a_very_long_folder_name_without_any_spaces_" * 5)  # no break opportunity at all
    folder.mkdir(parents=True)
    (folder / "guide.md").write_text("# A guide\n\nSome text about the OLED display.\n", encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", FakeEmbedder(), title="Long paths")
    bundle = BundleReader(tmp_path / "b.sqlite")
    window = open_window(qtbot, windows, bundle, FakeChatModel(reply=shared.REPLY))
    try:
        settle(qtbot)
        width = window.width()
        guide = bundle.sources()[0].path
        window.open_location(guide)
        settle(qtbot)
        assert window.width() == width
        assert guide in window.guide_title.text()
    finally:
        window.close()
        bundle.close()


# --- 2: an over-long question: a readable error, no stale status ------------------------------
def test_an_over_long_question_shows_a_readable_error_and_no_stale_status(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    ask_and_wait(qtbot, window, shared.QUESTION)
    settle(qtbot)
    assert window.status_text().startswith("Passages in ") and "checked answer in" in window.status_text()
    width = window.width()
    window.question_box.setPlainText(HUGE)
    with qtbot.waitSignal(window.error_shown, timeout=5000):
        window.ask()
        assert window.status_text() == ""  # cleared as soon as the question is sent
    settle(qtbot)
    assert window.status_text() == ""
    assert window.width() == width
    state = window.state_label
    message = state.text()
    assert message.startswith("The question is 50,000 characters long; the limit is 2,000.")
    # Wrapped, every word shown, and the label tall enough for all its lines.
    assert " ".join(state.shown_text().split()) == " ".join(message.split())
    assert state.shown_text().count("\n") >= 1
    assert state.height() >= state.heightForWidth(state.width())
    assert state.visibleRegion().boundingRect().height() >= state.heightForWidth(state.width())
    assert window.asked_label.shown_text().endswith("…")


# --- 3: the status bar says what was timed -----------------------------------------------------
def test_finished_status_names_what_was_timed():
    # The passages are timed on their own: a slow model never makes them look slow.
    assert finished_status("answered", 4.06, evidence=0.031) == "Passages in 0.03 s; checked answer in 4.1 s."
    assert finished_status("extractive", 4.2, evidence=0.02) == "Passages in 0.02 s; no checked answer to add (4.2 s)."
    assert finished_status("extractive", 0.012, search_only=True, evidence=0.01) == "Found the passages in 0.01 s."
    assert finished_status("extractive", 0.001, search_only=True, evidence=0.001) == \
        "Found the passages in under 0.01 s."
    assert finished_status("answered", 1.3, evidence=0.996) == "Passages in 1.0 s; checked answer in 1.3 s."
    assert finished_status("not-covered", 0.31) == "Searched the guides in 0.31 s: not covered."
    assert finished_status("declined-off-topic", 0.0) == ""
    assert finished_status("declined-injection", 0.0) == ""
    assert finished_status("answered", 2.0, stopped=True, evidence=0.05) == "Passages in 0.05 s; stopped after 2.0 s."
    assert finished_status("answered", 2.0, stopped=True) == "Stopped after 2.0 s."  # stopped before the passages
    assert finished_status("answered", 3.94) == "Checked answer in 3.9 s."  # no evidence time known
    for state in ("extractive", "not-covered", "declined-off-topic", "declined-injection"):
        assert "checked answer in" not in finished_status(state, 0.5, evidence=0.01).lower()


def test_the_status_bar_says_answered_only_for_answers(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    ask_and_wait(qtbot, window, shared.QUESTION)
    assert window.answer.state == "answered"
    evidence_s, total_s = (window.answer.timings_ms[k] / 1000 for k in ("evidence", "total"))
    assert window.status_text() == finished_status("answered", total_s, evidence=evidence_s)
    assert window.status_text().startswith("Passages in ") and "; checked answer in " in window.status_text()
    ask_and_wait(qtbot, window, "Write me a poem about the sea")
    assert window.answer.state == "declined-off-topic"
    assert window.status_text() == ""
    # Search only (no model): passages, not an answer.
    plain = open_window(qtbot, windows, gui_bundle, None)
    ask_and_wait(qtbot, plain, "OLED display blank I2C address")
    assert plain.answer.state in ("extractive", "not-covered")
    assert "answer" not in plain.status_text().lower()


# --- 4: the font size reaches every text -------------------------------------------------------
class AcceptingDialog:
    """Settings → font size 20 → Save, without showing the dialog."""

    def __init__(self, settings, parent=None) -> None:
        self.settings = Settings(font_size=20)

    def exec(self) -> int:
        return 1


def block_heights(viewer) -> tuple[float, float]:
    """Heights of the guide's title (a level-1 heading) and of its first paragraph."""
    document = viewer.document()
    layout = document.documentLayout()
    title = document.firstBlock()
    paragraph = title.next()
    while paragraph.isValid() and not paragraph.text().strip():
        paragraph = paragraph.next()
    return layout.blockBoundingRect(title).height(), layout.blockBoundingRect(paragraph).height()


def test_font_size_from_settings_reaches_every_text(qtbot, windows, gui_bundle, monkeypatch, app_font):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    ask_and_wait(qtbot, window, shared.QUESTION)
    window.open_citation(1)
    heading_before, body_before = block_heights(window.viewer)
    monkeypatch.setattr("app.gui.main_window.SettingsDialog", AcceptingDialog)
    window.open_settings()
    settle(qtbot)

    texts = [w for w in window.findChildren(QWidget) if isinstance(w, (QLabel, QAbstractButton)) and w.isVisible()]
    small = [(w.accessibleName() or getattr(w, "text", lambda: "")(), w.font().pointSize())
             for w in texts if w.font().pointSize() != 20]
    assert small == []
    for widget in (window.answer_view, window.viewer, window.sources_list, window.question_box, window.earlier,
                   window.contents, window.search.results, window.search.box):
        assert widget.font().pointSize() == 20, widget.accessibleName()
    assert window.answer_view.document().defaultFont().pointSize() == 20
    # Bold stays bold, relative sizes are kept (the guide's headings stay bigger than its text).
    assert window.sources_title.font().bold() and window.guide_title.font().bold()
    assert window.viewer.document().defaultFont().pointSize() == 20
    heading, body = block_heights(window.viewer)
    assert heading > 1.2 * body and heading > 1.3 * heading_before and body > 1.3 * body_before
    # The question box still shows three lines.
    box = window.question_box
    assert box.height() >= 3 * box.fontMetrics().lineSpacing()
    # Nothing in the status bar overlaps, and each label shows its text whole or elided, never cut.
    bar = [w for w in (window.message_label, window.course_label, window.version_label, window.model_label,
                       window.degraded_label) if w.isVisible() and w.width() > 0]
    # The status bar grows to the new font in a later layout pass; on a busy machine that can take
    # longer than settle() waits, so wait for it (a bar that never grows still fails here).
    qtbot.waitUntil(lambda: all(label.height() >= label.fontMetrics().height() for label in bar), timeout=3000)
    for left, right in zip(bar, bar[1:]):
        assert left.geometry().right() < right.geometry().left(), (left.text(), right.text())
    for label in bar:
        for line in label.shown_text().splitlines():
            assert label.fontMetrics().horizontalAdvance(line) <= label.contentsRect().width(), line
        assert label.height() >= label.fontMetrics().height()


# --- 5: the answer's placeholder fits ----------------------------------------------------------
def ink_rows_and_right_edge(image, background: int) -> tuple[list[int], int]:
    """Rows with any pixel not of the ``background`` colour, and the right-most such column."""
    rows, right = [], -1
    for y in range(image.height()):
        hit = [x for x in range(image.width()) if image.pixel(x, y) != background]
        if hit:
            rows.append(y)
            right = max(right, hit[-1])
    return rows, right


def test_the_answer_placeholder_wraps_inside_the_view(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    view = window.answer_view
    window.splitter.setSizes([330, window.width() - 330])
    settle(qtbot)
    assert view.document().isEmpty()
    viewport = view.viewport()
    image = viewport.grab().toImage()
    rows, right = ink_rows_and_right_edge(image, image.pixel(image.width() - 2, image.height() - 2))
    assert rows, "no placeholder drawn"
    margin = int(view.document().documentMargin())
    assert right < viewport.width() - margin, "the placeholder runs into the edge (cut off)"
    line = view.fontMetrics().lineSpacing()
    assert rows[-1] - rows[0] > line, "the placeholder is one clipped line, not wrapped"
    assert rows[-1] < viewport.height() - margin
    # It goes away once there is an answer.
    ask_and_wait(qtbot, window, shared.QUESTION)
    assert "0x3C" in view.toPlainText()


# --- 6: the highlight covers the whole cited passage as rendered ------------------------------
SOIL = """# Detect soil moisture

## Ways to measure soil moisture

There are a range of sensors you can use:

* Resistive - a resistive sensor has 2 probes that go into the soil. An electric current is sent to one probe, and received by the other. The sensor then measures the resistance of the soil - measuring how much the current drops at the second probe.

    ![A resistive soil moisture sensor](../images/resistive.png)

* Capacitive - a *capacitive* sensor measures the **amount of electric charge** that can be
  stored across a positive and a negative plate, or [capacitance](https://example.com/capacitance).
  Call `read_moisture()` to get the value &amp; compare it with 0&ndash;1023.\\
  A wetter soil gives a __lower__ voltage.

Water is a good conductor of electricity, so wetter soil has lower resistance.

## Calibration

1. Put the sensor in dry soil.
2. Note the reading.
"""  # noqa: E501  (course text kept as written: the Resistive item is one unwrapped line on purpose)

CITED = SOIL.split("There are a range of sensors you can use:\n\n")[1].split("\nWater is")[0]


def test_highlight_covers_a_markdown_passage_across_lines(qtbot, windows, tmp_path):
    course = tmp_path / "course"
    (course / "lessons").mkdir(parents=True)
    (course / "lessons" / "soil.md").write_text(SOIL, encoding="utf-8")
    (course / "images").mkdir()  # the image is in the course, so the viewer shows it, not its alt text
    (course / "images" / "resistive.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    build_bundle(course, tmp_path / "soil.sqlite", FakeEmbedder(), title="Soil")
    bundle = BundleReader(tmp_path / "soil.sqlite")
    window = MainWindow(bundle, lambda: Assistant(Retriever(bundle, FakeEmbedder()), FakeChatModel()))
    windows.append(window)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    try:
        window.open_location("lessons/soil.md", "ways-to-measure-soil-moisture", CITED)
        marked = window.viewer.marked
        expected = passage_words(CITED)
        assert [w.lower() for w in re.findall(r"\w+", marked)] == expected
        assert expected[:3] == ["resistive", "a", "resistive"] and expected[-3:] == ["a", "lower", "voltage"]
        assert "soil. An electric current" in marked and "second probe." in marked
        assert "read_moisture()" in marked and "& compare" in marked and "capacitance." in marked
        assert "*" not in marked and "`" not in marked and "](" not in marked
        assert "Water is a good conductor" not in marked and "There are" not in marked
        # The painted runs are the marked text (the image between the items is left out).
        painted = " ".join(s.cursor.selectedText() for s in window.viewer.extraSelections())
        assert [w.lower() for w in re.findall(r"\w+", painted)] == expected

        # A single long line (the bug report: only its first 60 characters were marked).
        line = CITED.splitlines()[0]
        window.open_location("lessons/soil.md", "ways-to-measure-soil-moisture", line)
        assert window.viewer.marked.endswith("drops at the second probe.")
    finally:
        window.close()
        bundle.close()


def test_locate_words_prefers_the_place_after_the_anchor_and_ignores_strays():
    doc = "intro the sensor reads the soil . heading the sensor reads the soil value and more text here".split()
    needle = ["the", "sensor", "reads", "the", "soil", "value"]
    assert locate_words(doc, needle, near=7) == (8, 13)
    assert locate_words(doc, needle, near=0) == (8, 13)  # the whole passage beats its start alone
    strays = "intro the sensor reads the soil . a b c d e f value more".split()
    assert locate_words(strays, needle) == (1, 5)  # "value", 7 words on, is not part of it
    assert locate_words(doc, ["nothing", "here", "matches", "zzz"], near=0) is None
    assert locate_words([], needle) is None and locate_words(doc, []) is None
    # Words the document does not show (an unresolved reference link) do not stop the match.
    assert locate_words("a b c d e f g".split(), "b c ref d e".split()) == (1, 4)
    assert passage_words("**Bold** _em_ [link](x.md) `code()` &amp; &lt;tag&gt;\nnext  \nline") == \
        ["bold", "em", "link", "code", "tag", "next", "line"]
