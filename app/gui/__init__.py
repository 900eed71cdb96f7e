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


#: Debian/Ubuntu packages whose name does not follow "library name + major version".
_DEBIAN_PACKAGES = {"libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0",
                    "libGL.so.1": "libgl1", "libEGL.so.1": "libegl1", "libfontconfig.so.1": "libfontconfig1",
                    "libX11.so.6": "libx11-6", "libdbus-1.so.3": "libdbus-1-3"}


def _debian_package(soname: str) -> str:
    """The Debian/Ubuntu package that usually ships ``soname`` (``libxcb-icccm.so.4`` ->
    ``libxcb-icccm4``, ``libxkbcommon-x11.so.0`` -> ``libxkbcommon-x11-0``)."""
    if soname in _DEBIAN_PACKAGES:
        return _DEBIAN_PACKAGES[soname]
    name, _, version = soname.partition(".so.")
    name = name.lower()
    return f"{name}-{version}" if name[-1:].isdigit() else f"{name}{version}"


def missing_window_library() -> str | None:
    """On Linux with X11 (``QT_QPA_PLATFORM`` unset or ``xcb``, no Wayland session), a sentence
    naming the first system library Qt's xcb platform plugin needs and cannot find, with the
    package to install; else None. Without this check Qt prints its own message and aborts the
    process (exit 134). Loads the plugin with ``dlopen`` (about 10 ms); raises nothing."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or not (platform.startswith("xcb") or
                                                     (not platform and not os.environ.get("WAYLAND_DISPLAY"))):
        return None
    import ctypes
    import re

    try:
        from PySide6.QtCore import QLibraryInfo

        plugin = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms" / "libqxcb.so"
        if not plugin.is_file():
            return None
        ctypes.CDLL(str(plugin), mode=os.RTLD_LAZY)
    except OSError as exc:
        match = re.search(r"([\w.+-]+\.so(?:\.\d+)*): cannot open shared object file", str(exc))
        if not match:
            return None
        library = match.group(1)
        package = _debian_package(library)
        return (f"Lantern's window needs the system library {library}, which is not installed; install it "
                f"(on Debian or Ubuntu: sudo apt install {package}) or ask from the terminal instead: "
                "lantern ask --bundle BUNDLE \"your question\"")
    except Exception:  # an unusual Qt installation: let Qt try
        return None
    return None


def _install_excepthook() -> None:
    """Log unexpected exceptions and show them in a dialog instead of ending the app."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from .translation import details_words, tr

    def hook(kind, value, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        log.error("unexpected error", exc_info=(kind, value, tb))
        if QApplication.instance() is not None:
            QMessageBox.critical(None, "Lantern",
                                 tr("Something went wrong ({problem}). Lantern keeps running; {details}.").format(
                                     problem=f"{kind.__name__}: {value}", details=details_words()))

    sys.excepthook = hook


def run_gui(bundle_path: Path | None, model_path: Path | None) -> int:
    """Open the window on ``bundle_path`` (default: :func:`app.bundle.library.default_bundle`, else a
    file dialog) with the chat model ``model_path`` (default: the settings' or manifest's).
    Returns the process exit code: 0 after the window closes, 1 when it cannot open."""
    problem = NO_DISPLAY_MESSAGE if not has_display() else missing_window_library()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from ..config import settings_problems
    from .courses import CourseSwitcher
    from .workers import exit_if_workers_stuck, load_assistant

    app = _start_application()
    path = _chosen_bundle(bundle_path)
    if path is None:
        return 1
    # One window at a time; the Course menu switches course without restarting (courses.py).
    switcher = CourseSwitcher(lambda bundle: (lambda report: load_assistant(bundle, model_path, report)))
    window = _open_window(switcher, path)
    if window is None:
        return 1
    problems = settings_problems()
    if problems:  # a hand-edited settings file: say what was ignored, then go on with the defaults
        print("\n".join(f"warning: {p}" for p in problems), file=sys.stderr)
        noted = [p for p in problems if p not in window.feedback.lab_problems]  # those stay in view already
        if noted:
            window._show_note(" ".join(noted))
    code = app.exec()
    if switcher.window is not None:  # the window open at the end (the course may have been switched)
        switcher.window.shutdown()
    # A worker stuck in a loop (it was set aside when Stop or closing did not end it within
    # seconds) would keep the process running, or Qt would abort deleting its thread: end now.
    exit_if_workers_stuck(int(code))
    return int(code)


def _start_application():
    """The QApplication, with the log file, the error dialog, the settings' language and font size,
    and the garbage collector moved to the GUI thread."""
    from PySide6.QtWidgets import QApplication

    from ..config import Settings
    from ..logfile import start_log_file
    from .appearance import apply_font_size
    from .collector import start_collector
    from .translation import install_translators

    start_log_file()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Lantern")
    start_collector(app)  # garbage is collected in this (the GUI) thread only: app/gui/collector.py
    _install_excepthook()
    settings = Settings.load()
    install_translators(settings.ui_language)  # the settings' language, else the system's; English without a .qm
    if settings.font_size:
        apply_font_size(settings.font_size)
    return app


def _chosen_bundle(bundle_path: Path | None) -> Path | None:
    """``bundle_path``, else the default bundle, else one the student chooses; None when none is chosen."""
    from PySide6.QtWidgets import QFileDialog

    from ..bundle.library import default_bundle
    from .translation import tr

    path = bundle_path or default_bundle()
    if path is None:
        chosen, _ = QFileDialog.getOpenFileName(None, tr("Open a course bundle"), "", tr("Course bundles (*.sqlite)"))
        if not chosen:
            print("No course bundle chosen; build one with `lantern build COURSE_FOLDER -o BUNDLE`.", file=sys.stderr)
            return None
        path = Path(chosen)
    return path


def _open_window(switcher, path: Path):
    """The window over the bundle at ``path``; a bundle that cannot be opened: say why, then offer to
    choose another one. None when the student chooses none."""
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from ..errors import LanternError
    from .translation import tr

    while True:
        try:
            return switcher.open(Path(path))
        except LanternError as exc:
            print(str(exc), file=sys.stderr)
            QMessageBox.critical(None, "Lantern", str(exc))
            chosen, _ = QFileDialog.getOpenFileName(None, tr("Open another course bundle"), str(Path(path).parent),
                                                    tr("Course bundles (*.sqlite)"))
            if not chosen:
                return None
            path = Path(chosen)


__all__ = ["run_gui", "has_display", "NO_DISPLAY_MESSAGE"]
