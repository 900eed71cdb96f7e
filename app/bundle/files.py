"""Durable file operations for installing bundles: copies flushed to disk, atomic kept copies,
renames flushed in their folder."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

#: Bytes per read when copying a bundle.
COPY_CHUNK = 1 << 20


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (the renames) to disk where the OS allows it (not on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def copy_flushed(source: Path, dest: Path) -> None:
    """Copy ``source`` to ``dest`` and flush ``dest`` to disk. Raises OSError."""
    with open(source, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out, COPY_CHUNK)
        out.flush()
        os.fsync(out.fileno())


def keep_copy(current: Path, keep: Path, folder: Path) -> None:
    """Make ``keep`` a complete copy of ``current`` (a hard link when possible), atomically."""
    tmp = folder / f".{keep.name}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        try:
            os.link(current, tmp)
        except OSError:
            copy_flushed(current, tmp)
        os.replace(tmp, keep)
    finally:
        if tmp.exists():
            tmp.unlink()
