"""The guide viewer: one guide rendered from the bundle, scrolled to a section, a passage marked.

Images come from the bundle's ``assets`` table (never from disk or the network): the
rendered HTML names them ``asset:<course path>`` and :meth:`GuideViewer.loadResource`
answers those names; SVG diagrams are drawn with QtSvg at their natural size, scaled down
to :data:`MAX_IMAGE_WIDTH`. Links to other guides open them here; web links are shown in
the status tip but not followed (the app is offline).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QTextEdit

from ..bundle.reader import BundleReader
from ..errors import LanternError
from .render import ASSET_SCHEME, guide_html, plain_lines, resolve_link

log = logging.getLogger(__name__)

MAX_IMAGE_WIDTH = 560
HIGHLIGHT = QColor("#fff3a3")
#: Characters of a passage's first/last line searched for in the rendered guide.
PROBE_CHARS = 60

try:  # QtSvg ships with PySide6-Essentials; stay usable without it.
    from PySide6.QtSvg import QSvgRenderer
except ImportError:  # pragma: no cover - depends on the Qt build
    QSvgRenderer = None


class GuideViewer(QTextBrowser):
    """Shows one guide. ``guide`` / ``anchor`` name what is shown; ``highlighted`` is the
    plain text of the marked passage ('' when none was found)."""

    guide_opened = Signal(str, str)  # guide path, anchor
    failed = Signal(str)  # a one-sentence message for the user

    def __init__(self, bundle: BundleReader, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.guide = ""
        self.anchor = ""
        self.highlighted = ""
        self.setOpenLinks(False)
        self.setAccessibleName("Guide viewer")
        self.setAccessibleDescription("The course guide opened from a citation")
        self.anchorClicked.connect(self._follow)
        self.document().setDefaultStyleSheet(
            "h1 { font-size: x-large; } h2 { font-size: large; margin-top: 14px; } "
            "pre, code { font-family: monospace; background-color: #f3f3f3; } "
            "table { border-collapse: collapse; } th, td { padding: 3px 6px; } th { background-color: #eeeeee; }")
        self.document().setDocumentMargin(12)

    # --- opening ----------------------------------------------------------------------
    def open_guide(self, guide: str, anchor: str = "", passage: str = "") -> None:
        """Show ``guide``, scrolled to ``anchor``, with ``passage`` (a chunk's Markdown) marked.

        Raises :class:`LanternError` when the guide is not in the bundle.
        """
        if guide != self.guide:
            text = self.bundle.source_text(guide)
            html = guide_html(guide, text, self.bundle.headings(guide))
            self.guide = guide
            self.document().clear()
            self.setHtml(html)
        self.anchor = anchor
        self.highlighted = self._mark(passage) if passage else self._mark("")
        if anchor:
            self.scrollToAnchor(anchor)
        else:
            self.verticalScrollBar().setValue(0)
        if self.highlighted:
            self._reveal_highlight()
        self.guide_opened.emit(guide, anchor)

    def _follow(self, url: QUrl) -> None:
        target = resolve_link(self.guide, url.toString())
        if target is None:
            self.failed.emit(f"{url.toString()} is a web link; Lantern works offline, so open it in a browser.")
            return
        guide, anchor = target
        if guide != self.guide and not guide.endswith((".md", ".markdown", ".txt")):
            self.failed.emit(f"{guide} is not a guide in this course bundle.")
            return
        try:
            self.open_guide(guide, anchor)
        except LanternError as exc:
            self.failed.emit(str(exc))

    # --- highlighting -----------------------------------------------------------------
    def _anchor_position(self, anchor: str) -> int:
        """Document position of the ``<a name=anchor>``, or 0."""
        if not anchor:
            return 0
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.isValid() and anchor in fragment.charFormat().anchorNames():
                    return fragment.position()
                it += 1
            block = block.next()
        return 0

    def _find(self, needle: str, start: int) -> QTextCursor | None:
        cursor = self.document().find(needle, start)
        if cursor.isNull():
            cursor = self.document().find(needle, 0)
        return None if cursor.isNull() else cursor

    def _mark(self, passage: str) -> str:
        """Give the passage a yellow background (as extra selections); returns its plain text."""
        self.setExtraSelections([])
        self._highlight_cursor = None
        lines = plain_lines(passage)
        if not lines:
            return ""
        start = self._anchor_position(self.anchor)
        first = self._find(lines[0][:PROBE_CHARS], start)
        if first is None and len(lines) > 1:
            first = self._find(lines[1][:PROBE_CHARS], start)
        if first is None:
            log.info("passage not found in %s: %r", self.guide, lines[0][:PROBE_CHARS])
            return ""
        end_pos = first.selectionEnd()
        last = self.document().find(lines[-1][-PROBE_CHARS:], first.selectionStart())
        if not last.isNull() and last.selectionEnd() > end_pos:
            end_pos = last.selectionEnd()
        cursor = QTextCursor(self.document())
        cursor.setPosition(first.selectionStart())
        cursor.setPosition(end_pos, QTextCursor.KeepAnchor)
        selection = QTextEdit.ExtraSelection()
        selection.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        selection.format = fmt
        self.setExtraSelections([selection])
        self._highlight_cursor = QTextCursor(cursor)
        return cursor.selectedText().replace("\u2029", "\n")

    def _reveal_highlight(self) -> None:
        """Make sure the marked passage is on screen (the anchor may be a screen above it)."""
        cursor = getattr(self, "_highlight_cursor", None)
        if cursor is None:
            return
        probe = QTextCursor(cursor)
        probe.setPosition(cursor.selectionStart())
        rect = self.cursorRect(probe)
        if rect.top() < 0 or rect.bottom() > self.viewport().height():
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + rect.top() - 24)

    # --- images -----------------------------------------------------------------------
    def loadResource(self, kind: int, url: QUrl):  # noqa: N802 (Qt override)
        if kind == QTextDocument.ResourceType.ImageResource.value and url.scheme() == ASSET_SCHEME:
            return self._image(url.path())
        return super().loadResource(kind, url)

    def _image(self, path: str) -> QImage | None:
        found = self.bundle.asset(path)
        if found is None:
            log.info("image %s is not in the bundle", path)
            return None
        mime, data = found
        if mime == "image/svg+xml" or path.endswith(".svg"):
            if QSvgRenderer is None:
                return None
            renderer = QSvgRenderer(QByteArray(data))
            if not renderer.isValid():
                return None
            size = renderer.defaultSize()
            if size.isEmpty():
                size = QSize(MAX_IMAGE_WIDTH, MAX_IMAGE_WIDTH * 3 // 4)
            if size.width() > MAX_IMAGE_WIDTH:
                size = size.scaled(MAX_IMAGE_WIDTH, 10_000, Qt.KeepAspectRatio)
            image = QImage(size, QImage.Format_ARGB32_Premultiplied)
            image.fill(Qt.white)
            painter = QPainter(image)
            renderer.render(painter)
            painter.end()
            return image
        image = QImage.fromData(data)
        if image.isNull():
            return None
        if image.width() > MAX_IMAGE_WIDTH:
            image = image.scaledToWidth(MAX_IMAGE_WIDTH, Qt.SmoothTransformation)
        return image
