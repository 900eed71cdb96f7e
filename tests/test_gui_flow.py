"""AnswerFlow owns its signals (issue 25): the window connects them and passes them on as its
own; the flow never reaches into the window's private members. Offscreen on fakes.

Shares the tiny course, the window fixture and helpers of ``tests/test_gui.py``.
"""

from __future__ import annotations

import inspect
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import app.gui.answer_flow as answer_flow  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel  # noqa: E402

config_dir = shared.config_dir
gui_bundle = shared.gui_bundle
windows = shared.windows


def test_the_flow_emits_and_the_window_passes_on(qtbot, windows, gui_bundle):
    window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    seen: list[tuple[str, object]] = []
    window.flow.evidence_shown.connect(lambda a: seen.append(("flow evidence", a)))
    window.evidence_shown.connect(lambda a: seen.append(("window evidence", a)))
    window.flow.answer_shown.connect(lambda a: seen.append(("flow answer", a)))
    window.answer_shown.connect(lambda a: seen.append(("window answer", a)))
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText(shared.QUESTION)
        window.ask()
    names = [name for name, _ in seen]  # (the window connected first, so it passes each on first)
    assert sorted(names[:2]) == ["flow evidence", "window evidence"]
    assert sorted(names[2:]) == ["flow answer", "window answer"]
    assert seen[0][1] is seen[1][1] and seen[2][1] is seen[3][1] is window.answer


def test_a_worker_warning_is_the_flows_note_shown_by_the_window(qtbot, windows, gui_bundle):
    window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    message = "The log file cannot be written."
    with qtbot.waitSignal(window.flow.note, timeout=5000) as noted:
        window.worker.warning.emit(message)
    assert noted.args == [message]
    assert window.state_label.text() == message and window.status_text() == message


def test_the_flow_uses_no_private_member_of_the_window():
    source = inspect.getsource(answer_flow)
    assert "window._" not in source and "window.evidence_shown" not in source
    assert "window.answer_shown" not in source and "window.models_loaded" not in source
