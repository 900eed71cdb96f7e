"""A lab's course library (issue 12): course id, version and content digest; courses; install; rollback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from app.bundle.builder import build_bundle
from app.bundle.inspect import inspect_bundle
from app.bundle.install import LOCK_NAME
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
                             "content_digest": meta["content_digest"], "language": "en"}
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


def test_build_records_the_course_language_given_or_guessed_and_courses_shows_it(course, tmp_path, capsys,
                                                                                 monkeypatch):
    import app.embedding

    monkeypatch.setattr(app.embedding, "FastEmbedder", FakeEmbedder)
    guessed, given, unknown = tmp_path / "d" / "guessed.sqlite", tmp_path / "d" / "given.sqlite", tmp_path / "u.sqlite"
    assert main(["build", str(course), "-o", str(guessed), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["language"], doc["language_detected"]) == ("en", True) and meta_of(guessed)["language"] == "en"
    assert main(["build", str(course), "-o", str(given), "--id", "lab-pt", "--language", "pt-br"]) == 0
    assert "language pt-BR (Portuguese (BR))" in capsys.readouterr().out
    assert meta_of(given)["language"] == "pt-BR"
    # A bundle with no language recorded (as every bundle built before it): unknown, and it still opens.
    build_bundle(course, unknown, FakeEmbedder(), course_id="old-lab", language="")
    assert "language" not in meta_of(unknown)
    assert main(["inspect", str(unknown), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["course"]["language"] is None
    assert main(["inspect", str(given)]) == 0
    assert "language        pt-BR" in capsys.readouterr().out

    assert main(["courses", "--json", "--dir", str(guessed.parent), "--dir", str(tmp_path)]) == 0
    listed = {Path(c["path"]).name: c for c in json.loads(capsys.readouterr().out)["courses"]}
    assert {name: c["language"] for name, c in listed.items()} == {
        "given.sqlite": "pt-BR", "guessed.sqlite": "en", "u.sqlite": None}
    assert all(c["state"] == "ok" for c in listed.values())
    assert main(["courses", "--dir", str(guessed.parent), "--dir", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("ok")]
    assert lines[0].endswith(", Portuguese (BR)") and lines[1].endswith(", English")
    assert lines[2].endswith("chunks")  # unknown: nothing said

    def no_model():
        raise AssertionError("the model must not load for a bad --language")

    monkeypatch.setattr(app.embedding, "FastEmbedder", no_model)
    assert main(["build", str(course), "-o", str(tmp_path / "bad.sqlite"), "--language", "Portuguese!"]) == 1
    err = capsys.readouterr().err
    assert "not a language tag" in err and "--language pt-BR" in err and not (tmp_path / "bad.sqlite").exists()


# --- the library: lantern courses -------------------------------------------------------

FAKE_IDENTITY = (FakeEmbedder.model_id, FakeEmbedder.dim, FakeEmbedder.checksum)


def build_at(course: Path, out: Path, when: str, monkeypatch, course_id: str = "lab", title: str = "Lab") -> Path:
    """Build ``course`` into ``out`` as if at ``when`` (ISO date, UTC), with the fake embedder."""
    import datetime as dt
    import types

    import app.bundle.builder as builder

    class Fixed(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls.fromisoformat(when).replace(tzinfo=tz)

    with monkeypatch.context() as m:
        m.setattr(builder, "_dt", types.SimpleNamespace(datetime=Fixed, timezone=dt.timezone))
        build_bundle(course, out, FakeEmbedder(), course_id=course_id, title=title, reuse=False)
    return out


@pytest.fixture()
def library(tmp_path, monkeypatch):
    """Empty app, machine-wide and user course folders and settings folder, all under tmp_path."""
    import app.bundle.library as lib
    import app.embedding

    folders = {name: tmp_path / name for name in ("app", "machine", "user", "config")}
    monkeypatch.setattr(lib, "app_course_folders", lambda: [folders["app"]])
    monkeypatch.setattr(lib, "user_courses_dir", lambda: folders["user"])
    monkeypatch.setenv("LANTERN_COURSES_DIR", str(folders["machine"]))
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(folders["config"]))
    monkeypatch.delenv("LANTERN_BUNDLE", raising=False)
    monkeypatch.setattr(app.embedding, "manifest_embedding", lambda: FAKE_IDENTITY)
    return folders


def test_courses_lists_every_folder_with_states_and_resolves_duplicates(course, library, monkeypatch, capsys):
    library["machine"].mkdir()
    library["user"].mkdir()
    build_at(course, library["machine"] / "lab.sqlite", "2026-01-10T09:00:00", monkeypatch)
    (course / "lessons" / "extra.md").write_text("# Extra\n\nA new lesson about the buzzer on GPIO 4.\n")
    new = build_at(course, library["user"] / "lab-v2.sqlite", "2026-02-10T09:00:00", monkeypatch)
    other = build_at(course, library["user"] / "other.sqlite", "2026-01-01T00:00:00", monkeypatch,
                     course_id="other-course", title="Other")
    (library["user"] / "junk.sqlite").write_bytes(b"not a database at all")
    newer = library["user"] / "future.sqlite"
    shutil.copy(other, newer)
    edit(newer, "UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    shutil.copy(new, library["user"] / ("lab" + ".previous.sqlite"))  # kept for rollback: not listed
    library["config"].mkdir()
    (library["config"] / "settings.json").write_text(json.dumps({"bundle": str(new)}))  # listed once

    assert main(["courses", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["kind"] for f in doc["folders"]] == ["app", "machine", "user", "settings"]
    by_name = {Path(c["path"]).name: c for c in doc["courses"]}
    assert set(by_name) == {"lab.sqlite", "lab-v2.sqlite", "other.sqlite", "junk.sqlite", "future.sqlite"}
    assert by_name["lab-v2.sqlite"]["state"] == "ok" and by_name["lab-v2.sqlite"]["folder"] == "user"
    assert by_name["lab.sqlite"]["state"] == "older-version" and "lab-v2.sqlite" in by_name["lab.sqlite"]["reason"]
    assert by_name["other.sqlite"]["state"] == "ok" and by_name["other.sqlite"]["course_id"] == "other-course"
    assert by_name["junk.sqlite"]["state"] == "damaged" and by_name["junk.sqlite"]["guides"] is None
    assert by_name["future.sqlite"]["state"] == "needs-newer-app" and "update Lantern" in by_name["future.sqlite"]["reason"]
    entry = by_name["lab-v2.sqlite"]
    assert (entry["guides"], entry["title"], entry["version"][:10]) == (3, "Lab", "2026-02-10")
    assert entry["chunks"] > 0 and entry["degraded"] == [] and len(entry["corpus_version"]) == 64
    assert main(["courses"]) == 0
    out = capsys.readouterr().out
    assert "older-version   lab  Lab  2026-01-10" in out and "needs-newer-app" in out


def test_courses_marks_a_tampered_bundle_damaged_and_another_embedding_model_keyword_only(
        course, library, monkeypatch, capsys):
    import app.embedding

    library["user"].mkdir()
    good = build_at(course, library["user"] / "lab.sqlite", "2026-01-10T09:00:00", monkeypatch)
    shutil.copy(good, library["user"] / "edited.sqlite")
    edit(library["user"] / "edited.sqlite", "UPDATE chunks SET text = text || ' (edited)' WHERE id = 1")
    assert main(["courses", "--json"]) == 0
    states = {Path(c["path"]).name: c["state"] for c in json.loads(capsys.readouterr().out)["courses"]}
    assert states == {"lab.sqlite": "ok", "edited.sqlite": "damaged"}
    monkeypatch.setattr(app.embedding, "manifest_embedding", lambda: ("other/model", 384, "abc"))
    assert main(["courses", "--json", "--dir", str(library["user"])]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["folders"] == [{"kind": "dir", "path": str(library["user"]), "exists": True}]
    assert doc["courses"][1]["degraded"] == ["keyword-only"] and doc["courses"][1]["state"] == "ok"


def test_the_remembered_course_opens_at_its_newest_version_after_an_update(course, library, monkeypatch):
    from app.bundle.library import default_bundle

    library["machine"].mkdir()
    library["user"].mkdir()
    old = build_at(course, library["machine"] / "lab.sqlite", "2026-01-10T09:00:00", monkeypatch)
    library["config"].mkdir()
    (library["config"] / "settings.json").write_text(json.dumps({"bundle": str(old)}))
    assert default_bundle() == old  # the only copy
    (course / "lessons" / "extra.md").write_text("# Extra\n\nA new lesson about the buzzer on GPIO 4.\n")
    new = build_at(course, library["user"] / "lab-v2.sqlite", "2026-02-10T09:00:00", monkeypatch)
    assert default_bundle() == new  # installed since: the remembered course opens at its new version
    monkeypatch.setenv("LANTERN_BUNDLE", str(old))
    assert default_bundle() == old  # an explicit choice is kept


def test_courses_with_no_bundles_names_the_folders_it_looked_in(library, capsys):
    assert main(["courses"]) == 0
    out = capsys.readouterr().out
    assert "No course bundles found" in out and str(library["machine"]) in out and "(does not exist)" in out


# --- install and rollback ---------------------------------------------------------------

import hashlib  # noqa: E402


def snapshot(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` (hidden ones too) -> sha256 of its bytes."""
    if not folder.exists():
        return {}
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture()
def versions(course, tmp_path, library, monkeypatch):
    """Two versions of course ``lab`` (v1 January, v2 February: oled.md changed, extra.md added,
    blink.md removed) and another course, in a "usb" folder; the install folder is library["machine"]."""
    usb = tmp_path / "usb"
    usb.mkdir()
    v1 = build_at(course, usb / "lab-v1.sqlite", "2026-01-10T09:00:00", monkeypatch)
    other = build_at(course, usb / "other.sqlite", "2026-01-11T09:00:00", monkeypatch, course_id="other")
    guide = course / "lessons" / "oled.md"
    guide.write_text(guide.read_text().replace("some use 0x3D.", "some use 0x3D (see the jumper)."))
    (course / "lessons" / "extra.md").write_text("# Buzzer\n\nThe buzzer sits on GPIO 4 and beeps with `tone()`.\n")
    (course / "lessons" / "blink.md").unlink()
    v2 = build_at(course, usb / "lab-v2.sqlite", "2026-02-10T09:00:00", monkeypatch)
    return {"v1": v1, "v2": v2, "other": other, "dir": library["machine"]}


def install(bundle: Path, *extra: str) -> int:
    return main(["install", str(bundle), "--yes", *extra])


def digest_of(path: Path) -> str:
    return meta_of(path)["content_digest"]


def test_install_fresh_then_the_same_again_is_already_current(versions, capsys):
    d = versions["dir"]
    assert install(versions["v1"], "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["result"], doc["change"], doc["course_id"], doc["old"], doc["previous"]) == (
        "installed", "new", "lab", None, None)
    assert doc["installed"] == str(d / "lab.sqlite") and doc["new"]["guides"] == 2
    assert digest_of(d / "lab.sqlite") == digest_of(versions["v1"])
    before = snapshot(d)
    assert install(versions["v1"], "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["result"], doc["change"]) == ("already-current", "same")
    assert snapshot(d) == before and not (d / "lab.previous.sqlite").exists()
    assert install(versions["v1"]) == 0
    assert "already installed" in capsys.readouterr().out


def test_upgrade_shows_what_changes_and_keeps_the_previous_version(versions, capsys):
    d = versions["dir"]
    assert install(versions["v1"]) == 0
    assert install(versions["other"]) == 0
    capsys.readouterr()
    assert install(versions["v2"], "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["result"], doc["change"]) == ("installed", "upgrade")
    assert doc["guides"] == {"added": ["lessons/extra.md"], "changed": ["lessons/oled.md"],
                             "removed": ["lessons/blink.md"]}
    assert doc["old"]["version"].startswith("2026-01-10") and doc["new"]["version"].startswith("2026-02-10")
    assert doc["old"]["chunks"] != doc["new"]["chunks"] or doc["old"]["corpus_version"] != doc["new"]["corpus_version"]
    assert doc["previous"] == str(d / "lab.previous.sqlite")
    assert digest_of(d / "lab.sqlite") == digest_of(versions["v2"])
    assert digest_of(d / "lab.previous.sqlite") == digest_of(versions["v1"])
    assert digest_of(d / "other.sqlite") == digest_of(versions["other"])  # the other course is untouched
    assert sorted(p.name for p in d.iterdir() if p.name != LOCK_NAME) == ["lab.previous.sqlite", "lab.sqlite", "other.sqlite"]
    assert main(["install", str(versions["v1"]), "--yes", "--allow-downgrade"]) == 0  # text output
    out = capsys.readouterr().out
    assert "guides added" in out and "lessons/oled.md" in out and "kept as lab.previous.sqlite" in out


def test_a_downgrade_is_refused_unless_allowed(versions, capsys):
    d = versions["dir"]
    assert install(versions["v2"]) == 0
    capsys.readouterr()
    before = snapshot(d)
    assert install(versions["v1"]) == 1
    err = capsys.readouterr().err
    assert "older version of lab" in err and "--allow-downgrade" in err and "Traceback" not in err
    assert snapshot(d) == before
    assert install(versions["v1"], "--allow-downgrade", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["change"] == "downgrade" and digest_of(d / "lab.sqlite") == digest_of(versions["v1"])
    assert digest_of(d / "lab.previous.sqlite") == digest_of(versions["v2"])


def test_rollback_restores_the_previous_version_and_a_second_one_undoes_it(versions, capsys):
    d = versions["dir"]
    assert main(["rollback", "lab", "--dir", str(d)]) == 1
    assert "nothing to roll back to" in capsys.readouterr().err
    assert install(versions["v1"]) == 0 and install(versions["v2"]) == 0
    capsys.readouterr()
    assert main(["rollback", "lab", "--json"]) == 0  # default folder: LANTERN_COURSES_DIR
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"] == "rolled-back" and doc["new"]["version"].startswith("2026-01-10")
    assert digest_of(d / "lab.sqlite") == digest_of(versions["v1"])
    assert digest_of(d / "lab.previous.sqlite") == digest_of(versions["v2"])
    assert main(["rollback", "lab"]) == 0
    assert "Rolled back lab to 2026-02-10" in capsys.readouterr().out
    assert digest_of(d / "lab.sqlite") == digest_of(versions["v2"])
    assert sorted(p.name for p in d.iterdir() if p.name != LOCK_NAME) == ["lab.previous.sqlite", "lab.sqlite"]
    assert main(["rollback", "Not An Id"]) == 1
    assert "not valid" in capsys.readouterr().err


def _flip_a_bit_in_a_guide(path: Path) -> None:
    data = bytearray(path.read_bytes())
    at = data.index(b"Run the scanner sketch")
    data[at + 4] ^= 0x01
    path.write_bytes(bytes(data))


def _damaged(kind: str, good: Path, tmp_path: Path, monkeypatch) -> Path:
    bad = tmp_path / f"{kind}.sqlite"
    if kind == "not-sqlite":
        bad.write_text("# Lesson 1\nThis is a Markdown file renamed to .sqlite\n")
        return bad
    if kind == "zero-bytes":
        bad.write_bytes(b"")
        return bad
    shutil.copy(good, bad)
    if kind == "bit-flipped":
        _flip_a_bit_in_a_guide(bad)
    elif kind == "truncated":
        bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif kind == "edited-chunk":
        edit(bad, "UPDATE chunks SET text = replace(text, '0x3C', '0x3E') WHERE text LIKE '%0x3C%'")
    elif kind == "newer-schema":
        edit(bad, "UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    elif kind == "no-digest":
        edit(bad, "DELETE FROM meta WHERE key = 'content_digest'")
    elif kind == "other-embedding-model":
        import app.embedding

        monkeypatch.setattr(app.embedding, "manifest_embedding", lambda: ("sentence-transformers/x", 384, "abc"))
    return bad


@pytest.mark.parametrize("kind,says", [
    ("bit-flipped", "is damaged"),
    ("not-sqlite", "not a SQLite file"),
    ("zero-bytes", "is empty (0 bytes)"),
    ("truncated", "is truncated"),
    ("edited-chunk", "differ from the digest recorded"),
    ("newer-schema", "newer Lantern"),
    ("no-digest", "records no content digest"),
    ("other-embedding-model", "was built with the embedding model fake/bag-of-words"),
])
def test_a_bad_bundle_is_refused_in_one_sentence_and_nothing_changes(versions, tmp_path, monkeypatch, capsys,
                                                                     kind, says):
    d = versions["dir"]
    assert install(versions["v1"]) == 0 and install(versions["other"]) == 0
    capsys.readouterr()
    before = snapshot(d)
    bad = _damaged(kind, versions["v2"], tmp_path, monkeypatch)
    assert install(bad, "--json") == 1
    captured = capsys.readouterr()
    assert says in captured.err and captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert snapshot(d) == before
    if kind != "other-embedding-model":  # the installed courses still open and verify
        assert [e["state"] for e in _listed(d, capsys)] == ["ok", "ok"]


def _listed(folder: Path, capsys) -> list[dict]:
    assert main(["courses", "--json", "--dir", str(folder)]) == 0
    return json.loads(capsys.readouterr().out)["courses"]


def test_without_yes_a_script_is_refused_and_a_terminal_is_asked(versions, monkeypatch, capsys):
    import io

    d = versions["dir"]

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal
    assert main(["install", str(versions["v1"])]) == 1
    assert "run it again with --yes" in capsys.readouterr().err.lower()
    assert snapshot(d) == {}
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    assert main(["install", str(versions["v1"])]) == 1
    captured = capsys.readouterr()
    assert "new install" in captured.out and "[y/N]" in captured.err and "cancelled" in captured.err
    assert snapshot(d) == {}
    monkeypatch.setattr("sys.stdin", Terminal("y\n"))
    assert main(["install", str(versions["v1"])]) == 0
    assert digest_of(d / "lab.sqlite") == digest_of(versions["v1"])


def test_an_interrupted_copy_or_a_failed_rename_changes_nothing(versions, monkeypatch, capsys):
    import app.bundle.install as inst

    d = versions["dir"]
    assert install(versions["v1"]) == 0
    capsys.readouterr()
    before = snapshot(d)
    real_copy = inst.copy_flushed

    def half_copy(source, dest):
        dest.write_bytes(Path(source).read_bytes()[:4096])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(inst, "copy_flushed", half_copy)
    assert install(versions["v2"]) == 1
    assert "No space left on device" in capsys.readouterr().err and snapshot(d) == before

    def garbled_copy(source, dest):
        dest.write_bytes(Path(source).read_bytes())
        _flip_a_bit_in_a_guide(dest)

    monkeypatch.setattr(inst, "copy_flushed", garbled_copy)
    assert install(versions["v2"]) == 1
    assert "does not match the original" in capsys.readouterr().err and snapshot(d) == before
    monkeypatch.setattr(inst, "copy_flushed", real_copy)
    real_replace = os.replace

    def failing_replace(src, dst):
        if Path(dst).name == "lab.sqlite":
            raise OSError(13, "Permission denied")
        return real_replace(src, dst)

    monkeypatch.setattr(inst.os, "replace", failing_replace)
    assert install(versions["v2"]) == 1
    assert "installed version is unchanged" in capsys.readouterr().err
    assert snapshot(d)["lab.sqlite"] == before["lab.sqlite"]
    # No temporary file left behind (the empty install lock file stays: see test_install_lock_*).
    assert not [p for p in d.iterdir() if p.name.startswith(".") and p.name != inst.LOCK_NAME]


def test_a_damaged_installed_copy_is_replaced_by_a_good_one_with_a_note(versions, capsys):
    d = versions["dir"]
    assert install(versions["v1"]) == 0
    _flip_a_bit_in_a_guide(d / "lab.sqlite")
    capsys.readouterr()
    assert install(versions["v1"], "--json") == 0  # same version, but the installed copy fails verification
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"] == "installed" and doc["old"] is None and "could not be verified" in doc["notes"][0]
    assert [e["state"] for e in _listed(d, capsys)] == ["ok"]


# --- the install lock: two installs at once ---------------------------------------------

def test_install_lock_a_second_install_or_rollback_waits_then_refuses_and_changes_nothing(
        versions, monkeypatch, capsys):
    import time

    import filelock

    import app.bundle.install as inst

    d = versions["dir"]
    assert install(versions["v1"]) == 0 and install(versions["v2"]) == 0
    assert (d / inst.LOCK_NAME).exists()  # the lock file stays, empty, after an install
    capsys.readouterr()
    before = snapshot(d)
    monkeypatch.setattr(inst, "LOCK_TIMEOUT_S", 0.3)
    with filelock.FileLock(str(d / inst.LOCK_NAME)):  # another `lantern install` is working in d
        for argv in (["install", str(versions["v1"]), "--yes", "--allow-downgrade", "--json"],
                     ["rollback", "lab", "--json"]):
            started = time.monotonic()
            assert main(argv) == 1
            assert time.monotonic() - started >= 0.3  # it waited for the lock before refusing
            captured = capsys.readouterr()
            assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
            assert "Another `lantern install` or `lantern rollback` is working in" in captured.err
            assert "nothing was changed" in captured.err
            assert snapshot(d) == before
    assert main(["rollback", "lab"]) == 0  # the lock is free again
    assert digest_of(d / "lab.sqlite") == digest_of(versions["v1"])


def _install_in_thread(source: Path, folder: Path, held_until_confirmed: dict, **options) -> dict:
    """Run install_bundle (with ``options``) in a thread; ``held_until_confirmed["confirmed"]`` is set
    once it confirmed (it then goes for the lock). Returns a dict that gets ``result`` or ``error``."""
    import threading

    from app.bundle.install import install_bundle

    outcome: dict = {}
    confirmed = threading.Event()
    held_until_confirmed["confirmed"] = confirmed

    def run():
        try:
            outcome["result"] = install_bundle(source, folder, embedding=FAKE_IDENTITY, lock_timeout=10,
                                               confirm=lambda plan: confirmed.set() or True, **options)
        except LanternError as exc:
            outcome["error"] = str(exc)

    outcome["thread"] = threading.Thread(target=run)
    outcome["thread"].start()
    return outcome


def test_install_lock_a_waiting_install_goes_on_when_the_lock_is_freed_and_sees_what_the_first_did(
        versions, course, tmp_path, monkeypatch):
    import filelock

    import app.bundle.install as inst

    d = versions["dir"]
    assert install(versions["v1"]) == 0
    lock = filelock.FileLock(str(d / inst.LOCK_NAME))

    # The lock is freed and nothing changed meanwhile: the waiting install goes on.
    with lock:
        events: dict = {}
        outcome = _install_in_thread(versions["v2"], d, events)
        assert events["confirmed"].wait(10)
        assert "result" not in outcome and "error" not in outcome  # waiting for the lock
    outcome["thread"].join(10)
    assert outcome["result"].result == "installed" and digest_of(d / "lab.sqlite") == digest_of(versions["v2"])

    # A double click: the first install put this very version in place while the second waited.
    assert main(["install", str(versions["v1"]), "--yes", "--allow-downgrade"]) == 0
    with lock:
        outcome = _install_in_thread(versions["v2"], d, events)
        assert events["confirmed"].wait(10)
        shutil.copy(versions["v2"], d / ".other.tmp")
        os.replace(d / ".other.tmp", d / "lab.sqlite")  # what the first install did
    outcome["thread"].join(10)
    assert outcome["result"].result == "already-current"

    # Another version was put in place meanwhile: the change confirmed is not the one it would make, refused.
    (course / "lessons" / "more.md").write_text("# More\n\nAnother lesson.\n", encoding="utf-8")
    v3 = build_at(course, tmp_path / "usb" / "lab-v3.sqlite", "2026-03-10T09:00:00", monkeypatch)
    with lock:
        outcome = _install_in_thread(versions["v1"], d, events, allow_downgrade=True)
        assert events["confirmed"].wait(10)
        shutil.copy(v3, d / ".other.tmp")
        os.replace(d / ".other.tmp", d / "lab.sqlite")
        before = snapshot(d)
    outcome["thread"].join(10)
    assert "Another install changed lab" in outcome["error"] and "nothing was changed" in outcome["error"]
    assert snapshot(d) == before


# --- install checks what inspect checks; metadata-only updates (issue 23, items 4 and 5) --------

def test_install_refuses_chunk_spans_past_their_guide_that_inspect_refuses(versions, tmp_path, capsys):
    """Issue 23, item 4: a bundle whose chunk spans point past their text (digest recomputed) failed
    inspect but installed. Install runs inspect's checks, on every chunk; the reader refuses it too."""
    from app.errors import BundleError

    from .test_security import craft

    d = versions["dir"]
    assert install(versions["v1"]) == 0
    capsys.readouterr()
    before = snapshot(d)
    for n, sql in enumerate(["UPDATE chunks SET start = start + 100000, end = end + 100000 WHERE id = 3",
                             "UPDATE chunks SET end = start - 1 WHERE id = 1",
                             "UPDATE chunks SET source_id = 99 WHERE id = 2"]):
        bad = craft(versions["v2"], tmp_path / f"bad{n}.sqlite", (sql, ()))
        assert inspect_bundle(bad).integrity.ok is False
        assert main(["inspect", str(bad)]) == 1
        capsys.readouterr()
        assert install(bad) == 1
        err = capsys.readouterr().err
        assert "fails `lantern inspect`'s integrity check" in err or "is damaged" in err, err
        assert ("character span outside" in err or "belongs to no guide" in err) and err.count("\n") == 1, err
        assert snapshot(d) == before
        with pytest.raises(BundleError, match="character span outside|belongs to no guide"):
            BundleReader(bad)


def test_install_checks_every_chunk_not_a_sample(versions, tmp_path, capsys, monkeypatch):
    """A bad chunk that inspect's default sample would miss is still refused by install."""
    import app.bundle.inspect

    from .test_security import craft

    monkeypatch.setattr(app.bundle.inspect, "DEFAULT_SAMPLE", 1)
    last = int(BundleReader(versions["v2"])._query("SELECT max(id) FROM chunks")[0][0])
    bad = craft(versions["v2"], tmp_path / "bad.sqlite",
                ("UPDATE chunks SET text = 'planted words' WHERE id = ?", (last,)))
    assert inspect_bundle(bad, sample=1).integrity.ok  # a sample of one does not see it
    assert install(bad) == 1
    assert "differ from their span of the guide text" in capsys.readouterr().err


def test_a_title_only_rebuild_installs_as_a_metadata_update_and_says_what_changed(course, tmp_path, library,
                                                                                     monkeypatch, capsys):
    """Issue 23: a title-only fix could not be installed ("same corpus version; nothing to do")."""
    d = library["machine"]
    v1 = build_at(course, tmp_path / "v1.sqlite", "2026-01-10T09:00:00", monkeypatch, title="Lab")
    v2 = build_at(course, tmp_path / "v2.sqlite", "2026-01-12T09:00:00", monkeypatch, title="ESP32 Lab")
    assert meta_of(v1)["corpus_version"] == meta_of(v2)["corpus_version"]
    assert install(v1) == 0
    capsys.readouterr()
    assert install(v2) == 0
    out = capsys.readouterr().out
    assert "title           'Lab' -> 'ESP32 Lab'" in out and "guides          unchanged\n" in out
    assert "(the same guides and chunks; only the course details changed: title 'Lab' -> 'ESP32 Lab')" in out
    assert meta_of(d / "lab.sqlite")["title"] == "ESP32 Lab" and (d / "lab.previous.sqlite").exists()
    assert install(v2, "--json") == 0  # now it is current
    assert json.loads(capsys.readouterr().out)["result"] == "already-current"
    assert install(v1) == 1  # the older title is a downgrade
    assert "--allow-downgrade" in capsys.readouterr().err
    assert install(v1, "--allow-downgrade", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["change"] == "downgrade" and doc["metadata"] == {"title": {"old": "ESP32 Lab", "new": "Lab"}}


def test_install_counts_one_guide_in_the_singular(tmp_path, library, monkeypatch, capsys):
    course = tmp_path / "one"
    course.mkdir()
    (course / "guide.md").write_text("# Only guide\n\nThe only guide of this course, about GPIO 2.\n")
    bundle = build_at(course, tmp_path / "one.sqlite", "2026-01-10T09:00:00", monkeypatch, course_id="one")
    assert install(bundle) == 0
    out = capsys.readouterr().out
    assert "1 guide, 1 chunk" in out and "1 guides" not in out
