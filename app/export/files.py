"""Writing an export: the format named by the file name, and an atomic write that leaves either
the whole file or nothing (no Qt).

A problem is one sentence naming it and the fix (:class:`ExportError`); the temporary file is
removed and a file already at the path is left as it was.
"""

from __future__ import annotations

import errno
import os
import uuid
from pathlib import Path
from typing import Callable

from ..errors import LanternError

#: File name endings -> export format.
FORMATS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html", ".pdf": "pdf"}
#: The ending each format gets when a file name has none.
SUFFIXES = {"markdown": ".md", "html": ".html", "pdf": ".pdf"}


class ExportError(LanternError):
    """An export that could not be written (one sentence naming the problem and the fix)."""


def export_format(path: Path) -> str:
    """``markdown``, ``html`` or ``pdf`` by ``path``'s ending (:data:`FORMATS`, any case). Raises
    :class:`ExportError` for any other ending."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        shown = f'ends in "{suffix}"' if suffix else "has no ending"
        raise ExportError(f"The file name {path.name} {shown}; end it in .md (Markdown), .html (a web page) "
                          "or .pdf to choose the format.")
    return FORMATS[suffix]


def _problem(path: Path, exc: OSError) -> ExportError:
    why = {errno.ENOENT: f"the folder {path.parent} does not exist",
           errno.EACCES: f"Lantern may not write in {path.parent} (permission denied)",
           errno.EPERM: f"Lantern may not write in {path.parent} (not permitted)",
           errno.EROFS: f"{path.parent} is on a read-only disk",
           errno.ENOSPC: f"the disk holding {path.parent} is full",
           errno.EISDIR: f"{path} is a folder",
           errno.ENOTDIR: f"{path.parent} is not a folder"}.get(exc.errno or 0, f"{exc.strerror or exc}")
    return ExportError(f"Could not save {path.name}: {why}; nothing was written. Choose another folder or file name.")


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Make ``path`` hold what ``write(temporary_path)`` writes: a temporary file beside ``path`` is
    filled, then renamed over it, so a reader sees the old file or the whole new one. Raises
    :class:`ExportError` (temporary file removed, ``path`` untouched) when the folder is missing or
    not writable, ``path`` is a folder or not a regular file, the disk is full, or ``write`` raises
    ``OSError`` or :class:`ExportError`."""
    path = Path(path)
    if path.is_dir():
        raise ExportError(f"{path} is a folder; give a file name ending in .md, .html or .pdf.")
    if path.exists() and not path.is_file():
        raise ExportError(f"{path} is not a regular file (a device or a pipe); choose another file name.")
    tmp = path.parent / f".{path.name[:40]}.{os.getpid()}.{uuid.uuid4().hex[:8]}.part"
    try:  # 0o666 less the umask, as any new file of the user's
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666))
    except OSError as exc:
        raise _problem(path, exc) from exc
    try:
        write(tmp)
        if tmp.stat().st_size == 0:
            raise ExportError(f"Could not save {path.name}: nothing was produced; try again or choose another format.")
        os.replace(tmp, path)
    except OSError as exc:
        raise _problem(path, exc) from exc
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: Path, text: str) -> None:
    """:func:`write_atomically` of ``text`` as UTF-8 (newlines as ``\\n``)."""
    write_atomically(path, lambda tmp: tmp.write_bytes(text.encode("utf-8")))


def write_document(path: Path, markdown: Callable[[], str], html: Callable[[], str], title: str = "") -> str:
    """Write an export at ``path`` in the format its ending names (:func:`export_format`):
    ``markdown()`` or ``html()`` as UTF-8, or ``html()`` printed to PDF by Qt
    (:func:`app.export.printing.write_pdf`, ``title`` in its properties); atomically. Returns the
    format. Raises :class:`ExportError` (one sentence; nothing written)."""
    fmt = export_format(path)
    if fmt == "markdown":
        write_text(path, markdown())
    elif fmt == "html":
        write_text(path, html())
    else:
        from .printing import write_pdf

        page = html()
        write_atomically(path, lambda tmp: write_pdf(page, tmp, title))
    return fmt
