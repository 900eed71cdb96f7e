"""The guide viewer: one guide rendered from the bundle, scrolled to a section, a passage marked.

Images come from the bundle's ``assets`` table (never from disk or the network): the
rendered HTML names them ``asset:<course path>`` and :meth:`GuideViewer.loadResource`
answers those names; SVG diagrams are drawn with QtSvg at their natural size, scaled down
to :data:`MAX_IMAGE_WIDTH`. Every other resource (an image that is not a bundle asset, a
style sheet, whatever its URL) is answered with a placeholder, never with Qt's own loader:
Qt reads a local file itself when the answer is empty, and a guide naming ``/dev/zero``
or a FIFO then aborted or froze the app. Links to other guides open them here; any other
link is named in one sentence (a web link, a file on this PC, a script, a place outside the
course: :func:`app.retrieval.links.link_refusal`) and never followed or handed to the system.

Every opened location (guide, anchor, marked passage) joins a browser-like history:
:meth:`GuideViewer.go_back` / :meth:`GuideViewer.go_forward` (Alt+Left / Alt+Right) return to
it, passage highlight included.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPalette, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QTextBrowser, QTextEdit, QToolButton, QVBoxLayout, QWidget

from ..bundle.reader import BundleReader
from ..errors import LanternError
from ..retrieval.links import GUIDE, classify_link, link_refusal
from .original_file import OriginalFileButton
from .passage_text import WORD, locate_words, passage_text
from .render import ASSET_SCHEME, guide_html
from .theme import guide_style, highlight_colors
from .translation import QT_TR_NOOP, tr
from .widgets import FitLabel

log = logging.getLogger(__name__)

MAX_IMAGE_WIDTH = 560
HISTORY_LIMIT = 100
#: Words on the box drawn in place of an image that is not in the course bundle.
PLACEHOLDER_WORDS = QT_TR_NOOP("Image not in the course")

try:  # QtSvg ships with PySide6-Essentials; stay usable without it.
    from PySide6.QtSvg import QSvgRenderer
    HAS_SVG = True
except ImportError:  # pragma: no cover - depends on the Qt build
    HAS_SVG = False


@dataclass(frozen=True)
class Location:
    """A place in the guides: a guide path, a heading anchor ('' = top), a passage to mark."""

    guide: str
    anchor: str = ""
    passage: str = ""


class GuideViewer(QTextBrowser):
    """Shows one guide. ``guide`` / ``anchor`` name what is shown; ``marked`` is the
    plain text of the marked passage ('' when none was found); ``history`` / ``position``
    are the visited locations and the current one."""

    guide_opened = Signal(str, str)  # guide path, anchor
    failed = Signal(str)  # a one-sentence message for the user
    history_changed = Signal(bool, bool)  # can go back, can go forward

    def __init__(self, bundle: BundleReader, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.guide = ""
        self.anchor = ""
        self.marked = ""  # (not ``highlighted``: that is QTextBrowser's signal)
        self.history: list[Location] = []
        self.position = -1
        self._placeholder_image: QImage | None = None
        self.setOpenLinks(False)
        self.setAccessibleName(tr("Guide viewer"))
        self.setAccessibleDescription(tr("The course guide opened from a citation, the contents or a search; "
                                         "Alt+Left goes back, Alt+Right forward"))
        self.anchorClicked.connect(self._follow)
        self.document().setDefaultStyleSheet(guide_style(self.palette()))
        self.document().setDocumentMargin(12)

    # --- opening ----------------------------------------------------------------------
    def open_guide(self, guide: str, anchor: str = "", passage: str = "") -> None:
        """Show ``guide``, scrolled to ``anchor``, with ``passage`` (a chunk's Markdown) marked,
        and record it in the history (forward entries are dropped, as in a browser).

        Raises :class:`LanternError` when the guide is not in the bundle.
        """
        location = Location(guide, anchor, passage)
        self._show(location)
        if not self.history or self.history[self.position] != location:
            del self.history[self.position + 1:]
            self.history.append(location)
            del self.history[:-HISTORY_LIMIT]
            self.position = len(self.history) - 1
        self.history_changed.emit(self.can_go_back(), self.can_go_forward())

    def can_go_back(self) -> bool:
        return self.position > 0

    def can_go_forward(self) -> bool:
        return 0 <= self.position < len(self.history) - 1

    def go_back(self) -> None:
        """Return to the previous location (no-op at the start of the history)."""
        if self.can_go_back():
            self._go(self.position - 1)

    def go_forward(self) -> None:
        """Go to the next location after :meth:`go_back` (no-op at the end of the history)."""
        if self.can_go_forward():
            self._go(self.position + 1)

    # QTextBrowser's own Alt+Left/Alt+Right call these; its built-in history is unused.
    def backward(self) -> None:  # noqa: D102 (Qt override)
        self.go_back()

    def forward(self) -> None:  # noqa: D102 (Qt override)
        self.go_forward()

    def _go(self, position: int) -> None:
        try:
            self._show(self.history[position])
        except LanternError as exc:
            self.failed.emit(str(exc))
            return
        self.position = position
        self.history_changed.emit(self.can_go_back(), self.can_go_forward())

    def _show(self, location: Location) -> None:
        guide, anchor, passage = location.guide, location.anchor, location.passage
        if guide != self.guide:
            text = self.bundle.source_text(guide)
            html = guide_html(guide, text, self.bundle.headings(guide), self.bundle.asset_paths)
            self.guide = guide
            self.document().clear()
            self.setHtml(html)
        self.anchor = anchor
        self.marked = self._mark(passage) if passage else self._mark("")
        if anchor:
            self.scrollToAnchor(anchor)
        else:
            self.verticalScrollBar().setValue(0)
        if self.marked:
            self._reveal_highlight()
        self.guide_opened.emit(guide, anchor)

    def _follow(self, url: QUrl) -> None:
        href = url.toString()
        target = classify_link(self.guide, href)
        if target.kind != GUIDE:
            self.failed.emit(link_refusal(target, href))
            return
        guide, anchor = target.path, target.anchor
        if guide != self.guide and not guide.endswith((".md", ".markdown", ".txt")):
            self.failed.emit(tr("{guide} is not a guide in this course bundle.").format(guide=guide))
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

    def _mark(self, passage: str) -> str:
        """Give the passage a yellow background (as extra selections); returns its plain text.

        The passage is a chunk's Markdown; the viewer shows it rendered (no emphasis markers,
        link targets or list markers, entities decoded, lines joined), so its words, rendered
        the same way, are looked for in the document's words (:func:`locate_words`), nearest
        after the cited heading, and the mark runs from its first word to its last."""
        self.setExtraSelections([])
        self._highlight_cursor = None
        shown = passage_text(passage) if passage else ""
        needle = [w.lower() for w in WORD.findall(shown)]
        if not needle:
            return ""
        text = self.document().toPlainText()  # one character per document position
        spans = [(m.start(), m.end()) for m in WORD.finditer(text)]
        words = [text[a:b].lower() for a, b in spans]
        anchor = self._anchor_position(self.anchor)
        near = next((i for i, (a, _) in enumerate(spans) if a >= anchor), len(spans))
        found = locate_words(words, needle, near)
        if found is None:
            log.info("passage not found in %s: %r", self.guide, " ".join(needle[:8]))
            return ""
        start, end = spans[found[0]][0], spans[found[1]][1]
        # The passage's own closing punctuation (a full stop, a bracket) is part of it.
        closing = re.search(r"\w([^\w\s]*)\s*$", shown)
        for char in closing.group(1) if closing else "":
            if text[end:end + 1] != char:
                break
            end += 1
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        background, colour = highlight_colors(self.palette())
        fmt.setBackground(background)
        fmt.setForeground(colour)
        selections = []
        for run_start, run_end in _runs_without_images(start, cursor.selectedText()):
            run = QTextCursor(self.document())
            run.setPosition(run_start)
            run.setPosition(run_end, QTextCursor.MoveMode.KeepAnchor)
            selection = QTextEdit.ExtraSelection()
            selection.cursor = run
            selection.format = fmt
            selections.append(selection)
        self.setExtraSelections(selections)
        self._highlight_cursor = QTextCursor(cursor)
        return cursor.selectedText().replace("\u2029", "\n").replace("\u2028", "\n")

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
    def loadResource(self, kind: int, url: QUrl | str) -> object:  # noqa: N802 (Qt override)
        """A bundle asset for an ``asset:`` image; a placeholder image for any other image and an
        empty text for any other resource (a style sheet). Never ``None`` and never the base
        class's loader: for an empty answer Qt reads the URL from disk itself."""
        url = QUrl(url)
        if kind == QTextDocument.ResourceType.ImageResource.value:
            image = self._image(url.path()) if url.scheme() == ASSET_SCHEME else None
            if image is None:
                log.info("image %s is not one of the bundle's: a placeholder is shown", url.toString()[:200])
            return image if image is not None else self._placeholder()
        log.info("resource %s (type %s) refused: the viewer loads only the bundle's images", url.toString()[:200], kind)
        return ""

    def _placeholder(self) -> QImage:
        """A framed box saying :data:`PLACEHOLDER_WORDS`, in the palette's colours."""
        if self._placeholder_image is None:
            metrics = self.fontMetrics()
            words = tr(PLACEHOLDER_WORDS)
            size = QSize(metrics.horizontalAdvance(words) + 16, metrics.height() + 10)
            ratio = max(1.0, self.devicePixelRatioF())
            image = QImage(size * ratio, QImage.Format.Format_ARGB32_Premultiplied)
            image.setDevicePixelRatio(ratio)
            palette = self.palette()
            image.fill(palette.color(QPalette.ColorRole.AlternateBase))
            painter = QPainter(image)
            painter.setFont(self.font())
            painter.setPen(QColor(palette.color(QPalette.ColorRole.PlaceholderText)))
            painter.drawRect(0, 0, size.width() - 1, size.height() - 1)
            painter.drawText(0, 0, size.width(), size.height(), Qt.AlignmentFlag.AlignCenter, words)
            painter.end()
            self._placeholder_image = image
        return self._placeholder_image

    def _image(self, path: str) -> QImage | None:
        found = self.bundle.asset(path)
        if found is None:
            log.info("image %s is not in the bundle", path)
            return None
        mime, data = found
        if mime == "image/svg+xml" or path.endswith(".svg"):
            if not HAS_SVG:
                return None
            renderer = QSvgRenderer(QByteArray(data))
            if not renderer.isValid():
                return None
            size = renderer.defaultSize()
            if size.isEmpty():
                size = QSize(MAX_IMAGE_WIDTH, MAX_IMAGE_WIDTH * 3 // 4)
            if size.width() > MAX_IMAGE_WIDTH:
                size = size.scaled(MAX_IMAGE_WIDTH, 10_000, Qt.AspectRatioMode.KeepAspectRatio)
            # Drawn at the screen's pixel ratio so diagrams stay sharp on high-DPI screens; the
            # image keeps its logical size (``size``). White, as the diagrams are drawn for paper.
            ratio = max(1.0, self.devicePixelRatioF())
            image = QImage(size * ratio, QImage.Format.Format_ARGB32_Premultiplied)
            image.setDevicePixelRatio(ratio)
            image.fill(Qt.GlobalColor.white)
            painter = QPainter(image)
            renderer.render(painter)
            painter.end()
            return image
        image = QImage.fromData(data)
        if image.isNull():
            return None
        if image.width() > MAX_IMAGE_WIDTH:
            image = image.scaledToWidth(MAX_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        return image


#: Characters a highlight run never spans: an image (U+FFFC) and Qt's frame marks (U+FDD0 /
#: U+FDD1, the edges of a table and its cells: a selection across them is painted as a
#: cell selection, a block beside the image above the table).
_BREAKS = re.compile("[\ufffc\ufdd0\ufdd1]")
_BLANK = " \t\n\u2028\u2029"


def _runs_without_images(start: int, text: str) -> list[tuple[int, int]]:
    """``(start, end)`` document positions of the runs of ``text`` (which begins at ``start``)
    between images and table cell edges (:data:`_BREAKS`), without white space at their ends,
    so a highlight never tints a wiring diagram or paints beside it."""
    runs = []
    offset = 0
    for piece in _BREAKS.split(text):
        stripped = piece.strip(_BLANK)
        if stripped:
            lead = len(piece) - len(piece.lstrip(_BLANK))
            runs.append((start + offset + lead, start + offset + lead + len(stripped)))
        offset += len(piece) + 1
    return runs


def bold_font() -> QFont:
    """Bold and nothing else: set on a widget, its size and family still follow the window's
    font (a style sheet would freeze them at the size they had when it was applied)."""
    font = QFont()
    font.setResolveMask(0)
    font.setBold(True)
    return font


class ViewerPanel(QWidget):
    """The viewer with its header: Back / Forward buttons and the open guide's title."""

    def __init__(self, bundle: BundleReader, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 6, 6, 6)
        header = QHBoxLayout()
        self.back_button = self._arrow(Qt.ArrowType.LeftArrow, tr("Back"),
                                       tr("Back to the previous place in the guides (Alt+Left)"))
        self.forward_button = self._arrow(Qt.ArrowType.RightArrow, tr("Forward"), tr("Forward (Alt+Right)"))
        header.addWidget(self.back_button)
        header.addWidget(self.forward_button)
        # Two lines at most: a guide's path may be one long word.
        self.title = FitLabel(tr("Guide: click a citation, a heading in Contents or a search result to open it here."),
                              max_lines=2)
        self.title.setFont(bold_font())
        self.title.setAccessibleName(tr("Open guide"))
        header.addWidget(self.title, 1)
        self.original_button = OriginalFileButton(bundle)  # hidden unless built with --keep-originals
        header.addWidget(self.original_button)
        layout.addLayout(header)
        self.viewer = GuideViewer(bundle)
        self.original_button.failed.connect(self.viewer.failed)
        layout.addWidget(self.viewer, 1)
        self.back_button.clicked.connect(self.viewer.go_back)
        self.forward_button.clicked.connect(self.viewer.go_forward)
        self.viewer.history_changed.connect(self._history_changed)
        self.viewer.guide_opened.connect(self._opened)

    @staticmethod
    def _arrow(arrow, name: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setArrowType(arrow)
        button.setAccessibleName(name)
        button.setToolTip(tip)
        button.setEnabled(False)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        return button

    def _history_changed(self, back: bool, forward: bool) -> None:
        self.back_button.setEnabled(back)
        self.forward_button.setEnabled(forward)

    def _opened(self, guide: str, _anchor: str) -> None:
        self.original_button.show_for(guide)
        self.title.setText(tr("Guide: {title}  ({path})").format(title=self.bundle.source_title(guide), path=guide))
