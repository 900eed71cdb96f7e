"""The one call the course reader makes to turn a document into Markdown (formats in :mod:`.kinds`)."""

from __future__ import annotations

from .base import UnreadableDocument
from .epub import epub_to_markdown
from .kinds import FORMAT_KINDS, LEGACY_FORMATS, MARKDOWN_KINDS, MAX_DOCUMENT_BYTES
from .notebook import ipynb_to_markdown
from .opendoc import odp_to_markdown, odt_to_markdown
from .slides import pptx_to_markdown
from .word import docx_to_markdown

__all__ = ["FORMAT_KINDS", "LEGACY_FORMATS", "MARKDOWN_KINDS", "MAX_DOCUMENT_BYTES", "document_to_markdown",
           "legacy_reason"]


def legacy_reason(extension: str) -> str:
    """Why a legacy ``.doc``/``.ppt`` file is skipped, and the fix (one sentence)."""
    program, newer = LEGACY_FORMATS[extension.lower()]
    return (f"a legacy binary {program} file ({extension.lower()}), which Lantern does not read; open it in "
            f"{program} or LibreOffice and save it as {newer}, or run `soffice --headless --convert-to "
            f"{newer[1:]} FILE`, then build again")


def document_to_markdown(data: bytes, extension: str, fallback_title: str) -> str:
    """The Markdown text of a document's bytes, by its extension (a key of :data:`FORMAT_KINDS` or
    :data:`LEGACY_FORMATS`); ``fallback_title`` titles a deck or book that names no title.

    Raises :class:`UnreadableDocument` with one sentence naming the problem and the fix."""
    extension = extension.lower()
    if extension in LEGACY_FORMATS:
        raise UnreadableDocument(legacy_reason(extension))
    if extension == ".ipynb":
        return ipynb_to_markdown(data)
    if extension == ".docx":
        return docx_to_markdown(data)
    if extension == ".pptx":
        return pptx_to_markdown(data, fallback_title)
    if extension == ".odt":
        return odt_to_markdown(data)
    if extension == ".odp":
        return odp_to_markdown(data, fallback_title)
    if extension == ".epub":
        return epub_to_markdown(data, fallback_title)
    raise UnreadableDocument(f"Lantern does not read {extension} files; save it as Markdown, PDF or .docx")
