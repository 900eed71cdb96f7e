"""Small real documents made with the libraries themselves (python-docx, python-pptx, odfdo), a
hand-made EPUB and notebook, and the hostile files of the safety tests."""

from __future__ import annotations

import io
import json
import zipfile

from odfdo import Document as OdfDocument
from odfdo import DrawPage, Frame, Header, List, ListItem, Paragraph, Table

from app.formats.safety import OLE_MAGIC


def make_docx() -> bytes:
    """A Word lesson: title, headings, a two-level list, a numbered item, a table and a picture-free body."""
    import docx

    d = docx.Document()
    d.add_heading("Servo lab", 0)
    d.add_heading("Wiring", 1)
    d.add_paragraph("Connect the signal wire to GPIO 13 of the board.")
    d.add_paragraph("Red wire: 5 V", style="List Bullet")
    d.add_paragraph("Brown wire: GND", style="List Bullet 2")
    d.add_paragraph("Check the polarity before powering up", style="List Number")
    table = d.add_table(rows=3, cols=2)
    for i, row in enumerate([("Pin", "Use"), ("13", "servo signal"), ("GND", "ground")]):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    d.add_heading("Calibration", 2)
    d.add_paragraph("Pulses of 500 microseconds turn the horn to zero degrees.")
    d.add_paragraph("# not a heading, a hash sign typed by the author")
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def make_pptx(slides: int = 2) -> bytes:
    """A deck: a bullet slide with two levels and speaker notes, a table slide, then plain slides."""
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    s = deck.slides.add_slide(deck.slide_layouts[1])
    s.shapes.title.text = "PWM basics"
    frame = s.placeholders[1].text_frame
    frame.text = "The duty cycle sets the LED brightness"
    sub = frame.add_paragraph()
    sub.text, sub.level = "fifty percent is half brightness", 1
    s.notes_slide.notes_text_frame.text = "Ask students to measure the duty cycle with the oscilloscope."
    s2 = deck.slides.add_slide(deck.slide_layouts[5])
    s2.shapes.title.text = "Pin table"
    table = s2.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (r, c), value in {(0, 0): "Pin", (0, 1): "Use", (1, 0): "18", (1, 1): "servo horn"}.items():
        table.cell(r, c).text = value
    for n in range(3, slides + 1):
        extra = deck.slides.add_slide(deck.slide_layouts[1])
        extra.shapes.title.text = f"Topic {n}"
        extra.placeholders[1].text_frame.text = f"Point {n}: the timer channel {n} drives output pin {n}."
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def make_odt() -> bytes:
    d = OdfDocument("text")
    d.body.append(Header(1, "Stepper motors"))
    d.body.append(Paragraph("A stepper moves in fixed steps of 1.8 degrees."))
    d.body.append(Header(2, "Driver board"))
    outer = List(["Coil A to OUT1"])
    item = ListItem("Coil B")
    item.append(List(["to OUT3"]))
    outer.append(item)
    d.body.append(outer)
    table = Table("Pins", width=2, height=2)
    table.set_values([["Pin", "Use"], ["IN1", "step"]])
    d.body.append(table)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def make_odp() -> bytes:
    d = OdfDocument("presentation")
    page = DrawPage("p1", name="Relays")
    title = Frame.text_frame("Relays", size=("20cm", "3cm"), position=("1cm", "1cm"))
    title.set_attribute("presentation:class", "title")
    page.append(title)
    page.append(Frame.text_frame(["A relay switches mains loads", "Use a flyback diode"],
                                 size=("20cm", "8cm"), position=("1cm", "5cm")))
    d.body.clear()
    d.body.append(page)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def make_epub(encryption: str = "") -> bytes:
    """A two-chapter EPUB 3; ``encryption`` is an ``EncryptionMethod`` algorithm to declare (DRM)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                   'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
                   'full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
        z.writestr("OEBPS/book.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
                   '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Sensors Book</dc:title></metadata>'
                   '<manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/>'
                   '<item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/></manifest>'
                   '<spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>')
        z.writestr("OEBPS/ch1.xhtml", '<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml">'
                   '<body><h1>Temperature</h1><p>The DS18B20 reads temperature over one wire.</p>'
                   '<img src="img/ds.png" alt="DS18B20 pinout"/></body></html>')
        z.writestr("OEBPS/text/ch2.xhtml", '<html><body><h1>Light</h1><h2>Photoresistors</h2>'
                   '<p>An LDR in a voltage divider gives an analog reading.</p></body></html>')
        if encryption:
            z.writestr("META-INF/encryption.xml", '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                       'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod '
                       f'Algorithm="{encryption}"/></enc:EncryptedData></encryption>')
    return out.getvalue()


def make_ipynb() -> bytes:
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"language": "python"}},
                "cells": [
                    {"cell_type": "markdown", "source": ["# Plotting sensor data\n", "\n", "Load the CSV first."]},
                    {"cell_type": "code", "source": "import pandas as pd\ndf = pd.read_csv('log.csv')",
                     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["rows: 1440\n"]}]},
                    {"cell_type": "code", "source": "df.plot()",
                     "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo" * 50}},
                                 {"output_type": "stream", "text": "".join(f"line {i}\n" for i in range(100))}]},
                    {"cell_type": "markdown", "source": "## Smoothing\n\nA rolling mean of 10 samples removes noise."}]}
    return json.dumps(notebook).encode("utf-8")


def replace_member(data: bytes, name: str, content: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    """``data`` (a zip) with member ``name`` replaced by ``content`` and ``extra`` members added."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, content if info.filename == name else src.read(info.filename))
        for extra_name, extra_content in (extra or {}).items():
            dst.writestr(extra_name, extra_content)
    return out.getvalue()


def encrypted_office_file() -> bytes:
    """The start of what Office writes for a password-protected file: an OLE compound file holding
    an ``EncryptedPackage`` stream (enough for the checks, which never parse OLE)."""
    return OLE_MAGIC + b"\x00" * 504 + "EncryptedPackage".encode("utf-16-le") + b"\x00" * 1024


def legacy_office_file() -> bytes:
    """The start of a Word 97-2003 ``.doc`` file (OLE compound file, ``WordDocument`` stream)."""
    return OLE_MAGIC + b"\x00" * 504 + "WordDocument".encode("utf-16-le") + b"\x00" * 1024
