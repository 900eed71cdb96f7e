"""The window's browse, search, conversation and keyboard features, offscreen on fakes.

Shares the tiny course, the window fixture and helpers of ``tests/test_gui.py``.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.bundle.reader import MATCH_END, MATCH_START, SEARCH_WORD_CHARS, guide_search_query  # noqa: E402
from app.config import Settings  # noqa: E402
from app.gui.main_window import DEGRADED_NOTES, TAB_ASK, TAB_SEARCH  # noqa: E402
from app.gui.render import answer_as_text, answer_html, mark_prefixes, snippet_html  # noqa: E402
from app.gui.settings_dialog import SettingsDialog  # noqa: E402
from app.gui.theme import highlight_colors  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel  # noqa: E402

# The fixtures are bound by assignment (as in test_gui_conversation.py), so pytest finds them here
# and ruff does not read each test's parameter as a redefinition of an imported name (F811).
# config_dir is autouse in test_gui.py, so it applies to every test here too.
config_dir = shared.config_dir
gui_bundle = shared.gui_bundle
windows = shared.windows
QUESTION, REPLY = shared.QUESTION, shared.REPLY
open_window, ask_with_enter = shared.open_window, shared.ask_with_enter


# --- guide search ---------------------------------------------------------------------
def test_guide_search_query_quotes_every_word():
    assert guide_search_query("oled bla") == ('"oled"* "bla"*', '"oled"* OR "bla"*')
    assert guide_search_query('C++ AND "x -v') == ('"C++"* "AND"* """x"* "-v"*', '"C++"* OR "AND"* OR """x"* OR "-v"*')
    assert guide_search_query(" -- ") == ("", "")
    # A pasted wall of text is searched by the start of each word (a long FTS5 phrase took seconds and
    # hundreds of MB): at most 12 words of at most SEARCH_WORD_CHARS characters.
    every, _ = guide_search_query("(c" * 63_000 + " display" * 20)
    assert every == " ".join(['"' + "(c" * (SEARCH_WORD_CHARS // 2) + '"*'] + ['"display"*'] * 11)


def test_bundle_search_guides_prefix_snippets_and_hostile_input(gui_bundle):
    matches = gui_bundle.search_guides("oled bla")  # prefixes of "OLED" and "blank"
    assert matches, "prefix search found nothing"
    best = matches[0]
    assert best.source == "lessons/oled.md" and best.anchor == "blank-display"
    assert f"{MATCH_START}blank{MATCH_END}" in best.snippet.lower() or \
        f"{MATCH_START}OLED{MATCH_END}" in best.snippet
    assert "\n" not in best.snippet and "###" not in best.snippet
    # Words no chunk has together fall back to chunks with any of them.
    assert {m.source for m in gui_bundle.search_guides("digitalWr zzzzqq")} == {"lessons/blink.md"}
    for hostile in ('"', "C++", "AND", "-v", "NEAR(", "*", "oled OR", "'; DROP TABLE chunks; --"):
        # The quoted expressions are valid FTS5 (search_guides itself returns [] on an SQL error,
        # so it is the expressions that are checked: this raises apsw.SQLError if quoting broke).
        for expression in guide_search_query(hostile):
            if expression:
                gui_bundle._query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,))
    assert [m.source for m in gui_bundle.search_guides("oled OR")][:1] == ["lessons/oled.md"]  # "OR" is a word
    assert gui_bundle.search_guides("'; DROP TABLE chunks; --") == [] and gui_bundle.search_guides("oled")
    assert gui_bundle.search_guides("zzzzqq") == []


def test_search_tab_lists_highlighted_results_and_opens_the_passage(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    qtbot.keyClick(window, Qt.Key_F, Qt.ControlModifier)
    assert window.tabs.currentIndex() == TAB_SEARCH
    assert window.search.box.hasFocus()
    qtbot.keyClicks(window.search.box, "oled bla")
    qtbot.keyClick(window.search.box, Qt.Key_Return)
    results = window.search.results
    assert results.count() >= 1
    assert "section" in window.search.count_label.text()
    first = results.item(0)
    html = first.data(Qt.UserRole + 1)
    background, _ = highlight_colors(window.palette())
    assert f"background-color:{background.name()}" in html  # matched words are marked
    assert "Lesson 4: OLED display" in first.text()  # plain text for screen readers
    # Down from the box reaches the results; Enter opens the guide at the chunk's heading, marked.
    window.search.box.setFocus()
    qtbot.keyClick(window.search.box, Qt.Key_Down)
    assert results.hasFocus()
    qtbot.keyClick(results, Qt.Key_Return)
    assert window.viewer.guide == "lessons/oled.md"
    assert window.viewer.anchor == "blank-display"
    assert "0x3C" in window.viewer.marked


def test_search_says_when_nothing_matches(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.search.box.setText("zzzzqq")
    qtbot.waitUntil(lambda: window.search.count_label.text() != "", timeout=2000)  # after the typing pause
    assert window.search.results.count() == 0
    assert "No section of the guides contains" in window.search.count_label.text()


def test_search_works_while_the_models_are_still_loading(qtbot, windows, gui_bundle):
    from threading import Event

    from app.answer.answerer import Assistant
    from app.gui.main_window import LOADING_NOTE, MainWindow
    from app.retrieval.retriever import Retriever

    release = Event()

    def slow_factory():
        release.wait(5)
        return Assistant(Retriever(gui_bundle, None), FakeChatModel(reply=REPLY))

    window = MainWindow(gui_bundle, slow_factory)
    windows.append(window)
    qtbot.addWidget(window)
    window.show()
    try:
        assert not window.ready
        assert window.notice.text() == LOADING_NOTE and not window.notice.isHidden()
        assert window.load_bar.isVisible()
        window.question_box.setPlainText(QUESTION)
        window.ask()
        assert "Waiting for the language model" in window.state_label.text()
        window.search.box.setText("I2C address")
        window.search.search()
        assert window.search.results.count() >= 1
    finally:
        release.set()
    qtbot.waitUntil(lambda: window.answer is not None, timeout=5000)
    assert window.load_bar.isHidden()


# --- contents, viewer history ---------------------------------------------------------
def test_contents_lists_folders_guides_headings_and_opens_at_heading(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    tree = window.contents
    folders = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert folders == ["lessons"]
    lessons = tree.topLevelItem(0)
    guides = [lessons.child(i).text(0) for i in range(lessons.childCount())]
    assert guides == ["Lesson 1: Blink an LED", "Lesson 4: OLED display"]
    oled = lessons.child(1)
    level2 = [oled.child(i).text(0) for i in range(oled.childCount())]
    assert level2 == ["Wiring", "Troubleshooting"]
    blank = oled.child(1).child(0)
    assert blank.text(0) == "Blank display"
    # Keyboard: Ctrl+T, select the heading, Enter.
    qtbot.keyClick(window, Qt.Key_T, Qt.ControlModifier)
    assert tree.hasFocus()
    tree.setCurrentItem(blank)
    qtbot.keyClick(tree, Qt.Key_Return)
    assert (window.viewer.guide, window.viewer.anchor) == ("lessons/oled.md", "blank-display")
    assert window.viewer._anchor_position("blank-display") > 0


def test_the_first_cited_passage_opens_in_the_viewer_as_the_evidence_arrives(qtbot, windows, gui_bundle):
    """Issue 23: the reading pane stayed empty until a citation was clicked."""
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    assert window.viewer.guide == ""
    seen = []
    window.evidence_shown.connect(lambda evidence: seen.append(
        (window.viewer.guide, window.viewer.anchor, bool(window.viewer.marked), evidence.citations[0].hit.anchor)))
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        ask_with_enter(qtbot, window, QUESTION)
    assert seen == [("lessons/oled.md", "blank-display", True, "blank-display")]
    assert not window.viewer.hasFocus()  # opened for reading, without taking the focus from the question
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("How do I blink the onboard LED with digitalWrite?")
        window.ask()
    assert window.viewer.guide == "lessons/blink.md"
    window.show_exchange(0)  # an earlier answer reopened: its first cited passage again
    assert (window.viewer.guide, window.viewer.anchor) == ("lessons/oled.md", "blank-display")


def test_contents_follow_the_courses_own_numbers_not_the_file_paths(qtbot, windows, tmp_path):
    """Issue 23: paths put "lesson-10" above "lesson-2", "buzzer.md" (Part 2) above "led.md" (Part 1)
    and "unit-10" above "unit-9"; numbers in names, else in titles, are compared as numbers."""
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader

    from .fakes import FakeEmbedder

    course = tmp_path / "numbered"
    guides = {"lessons/lesson-10.md": "Lesson 10: Wi-Fi", "lessons/lesson-2.md": "Lesson 2: Fade",
              "lessons/lesson-1.md": "Lesson 1: Blink", "extras/buzzer.md": "Part 2: Buzzer",
              "extras/led.md": "Part 1: LED", "extras/esp32-pins.md": "ESP32 pins",
              "unit-10/notes.md": "Unit ten notes", "unit-9/notes.md": "Unit nine notes"}
    for path, title in guides.items():
        (course / path).parent.mkdir(parents=True, exist_ok=True)
        (course / path).write_text(f"# {title}\n\nSome text about {title.lower()}.\n", encoding="utf-8")
    build_bundle(course, tmp_path / "numbered.sqlite", FakeEmbedder(), title="Numbered")
    bundle = BundleReader(tmp_path / "numbered.sqlite")
    try:
        window = open_window(qtbot, windows, bundle, FakeChatModel(reply=REPLY))
        tree = window.contents
        top = {tree.topLevelItem(i).text(0): tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}
        assert list(top) == ["extras", "lessons", "unit-9", "unit-10"]
        titles = {name: [item.child(i).text(0) for i in range(item.childCount())] for name, item in top.items()}
        assert titles["lessons"] == ["Lesson 1: Blink", "Lesson 2: Fade", "Lesson 10: Wi-Fi"]
        # "ESP32" is a name, not a number: that guide goes by its title's words ("ESP…" before "Part…").
        assert titles["extras"] == ["ESP32 pins", "Part 1: LED", "Part 2: Buzzer"]
        assert "OLED" not in window.question_box.placeholderText()  # the demo course's example, on every course
        assert "Numbered" in window.question_box.placeholderText()
    finally:
        window.shutdown()
        bundle.close()


def test_viewer_back_and_forward(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    viewer = window.viewer
    assert not window.back_button.isEnabled() and not window.forward_button.isEnabled()
    window.open_location("lessons/oled.md", "blank-display", "If the OLED display stays blank, check the I2C address")
    assert viewer.marked
    window.open_location("lessons/blink.md", "the-code")
    window.open_location("lessons/oled.md", "wiring")
    assert window.back_button.isEnabled() and not window.forward_button.isEnabled()

    viewer.setFocus()
    qtbot.keyClick(viewer, Qt.Key_Left, Qt.AltModifier)
    assert (viewer.guide, viewer.anchor) == ("lessons/blink.md", "the-code")
    window.back_button.click()
    assert (viewer.guide, viewer.anchor) == ("lessons/oled.md", "blank-display")
    assert viewer.marked == "If the OLED display stays blank, check the I2C address"  # marked again
    assert not window.back_button.isEnabled() and window.forward_button.isEnabled()
    qtbot.keyClick(viewer, Qt.Key_Right, Qt.AltModifier)
    assert (viewer.guide, viewer.anchor) == ("lessons/blink.md", "the-code")
    # Opening a new place drops the forward entries, as in a browser.
    window.open_location("lessons/blink.md", "")
    assert not window.forward_button.isEnabled()
    assert [(loc.guide, loc.anchor) for loc in viewer.history] == [
        ("lessons/oled.md", "blank-display"), ("lessons/blink.md", "the-code"), ("lessons/blink.md", "")]


# --- conversation -----------------------------------------------------------------------
def test_follow_ups_send_history_and_new_conversation_clears_it(qtbot, windows, gui_bundle):
    llm = FakeChatModel(reply=REPLY)
    window = open_window(qtbot, windows, gui_bundle, llm)
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        ask_with_enter(qtbot, window, QUESTION)
    assert window.history == [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REPLY}]
    assert "refer to your last question" in window.conversation_label.text()

    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("And which pins does the OLED display use?")
        window.ask()
    sent = [m["content"] for m in llm.calls[-1]]
    assert any(QUESTION in c for c in sent), "the follow-up was sent without the previous question"
    assert {"role": "assistant", "content": REPLY} in llm.calls[-1], "the model's own checked words, not the quotes"

    # An extractive reply is remembered as the quoted words, without the "From the guides:" line.
    llm.reply = ""  # the model adds nothing: the guides' words stand
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("Which pins does the OLED wiring use?")
        window.ask()
    assert window.answer.state == "extractive"
    remembered = window.history[-1]["content"]
    assert window.answer.text == f"From the guides:\n\n{remembered}"
    assert "From the guides" not in remembered and "GPIO 21" in remembered and "[" in remembered
    llm.reply = REPLY

    # Only the last three exchanges are kept as memory.
    window.history = [{"role": r, "content": f"{r} {i}"} for i in range(5) for r in ("user", "assistant")]
    assert [m["content"] for m in window.memory()][0] == "user 2" and len(window.memory()) == 6

    qtbot.keyClick(window, Qt.Key_N, Qt.ControlModifier)
    assert window.history == [] and window.answer is None
    assert window.answer_view.toPlainText() == "" and window.sources_list.count() == 0
    assert not window.copy_button.isEnabled()
    assert window.question_box.hasFocus()
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("Which pins does the OLED display use?")
        window.ask()
    sent = [m["content"] for m in llm.calls[-1]]
    assert not any(QUESTION in c for c in sent), "history survived New conversation"


def test_memory_keeps_whole_blocks_within_the_history_cap():
    from app.answer.prompt import HISTORY_CHARS
    from app.gui.main_window import memory_text
    from app.records import Answer

    def answer(state: str, text: str) -> Answer:
        return Answer(state=state, text=text, passages=(), citations=(), corpus_version="v", model="m")

    first, second = "A" * 600 + " [1]", "B" * 600 + " [2]"
    quotes = f"From the guides:\n\n{first}\n\n{second}"
    assert memory_text(answer("extractive", quotes)) == first  # the second block would pass the cap
    assert memory_text(answer("answered", f"Checked [1]. Also checked [2].\n\n{quotes}")) == \
        "Checked [1]. Also checked [2]."
    assert memory_text(answer("extractive", "From the guides:\n\n" + "C" * 3000)) == "C" * HISTORY_CHARS
    assert memory_text(answer("not-covered", "The guides don't cover this.")) == "The guides don't cover this."


def test_copy_answer_writes_out_citations(qtbot, windows, gui_bundle):
    import threading

    release = threading.Event()
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY, delay=lambda: release.wait(5)))
    assert not window.copy_button.isEnabled()
    # While the model works, Copy answer copies the guides' words already on screen.
    with qtbot.waitSignal(window.evidence_shown, timeout=5000) as shown:
        ask_with_enter(qtbot, window, QUESTION)
    evidence = shown.args[0]
    assert window.copy_button.isEnabled()
    listed = "".join(f"[{p.n}] {p.hit.source} › {p.hit.heading}\n" for p in evidence.citations)
    assert window.answer_text() == f"{evidence.text}\n\nSources:\n{listed}"
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        release.set()
    cited = window.answer.citations
    assert [p.n for p in cited] == [p.n for p in evidence.citations]  # the sentence cites [1], quoted too
    listed = "".join(f"[{p.n}] {p.hit.source} › {p.hit.heading}\n" for p in cited)
    expected = f"{REPLY}\n\n{evidence.text}\n\nSources:\n{listed}"
    assert window.answer_text() == expected
    assert expected.startswith(f"{REPLY}\n\nFrom the guides:\n\n")
    assert f"[1] lessons/oled.md › {cited[0].hit.heading}\n" in expected
    QApplication.clipboard().clear()
    window.copy_button.click()
    assert QApplication.clipboard().text() == expected
    # Ctrl+C with the answer focused (no text selected) copies the same.
    QApplication.clipboard().clear()
    window.answer_view.setFocus()
    qtbot.keyClick(window.answer_view, Qt.Key_C, Qt.ControlModifier)
    assert QApplication.clipboard().text() == expected
    assert "lessons/oled.md › Lesson 4: OLED display › Troubleshooting › Blank display" in expected


def test_answer_as_text_and_snippet_html_are_plain_and_escaped():
    assert answer_as_text("Text [1].", [(1, "a.md", "A › B")]) == "Text [1].\n\nSources:\n[1] a.md › A › B\n"
    assert answer_as_text("Not covered.", []) == "Not covered.\n"
    html = snippet_html("a <b> \x02word\x03", "\x02", "\x03", "#fff3a3", "#000000")
    assert html == 'a &lt;b&gt; <b style="background-color:#fff3a3; color:#000000">word</b>'
    assert mark_prefixes("OLED display blank", "bla ol", "[", "]") == "[OLED] display [blank]"
    # "From the guides:" stands out above the quotes; the same words inside a sentence do not.
    html = answer_html("Checked [1].\n\nFrom the guides:\n\nQuoted, From the guides: x. [1]", {1}, "From the guides:")
    assert html.count("<strong>From the guides:</strong>") == 1 and html.count("From the guides:") == 2
    assert "<strong>" not in answer_html("From the guides:\n\nQuoted. [1]", {1})


# --- status, keyboard, accessibility --------------------------------------------------------
def test_status_names_keyword_only_when_the_embedding_model_is_missing(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY), embedder=False)
    assert window.degraded == ("keyword-only",)
    assert window.degraded_label.text().startswith("Keyword search only")
    assert window.notice.text() == DEGRADED_NOTES["keyword-only"] and not window.notice.isHidden()
    assert "keyword-only: the embedding model is not available" in window.degraded_label.toolTip()
    assert window.model_label.text() == "model: fake-model.gguf"


def test_keyboard_path_through_a_whole_question(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    window.focus_search()  # start somewhere else
    qtbot.keyClick(window, Qt.Key_L, Qt.ControlModifier)
    assert window.tabs.currentIndex() == TAB_ASK and window.question_box.hasFocus()
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        qtbot.keyClicks(window.question_box, QUESTION)
        qtbot.keyClick(window.question_box, Qt.Key_Return)
    # The finished answer is given to screen readers once.
    assert "0x3C" in window.answer_view.accessibleDescription()
    # Tab leaves the question box for the answer, Tab again focuses the citation link.
    qtbot.keyClick(window.question_box, Qt.Key_Tab)
    assert window.answer_view.hasFocus()
    for _ in range(3):
        if window.answer_view.textCursor().charFormat().isAnchor():
            break
        qtbot.keyClick(window.answer_view, Qt.Key_Tab)
    cursor = window.answer_view.textCursor()
    assert cursor.charFormat().anchorHref() == "cite:1"
    window.viewer.guide = ""
    qtbot.keyClick(window.answer_view, Qt.Key_Return)
    assert window.viewer.guide == "lessons/oled.md" and window.viewer.anchor == "blank-display"
    assert "0x3C" in window.viewer.marked


def test_every_control_has_an_accessible_name(qtbot, windows, gui_bundle):
    from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    controls = (QAbstractButton, QAbstractItemView, QLineEdit, QPlainTextEdit, QTextEdit)
    found = [w for w in window.findChildren(QWidget) if isinstance(w, controls)]
    assert len(found) >= 12
    unnamed = [w for w in found if w.focusPolicy() != Qt.NoFocus and not w.accessibleName()
               and not (isinstance(w, QAbstractButton) and w.text())]
    assert unnamed == [], [type(w).__name__ for w in unnamed]


def test_highlight_stays_readable_in_a_dark_palette():
    dark = QPalette()
    dark.setColor(QPalette.Window, Qt.black)
    dark.setColor(QPalette.WindowText, Qt.white)
    background, text = highlight_colors(dark)
    assert background.lightness() < 128 and text.lightness() > 200
    light = QPalette()
    light.setColor(QPalette.Window, Qt.white)
    light.setColor(QPalette.WindowText, Qt.black)
    background, text = highlight_colors(light)
    assert background.lightness() > 200 and text.lightness() < 60


def test_settings_dialog_saves_the_shared_settings_file(qtbot, config_dir):
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.bundle_edit.setText("/courses/esp32.sqlite")
    dialog.model_edit.setText("/models/bigger.gguf")
    dialog.threads_spin.setValue(2)
    dialog.font_spin.setValue(14)
    dialog.accept()
    assert (config_dir / "settings.json").exists()
    assert Settings.load() == Settings(bundle="/courses/esp32.sqlite", chat_model="/models/bigger.gguf",
                                       threads=2, font_size=14)


def test_window_layout_is_remembered(qtbot, windows, gui_bundle, config_dir):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.resize(760, 560)  # the offscreen screen is 800x600
    window.splitter.setSizes([300, 460])
    sizes = window.splitter.sizes()
    window.close()
    assert (config_dir / "window.ini").exists()
    again = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    assert again.size().width() == 760
    assert again.splitter.sizes()[0] == sizes[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_layout_file_that_is_a_pipe_or_too_large_is_left_alone(qtbot, windows, gui_bundle, config_dir, caplog):
    import faulthandler
    import threading
    import time

    layout = config_dir / "window.ini"
    layout.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(layout)  # read or written, it would block the window until something wrote or read

    def release() -> None:  # a regression fails instead of hanging: open the pipe's other end after 8 s
        os.close(os.open(layout, os.O_RDWR | os.O_NONBLOCK))

    from app.gui.layout_state import layout_store

    faulthandler.dump_traceback_later(60, exit=True)  # a regression that blocks on the pipe ends the run, not hangs it
    try:
        assert layout_store() is None  # refused by its file type alone, before Qt opens it
    finally:
        faulthandler.cancel_dump_traceback_later()
    unblock = threading.Timer(8.0, release)
    unblock.start()
    started = time.monotonic()
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.close()
    unblock.cancel()
    assert time.monotonic() - started < 8 and layout.is_fifo()
    assert any("is not a regular file" in r.getMessage() for r in caplog.records)
    layout.unlink()
    layout.write_text("[window]\n" + "x" * 100_000, encoding="utf-8")
    before = layout.read_text(encoding="utf-8")
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.close()
    assert layout.read_text(encoding="utf-8") == before  # neither read nor rewritten
    assert any("is 100,009 bytes" in r.getMessage() for r in caplog.records)


def test_highlight_leaves_diagrams_untinted(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    wiring = next(m for m in gui_bundle.search_guides("SDA GPIO 21") if m.anchor == "wiring")
    assert "![OLED wiring]" in wiring.text
    window.open_location(wiring.source, wiring.anchor, wiring.text)
    selections = window.viewer.extraSelections()
    assert len(selections) >= 2  # the text before the image, then after it (cell by cell in the table)
    assert all("\ufffc" not in s.cursor.selectedText() for s in selections)
    assert all("\ufdd0" not in s.cursor.selectedText() for s in selections)
    assert "GPIO 21" in window.viewer.marked and "\ufffc" in window.viewer.marked


def test_new_conversation_while_answering_stops_then_clears(qtbot, windows, gui_bundle):
    import time

    reply = " ".join([REPLY] + ["Run the scanner sketch to find the I2C address of a blank display [1]."] * 40)
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=reply, delay=lambda: time.sleep(0.02)))
    sentences: list[str] = []
    window.worker.sentence.connect(sentences.append)
    ask_with_enter(qtbot, window, QUESTION)
    # The evidence and a checked sentence on screen (the window gets them through queued signals).
    # ``sentences`` is appended to in the worker thread, possibly just after the window drew the sentence.
    qtbot.waitUntil(lambda: window.answer_view.toPlainText().startswith(REPLY) and bool(sentences), timeout=5000)
    assert sentences and "From the guides:" in window.answer_view.toPlainText()
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        qtbot.keyClick(window, Qt.Key_N, Qt.ControlModifier)
    assert window.stopped
    assert window.history == [] and window.answer is None
    assert window.answer_view.toPlainText() == "" and not window.busy
    assert window.answer_text() == "" and not window.copy_button.isEnabled()


def test_real_loader_without_model_files_names_both_degraded_states(qtbot, windows, gui_bundle, tmp_path,
                                                                     monkeypatch):
    from app.gui.main_window import MainWindow
    from app.gui.workers import load_assistant

    monkeypatch.setenv("LANTERN_MODELS_DIR", str(tmp_path / "no-models"))  # the models folder was removed
    window = MainWindow(gui_bundle, lambda report: load_assistant(gui_bundle, None, report))
    windows.append(window)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.ready, timeout=10000)
    assert window.degraded == ("keyword-only", "search-only")
    assert "Keyword search only" in window.degraded_label.text()
    assert "Search only" in window.degraded_label.text()
    assert window.model_label.text() == "no language model"
    assert window.notice.text() == f"{DEGRADED_NOTES['keyword-only']} {DEGRADED_NOTES['search-only']}"
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("OLED display blank I2C address")
        window.ask()
    assert window.answer.state in ("extractive", "not-covered")


def test_highlight_runs_skip_images_and_their_blank_ends():
    from app.gui.viewer import _runs_without_images

    assert _runs_without_images(10, "ab\ufffc\u2029cd ") == [(10, 12), (14, 16)]
    assert _runs_without_images(0, "abc") == [(0, 3)]
    assert _runs_without_images(0, " \ufffc ") == []
    assert _runs_without_images(0, "a\ufdd0b\ufdd0c") == [(0, 1), (2, 3), (4, 5)]


def test_guide_search_shows_other_guides_before_a_fourth_match_of_one(tmp_path, fake_embedder):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import SEARCH_PER_GUIDE, BundleReader

    course = tmp_path / "course"
    course.mkdir()
    long_guide = "# Sensors\n\n" + "".join(f"## Sensor part {i}\n\nThe sensor reading {i} of the sensor is logged.\n\n"
                                             for i in range(8))
    (course / "long.md").write_text(long_guide, encoding="utf-8")
    (course / "short.md").write_text("# Wiring\n\nConnect the red wire to 3V3, the black wire to GND and the yellow wire, which "
                                     "carries the data of the sensor, to pin 4 of the board.\n", encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder)
    sources = [m.source for m in BundleReader(tmp_path / "b.sqlite").search_guides("sensor")]
    assert sources.count("long.md") == 8 and "short.md" in sources
    assert sources.index("short.md") <= SEARCH_PER_GUIDE
