"""Word documents (``.docx``) as Markdown, read with python-docx.

- Paragraph styles ``Title`` and ``Heading 1``-``Heading 9`` become headings: ``Title`` is level 1
  and, when the document has one, ``Heading N`` is level N + 1 (else level N); levels past 6 stay 6.
- List paragraphs (Word numbering, or a ``List Bullet 2``/``List Number`` style) become ``- `` or
  ``1. `` items indented two spaces per level; the numbering definition says bullet or number.
- Tables become pipe tables whose first row is the header row; merged cells repeat their text.
- Footnotes and endnotes are marked ``[^N]`` where they are referenced and listed under a
  ``Notes`` heading at the end.
- Code (a paragraph in a code-like style, or set wholly in a monospace font such as Consolas or
  Courier New) becomes a fenced code block, consecutive code paragraphs one block.
- Pictures become ``![description](.lantern-media/<digest>.png)`` when a :class:`Pictures` collector
  is given and the picture is a PNG, JPEG or GIF within its limits (:mod:`app.formats.pictures`),
  else ``(Image: description)`` (their alt text).
- A text box's paragraphs are read where the box is anchored, on lines of their own (once: the copy
  Word keeps for older readers, ``mc:Fallback``, is skipped).
- Comments, headers and footers, macros and embedded objects are not read.
"""

from __future__ import annotations

import io
import re

from .base import (
    UnreadableDocument,
    heading,
    image_note,
    inline,
    is_monospace,
    join_blocks,
    missing_library,
    paragraph,
    pipe_table,
)
from .pictures import Pictures, skip_unless_picture
from .safety import checked_archive, parse_xml, read_member

_HEADING_STYLE = re.compile(r"^heading (\d)$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^list (bullet|number|paragraph)(?: (\d))?$", re.IGNORECASE)
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CODE_STYLE = re.compile(r"code|preformatted|source|listing|verbatim", re.IGNORECASE)
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_NS = {"w": _W, "wp": "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
       "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
       "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}


def docx_to_markdown(data: bytes, pictures: Pictures | None = None) -> str:
    """Markdown text of a ``.docx`` file's bytes (mapping in the module docstring); the pictures
    kept go to ``pictures`` (without it, every picture is its alt text).

    Raises :class:`UnreadableDocument` (damaged, encrypted, hostile or not a Word document)."""
    archive = checked_archive(data, ".docx")
    notes = _notes(archive)
    try:
        import docx
    except Exception as exc:  # ImportError, or an error while the library loads
        raise missing_library("docx", ".docx", exc) from exc
    try:
        document = docx.Document(io.BytesIO(data))
        items = list(document.iter_inner_content())
        styles = _style_names(document)
        names = [styles.get(_style_id(item), styles.get("", "")) if not hasattr(item, "rows") else "" for item in items]
        has_title = "title" in names
        numbering = _numbering(document)
        blocks = [_block(item, name, has_title, numbering, pictures) for item, name in zip(items, names)]
    except UnreadableDocument:
        raise
    except Exception as exc:  # python-docx raises KeyError, ValueError, PackageNotFoundError... on damaged files
        raise UnreadableDocument(f"the file is not a readable Word document ({exc.__class__.__name__}: "
                                 f"{str(exc)[:60]}); open it in Word or LibreOffice and save it again") from exc
    used = [n for n in notes if f"[^{n}]" in "".join(blocks)]
    if used:
        blocks.append(heading(1 if not has_title else 2, "Notes"))
        blocks += [f"[^{n}]: {notes[n]}" for n in used]
    return _merge_lists(blocks)


def _style_names(document) -> dict[str, str]:
    """Paragraph style id -> its name, lower case (``"heading 1"``); ``""`` -> the default style's name.

    Read once from the styles part: python-docx's ``Paragraph.style`` searches the styles for every
    paragraph (5 s for a 200-page document)."""
    try:
        root = document.part.styles.element
    except (KeyError, NotImplementedError, AttributeError):
        return {}
    out = {}
    for style in root.findall(f"{{{_W}}}style"):
        if style.get(f"{{{_W}}}type") != "paragraph":
            continue
        name = style.find(f"{{{_W}}}name")
        text = (name.get(f"{{{_W}}}val") or "" if name is not None else "").strip().lower()
        out[style.get(f"{{{_W}}}styleId") or ""] = text
        if style.get(f"{{{_W}}}default") in ("1", "true", "on"):
            out[""] = text
    return out


def _style_id(par) -> str:
    ppr = par._p.pPr
    return (ppr.pStyle.val or "") if ppr is not None and ppr.pStyle is not None else ""


def _block(item, name: str, has_title: bool, numbering: dict[str, str], pictures: Pictures | None) -> str:
    if not hasattr(item, "rows"):
        return _paragraph(item, name, has_title, numbering, pictures)
    rows = []
    for tr in item._tbl.findall(f"{{{_W}}}tr"):
        rows.append([" ".join(_paragraph_text(p, pictures) for p in cell.paragraphs) for cell in _cells(item, tr)])
    return pipe_table(rows)


def _paragraph(par, name: str, has_title: bool, numbering: dict[str, str], pictures: Pictures | None) -> str:
    text = _paragraph_text(par, pictures)
    if name == "title" and text.strip():
        return heading(1, text)
    match = _HEADING_STYLE.match(name)
    if match and text.strip():
        return heading(int(match.group(1)) + (1 if has_title else 0), text)
    if text.strip() and _is_code(par, name):
        fence = "```" if "```" not in text else "~~~~"
        return f"{fence}\n{text.strip(chr(10))}\n{fence}"
    level, marker = _list_level(par, name, numbering)
    if marker and text.strip():
        return "  " * level + marker + " " + paragraph(inline(text))
    return paragraph(text)


def _cells(table, tr) -> list:
    """The cells of one row: python-docx's (merged cells repeated) when the table's grid is sound,
    else the row's own cells."""
    from docx.table import _Cell, _Row

    try:
        return list(_Row(tr, table).cells)
    except Exception:  # a malformed grid (no tblGrid, spans past it): python-docx raises several kinds
        return [_Cell(tc, table) for tc in tr.findall(f"{{{_W}}}tc")]


def _is_code(par, style_name: str) -> bool:
    """Whether the paragraph is code: a code-like style name ("Code", "HTML Preformatted", "Source
    Code"), or every run with text set in a monospace font."""
    if _CODE_STYLE.search(style_name):
        return True
    fonts = []
    for run in par._p.iter(f"{{{_W}}}r"):
        if not "".join(t.text or "" for t in run.iter(f"{{{_W}}}t")).strip():
            continue
        node = run.find(f"{{{_W}}}rPr/{{{_W}}}rFonts")
        fonts.append(((node.get(f"{{{_W}}}ascii") or node.get(f"{{{_W}}}hAnsi") or "") if node is not None else "").lower())
    return bool(fonts) and all(is_monospace(f) for f in fonts)


def _paragraph_text(par, pictures: Pictures | None) -> str:
    """The paragraph's text with footnote marks and pictures where they stand; the paragraphs of a
    text box anchored in it follow on lines of their own."""
    parts: list[str] = []
    for node in _nodes(par._p):
        tag = node.tag.rsplit("}", 1)[-1]
        if tag == "t" and node.tag == f"{{{_W}}}t":
            parts.append(node.text or "")
        elif tag in ("tab",) and node.tag == f"{{{_W}}}tab":
            parts.append("\t")
        elif tag in ("br", "cr", "p") and node.tag.startswith(f"{{{_W}}}"):  # a line break, or a text box's paragraph
            parts.append("\n")
        elif tag in ("footnoteReference", "endnoteReference"):
            kind = "f" if tag.startswith("foot") else "e"
            parts.append(f"[^{kind}{node.get(f'{{{_W}}}id')}]")
        elif tag == "drawing" and node.tag == f"{{{_W}}}drawing":
            parts.append(f" {_drawing(node, par.part, pictures)} ")
    return "".join(parts)


def _nodes(element):
    """The descendants of ``element`` in document order, without the ``mc:Fallback`` copies Word saves
    for older readers (a text box is stored twice: as a drawing and as its VML fallback)."""
    for child in element:
        if child.tag == _MC_FALLBACK:
            continue
        yield child
        yield from _nodes(child)


def _drawing(node, part, pictures: Pictures | None) -> str:
    """A ``w:drawing``: the picture it shows (:mod:`app.formats.pictures`), or ``(Image: alt)`` for a
    drawing that is not a picture (a chart, a shape)."""
    described = node.find(".//wp:docPr", _NS)
    alt = (described.get("descr") or described.get("title") or "") if described is not None else ""
    blip = node.find(".//a:blip", _NS)
    if blip is None:  # a text box (its paragraphs are read where it stands) or a chart or shape
        return "" if node.find(f".//{{{_W}}}txbxContent") is not None else image_note(alt)
    rel_id = blip.get(f"{{{_NS['r']}}}embed") or ""
    try:
        image_part = part.related_parts[rel_id]
        name, blob = str(image_part.partname), image_part.blob
    except (KeyError, AttributeError, ValueError):  # a linked picture (r:link), or a broken relationship
        name, blob = f"picture {rel_id or '(linked)'}", None
    return skip_unless_picture(pictures, alt, name, blob)


def _list_level(par, style_name: str, numbering: dict[str, str]) -> tuple[int, str]:
    """(indent level from 0, ``"-"`` or ``"1."``), or (0, "") for a paragraph that is not a list item."""
    ppr = par._p.pPr
    num = ppr.numPr if ppr is not None else None
    if num is not None and num.numId is not None and num.numId.val != 0:
        level = num.ilvl.val if num.ilvl is not None else 0
        fmt = numbering.get(f"{num.numId.val}:{level}", "bullet")
        return min(level, 8), "-" if fmt in ("bullet", "none") else "1."
    match = _LIST_STYLE.match(style_name)
    if match:
        level = int(match.group(2) or 1) - 1
        return level, "1." if match.group(1).lower() == "number" else "-"
    return 0, ""


def _numbering(document) -> dict[str, str]:
    """``"numId:level"`` -> number format (``bullet``, ``decimal``...) from the numbering part."""
    try:
        root = document.part.numbering_part.element
    except (KeyError, NotImplementedError, AttributeError):
        return {}
    abstract = {}
    for node in root.findall(f"{{{_W}}}abstractNum"):
        levels = {lvl.get(f"{{{_W}}}ilvl"): lvl.find(f"{{{_W}}}numFmt") for lvl in node.findall(f"{{{_W}}}lvl")}
        abstract[node.get(f"{{{_W}}}abstractNumId")] = {
            k: (v.get(f"{{{_W}}}val") if v is not None else "bullet") for k, v in levels.items()}
    out = {}
    for num in root.findall(f"{{{_W}}}num"):
        ref = num.find(f"{{{_W}}}abstractNumId")
        for level, fmt in abstract.get(ref.get(f"{{{_W}}}val") if ref is not None else "", {}).items():
            out[f"{num.get(f'{{{_W}}}numId')}:{level}"] = fmt or "bullet"
    return out


def _notes(archive) -> dict[str, str]:
    """Footnote and endnote texts by mark (``f1``, ``e2``), separators left out."""
    out = {}
    for part, kind, tag in (("word/footnotes.xml", "f", "footnote"), ("word/endnotes.xml", "e", "endnote")):
        if part not in archive.namelist():
            continue
        root = parse_xml(part, read_member(archive, part))
        for note in root.findall(f"{{{_W}}}{tag}"):
            if note.get(f"{{{_W}}}type") in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            text = inline(" ".join(t.text or "" for t in note.iter(f"{{{_W}}}t")))
            if text:
                out[f"{kind}{note.get(f'{{{_W}}}id')}"] = text
    return out


def _merge_lists(blocks: list[str]) -> str:
    """Join the blocks; consecutive list items stay one list (no blank line between them)."""
    out: list[str] = []
    for block in blocks:
        if not block.strip():
            continue
        if out and _is_item(block) and _is_item(out[-1].rsplit("\n", 1)[-1]):
            out[-1] += "\n" + block
        elif out and block.startswith("```\n") and out[-1].startswith("```\n") and out[-1].endswith("\n```"):
            out[-1] = out[-1][:-3] + block[4:]  # one code block of consecutive code paragraphs
        else:
            out.append(block)
    return join_blocks(out)


def _is_item(line: str) -> bool:
    return bool(re.match(r"^ *(-|1\.) ", line))
