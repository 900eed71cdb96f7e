"""PDF handouts as Markdown text (the only module that imports pypdf).

Each page's extracted text follows a ``## Page N`` heading, so a citation points at
the page (anchor ``page-N``) and the viewer shows the page's words. The document title
comes from the PDF metadata, else the file name. Lines that Markdown would read as
structure (``#``, ``>``, ``- ``, ``1. ``) are escaped with ``\\`` and leading
indentation is dropped (it would otherwise become a code block). Character spans of PDF
chunks are offsets into this derived text, which the bundle stores as the guide's text.
Layout, images and scanned pages (no text layer) are not recovered.
"""

from __future__ import annotations

import io
import logging
import re
import sys

from ..text.grammar import LIST_MARKER_TEXT

_MD_START = re.compile(rf"^(#|>|{LIST_MARKER_TEXT}\s|```|~~~|=+\s*$|-{{3,}}\s*$)")


class UnreadablePdf(Exception):
    """The PDF cannot be read (damaged, password-protected, or without a text layer); ``str()`` says why."""


def pdf_to_markdown(data: bytes, fallback_title: str) -> str:
    """Markdown text of a PDF file's bytes; raises :class:`UnreadablePdf` with the reason."""
    # pypdf logs every repair it makes; the reason that matters is in the raised error.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        from pypdf import PdfReader
        from pypdf.errors import DependencyError

        reader = PdfReader(io.BytesIO(data))
        # A PDF with only an owner password (printing or copying restricted) opens with the empty
        # user password; AES needs the ``cryptography`` package, a dependency of Lantern.
        try:
            opened = not reader.is_encrypted or reader.decrypt("")
        except DependencyError as exc:
            if getattr(sys, "frozen", False):  # build.spec leaves cryptography out of the installer
                raise UnreadablePdf("the PDF is AES-encrypted, which the installed app cannot read; build this "
                                    "course with Lantern installed from source (`make setup`)") from exc
            raise UnreadablePdf("the PDF is AES-encrypted and this installation lacks the `cryptography` "
                                "package; reinstall Lantern") from exc
        if not opened:
            raise UnreadablePdf("the PDF is password-protected; save a copy without the password "
                                "(or export it again) and build again")
        meta_title = ""
        try:
            metadata = reader.metadata
            meta_title = " ".join(str((metadata.get("/Title") if metadata else None) or "").split())
        except Exception:  # damaged metadata does not stop the text
            meta_title = ""
        pages = []
        for number, page in enumerate(reader.pages, 1):
            text = page.extract_text() or ""
            lines = [_MD_START.sub(r"\\\1", line.strip()) for line in text.splitlines()]
            body = "\n".join(lines).strip()
            if body:
                pages.append(f"## Page {number}\n\n{body}")
    except UnreadablePdf:
        raise
    except Exception as exc:  # pypdf raises PdfReadError, ValueError, KeyError... on damaged files
        raise UnreadablePdf(f"the PDF could not be parsed ({exc.__class__.__name__}: {str(exc)[:80]})") from exc
    if not pages:
        count = len(reader.pages)
        raise UnreadablePdf(f"the PDF has no text layer on any of its {count} page{'s' if count != 1 else ''} "
                            "(scanned pages?): add one with OCR, e.g. `ocrmypdf "
                            "scan.pdf scan-ocr.pdf`, and put that file in the course folder instead")
    return f"# {meta_title or fallback_title}\n\n" + "\n\n".join(pages) + "\n"
