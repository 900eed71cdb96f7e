"""Take the README screenshots: the real window, real models, the demo course.

Run under a display, e.g.:
    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot.py --state all
States (``--state``, default ``answer``; ``all`` takes each of the first five in turn, one window at a time):
- ``answer``: one question answered with citations, the first citation open in the viewer;
- ``conversation``: two questions asked (``--question``, then ``--follow-up``), then the first
  reopened from "Earlier in this conversation" with its first citation open in the viewer;
- ``search``: the Search tab with highlighted results, the first one open and marked;
- ``viewer``: the Contents tab and a guide section with its wiring diagram and a marked passage;
- ``degraded``: no models at all (``LANTERN_MODELS_DIR`` pointed at an empty folder), so the
  status bar and the note name ``keyword-only`` and ``search-only`` and the answer is extractive;
- ``courses``: the Course menu open over the window, listing two courses of a temporary course
  library (``LANTERN_COURSES_DIR``): ``--bundle``, installed there as ``lantern install`` does, and
  a small French course (``scripts/screenshot_course/``, "Atelier soudure") built with the real
  embedding model (a few seconds). Nothing is asked: the chat model loads but never runs (with
  ``--fake-reply`` none loads). The menu is a window of its own, so the picture is cut from the
  whole screen (it needs a real display such as Xvfb, not ``QT_QPA_PLATFORM=offscreen``). The
  user's own course folders are neither read nor changed: the menu lists only the temporary library.
On request only (not part of ``all``), to check the window's layout:
- ``evidence``: the moment the guides' own words are on screen and the model is still writing
  (taken as soon as the window shows the evidence; the state line says what is happening);
- ``start``: the window ready, nothing asked yet (the answer's placeholder text);
- ``long-question``: a question with no spaces (``--question``, default ``Why_do_I_get_EEE…``,
  313 characters, like a pasted compiler line) answered; the window must not grow;
- ``too-long``: ``--question`` answered, then a 50,000-character question refused: the error
  must be readable and the status bar must not keep the previous answer's time.
Each prints the window's width before and after to stderr.
With ``--dark`` the window uses a dark Fusion palette (to check that dark themes read well)
and the files are named ``screenshot-<state>-dark.png``.
``--font-size N`` sets the font size after the models load, as Settings does (at once); the
files are then named ``screenshot-<state>-font<N>.png``.
``--fake-reply TEXT`` loads no language model: a scripted stand-in streams ``TEXT`` word by word
(0.1 s a word) through the same checks, to look at the layout of the evidence and of checked
sentences quickly; the files are named ``screenshot-<state>-fake.png`` (never the README's).
The embedding model is the real one; ``degraded`` ignores this option.
``--language CODE`` opens the window in that language (``fr``, ``es``: app/gui/translation.py, as
the settings' ``ui_language`` does); the files are named ``screenshot-<state>-<CODE>.png``. Give it a
course in that language (``--bundle``, ``--question``): the replies follow the course's language.
``--size WxH`` sizes the window (default 1380x860), e.g. ``1366x768`` or ``1920x1080`` to check a
laptop's or a lab monitor's screen (run Xvfb with a screen at least that large); the files are then
named ``screenshot-<state>-<W>x<H>.png``.
Options: --bundle (default corpus_bundle/esp32-starter.sqlite), --question, --follow-up, --out-dir (default
docs/); each state is saved as ``screenshot-<state>.png``. Settings and the window layout are
kept in a temporary folder, so your own settings don't change the pictures. Exits 1 when a
state does not finish in time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.bundle.reader import BundleReader  # noqa: E402
from app.gui.main_window import TAB_CONTENTS, MainWindow  # noqa: E402
from app.gui.workers import load_assistant  # noqa: E402

QUESTION = "My OLED display stays blank, what should I check?"
FOLLOW_UP = "How do I wire the DHT11 sensor?"
SEARCH = "oled blank"
VIEWER_PASSAGE = "SDA GPIO 21"  # the OLED wiring section, with its diagram
LONG_QUESTION = "Why_do_I_get_" + "E" * 300  # no spaces, like a pasted URL or compiler line
TOO_LONG = "x" * 50_000
STATES = ("answer", "search", "viewer", "degraded", "courses")  # ``all``: the pictures in README.md and docs/gui.md
EXTRA_STATES = ("evidence", "conversation", "start", "long-question", "too-long")  # on request only
ASKING = ("answer", "evidence", "conversation", "degraded", "long-question", "too-long")
SIZE = (1380, 860)
#: The second course of ``courses``: a few guides in French (so the menu shows another language).
SECOND_COURSE = (ROOT / "scripts" / "screenshot_course", "atelier-soudure", "Atelier soudure")


class ScriptedChatModel:
    """A stand-in for the chat model (``--fake-reply``): streams ``reply`` word by word, slowly
    enough to see the evidence first; its words go through the same checks as a model's."""

    n_ctx = 2048

    def __init__(self, reply: str, seconds_per_word: float = 0.1) -> None:
        self.reply = reply
        self.seconds_per_word = seconds_per_word
        self.name = "scripted reply (layout check, no model)"

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    def prompt_tokens(self, messages) -> int:
        return sum(self.count_tokens(m["content"]) + 4 for m in messages)

    def stream(self, messages, max_tokens, should_stop=None):
        import re
        import time

        for piece in re.findall(r"\S+\s*", self.reply):
            if should_stop is not None and should_stop():
                return
            time.sleep(self.seconds_per_word)
            yield piece


def scripted_assistant(bundle: BundleReader, reply: str, report):
    """The real retrieval (embedding model if present) with :class:`ScriptedChatModel`."""
    from app.assistant import NO_EMBEDDER, build_assistant

    def warn(what: str, message: str) -> None:
        if what == NO_EMBEDDER:
            report(message, warning=True)

    return build_assistant(bundle, chat_model=ScriptedChatModel(reply), warn=warn, progress=report)


def course_library(bundle: Path) -> tuple[Path, Path]:
    """A temporary course library for ``courses`` (``LANTERN_COURSES_DIR`` is pointed at it, so
    "Add or update a course…" would install there too): ``bundle`` installed into it as ``lantern
    install --dir`` does, and :data:`SECOND_COURSE` built with the real embedding model and
    installed beside it. Returns the folder and ``bundle``'s installed copy."""
    from app.assistant import load_embedder
    from app.bundle.builder import build_bundle
    from app.bundle.install import install_bundle
    from app.embedding import manifest_embedding

    work = Path(tempfile.mkdtemp(prefix="lantern-shot-courses-"))
    library = work / "courses"
    os.environ["LANTERN_COURSES_DIR"] = str(library)
    folder, course_id, title = SECOND_COURSE
    built = build_bundle(folder, work / f"{course_id}.sqlite", load_embedder(), title=title, course_id=course_id).bundle
    embedding = manifest_embedding()
    installed = []
    for path in (bundle, built):
        result = install_bundle(path, library, embedding=embedding, confirm=lambda plan: True)
        print(f"[courses] {result.result} {result.course_id} {result.new.version} in {library}", file=sys.stderr)
        installed.append(result.installed)
    return library, installed[0]


def take(state: str, bundle: BundleReader, question: str, out: Path, timeout: float,
         follow_up: str = FOLLOW_UP, font_size: int = 0, fake_reply: str | None = None,
         size: tuple[int, int] = SIZE) -> int:
    """Open a window, bring it to ``state``, save it to ``out``; 0 on success."""
    def factory_for(reader: BundleReader):
        if fake_reply is not None and state != "degraded":
            return lambda report: scripted_assistant(reader, fake_reply, report)
        return lambda report: load_assistant(reader, None, report)

    switcher = library = None
    if state == "courses":  # the window as the app opens it: with its Course menu, over the library's copy
        from app.bundle.library import CourseFolder, list_courses
        from app.gui.courses import CourseSwitcher

        library, opened = course_library(bundle.path)
        switcher = CourseSwitcher(factory_for,
                                  entries=lambda: list_courses([CourseFolder("machine", library)], verify=False))
        window = switcher.open(opened)
    else:
        window = MainWindow(bundle, factory_for(bundle))
    window.resize(*size)
    window.splitter.setSizes([600, size[0] - 600])
    window.show()
    outcome = {"code": 1}
    widths = [window.width()]
    loop = QEventLoop()

    def finish() -> None:
        window.close()
        loop.quit()

    def save() -> None:
        widths.append(window.width())
        print(f"[{state}] window width {widths[0]} px before, {widths[-1]} px when saved", file=sys.stderr)
        out.parent.mkdir(parents=True, exist_ok=True)
        if state == "courses":  # the open menu is a window of its own: cut the window and the menu from the screen
            menu, screen = window.course_menu, window.screen()
            area = window.frameGeometry().united(menu.geometry())
            problem = ("the Course menu did not open" if not menu.isVisible() else
                       "the offscreen platform has no screen to grab" if QApplication.platformName() == "offscreen"
                       else f"the screen ({screen.geometry().width()}x{screen.geometry().height()}) does not hold "
                            "the window" if not screen.geometry().contains(area) else "")
            if problem:
                print(f"[{state}] {problem}; nothing saved (run under xvfb-run -s \"-screen 0 1400x900x24\")",
                      file=sys.stderr)
                finish()
                return
            print(f"[{state}] menu: {[a.text() for a in menu.actions() if not a.isSeparator()]}", file=sys.stderr)
            picture = screen.grabWindow(0).copy(area)
        else:
            picture = window.grab()
        picture.save(str(out), "PNG", 9)
        print(f"saved {out} ({out.stat().st_size // 1024} KB)", file=sys.stderr)
        outcome["code"] = 0
        finish()

    def show_first_citation(answer) -> None:
        """The source the viewer shows, selected in the list. The window itself opened the first
        cited passage when the evidence arrived (or the earlier answer was reopened): the picture
        shows what a student sees, nothing clicked; an answer citing nothing opens its nearest passage."""
        first = (answer.citations or answer.passages or (None,))[0]
        if first is not None and not answer.citations:
            window.open_citation(first.n)
        shown = [p.n for p in answer.passages if (p.hit.source, p.hit.anchor) == (window.viewer.guide, window.viewer.anchor)]
        if shown:
            window.sources_list.setCurrentRow(shown[0] - 1)

    def evidence(answer) -> None:
        if state != "evidence" or not window.isVisible():
            return
        print(f"[{state}] evidence after {answer.timings_ms.get('evidence', 0):.0f} ms, "
              f"citations={[p.n for p in answer.citations]}\n{answer.text}", file=sys.stderr)
        show_first_citation(answer)
        window.answer_view.setFocus()
        QTimer.singleShot(300, save)  # the model is still writing (a checked sentence may already be in)

    def answered(answer) -> None:
        if not window.isVisible():  # gave up already: this is the answer cut short by closing
            return
        timings = ", ".join(f"{k} {answer.timings_ms[k]:.0f} ms" for k in ("evidence", "first_verified", "total")
                            if k in answer.timings_ms)
        print(f"[{state}] state={answer.state} degraded={answer.degraded} "
              f"citations={[p.n for p in answer.citations]} checks={answer.checks} ({timings})\n{answer.text}",
              file=sys.stderr)
        if state == "evidence":
            print(f"[{state}] the answer finished before the picture was taken; it shows the final answer",
                  file=sys.stderr)
            return
        if state == "conversation":
            if len(window.conversation) == 1:  # ask the second question, then reopen the first
                window.question_box.setPlainText(follow_up)
                window.ask()
                return
            window.show_exchange(0)
            answer = window.shown.answer
        if state == "too-long":  # now the question that is refused
            window.question_box.setPlainText(TOO_LONG)
            window.ask()
            return
        show_first_citation(answer)
        (window.earlier if state == "conversation" else window.answer_view).setFocus()
        QTimer.singleShot(500, save)

    def ready() -> None:
        if font_size:
            window.apply_font_size(font_size)
        if state in ASKING:
            window.question_box.setPlainText(question)
            window.ask()
        elif state == "start":
            QTimer.singleShot(500, save)
        elif state == "search":
            window.focus_search()
            window.search.box.setText(SEARCH)
            window.search.search()
            window.search.results.setFocus()
            if window.search.results.count():  # another course may have no section on SEARCH: show the empty list
                window.search._activated(window.search.results.item(0))
            QTimer.singleShot(500, save)
        elif state == "viewer":
            match = bundle.search_guides(VIEWER_PASSAGE, 1)[0]
            window.open_location(match.source, match.anchor, match.text)
            window.tabs.setCurrentIndex(TAB_CONTENTS)
            window.contents.setFocus()
            QTimer.singleShot(500, save)
        elif state == "courses":  # the course's contents and its first guide behind the menu
            window.focus_contents()
            guides = [source.path for source in window.bundle.sources()]
            if guides:
                window.open_location("README.md" if "README.md" in guides else guides[0])
            window.activateWindow()
            window.menuBar().setActiveAction(window.course_menu.menuAction())  # as if clicked
            QTimer.singleShot(800, save)

    def give_up() -> None:
        print(f"[{state}] not finished within {timeout:.0f} s", file=sys.stderr)
        finish()

    window.answer_shown.connect(answered)
    window.evidence_shown.connect(evidence)  # in the GUI thread, like answer_shown
    def refused(message: str) -> None:
        print(message, file=sys.stderr)
        if state == "too-long":
            QTimer.singleShot(500, save)
        else:
            finish()

    window.error_shown.connect(refused)
    window.models_loaded.connect(ready)  # in the GUI thread (the worker's own signals are not)
    timer = QTimer(window)
    timer.setSingleShot(True)
    timer.timeout.connect(give_up)
    timer.start(int(timeout * 1000))
    loop.exec()
    window.shutdown()
    if library is not None:  # the temporary course library goes with its window
        window.close_bundles()
        shutil.rmtree(library.parent, ignore_errors=True)
    return outcome["code"]


def dark_palette():
    """A dark palette like a desktop's dark theme (what the window follows from the system)."""
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    for role, colour in ((QPalette.Window, "#2b2b2b"), (QPalette.WindowText, "#e6e6e6"), (QPalette.Base, "#1e1e1e"),
                         (QPalette.AlternateBase, "#333333"), (QPalette.Text, "#e6e6e6"), (QPalette.Button, "#3a3a3a"),
                         (QPalette.ButtonText, "#e6e6e6"), (QPalette.Highlight, "#3d7bd9"),
                         (QPalette.HighlightedText, "#ffffff"), (QPalette.Link, "#8ab4f8"),
                         (QPalette.PlaceholderText, "#a0a0a0"), (QPalette.ToolTipBase, "#3a3a3a"),
                         (QPalette.ToolTipText, "#e6e6e6")):
        palette.setColor(role, QColor(colour))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):  # disabled controls look disabled
        palette.setColor(QPalette.Disabled, role, QColor("#808080"))
    return palette


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "corpus_bundle" / "esp32-starter.sqlite")
    parser.add_argument("--question", default=None,
                        help=f"default: {QUESTION!r} (long-question: Why_do_I_get_ and 300 E)")
    parser.add_argument("--follow-up", default=FOLLOW_UP, help="the second question of --state conversation")
    parser.add_argument("--state", choices=STATES + EXTRA_STATES + ("all",), default="answer")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    parser.add_argument("--dark", action="store_true", help="use a dark palette")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for each state")
    parser.add_argument("--font-size", type=int, default=0, help="font size in points, applied as Settings does")
    parser.add_argument("--fake-reply", default=None, metavar="TEXT",
                        help="load no language model: stream TEXT through the checks instead (layout checks; "
                             "files named screenshot-<state>-fake.png)")
    parser.add_argument("--language", default="", metavar="CODE",
                        help="the window's language, e.g. fr or es (files named screenshot-<state>-<CODE>.png)")
    parser.add_argument("--size", default=f"{SIZE[0]}x{SIZE[1]}", metavar="WxH",
                        help=f"the window's size in pixels (default {SIZE[0]}x{SIZE[1]}; others are added to the file names)")
    args = parser.parse_args()
    try:
        size = tuple(int(n) for n in args.size.lower().split("x", 1))
    except ValueError:
        size = ()
    if len(size) != 2 or min(size) < 200:
        parser.error(f"--size {args.size!r} is not WIDTHxHEIGHT in pixels, each at least 200 (e.g. 1366x768)")

    os.environ["LANTERN_CONFIG_DIR"] = tempfile.mkdtemp(prefix="lantern-shot-")
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Lantern")
    if args.language:
        from app.gui.translation import install_translators

        if install_translators(args.language) != args.language:
            parser.error(f"the window has no {args.language!r} translation (app/gui/translations/)")
    if args.dark:
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    bundle = BundleReader(args.bundle)
    code = 0
    for state in STATES if args.state == "all" else (args.state,):
        saved = {name: os.environ.get(name) for name in ("LANTERN_MODELS_DIR", "LANTERN_COURSES_DIR")}
        if state == "degraded":
            os.environ["LANTERN_MODELS_DIR"] = tempfile.mkdtemp(prefix="lantern-no-models-")
        try:
            name = (f"screenshot-{state}{'-dark' if args.dark else ''}"
                    f"{f'-font{args.font_size}' if args.font_size else ''}"
                    f"{'-fake' if args.fake_reply is not None and state != 'degraded' else ''}"
                    f"{f'-{size[0]}x{size[1]}' if size != SIZE else ''}"
                    f"{f'-{args.language}' if args.language else ''}.png")
            question = args.question or (LONG_QUESTION if state == "long-question" else QUESTION)
            code |= take(state, bundle, question, args.out_dir / name, args.timeout, args.follow_up,
                         args.font_size, args.fake_reply, (size[0], size[1]))
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return code


if __name__ == "__main__":
    raise SystemExit(main())
