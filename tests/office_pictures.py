"""Small Word, PowerPoint and OpenDocument files with pictures in them, made with the libraries
themselves (python-docx, python-pptx, odfdo) and Pillow, for the tests of kept pictures."""

from __future__ import annotations

import io


def png(colour: tuple[int, int, int] = (200, 30, 30), size: tuple[int, int] = (40, 24)) -> bytes:
    """A small PNG picture of one colour."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def docx_with_picture(picture: bytes, alt: str = "Servo wiring diagram") -> bytes:
    """A Word lesson with one picture (alt text ``alt``) in the body and the same one in a table."""
    import docx

    d = docx.Document()
    d.add_heading("Servo lab", 0)
    d.add_heading("Wiring", 1)
    d.add_paragraph("Connect the signal wire as shown.")
    d.add_picture(io.BytesIO(picture))
    d.inline_shapes[0]._inline.docPr.set("descr", alt)
    table = d.add_table(rows=1, cols=1)
    table.cell(0, 0).paragraphs[0].add_run().add_picture(io.BytesIO(picture))
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def pptx_with_picture(picture: bytes, alt: str = "Relay board photo") -> bytes:
    """A two-slide deck whose second slide, "Relay board", shows one picture (alt text ``alt``)."""
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[5])
    first.shapes.title.text = "Relays"
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Relay board"
    shape = slide.shapes.add_picture(io.BytesIO(picture), Inches(1), Inches(2))
    shape._element.nvPicPr.cNvPr.set("descr", alt)
    box = slide.shapes.add_textbox(Inches(1), Inches(5), Inches(6), Inches(1))
    box.text_frame.text = "The coil side takes 5 V from the board."
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def odp_with_picture(picture: bytes, alt: str = "Stepper driver") -> bytes:
    """An OpenDocument presentation whose one slide shows a picture described as ``alt``."""
    from odfdo import Document, DrawPage, Frame

    doc = Document("presentation")
    page = DrawPage("p1", name="Stepper")
    title = Frame.text_frame("Stepper driver board", size=("20cm", "2cm"), position=("1cm", "1cm"),
                             presentation_class="title")
    page.append(title)
    uri = doc.add_file(_named(picture))
    frame = Frame.image_frame(uri, size=("4cm", "3cm"), position=("2cm", "4cm"))
    frame.svg_description = alt
    page.append(frame)
    doc.body.append(page)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def odt_with_picture(picture: bytes, title: str = "Driver board") -> bytes:
    """An OpenDocument text with a heading, a paragraph and one picture titled ``title``."""
    from odfdo import Document, Frame, Header, Paragraph

    doc = Document("text")
    doc.body.clear()
    doc.body.append(Header(1, "Stepper motors"))
    doc.body.append(Paragraph("The driver board takes four inputs."))
    uri = doc.add_file(_named(picture))
    frame = Frame.image_frame(uri, size=("4cm", "3cm"), position=("0cm", "0cm"))
    frame.svg_title = title
    holder = Paragraph("")
    holder.append(frame)
    doc.body.append(holder)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def _named(picture: bytes) -> io.BytesIO:
    """``picture`` as a file object with a ``.png`` name (odfdo's ``add_file`` names the part after it)."""
    handle = io.BytesIO(picture)
    handle.name = "picture.png"
    return handle
