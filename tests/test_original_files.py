"""``lantern build --keep-originals`` and the viewer's "Open the original file" (issue 26): the
original bytes of converted guides are kept as assets with their digest, and the viewer writes one
to a private copy under its real name and hands its ``file:`` URL to the system (patched here),
refusing anything that is not a document type, a missing original and one that does not match."""

from __future__ import annotations

import os
import stat

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import hashlib  # noqa: E402
import json  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QUrl  # noqa: E402
from PySide6.QtGui import QDesktopServices  # noqa: E402

from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.freshness import check_bundle  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.cli import main  # noqa: E402
from app.errors import LanternError  # noqa: E402
from app.gui import original_file  # noqa: E402
from app.gui.viewer import ViewerPanel  # noqa: E402

from .fakes import FakeEmbedder  # noqa: E402
from .office_pictures import png, pptx_with_picture  # noqa: E402

FAKE_IDENTITY = (FakeEmbedder.model_id, FakeEmbedder.dim, FakeEmbedder.checksum)
DECK = pptx_with_picture(png())


def _course(tmp_path):
    course = tmp_path / "course"
    (course / "lessons").mkdir(parents=True)
    (course / "lessons" / "relays.pptx").write_bytes(DECK)
    (course / "intro.md").write_text("# Intro\n\nRelays switch loads.\n", encoding="utf-8")
    return course


@pytest.fixture()
def kept(tmp_path):
    course = _course(tmp_path)
    out = tmp_path / "b.sqlite"
    report = build_bundle(course, out, FakeEmbedder(), keep_originals=True)
    bundle = BundleReader(out)
    yield course, out, report, bundle
    bundle.close()


def test_keep_originals_stores_converted_files_with_their_digest(kept):
    course, out, report, bundle = kept
    assert bundle.asset(".lantern-originals/lessons/relays.pptx") == (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation", DECK)
    sha = bundle._query("SELECT sha256 FROM assets WHERE path = ?", (".lantern-originals/lessons/relays.pptx",))[0][0]
    assert sha == hashlib.sha256(DECK).hexdigest()
    assert ".lantern-originals/intro.md" not in bundle.asset_paths  # Markdown is shown as it is
    assert report.assets == 1  # the deck's picture; the original is not an image
    assert f"kept 1 original file ({len(DECK):,} bytes) in the bundle" in " ".join(report.notes)
    assert check_bundle(course, out, FAKE_IDENTITY).up_to_date  # `lantern check` does not call it stale


def test_inspect_counts_kept_originals_apart_from_images(kept, capsys):
    out = kept[1]
    assert main(["inspect", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"]["assets"] == 2 and doc["counts"]["images"] == 1 and doc["counts"]["originals"] == 1
    assert doc["integrity"]["ok"] and doc["integrity"]["sampled_assets"] == 2  # the original's digest is checked too
    assert main(["inspect", str(out)]) == 0
    text = capsys.readouterr().out
    assert "  images          1\n" in text and "  originals       1 (original files kept by build --keep-originals)" in text
    assert "and all 2 images and original files match their digests" in text


def test_originals_are_not_kept_by_default(tmp_path, qtbot):
    out = tmp_path / "b.sqlite"
    build_bundle(_course(tmp_path), out, FakeEmbedder())
    bundle = BundleReader(out)
    assert not any(p.startswith(".lantern-originals/") for p in bundle.asset_paths)
    panel = ViewerPanel(bundle)
    qtbot.addWidget(panel)
    assert panel.original_button.isHidden()
    bundle.close()


def test_the_cli_option_keeps_originals(tmp_path, monkeypatch):
    monkeypatch.setattr("app.embedding.FastEmbedder", lambda **kw: FakeEmbedder())
    out = tmp_path / "b.sqlite"
    assert main(["build", str(_course(tmp_path)), "-o", str(out), "--keep-originals", "--json"]) == 0
    bundle = BundleReader(out)
    assert bundle.asset(".lantern-originals/lessons/relays.pptx")[1] == DECK
    bundle.close()


def test_open_the_original_writes_a_private_copy_and_hands_its_url_to_the_system(kept, qtbot, monkeypatch):
    bundle = kept[3]
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    panel = ViewerPanel(bundle)
    qtbot.addWidget(panel)
    button = panel.original_button
    assert not button.isHidden() and not button.isEnabled()
    panel.viewer.open_guide("intro.md")
    assert not button.isEnabled()  # a Markdown guide has no original
    panel.viewer.open_guide("lessons/relays.pptx")
    assert button.isEnabled()
    button.click()
    assert len(opened) == 1 and opened[0].isLocalFile()
    copy = opened[0].toLocalFile()
    assert os.path.basename(copy) == "relays.pptx"
    with open(copy, "rb") as handle:
        assert handle.read() == DECK
    assert stat.S_IMODE(os.stat(os.path.dirname(copy)).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(copy).st_mode) & 0o077 == 0  # only this user may read it


def test_a_missing_original_is_one_sentence(tmp_path, qtbot, monkeypatch):
    out = tmp_path / "b.sqlite"
    build_bundle(_course(tmp_path), out, FakeEmbedder())
    bundle = BundleReader(out)
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: pytest.fail("nothing may be opened"))
    with pytest.raises(LanternError, match=r"^This course bundle does not hold the original of lessons/relays.pptx; "
                                           r"ask your instructor to build it with --keep-originals\.$"):
        original_file.open_original(bundle, "lessons/relays.pptx")
    bundle.close()


class _FakeBundle:
    """A bundle holding one "original" for any guide, with a sha256 recorded for it."""

    def __init__(self, data: bytes, recorded: bytes) -> None:
        self.data, self.recorded = data, recorded

    def asset(self, path):
        return ("application/octet-stream", self.data)

    def _query(self, sql, params):
        return [(hashlib.sha256(self.recorded).hexdigest(),)]


@pytest.mark.parametrize("guide", ["tools/setup.exe", "run.sh", "notes.md", "slides.pptm", "page.html"])
def test_a_guide_that_is_not_a_document_type_is_never_written_or_opened(guide, monkeypatch, tmp_path):
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: pytest.fail("nothing may be opened"))
    monkeypatch.setattr(original_file, "write_private_copy", lambda *a: pytest.fail("nothing may be written"))
    with pytest.raises(LanternError, match="Lantern opens only those"):
        original_file.open_original(_FakeBundle(b"MZ", b"MZ"), guide)


def test_an_original_that_does_not_match_its_guide_is_refused(monkeypatch, qtbot):
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: pytest.fail("nothing may be opened"))
    with pytest.raises(LanternError, match="does not match the guide"):
        original_file.open_original(_FakeBundle(b"other bytes", DECK), "lessons/relays.pptx")


def test_no_program_for_the_file_and_a_write_failure_are_one_sentence(kept, qtbot, monkeypatch, tmp_path):
    bundle = kept[3]
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)
    panel = ViewerPanel(bundle)
    qtbot.addWidget(panel)
    panel.viewer.open_guide("lessons/relays.pptx")
    with qtbot.waitSignal(panel.viewer.failed) as failed:
        panel.original_button.click()
    assert failed.args[0].startswith("No program on this PC opens .pptx files; a copy is at ")
    with pytest.raises(LanternError, match=r"^Could not write a copy of lessons/relays.pptx to open it"):
        original_file.write_private_copy("lessons/relays.pptx", DECK, tmp_path / "no" / "such" / "folder")


def _zip(members: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


DESKTOP_ENTRY = b"[Desktop Entry]\nType=Application\nExec=sh -c 'touch /tmp/pwned'\n"


@pytest.mark.parametrize(("guide", "data"), [
    ("lessons/relays.pptx", DESKTOP_ENTRY),                                      # not a zip at all
    ("lessons/relays.pptx", _zip({"ppt/presentation.xml": b"<p/>"})),          # no [Content_Types].xml
    ("notes.docx", _zip({"[Content_Types].xml": b"<T/>", "ppt/presentation.xml": b"<p/>"})),  # a deck named .docx
    ("book.epub", _zip({"mimetype": b"application/vnd.oasis.opendocument.text"})),  # wrong mimetype
    ("lab.odt", _zip({"content.xml": b"<x/>"})),                                # no mimetype member
    ("handout.pdf", b"#!/bin/sh\nrm -rf ~\n"),
    ("lab.ipynb", b"[1, 2, 3]"),
    ("lab.ipynb", b"\x7fELF\x02\x01"),
])
def test_an_original_whose_bytes_are_not_its_type_is_refused_even_with_a_matching_hash(guide, data, monkeypatch):
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: pytest.fail("nothing may be opened"))
    monkeypatch.setattr(original_file, "write_private_copy", lambda *a: pytest.fail("nothing may be written"))
    with pytest.raises(LanternError, match=rf"^The original of {guide} in this bundle is not a \.\w+ file; "):
        original_file.open_original(_FakeBundle(data, data), guide)


@pytest.mark.parametrize(("guide", "data"), [
    ("lessons/relays.pptx", DECK),
    ("book.epub", _zip({"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<c/>"})),
    ("lab.odp", _zip({"mimetype": b"application/vnd.oasis.opendocument.presentation"})),
    ("handout.pdf", b"%PDF-1.7\n..."),
    ("lab.ipynb", b'{"cells": [], "nbformat": 4}'),
])
def test_an_original_of_its_own_type_is_accepted(guide, data):
    assert original_file.original_bytes(_FakeBundle(data, data), guide) == data


def test_opening_the_same_original_again_reuses_its_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(original_file, "_PRIVATE_FOLDERS", {})
    writes: list[str] = []
    real_open = os.open
    monkeypatch.setattr(original_file.os, "open", lambda path, *a: writes.append(str(path)) or real_open(path, *a))
    copies = {original_file.write_private_copy("lessons/relays.pptx", DECK, tmp_path) for _ in range(50)}
    assert len(copies) == 1 and len(writes) == 1
    other = original_file.write_private_copy("other/relays.pptx", DECK + b"x", tmp_path)  # same name, other bytes
    assert other != next(iter(copies)) and other.read_bytes() == DECK + b"x"
    assert len(list(tmp_path.iterdir())) == 1  # one private folder for the process
    copy = next(iter(copies))
    os.chmod(copy, 0o600)
    copy.write_bytes(b"changed by someone")
    assert original_file.write_private_copy("lessons/relays.pptx", DECK, tmp_path).read_bytes() == DECK


def test_rebuilding_in_place_without_the_option_says_the_originals_were_dropped(tmp_path):
    course = _course(tmp_path)
    out = tmp_path / "b.sqlite"
    build_bundle(course, out, FakeEmbedder(), keep_originals=True)
    report = build_bundle(course, out, FakeEmbedder())
    assert ('the bundle being rebuilt kept 1 original file for "Open the original file"; this build does not '
            "keep them (build with --keep-originals to keep them)") in report.notes
    assert not any("does not keep them" in note for note in build_bundle(course, out, FakeEmbedder()).notes)
    build_bundle(course, out, FakeEmbedder(), keep_originals=True)
    assert not any("does not keep them" in note
                   for note in build_bundle(course, out, FakeEmbedder(), keep_originals=True).notes)
