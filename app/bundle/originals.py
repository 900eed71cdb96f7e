"""The original files of converted guides, kept in a bundle when the instructor asks
(``lantern build --keep-originals``), so the app can hand one to the system's default program.

A kept original is an asset (the ``assets`` table: path, MIME type, sha256, bytes) at
``.lantern-originals/<guide path>``: the hidden folder names no file of the course folder (the
reader skips hidden folders), and the guide's path gives the file its real name and extension.
Only guides converted from a document type of :data:`ORIGINAL_TYPES` are kept (Word, PowerPoint,
OpenDocument, EPUB, notebooks and PDF), never Markdown, text or code, which the viewer shows as they
are. The stored sha256 equals the guide's own (``sources.sha256``); a file that changed while the
bundle was built is not kept (with a warning).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from ..ingest.reader import IMAGE_TYPES
from ..records import SourceDoc
from .schema import connect

if TYPE_CHECKING:
    from .plan import CoursePlan

#: The hidden folder of the bundle's assets that the original files are kept under.
ORIGINALS_FOLDER = ".lantern-originals"
#: Extensions of the originals a bundle may keep (and the app may open) -> their MIME type.
ORIGINAL_TYPES = {
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".odt": "application/vnd.oasis.opendocument.text",
    ".odp": "application/vnd.oasis.opendocument.presentation",
    ".epub": "application/epub+zip",
    ".ipynb": "application/x-ipynb+json",
    ".pdf": "application/pdf",
}


#: Office Open XML types -> the parts their archive must hold.
_OFFICE_PARTS = {".docx": ("[Content_Types].xml", "word/document.xml"),
                 ".pptx": ("[Content_Types].xml", "ppt/presentation.xml")}
#: Zip types whose ``mimetype`` member names their type (OpenDocument and EPUB).
_MIMETYPE_MEMBER = (".odt", ".odp", ".epub")


def original_path(guide: str) -> str:
    """The asset path of ``guide``'s original file: ``.lantern-originals/<guide path>``."""
    return f"{ORIGINALS_FOLDER}/{guide}"


def is_original(asset: str) -> bool:
    """Whether the asset path ``asset`` is a kept original (not an image)."""
    return asset.startswith(f"{ORIGINALS_FOLDER}/")


def original_extension(guide: str) -> str:
    """The lower-case extension of ``guide`` when its original may be kept and opened, else ``""``."""
    suffix = Path(guide).suffix.lower()
    return suffix if suffix in ORIGINAL_TYPES else ""


def _zip_holds(data: bytes, extension: str) -> bool:
    """Whether ``data`` is a zip archive with the parts an ``extension`` file must have."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if extension in _OFFICE_PARTS:
                return all(part in names for part in _OFFICE_PARTS[extension])
            info = archive.getinfo("mimetype") if "mimetype" in names else None
            return info is not None and info.file_size < 100 and \
                archive.read(info).strip() == ORIGINAL_TYPES[extension].encode()
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, NotImplementedError):
        return False


def fits_its_type(guide: str, data: bytes) -> bool:
    """Whether the bytes ``data`` of ``guide``'s original are a file of the type its extension says:
    a zip with ``[Content_Types].xml`` and the main part (``.docx``, ``.pptx``), a zip whose
    ``mimetype`` member names its type (``.odt``, ``.odp``, ``.epub``), ``%PDF-`` first (``.pdf``),
    a JSON object (``.ipynb``). ``False`` for any other extension."""
    extension = original_extension(guide)
    if extension == ".pdf":
        return data.startswith(b"%PDF-")
    if extension == ".ipynb":
        try:
            return isinstance(json.loads(data), dict)
        except (ValueError, RecursionError):
            return False
    if extension in _OFFICE_PARTS or extension in _MIMETYPE_MEMBER:
        return zipfile.is_zipfile(io.BytesIO(data)) and _zip_holds(data, extension)
    return False


def asset_mime(asset: str) -> str:
    """The MIME type stored with an asset: an image's by its extension, a kept original's by its
    document type; ``application/octet-stream`` for anything else."""
    suffix = Path(asset).suffix.lower()
    if is_original(asset):
        return ORIGINAL_TYPES.get(suffix, "application/octet-stream")
    return IMAGE_TYPES.get(suffix, "application/octet-stream")


def original_assets(source_dir: Path, documents: list[SourceDoc], warnings: list[str]) -> dict[str, Path | bytes]:
    """The originals to keep: :func:`original_path` -> the file, for every guide of ``documents``
    converted from a type of :data:`ORIGINAL_TYPES` whose file still has the bytes that were read
    (same sha256); one warning per file that changed or vanished since. Reads each file once to
    check it (the writer reads it again); holds no file's bytes."""
    kept: dict[str, Path | bytes] = {}
    for doc in documents:
        if not original_extension(doc.path):
            continue
        path = Path(source_dir) / doc.path
        try:
            same = hashlib.sha256(path.read_bytes()).hexdigest() == doc.sha256
        except OSError as exc:
            same, why = False, f"could not be read again ({exc.strerror})"
        else:
            why = "changed while the bundle was built"
        if same:
            kept[original_path(doc.path)] = path
        else:
            warnings.append(f"{doc.path}: {why}; its original file is not kept in the bundle (build again)")
    return kept


def keep_original_files(source_dir: Path, plan: CoursePlan) -> str:
    """Add the originals of ``plan``'s converted guides to its assets (:func:`original_assets`;
    warnings go to ``plan.warnings``) and return the note saying how many and how many bytes."""
    kept = original_assets(source_dir, plan.documents, plan.warnings)
    plan.assets.update(kept)
    sizes = {original_path(doc.path): doc.size_bytes for doc in plan.documents}
    size = sum(sizes[path] for path in kept)
    return (f"kept {len(kept):,} original file{'s' if len(kept) != 1 else ''} ({size:,} bytes) in the bundle "
            "for \"Open the original file\" (--keep-originals)")


def dropped_originals_note(output: Path) -> str:
    """The note for a rebuild without ``--keep-originals`` over a bundle that kept originals: how many
    it held and that they are not kept now (``""`` when ``output`` holds none or is no readable
    bundle). Never raises."""
    if not Path(output).is_file():
        return ""
    try:
        conn = connect(str(output), read_only=True)
        try:
            count = conn.execute("SELECT count(*) FROM assets WHERE substr(path, 1, ?) = ?",
                                 (len(ORIGINALS_FOLDER) + 1, f"{ORIGINALS_FOLDER}/")).fetchall()[0][0]
        finally:
            conn.close()
    except (apsw.Error, IndexError):
        return ""
    if not count:
        return ""
    return (f"the bundle being rebuilt kept {count:,} original file{'s' if count != 1 else ''} for \"Open the "
            "original file\"; this build does not keep them (build with --keep-originals to keep them)")
