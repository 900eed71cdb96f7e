"""PowerPoint decks (``.pptx``) as Markdown, read with python-pptx.

The deck's title (its document properties unless that is the "PowerPoint Presentation" PowerPoint
writes by itself, else the first slide's title, else the file name) is the level-1 heading; each
slide is a level-2 section headed ``Slide N · Title`` (``Slide N`` when it has no title), so a
passage is cited as "Deck › Slide 7 · Wiring". Text placeholders become ``- `` items indented by
their bullet level, text boxes paragraphs, a text box or placeholder set wholly in a monospace font
(Consolas, Courier New...) a fenced code block, tables pipe tables (first row the header row),
pictures ``![description](.lantern-media/<digest>.png)`` (or ``(Image: description)`` when they are
not kept: :mod:`app.formats.pictures`), grouped shapes are read in order; speaker notes follow
under a level-3 ``Notes`` heading. Hidden slides are read too (they are still the instructor's
words). Charts, media, macros and embedded objects are not read.
"""

from __future__ import annotations

import io

from .base import UnreadableDocument, heading, inline, is_monospace, join_blocks, missing_library, paragraph, pipe_table
from .pictures import Pictures, skip_unless_picture
from .safety import checked_archive

#: The separator between "Slide N" and the slide's title in its heading.
SLIDE_TITLE_SEPARATOR = " · "
#: Titles PowerPoint puts in a deck's properties by itself (lower case; English, German, French, Spanish,
#: Italian, Portuguese): they name no deck, so the first slide's title or the file name is used instead.
_DEFAULT_TITLES = frozenset({"powerpoint presentation", "powerpoint-präsentation", "présentation powerpoint",
                             "presentación de powerpoint", "presentazione di powerpoint", "apresentação do powerpoint"})


def pptx_to_markdown(data: bytes, fallback_title: str, pictures: Pictures | None = None) -> str:
    """Markdown text of a ``.pptx`` file's bytes (mapping in the module docstring); the pictures
    kept go to ``pictures`` (without it, every picture is its alt text).

    Raises :class:`UnreadableDocument` (damaged, encrypted, hostile or not a PowerPoint deck)."""
    checked_archive(data, ".pptx")
    try:
        import pptx
    except Exception as exc:  # ImportError, or an error while the library loads
        raise missing_library("pptx", ".pptx", exc) from exc
    try:
        deck = pptx.Presentation(io.BytesIO(data))
        slides = [_slide(slide, pictures) for slide in deck.slides]
        title = inline(deck.core_properties.title or "")
        title = "" if title.lower() in _DEFAULT_TITLES else title
    except UnreadableDocument:
        raise
    except Exception as exc:  # python-pptx raises KeyError, ValueError, PackageNotFoundError... on damaged files
        raise UnreadableDocument(f"the file is not a readable PowerPoint deck ({exc.__class__.__name__}: "
                                 f"{str(exc)[:60]}); open it in PowerPoint or LibreOffice and save it again") from exc
    first = next((t for t, _ in slides if t), "")
    blocks = [heading(1, title or first or fallback_title)]
    for n, (slide_title, body) in enumerate(slides, 1):
        blocks.append(heading(2, slide_heading(n, slide_title)))
        blocks.append(body)
    return join_blocks(blocks)


def slide_heading(number: int, title: str) -> str:
    """``Slide 7 · Wiring`` (or ``Slide 7`` for a slide without a title)."""
    title = inline(title)
    return f"Slide {number}{SLIDE_TITLE_SEPARATOR}{title}" if title else f"Slide {number}"


def _slide(slide, pictures: Pictures | None) -> tuple[str, str]:
    """(the slide's title, the Markdown of the rest of it and its notes)."""
    title_shape = slide.shapes.title
    title = inline(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame else ""
    blocks = _shapes(slide.shapes, title_shape.shape_id if title_shape is not None else None, pictures)
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = paragraph(frame.text) if frame is not None else ""
        if notes:
            blocks += [heading(3, "Notes"), notes]
    return title, join_blocks(blocks)


def _shapes(shapes, skip_id: int | None, pictures: Pictures | None) -> list[str]:
    blocks: list[str] = []
    for shape in shapes:
        if shape.shape_id == skip_id:
            continue
        if getattr(shape, "shapes", None) is not None and not shape.has_text_frame:  # a group
            blocks += _shapes(shape.shapes, skip_id, pictures)
        elif getattr(shape, "has_table", False) and shape.has_table:
            blocks.append(pipe_table([[cell.text for cell in row.cells] for row in shape.table.rows]))
        elif shape.has_text_frame:
            blocks.append(_text_frame(shape))
        elif shape._element.tag.endswith("}pic"):  # a picture, or a picture placeholder filled in
            blocks.append(_picture(shape, pictures))
    return blocks


def _picture(shape, pictures: Pictures | None) -> str:
    descr = shape._element.xpath("./*[1]/*[local-name()='cNvPr']/@descr")
    alt = str(descr[0]) if descr else ""
    rel_id = next(iter(shape._element.xpath(".//*[local-name()='blip']/@*[local-name()='embed']")), "")
    try:
        image_part = shape.part.related_part(str(rel_id))
        name, blob = str(image_part.partname), image_part.blob
    except (KeyError, AttributeError, ValueError):  # a linked picture (r:link), or a broken relationship
        name, blob = f"picture {rel_id or '(linked)'}", None
    return skip_unless_picture(pictures, alt, name, blob)


def _text_frame(shape) -> str:
    """A placeholder's paragraphs as list items (indented by level); a text box's as paragraphs,
    except those indented past level 0; a text frame set wholly in a monospace font as code."""
    if _is_code(shape.text_frame):
        code = "\n".join(par.text.replace("\v", "\n").rstrip() for par in shape.text_frame.paragraphs).strip("\n")
        fence = "```" if "```" not in code else "~~~~"
        return f"{fence}\n{code}\n{fence}"
    bulleted = shape.is_placeholder
    lines = []
    for par in shape.text_frame.paragraphs:
        text = paragraph(inline(par.text))
        if not text:
            continue
        if bulleted or par.level:
            lines.append("  " * par.level + "- " + text)
        else:
            lines.append(("\n" if lines else "") + text)
    return "\n".join(lines)


def _is_code(frame) -> bool:
    """Whether every run with text in ``frame`` is set in a monospace font (Consolas, Courier New...),
    as instructors set code on a slide."""
    fonts = [run.font.name or "" for par in frame.paragraphs for run in par.runs if run.text.strip()]
    return bool(fonts) and all(is_monospace(font) for font in fonts)
