#!/usr/bin/env python3
"""Where the one-folder installer's size goes: `python3 scripts/dist_sizes.py [dist/lantern ...]`.

Prints a Markdown table (MiB on disk, as `du` counts them; symbolic links count nothing), one
column per folder, so a build before and after a change to build.spec can be compared
(docs/instructors.md, section 7).
"""

from __future__ import annotations

import sys
from pathlib import Path

#: (label, test on the path relative to ``_internal/``), first match wins.
GROUPS = [
    ("chat model (GGUF)", lambda p: p.startswith("models/") and p.endswith(".gguf")),
    ("embedding model (ONNX)", lambda p: p.startswith("models/")),
    ("course bundle", lambda p: p.startswith("corpus_bundle/")),
    ("Qt: ICU (Unicode and locale data)", lambda p: p.startswith("PySide6/Qt/lib/libicu")),
    ("Qt: libraries", lambda p: p.startswith("PySide6/Qt/lib/")),
    ("Qt: plugins", lambda p: p.startswith("PySide6/Qt/plugins/")),
    ("Qt: translations", lambda p: p.startswith("PySide6/Qt/translations/")),
    ("PySide6 bindings", lambda p: p.startswith(("PySide6/", "shiboken6/"))),
    ("ONNX Runtime", lambda p: p.startswith("onnxruntime/")),
    ("llama.cpp", lambda p: p.startswith("llama_cpp/")),
    ("NumPy (with OpenBLAS)", lambda p: p.startswith(("numpy/", "numpy.libs/"))),
    ("tokenizers", lambda p: p.startswith("tokenizers/")),
    ("Pillow", lambda p: p.startswith(("PIL/", "pillow.libs/"))),
    ("cryptography", lambda p: p.startswith("cryptography/")),
    ("Python runtime and the app's code", lambda p: p.startswith(("libpython", "python3", "base_library.zip", "../"))),
    ("system libraries (X11, xcb, OpenSSL, glib, …)", lambda p: "/" not in p and p.startswith("lib")),
]
OTHER = "other Python packages"


def breakdown(folder: Path) -> dict[str, int]:
    """Bytes on disk per group of :data:`GROUPS` (and :data:`OTHER`) in one installer folder."""
    internal = folder / "_internal"
    sizes: dict[str, int] = {}
    for path in folder.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(internal).as_posix() if path.is_relative_to(internal) else "../" + path.name
        label = next((name for name, test in GROUPS if test(rel)), OTHER)
        sizes[label] = sizes.get(label, 0) + path.stat().st_blocks * 512
    return sizes


def table(folders: list[Path]) -> str:
    """The Markdown table of :func:`breakdown` for ``folders``, one column each, with a total row."""
    data = [breakdown(f) for f in folders]
    labels = [name for name, _ in GROUPS] + [OTHER]
    rows = ["| part | " + " | ".join(str(f) for f in folders) + " |", "|---|" + "---:|" * len(folders)]
    for label in labels:
        if any(d.get(label) for d in data):
            rows.append(f"| {label} | " + " | ".join(f"{d.get(label, 0) / 2**20:.1f}" for d in data) + " |")
    rows.append("| **total (MiB)** | " + " | ".join(f"**{sum(d.values()) / 2**20:.0f}**" for d in data) + " |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv] or [Path("dist/lantern")]
    missing = [f for f in folders if not (f / "_internal").is_dir()]
    if missing:
        print(f"{missing[0]} is not an installer folder (no _internal/ in it); run `make dist` first.", file=sys.stderr)
        return 1
    print(table(folders))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
