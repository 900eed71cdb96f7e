"""The window around its worker and its bundle file (issue 23): a worker stuck in a search that
never returns neither keeps Stop from giving the window back nor keeps a closed app running, and
a course installed over the open one is noticed and loaded between questions."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

import app.gui.answer_flow as answer_flow  # noqa: E402
from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.builder import build_bundle  # noqa: E402
from app.gui.courses import CourseSwitcher  # noqa: E402
from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.words import SET_ASIDE_WORDS, UPDATE_RESTART_WORDS  # noqa: E402
from app.gui.workers import stuck_workers  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

from .fakes import FakeChatModel, FakeEmbedder  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SERVO = "# Lesson 5: Servo\n\nThe servo's signal wire goes to GPIO 13; power it from 5V.\n"
FAN = "# Lesson 6: Fan\n\nThe fan's transistor base goes to GPIO 27 through a 1k resistor.\n"


class StuckRetriever(Retriever):
    """A search that never returns and never looks at Stop (like the loop over an absolute guide
    path of issue 23), for the first question asked of any of them; ``release`` ends it."""

    def __init__(self, bundle, searches: list, release: threading.Event) -> None:
        super().__init__(bundle, FakeEmbedder())
        self.searches, self.release = searches, release

    def search(self, *args, **kwargs):
        self.searches.append(threading.get_ident())
        if len(self.searches) == 1:
            while not self.release.is_set():
                time.sleep(0.01)
        return super().search(*args, **kwargs)


@pytest.fixture()
def release():
    """Set at teardown: the stuck search ends, so its thread does not outlive the test."""
    event = threading.Event()
    yield event
    event.set()
    deadline = time.monotonic() + 10
    while stuck_workers() and time.monotonic() < deadline:
        time.sleep(0.05)


def make_switcher(factory_for) -> CourseSwitcher:
    return CourseSwitcher(factory_for, entries=lambda: [])  # the user's course library is never read


def close(switcher: CourseSwitcher) -> None:
    if switcher.window is not None:
        switcher.window.close()
        switcher.window.close_bundles()


def test_stop_on_a_search_that_never_returns_gives_the_window_back(qtbot, course, tmp_path, monkeypatch, release):
    monkeypatch.setattr(answer_flow, "STOP_GRACE_MS", 300)
    bundle_path = build_bundle(course, tmp_path / "lab.sqlite", FakeEmbedder(), title="Lab").bundle
    searches: list[int] = []
    readers = []

    def factory_for(reader):
        readers.append(reader)
        return lambda: Assistant(StuckRetriever(reader, searches, release), FakeChatModel())

    switcher = make_switcher(factory_for)
    try:
        window = switcher.open(bundle_path)
        qtbot.waitUntil(lambda: window.ready, timeout=5000)
        window.question_box.setPlainText("How do I fix a blank OLED display?")
        window.ask()
        qtbot.waitUntil(lambda: len(searches) == 1, timeout=5000)
        assert window.state_label.text() == "Searching the guides…" and not window.ask_button.isEnabled()
        window.stop()
        assert window.state_label.text() == "Stopping…" and not window.stop_button.isEnabled()
        # Within a bounded time the window is usable again, though the search still spins.
        qtbot.waitUntil(lambda: window.ask_button.isEnabled(), timeout=5000)
        assert not window.busy and window.state_label.text() == SET_ASIDE_WORDS
        assert stuck_workers() == 1 and not release.is_set()
        # Another worker was started, over a reader of its own (the stuck one keeps its reader).
        assert len(readers) == 2 and window.worker_bundle is readers[1] and readers[1] is not readers[0]
        qtbot.waitUntil(lambda: window.ready, timeout=5000)
        with qtbot.waitSignal(window.answer_shown, timeout=5000):
            window.question_box.setPlainText("How do I fix a blank OLED display?")
            window.ask()
        assert window.answer.citations and len(searches) == 2 and searches[1] != searches[0]
    finally:
        close(switcher)


QUIT_SCRIPT = r"""
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

import app.gui.workers as workers
from app.gui import run_gui
from app.gui.main_window import MainWindow


class SpinningAssistant:
    model_name, degraded = "spinning", ()

    def answer(self, question, history, **kwargs):
        print("searching", flush=True)
        while True:  # a search that never returns and never looks at Stop
            pass


workers.load_assistant = lambda bundle, model_path, report: SpinningAssistant()
app = QApplication(sys.argv[:1])


def step():
    window = next((w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()), None)
    if window is None or not window.ready:
        QTimer.singleShot(50, step)
        return
    window.question_box.setPlainText("How do I wire the display?")
    window.ask()
    QTimer.singleShot(300, window.close)  # what Lantern > Quit does


QTimer.singleShot(0, step)
sys.exit(run_gui(Path(sys.argv[1]), None))
"""


def test_quit_ends_the_process_while_a_search_never_returns(course, tmp_path):
    bundle_path = build_bundle(course, tmp_path / "lab.sqlite", FakeEmbedder(), title="Lab").bundle
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LANTERN_CONFIG_DIR=str(tmp_path / "config"),
               LANTERN_LOG_DIR=str(tmp_path / "logs"), PYTHONPATH=str(ROOT))
    # Before issue 23 the process went on for over a minute (then Qt aborted deleting the running
    # thread); the bound here is the subprocess's timeout, not a fine timing.
    done = subprocess.run([sys.executable, "-c", QUIT_SCRIPT, str(bundle_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=45)
    assert "searching" in done.stdout, done.stderr
    assert done.returncode == 0, done.stderr
    log_text = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "logs").glob("*.log"))
    assert "did not stop" in log_text  # the log was flushed before the process ended


def test_a_course_installed_over_the_open_one_is_loaded_between_questions(qtbot, course, tmp_path):
    installed = tmp_path / "courses" / "lab.sqlite"
    first_build = build_bundle(course, installed, FakeEmbedder(), title="Lab", course_id="lab")

    def install(guide: str, text: str) -> str:
        """Build the course with ``guide`` added and rename it over the installed file, as
        ``lantern install`` does; returns the new corpus version."""
        (course / "lessons" / guide).write_text(text, encoding="utf-8")
        staged = tmp_path / f"staged-{guide}.sqlite"
        result = build_bundle(course, staged, FakeEmbedder(), title="Lab", course_id="lab")
        os.replace(staged, installed)
        return result.corpus_version

    switcher = make_switcher(lambda reader: (lambda: Assistant(Retriever(reader, FakeEmbedder()), FakeChatModel())))
    try:
        first = switcher.open(installed)
        qtbot.waitUntil(lambda: first.ready, timeout=5000)
        assert first.bundle.corpus_version == first_build.corpus_version
        first.open_location("lessons/blink.md", "the-code")
        first.question_box.setPlainText("How do I wire the ser")  # being typed when the update comes

        # 1. Installed while the student reads: the file watch notices it, the course is reloaded.
        second_version = install("servo.md", SERVO)
        qtbot.waitUntil(lambda: switcher.window is not first, timeout=10_000)
        second = switcher.window
        assert second.bundle.corpus_version == second_version != first_build.corpus_version
        assert second.version_label.text().startswith(f"corpus {second_version[:12]}")
        assert "updated while Lantern was open" in second.status_text()
        assert "updated while Lantern was open" in second.state_label.text()
        assert second.contents.item_for("lessons/servo.md", "lesson-5-servo") is not None  # the new guide listed
        assert (second.viewer.guide, second.viewer.anchor) == ("lessons/blink.md", "the-code")
        assert second.question_box.toPlainText() == "How do I wire the ser"
        assert second.course_menu is not None and any(a.isChecked() for a in second.course_menu.actions())
        qtbot.waitUntil(lambda: second.ready, timeout=5000)

        # 2. Installed when the file watch does not report it (e.g. a network folder): noticed
        #    as the next question is asked, which is answered from the new version.
        second.update_watch.watcher.blockSignals(True)
        third_version = install("fan.md", FAN)
        qtbot.wait(SETTLE_WAIT_MS)
        assert switcher.window is second
        second.question_box.setPlainText("Which GPIO does the fan's transistor base go to?")
        second.ask()
        third = switcher.window
        assert third is not second and third.bundle.corpus_version == third_version
        qtbot.waitUntil(lambda: third.answer is not None, timeout=5000)
        assert any(p.hit.source == "lessons/fan.md" for p in third.answer.passages)
        assert "updated while Lantern was open" in third.status_text()
    finally:
        close(switcher)


SETTLE_WAIT_MS = 800  # twice the watch's settling delay


def test_a_window_without_a_course_switcher_says_to_reopen_lantern(qtbot, course, tmp_path):
    from app.bundle.reader import BundleReader

    path = build_bundle(course, tmp_path / "lab.sqlite", FakeEmbedder(), title="Lab").bundle
    bundle = BundleReader(path)
    window = MainWindow(bundle, lambda: Assistant(Retriever(bundle, FakeEmbedder()), FakeChatModel()))
    qtbot.addWidget(window)
    try:
        (course / "lessons" / "servo.md").write_text(SERVO, encoding="utf-8")
        build_bundle(course, tmp_path / "new.sqlite", FakeEmbedder(), title="Lab")
        os.replace(tmp_path / "new.sqlite", path)
        assert window.update_watch.check()
        assert window.state_label.text() == UPDATE_RESTART_WORDS
    finally:
        window.shutdown()
        bundle.close()
