"""Real public files saved by Word and PowerPoint themselves (issue 26): two handouts of The
Carpentries' Instructor Training lesson (CC BY 4.0; source, commit and licence in
tests/data/office/SOURCE.md) are built into a bundle with their real titles and text."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.formats.convert import document_to_markdown

from .fakes import FakeEmbedder

OFFICE = Path(__file__).parent / "data" / "office"
WORKSHEET = "Carpentries_roles_worksheet_v4.docx"
DECK = "Carpentries_teaching_practices.pptx"


def test_public_word_and_powerpoint_handouts_are_built_with_their_titles(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    for name in (WORKSHEET, DECK):
        shutil.copy(OFFICE / name, course / name)
    out = tmp_path / "b.sqlite"
    report = build_bundle(course, out, FakeEmbedder())
    assert not report.warnings and report.sources == 2
    bundle = BundleReader(out)
    # Word's Title style is the guide's heading
    assert [h.text for h in bundle.headings(WORKSHEET)] == ["Carpentries Roles Worksheet"]
    # the deck's properties say "PowerPoint Presentation" (PowerPoint's own default): the file name titles it
    assert [h.text for h in bundle.headings(DECK)] == ["Carpentries teaching practices", "Slide 1"]
    deck = bundle.source_text(DECK)
    for label in ("Carpentries Teaching Practices", "Formative Assessment", "Feedback to learners (deliberate practice)",
                  "Active Learning"):  # the slide's text boxes, in order
        assert f"\n\n{label}\n" in deck
    assert deck.index("Preparation") < deck.index("Workshop End") < deck.index("Active Learning")
    hits = bundle.chunks(bundle.fts_phrase("Code of Conduct Committee", 5))
    assert [h.heading for h in hits.values()] == ["Carpentries Roles Worksheet"]
    bundle.close()


def test_a_word_text_box_is_read_once_on_lines_of_its_own():
    text = document_to_markdown((OFFICE / WORKSHEET).read_bytes(), ".docx", "x")
    assert text.count("What’s Your Role?") == 1  # not again from the copy Word keeps for older readers
    assert "\nWhat’s Your Role?\nThink about your various experiences" in text
    assert "(Image)" not in text  # a text box is not a picture
    assert "A. Help to coordinate workshops in their geographical areas" in text
