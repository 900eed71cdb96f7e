"""The one call the course reader makes to turn a document into Markdown (formats in :mod:`.kinds`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import UnreadableDocument
from .epub import epub_to_markdown
from .kinds import FORMAT_KINDS, LEGACY_FORMATS, MARKDOWN_KINDS, MAX_DOCUMENT_BYTES
from .notebook import ipynb_to_markdown
from .opendoc import odp_to_markdown, odt_to_markdown
from .pictures import Pictures
from .slides import pptx_to_markdown
from .word import docx_to_markdown

__all__ = ["FORMAT_KINDS", "LEGACY_FORMATS", "MARKDOWN_KINDS", "MAX_DOCUMENT_BYTES", "ConvertedDocument",
           "convert_document", "document_to_markdown", "legacy_reason"]


@dataclass
class ConvertedDocument:
    """A document as Markdown: ``text``; ``pictures`` maps the stored names its text references
    (relative to the guide's folder, ``.lantern-media/<digest>.png``) to their bytes; ``problem`` is
    one sentence on the pictures left as alt text, or ``""``."""

    text: str
    pictures: dict[str, bytes] = field(default_factory=dict)
    problem: str = ""


def legacy_reason(extension: str) -> str:
    """Why a legacy ``.doc``/``.ppt`` file is skipped, and the fix (one sentence)."""
    program, newer = LEGACY_FORMATS[extension.lower()]
    return (f"a legacy binary {program} file ({extension.lower()}), which Lantern does not read; open it in "
            f"{program} or LibreOffice and save it as {newer}, or run `soffice --headless --convert-to "
            f"{newer[1:]} FILE`, then build again")


def convert_document(data: bytes, extension: str, fallback_title: str) -> ConvertedDocument:
    """:func:`document_to_markdown` with the pictures of Word, PowerPoint and OpenDocument files kept
    (:mod:`app.formats.pictures`). Raises :class:`UnreadableDocument`."""
    pictures = Pictures()
    text = document_to_markdown(data, extension, fallback_title, pictures)
    return ConvertedDocument(text=text, pictures=pictures.kept, problem=pictures.summary())


def document_to_markdown(data: bytes, extension: str, fallback_title: str, pictures: Pictures | None = None) -> str:
    """The Markdown text of a document's bytes, by its extension (a key of :data:`FORMAT_KINDS` or
    :data:`LEGACY_FORMATS`); ``fallback_title`` titles a deck or book that names no title. The
    pictures of Word, PowerPoint and OpenDocument files are kept through ``pictures`` (without it,
    each is its alt text).

    Raises :class:`UnreadableDocument` with one sentence naming the problem and the fix."""
    extension = extension.lower()
    if extension in LEGACY_FORMATS:
        raise UnreadableDocument(legacy_reason(extension))
    if extension == ".ipynb":
        return ipynb_to_markdown(data)
    if extension == ".docx":
        return docx_to_markdown(data, pictures)
    if extension == ".pptx":
        return pptx_to_markdown(data, fallback_title, pictures)
    if extension == ".odt":
        return odt_to_markdown(data, pictures)
    if extension == ".odp":
        return odp_to_markdown(data, fallback_title, pictures)
    if extension == ".epub":
        return epub_to_markdown(data, fallback_title)
    raise UnreadableDocument(f"Lantern does not read {extension} files; save it as Markdown, PDF or .docx")
