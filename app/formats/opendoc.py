"""OpenDocument text (``.odt``) and presentations (``.odp``) as Markdown.

A text document is converted by odfdo's own Markdown writer (``Document.to_markdown``): headings
keep their outline levels, lists their nesting, tables become pipe tables with a header row, and
footnotes are numbered and listed at the end. A presentation is read from its ``content.xml`` the
same way PowerPoint decks are (:mod:`app.formats.slides`): one ``Slide N · Title`` section per page,
outline text as indented ``- `` items, tables, pictures and the speaker notes under ``Notes``.
Pictures inside the file are kept through a :class:`Pictures` collector when one is given
(:mod:`app.formats.pictures`; in a text document, odfdo's ``![title](Pictures/…)`` is rewritten to
the kept picture), else they become ``(Image: description)``. A file encrypted with a password is
refused with the fix.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Callable

from .base import UnreadableDocument, heading, image_note, inline, join_blocks, missing_library, paragraph, pipe_table
from .pictures import Pictures
from .safety import checked_archive, parse_xml, read_member
from .slides import slide_heading

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}
_TEXT = "{%s}" % _NS["text"]
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
#: An image reference odfdo writes for a frame: ``![title](Pictures/…)``.
_ODFDO_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^()\s]+)\)")
#: ``picture(href, alt)`` -> the Markdown for one picture of the archive.
PictureRef = Callable[[str, str], str]


def _open(data: bytes, label: str):
    archive = checked_archive(data, label)
    if "META-INF/manifest.xml" in archive.namelist():
        manifest = parse_xml("META-INF/manifest.xml", read_member(archive, "META-INF/manifest.xml"))
        if manifest.find(".//manifest:encryption-data", _NS) is not None:
            raise UnreadableDocument(f"the {label} file is password-protected; open it in LibreOffice, save a copy "
                                     "without the password (File › Properties › Security) and build again")
    return archive


def _picture_ref(archive: zipfile.ZipFile, pictures: Pictures | None) -> PictureRef:
    """How a picture of ``archive`` is written: kept through ``pictures``, else its alt text."""
    def picture(href: str, alt: str) -> str:
        return pictures.member(archive, href, alt) if pictures is not None else image_note(alt)
    return picture


def odt_to_markdown(data: bytes, pictures: Pictures | None = None) -> str:
    """Markdown text of an ``.odt`` file's bytes, its pictures kept through ``pictures`` (else
    their alt text); raises :class:`UnreadableDocument`."""
    picture = _picture_ref(_open(data, ".odt"), pictures)
    try:
        import odfdo
    except Exception as exc:  # ImportError, or odfdo's PackageNotFoundError (it reads its version at import)
        raise missing_library("odfdo", ".odt", exc) from exc
    try:
        document = odfdo.Document(io.BytesIO(data))
        if document.get_type() != "text":
            raise UnreadableDocument(f"it holds an OpenDocument {document.get_type()}, not a text document; "
                                     "give it the extension of its kind")
        text = document.to_markdown()
    except UnreadableDocument:
        raise
    except Exception as exc:  # odfdo raises ValueError, KeyError, lxml errors... on damaged files
        raise UnreadableDocument(f"the file is not a readable OpenDocument text ({exc.__class__.__name__}: "
                                 f"{str(exc)[:60]}); open it in LibreOffice and save it again") from exc
    if not isinstance(text, str):
        return ""
    return _ODFDO_IMAGE.sub(lambda m: picture(m.group(2), m.group(1) if m.group(1) != "image" else ""), text)


def odp_to_markdown(data: bytes, fallback_title: str, pictures: Pictures | None = None) -> str:
    """Markdown text of an ``.odp`` file's bytes (one section per slide), its pictures kept through
    ``pictures`` (else their alt text); raises :class:`UnreadableDocument`."""
    archive = _open(data, ".odp")
    picture = _picture_ref(archive, pictures)
    root = parse_xml("content.xml", read_member(archive, "content.xml"))
    pages = root.findall("office:body/office:presentation/draw:page", _NS)
    slides = [_page(page, picture) for page in pages]
    title = ""
    if "meta.xml" in archive.namelist():
        node = parse_xml("meta.xml", read_member(archive, "meta.xml")).find(".//dc:title", _NS)
        title = inline(node.text or "") if node is not None else ""
    first = next((t for t, _ in slides if t), "")
    blocks = [heading(1, title or first or fallback_title)]
    for n, (slide_title, body) in enumerate(slides, 1):
        blocks += [heading(2, slide_heading(n, slide_title)), body]
    return join_blocks(blocks)


def _page(page, picture: PictureRef) -> tuple[str, str]:
    title, blocks = "", []
    for frame in page.findall("draw:frame", _NS) + page.findall("draw:g//draw:frame", _NS):
        kind = frame.get("{%s}class" % _NS["presentation"], "")
        if kind == "title" and not title:
            title = inline(text_of(frame))
        else:
            blocks.append(_frame(frame, kind in ("outline", "subtitle") or bool(kind), picture))
    notes = page.find("presentation:notes", _NS)
    if notes is not None:
        said = "\n".join(paragraph(text_of(p)) for p in notes.iter(_TEXT + "p"))
        if said.strip():
            blocks += [heading(3, "Notes"), said]
    return title, join_blocks(blocks)


def _frame(frame, bulleted: bool, picture: PictureRef) -> str:
    table = frame.find("table:table", _NS)
    if table is not None:
        rows = [[text_of(cell) for cell in row.findall("table:table-cell", _NS)]
                for row in table.iter("{%s}table-row" % _NS["table"])]
        return pipe_table(rows)
    image = frame.find("draw:image", _NS)
    box = frame.find("draw:text-box", _NS)
    if box is None:
        if image is None:
            return ""
        desc = frame.find("svg:desc", _NS)
        if desc is None:
            desc = frame.find("svg:title", _NS)
        return picture(image.get(_XLINK_HREF, ""), desc.text or "" if desc is not None else "")
    lines = _lines(box, 0, bulleted)
    return "".join(("" if not n else "\n" if line.lstrip().startswith("- ") else "\n\n") + line
                   for n, line in enumerate(lines))


def _lines(node, depth: int, bulleted: bool) -> list[str]:
    out = []
    for child in node:
        local = child.tag.rsplit("}", 1)[-1]
        if child.tag.startswith(_TEXT) and local in ("p", "h"):
            text = paragraph(inline(text_of(child)))
            if text:
                out.append("  " * max(0, depth - 1) + "- " + text if bulleted or depth else text)
        elif child.tag.startswith(_TEXT) and local in ("list", "list-item", "list-header"):
            out += _lines(child, depth + (local == "list"), bulleted)
    return out


def text_of(node) -> str:
    """The text of an ODF element: ``text:s`` is spaces, ``text:tab`` a tab, ``text:line-break`` a
    new line; the bodies of footnotes are left out."""
    parts = [node.text or ""]
    for child in node:
        local = child.tag.rsplit("}", 1)[-1] if isinstance(child.tag, str) else ""
        if child.tag == _TEXT + "s":
            count = child.get(_TEXT + "c", "1")
            parts.append(" " * min(100, int(count) if count.isdigit() else 1))
        elif child.tag == _TEXT + "tab":
            parts.append("\t")
        elif child.tag == _TEXT + "line-break":
            parts.append("\n")
        elif child.tag == _TEXT + "note" or not local:
            pass
        else:
            parts.append(text_of(child))
        parts.append(child.tail or "")
    return "".join(parts)
