"""The window's log file: where "the details are in the log" points (issue 13, item 8).

The desktop app has no console on Windows, so the window writes its warnings and unexpected
errors to a small rotating file in the user's log folder (platformdirs' ``user_log_dir``:
``~/.local/state/lantern/log`` on Linux, ``%LOCALAPPDATA%\\lantern\\Logs`` on Windows;
``LANTERN_LOG_DIR`` overrides it). Nothing a student types is ever logged: log lines name what
failed, never the question or the answer (docs/security.md). The command line logs to stderr
only.
"""

from __future__ import annotations

import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path

#: File name, most bytes per file before it rotates, and how many older files are kept
#: (at most 4 × 512 KB on disk).
LOG_NAME = "lantern.log"
MAX_BYTES = 512 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_folder() -> Path:
    """``$LANTERN_LOG_DIR``, else platformdirs' user log folder for "lantern"."""
    override = os.environ.get("LANTERN_LOG_DIR")
    if override:
        return Path(override)
    from platformdirs import user_log_dir

    return Path(user_log_dir("lantern", appauthor=False))


def current_log_file() -> Path | None:
    """The file the log is being written to, or None when :func:`start_log_file` has not run or
    could not create it."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, RotatingFileHandler) and getattr(handler, "lantern", False):
            return Path(handler.baseFilename)
    return None


def start_log_file(level: int = logging.INFO) -> Path | None:
    """Send log records of ``level`` and above to the rotating log file (once per process) and
    return its path; None when the folder cannot be created or written (a read-only home: the
    app keeps running, logging to stderr only)."""
    existing = current_log_file()
    if existing is not None:
        return existing
    folder = log_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(folder / LOG_NAME, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                      encoding="utf-8")
    except OSError as exc:
        logging.getLogger(__name__).warning("no log file in %s (%s)", folder, exc.strerror or exc)
        return None
    handler.lantern = True  # type: ignore[attr-defined]
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    if root.level > level or root.level == logging.NOTSET:
        for other in root.handlers:  # the terminal keeps showing what it showed before
            if other.level == logging.NOTSET:
                other.setLevel(root.level or logging.WARNING)
        root.setLevel(level)
    root.addHandler(handler)
    return Path(handler.baseFilename)


def details_hint() -> str:
    """Where the details of an unexpected error are, for a one-sentence message:
    "the details are in /path/lantern.log" or, without a log file, "…printed to the terminal"."""
    path = current_log_file()
    return f"the details are in {path}" if path else "the details were printed to the terminal"
