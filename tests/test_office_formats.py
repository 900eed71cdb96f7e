"""Word, PowerPoint, OpenDocument, EPUB and notebook guides (issue 26): structure kept, cited by
slide or heading, unreadable and hostile files skipped with one line, the build going on."""

from __future__ import annotations

import zipfile

import pytest

from app.bundle.builder import build_bundle
from app.bundle.freshness import check_bundle
from app.bundle.reader import BundleReader
from app.formats import safety
from app.formats.base import UnreadableDocument
from app.formats.convert import document_to_markdown
from app.ingest.reader import read_course

from .fakes import FakeEmbedder, tiny_pdf
from .office_files import (
    encrypted_office_file,
    legacy_office_file,
    make_docx,
    make_epub,
    make_ipynb,
    make_odp,
    make_odt,
    make_pptx,
    replace_member,
)

FAKE_IDENTITY = (FakeEmbedder.model_id, FakeEmbedder.dim, FakeEmbedder.checksum)


def test_word_headings_lists_and_tables_become_markdown():
    text = document_to_markdown(make_docx(), ".docx", "Lab")
    assert text.startswith("# Servo lab\n\n## Wiring\n\nConnect the signal wire")
    assert "- Red wire: 5 V\n  - Brown wire: GND\n1. Check the polarity" in text
    assert "| Pin | Use |\n|---|---|\n| 13 | servo signal |\n| GND | ground |" in text
    assert "### Calibration" in text
    assert "\\# not a heading" in text  # the author's hash sign is text, not a heading


def test_slides_are_sections_with_bullet_levels_tables_and_notes():
    text = document_to_markdown(make_pptx(), ".pptx", "Deck")
    assert text.startswith("# PWM basics\n\n## Slide 1 · PWM basics\n\n- The duty cycle sets the LED brightness\n"
                           "  - fifty percent is half brightness\n\n### Notes\n\nAsk students to measure")
    assert "## Slide 2 · Pin table\n\n| Pin | Use |\n|---|---|\n| 18 | servo horn |" in text


def test_opendocument_epub_and_notebook_keep_their_structure():
    odt = document_to_markdown(make_odt(), ".odt", "x")
    assert "# Stepper motors" in odt and "## Driver board" in odt and "    -  to OUT3" in odt and "| IN1 | step" in odt
    odp = document_to_markdown(make_odp(), ".odp", "x")
    assert "## Slide 1 · Relays\n\nA relay switches mains loads" in odp
    epub = document_to_markdown(make_epub(), ".epub", "x")
    assert epub.startswith("# Sensors Book\n\n## Temperature\n\nThe DS18B20")
    assert "## Light\n\n### Photoresistors" in epub and "(Image: DS18B20 pinout)" in epub and "img/ds.png" not in epub
    notebook = document_to_markdown(make_ipynb(), ".ipynb", "x")
    assert "# Plotting sensor data" in notebook and "```python\nimport pandas as pd" in notebook
    assert "```output\nrows: 1440\n```" in notebook and "line 11\n…" in notebook and "line 12" not in notebook
    assert "iVBOR" not in notebook  # the plotted image is dropped


def _office_course(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    for name, data in {"servo.docx": make_docx(), "pwm-deck.pptx": make_pptx(), "stepper.odt": make_odt(),
                       "relays.odp": make_odp(), "sensors.epub": make_epub(), "plotting.ipynb": make_ipynb()}.items():
        (root / name).write_bytes(data)
    return root


def test_documents_are_built_into_the_bundle_and_cited_by_slide(tmp_path):
    course = _office_course(tmp_path)
    out = tmp_path / "b.sqlite"
    report = build_bundle(course, out, FakeEmbedder())
    assert not report.warnings and report.sources == 6
    bundle = BundleReader(out)
    kinds = {s.path: s.kind for s in bundle.sources()}
    assert kinds == {"servo.docx": "docx", "pwm-deck.pptx": "pptx", "stepper.odt": "odt", "relays.odp": "odp",
                     "sensors.epub": "epub", "plotting.ipynb": "ipynb"}
    assert [h.text for h in bundle.headings("pwm-deck.pptx")] == ["PWM basics", "Slide 1 · PWM basics", "Notes",
                                                                  "Slide 2 · Pin table"]
    rows = {r[0]: r for r in bundle._query("SELECT c.key, c.heading, c.text, c.start, c.end, s.path FROM chunks c "
                                           "JOIN sources s ON s.id = c.source_id")}
    for key, heading, text, start, end, path in rows.values():
        assert bundle.source_text(path)[start:end] == text
    hits = bundle.chunks(bundle.fts_phrase("oscilloscope", 5))
    assert [(h.source, h.heading) for h in hits.values()] == [("pwm-deck.pptx", "PWM basics › Slide 1 · PWM basics › Notes")]
    hits = bundle.chunks(bundle.fts_phrase("servo horn", 5))
    assert [(h.source, h.heading) for h in hits.values()] == [("pwm-deck.pptx", "PWM basics › Slide 2 · Pin table")]
    word = bundle.chunks(bundle.fts_phrase("servo signal", 5))
    assert [h.heading for h in word.values()] == ["Servo lab › Wiring"]
    assert "| 13 | servo signal |" in next(iter(word.values())).text
    assert [h.heading for h in bundle.chunks(bundle.fts_phrase("rolling mean", 5)).values()] == [
        "Plotting sensor data › Smoothing"]


def test_check_and_rebuild_use_the_documents_content(tmp_path):
    course = _office_course(tmp_path)
    out = tmp_path / "b.sqlite"
    build_bundle(course, out, FakeEmbedder())
    assert check_bundle(course, out, FAKE_IDENTITY).up_to_date
    (course / "pwm-deck.pptx").write_bytes(make_pptx(slides=3))
    result = check_bundle(course, out, FAKE_IDENTITY)
    assert not result.up_to_date and result.changed == ("pwm-deck.pptx",)
    again = build_bundle(course, out, FakeEmbedder())
    assert again.reused > 0 and 0 < again.embedded < again.chunks  # only the new slide's chunk is embedded


def _skipped(tmp_path, files: dict[str, bytes]) -> list[str]:
    course = tmp_path / "c"
    course.mkdir()
    (course / "guide.md").write_text("# Guide\n\nText.\n", encoding="utf-8")
    for name, data in files.items():
        (course / name).write_bytes(data)
    report = read_course(course)
    assert [d.path for d in report.documents] == ["guide.md"]  # the build goes on with the rest
    return sorted(report.warnings)


def test_unreadable_documents_are_skipped_with_one_line_naming_the_fix(tmp_path):
    docx = make_docx()
    warnings = _skipped(tmp_path, {
        "old.doc": legacy_office_file(), "old.ppt": legacy_office_file(), "locked.docx": encrypted_office_file(),
        "renamed.pptx": legacy_office_file(), "cut.docx": docx[: len(docx) // 2], "bad.ipynb": b'{"cells": [',
        "drm.epub": make_epub(encryption="http://www.w3.org/2001/04/xmlenc#aes256-cbc"),
        "scan.pdf": tiny_pdf([])})
    assert len(warnings) == 8 and all(w.endswith("; skipped") and "\n" not in w for w in warnings)
    text = "\n".join(warnings)
    assert "bad.ipynb: the notebook is not valid JSON at line 1" in text
    assert "cut.docx: the file is damaged: not a complete .docx (zip) archive" in text
    assert "drm.epub: the book is DRM-locked" in text
    assert "locked.docx: the .docx file is password-protected" in text
    assert "old.doc: a legacy binary Word file (.doc)" in text and "soffice --headless --convert-to docx" in text
    assert "old.ppt: a legacy binary PowerPoint file (.ppt)" in text and "save it as .pptx" in text
    assert "renamed.pptx: this is a legacy binary Office file with a .pptx name" in text
    assert "scan.pdf: the PDF has no text layer on any of its 1 page " in text and "ocrmypdf" in text


def test_epub_with_obfuscated_fonts_only_is_read():
    text = document_to_markdown(make_epub(encryption="http://www.idpf.org/2008/embedding"), ".epub", "x")
    assert "## Temperature" in text


@pytest.mark.timeout(10)
def test_external_entities_are_never_resolved(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-PASSWORD", encoding="utf-8")
    docx = make_docx()
    with zipfile.ZipFile(__import__("io").BytesIO(docx)) as z:
        body = z.read("word/document.xml").decode("utf-8")
    declared = body.replace("?>", f'?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "{secret.as_uri()}">]>', 1)
    hostile = replace_member(docx, "word/document.xml", declared.replace("Pulses of 500", "&xxe; Pulses of 500")
                             .encode("utf-8"))
    warnings = _skipped(tmp_path, {"xxe.docx": hostile})
    assert warnings == [w for w in warnings if "TOP-SECRET" not in w] and len(warnings) == 1
    assert warnings[0].startswith("xxe.docx: its XML part word/document.xml declares a document type")
    # The parsers are safe on their own too: python-docx reads it without the file's content.
    import docx as python_docx
    document = python_docx.Document(__import__("io").BytesIO(hostile))
    assert "TOP-SECRET" not in "\n".join(p.text for p in document.paragraphs)


@pytest.mark.timeout(10)
def test_zip_bomb_is_refused_before_anything_is_unpacked(tmp_path, monkeypatch):
    bomb = replace_member(make_docx(), "word/media/filler.bin", b"", {"word/media/filler.bin": b"\0" * (12 << 20)})
    assert len(bomb) < 200_000  # 12 MiB of zeros pack into a few kilobytes
    unpacked = []
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, *a, **k: unpacked.append(a) or 1 / 0)
    with pytest.raises(UnreadableDocument, match=r"unpacks \d[\d,]* bytes to 12,582,912 \(over 100 to 1: a zip bomb"):
        document_to_markdown(bomb, ".docx", "x")
    assert unpacked == []
    monkeypatch.undo()
    monkeypatch.setattr(safety, "MAX_UNPACKED_BYTES", 10_000)
    with pytest.raises(UnreadableDocument, match=r"more than the 10,000-byte limit \(a zip bomb\?\); refused without"):
        document_to_markdown(make_pptx(), ".pptx", "x")
    monkeypatch.setattr(safety, "MAX_MEMBERS", 5)
    with pytest.raises(UnreadableDocument, match=r"more than the 5 a document may hold"):
        document_to_markdown(make_odt(), ".odt", "x")


@pytest.mark.timeout(10)
def test_macros_and_embedded_objects_are_never_read(tmp_path):
    payload = b"Sub AutoOpen()\r\nShell \"calc.exe\"\r\nEnd Sub MACRO-PAYLOAD"
    hostile = replace_member(make_docx(), "", b"", {"word/vbaProject.bin": payload,
                                                    "word/embeddings/oleObject1.bin": payload})
    text = document_to_markdown(hostile, ".docx", "x")
    assert "Servo lab" in text and "MACRO-PAYLOAD" not in text and "AutoOpen" not in text


def test_entity_expansion_in_a_presentation_is_refused():
    deck = make_pptx()
    laughs = ('<?xml version="1.0"?><!DOCTYPE p [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><p>&c;</p>')
    hostile = replace_member(deck, "ppt/slides/slide1.xml", laughs.encode("utf-8"))
    with pytest.raises(UnreadableDocument, match="declares a document type or entities"):
        document_to_markdown(hostile, ".pptx", "x")


def test_self_test_probe_builds_a_word_course_and_fails_loudly_when_docx_is_not_read(monkeypatch):
    from app.errors import LanternError
    from app.formats import probe, word

    assert probe.build_docx_probe(FakeEmbedder()) == 1
    monkeypatch.setattr(word, "pipe_table", lambda rows: "")  # a build whose Word reader lost the tables
    with pytest.raises(LanternError, match=r"a Word \(.docx\) guide was not read with its heading and table"):
        probe.build_docx_probe(FakeEmbedder())


def test_a_table_without_grid_or_properties_is_still_read():
    from app.formats.probe import probe_docx

    data = probe_docx()
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        xml = z.read("word/document.xml").replace(b"<w:tblPr/><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>", b"")
    text = document_to_markdown(replace_member(data, "word/document.xml", xml), ".docx", "x")
    assert "| GPIO 2 | onboard LED |" in text


def test_word_code_set_in_a_monospace_font_becomes_one_code_block():
    import io

    import docx

    d = docx.Document()
    d.add_heading("Blink", 1)
    for line in ("void loop() {", "  digitalWrite(2, HIGH);", "}"):
        d.add_paragraph().add_run(line).font.name = "Consolas"
    d.add_paragraph("The LED turns on.")
    out = io.BytesIO()
    d.save(out)
    text = document_to_markdown(out.getvalue(), ".docx", "x")
    assert "```\nvoid loop() {\n  digitalWrite(2, HIGH);\n}\n```\n\nThe LED turns on." in text


def test_slide_code_set_in_a_monospace_font_becomes_a_code_block_and_a_default_deck_title_is_ignored():
    import io

    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    deck.core_properties.title = "PowerPoint Presentation"  # what PowerPoint writes by itself
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Blink"
    for lines, font in ((("void loop() {", "  digitalWrite(2, HIGH);", "", "}"), "Consolas"),
                        (("The LED turns on.", "digitalWrite(2, LOW) turns it off."), None)):
        frame = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(2)).text_frame
        for n, line in enumerate(lines):
            run = (frame.paragraphs[0] if n == 0 else frame.add_paragraph()).add_run()
            run.text = line
            run.font.name = font
    out = io.BytesIO()
    deck.save(out)
    text = document_to_markdown(out.getvalue(), ".pptx", "Blink deck")
    assert text.startswith("# Blink\n\n## Slide 1 · Blink\n\n```\nvoid loop() {\n  digitalWrite(2, HIGH);\n\n}\n```\n\n"
                           "The LED turns on.\n\ndigitalWrite(2, LOW) turns it off.\n")


def test_word_footnotes_are_marked_and_listed_under_notes():
    import io

    data = make_docx()
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    notes = (f'<w:footnotes xmlns:w="{w}"><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r>'
             '</w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>See the SG90 datasheet, page 2.</w:t></w:r>'
             '</w:p></w:footnote></w:footnotes>')
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        body = z.read("word/document.xml").decode("utf-8")
    body = body.replace("zero degrees.</w:t></w:r>", 'zero degrees.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r>', 1)
    text = document_to_markdown(replace_member(data, "word/document.xml", body.encode("utf-8"),
                                               {"word/footnotes.xml": notes.encode("utf-8")}), ".docx", "x")
    assert "zero degrees.[^f1]" in text
    assert text.endswith("## Notes\n\n[^f1]: See the SG90 datasheet, page 2.\n")


def test_a_converter_library_that_fails_to_load_is_named_with_the_fix(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "odfdo", None)  # what a frozen app without odfdo's files meets
    with pytest.raises(UnreadableDocument, match=r"cannot read \.odt files \(odfdo failed to load: .*reinstall Lantern"):
        document_to_markdown(make_odt(), ".odt", "x")


@pytest.mark.timeout(10)
def test_damaged_compressed_data_is_skipped_not_a_crash():
    import io

    data = make_docx()
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    outcomes = set()
    for offset in range(10, info.compress_size - 10, max(1, info.compress_size // 25)):
        damaged = bytearray(data)
        damaged[start + offset] ^= 0x5A
        try:
            document_to_markdown(bytes(damaged), ".docx", "x")
            outcomes.add("read")
        except UnreadableDocument as exc:  # zlib's "invalid distance", a bad CRC...: one sentence with the fix
            assert "damaged" in str(exc) and "save it again" in str(exc)
            outcomes.add("skipped")
    assert "skipped" in outcomes
