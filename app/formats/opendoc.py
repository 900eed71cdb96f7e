"""OpenDocument text (``.odt``) and presentations (``.odp``) as Markdown.

A text document is converted by odfdo's own Markdown writer (``Document.to_markdown``): headings
keep their outline levels, lists their nesting, tables become pipe tables with a header row, and
footnotes are numbered and listed at the end. A presentation is read from its ``content.xml`` the
same way PowerPoint decks are (:mod:`app.formats.slides`): one ``Slide N · Title`` section per page,
outline text as indented ``- `` items, tables, pictures as ``(Image: description)`` and the
speaker notes under ``Notes``. A file encrypted with a password is refused with the fix.
"""

from __future__ import annotations

import io

from .base import UnreadableDocument, heading, image_note, inline, join_blocks, missing_library, paragraph, pipe_table
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


def _open(data: bytes, label: str):
    archive = checked_archive(data, label)
    if "META-INF/manifest.xml" in archive.namelist():
        manifest = parse_xml("META-INF/manifest.xml", read_member(archive, "META-INF/manifest.xml"))
        if manifest.find(".//manifest:encryption-data", _NS) is not None:
            raise UnreadableDocument(f"the {label} file is password-protected; open it in LibreOffice, save a copy "
                                     "without the password (File › Properties › Security) and build again")
    return archive


def odt_to_markdown(data: bytes) -> str:
    """Markdown text of an ``.odt`` file's bytes; raises :class:`UnreadableDocument`."""
    _open(data, ".odt")
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
    return text if isinstance(text, str) else ""


def odp_to_markdown(data: bytes, fallback_title: str) -> str:
    """Markdown text of an ``.odp`` file's bytes (one section per slide); raises :class:`UnreadableDocument`."""
    archive = _open(data, ".odp")
    root = parse_xml("content.xml", read_member(archive, "content.xml"))
    pages = root.findall("office:body/office:presentation/draw:page", _NS)
    slides = [_page(page) for page in pages]
    title = ""
    if "meta.xml" in archive.namelist():
        node = parse_xml("meta.xml", read_member(archive, "meta.xml")).find(".//dc:title", _NS)
        title = inline(node.text or "") if node is not None else ""
    first = next((t for t, _ in slides if t), "")
    blocks = [heading(1, title or first or fallback_title)]
    for n, (slide_title, body) in enumerate(slides, 1):
        blocks += [heading(2, slide_heading(n, slide_title)), body]
    return join_blocks(blocks)


def _page(page) -> tuple[str, str]:
    title, blocks = "", []
    for frame in page.findall("draw:frame", _NS) + page.findall("draw:g//draw:frame", _NS):
        kind = frame.get("{%s}class" % _NS["presentation"], "")
        if kind == "title" and not title:
            title = inline(text_of(frame))
        else:
            blocks.append(_frame(frame, bulleted=kind in ("outline", "subtitle") or bool(kind)))
    notes = page.find("presentation:notes", _NS)
    if notes is not None:
        said = "\n".join(paragraph(text_of(p)) for p in notes.iter(_TEXT + "p"))
        if said.strip():
            blocks += [heading(3, "Notes"), said]
    return title, join_blocks(blocks)


def _frame(frame, bulleted: bool) -> str:
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
        return image_note(desc.text or "" if desc is not None else "")
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
