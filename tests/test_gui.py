"""The window end to end on fakes: ask with Enter, stream, cite, open the guide, stop.

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
from app.gui.main_window import STATE_WORDS, STOPPED_WORDS, MainWindow  # noqa: E402
from app.gui.render import answer_html, guide_html, resolve_asset, resolve_link  # noqa: E402
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
REPLY = "The display needs the I2C address 0x3C [1]."


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
    tokens: list[str] = []
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=REPLY))
    window.worker.token.connect(tokens.append)
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
    assert "".join(tokens) == REPLY  # streamed piece by piece before the final render
    assert len(tokens) > 3
    assert "0x3C" in window.answer_view.toPlainText()
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
    assert "0x3C" in viewer.highlighted and "blank" in viewer.highlighted
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
    started = threading.Event()

    def slow() -> None:
        started.set()
        time.sleep(0.05)

    reply = " ".join(["The display needs the I2C address 0x3C [1]."] * 40)
    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=reply, delay=slow))
    tokens: list[str] = []
    window.worker.token.connect(tokens.append)
    ask_with_enter(qtbot, window, QUESTION)
    qtbot.waitUntil(lambda: len(tokens) >= 2, timeout=5000)
    assert window.stop_button.isEnabled()
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        qtbot.keyClick(window.question_box, Qt.Key_Escape)
    assert window.stopped
    assert len(tokens) < 40 * 9  # it did not run to the end
    assert window.state_label.text().startswith(STOPPED_WORDS)
    assert window.ask_button.isEnabled() and not window.stop_button.isEnabled()
    assert not window.busy

    # The window can ask again after a stop, and closing while answering ends the thread.
    ask_with_enter(qtbot, window, QUESTION)
    qtbot.waitUntil(lambda: window.busy and len(tokens) > 0, timeout=2000)
    window.close()
    assert not window.thread_.isRunning()


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
    assert window.answer.state in ("extractive", "not-covered")
    if window.answer.state == "extractive":
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
