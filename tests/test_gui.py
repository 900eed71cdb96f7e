"""The window end to end on fakes: ask with Enter, evidence then checked sentences, cite, open the guide, stop.

Runs offscreen (pytest-qt); the bundle is built from a tiny course with the fake
embedder, and the chat model is the fake from ``tests/fakes.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import Qt, QUrl  # noqa: E402

from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.gui import NO_DISPLAY_MESSAGE, has_display, run_gui  # noqa: E402
from app.gui.main_window import EVIDENCE_WORDS, STATE_WORDS, STOPPED_WORDS, MainWindow  # noqa: E402
from app.gui.render import answer_html, guide_html, resolve_asset, resolve_link  # noqa: E402
from app.gui.words import evidence_status, finished_status  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

from .fakes import FakeChatModel, FakeEmbedder  # noqa: E402

OLED = """# Lesson 4: OLED display

The OLED module shows text over I2C and needs only four wires.

## Wiring

Connect SDA to GPIO 21 and SCL to GPIO 22.

![OLED wiring](../images/oled.svg)

| OLED pin | ESP32 pin |
| --- | --- |
| SDA | GPIO 21 |

## Troubleshooting

### Blank display

If the OLED display stays blank, check the I2C address: most modules use 0x3C, some use 0x3D.
Run the I2C scanner sketch to find the address. See also the [blink lesson](blink.md#the-code).
"""

LED = """# Lesson 1: Blink an LED

Blink the onboard LED on GPIO 2 with `digitalWrite`.

## The code

Upload the blink sketch and watch the LED flash every half second.
"""

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">'
       '<rect width="200" height="100" fill="#3366cc"/></svg>')
QUESTION = "My OLED display stays blank, what should I check?"
REPLY = "The display needs the I2C address 0x3C [1]."  # passes every check (adds "needs" to the quote)


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch) -> Path:
    """Settings and the window layout go to a temporary folder, never the user's."""
    folder = tmp_path / "config"
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture()
def gui_bundle(tmp_path: Path):
    course = tmp_path / "course"
    (course / "lessons").mkdir(parents=True)
    (course / "images").mkdir()
    (course / "lessons" / "oled.md").write_text(OLED, encoding="utf-8")
    (course / "lessons" / "blink.md").write_text(LED, encoding="utf-8")
    (course / "images" / "oled.svg").write_text(SVG, encoding="utf-8")
    out = tmp_path / "course.sqlite"
    build_bundle(course, out, FakeEmbedder(), title="GUI test course")
    reader = BundleReader(out)
    yield reader
    reader.close()


@pytest.fixture()
def windows(qtbot):
    """Windows opened by a test; kept alive until teardown, then shut down (pytest-qt keeps
    only weak references, and a window dropped with its thread still running aborts Qt)."""
    opened: list[MainWindow] = []
    yield opened
    for window in opened:
        window.shutdown()
        window.close()


def open_window(qtbot, windows, bundle, llm, embedder=True) -> MainWindow:
    window = MainWindow(bundle, lambda: Assistant(Retriever(bundle, FakeEmbedder() if embedder else None), llm))
    windows.append(window)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    return window


def ask_with_enter(qtbot, window: MainWindow, question: str) -> None:
    window.question_box.setFocus()
    qtbot.keyClicks(window.question_box, question)
    qtbot.keyClick(window.question_box, Qt.Key_Return)


def test_ask_stream_cite_and_open_guide(qtbot, windows, gui_bundle):
    events: list[tuple[str, object]] = []  # what the worker sent, in order
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.worker.evidence_ready.connect(lambda evidence: events.append(("evidence", evidence)))
    window.worker.sentence.connect(lambda text: events.append(("sentence", text)))
    on_screen: list[tuple[str, str, str]] = []  # the view, state line and status when the evidence was shown
    window.evidence_shown.connect(lambda _: on_screen.append((window.answer_view.toPlainText(),
                                                              window.state_label.text(), window.status_text())))
    assert window.model_label.text() == "model: fake-model.gguf"
    built = gui_bundle.meta["built_at"][:10]
    assert window.version_label.text() == f"corpus {gui_bundle.corpus_version[:12]} · built {built}"
    assert window.course_label.text() == "GUI test course"
    assert window.degraded_label.text() == "" and window.notice.isHidden()

    # Shift+Enter is a new line, not a send.
    qtbot.keyClick(window.question_box, Qt.Key_Return, Qt.ShiftModifier)
    assert window.question_box.toPlainText() == "\n" and not window.busy
    window.question_box.clear()

    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        ask_with_enter(qtbot, window, QUESTION)
        assert window.busy and not window.ask_button.isEnabled()
    answer = window.answer
    assert answer.state == "answered", answer
    # First the guides' own words (before the model ran), then the model's one checked sentence.
    assert [kind for kind, _ in events] == ["evidence", "sentence"]
    evidence = events[0][1]
    assert evidence.state == "extractive" and evidence.text.startswith("From the guides:")
    assert evidence.citations and evidence.passages[0].hit.anchor == "blank-display"
    assert events[1][1] == REPLY
    assert answer.text == f"{REPLY}\n\n{evidence.text}"  # the checked sentence above the quotes
    shown, state, status = on_screen[0]
    assert shown.startswith("From the guides:") and "0x3C" in shown and REPLY not in shown
    assert state == EVIDENCE_WORDS
    assert status == evidence_status(answer.timings_ms["evidence"] / 1000)  # "Passages in 0.03 s."
    assert window.status_text() == finished_status("answered", answer.timings_ms["total"] / 1000,
                                                   evidence=answer.timings_ms["evidence"] / 1000)
    assert window.answer_view.toPlainText().startswith(REPLY)
    assert "From the guides:" in window.answer_view.toPlainText()
    assert '<a href="cite:1">' in answer_html(answer.text, {1})
    assert window.answer_view.toHtml().count("cite:1") >= 1
    assert window.state_label.text() == STATE_WORDS["answered"]
    assert window.ask_button.isEnabled() and not window.stop_button.isEnabled()

    cited = answer.citations[0]
    assert cited.hit.source == "lessons/oled.md"
    first = window.sources_list.item(0)
    assert first.text().startswith("1. Lesson 4: OLED display › ")
    assert "(cited)" in first.text()

    # Click the citation link in the answer (same slot as a mouse click or Enter on the link).
    window.answer_view.anchorClicked.emit(QUrl("cite:1"))
    viewer = window.viewer
    assert viewer.guide == "lessons/oled.md"
    assert viewer.anchor == cited.hit.anchor == "blank-display"
    assert "Lesson 4: OLED display" in viewer.toPlainText()
    assert "0x3C" in viewer.marked and "blank" in viewer.marked
    assert window.guide_title.text().startswith("Guide: Lesson 4: OLED display")
    # The cited heading's anchor exists in the rendered document and is where we scrolled.
    assert viewer._anchor_position("blank-display") > 0
    assert viewer.extraSelections()[0].cursor.selectionStart() >= viewer._anchor_position("blank-display")

    # Enter on a source in the list opens it as well.
    window.viewer.guide = ""
    window.sources_list.setCurrentRow(0)
    window.sources_list.setFocus()
    qtbot.keyClick(window.sources_list, Qt.Key_Return)
    assert viewer.guide == "lessons/oled.md"

    # A link to another guide inside the viewer opens that guide at its anchor.
    viewer.anchorClicked.emit(QUrl("blink.md#the-code"))
    assert viewer.guide == "lessons/blink.md" and viewer.anchor == "the-code"
    assert "Lesson 1: Blink an LED" in viewer.toPlainText()


def test_stop_during_streaming_reenables_the_ui(qtbot, windows, gui_bundle):
    pieces: list[int] = []  # pieces the fake model produced
    release = threading.Event()  # cleared: the fake model waits before its next piece
    release.set()

    def slow() -> None:
        pieces.append(1)
        release.wait(5)
        time.sleep(0.05)

    reply = " ".join([REPLY] + ["Run the scanner sketch to find the I2C address of a blank display [1]."] * 40)
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=reply, delay=slow))
    sentences: list[str] = []
    window.worker.sentence.connect(sentences.append)
    evidence: list[object] = []
    window.evidence_shown.connect(evidence.append)
    ask_with_enter(qtbot, window, QUESTION)
    # The model is past its first checked sentence, and the window shows it (queued signals).
    # (``sentences`` is appended to in the worker thread, possibly just after the window drew it.)
    qtbot.waitUntil(lambda: window.answer_view.toPlainText().startswith(REPLY) and bool(sentences), timeout=5000)
    assert sentences and evidence and window.stop_button.isEnabled()
    assert window.state_label.text() == EVIDENCE_WORDS
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        qtbot.keyClick(window.question_box, Qt.Key_Escape)
    assert window.stopped
    assert len(pieces) < len(reply.split())  # it did not run to the end
    # What was on screen stays: the checked sentences so far above the guides' words.
    assert window.answer.state == "answered" and window.answer.text.startswith(REPLY)
    assert "From the guides:" in window.answer_view.toPlainText()
    assert window.state_label.text().startswith(STOPPED_WORDS)
    assert window.status_text().startswith("Passages in ") and "stopped after" in window.status_text()
    assert window.ask_button.isEnabled() and not window.stop_button.isEnabled()
    assert not window.busy

    # Stop while the model is on its first piece: the guides' words stand, and nothing else.
    sentences.clear()
    evidence.clear()
    pieces.clear()
    release.clear()
    ask_with_enter(qtbot, window, QUESTION)
    qtbot.waitUntil(lambda: len(evidence) == 1 and len(pieces) == 1, timeout=5000)
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.stop()
        release.set()
    assert sentences == [] and len(pieces) == 1
    assert window.answer.state == "extractive" and window.answer.text == evidence[0].text
    assert window.answer_view.toPlainText().startswith("From the guides:")
    assert window.state_label.text() == f"{STOPPED_WORDS} {STATE_WORDS['extractive']}"

    # The window can ask again after a stop, and closing while answering ends the thread.
    evidence.clear()
    ask_with_enter(qtbot, window, QUESTION)
    qtbot.waitUntil(lambda: window.busy and len(evidence) == 1, timeout=2000)
    window.close()
    assert not window.thread_.isRunning()


def test_the_window_never_shows_an_unchecked_word(qtbot, windows, gui_bundle):
    """A wrong draft (an address and a pin the guides never give) streamed between good words:
    no state of the answer view ever holds it, and the guides' words come first."""
    wrong = "The OLED address is 0x99 [1]."
    wrong_pin = "If the OLED display stays blank, check GPIO 4 [1]."
    good = "Run the scanner sketch to find the I2C address of a blank display [1]."
    llm = FakeChatModel(reply=f"{wrong} {good} {wrong_pin}", delay=lambda: time.sleep(0.01))
    window = open_window(qtbot, windows, gui_bundle, llm)
    views: list[str] = []  # every text the answer view held, in order
    window.answer_view.textChanged.connect(lambda: views.append(window.answer_view.toPlainText()))
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        ask_with_enter(qtbot, window, QUESTION)
    answer = window.answer
    assert views, "the answer view never changed"
    for text in views:
        assert "0x99" not in text and "GPIO 4" not in text, text
    # The model did say both wrong sentences, and the fact check dropped them.
    assert llm.calls and answer.checks["sentences"] == 3 and answer.checks.get("facts") == 2, answer.checks
    assert answer.state == "answered" and answer.text.startswith(good)
    for shown in (window.answer_text(), window.answer_view.accessibleDescription(), window.history[-1]["content"]):
        assert "0x99" not in shown and "GPIO 4" not in shown
    # The guides' words were on screen before the checked sentence, and stayed below it.
    evidence_at = next(i for i, text in enumerate(views) if "From the guides" in text)
    sentence_at = next(i for i, text in enumerate(views) if good in text)
    assert evidence_at < sentence_at
    assert good not in views[evidence_at] and "0x3C" in views[evidence_at]
    assert all("From the guides" in text for text in views[evidence_at:])
    assert views[-1].startswith(good) and "From the guides" in views[-1]


def test_errors_show_as_a_sentence(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.question_box.setPlainText("x" * 2500)
    with qtbot.waitSignal(window.error_shown, timeout=5000):
        window.ask()
    assert "2,500 characters" in window.state_label.text()
    assert window.ask_button.isEnabled()


def test_search_only_and_keyword_only_are_named(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, None, embedder=False)
    assert "Keyword search only" in window.degraded_label.text()
    assert "Search only" in window.degraded_label.text()
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("OLED display blank I2C address")
        window.ask()
    assert window.answer.state == "extractive"  # the guide's OLED section answers it by quoting
    assert window.state_label.text().startswith("Search only")
    assert "cite:" in window.answer_view.toHtml()


def test_guide_html_anchors_match_the_bundle(gui_bundle):
    headings = gui_bundle.headings("lessons/oled.md")
    html = guide_html("lessons/oled.md", gui_bundle.source_text("lessons/oled.md"), headings)
    for h in headings:
        assert f'<a name="{h.anchor}"></a>' in html
    assert 'src="asset:images/oled.svg"' in html
    assert "<table>" in html
    assert resolve_asset("lessons/oled.md", "../images/oled.svg") == "images/oled.svg"
    assert resolve_asset("lessons/oled.md", "https://example.com/x.png") is None
    assert resolve_link("lessons/oled.md", "../reference/pins.md#gpio") == ("reference/pins.md", "gpio")
    assert resolve_link("lessons/oled.md", "#wiring") == ("lessons/oled.md", "wiring")


def test_an_image_the_bundle_lacks_shows_its_alt_text(gui_bundle):
    assert "images/oled.svg" in gui_bundle.asset_paths
    text = "# Guide\n\n![OLED pinout](../images/oled.svg)\n\n![Soil probe diagram](../images/probe.png)\n"
    html = guide_html("lessons/x.md", text, [], gui_bundle.asset_paths)
    assert 'src="asset:images/oled.svg"' in html
    assert "[Image not in the course: Soil probe diagram]" in html and "probe.png" not in html
    assert 'src="asset:images/probe.png"' in guide_html("lessons/x.md", text, [])  # without the list: as before


def test_viewer_loads_svg_from_the_bundle(qtbot, windows, gui_bundle):
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    image = window.viewer._image("images/oled.svg")
    assert image is not None and image.width() == 200 and image.height() == 100


def test_no_display_prints_a_sentence(monkeypatch, capsys):
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert not has_display()
    assert run_gui(None, None) == 1
    err = capsys.readouterr().err
    assert err.strip() == NO_DISPLAY_MESSAGE and "lantern ask --bundle" in err


def test_a_bundle_that_cannot_be_opened_offers_to_choose_another(monkeypatch, tmp_path, qapp):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    import app.logfile

    monkeypatch.setattr(app.logfile, "start_log_file", lambda: None)  # no log file for the later tests
    monkeypatch.setattr(os.sys, "excepthook", os.sys.excepthook)  # run_gui installs its own: restored after
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 50)
    other = tmp_path / "other.sqlite"
    other.write_bytes(b"also not one" * 50)
    shown, offered = [], []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: shown.append(text))
    choices = iter([str(other), ""])  # the student picks another file, then gives up

    def choose(*args):
        offered.append(args[1])
        return next(choices), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    assert run_gui(junk, None) == 1
    assert len(shown) == 2 and "junk.sqlite is not a readable course bundle" in shown[0] and "other.sqlite" in shown[1]
    assert offered == ["Open another course bundle"] * 2


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="Qt's xcb plugin exists on Linux only")
def test_a_missing_xcb_library_is_named_before_qt_aborts(monkeypatch, capsys):
    import ctypes

    from app.gui import missing_window_library

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":99")
    # Both cases are made here, whatever this machine has installed: first every library loads
    # (the plugin is never really loaded, so a fresh machine without Qt's X11 libraries passes too) ...
    loaded = []
    monkeypatch.setattr(ctypes, "CDLL", lambda path, mode=0: loaded.append(path))
    assert missing_window_library() is None
    assert loaded and loaded[0].endswith("platforms/libqxcb.so")
    # ... then one is missing, as on a minimal install.
    opened = []

    def dlopen_fails(path, mode=0):
        opened.append(path)
        raise OSError("libxcb-icccm.so.4: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(ctypes, "CDLL", dlopen_fails)
    assert run_gui(None, None) == 1
    err = capsys.readouterr().err.strip()
    assert opened and opened[0].endswith("platforms/libqxcb.so")
    assert err == ("Lantern's window needs the system library libxcb-icccm.so.4, which is not installed; install it "
                   "(on Debian or Ubuntu: sudo apt install libxcb-icccm4) or ask from the terminal instead: "
                   'lantern ask --bundle BUNDLE "your question"')
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # another platform plugin: not checked
    assert missing_window_library() is None
