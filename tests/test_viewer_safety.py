"""The guide viewer and the answer's quotes on hostile guides (issue 23).

A guide's raw HTML named files of the PC (``<img src="/etc/...">``, ``file://``, ``/dev/zero``,
a FIFO) and Qt read them; a ``<link rel="stylesheet">`` made the viewer drop the rest of the
guide; links to files, scripts and places outside the course were all called web links. Offscreen
(pytest-qt); a FIFO stands for "a file Qt must never open": a watchdog thread notices a reader on
it (and lets it go, so a regression fails instead of hanging), and ``/dev/zero`` is opened in a
child process with a memory cap and a timeout.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QUrl  # noqa: E402
from PySide6.QtGui import QColor, QDesktopServices, QImage, QTextDocument  # noqa: E402

from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.passage_text import excerpt  # noqa: E402
from app.gui.render import answer_html, guide_html  # noqa: E402
from app.gui.viewer import GuideViewer  # noqa: E402
from app.records import Hit, Passage  # noqa: E402
from app.retrieval.links import FILE, GUIDE, MAIL, OUTSIDE, SCRIPT, WEB, classify_link, link_refusal  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

from .fakes import FakeChatModel, FakeEmbedder  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RED, BLUE = "#ff0000", "#0000ff"
SENSOR = "lessons/02-sensor/README.md"
BLINK = "lessons/01-blink/README.md"

BLINK_GUIDE = """# Lesson 1: Blink

Blink the onboard LED on GPIO 2.

## The code

Upload the blink sketch.
"""

HOSTILE = """# Lesson 2: Sensor

The sensor talks I<sup>2</sup>C to the board.

![Wiring](../../images/wiring.png)

## Local files

<img src="{red}" alt="logo">
<img src="file://{red}" alt="file url">
<img src="{fifo}" alt="fifo">
<img src="file://{fifo}">
<p style="background-image: url({red})">Background</p>
{extra}

## Style sheets

<link rel="stylesheet" href="http://example.invalid/style.css">
<link rel="stylesheet" href="{fifo}">

## After the style sheet

This section is still shown after the style sheet links.

## Links

See [Lesson 1](../01-blink/README.md#the-code) first, <a href="file:///etc/shadow">the shadow file</a>,
<a href="javascript:alert(1)">a script</a> and <a href="../../../../outside.md">a file above the course</a>.
"""


def _png(path: Path, colour: str) -> Path:
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    assert image.save(str(path))
    return path


class FifoWatch:
    """Notices a reader of a FIFO: every 20 ms it tries a non-blocking open for writing, which
    succeeds only while a reader has it open; then it closes it at once (the reader sees the end
    of the file) so a reader never hangs the test."""

    def __init__(self, fifo: Path) -> None:
        self.fifo, self.opened, self._stop = fifo, False, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: nobody reads it
                continue
            self.opened = True
            os.close(fd)

    def __enter__(self) -> FifoWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(2)


@pytest.fixture()
def hostile(tmp_path: Path):
    """A course whose second guide names a red PNG and a FIFO outside the course, with the
    bundle built from it: ``(reader, outside folder)``."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("FIFOs are a POSIX feature")
    outside = tmp_path / "outside"
    outside.mkdir()
    red = _png(outside / "red.png", RED)
    fifo = outside / "pipe"
    os.mkfifo(fifo)
    course = tmp_path / "course"
    for folder in ("lessons/01-blink", "lessons/02-sensor", "images"):
        (course / folder).mkdir(parents=True)
    (course / BLINK).write_text(BLINK_GUIDE, encoding="utf-8")
    (course / SENSOR).write_text(HOSTILE.format(red=red, fifo=fifo, extra=""), encoding="utf-8")
    _png(course / "images" / "wiring.png", BLUE)
    out = tmp_path / "course.sqlite"
    build_bundle(course, out, FakeEmbedder(), title="Hostile course")
    reader = BundleReader(out)
    yield reader, outside
    reader.close()


def _colours(viewer: GuideViewer) -> set[str]:
    image = viewer.viewport().grab().toImage()
    return {image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)}


def _show_whole(qtbot, viewer: GuideViewer) -> None:
    """Show the viewer tall enough for the whole guide, so every image is laid out and painted."""
    qtbot.addWidget(viewer)
    viewer.resize(700, 1600)
    viewer.show()
    qtbot.waitExposed(viewer)


# --- item 1: the viewer loads only the bundle's assets -----------------------------------------


def test_the_sanitised_guide_names_only_bundle_images_and_drops_link_and_style():
    text = textwrap.dedent("""\
        # Guide

        <img src="/usr/share/pixmaps/debian-logo.png"> <img src="file:///etc/passwd"> <img src="/dev/zero">
        <img src="../images/ok.png" width="99999" onerror="steal()"> <img src="data:image/png;base64,AAAA">

        <link rel="stylesheet" href="http://example.invalid/x.css">
        <style>p { background-image: url(/dev/zero) }</style><script>steal()</script>
        <table><tr><td colspan="100000" style="background-image:url(/dev/zero); text-align:right">c</td></tr></table>

        ![web](http://example.invalid/a.png) ![ok](../images/ok.png)

        After.
        """)
    html = guide_html("lessons/x.md", text, [], {"images/ok.png"})
    sources = [part.split('"', 1)[0] for part in html.split('src="')[1:]]
    assert sources and all(s in ("asset:images/ok.png", "missing:") for s in sources), sources
    assert sources.count("asset:images/ok.png") == 2 and sources.count("missing:") == 4
    for gone in ("<link", "<style", "<script", "steal", "onerror", "background-image", "/dev/zero", "passwd",
                 "debian-logo", "99999", "colspan"):
        assert gone not in html
    assert 'style="text-align:right"' in html
    assert "[Image not in the course: web]" in html and "After." in html


def test_load_resource_never_hands_a_path_to_qt(qtbot, hostile, tmp_path):
    """Even HTML that was not sanitised (set directly) makes the viewer read no file: any image
    that is not a bundle asset is a placeholder, a style sheet is empty, the FIFO is never opened."""
    bundle, outside = hostile
    viewer = GuideViewer(bundle)
    _show_whole(qtbot, viewer)
    red, fifo = outside / "red.png", outside / "pipe"
    image = QTextDocument.ResourceType.ImageResource.value
    style = QTextDocument.ResourceType.StyleSheetResource.value
    with FifoWatch(fifo) as watch:
        for url in (str(red), f"file://{red}", str(fifo), "red.png", "asset:../outside/red.png", "missing:"):
            answer = viewer.loadResource(image, QUrl(url))
            assert isinstance(answer, QImage) and not answer.isNull(), url
            assert answer.pixelColor(answer.width() // 2, answer.height() // 2).name() != RED
        assert viewer.loadResource(style, QUrl(str(fifo))) == ""
        viewer.setHtml(f'<p>before</p><img src="{red}"><img src="file://{red}"><img src="{fifo}">'
                       f'<p style="background-image: url({red})">after</p>')
        qtbot.wait(100)
        colours = _colours(viewer)
    assert not watch.opened, "the FIFO outside the bundle was opened"
    assert RED not in colours, "an image outside the bundle was read from disk"
    assert "after" in viewer.toPlainText()


def test_a_guide_naming_local_files_shows_placeholders_and_reads_none(qtbot, hostile, monkeypatch):
    bundle, outside = hostile
    viewer = GuideViewer(bundle)
    _show_whole(qtbot, viewer)
    asked: list[str] = []
    load = GuideViewer.loadResource

    def spy(self, kind, url):
        asked.append(QUrl(url).toString())
        return load(self, kind, url)

    monkeypatch.setattr(GuideViewer, "loadResource", spy)
    with FifoWatch(outside / "pipe") as watch:
        viewer.open_guide(SENSOR)
        qtbot.wait(100)
        colours = _colours(viewer)
    assert not watch.opened, "the FIFO named by the guide was opened"
    assert RED not in colours, "the PNG outside the course was shown"
    assert BLUE in colours, "the bundle's own image is shown"
    assert sorted(set(asked)) == ["asset:images/wiring.png", "missing:"], asked
    # The <link rel="stylesheet"> no longer swallows the rest of the guide.
    shown = viewer.toPlainText()
    assert "After the style sheet" in shown and "This section is still shown after the style sheet links." in shown
    assert "Links" in shown and "a file above the course" in shown


DEVICE_CHILD = """
import os, resource, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
from app.bundle.reader import BundleReader
from app.gui.viewer import GuideViewer
app = QApplication([])
viewer = GuideViewer(BundleReader(sys.argv[1]))
viewer.resize(700, 1600)
viewer.show()
app.processEvents()
# Any read of /dev/zero or /dev/urandom that Qt does grows past this and aborts.
limit = 1 << 30
resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
viewer.open_guide(sys.argv[2])
viewer.viewport().grab()
app.processEvents()
print("shown:", "This section is still shown" in viewer.toPlainText())
"""


def test_dev_zero_and_urandom_in_a_guide_neither_abort_nor_freeze_the_viewer(hostile, tmp_path):
    """``<img src="/dev/zero">`` aborted the app (std::bad_alloc past 4 GB) and ``/dev/urandom`` too:
    opened in a child process with its memory capped and a timeout, so a regression fails here."""
    if not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"):
        pytest.skip("needs /dev/zero and FIFOs")
    _, outside = hostile
    course = tmp_path / "devices"
    (course / "lessons").mkdir(parents=True)
    devices = "\n".join(f'<img src="{p}"> <img src="file://{p}">' for p in ("/dev/zero", "/dev/urandom"))
    (course / "lessons" / "devices.md").write_text(
        HOSTILE.format(red=outside / "red.png", fifo=outside / "pipe", extra=devices), encoding="utf-8")
    out = tmp_path / "devices.sqlite"
    build_bundle(course, out, FakeEmbedder(), title="Devices")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with FifoWatch(outside / "pipe") as watch:
        try:
            child = subprocess.run([sys.executable, "-c", DEVICE_CHILD, str(out), "lessons/devices.md"], cwd=ROOT,
                                   env=env, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail("the viewer froze on a guide naming /dev/zero, /dev/urandom and a FIFO")
    assert child.returncode == 0, child.stderr[-2000:]
    assert "shown: True" in child.stdout
    assert not watch.opened


# --- item 2: links and inline HTML in quotes -------------------------------------------------


def test_link_kinds_are_named_for_what_they_are():
    guide = "lessons/02-sensor/README.md"
    cases = {
        "file:///etc/shadow": (FILE, "a link to a file on this PC"),
        "C:\\Windows\\win.ini": (FILE, "a link to a file on this PC"),
        "javascript:alert(1)": (SCRIPT, "a script link"),
        " JavaScript:void(0)": (SCRIPT, "a script link"),
        "../../../outside.md": (OUTSIDE, "outside the course"),
        "https://example.org/x": (WEB, "a web link"),
        "mailto:teacher@example.org": (MAIL, "an e-mail address"),
    }
    for href, (kind, words) in cases.items():
        target = classify_link(guide, href)
        assert target.kind == kind, href
        message = link_refusal(target, href)
        assert words in message and "web link" not in message.replace("is a web link", "") and message.endswith(".")
    assert classify_link(guide, "../01-blink/README.md#the-code") == classify_link(BLINK, "#the-code")
    assert classify_link(guide, "../01-blink/README.md#the-code").kind == GUIDE
    assert classify_link(guide, "/lessons/01-blink/README.md").path == BLINK
    assert len(link_refusal(classify_link(guide, "javascript:" + "x" * 5000), "javascript:" + "x" * 5000)) < 200


def test_the_viewer_names_file_script_and_outside_links_and_hands_none_to_the_system(qtbot, hostile, monkeypatch):
    bundle, _ = hostile
    handed: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: handed.append(QUrl(url).toString()) or True)
    viewer = GuideViewer(bundle)
    qtbot.addWidget(viewer)
    viewer.open_guide(SENSOR)
    said: list[str] = []
    viewer.failed.connect(said.append)
    hrefs = _hrefs(viewer.document())
    assert {"file:///etc/shadow", "javascript:alert(1)", "../../../../outside.md"} <= set(hrefs)
    for href, words in (("file:///etc/shadow", "a link to a file on this PC"),
                        ("javascript:alert(1)", "a script link"),
                        ("../../../../outside.md", "outside the course folder"),
                        ("http://example.invalid/page", "a web link")):
        viewer.anchorClicked.emit(QUrl(href))
        assert words in said[-1], said
        assert viewer.guide == SENSOR  # nothing opened
    assert not handed
    viewer.anchorClicked.emit(QUrl("../01-blink/README.md#the-code"))
    assert (viewer.guide, viewer.anchor) == (BLINK, "the-code")


def _hrefs(document: QTextDocument) -> list[str]:
    hrefs = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor() and fmt.anchorHref():
                hrefs.append(fmt.anchorHref())
            it += 1
        block = block.next()
    return hrefs


@pytest.fixture()
def window(qtbot, hostile):
    bundle, _ = hostile
    win = MainWindow(bundle, lambda: Assistant(Retriever(bundle, FakeEmbedder()), FakeChatModel()))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.ready, timeout=5000)
    yield win
    win.shutdown()
    win.close()


def _passage(n: int, source: str, text: str) -> Passage:
    return Passage(n, Hit.make(n, f"{source}#links:0", source, "Lesson 2: Sensor › Links", "links", (0, len(text)), text, 1.0))


def test_a_guide_link_in_a_quote_opens_the_guide(qtbot, window, monkeypatch):
    handed: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: handed.append(QUrl(url).toString()) or True)
    quote = "See [Lesson 1](../01-blink/README.md#the-code) first."
    window.ask_panel.show_answer(f"From the guides:\n\n*Links*: {quote} [1]", [_passage(1, SENSOR, quote)], {1})
    hrefs = _hrefs(window.answer_view.document())
    guide_links = [h for h in hrefs if h.startswith("guide:")]
    assert guide_links == ["guide:lessons/01-blink/README.md#the-code"], hrefs
    window.answer_view.anchorClicked.emit(QUrl(guide_links[0]))
    assert (window.viewer.guide, window.viewer.anchor) == (BLINK, "the-code")
    # A link in a quote that leaves the course is named, not followed.
    outside = "Notes are [above the course](../../../notes.md) and [on the web](https://example.org)."
    window.ask_panel.show_answer(f"{outside} [1]", [_passage(1, SENSOR, outside)], {1})
    for href, words in (("../../../notes.md", "outside the course folder"), ("https://example.org", "a web link")):
        assert href in _hrefs(window.answer_view.document())
        window.answer_view.anchorClicked.emit(QUrl(href))
        assert words in window.status_text()
        assert window.viewer.guide == BLINK
    assert not handed


def test_a_quote_renders_inline_html_as_the_viewer_does(qtbot, window):
    quote = "The sensor talks I<sup>2</sup>C to the board; press <kbd>Ctrl</kbd>."
    html = answer_html(f"{quote} [1]", {1})
    assert "I<sup>2</sup>C" in html and "<kbd>Ctrl</kbd>" in html
    window.ask_panel.show_answer(f"{quote} [1]", [_passage(1, SENSOR, quote)], {1})
    shown = window.answer_view.toPlainText()
    assert "I2C" in shown and "<sup>" not in shown and "<kbd>" not in shown
    assert "<sup>" in window.answer_view.toHtml() or "vertical-align:super" in window.answer_view.toHtml()
    # The viewer shows the same words, and the Sources list's excerpt the plain text.
    window.viewer.open_guide(SENSOR)
    assert "I2C" in window.viewer.toPlainText()
    assert excerpt(quote) == "The sensor talks I2C to the board; press Ctrl."
    # Anything else stays text: no attributes, no other tags, no script.
    hostile_text = 'A <sup onmouseover="x">b</sup> <script>alert(1)</script> <img src="/dev/zero"> <stdio> [1]'
    rendered = answer_html(hostile_text, {1})
    assert "<script" not in rendered and "<img" not in rendered and "onmouseover=\"x\"><" not in rendered
    assert "&lt;script&gt;" in rendered and "&lt;stdio&gt;" in rendered and "&lt;img" in rendered
