"""What build.spec leaves out of the one-folder installer, and how (issue 12: installer size).

PyInstaller collects more than Lantern loads. These functions take the Analysis' binaries (a list
of ``(dest_name, src_name, typecode)`` tuples) and return a smaller list; build.spec applies them in
this order and prints what each saved. They never touch the source files.

- :func:`drop_unused_qt_plugins`: Qt plugins for platforms and devices a desktop lab PC does not use
  (framebuffer, EGLFS, VNC, evdev and TUIO input, image formats the guides cannot reference, the
  GTK3 theme that would pull GTK's cairo/pango/gio stack in);
- :func:`prune_orphans`: the libraries only those plugins needed (QtNetwork, Kerberos, cairo, …);
- :func:`dedupe_llama_libs`: llama.cpp's wheel holds each library three times (``libllama.so``,
  ``.so.0`` and ``.so.0.5.0``: wheels cannot hold symbolic links): one real file, the other names as
  symbolic links; ``libmtmd`` (images for multimodal models) is left out;
- :func:`strip_binaries`: symbol tables removed from the libraries that still carry them
  (``libpython`` alone: 23 MB to 6 MB), into copies under the build folder.

Linux only: on Windows and macOS build.spec does not call them (their libraries differ).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

Toc = list[tuple[str, str, str]]

#: Qt plugins (paths under ``PySide6/Qt/plugins/``, fnmatch-style prefixes) the app never loads.
#: Kept: platforms xcb, wayland, offscreen and minimal; the input contexts (compose, IBus: accented
#: and CJK typing); the desktop portal theme; the image formats of the guides (png built in, jpeg,
#: gif, webp, svg, ico); the Wayland client integrations.
UNUSED_QT_PLUGINS = (
    "egldeviceintegrations/",            # EGLFS on bare hardware (kiosks, boards)
    "generic/",                           # evdev and TUIO input without a window system
    "platforms/libqeglfs.",
    "platforms/libqlinuxfb.",
    "platforms/libqminimalegl.",
    "platforms/libqvkkhrdisplay.",
    "platforms/libqvnc.",
    "platformthemes/libqgtk3.",           # pulls in GTK's cairo, pango, gdk-pixbuf, gio and atk
    "imageformats/libqtiff.",
    "imageformats/libqicns.",
    "imageformats/libqtga.",
    "imageformats/libqwbmp.",
    "wayland-shell-integration/libfullscreen-shell-v1.",
    "wayland-shell-integration/libivi-shell.",
    "wayland-shell-integration/libwl-shell-plugin.",
)
QT_PLUGINS = "PySide6/Qt/plugins/"


def _posix(name: str) -> str:
    return name.replace("\\", "/")


def drop_unused_qt_plugins(toc: Toc) -> tuple[Toc, Toc]:
    """``(kept, dropped)``: ``toc`` without the plugins of :data:`UNUSED_QT_PLUGINS`."""
    kept, dropped = [], []
    for entry in toc:
        dest = _posix(entry[0])
        rel = dest[len(QT_PLUGINS):] if dest.startswith(QT_PLUGINS) else None
        (dropped if rel is not None and rel.startswith(UNUSED_QT_PLUGINS) else kept).append(entry)
    return kept, dropped


def _is_shared_library_dependency(dest: str) -> bool:
    """A library PyInstaller collected as a dependency: top level of the bundle, or Qt's own lib folder."""
    dest = _posix(dest)
    return "/" not in dest or dest.startswith("PySide6/Qt/lib/")


def prune_orphans(kept: Toc, dropped: Toc, needed: Callable[[str], Iterable[str]]) -> tuple[Toc, Toc]:
    """``(kept, pruned)``: remove from ``kept`` the dependency libraries that some ``dropped`` binary
    needs and no kept binary needs. ``needed(src)`` lists the file names a binary loads, directly or
    through other libraries (as ``ldd`` reports them). A library nothing here needs (loaded by
    ctypes, or a dependency of a system library) is never pruned."""
    wanted_by_dropped: set[str] = set()
    for _, src, typecode in dropped:
        if typecode in ("BINARY", "EXTENSION"):
            wanted_by_dropped.update(needed(src))
    wanted_by_kept: set[str] = set()
    for dest, src, typecode in kept:
        if typecode in ("BINARY", "EXTENSION") and PurePosixPath(_posix(dest)).name not in wanted_by_dropped:
            wanted_by_kept.update(needed(src))
    # ``needed`` is transitive, so a library some kept binary needs through others is in wanted_by_kept;
    # libraries only the dropped plugins need do not vouch for their own dependencies.
    pruned = [e for e in kept if e[2] == "BINARY" and _is_shared_library_dependency(e[0])
              and PurePosixPath(_posix(e[0])).name in wanted_by_dropped
              and PurePosixPath(_posix(e[0])).name not in wanted_by_kept]
    return [e for e in kept if e not in pruned], pruned


def ldd_needed(src: str) -> list[str]:
    """The file names ``src`` loads, directly or not (``ldd``); [] when ldd cannot say."""
    try:
        out = subprocess.run(["ldd", src], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    names = []
    for line in out.splitlines():
        match = re.match(r"\s*(\S+)\s+=>", line)
        if match:
            names.append(PurePosixPath(match.group(1)).name)
    return names


LLAMA_LIB = "llama_cpp/lib/"
#: llama.cpp libraries Lantern never loads: multimodal (image) projection.
UNUSED_LLAMA = ("libmtmd", "libllava")


def _digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dedupe_llama_libs(toc: Toc) -> tuple[Toc, list[str]]:
    """``(toc, notes)``: in ``llama_cpp/lib/``, identical files become one real file (the name that
    ends in ``.so.N``, the library's soname) and symbolic links to it; :data:`UNUSED_LLAMA` are left out."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    out: Toc = []
    notes = []
    for entry in toc:
        dest = _posix(entry[0])
        if not dest.startswith(LLAMA_LIB) or entry[2] != "BINARY":
            out.append(entry)
            continue
        name = PurePosixPath(dest).name
        if name.startswith(UNUSED_LLAMA):
            notes.append(f"left out {dest}")
            continue
        groups.setdefault(_digest(entry[1]), []).append(entry)
    for entries in groups.values():
        names = [PurePosixPath(_posix(e[0])).name for e in entries]
        sonames = [n for n in names if re.search(r"\.so\.\d+$", n)]
        real = sonames[0] if sonames else names[0]
        for entry, name in zip(entries, names):
            if name == real:
                out.append(entry)
            else:
                out.append((entry[0], real, "SYMLINK"))
                notes.append(f"{_posix(entry[0])} -> {real}")
    return out, notes


def _has_symbol_table(path: str) -> bool:
    """True when the ELF file at ``path`` has a ``.symtab`` section (``strip`` would remove it)."""
    try:
        out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return " .symtab " in out


def strip_binaries(toc: Toc, cache: Path) -> tuple[Toc, int]:
    """``(toc, bytes saved)``: each binary with a symbol table is replaced by a copy under ``cache``
    stripped with ``strip --strip-unneeded`` (its dynamic symbols stay, so it links as before).
    Libraries repaired by auditwheel (under a ``*.libs/`` folder) are left as they are: strip can
    break files patchelf has rewritten. Without ``strip`` and ``readelf`` nothing changes."""
    if not (shutil.which("strip") and shutil.which("readelf")):
        return toc, 0
    out: Toc = []
    saved = 0
    for dest, src, typecode in toc:
        parts = PurePosixPath(_posix(dest)).parts
        if typecode not in ("BINARY", "EXTENSION") or any(p.endswith(".libs") for p in parts[:-1]) \
                or not _has_symbol_table(src):
            out.append((dest, src, typecode))
            continue
        target = cache / hashlib.sha256(_posix(dest).encode()).hexdigest()[:16] / parts[-1]
        if not target.is_file() or target.stat().st_mtime < Path(src).stat().st_mtime:
            target.parent.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(["strip", "--strip-unneeded", "-o", str(target), src], capture_output=True)
            if done.returncode != 0:
                out.append((dest, src, typecode))
                continue
        saved += Path(src).stat().st_size - target.stat().st_size
        out.append((dest, str(target), typecode))
    return out, saved
