"""What build.spec leaves out of the one-folder installer, and how (issue 12: installer size).

PyInstaller collects more than Lantern loads. These functions take the Analysis' binaries (a list
of ``(dest_name, src_name, typecode)`` tuples) and return a smaller list; build.spec applies them in
this order and prints what each saved. They never touch the source files.

- :func:`drop_unused_qt_plugins`: Qt plugins for platforms and devices a desktop lab PC does not use
  (framebuffer, EGLFS, VNC, evdev and TUIO input, image formats the guides cannot reference, the
  GTK3 theme that would pull GTK's cairo/pango/gio stack in);
- :func:`prune_orphans`: the libraries only those plugins needed (QtNetwork, Kerberos, cairo, …);
- :func:`leave_cups_to_the_system`: libcups and what only it needs (GnuTLS, Kerberos, …), while Qt's
  CUPS print plugin stays and uses the system's libcups;
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
#: gif, webp, svg, ico); the Wayland shell integrations and window decorations.
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
    # OpenGL contexts on X11 and Wayland (EGL, GLX, dma-buf, Vulkan buffers) and QtOpenGL, which only
    # these need: the window is Qt Widgets painted in software (no QOpenGLWidget, Qt Quick or web view),
    # which X11 and Wayland (wl_shm buffers) show without them
    "xcbglintegrations/",
    "wayland-graphics-integration-client/",
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


#: Qt's print-support plugin for CUPS (File > Print… to a printer).
CUPS_PLUGIN = QT_PLUGINS + "printsupport/libcupsprintersupport."


def leave_cups_to_the_system(toc: Toc, needed: Callable[[str], Iterable[str]]) -> tuple[Toc, Toc]:
    """``(kept, left out)``: ``toc`` without libcups and the libraries only it needs (GnuTLS,
    Kerberos, Avahi, p11-kit, libunistring, …: about 8 MB), but with Qt's CUPS print-support plugin,
    which at run time loads the system's libcups: a PC that prints has it (CUPS is how Linux prints),
    and where it is absent the plugin does not load and Qt's print dialog offers PDF files only.
    Saving PDF (QPdfWriter, ``lantern export``) needs none of these libraries. ``needed`` is as in
    :func:`prune_orphans`."""
    plugin = [e for e in toc if _posix(e[0]).startswith(CUPS_PLUGIN)]
    _, left_out = prune_orphans([e for e in toc if e not in plugin], plugin, needed)
    return [e for e in toc if e not in left_out], left_out


#: auditwheel's name for a library it vendored into ``<package>.libs/``: ``libXau-154567c4.so.6.0.0``.
_VENDORED = re.compile(r"^(lib.+)-[0-9a-f]{8}\.so\.(\d+)(?:\.\d+)*$")


def link_wheel_duplicates(toc: Toc, needed: Callable[[str], Iterable[str]],
                          imports: Callable[[str], set[str]], exports: Callable[[str], set[str]]) -> tuple[Toc, list[str]]:
    """``(toc, notes)``: a library a wheel vendored (``pillow.libs/libXau-154567c4.so.6.0.0``) that the
    installer also holds at its top level under the same soname (``libXau.so.6``) becomes a symbolic
    link to that one, when every symbol the files needing it take from it is one the top-level copy
    defines, in the same symbol version (so nothing can fail to resolve, when loaded or later); when
    the symbols cannot be read (no ``nm``), nothing changes. ``needed(src)``: the names a file links to
    directly (its DT_NEEDED); ``imports(src)`` / ``exports(src)``: its undefined / defined dynamic
    symbols as ``name@VERSION`` (or ``name``)."""
    top = {_posix(d): s for d, s, t in toc if t == "BINARY" and "/" not in _posix(d)}
    users: dict[str, list[str]] = {}
    for _, src, typecode in toc:
        if typecode in ("BINARY", "EXTENSION"):
            for name in needed(src):
                users.setdefault(name, []).append(src)
    out: Toc = []
    notes = []
    for dest, src, typecode in toc:
        path = PurePosixPath(_posix(dest))
        match = _VENDORED.match(path.name)
        twin = f"{match.group(1)}.so.{match.group(2)}" if match else ""
        if typecode == "BINARY" and len(path.parts) == 2 and path.parts[0].endswith(".libs") and twin in top:
            taken = set().union(*(imports(u) for u in users.get(path.name, []))) & exports(src)
            if taken and taken <= exports(top[twin]):
                out.append((dest, f"../{twin}", "SYMLINK"))
                notes.append(f"{path} -> ../{twin}")
                continue
        out.append((dest, src, typecode))
    return out, notes


def _dynamic_symbols(src: str, defined: bool) -> set[str]:
    """The dynamic symbols of ``src`` (``nm -D``: ``name@VERSION`` or ``name``) that it defines or,
    ``defined=False``, that it takes from other libraries; the empty set when nm cannot say."""
    flag = "--defined-only" if defined else "--undefined-only"
    try:
        out = subprocess.run(["nm", "-D", flag, src], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return {line.split()[-1].replace("@@", "@") for line in out.splitlines() if line.strip()}


def imported_symbols(src: str) -> set[str]:
    """The symbols ``src`` takes from other libraries (``nm -D --undefined-only``)."""
    return _dynamic_symbols(src, defined=False)


def exported_symbols(src: str) -> set[str]:
    """The symbols ``src`` defines (``nm -D --defined-only``)."""
    return _dynamic_symbols(src, defined=True)


def readelf_needed(src: str) -> list[str]:
    """The libraries ``src`` names as DT_NEEDED (``readelf -d``: direct ones only); [] when readelf cannot say."""
    try:
        out = subprocess.run(["readelf", "-d", "-W", src], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


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
