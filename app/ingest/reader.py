"""Walk a course folder and read the guides it holds.

Which files are read (DESIGN.md, "Sources read"): Markdown, plain text, HTML, PDF and
code samples with the extensions below; hidden files and folders, ``LICENSE*`` files and
build output folders are skipped; ``include``/``exclude`` globs (matched against the
POSIX path relative to the course root) change that. A file that is not UTF-8 is decoded
in the legacy encoding charset-normalizer detects (``encoding.py``; Windows-1252 and its
neighbours, Shift_JIS...) and the encoding is named in a warning; a UTF-8 file with a few
damaged bytes, or one no encoding fits, is decoded with U+FFFD replacement characters and
reported as a warning; empty files are skipped with
a note. HTML and PDF files are converted to Markdown text (``html.py``, ``pdf.py``), and so are
Word, PowerPoint, OpenDocument, EPUB and notebook files (:mod:`app.formats`, up to
``MAX_DOCUMENT_BYTES``; legacy ``.doc``/``.ppt`` files are skipped with the fix): that
text is what the bundle stores and what character spans refer to, while ``sha256`` and
``size_bytes`` describe the file's bytes. A file that cannot be read or converted is
skipped with a warning giving the reason; the build goes on. A file that is a link to
something outside the course folder is skipped with a warning (a bundle goes to students; it
must hold only what the folder holds), and so is a file with NUL bytes that is not UTF-16
text (a binary file with a text extension), and a file or folder whose name is not valid UTF-8
(a bundle stores paths as text; on POSIX such names reach Python as lone surrogates). Images referenced by guides are collected
separately as assets. In Markdown guides, lines that are only a site generator's markup
(fenced-div markers, kramdown attribute lists, Liquid tags) are emptied
(:func:`app.ingest.site_markup.blank_site_markup`), and MyST (Jupyter Book) directives and roles
become the Markdown they show (:func:`app.ingest.markdown.unwrap_myst`); Jekyll's site-root variables
in link and image targets become relative paths (:func:`app.ingest.site_markup.expand_site_roots`).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CourseFolderError
from ..formats.base import UnreadableDocument
from ..formats.convert import convert_document
from ..formats.kinds import FORMAT_KINDS, LEGACY_FORMATS, MAX_DOCUMENT_BYTES
from ..records import SourceDoc
from .encoding import detect_legacy_encoding, encoding_label, mostly_utf8
from .html import html_to_markdown
from .markdown import myst_labels, unwrap_myst
from .pdf import UnreadablePdf, pdf_to_markdown
from .site_markup import blank_site_markup, expand_site_roots

MARKDOWN_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".mdx": "markdown"}
TEXT_EXTENSIONS = {".txt": "text", ".rst": "text"}
HTML_EXTENSIONS = {".html": "html", ".htm": "html", ".xhtml": "html"}
PDF_EXTENSIONS = {".pdf": "pdf"}
#: Code sample extensions and the language each is labelled with.
CODE_EXTENSIONS = {
    ".py": "python", ".ino": "arduino", ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp",
    ".cc": "cpp", ".js": "javascript", ".ts": "typescript", ".cs": "csharp", ".java": "java",
    ".go": "go", ".rs": "rust", ".sh": "bash", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml", ".ini": "ini",
}
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".svg": "image/svg+xml", ".webp": "image/webp"}
SKIPPED_DIRS = {"node_modules", "build", "dist", "__pycache__", ".pio", "venv", ".venv", "site", "_build"}
#: Files larger than this are skipped with a warning (bytes); guides are never this big.
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass
class ReadReport:
    """What reading a course folder found: documents, images, and notes for the user. ``pictures``
    maps the course-relative names of pictures taken out of Word, PowerPoint and OpenDocument files
    (``lessons/.lantern-media/<digest>.png``, :mod:`app.formats.pictures`) to their bytes."""

    documents: list[SourceDoc] = field(default_factory=list)
    images: dict[str, Path] = field(default_factory=dict)
    pictures: dict[str, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _kind_of(path: Path) -> tuple[str, str] | None:
    ext = path.suffix.lower()
    if ext in MARKDOWN_EXTENSIONS:
        return "markdown", ""
    if ext in TEXT_EXTENSIONS:
        return "text", ""
    if ext in HTML_EXTENSIONS:
        return "html", ""
    if ext in PDF_EXTENSIONS:
        return "pdf", ""
    if ext in CODE_EXTENSIONS:
        return "code", CODE_EXTENSIONS[ext]
    if ext in FORMAT_KINDS:  # Word, PowerPoint, OpenDocument, EPUB, notebooks (app/formats)
        return FORMAT_KINDS[ext], ""
    if ext in LEGACY_FORMATS:  # read only to say how to convert it
        return "legacy", ""
    return None


def _stem_title(rel: str) -> str:
    return Path(rel).stem.replace("-", " ").replace("_", " ").strip().capitalize() or rel


def _matches(rel: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(Path(rel).name, p) for p in patterns)


def _undecodable_name(rel: str) -> str | None:
    """``rel`` made printable (U+FFFD for the bytes that are not UTF-8) when it holds such bytes
    (Python decodes them to lone surrogates on POSIX), else None."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return None


def _name_warning(shown: str, what: str) -> str:
    return (f"{shown}: the {what} name is not valid UTF-8 (saved on a system using another encoding); "
            f"skipped; rename it and build again")


def _read_site_markup(documents: list[SourceDoc]) -> None:
    """Turn the Markdown guides' site markup into what the site shows, in place: MyST first (its
    bare cross-references name headings of any guide of the course), then the lines of markup
    that remain."""
    labels: dict[str, str] = {}
    for doc in documents:
        if doc.kind == "markdown":
            labels.update(myst_labels(doc.text))
    for n, doc in enumerate(documents):
        if doc.kind == "markdown":
            text = expand_site_roots(unwrap_myst(doc.text, labels), doc.path)
            documents[n] = dataclasses.replace(doc, text=blank_site_markup(text))


def check_course_folder(root: Path) -> None:
    """Raise :class:`CourseFolderError` when ``root`` is missing, not a folder, or unreadable."""
    if not root.exists():
        raise CourseFolderError(f"The course folder {root} does not exist; check the path.")
    if not root.is_dir():
        raise CourseFolderError(f"{root} is a file, not a folder; give the folder that holds the guides.")
    if not os.access(root, os.R_OK | os.X_OK):
        raise CourseFolderError(f"The course folder {root} cannot be read; check its permissions.")


def read_course(root: Path, include: list[str] | None = None, exclude: list[str] | None = None) -> ReadReport:
    """Read every indexable file under ``root``, sorted by relative path.

    Raises :class:`CourseFolderError` when ``root`` is missing, unreadable or holds
    nothing indexable.
    """
    include = include or []
    exclude = exclude or []
    check_course_folder(root)
    report = ReadReport()
    for rel, path in sorted(_candidates(root, include, exclude, report)):
        kind, language = _kind_of(path) or ("text", "")
        data = _read_bytes(rel, path, kind, report)
        if data is None:
            continue
        text = _to_text(rel, path, kind, data, report)
        if text is None:
            continue
        report.documents.append(SourceDoc(path=rel, text=text, sha256=hashlib.sha256(data).hexdigest(),
                                          size_bytes=len(data), kind=kind, language=language))
    _read_site_markup(report.documents)
    if not report.documents:
        raise CourseFolderError(f"The course folder {root} holds no guides Lantern can index "
                                "(Markdown, text, HTML, PDF, Word, PowerPoint, OpenDocument, EPUB, notebook or code files); "
                                "point Lantern at the folder with the guides.")
    return report


def _candidates(root: Path, include: list[str], exclude: list[str], report: ReadReport) -> list[tuple[str, Path]]:
    """Walk ``root`` and return ``(relative POSIX path, path)`` of every file to read; images go to
    ``report.images``, and what is skipped with a reason to ``report.warnings``."""
    real_root = Path(os.path.realpath(root))
    candidates: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: report.warnings.append(
            f"{e.filename}: could not be listed ({e.strerror}); skipped")):
        dirnames[:] = _folders_to_walk(root, dirpath, dirnames, report)
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if _wanted(rel, path, name, include, exclude, real_root, report):
                candidates.append((rel, path))
    return candidates


def _folders_to_walk(root: Path, dirpath: str, dirnames: list[str], report: ReadReport) -> list[str]:
    """The subfolders of ``dirpath`` to walk, sorted: not hidden, not build output, with a UTF-8 name."""
    kept = []
    for d in sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS):
        shown = _undecodable_name((Path(dirpath) / d).relative_to(root).as_posix())
        if shown is None:
            kept.append(d)
        else:  # every path below it would be unusable too: one warning for the folder
            report.warnings.append(_name_warning(shown, "folder"))
    return kept


def _wanted(rel: str, path: Path, name: str, include: list[str], exclude: list[str], real_root: Path,
            report: ReadReport) -> bool:
    """Whether the file ``rel`` is a guide to read; an image is put in ``report.images`` instead."""
    shown = _undecodable_name(rel)
    if shown is not None:
        if not name.startswith(".") and (_kind_of(path) or path.suffix.lower() in IMAGE_TYPES):
            report.warnings.append(_name_warning(shown, "file"))
        return False
    if name.startswith(".") or (name.upper().startswith("LICENSE") and not _matches(rel, include)):
        return False
    if exclude and _matches(rel, exclude):
        return False
    if path.is_symlink() and not Path(os.path.realpath(path)).is_relative_to(real_root):
        report.warnings.append(f"{rel}: a link to a file outside the course folder; skipped "
                               "(copy the file into the folder to include it)")
        return False
    if path.suffix.lower() in IMAGE_TYPES:
        report.images[rel] = path
        return False
    return _kind_of(path) is not None or bool(include and _matches(rel, include))


def _read_bytes(rel: str, path: Path, kind: str, report: ReadReport) -> bytes | None:
    """The file's bytes, or None (with a warning or note) when it cannot be read, is too large or is empty."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        report.warnings.append(f"{rel}: could not be read ({exc.strerror}); skipped")
        return None
    limit = MAX_DOCUMENT_BYTES if kind in FORMAT_KINDS.values() else MAX_FILE_BYTES
    if len(data) > limit:
        report.warnings.append(f"{rel}: {len(data):,} bytes is larger than the {limit:,}-byte limit for one "
                               "file; skipped (split it into smaller files, e.g. one per chapter, to include it)")
        return None
    if not data.strip():
        report.notes.append(f"{rel}: empty file; skipped")
        return None
    return data


def _to_text(rel: str, path: Path, kind: str, data: bytes, report: ReadReport) -> str | None:
    """The guide's text (documents, PDF and HTML converted to Markdown), or None when it is skipped."""
    if kind in FORMAT_KINDS.values() or kind == "legacy":
        return _document_text(rel, path, data, report)
    if kind == "pdf":
        try:
            return pdf_to_markdown(data, _stem_title(rel))
        except UnreadablePdf as exc:
            report.warnings.append(f"{rel}: {exc}; skipped")
            return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # a UTF-16 byte order mark
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            report.warnings.append(f"{rel}: starts like UTF-16 text but does not decode as UTF-16; skipped")
            return None
        return html_to_markdown(text) if kind == "html" else text
    if b"\x00" in data[:8192]:
        report.warnings.append(f"{rel}: looks like a binary file (it contains NUL bytes), not text; skipped")
        return None
    text = _decode(rel, data, report)
    if kind == "html":
        text = html_to_markdown(text)
        if not text.strip():
            report.notes.append(f"{rel}: HTML page without text; skipped")
            return None
    return text


def _document_text(rel: str, path: Path, data: bytes, report: ReadReport) -> str | None:
    """A Word, PowerPoint, OpenDocument, EPUB or notebook file as Markdown (app/formats), or None
    (with a warning or note) when it cannot be converted or holds no text."""
    try:
        converted = convert_document(data, path.suffix, _stem_title(rel))
    except UnreadableDocument as exc:
        report.warnings.append(f"{rel}: {exc}; skipped")
        return None
    if not converted.text.strip():
        report.notes.append(f"{rel}: a document without text; skipped")
        return None
    folder = rel.rpartition("/")[0]
    report.pictures.update({f"{folder}/{name}" if folder else name: data for name, data in converted.pictures.items()})
    if converted.problem:
        report.warnings.append(f"{rel}: {converted.problem}")
    return converted.text


def _decode(rel: str, data: bytes, report: ReadReport) -> str:
    """Text of a file without a byte order mark: UTF-8, else the legacy encoding detected, else UTF-8
    with replacement characters (each named in a warning); a leading U+FEFF is dropped."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        legacy = None if mostly_utf8(data) else detect_legacy_encoding(data)
        if legacy:
            text = legacy[0]
            report.warnings.append(f"{rel}: not UTF-8; read as {encoding_label(legacy[1])} (detected); "
                                   "check it in the viewer, or save it as UTF-8")
        else:
            text = data.decode("utf-8", errors="replace")
            report.warnings.append(f"{rel}: not valid UTF-8 (first bad byte at offset {exc.start}); "
                                   "decoded with replacement characters")
    return text[1:] if text.startswith("\ufeff") else text
