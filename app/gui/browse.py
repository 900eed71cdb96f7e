"""Browse and search the guides without the language model.

- :class:`ContentsTree`: the course's table of contents: top-level folders, the guides in
  them (by title), their headings nested beneath, in the course's own order
  (:func:`course_order`: "Lesson 2" before "Lesson 10"). Enter or a click opens the guide at
  that heading.
- :class:`GuideSearch`: a search box over the bundle's FTS5 index (prefix matching, so
  ``oled bla`` finds "OLED … blank"), results with a snippet whose matched words are
  highlighted. Enter or a click opens the guide at the chunk's heading with the chunk marked.

Both emit ``open_requested(guide, anchor, passage)``; the window passes it to the viewer.
Searching is one indexed SQLite query (a few ms), run after a short pause in typing.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Iterator

from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAbstractTextDocumentLayout, QKeyEvent, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..bundle.reader import MATCH_END, MATCH_START, BundleReader, GuideMatch, SourceInfo
from ..records import HEADING_SEPARATOR, join_heading
from .render import mark_prefixes, plain_marks, snippet_html
from .theme import mark_colors
from .translation import QT_TR_NOOP, tr
from .widgets import FitLabel

#: Item data roles: where an item leads, and the HTML a delegate draws.
LOCATION_ROLE = Qt.ItemDataRole.UserRole
HTML_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_DELAY_MS = 180
ROOT_FOLDER = QT_TR_NOOP("Course")  # the guides at the top of the course (shown translated)

#: A number standing on its own in a name or title: "Lesson 2", "02-pwm", "lesson_10", not "ESP32" or "I2C".
_ORDER_NUMBER = re.compile(r"(?<![^\W_])\d+")
_CHUNKS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """``text`` as a key that compares its numbers as numbers and its words without case:
    "Lesson 2" < "Lesson 10" < "lesson 11"."""
    return tuple((1, int(part), part) if part.isdigit() else (0, part.casefold(), part)
                 for part in _CHUNKS.split(text) if part)


def course_order(source: SourceInfo) -> tuple:
    """Where ``source`` goes in the contents: by its folders (natural order), then by its file
    name when that carries a number ("02-pwm.md", "lesson_10.md"), else by its title ("Lesson 2:
    Fade"), names and titles compared with :func:`natural_key`; the path breaks ties."""
    folder, name = posixpath.split(source.path)
    stem = name.rsplit(".", 1)[0]
    label = stem if _ORDER_NUMBER.search(stem) else (source.title or stem)
    return natural_key(folder), natural_key(label), natural_key(source.path)


class ContentsTree(QTreeWidget):
    """The table of contents of one bundle."""

    open_requested = Signal(str, str, str)  # guide, anchor, passage

    def __init__(self, bundle: BundleReader, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setAccessibleName(tr("Contents"))
        self.setAccessibleDescription(tr("The course guides by folder, with their headings; press Enter to open one"))
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self._fill()

    def _fill(self) -> None:
        folders: dict[str, QTreeWidgetItem] = {}
        for source in sorted(self.bundle.sources(), key=course_order):
            top = source.path.split("/", 1)[0] if "/" in source.path else ROOT_FOLDER
            folder = folders.get(top)
            if folder is None:
                folder = QTreeWidgetItem(self, [top if top != ROOT_FOLDER else tr(ROOT_FOLDER)])
                folder.setToolTip(0, tr("Folder {name}").format(name=top) if top != ROOT_FOLDER else
                                  tr("Guides at the top of the course"))
                folders[top] = folder
            guide = QTreeWidgetItem(folder, [source.title])
            guide.setData(0, LOCATION_ROLE, (source.path, ""))
            guide.setToolTip(0, source.path)
            self._add_headings(guide, source.path, source.title)
        # Guides at the top of the course first, then the folders in the course's order.
        if ROOT_FOLDER in folders:
            root = folders[ROOT_FOLDER]
            self.takeTopLevelItem(self.indexOfTopLevelItem(root))
            self.insertTopLevelItem(0, root)
        for folder in folders.values():
            folder.setExpanded(True)

    def _add_headings(self, guide: QTreeWidgetItem, path: str, title: str) -> None:
        """Headings nested by level under the guide (a level-1 heading equal to the title is the guide itself)."""
        stack: list[tuple[int, QTreeWidgetItem]] = [(0, guide)]
        for heading in self.bundle.headings(path):
            if heading.level == 1 and heading.text == title:
                guide.setData(0, LOCATION_ROLE, (path, heading.anchor))
                continue
            while len(stack) > 1 and stack[-1][0] >= heading.level:
                stack.pop()
            item = QTreeWidgetItem(stack[-1][1], [heading.text])
            item.setData(0, LOCATION_ROLE, (path, heading.anchor))
            item.setToolTip(0, f"{path}#{heading.anchor}")
            stack.append((heading.level, item))

    def item_for(self, guide: str, anchor: str) -> QTreeWidgetItem | None:
        """The item that opens ``guide`` at ``anchor`` (None when there is none)."""
        for item in self._all_items():
            if item.data(0, LOCATION_ROLE) == (guide, anchor):
                return item
        return None

    def _all_items(self) -> Iterator[QTreeWidgetItem]:
        """Every item, depth first in display order."""
        stack = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        while stack:
            item = stack.pop(0)
            if item is None:  # an index out of range: not possible below the counts
                continue
            yield item
            stack[:0] = [item.child(i) for i in range(item.childCount())]

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        location = item.data(0, LOCATION_ROLE)
        if location:
            self.open_requested.emit(location[0], location[1], "")


class HtmlDelegate(QStyledItemDelegate):
    """Draws an item's :data:`HTML_ROLE` rich text in the palette's colours (selected rows in
    the highlighted-text colour); the item's plain text stays its accessible text."""

    def _document(self, option: QStyleOptionViewItem, index: QModelIndex) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(4)
        doc.setHtml(index.data(HTML_ROLE) or html.escape(index.data(Qt.ItemDataRole.DisplayRole) or ""))
        doc.setTextWidth(max(option.rect.width(), 120))
        return doc

    def paint(self, painter, option, index) -> None:  # noqa: D102 (Qt override)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        context = QAbstractTextDocumentLayout.PaintContext()
        group = QPalette.ColorGroup.Active if opt.state & QStyle.StateFlag.State_Active else QPalette.ColorGroup.Inactive
        role = QPalette.ColorRole.HighlightedText if opt.state & QStyle.StateFlag.State_Selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(group, role))
        painter.save()
        painter.translate(opt.rect.topLeft())
        painter.setClipRect(QRectF(0, 0, opt.rect.width(), opt.rect.height()))
        doc.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option, index) -> QSize:  # noqa: N802 (Qt override)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        view = opt.widget
        width = view.viewport().width() if isinstance(view, QAbstractScrollArea) else 300
        opt.rect.setWidth(width)
        doc = self._document(opt, index)
        return QSize(width, int(doc.size().height()) + 2)


class _SearchBox(QLineEdit):
    """The search line: Down moves to the results, Enter searches at once."""

    down_pressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() == Qt.Key.Key_Down:
            self.down_pressed.emit()
            return
        super().keyPressEvent(event)


class GuideSearch(QWidget):
    """A search box over the guides and its results. ``matches`` holds the last results."""

    open_requested = Signal(str, str, str)  # guide, anchor, passage

    def __init__(self, bundle: BundleReader, parent=None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.matches: list[GuideMatch] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(tr("Search the &guides (works without the language model):"))
        layout.addWidget(label)
        self.box = _SearchBox()
        self.box.setPlaceholderText(tr("Words or the start of words, e.g. oled blank"))
        self.box.setClearButtonEnabled(True)
        self.box.setAccessibleName(tr("Search the guides"))
        self.box.setAccessibleDescription(tr("Type words; matching sections of the guides are listed below. "
                                             "Press Down to reach the results."))
        label.setBuddy(self.box)
        layout.addWidget(self.box)
        self.count_label = FitLabel("", max_lines=3)  # it quotes the query, which may be one long word
        self.count_label.setAccessibleName(tr("Search results count"))
        layout.addWidget(self.count_label)
        self.results = QListWidget()
        self.results.setAccessibleName(tr("Search results"))
        self.results.setAccessibleDescription(tr("Sections of the guides that match; press Enter to open one"))
        self.results.setItemDelegate(HtmlDelegate(self.results))
        self.results.setWordWrap(True)
        self.results.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.results.itemActivated.connect(self._activated)
        self.results.itemClicked.connect(self._activated)
        layout.addWidget(self.results, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.search)
        self.box.textChanged.connect(self._typed)  # a method, not a lambda holding self (app/gui/collector.py)
        self.box.returnPressed.connect(self.search)
        self.box.down_pressed.connect(self._to_results)

    def focus_box(self) -> None:
        self.box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.box.selectAll()

    def search(self) -> None:
        """Run the query in the box now and list the results."""
        self._timer.stop()
        query = self.box.text().strip()
        self.results.clear()
        self.matches = self.bundle.search_guides(query) if query else []
        if not query:
            self.count_label.setText("")
            return
        background, color = mark_colors(self.palette())
        for match in self.matches:
            self.results.addItem(self._item(match, query, background, color))
        if self.matches:
            found = (tr("{n} section matches; press Down, then Enter to open one.") if len(self.matches) == 1
                     else tr("{n} sections match; press Down, then Enter to open one."))
            self.count_label.setText(found.format(n=len(self.matches)))
            self.results.setCurrentRow(0)
        else:
            self.count_label.setText(tr("No section of the guides contains “{query}”. Try fewer or shorter words.")
                                     .format(query=query))

    def _item(self, match: GuideMatch, query: str, background: str, color: str) -> QListWidgetItem:
        title = self.bundle.source_title(match.source)
        headings = [h for h in match.heading.split(HEADING_SEPARATOR) if h]
        if headings and headings[0] == title:
            headings = headings[1:]
        place = HEADING_SEPARATOR.join([title] + headings[-1:])
        marked_place = mark_prefixes(place, query, MATCH_START, MATCH_END)
        # The chunk's text starts with its own heading, already shown above the snippet;
        # words are marked as prefix matching finds them (also those FTS5 matched in the heading).
        snippet = plain_marks(match.snippet, MATCH_START, MATCH_END)
        if headings and snippet.startswith(headings[-1]):
            snippet = snippet[len(headings[-1]):].lstrip(" :-")
        body = snippet_html(mark_prefixes(snippet, query, MATCH_START, MATCH_END), MATCH_START, MATCH_END,
                            background, color)
        head = snippet_html(marked_place, MATCH_START, MATCH_END, background, color)
        folder = posixpath.dirname(match.source)
        item = QListWidgetItem(f"{place}: {snippet}")
        item.setData(HTML_ROLE, f"<div><b>{head}</b><br/>{body}"
                                f"<br/><small>{html.escape(folder or match.source)}</small></div>")
        item.setData(LOCATION_ROLE, match.chunk_id)
        item.setToolTip(join_heading(match.source, match.heading))
        return item

    def _typed(self, _text: str) -> None:
        self._timer.start()  # search once the typing pauses

    def _to_results(self) -> None:
        if self.results.count():
            self.results.setFocus(Qt.FocusReason.TabFocusReason)
            if self.results.currentRow() < 0:
                self.results.setCurrentRow(0)

    def _activated(self, item: QListWidgetItem) -> None:
        chunk_id = item.data(LOCATION_ROLE)
        for match in self.matches:
            if match.chunk_id == chunk_id:
                self.open_requested.emit(match.source, match.anchor, match.text)
                return
