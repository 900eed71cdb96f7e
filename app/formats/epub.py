"""EPUB books (``.epub``) as Markdown: the chapters in reading order, through the HTML reader.

The package document (found through ``META-INF/container.xml``) lists the chapters in its spine;
each XHTML chapter is converted by :func:`app.ingest.html.html_to_markdown` (headings, lists, code,
tables) and its headings are moved one level down under the book's title (its ``dc:title``, else
the file name), so a passage is cited as "Book › Chapter 3 › Section". Pictures become
``(Image: alt text)``. Chapter files are read with ``html.parser``, which resolves no entity; the
two XML files the book is navigated by are parsed without DTDs or entities. A book whose chapters
are encrypted (DRM; font obfuscation alone is fine) is refused with the fix.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

from ..ingest.html import html_to_markdown
from .base import UnreadableDocument, heading, images_as_notes, inline, join_blocks, shift_headings
from .safety import open_archive, parse_xml, read_member, refuse_dtd

_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "opf": "http://www.idpf.org/2007/opf",
       "dc": "http://purl.org/dc/elements/1.1/", "enc": "http://www.w3.org/2001/04/xmlenc#"}
_HTML_TYPES = {"application/xhtml+xml", "text/html"}
#: Encryption algorithms that only obfuscate embedded fonts (the book's text is readable).
_FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}


def epub_to_markdown(data: bytes, fallback_title: str) -> str:
    """Markdown text of an ``.epub`` file's bytes; raises :class:`UnreadableDocument`."""
    archive = open_archive(data, ".epub")
    _refuse_drm(archive)
    container = _xml(archive, "META-INF/container.xml")
    rootfile = container.find(".//c:rootfile", _NS)
    opf_path = unquote(rootfile.get("full-path", "")) if rootfile is not None else ""
    if not opf_path:
        raise UnreadableDocument("the book names no package document in META-INF/container.xml; "
                                 "export the EPUB again from the program that made it")
    opf = _xml(archive, opf_path)
    base = posixpath.dirname(opf_path)
    manifest = {item.get("id"): item for item in opf.findall(".//opf:manifest/opf:item", _NS)}
    blocks = []
    for ref in opf.findall(".//opf:spine/opf:itemref", _NS):
        item = manifest.get(ref.get("idref"))
        if item is None or item.get("media-type") not in _HTML_TYPES:
            continue
        name = posixpath.normpath(posixpath.join(base, unquote(item.get("href", ""))))
        chapter = read_member(archive, name).decode("utf-8", errors="replace")
        blocks.append(shift_headings(images_as_notes(html_to_markdown(chapter)), 1))
    title_node = opf.find(".//dc:title", _NS)
    title = inline(title_node.text or "") if title_node is not None else ""
    if not any(b.strip() for b in blocks):
        raise UnreadableDocument("the book's chapters hold no text; check that it is not a book of scanned pages")
    return join_blocks([heading(1, title or fallback_title)] + blocks)


def _xml(archive, name: str):
    xml = read_member(archive, name)
    refuse_dtd(name, xml)
    return parse_xml(name, xml)


def _refuse_drm(archive) -> None:
    names = set(archive.namelist())
    if "META-INF/rights.xml" in names:
        raise UnreadableDocument("the book is DRM-locked; use a DRM-free copy (ask its publisher) and build again")
    if "META-INF/encryption.xml" not in names:
        return
    encryption = _xml(archive, "META-INF/encryption.xml")
    for method in encryption.iter("{%s}EncryptionMethod" % _NS["enc"]):
        if method.get("Algorithm") not in _FONT_OBFUSCATION:
            raise UnreadableDocument("the book is DRM-locked (its chapters are encrypted); use a DRM-free copy "
                                     "and build again")
