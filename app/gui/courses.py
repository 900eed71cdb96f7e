"""The window's Course menu: every course bundle of the library, and switching without restarting.

:class:`CourseSwitcher` owns the one open :class:`~app.gui.main_window.MainWindow`. Choosing
another course in the **Course** menu opens that bundle (a bundle that no longer opens is reported
in the current window, which stays as it was), shows a new window over it at the same place,
then closes the old window (its worker thread is stopped and its bundle closed). The chosen bundle
is saved as the settings' ``bundle``, so the last course used is opened next time. Each window has
two readers of its bundle, each with its own SQLite connection: one read in the GUI thread (guides,
contents, search) and one for its worker thread's assistant (:meth:`BundleReader.reopen`).

**Each course keeps its own conversation** for the rest of the session: the finished exchanges of
the course left behind (questions, answers with their citations, and so the follow-up memory derived
from them) and the one on screen are kept by the switcher, and given back to the window when that
course is chosen again; another course starts with an empty conversation, so a follow-up there
never refers to this course's questions. They are kept in memory only (:attr:`CourseSwitcher.kept`),
never on disk: lab PCs are shared, and closing the app forgets them. A course is known by its bundle
file and corpus version: a course updated meanwhile ("Add or update a course…") starts a new
conversation, since the old answers cite guides it may no longer hold. A question still running when
the course is switched is dropped (the worker is stopped), as when the window closes.

**A course updated while it is open** (``lantern install`` of a new version over its file): the
window notices (:mod:`app.gui.updates`) and the switcher reloads the course between questions
(:meth:`CourseSwitcher.reload`): a new window over the new version, with the same guide open in
the viewer when it still exists, the status bar and state line saying so, a new conversation, and
the question being asked, if the update was noticed as it was asked, asked in the new version.

**Add or update a course…** (the last item) installs a bundle file the way ``lantern install``
does (:func:`app.bundle.install.install_bundle`: verified before anything changes, the change shown
and confirmed, the previous version kept for ``lantern rollback``) into the user's course folder,
then lists it; an older version than the installed one is refused, as on the command line.

The menu lists :func:`app.bundle.library.list_courses` without verifying digests (opening each
bundle and reading its meta and counts: milliseconds each). Damaged bundles and bundles that need a
newer Lantern are listed, disabled, with the reason; older versions are listed and can be opened.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from ..bundle.library import STATE_DAMAGED, STATE_NEEDS_NEWER_APP, STATE_OK, STATE_OLDER, CourseEntry, list_courses
from ..bundle.reader import BundleReader
from ..config import Settings
from ..errors import LanternError
from .conversation import Conversation, Exchange
from .main_window import MainWindow
from .translation import QT_TR_NOOP, language_words, tr
from .updates import version_words
from .words import UPDATED_WORDS
from .workers import AssistantFactory

log = logging.getLogger(__name__)

#: ``factory_for(bundle)`` -> the assistant factory of a window; ``bundle`` is the worker's own reader
#: of the course (:meth:`BundleReader.reopen`), never the one the window reads in the GUI thread.
FactoryFor = Callable[[BundleReader], AssistantFactory]


#: What identifies a course's conversation: the bundle file (resolved path) and its corpus version.
CourseKey = tuple[str, str]

#: A course's state in the menu, when it is not ``ok`` (the library's state names, in words).
STATE_WORDS = {STATE_DAMAGED: QT_TR_NOOP("damaged"), STATE_NEEDS_NEWER_APP: QT_TR_NOOP("needs a newer Lantern"),
               STATE_OLDER: QT_TR_NOOP("older version")}


def course_key(bundle: BundleReader) -> CourseKey:
    """The key a course's conversation is kept under (:data:`CourseKey`)."""
    return str(bundle.path.resolve()), bundle.corpus_version


@dataclass
class KeptConversation:
    """A course's conversation while another course is open: its finished exchanges and the one
    that was on screen (None: none was, e.g. a question was running)."""

    conversation: Conversation
    shown: Exchange | None


def course_label(entry: CourseEntry) -> str:
    """One menu line: title, version, guides, language when known, and the state when it is not ``ok``."""
    parts = [entry.title or entry.course_id]
    if entry.version:
        parts.append(entry.version)
    if entry.guides is not None:
        parts.append((tr("{n} guide") if entry.guides == 1 else tr("{n} guides")).format(n=entry.guides))
    if entry.language:
        parts.append(language_words(entry.language))
    text = " · ".join(parts)
    if entry.state != STATE_OK:
        text += f" ({tr(STATE_WORDS.get(entry.state, entry.state))})"
    return text


class CourseSwitcher(QObject):
    """Opens the window over one course at a time; ``window`` is the open one (None before :meth:`open`).

    ``switched(MainWindow)`` is emitted once a new window is shown. ``entries`` lists the courses
    for the menu (default: the library, unverified). ``kept`` holds the conversations of the
    courses left during this session (:class:`KeptConversation` by :func:`course_key`), in memory
    only; the open course's conversation is its window's.
    """

    switched = Signal(object)

    def __init__(self, factory_for: FactoryFor, entries: Callable[[], list[CourseEntry]] | None = None) -> None:
        super().__init__()
        self.factory_for = factory_for
        self.entries = entries or (lambda: list_courses(verify=False))
        self.window: MainWindow | None = None
        self.kept: dict[CourseKey, KeptConversation] = {}
        #: Dialogs of "Add or update a course…", replaceable in tests: the bundle file chosen (None:
        #: cancelled), whether to go on with the planned change (its lines), and the outcome.
        self.choose_file: Callable[[], Path | None] = self._choose_file
        self.confirm: Callable[[str], bool] = self._confirm
        self.tell: Callable[[str, bool], None] = self._tell

    def _choose_file(self) -> Path | None:
        chosen, _ = QFileDialog.getOpenFileName(self.window, tr("Add or update a course"), "",
                                                tr("Course bundles (*.sqlite)"))
        return Path(chosen) if chosen else None

    def _confirm(self, text: str) -> bool:
        button = QMessageBox.StandardButton
        answer = QMessageBox.question(self.window, tr("Add or update a course"), text, button.Yes | button.No,
                                      button.No)
        return answer == button.Yes

    def _tell(self, text: str, problem: bool) -> None:
        (QMessageBox.warning if problem else QMessageBox.information)(self.window, tr("Add or update a course"), text)

    def add_course(self) -> None:
        """The "Add or update a course…" slot: install a chosen bundle into the user's course folder
        after showing what changes; every refusal is one sentence in a dialog and changes nothing."""
        from ..bundle.install import install_bundle
        from ..bundle.library import default_install_dir
        from ..embedding import manifest_embedding

        source = self.choose_file()
        if source is None:
            return
        folder = default_install_dir()
        try:
            embedding = manifest_embedding()
        except LanternError:
            embedding = None
        try:
            result = install_bundle(source, folder, embedding=embedding, confirm=lambda plan: self.confirm(
                "\n".join(plan.lines()) + "\n\n" + tr("Install {version} into {folder}?").format(
                    version=plan.new.version, folder=plan.installed.parent)))
        except LanternError as exc:
            self.tell(str(exc), True)
            return
        if result.result == "already-current":
            self.tell(tr("{course} {version} is already installed (same corpus version); nothing changed.").format(
                course=result.course_id, version=result.new.version), False)
        else:
            kept = (" " + tr("The previous version is kept as {name}.").format(name=result.previous.name)
                    if result.previous else "")
            self.tell(tr("Installed {course} {version}; choose it in the Course menu.").format(
                course=result.course_id, version=result.new.version) + kept, False)
        if self.window is not None:
            self._add_menu(self.window)

    def open(self, path: Path) -> MainWindow:
        """Open ``path`` in a new window (replacing the current one) and return it, with the
        conversation the course had when it was left in this session (if any); the current course's
        conversation is kept for when it is chosen again. Raises :class:`LanternError` (the bundle
        cannot be opened); the current window and the kept conversations are then unchanged."""
        bundle = BundleReader(Path(path))  # the window's, read in the GUI thread
        try:
            worker_bundle = bundle.reopen()  # the worker thread's: SQLite connections are not shared
        except LanternError:
            bundle.close()
            raise
        old = self.window
        window = MainWindow(bundle, self.factory_for(worker_bundle), worker_bundle=worker_bundle,
                            factory_for=self.factory_for)
        window.on_course_updated = self.reload
        self._add_menu(window)
        if old is not None:
            window.setGeometry(old.geometry())
            self._keep_conversation(old)
        kept = self.kept.pop(course_key(bundle), None)
        if kept is not None:
            window.restore_conversation(kept.conversation, kept.shown)
        self.window = window
        window.show()
        if old is not None:
            old.close()  # saves the layout and stops the old worker thread (closeEvent)
            old.close_bundles()
            old.deleteLater()
        self.switched.emit(window)
        return window

    def reload(self, question: str = "") -> bool:
        """The open course's file was replaced by another build: open it again in a new window
        (as :meth:`open`), with the guide the viewer showed and the question box's text, say so,
        and ask ``question`` there if given. Returns False when the new file does not open: the
        window then says why in one sentence and goes on with the version it has open (that build
        is not tried again)."""
        old = self.window
        if old is None:
            return False
        guide, anchor = old.viewer.guide, old.viewer.anchor
        typed = old.question_box.toPlainText()  # a question being typed is not lost
        try:
            window = self.open(old.bundle.path)
        except LanternError as exc:
            log.warning("cannot reload the updated course: %s", exc)
            watch = old.update_watch
            if watch.changed_meta is not None:
                watch.meta, watch.changed_meta = watch.changed_meta, None
            old._show_note(f"{exc} " + tr("Lantern goes on with the version it has open."))
            return False
        note = tr(UPDATED_WORDS).format(version=version_words(window.bundle.meta))
        window.show_update_note(note)
        if guide and any(source.path == guide for source in window.bundle.sources()):
            window.open_location(guide, anchor)
        window.question_box.setPlainText(question or typed)
        if question:  # the answer's state replaces the note on the state line: say it again after it
            window.answer_shown.connect(lambda _answer: window.show_status(note, 15000),
                                        Qt.ConnectionType.SingleShotConnection)
            window.ask()
        return True

    def _keep_conversation(self, window: MainWindow) -> None:
        """Keep ``window``'s finished exchanges and the one on screen under its course's key (an
        empty conversation is not kept). A copy: an answer the closing window's worker still
        finishes is not added to it."""
        key = course_key(window.bundle)
        if len(window.conversation):
            self.kept[key] = KeptConversation(window.conversation.copy(), window.shown)
        else:
            self.kept.pop(key, None)

    def choose(self, path: Path) -> None:
        """The Course menu's slot: switch to ``path`` and remember it; a bundle that does not open is
        reported in the current window."""
        if self.window is not None and Path(path).resolve() == self.window.bundle.path.resolve():
            if not self.window.busy and self.window.update_watch.check():  # replaced meanwhile: load it
                self.window._update_waiting = False
                self.reload()
            return
        try:
            window = self.open(path)
        except LanternError as exc:
            log.warning("cannot switch course: %s", exc)
            if self.window is not None:
                self.window._show_note(str(exc))
                self._add_menu(self.window)  # the list may have changed: show it as it is now
            return
        settings = Settings.load()
        settings.bundle = str(Path(path))
        try:
            settings.save()
        except OSError as exc:
            window._show_note(tr("The course could not be remembered for next time ({problem}).").format(
                problem=exc.strerror or exc))

    def _add_menu(self, window: MainWindow) -> None:
        """Put a Course menu (after the Lantern menu) listing :attr:`entries` on ``window``,
        replacing one added before."""
        bar = window.menuBar()
        old = window.course_menu
        if old is not None:
            bar.removeAction(old.menuAction())
            old.deleteLater()
        menu = QMenu(tr("C&ourse"), window)
        after_lantern = bar.actions()[1] if len(bar.actions()) > 1 else None
        if after_lantern is not None:
            bar.insertMenu(after_lantern, menu)
        else:
            bar.addMenu(menu)
        group = QActionGroup(menu)
        group.setExclusive(True)
        here = window.bundle.path.resolve()
        try:
            entries = self.entries()
        except Exception:  # noqa: BLE001 - a listing problem must not stop the window
            log.exception("listing the courses failed")
            entries = []
        if not any(e.path.resolve() == here for e in entries):
            entries = [CourseEntry(path=window.bundle.path, folder="", course_id="", title=window.bundle.title,
                                   version="", corpus_version="", built_at="", guides=None, chunks=None,
                                   state=STATE_OK, language=window.bundle.meta.get("language", ""))] + entries
        for entry in entries:
            act = QAction(course_label(entry), menu)
            act.setCheckable(True)
            act.setChecked(entry.path.resolve() == here)
            act.setData(str(entry.path))
            tip = f"{entry.path}" + (f": {entry.reason}" if entry.reason else "")
            act.setStatusTip(tip)
            act.setToolTip(tip)
            act.setEnabled(entry.state in (STATE_OK, STATE_OLDER))
            act.triggered.connect(lambda _=False, p=entry.path: self.choose(p))
            group.addAction(act)
            menu.addAction(act)
        menu.addSeparator()
        add = QAction(tr("&Add or update a course…"), menu)
        add.setStatusTip(tr("Install a course bundle file (for example from a USB stick), after checking it"))
        add.triggered.connect(self.add_course)
        menu.addAction(add)
        window.course_menu = menu
