"""A quote of steps 1 and 4 of a guide's numbered list shows 1 and 4 in the window, the web page and
the export (HTML numbers a list's items in turn; app/text/lists.py cuts the list where they skip)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.export.document import Asked, conversation_document  # noqa: E402
from app.export.render import to_html  # noqa: E402
from app.gui.render import answer_html  # noqa: E402
from app.records import Answer  # noqa: E402
from app.serve.pages import answer_fragment  # noqa: E402
from tests.test_export import COURSE, TITLES, WHEN, WIRING  # noqa: E402

STEPS = ("From the guides:\n\n*Wiring*:\n\n1. Connect VCC to 3V3.\n4. Put a 10 kΩ pull-up resistor between DATA "
         "and 3V3.\n5. Power the board. [1]\n\n- a bullet\n- another [1]")


def test_the_window_shows_the_guides_own_step_numbers(qtbot):
    from PySide6.QtGui import QTextDocument

    page = answer_html(STEPS, {1})
    assert '<ol start="4">' in page and page.count("<ol") == 2
    doc = QTextDocument()
    doc.setHtml(page)
    shown, block = [], doc.begin()
    while block.isValid():
        if block.textList() is not None:
            shown.append((block.textList().itemText(block), block.text()[:12]))
        block = block.next()
    assert shown[:3] == [("1.", "Connect VCC "), ("4.", "Put a 10 kΩ "), ("5.", "Power the bo")]


def test_the_web_page_and_the_export_keep_them_too():
    fragment = answer_fragment("esp32-starter", STEPS, [WIRING])
    assert '<ol start="4">' in fragment and "<li>Put a 10 kΩ" in fragment
    answer = Answer("extractive", STEPS, (WIRING,), (WIRING,), COURSE.corpus_version, "")
    page = to_html(conversation_document([Asked("How do I wire the DHT22?", answer)], COURSE,
                                         guide_title=TITLES.get, now=WHEN))
    assert '<ol start="4">' in page


def test_a_list_numbered_in_turn_is_left_whole():
    page = answer_html("3. three\n4. four\n5. five\n", set())
    assert page.count("<ol") == 1 and '<ol start="3">' in page
