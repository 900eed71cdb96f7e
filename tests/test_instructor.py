"""Instructor workflow (issue 6): incremental build, check, inspect, self-test, build progress."""

from __future__ import annotations

import io
import json
import shutil
import socket
from pathlib import Path

import pytest

from app.build_progress import BuildProgress, progress_line
from app.bundle.builder import build_bundle
from app.bundle.freshness import check_bundle
from app.bundle.inspect import inspect_bundle
from app.bundle.reader import BundleReader
from app.cli import main
from app.errors import BundleError, LanternError
from app.ingest.chunker import ChunkerSettings
from app.selftest import run_self_test

from .fakes import CountingEmbedder, FakeChatModel, FakeEmbedder

FAKE_IDENTITY = (FakeEmbedder.model_id, FakeEmbedder.dim, FakeEmbedder.checksum)


def chunk_texts(embedder: CountingEmbedder, path: Path) -> list[str]:
    """The texts ``embedder`` embedded that are chunks of the bundle at ``path`` (the build also
    embeds the chunks' answer blocks: app/bundle/block_vectors.py)."""
    indexed = {r[0] for r in rows(path, "SELECT indexed_text FROM chunks")}
    return [t for t in embedder.texts if t in indexed]


def rows(path: Path, sql: str) -> list[tuple]:
    reader = BundleReader(path)
    try:
        return reader._query(sql)
    finally:
        reader.close()


def vectors_by_key(path: Path) -> dict[str, bytes]:
    return dict(rows(path, "SELECT c.key, v.embedding FROM chunks c JOIN chunk_vectors v ON v.rowid = c.id"))


def edit_blank_display(course: Path) -> None:
    guide = course / "lessons" / "oled.md"
    guide.write_text(guide.read_text().replace("some use 0x3D.", "some use 0x3D (check the jumper)."),
                     encoding="utf-8")


# --- incremental build ---------------------------------------------------------------

def test_editing_one_guide_re_embeds_only_its_changed_chunks(course, tmp_path):
    out = tmp_path / "course.sqlite"
    first = CountingEmbedder()
    full = build_bundle(course, out, first)
    assert full.embedded == full.chunks and full.reused == 0 and len(chunk_texts(first, out)) == full.chunks

    edit_blank_display(course)
    second = CountingEmbedder()
    report = build_bundle(course, out, second)
    assert report.embedded == 1 and report.reused == report.chunks - 1
    assert len(chunk_texts(second, out)) == 1 and "check the jumper" in chunk_texts(second, out)[0]
    assert all("check the jumper" in t for t in second.texts)  # and only that chunk's changed blocks
    assert report.previous == out

    # What a from-scratch build writes: same corpus version, same vectors for every chunk.
    scratch = build_bundle(course, tmp_path / "scratch.sqlite", FakeEmbedder(), reuse=False)
    assert scratch.corpus_version == report.corpus_version
    assert vectors_by_key(out) == vectors_by_key(tmp_path / "scratch.sqlite")


def test_unchanged_inputs_embed_nothing_and_keep_the_corpus_version(course, tmp_path):
    out = tmp_path / "course.sqlite"
    a = build_bundle(course, out, FakeEmbedder())
    embedder = CountingEmbedder()
    b = build_bundle(course, out, embedder)
    assert embedder.texts == [] and b.embedded == 0
    assert a.corpus_version == b.corpus_version


def test_previous_bundle_can_be_named_and_full_rebuild_skips_reuse(course, tmp_path):
    old = tmp_path / "old.sqlite"
    build_bundle(course, old, FakeEmbedder())
    report = build_bundle(course, tmp_path / "new.sqlite", CountingEmbedder(), previous=old)
    assert report.embedded == 0 and report.previous == old
    embedder = CountingEmbedder()
    report = build_bundle(course, tmp_path / "new.sqlite", embedder, reuse=False)
    assert report.embedded == report.chunks == len(chunk_texts(embedder, tmp_path / "new.sqlite"))
    with pytest.raises(LanternError, match="previous bundle .* does not exist"):
        build_bundle(course, tmp_path / "x.sqlite", FakeEmbedder(), previous=tmp_path / "missing.sqlite")
    assert not (tmp_path / "x.sqlite").exists()


def test_a_bundle_of_another_embedding_model_is_not_reused(course, tmp_path):
    out = tmp_path / "course.sqlite"
    build_bundle(course, out, FakeEmbedder())

    class OtherModel(CountingEmbedder):
        checksum = "another-checksum"

    embedder = OtherModel()
    report = build_bundle(course, out, embedder)
    assert report.embedded == report.chunks == len(chunk_texts(embedder, out))
    assert any("another-checksum"[:12] in note and "embedding every chunk" in note for note in report.notes)


def test_a_junk_previous_bundle_is_ignored_with_a_note(course, tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 50)
    out = tmp_path / "course.sqlite"
    report = build_bundle(course, out, FakeEmbedder(), previous=junk)
    assert report.embedded == report.chunks
    assert any("embedding every chunk" in n for n in report.notes)
    assert BundleReader(out).chunk_count() == report.chunks
    # as the output, junk is not replaced (issue 23: `-o` overwrote any file)
    with pytest.raises(LanternError, match="exists and is not a Lantern bundle"):
        build_bundle(course, junk, FakeEmbedder())
    assert junk.read_bytes() == b"not a database at all" * 50


def test_a_deleted_guide_leaves_no_rows_anywhere(course, tmp_path):
    out = tmp_path / "course.sqlite"
    build_bundle(course, out, FakeEmbedder())
    assert rows(out, "SELECT count(*) FROM assets")[0][0] == 1
    (course / "lessons" / "oled.md").unlink()
    build_bundle(course, out, FakeEmbedder())
    assert [r[0] for r in rows(out, "SELECT path FROM sources")] == ["lessons/blink.md"]
    assert rows(out, "SELECT count(*) FROM chunks WHERE key LIKE 'lessons/oled.md%'")[0][0] == 0
    assert rows(out, "SELECT count(*) FROM headings h JOIN sources s ON s.id = h.source_id "
                     "WHERE s.path != 'lessons/blink.md'")[0][0] == 0
    assert rows(out, "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '\"I2C\"'")[0][0] == 0
    assert rows(out, "SELECT count(*) FROM assets")[0][0] == 0  # the wiring image was only used by oled.md
    n = rows(out, "SELECT count(*) FROM chunks")[0][0]
    assert rows(out, "SELECT count(*) FROM chunk_vectors")[0][0] == n
    assert inspect_bundle(out).integrity.ok


def test_build_cli_reports_embedded_and_reused(course, tmp_path, capsys, monkeypatch):
    import app.embedding

    monkeypatch.setattr(app.embedding, "FastEmbedder", FakeEmbedder)
    out = tmp_path / "course.sqlite"
    assert main(["build", str(course), "-o", str(out), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    edit_blank_display(course)
    assert main(["build", str(course), "-o", str(out), "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert (first["embedded"], first["reused"]) == (first["chunks"], 0)
    assert (second["embedded"], second["reused"]) == (1, second["chunks"] - 1)
    assert main(["build", str(course), "-o", str(out), "--previous", str(tmp_path / "nope.sqlite")]) == 1
    assert "does not exist" in capsys.readouterr().err


# --- check ---------------------------------------------------------------------------

def test_check_is_up_to_date_after_a_build(course, bundle_path):
    result = check_bundle(course, bundle_path, FAKE_IDENTITY)
    assert result.up_to_date and result.lines()[0].endswith("is up to date (corpus version "
                                                            f"{result.bundle_version[:12]}).")


def test_check_lists_added_changed_and_removed_guides_and_images(course, bundle_path):
    edit_blank_display(course)
    (course / "lessons" / "blink.md").unlink()
    (course / "lessons" / "new.md").write_text("# New lesson\n\nServo motors on GPIO 13.\n", encoding="utf-8")
    (course / "images" / "wiring.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>')
    result = check_bundle(course, bundle_path, FAKE_IDENTITY)
    assert not result.up_to_date
    assert result.added == ("lessons/new.md",)
    assert result.changed == ("lessons/oled.md",)
    assert result.removed == ("lessons/blink.md",)
    assert result.images_changed == ("images/wiring.svg",)
    text = "\n".join(result.lines())
    assert "added guide: lessons/new.md" in text and "removed guide: lessons/blink.md" in text


def test_check_reports_chunker_and_embedding_changes(course, bundle_path):
    result = check_bundle(course, bundle_path, FAKE_IDENTITY, settings=ChunkerSettings(max_chars=800))
    assert not result.up_to_date and "chunker settings changed" in result.chunker_change
    assert result.added == result.changed == result.removed == ()
    result = check_bundle(course, bundle_path, ("other/model", 384, "abc"))
    assert not result.up_to_date and "embedding model changed" in result.embedding_change


def test_check_cli_exit_codes_follow_diff(course, bundle_path, tmp_path, capsys, monkeypatch):
    import app.embedding

    monkeypatch.setattr(app.embedding, "manifest_embedding", lambda: FAKE_IDENTITY)
    assert main(["check", str(course), str(bundle_path)]) == 0
    assert "is up to date" in capsys.readouterr().out
    edit_blank_display(course)
    assert main(["check", str(course), str(bundle_path), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["up_to_date"] is False and doc["changed"] == ["lessons/oled.md"]
    assert main(["check", str(tmp_path / "missing"), str(bundle_path)]) == 2
    assert main(["check", str(course), str(tmp_path / "missing.sqlite")]) == 2
    junk = tmp_path / "junk.sqlite"
    junk.write_text("junk")
    assert main(["check", str(course), str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.count("error: ") == 3 and "Traceback" not in err


# --- inspect -------------------------------------------------------------------------

def test_inspect_describes_the_bundle_and_passes_integrity(bundle_path, capsys):
    assert main(["inspect", str(bundle_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"path", "size_bytes", "title", "course", "corpus_version", "schema_version", "built_at",
                        "embedding", "chunker", "libraries", "counts", "integrity", "planted_blocks",
                        "planted_screened"}
    assert doc["title"] == "Test course" and doc["schema_version"] == 2
    assert doc["embedding"] == {"model_id": "fake/bag-of-words", "dim": 64, "checksum": "fake-checksum"}
    counts = doc["counts"]
    assert counts["sources"] == 2 and counts["assets"] == counts["images"] == 1 and counts["originals"] == 0
    assert counts["chunks"] == counts["chunks_fts"] == counts["chunk_vectors"] > 0
    assert doc["integrity"] == {"ok": True, "problems": [], "sampled_chunks": counts["chunks"], "sampled_assets": 1,
                                "content_digest": "verified"}
    assert doc["size_bytes"] == bundle_path.stat().st_size
    assert main(["inspect", str(bundle_path)]) == 0
    assert f"integrity       ok (all {counts['chunks']} chunks and the one image match their digests" \
        in capsys.readouterr().out
    from app.bundle.inspect import inspect_bundle

    sampled = inspect_bundle(bundle_path, sample=2).lines()  # a large course is checked on a sample: say so
    assert any(f"ok (2 of {counts['chunks']} chunks (a sample) and the one image match" in line for line in sampled)


def _tampered(bundle_path: Path, tmp_path: Path, sql: str) -> Path:
    copy = tmp_path / "tampered.sqlite"
    shutil.copy(bundle_path, copy)
    from app.bundle.schema import connect

    conn = connect(str(copy), read_only=False)
    conn.execute(sql)
    conn.close()
    return copy


@pytest.mark.parametrize("sql,problem", [
    ("DELETE FROM chunk_vectors WHERE rowid = 1", "chunk_vectors has"),
    ("DELETE FROM chunks_fts WHERE rowid = 2", "chunks_fts has"),
    ("UPDATE chunks SET indexed_text = indexed_text || ' tampered' WHERE id = 1", "sha256 differs"),
    ("UPDATE chunks SET text = 'other words' WHERE id = 1", "differ from their span"),
    ("UPDATE assets SET data = X'00'", "images have bytes"),
    ("UPDATE vector_blocks SET data = zeroblob(length(data))", "differs from chunk_vectors"),
    ("UPDATE vector_blocks SET data = substr(data, 1, 16)", "where"),
    ("UPDATE chunk_vectors_vector_chunks00 SET vectors = zeroblob(16)", "could not be read to the end"),
])
def test_inspect_finds_tampering(bundle_path, tmp_path, capsys, sql, problem):
    copy = _tampered(bundle_path, tmp_path, sql)
    result = inspect_bundle(copy)
    assert not result.integrity.ok and any(problem in p for p in result.integrity.problems)
    assert main(["inspect", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "failed its integrity check" in err and "Traceback" not in err


def test_inspect_of_a_non_bundle_is_one_sentence(tmp_path, capsys):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("junk")
    assert main(["inspect", str(junk)]) == 1
    assert main(["inspect", str(tmp_path / "missing.sqlite")]) == 1
    err = capsys.readouterr().err
    assert "not a readable course bundle" in err and "does not exist" in err and "Traceback" not in err
    with pytest.raises(BundleError):
        inspect_bundle(junk)


# --- self-test and networking --------------------------------------------------------

@pytest.fixture()
def no_network(monkeypatch):
    """Block every way to open a connection; the list records attempts."""
    attempts: list = []

    def refuse(*args, **kwargs):
        attempts.append(args[1:] if args else kwargs)
        raise OSError("network access is blocked in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_self_test_answers_with_a_citation_without_network(bundle_path, no_network):
    report = run_self_test(bundle_path, embedder=FakeEmbedder(), llm=FakeChatModel("The guides say so [1]."),
                           cpu_features=("SSE3", "AVX"))
    assert report.citations and report.state in ("answered", "extractive")
    line = report.line()
    assert line.startswith("self-test ok: bundle course.sqlite") and "SSE3 AVX" in line and "\n" not in line
    assert no_network == []


def test_self_test_fails_clearly_when_the_embedding_model_does_not_match(bundle_path):
    class Other(FakeEmbedder):
        checksum = "other"

    with pytest.raises(LanternError, match="Self-test failed"):
        run_self_test(bundle_path, embedder=Other(), llm=FakeChatModel(), cpu_features=())


def test_self_test_cli_without_a_bundle_exits_1(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANTERN_BUNDLE", str(tmp_path / "missing.sqlite"))
    assert main(["--self-test"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: The course bundle") and "Traceback" not in err


@pytest.mark.real
def test_real_self_test_makes_no_connection(no_network):
    """The real models and the demo bundle, networking blocked (needs `make bundle`)."""
    from app.config import resource_root

    bundle = resource_root() / "corpus_bundle" / "esp32-starter.sqlite"
    if not bundle.is_file():
        pytest.skip("the demo bundle is not built (make bundle)")
    report = run_self_test(bundle)
    assert report.citations and no_network == []


# --- progress ------------------------------------------------------------------------

def test_progress_lines_show_counts_rate_and_time_left():
    line = progress_line("embed", "chunks", 40, 100, 2.0)
    assert line == "embed: 40/100 chunks, 20.0 chunks/s, about 3 s left"
    # Time left follows the characters still to embed (long chunks come last), not the chunk count.
    line = progress_line("embed", "chunks", 40, 100, 2.0, work_done=1000, work_total=11000)
    assert line == "embed: 40/100 chunks, 20.0 chunks/s, about 20 s left"
    assert progress_line("embed", "chunks", 100, 100, 4.0) == "embed: 100/100 chunks, 25.0 chunks/s, 4 s"
    out = io.StringIO()
    progress = BuildProgress(out, interval=3600, tty=False)
    progress("chunk", 1, 2)
    progress("chunk", 2, 2)
    progress("reuse", 5, 8)
    progress("embed", 0, 3)
    progress("embed", 1, 3)  # within the interval: not printed
    progress("embed", 3, 3)
    lines = out.getvalue().splitlines()
    assert lines[0] == "chunk: 1/2 files" and lines[1].startswith("chunk: 2/2 files, ")
    assert lines[2] == "reuse: 5 of 8 chunks keep their embeddings from the previous bundle"
    assert lines[3] == "embed: 0/3 chunks" and lines[4].startswith("embed: 3/3 chunks, ")
    assert len(lines) == 5


# --- where a frozen app finds its bundle and models ------------------------------------

def test_frozen_app_prefers_a_bundle_and_models_beside_the_executable(tmp_path, monkeypatch):
    import sys

    from app import config
    from app.bundle import library

    app_folder = tmp_path / "lantern"
    internal = app_folder / "_internal"
    (internal / "corpus_bundle").mkdir(parents=True)
    (internal / "models").mkdir()
    (internal / "corpus_bundle" / "shipped.sqlite").write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(internal), raising=False)
    monkeypatch.setattr(sys, "executable", str(app_folder / "lantern"))
    monkeypatch.delenv("LANTERN_BUNDLE", raising=False)
    monkeypatch.delenv("LANTERN_MODELS_DIR", raising=False)
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(tmp_path / "config"))
    assert library.default_bundle() == internal / "corpus_bundle" / "shipped.sqlite"
    assert config.models_dir() == internal / "models"
    (app_folder / "corpus_bundle").mkdir()
    (app_folder / "corpus_bundle" / "other-course.sqlite").write_bytes(b"")
    (app_folder / "models").mkdir()
    (app_folder / "models" / "manifest.json").write_text("{}")
    assert library.default_bundle() == app_folder.resolve() / "corpus_bundle" / "other-course.sqlite"
    assert config.models_dir() == app_folder.resolve() / "models"
    monkeypatch.setenv("LANTERN_BUNDLE", str(tmp_path / "env.sqlite"))
    assert library.default_bundle() == tmp_path / "env.sqlite"


def test_vectors_read_from_blocks_equal_the_vec0_rows_and_old_bundles_still_open(bundle_path, tmp_path):
    import numpy as np

    from app.bundle.reader import BundleReader

    blocks = BundleReader(bundle_path).vector_matrix
    old_bundle = _tampered(bundle_path, tmp_path, "DROP TABLE vector_blocks; DELETE FROM meta WHERE key = 'content_digest'")
    old = BundleReader(old_bundle).vector_matrix  # a bundle from before vector_blocks and the digest
    assert blocks.shape == old.shape and blocks.shape[0] > 0 and np.array_equal(blocks, old)
    assert np.allclose(np.linalg.norm(blocks, axis=1), 1.0, atol=1e-5)


def test_a_vector_block_of_the_wrong_size_is_one_sentence_not_a_crash(bundle_path, tmp_path):
    from app.bundle.reader import BundleReader

    tampered = _tampered(bundle_path, tmp_path, "UPDATE vector_blocks SET data = substr(data, 1, 16)")
    with pytest.raises(BundleError, match="is damaged"):  # caught at open...
        BundleReader(tampered)
    reader = BundleReader(tampered, verify=False)  # ...and still one sentence when not checked there
    with pytest.raises(BundleError, match=r"vector block of 16 bytes where [\d,]+ were expected; rebuild it"):
        reader.vector_matrix


def test_an_app_that_ships_no_bundle_opens_the_first_machine_wide_course(tmp_path, monkeypatch):
    """The Debian package moves the installer's course to the machine-wide folder (scripts/package_deb.py)."""
    import sys

    from app.bundle import library

    app_folder = tmp_path / "opt" / "lantern"
    internal = app_folder / "_internal"
    (internal / "corpus_bundle").mkdir(parents=True)
    machine = tmp_path / "share" / "courses"
    machine.mkdir(parents=True)
    for name in (".b.sqlite.tmp-1.sqlite", "a.previous.sqlite", "b.sqlite", "c.sqlite"):
        (machine / name).write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(internal), raising=False)
    monkeypatch.setattr(sys, "executable", str(app_folder / "lantern"))
    monkeypatch.delenv("LANTERN_BUNDLE", raising=False)
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("LANTERN_COURSES_DIR", str(machine))
    assert library.default_bundle() == machine / "b.sqlite"
    (internal / "corpus_bundle" / "shipped.sqlite").write_bytes(b"")  # a bundle in the app still comes first
    assert library.default_bundle() == internal / "corpus_bundle" / "shipped.sqlite"
    (internal / "corpus_bundle" / "shipped.sqlite").unlink()
    monkeypatch.setenv("LANTERN_COURSES_DIR", str(tmp_path / "nowhere"))
    assert library.default_bundle() is None
