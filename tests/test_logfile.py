"""The window's log file (issue 13, item 8): where "the details are in the log" points, and that no
question is ever written to it."""

from __future__ import annotations

import logging
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.logfile import LOG_NAME, current_log_file, details_hint, start_log_file  # noqa: E402

from . import test_gui as shared  # noqa: E402

# The window fixtures of test_gui.py, bound by assignment (as in test_gui_conversation.py) so pytest
# finds them here and ruff does not read each test's parameter as a redefinition of an import (F811).
gui_bundle = shared.gui_bundle
windows = shared.windows


@pytest.fixture()
def clean_root():
    """Remove the log-file handler a test added, and restore the root logger's level."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    levels = {h: h.level for h in handlers}
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    for handler, old in levels.items():
        handler.setLevel(old)
    root.setLevel(level)


def test_the_log_file_is_created_in_the_log_folder_once_and_named_in_messages(tmp_path, monkeypatch, clean_root):
    monkeypatch.setenv("LANTERN_LOG_DIR", str(tmp_path / "logs"))
    assert current_log_file() is None and details_hint() == "the details were printed to the terminal"
    path = start_log_file()
    assert path == tmp_path / "logs" / LOG_NAME
    assert start_log_file() == path  # once per process: no second handler
    assert sum(getattr(h, "lantern", False) for h in logging.getLogger().handlers) == 1
    logging.getLogger("app.gui.workers").warning("the chat model could not be loaded")
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert "WARNING app.gui.workers: the chat model could not be loaded" in path.read_text(encoding="utf-8")
    assert details_hint() == f"the details are in {path}"


def test_a_log_folder_that_cannot_be_made_leaves_the_app_running_without_a_file(tmp_path, monkeypatch, clean_root):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("LANTERN_LOG_DIR", str(blocker / "logs"))
    assert start_log_file() is None and current_log_file() is None


def test_a_crash_while_answering_is_logged_without_the_question(qtbot, tmp_path, monkeypatch, clean_root):
    from app.gui.workers import AssistantWorker

    monkeypatch.setenv("LANTERN_LOG_DIR", str(tmp_path / "logs"))
    path = start_log_file()

    class Broken:
        def answer(self, *args, **kwargs):
            raise RuntimeError("index out of range")

    worker = AssistantWorker(lambda: Broken())
    worker.load()
    question = "Where is my secret lab partner's locker 4711?"
    with qtbot.waitSignal(worker.crashed, timeout=2000) as crashed:
        worker.ask(question, [])
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = path.read_text(encoding="utf-8")
    assert "answering a question failed" in text and "RuntimeError: index out of range" in text
    assert "4711" not in text and "locker" not in text
    assert str(path) in crashed.args[0]


def test_the_about_box_names_the_course_and_the_log_file(qtbot, windows, gui_bundle, tmp_path, monkeypatch,
                                                        clean_root):
    from .fakes import FakeChatModel
    from .test_gui import open_window

    window = open_window(qtbot, windows, gui_bundle, FakeChatModel(reply="x"))
    assert "Log file: none" in window.about_text()
    monkeypatch.setenv("LANTERN_LOG_DIR", str(tmp_path / "logs"))
    path = start_log_file()
    text = window.about_text()
    assert f"Log file: {path}" in text and str(window.bundle.path) in text and window.bundle.title in text
    assert any(a.text() == "&About Lantern" for a in window.menuBar().actions()[0].menu().actions())
