"""Small widgets that keep any text inside the window.

- :class:`FitLabel`: a plain-text label that wraps at word boundaries, and anywhere inside a
  word longer than a line (a pasted URL, a compiler line, a 50,000-character question), in
  at most ``max_lines`` lines, the last one elided with "…"; the whole text is then its
  tooltip. Its size hints never depend on its longest word, so no text can widen the window.
- :class:`AnswerView`: the answer's text browser, whose placeholder is wrapped to the view
  (Qt draws a text edit's placeholder on one line, cut off at the edge).
"""

from __future__ import annotations

import textwrap

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QTextLayout, QTextOption
from PySide6.QtWidgets import QLabel, QSizePolicy, QTextBrowser

#: Characters a label's preferred width allows (a longer text wraps or is elided).
HINT_CHARS = 60
#: Characters a label may be narrowed to.
MIN_CHARS = 6
#: Characters of a long text laid out when only a few lines are shown (the rest is elided anyway).
LAYOUT_CHARS = 4000
#: Characters of a tooltip that repeats a label's text, and the width it is wrapped to.
TIP_CHARS, TIP_WIDTH = 1000, 80


def tooltip_text(text: str) -> str:
    """``text`` for a tooltip: at most :data:`TIP_CHARS` characters, wrapped (long words too)
    at :data:`TIP_WIDTH`, so a tooltip is never wider than the screen."""
    flat = " ".join(text.split())
    if len(flat) > TIP_CHARS:
        flat = flat[:TIP_CHARS - 1] + "…"
    return textwrap.fill(flat, TIP_WIDTH, break_long_words=True, break_on_hyphens=False)


def _utf16(text: str, start: int, length: int | None = None) -> str:
    """The part of ``text`` at Qt's (UTF-16) ``start`` and ``length``."""
    units = text.encode("utf-16-le")
    end = None if length is None else 2 * (start + length)
    return units[2 * start:end].decode("utf-16-le", errors="ignore")


class FitLabel(QLabel):
    """A label for text Lantern does not control (questions, messages, paths, names).

    ``max_lines`` = 0 wraps without a limit (messages: every word readable), 1 elides on one
    line (the status bar), n shows at most n lines; it can be narrowed to ``min_chars``
    characters (fewer when the text is shorter). :meth:`text` is the whole text;
    :meth:`shown_text` the lines as shown. The label's height follows its width
    (height-for-width), and it follows font changes at once. Its preferred width holds ``hint_chars``
    characters (default :data:`HINT_CHARS`)."""

    def __init__(self, text: str = "", max_lines: int = 0, parent=None, min_chars: int = MIN_CHARS,
                 hint_chars: int = HINT_CHARS) -> None:
        super().__init__(parent)
        self.max_lines = max_lines
        self.min_chars = min_chars
        self.hint_chars = hint_chars
        self._full = ""
        self._tip = ""
        self._clipped = False
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)  # wrapped here, lines joined with "\n"
        self.setIndent(0)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(max_lines != 1)
        self.setSizePolicy(policy)
        self.setText(text)

    # --- text ---------------------------------------------------------------------------
    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        self._full = text or ""
        self._refresh()
        self.updateGeometry()

    def text(self) -> str:  # the whole text, not the lines shown
        return self._full

    def shown_text(self) -> str:
        """The text as shown: wrapped lines joined with "\\n", the last one maybe elided."""
        return super().text()

    def setToolTip(self, tip: str) -> None:  # noqa: N802 (Qt override)
        self._tip = tip or ""
        self._update_tip()

    def _update_tip(self) -> None:
        parts = [tooltip_text(self._full)] if self._clipped else []
        super().setToolTip("\n".join(parts + ([self._tip] if self._tip else [])))

    # --- layout -------------------------------------------------------------------------
    def _chrome(self) -> tuple[int, int]:
        """Horizontal and vertical room the frame and margins take."""
        rect = self.contentsRect()
        return (self.width() - rect.width() + 2 * self.margin(),
                self.height() - rect.height() + 2 * self.margin())

    def lines(self, width: int) -> tuple[list[str], bool]:
        """The lines shown at label width ``width``, and whether text was left out."""
        flat = " ".join(self._full.split())
        if not flat:
            return [], False
        room = max(1, width - self._chrome()[0])
        metrics = self.fontMetrics()
        if self.max_lines == 1:
            shown = metrics.elidedText(flat[:LAYOUT_CHARS], Qt.TextElideMode.ElideRight, room)
            if len(flat) > LAYOUT_CHARS and not shown.endswith("…"):
                shown = metrics.elidedText(flat[:LAYOUT_CHARS] + "……", Qt.TextElideMode.ElideRight, room)
            return [shown], shown != flat
        cut = bool(self.max_lines) and len(flat) > LAYOUT_CHARS
        if cut:
            flat = flat[:LAYOUT_CHARS]
        layout = QTextLayout(flat, self.font(), self)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        spans: list[tuple[int, int]] = []
        layout.beginLayout()
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(room)
            spans.append((line.textStart(), line.textLength()))
            if self.max_lines and len(spans) > self.max_lines:
                break
        layout.endLayout()
        if self.max_lines and (len(spans) > self.max_lines or cut):
            head = [_utf16(flat, start, length).rstrip() for start, length in spans[:self.max_lines - 1]]
            rest = _utf16(flat, spans[self.max_lines - 1][0]) if len(spans) >= self.max_lines else ""
            last = metrics.elidedText(rest + "…" * 2, Qt.TextElideMode.ElideRight, room)  # always ends with "…"
            return head + [last], True
        return [_utf16(flat, start, length).rstrip() for start, length in spans], False

    def _refresh(self) -> None:
        lines, clipped = self.lines(self.width())
        shown = "\n".join(lines)
        if shown != super().text():
            changed = shown.count("\n") != super().text().count("\n")
            super().setText(shown)
            if changed:
                self.updateGeometry()
        if clipped != self._clipped:
            self._clipped = clipped
        self._update_tip()

    def _height(self, count: int) -> int:
        if not count:
            return self._chrome()[1]
        metrics = self.fontMetrics()
        return metrics.lineSpacing() * (count - 1) + metrics.height() + self._chrome()[1]

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        return self.max_lines != 1

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        if self.max_lines == 1:
            return self._height(1 if self._full.strip() else 0)
        return self._height(len(self.lines(width)[0]))

    def _natural_width(self, chars: int) -> int:
        metrics = self.fontMetrics()
        flat = " ".join(self._full.split())[:LAYOUT_CHARS]
        text_width = min(metrics.horizontalAdvance(flat) + 1, chars * metrics.averageCharWidth())
        return text_width + self._chrome()[0]

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        width = self._natural_width(self.hint_chars)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._natural_width(self.min_chars), self._height(1 if self._full.strip() else 0))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._refresh()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._refresh()
            self.updateGeometry()


class AnswerView(QTextBrowser):
    """The answer's text browser; ``placeholder`` is drawn wrapped while the answer is empty."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.placeholder = ""

    def set_placeholder(self, text: str) -> None:
        self.placeholder = text
        self.viewport().update()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        if not self.placeholder or not self.document().isEmpty():
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().placeholderText().color())
        painter.setFont(self.font())
        margin = int(self.document().documentMargin())
        area = self.viewport().rect().adjusted(margin, margin, -margin, -margin)
        option = QTextOption(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        painter.drawText(QRectF(area), self.placeholder, option)
        painter.end()
