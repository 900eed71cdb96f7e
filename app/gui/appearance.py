"""How the window looks: the application's font size and the style sheets and text colours
taken from the palette (set again when the system theme changes)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget

from .theme import answer_style, guide_style, muted_text, warning_text


def apply_font_size(points: int) -> None:
    """Make ``points`` the application's font size, at once."""
    font = QFont(QApplication.font())
    font.setPointSize(points)
    QApplication.setFont(font)


def apply_palette(palette: QPalette, answer_view: QTextBrowser, viewer: QTextBrowser, muted: QWidget,
                  warning: QWidget) -> None:
    """Style sheets of the answer and the guide viewer from ``palette``, and the text colour of the
    ``muted`` label (the answer's state) and the ``warning`` label (degraded states)."""
    answer_view.document().setDefaultStyleSheet(answer_style(palette))
    viewer.document().setDefaultStyleSheet(guide_style(palette))
    for label, colour in ((muted, muted_text(palette)), (warning, warning_text(palette))):
        own = QPalette()  # only the text colour is set; the rest follows the window's palette
        own.setColor(QPalette.ColorRole.WindowText, QColor(colour))
        label.setPalette(own)
