"""Garbage collection in the GUI thread only (app/gui/collector.py): the automatic collector, run
in the assistant's worker thread, freed a window of an earlier test there, and Qt crashed."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import gc  # noqa: E402
import threading  # noqa: E402
import weakref  # noqa: E402

import pytest  # noqa: E402

from app.gui import collector  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel  # noqa: E402

config_dir = shared.config_dir
gui_bundle = shared.gui_bundle
windows = shared.windows


class Node:
    """One half of a reference cycle (only the cyclic collector frees it)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def make_cycles(count: int) -> None:
    for _ in range(count):
        a, b = Node(), Node()
        a.other, b.other = b, a


@pytest.fixture()
def automatic_gc():
    """Automatic collection on, as in a process before the collector starts; the state of the
    test session (off, see tests/conftest.py) is restored after."""
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


@pytest.fixture()
def collection_threads():
    """The thread of every collection while the test runs (``gc.callbacks``)."""
    threads: list[int] = []

    def record(phase: str, _info: dict) -> None:
        if phase == "start":
            threads.append(threading.get_ident())

    gc.callbacks.append(record)
    yield threads
    gc.callbacks.remove(record)


def test_garbage_made_in_a_worker_thread_is_collected_in_the_gui_thread(qtbot, automatic_gc, collection_threads):
    running = collector.GuiThreadCollector(interval_ms=10)
    running.start()
    try:
        assert not gc.isenabled()
        worker = threading.Thread(target=make_cycles, args=(20_000,))  # far past generation 0's threshold
        worker.start()
        worker.join()
        assert collection_threads == []  # no collection ran in the worker thread
        qtbot.waitUntil(lambda: bool(collection_threads), timeout=5000)  # the timer's tick collects
        assert set(collection_threads) == {threading.main_thread().ident}
    finally:
        running.stop()
    assert gc.isenabled()


def test_collect_due_collects_what_the_automatic_collector_would(automatic_gc):
    gc.disable()
    gc.collect()
    assert collector.collect_due() == 0  # nothing allocated since: nothing due
    make_cycles(gc.get_threshold()[0])
    assert collector.collect_due() > 0  # generation 0's threshold passed: the cycles are found


def test_closing_a_window_collects_it_fully_at_the_next_tick(qtbot, windows, gui_bundle, automatic_gc):
    running = collector.GuiThreadCollector(interval_ms=60_000)  # ticks are called here
    running.start()
    try:
        old = Node()
        old.other = Node()
        old.other.other = old
        gc.collect()  # it survives into the oldest generation ...
        gone = weakref.ref(old)
        del old  # ... and is garbage there, which collect_due does not reach soon
        window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
        assert not running.full_pending
        window.close()
        assert running.full_pending
        running.tick()
        assert gone() is None and not running.full_pending
    finally:
        running.stop()


def test_the_application_starts_the_collector(qapp, monkeypatch):
    import sys

    import app.gui
    import app.logfile

    monkeypatch.setattr(app.logfile, "start_log_file", lambda: None)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # _start_application installs its own
    started = []
    monkeypatch.setattr(collector, "start_collector", lambda application: started.append(application))
    assert app.gui._start_application() is qapp
    assert started == [qapp]
