"""Printing an exported conversation with Qt: the HTML of :func:`app.export.render.to_html` laid
out by :class:`QTextDocument` and printed to a PDF file (:class:`QPdfWriter`) or to any
:class:`QPrinter` (the print preview's), so the PDF, the preview and the paper are one document.

Works without a display: when no Qt application exists yet (the CLI), one is made on the
``offscreen`` platform.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QMarginsF
from PySide6.QtGui import QGuiApplication, QPagedPaintDevice, QPageLayout, QPageSize, QPdfWriter, QTextDocument, QTextOption
from PySide6.QtWidgets import QApplication

#: Page margins, millimetres.
MARGIN_MM = 15.0
#: The body text's size on paper, points.
FONT_POINTS = 10

_app: QApplication | None = None


def ensure_qt() -> None:
    """Make a Qt application when none exists (on the ``offscreen`` platform unless
    ``QT_QPA_PLATFORM`` names another), so that fonts and layout work in the CLI. It is a
    :class:`QApplication`, so that a window opened later in the same process (tests) can use it."""
    global _app
    if QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        _app = QApplication(["lantern"])


def text_document(html_text: str) -> QTextDocument:
    """``html_text`` as a :class:`QTextDocument` ready to print: long words (a pasted line with no
    spaces) wrap anywhere rather than run off the page."""
    ensure_qt()
    doc = QTextDocument()
    font = doc.defaultFont()
    font.setPointSize(FONT_POINTS)
    doc.setDefaultFont(font)
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    doc.setDefaultTextOption(option)
    doc.setHtml(html_text)
    return doc


def print_document(doc: QTextDocument, device: QPagedPaintDevice) -> None:
    """Lay ``doc`` out on ``device``'s pages (a :class:`QPrinter` or :class:`QPdfWriter`) and print it."""
    doc.print_(device)


def write_pdf(html_text: str, path: Path, title: str = "") -> None:
    """Write ``html_text`` as an A4 PDF to ``path`` (overwritten; use
    :func:`app.export.files.write_atomically` around it), with ``title`` in its properties.
    Raises ``OSError`` when Qt could not write the file."""
    doc = text_document(html_text)
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Unit.Millimeter)
    writer.setTitle(title)
    writer.setCreator("Lantern")
    print_document(doc, writer)
    del writer  # closes the file
    if not Path(path).is_file() or Path(path).stat().st_size == 0:
        raise OSError(f"Qt wrote no PDF to {path}")
