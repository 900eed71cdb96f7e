"""Pictures inside Word, PowerPoint and OpenDocument guides reach the viewer (issue 26): kept as
bundle assets named by their content digest, referenced from the converted Markdown with their alt
text, and a picture that is not a PNG/JPEG/GIF, or too large, is its alt text with one warning."""

from __future__ import annotations

import hashlib
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QUrl  # noqa: E402
from PySide6.QtGui import QImage, QTextDocument  # noqa: E402

from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.freshness import check_bundle  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.formats import pictures as pictures_module  # noqa: E402
from app.formats.convert import convert_document  # noqa: E402
from app.gui.viewer import GuideViewer  # noqa: E402

from .fakes import FakeEmbedder  # noqa: E402
from .office_files import replace_member  # noqa: E402
from .office_pictures import docx_with_picture, odp_with_picture, odt_with_picture, png, pptx_with_picture  # noqa: E402

FAKE_IDENTITY = (FakeEmbedder.model_id, FakeEmbedder.dim, FakeEmbedder.checksum)
PICTURE = png()
NAME = f".lantern-media/{hashlib.sha256(PICTURE).hexdigest()[:16]}.png"


@pytest.mark.parametrize("extension, data, alt", [
    (".docx", docx_with_picture(PICTURE), "Servo wiring diagram"),
    (".pptx", pptx_with_picture(PICTURE), "Relay board photo"),
    (".odt", odt_with_picture(PICTURE), "Driver board"),
    (".odp", odp_with_picture(PICTURE), "Stepper driver"),
])
def test_each_format_keeps_its_picture_named_by_digest_with_its_alt_text(extension, data, alt):
    converted = convert_document(data, extension, "x")
    assert converted.pictures == {NAME: PICTURE} and converted.problem == ""
    assert f"![{alt}]({NAME})" in converted.text
    assert convert_document(data, extension, "x") == converted  # same file, same names: stable rebuilds


def test_a_deck_slide_shows_its_picture_in_the_viewer_and_rebuilds_stay_stable(tmp_path, qtbot):
    course = tmp_path / "course"
    (course / "lessons").mkdir(parents=True)
    (course / "lessons" / "relays.pptx").write_bytes(pptx_with_picture(PICTURE))
    (course / "servo.docx").write_bytes(docx_with_picture(PICTURE))
    out = tmp_path / "b.sqlite"
    report = build_bundle(course, out, FakeEmbedder())
    assert report.warnings == [] and report.assets == 2
    bundle = BundleReader(out)
    assert bundle.asset(f"lessons/{NAME}") == ("image/png", PICTURE) and bundle.asset(NAME) == ("image/png", PICTURE)
    hits = bundle.chunks(bundle.fts_phrase("relay board photo", 5))  # the alt text is searchable
    assert [(h.source, h.heading) for h in hits.values()] == [("lessons/relays.pptx", "Relays › Slide 2 · Relay board")]
    viewer = GuideViewer(bundle)
    qtbot.addWidget(viewer)
    anchor = next(h.anchor for h in bundle.headings("lessons/relays.pptx") if h.text == "Slide 2 · Relay board")
    viewer.open_guide("lessons/relays.pptx", anchor)
    assert f'src="asset:lessons/{NAME}"' in viewer.toHtml()
    image = viewer.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(f"asset:lessons/{NAME}"))
    assert isinstance(image, QImage) and (image.width(), image.height()) == (40, 24)  # the picture, not a placeholder
    assert check_bundle(course, out, FAKE_IDENTITY).up_to_date
    again = build_bundle(course, out, FakeEmbedder())
    assert again.embedded == 0 and again.corpus_version == report.corpus_version
    bundle.close()


def _build_warnings(tmp_path, name: str, data: bytes) -> tuple[list[str], str, frozenset[str]]:
    course = tmp_path / "course"
    course.mkdir()
    (course / name).write_bytes(data)
    out = tmp_path / "b.sqlite"
    report = build_bundle(course, out, FakeEmbedder())
    bundle = BundleReader(out)
    try:
        return report.warnings, bundle.source_text(name), bundle.asset_paths
    finally:
        bundle.close()


def test_a_picture_part_that_is_not_an_image_is_its_alt_text_with_one_line(tmp_path):
    bad = replace_member(docx_with_picture(PICTURE), "word/media/image1.png", b"MZ\x90\x00 not a picture at all")
    warnings, text, assets = _build_warnings(tmp_path, "servo.docx", bad)
    assert warnings == ["servo.docx: 2 pictures shown as their alt text only (first: /word/media/image1.png: "
                        "not a PNG, JPEG or GIF picture); save pictures as PNG or JPEG under 4 MiB to show them "
                        "in the viewer"]
    assert "(Image: Servo wiring diagram)" in text and ".lantern-media" not in text and assets == frozenset()


def test_an_emf_drawing_in_a_deck_is_skipped_and_the_slide_still_read(tmp_path):
    emf = b"\x01\x00\x00\x00" + b"\x00" * 40 + b" EMF" + b"\x00" * 60
    deck = replace_member(pptx_with_picture(PICTURE), "ppt/media/image1.png", emf)
    warnings, text, assets = _build_warnings(tmp_path, "relays.pptx", deck)
    assert len(warnings) == 1 and "not a PNG, JPEG or GIF picture" in warnings[0]
    assert "## Slide 2 · Relay board\n\n(Image: Relay board photo)\n\nThe coil side takes 5 V" in text
    assert assets == frozenset()


def test_a_picture_over_the_byte_limit_is_refused(monkeypatch):
    monkeypatch.setattr(pictures_module, "MAX_PICTURE_BYTES", len(PICTURE) - 1)
    for extension, data in ((".docx", docx_with_picture(PICTURE)), (".odp", odp_with_picture(PICTURE))):
        converted = convert_document(data, extension, "x")
        assert converted.pictures == {} and "(Image:" in converted.text
        assert f"{len(PICTURE):,} bytes, over the {len(PICTURE) - 1:,}-byte limit for one picture" in converted.problem


def test_pictures_past_the_document_total_are_alt_text(monkeypatch):
    other = png((10, 160, 10))
    monkeypatch.setattr(pictures_module, "MAX_DOCUMENT_PICTURE_BYTES", len(PICTURE) + len(other) - 1)
    collector = pictures_module.Pictures()
    first = collector.reference("one", "media/a.png", PICTURE)
    again = collector.reference("one again", "media/a.png", PICTURE)  # the same picture costs nothing more
    second = collector.reference("two", "media/b.png", other)
    assert first == f"![one]({NAME})" and again == f"![one again]({NAME})" and second == "(Image: two)"
    assert collector.kept == {NAME: PICTURE} and "past the" in collector.summary()


def test_alt_text_cannot_break_out_of_the_image_reference():
    collector = pictures_module.Pictures()
    assert collector.reference("a] (x) [b\\", "p", PICTURE) == f"![a\\] (x) \\[b\\\\]({NAME})"


def test_pictures_past_the_document_count_are_alt_text_and_the_total_is_kept_as_they_come():
    magic = b"\x89PNG\r\n\x1a\n"
    many = [magic + i.to_bytes(4, "big") for i in range(pictures_module.MAX_DOCUMENT_PICTURES + 3)]
    collector = pictures_module.Pictures()
    notes = [collector.reference(f"p{i}", f"media/p{i}.png", data) for i, data in enumerate(many)]
    limit = pictures_module.MAX_DOCUMENT_PICTURES
    assert len(collector.kept) == limit and notes[limit - 1].startswith("![p")
    assert notes[limit:] == [f"(Image: p{i})" for i in range(limit, limit + 3)]
    assert collector.reference("again", "media/p0.png", many[0]).startswith("![again]")  # kept already: no cost
    assert collector.kept_bytes == sum(len(data) for data in many[:limit])
    assert f"3 pictures shown as their alt text only (first: media/p{limit}.png: past the {limit:,} pictures" \
        in collector.summary()
    assert f"at most {limit:,} pictures and 32 MiB of them are kept from one document, so split" in collector.summary()


def test_a_picture_refused_for_itself_does_not_speak_of_the_document_caps():
    collector = pictures_module.Pictures()
    collector.reference("drawing", "media/a.emf", b"\x01\x00\x00\x00 not a picture")
    assert "not a PNG, JPEG or GIF picture); save pictures as PNG or JPEG under 4 MiB" in collector.summary()
    assert "kept from one document" not in collector.summary()
