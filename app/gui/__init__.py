"""The desktop window (PySide6). The only package that imports Qt.

:func:`run_gui` is what ``lantern`` runs without arguments.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

log = logging.getLogger(__name__)

NO_DISPLAY_MESSAGE = ("Lantern's window needs a graphical display and none was found; "
                      "ask from the terminal instead: lantern ask --bundle BUNDLE \"your question\"")


def has_display() -> bool:
    """False on Linux/BSD when no display server is reachable and no Qt platform is forced."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _install_excepthook() -> None:
    """Log unexpected exceptions and show them in a dialog instead of ending the app."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    def hook(kind, value, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        log.error("unexpected error", exc_info=(kind, value, tb))
        if QApplication.instance() is not None:
            QMessageBox.critical(None, "Lantern",
                                 f"Something went wrong ({kind.__name__}: {value}). Lantern keeps running; "
                                 "the details are in the log.")

    sys.excepthook = hook


def run_gui(bundle_path: Path | None, model_path: Path | None) -> int:
    """Open the window on ``bundle_path`` (default: :func:`app.config.default_bundle`, else a
    file dialog) with the chat model ``model_path`` (default: the settings' or manifest's).
    Returns the process exit code: 0 after the window closes, 1 when it cannot open."""
    if not has_display():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return 1
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

    from ..config import Settings, default_bundle, settings_problems
    from ..errors import LanternError
    from .courses import CourseSwitcher
    from .workers import load_assistant

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Lantern")
    _install_excepthook()
    settings = Settings.load()
    if settings.font_size:
        font = QFont(app.font())
        font.setPointSize(settings.font_size)
        app.setFont(font)

    path = bundle_path or default_bundle()
    if path is None:
        chosen, _ = QFileDialog.getOpenFileName(None, "Open a course bundle", "", "Course bundles (*.sqlite)")
        if not chosen:
            print("No course bundle chosen; build one with `lantern build COURSE_FOLDER -o BUNDLE`.", file=sys.stderr)
            return 1
        path = Path(chosen)
    # One window at a time; the Course menu switches course without restarting (courses.py).
    switcher = CourseSwitcher(lambda bundle: (lambda report: load_assistant(bundle, model_path, report)))
    try:
        window = switcher.open(Path(path))
    except LanternError as exc:
        print(str(exc), file=sys.stderr)
        QMessageBox.critical(None, "Lantern", str(exc))
        return 1
    problems = settings_problems()
    if problems:  # a hand-edited settings file: say what was ignored, then go on with the defaults
        print("\n".join(f"warning: {p}" for p in problems), file=sys.stderr)
        window._show_note(" ".join(problems))
    code = app.exec()
    switcher.window.shutdown()
    return int(code)


__all__ = ["run_gui", "has_display", "NO_DISPLAY_MESSAGE"]
