"""Python's cyclic garbage collector, run only in the GUI thread.

The automatic collector runs in whichever thread happens to allocate when a generation's
threshold is passed: in Lantern, often the assistant's worker thread. If the garbage it finds
holds a Qt object (a closed window in a reference cycle, a widget kept by a closure), the object's
C++ destructor then runs outside the GUI thread, and Qt crashes the process (a segmentation
fault). So while the window runs, automatic collection is off and :class:`GuiThreadCollector`
collects on a timer of the GUI thread instead, as often as the automatic collector would, and
fully soon after a window closes (:func:`collect_soon`).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: How often the GUI thread checks whether a collection is due, in milliseconds.
INTERVAL_MS = 1000

_running: GuiThreadCollector | None = None


def collect_due() -> int:
    """Run the collection the automatic collector would have run by now: generation 0 once more
    objects were allocated than its threshold, the older generations once they were passed over
    more often than theirs (:func:`gc.get_threshold`). Call it from the GUI thread. Returns the
    number of unreachable objects found (0 when no collection was due); raises nothing."""
    allocated, young_passes, old_passes = gc.get_count()
    threshold_0, threshold_1, threshold_2 = gc.get_threshold()
    if threshold_0 <= 0 or allocated <= threshold_0:
        return 0
    if young_passes <= threshold_1:
        return gc.collect(0)
    return gc.collect(2 if old_passes > threshold_2 else 1)


def collect_soon() -> None:
    """Ask the running collector for a full collection at its next tick (a window was closed: it
    and what it owned are garbage once the last reference to it is dropped). Does nothing when no
    collector runs (tests that open windows without :func:`app.gui.run_gui`)."""
    if _running is not None:
        _running.full_pending = True


class GuiThreadCollector(QObject):
    """Turns automatic garbage collection off and collects from a timer of the thread it is made
    in (make it in the GUI thread, with the QApplication as ``parent``). ``full_pending``: the
    next tick collects every generation. :meth:`stop` turns automatic collection back on."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self.full_pending = False
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.tick)

    def start(self) -> None:
        """Turn automatic collection off and start collecting on the timer."""
        global _running
        gc.disable()
        _running = self
        self._timer.start()

    def stop(self) -> None:
        """Stop the timer, collect once more, and turn automatic collection back on."""
        global _running
        self._timer.stop()
        if _running is self:
            _running = None
        gc.collect()
        gc.enable()

    def tick(self) -> int:
        """One timer tick: a full collection when one is pending, else what is due (:func:`collect_due`).
        Returns the number of unreachable objects found."""
        if self.full_pending:
            self.full_pending = False
            return gc.collect()
        return collect_due()


def start_collector(app: QObject) -> GuiThreadCollector:
    """A started :class:`GuiThreadCollector` owned by ``app`` (the QApplication). Call it from the
    GUI thread once the application exists. Automatic collection stays off until the process ends:
    worker threads may still run after the window closed (for at most a few seconds, or set aside)."""
    collector = GuiThreadCollector(app)
    collector.start()
    return collector
