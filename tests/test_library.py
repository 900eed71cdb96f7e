"""A lab's course library (issue 12): course id, version and content digest; courses; install; rollback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.bundle.builder import build_bundle
from app.bundle.inspect import inspect_bundle
from app.bundle.library import bundle_identity, check_course_id, slugify
from app.bundle.reader import BundleReader
from app.bundle.schema import connect
from app.cli import main
from app.errors import LanternError

from .fakes import FakeEmbedder


def meta_of(path: Path) -> dict[str, str]:
    reader = BundleReader(path)
    try:
        return dict(reader.meta)
    finally:
        reader.close()


def edit(path: Path, sql: str) -> None:
    conn = connect(str(path), read_only=False)
    try:
        conn.execute(sql)
    finally:
        conn.close()


# --- identity: course id, version, content digest --------------------------------------

def test_build_records_course_id_version_and_a_digest_that_inspect_verifies(bundle_path, capsys):
    meta = meta_of(bundle_path)
    assert meta["course_id"] == "course"  # the folder's name (tests' course folder is "course")
    assert meta["course_version"] == f"{meta['built_at'][:10]}-{meta['corpus_version'][:8]}"
    assert len(meta["content_digest"]) == 64
    assert main(["inspect", str(bundle_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["course"] == {"id": "course", "id_derived": False, "version": meta["course_version"],
                             "content_digest": meta["content_digest"]}
    assert doc["integrity"]["content_digest"] == "verified"
    assert main(["inspect", str(bundle_path)]) == 0
    out = capsys.readouterr().out
    assert "course id       course" in out and "(verified)" in out


def test_the_digest_is_the_same_for_the_same_content_and_differs_for_other_content(course, tmp_path):
    embedder = FakeEmbedder()
    a = build_bundle(course, tmp_path / "a.sqlite", embedder, course_id="lab", reuse=False).bundle
    b = build_bundle(course, tmp_path / "b.sqlite", embedder, course_id="lab", reuse=False).bundle
    c = build_bundle(course, tmp_path / "c.sqlite", embedder, course_id="other-lab", reuse=False).bundle
    ma, mb, mc = meta_of(a), meta_of(b), meta_of(c)
    if ma["built_at"] == mb["built_at"]:  # the build time is part of the digest (it is in meta)
        assert ma["content_digest"] == mb["content_digest"]
    assert mc["content_digest"] != ma["content_digest"]


@pytest.mark.parametrize("sql", [
    "UPDATE chunks SET text = replace(text, '0x3C', '0x3E') WHERE text LIKE '%0x3C%'",
    "UPDATE meta SET value = '2099-01-01T00:00:00+00:00' WHERE key = 'built_at'",
    "UPDATE sources SET title = 'Renamed' WHERE path = 'lessons/blink.md'",
])
def test_inspect_reports_a_digest_mismatch_after_an_edit(bundle_path, tmp_path, sql, capsys):
    copy = tmp_path / "edited.sqlite"
    shutil.copy(bundle_path, copy)
    edit(copy, sql)
    result = inspect_bundle(copy)
    assert result.integrity.content_digest == "mismatch" and not result.integrity.ok
    assert any("changed after it was built" in p for p in result.integrity.problems)
    assert main(["inspect", str(copy)]) == 1
    assert "failed its integrity check" in capsys.readouterr().err


def test_an_older_bundle_without_identity_keys_still_opens_with_an_id_from_its_file_name(bundle_path, tmp_path):
    old = tmp_path / "ESP32 Starter.sqlite"
    shutil.copy(bundle_path, old)
    edit(old, "DELETE FROM meta WHERE key IN ('course_id', 'course_version', 'content_digest')")
    reader = BundleReader(old)
    who = bundle_identity(reader.meta, old)
    reader.close()
    assert (who.course_id, who.derived, who.content_digest) == ("esp32-starter", True, None)
    result = inspect_bundle(old)
    assert result.integrity.ok and result.integrity.content_digest == "not-recorded"
    assert result.course["id_derived"] is True


def test_course_ids_are_checked_and_slugified():
    assert slugify("ESP32 Starter (2026)") == "esp32-starter-2026"
    assert slugify("Électronique") == "electronique" and slugify("!!!") == "course"
    assert check_course_id("esp32-starter") == "esp32-starter"
    for bad in ("ESP32", "a b", "-x", "x--y", "../etc", "a" * 65, ""):
        with pytest.raises(LanternError, match="not valid"):
            check_course_id(bad)


def test_build_cli_takes_an_id_and_refuses_a_bad_one_before_loading_a_model(course, tmp_path, capsys, monkeypatch):
    import app.embedding

    monkeypatch.setattr(app.embedding, "FastEmbedder", FakeEmbedder)
    out = tmp_path / "lab.sqlite"
    assert main(["build", str(course), "-o", str(out), "--id", "esp32-starter", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["course_id"] == "esp32-starter"
    assert meta_of(out)["course_id"] == "esp32-starter"

    def no_model():
        raise AssertionError("the model must not load for a bad --id")

    monkeypatch.setattr(app.embedding, "FastEmbedder", no_model)
    assert main(["build", str(course), "-o", str(tmp_path / "bad.sqlite"), "--id", "ESP 32"]) == 1
    err = capsys.readouterr().err
    assert "--id esp-32" in err and "Traceback" not in err and not (tmp_path / "bad.sqlite").exists()
