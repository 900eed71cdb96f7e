"""The Course menu (issue 12): the library's courses listed, switching course without restarting."""

from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import apsw  # noqa: E402
import pytest  # noqa: E402
import shiboken6  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.builder import build_bundle  # noqa: E402
from app.config import Settings  # noqa: E402
from app.gui.courses import CourseSwitcher  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

from .fakes import FakeChatModel, FakeEmbedder  # noqa: E402


@pytest.fixture()
def two_courses(course, tmp_path, monkeypatch):
    """Courses "lab-a" and "lab-b" in the machine-wide folder, a damaged file in the user's folder;
    settings in a temporary folder."""
    import app.bundle.library as lib

    machine, user = tmp_path / "machine", tmp_path / "user"
    user.mkdir()
    monkeypatch.setattr(lib, "app_course_folders", lambda: [])
    monkeypatch.setattr(lib, "user_courses_dir", lambda: user)
    monkeypatch.setenv("LANTERN_COURSES_DIR", str(machine))
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(tmp_path / "config"))
    a = build_bundle(course, machine / "lab-a.sqlite", FakeEmbedder(), title="Lab A", course_id="lab-a").bundle
    b = build_bundle(course, machine / "lab-b.sqlite", FakeEmbedder(), title="Lab B", course_id="lab-b").bundle
    (user / "broken.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    return a, b, user / "broken.sqlite"


@pytest.fixture()
def switcher(qtbot):
    made = CourseSwitcher(lambda bundle: (lambda: Assistant(Retriever(bundle, FakeEmbedder()), FakeChatModel())))
    yield made
    if made.window is not None:
        made.window.close()
        made.window.close_bundles()


def menu_actions(window) -> dict[str, object]:
    """The menu's course entries (not the separator and "Add or update a course…" below them)."""
    return {a.text(): a for a in window.course_menu.actions()
            if not a.isSeparator() and a is not add_action(window)}


def add_action(window):
    return next(a for a in window.course_menu.actions() if a.text() == "&Add or update a course…")


def test_the_course_menu_lists_the_library_and_switches_without_restarting(qtbot, switcher, two_courses):
    a, b, broken = two_courses
    first = switcher.open(a)
    qtbot.waitUntil(lambda: first.ready, timeout=5000)
    menu_names = [act.text() for act in first.menuBar().actions()]
    assert menu_names[:2] == ["&Lantern", "C&ourse"]
    actions = menu_actions(first)
    labels = {text.split(" · ")[0]: act for text, act in actions.items()}
    assert set(labels) == {"Lab A", "Lab B", "broken (damaged)"}
    damaged = next(act for text, act in actions.items() if "(damaged)" in text)
    assert not damaged.isEnabled() and "broken.sqlite" in damaged.statusTip()
    assert labels["Lab A"].isChecked() and not labels["Lab B"].isChecked()
    assert "2 guides" in next(t for t in actions if t.startswith("Lab B"))

    stopped = []
    first.thread_.finished.connect(lambda: stopped.append(True), Qt.DirectConnection)
    labels["Lab B"].trigger()
    assert stopped  # the old course's worker thread ended before the switch returned
    qtbot.waitUntil(lambda: switcher.window is not first and switcher.window.ready, timeout=5000)
    second = switcher.window
    assert second.bundle.title == "Lab B" and second.windowTitle() == "Lantern — Lab B"
    assert second.isVisible()
    qtbot.waitUntil(lambda: not shiboken6.isValid(first), timeout=5000)  # the old window is closed and gone
    assert Settings.load().bundle == str(b)  # reopened next time
    assert {t.split(" · ")[0]: a.isChecked() for t, a in menu_actions(second).items()}["Lab B"]


def test_the_window_and_its_worker_read_the_course_through_readers_of_their_own(qtbot, two_courses):
    """Issue 13: the GUI thread (viewer, contents, search) never shares the worker's reader."""
    a, b, _ = two_courses
    built = {}

    def factory_for(bundle):
        def factory():
            built["bundle"], built["thread"] = bundle, threading.get_ident()
            return Assistant(Retriever(bundle, FakeEmbedder()), FakeChatModel())
        return factory

    switcher = CourseSwitcher(factory_for)
    window = switcher.open(a)
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    gui, worker = window.bundle, window.worker.assistant.retriever.bundle
    assert worker is built["bundle"] is window.worker_bundle
    assert worker is not gui and worker._conn is not gui._conn  # two SQLite connections
    assert worker.path == gui.path and worker.corpus_version == gui.corpus_version and worker.meta == gui.meta
    assert built["thread"] != threading.get_ident()  # the worker's assistant was built in its own thread
    assert window.viewer.bundle is gui and window.contents.bundle is gui and window.search.bundle is gui
    assert window.ask_panel.bundle is gui
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText("OLED display blank I2C address")
        window.ask()
    cited = window.answer.passages[0].hit
    window.open_location(cited.source, cited.anchor, cited.text)  # the worker's hit opens in the GUI's reader
    assert window.viewer.guide == cited.source and window.viewer.marked

    switcher.choose(b)  # the old window's two readers are closed with it
    with pytest.raises(apsw.ConnectionClosedError):
        gui.chunk_count()
    with pytest.raises(apsw.ConnectionClosedError):
        worker.chunk_count()
    new = switcher.window
    assert new.worker_bundle is not None and new.worker_bundle is not new.bundle
    qtbot.waitUntil(lambda: new.ready, timeout=5000)
    new.close()
    new.close_bundles()


def test_the_course_menu_names_the_language_when_it_is_known(qtbot, switcher, two_courses, course):
    a, b, _ = two_courses
    build_bundle(course, a.parent / "lab-c.sqlite", FakeEmbedder(), title="Lab C", course_id="lab-c", language="de")
    build_bundle(course, a.parent / "lab-d.sqlite", FakeEmbedder(), title="Lab D", course_id="lab-d", language="")
    window = switcher.open(a)
    labels = {text.split(" · ")[0]: text for text in menu_actions(window)}
    assert labels["Lab A"].endswith(" · 2 guides · English")  # guessed from the guides at build time
    assert labels["Lab C"].endswith(" · 2 guides · German")
    assert labels["Lab D"].endswith(" · 2 guides")  # not recorded: nothing said


def test_a_course_that_no_longer_opens_is_reported_and_the_window_stays(qtbot, switcher, two_courses):
    a, b, _ = two_courses
    window = switcher.open(a)
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    b.write_bytes(b"gone")  # replaced after the menu was made
    next(act for text, act in menu_actions(window).items() if text.startswith("Lab B")).trigger()
    assert switcher.window is window and window.isVisible()
    assert "not a readable course bundle" in window.state_label.text()
    assert "(damaged)" in next(t for t in menu_actions(window) if "lab-b" in t or "Lab B" in t)
    assert Settings.load().bundle == ""


def test_add_or_update_a_course_installs_a_checked_bundle_and_lists_it(qtbot, switcher, two_courses, course,
                                                                       tmp_path, monkeypatch):
    import app.embedding

    monkeypatch.setattr(app.embedding, "manifest_embedding",
                        lambda: (FakeEmbedder.model_id, FakeEmbedder.dim, FakeEmbedder.checksum))
    a, b, broken = two_courses
    window = switcher.open(a)
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    (course / "lessons" / "extra.md").write_text("# Buzzer\n\nThe buzzer sits on GPIO 4.\n", encoding="utf-8")
    stick = tmp_path / "usb"
    newer = build_bundle(course, stick / "lab-a-v2.sqlite", FakeEmbedder(), title="Lab A", course_id="lab-a").bundle
    asked, told = [], []
    switcher.choose_file = lambda: newer
    switcher.confirm = lambda text: asked.append(text) or True
    switcher.tell = lambda text, problem: told.append((text, problem))
    before = {p.name: p.read_bytes() for p in a.parent.iterdir()}
    add_action(window).trigger()
    assert asked and "lab-a" in asked[0] and "guides added" in asked[0] and "extra.md" in asked[0]
    assert told and not told[-1][1] and told[-1][0].startswith("Installed lab-a")
    assert (a.parent / "lab-a.sqlite").read_bytes() == newer.read_bytes()  # installed as ID.sqlite
    assert (a.parent / "lab-a.previous.sqlite").exists()  # the version it replaced, for `lantern rollback`
    assert any(t.startswith("Lab A") and "3 guides" in t for t in menu_actions(window))  # listed at once

    # A bad file is refused in one sentence and nothing in the course folder changes.
    before = {p.name: p.read_bytes() for p in a.parent.iterdir()}
    switcher.choose_file = lambda: broken
    add_action(window).trigger()
    text, problem = told[-1]
    assert problem and "\n" not in text and "Traceback" not in text and "broken.sqlite" in text
    assert {p.name: p.read_bytes() for p in a.parent.iterdir()} == before
    # Cancelled at the confirmation: nothing changes either.
    (course / "lessons" / "more.md").write_text("# More\n\nAnother lesson.\n", encoding="utf-8")
    third = build_bundle(course, stick / "lab-a-v3.sqlite", FakeEmbedder(), title="Lab A", course_id="lab-a").bundle
    switcher.choose_file = lambda: third
    switcher.confirm = lambda text: False
    add_action(window).trigger()
    assert told[-1][1] and "cancelled" in told[-1][0]
    assert {p.name: p.read_bytes() for p in a.parent.iterdir()} == before


# --- each course keeps its own conversation -------------------------------------------------

QUESTION = "My OLED display stays blank, what should I check?"
FOLLOW_UP = "Which pin does it use?"


def switch_to(qtbot, switcher, title: str):
    """Choose the course titled ``title`` in the open window's Course menu; the new window, ready."""
    before = switcher.window
    next(act for text, act in menu_actions(before).items() if text.startswith(title)).trigger()
    qtbot.waitUntil(lambda: switcher.window is not before and switcher.window.ready, timeout=5000)
    return switcher.window


def ask_and_wait(qtbot, window, question: str) -> None:
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText(question)
        window.ask()


def test_each_course_keeps_its_own_conversation_while_switching(qtbot, two_courses, course, tmp_path):
    a, b, _ = two_courses
    asked: list[tuple[str, str, list[dict]]] = []  # (course title, question, the memory sent with it)

    class Recording(Assistant):
        def answer(self, question, history=None, **options):
            asked.append((self.retriever.bundle.title, question, list(history or [])))
            return super().answer(question, history, **options)

    switcher = CourseSwitcher(lambda bundle: (lambda: Recording(Retriever(bundle, FakeEmbedder()), FakeChatModel())))
    try:
        first = switcher.open(a)
        qtbot.waitUntil(lambda: first.ready, timeout=5000)
        ask_and_wait(qtbot, first, QUESTION)
        a_answer = first.answer_view.toPlainText()
        a_memory = first.memory()
        assert len(first.conversation) == 1 and a_memory[0] == {"role": "user", "content": QUESTION}

        # Course B: an empty conversation, and a follow-up there does not refer to A's question.
        on_b = switch_to(qtbot, switcher, "Lab B")
        assert len(on_b.conversation) == 0 and on_b.memory() == [] and on_b.history == []
        assert on_b.answer_view.toPlainText() == "" and on_b.earlier_row.isHidden()
        assert on_b.conversation_label.text() == "New conversation."
        ask_and_wait(qtbot, on_b, FOLLOW_UP)
        assert asked[-1] == ("Lab B", FOLLOW_UP, [])

        # Back to A: its question and answer on screen again, and its follow-up memory.
        on_a = switch_to(qtbot, switcher, "Lab A")
        assert [e.question for e in on_a.conversation] == [QUESTION]
        assert on_a.asked_label.text() == f"You asked: {QUESTION}"
        assert on_a.answer_view.toPlainText() == a_answer and on_a.copy_button.isEnabled()
        assert on_a.memory() == a_memory
        assert "follow-up question can refer to your last question" in on_a.conversation_label.text()
        ask_and_wait(qtbot, on_a, FOLLOW_UP)
        title, question, memory = asked[-1]
        assert (title, question) == ("Lab A", FOLLOW_UP) and memory == a_memory
        assert not on_a.earlier_row.isHidden() and on_a.earlier.count() == 2  # both questions listed

        # B has kept its own (the follow-up asked there) and A now has two questions.
        on_b = switch_to(qtbot, switcher, "Lab B")
        assert [e.question for e in on_b.conversation] == [FOLLOW_UP]
        on_a = switch_to(qtbot, switcher, "Lab A")
        assert [e.question for e in on_a.conversation] == [QUESTION, FOLLOW_UP]

        # A course updated meanwhile (another corpus version in the same file) starts afresh.
        on_b = switch_to(qtbot, switcher, "Lab B")
        (course / "lessons" / "extra.md").write_text("# Buzzer\n\nThe buzzer sits on GPIO 4.\n", encoding="utf-8")
        build_bundle(course, a, FakeEmbedder(), title="Lab A", course_id="lab-a")
        on_a = switch_to(qtbot, switcher, "Lab A")
        assert len(on_a.conversation) == 0 and on_a.memory() == []
    finally:
        if switcher.window is not None:
            switcher.window.close()
            switcher.window.bundle.close()

    # Kept in memory only: no file anywhere holds a question.
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert QUESTION.encode() not in data and FOLLOW_UP.encode() not in data, path


def test_a_question_still_running_when_the_course_is_switched_is_dropped(qtbot, two_courses):
    import time

    a, b, _ = two_courses
    slow: list[bool] = []
    reply = " ".join(["Check the I2C address 0x3C of the display [1]."] * 60)

    def model():
        return FakeChatModel(reply=reply, delay=lambda: time.sleep(0.02) if slow else None)

    switcher = CourseSwitcher(lambda bundle: (lambda: Assistant(Retriever(bundle, FakeEmbedder()), model())))
    try:
        first = switcher.open(a)
        qtbot.waitUntil(lambda: first.ready, timeout=5000)
        ask_and_wait(qtbot, first, QUESTION)
        slow.append(True)
        with qtbot.waitSignal(first.evidence_shown, timeout=5000):
            first.question_box.setPlainText(FOLLOW_UP)
            first.ask()
        assert first.busy
        on_b = switch_to(qtbot, switcher, "Lab B")
        qtbot.wait(100)  # anything the old window's worker still sent has arrived
        assert len(on_b.conversation) == 0
        slow.clear()
        on_a = switch_to(qtbot, switcher, "Lab A")
        assert [e.question for e in on_a.conversation] == [QUESTION]  # the finished exchange, not the running one
        assert on_a.asked_label.text() == f"You asked: {QUESTION}" and not on_a.busy
    finally:
        if switcher.window is not None:
            switcher.window.close()
            switcher.window.bundle.close()
