import os

import pytest

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.errors import BundleError, CourseFolderError, LanternError

from .fakes import FakeEmbedder


def test_bundle_holds_sources_chunks_indexes_and_assets(bundle):
    paths = [s.path for s in bundle.sources()]
    assert paths == ["lessons/blink.md", "lessons/oled.md"]  # empty, hidden and LICENSE files skipped
    n = bundle.chunk_count()
    assert n > 0
    counts = bundle._query("SELECT (SELECT count(*) FROM chunks_fts), (SELECT count(*) FROM chunk_vectors)")[0]
    assert counts == (n, n)
    mime, data = bundle.asset("images/wiring.svg")
    assert mime == "image/svg+xml" and data.startswith(b"<svg")
    assert [h.anchor for h in bundle.headings("lessons/oled.md")] == [
        "lesson-4-oled-display", "wiring", "troubleshooting", "blank-display", "blank-display-1"]
    assert bundle.meta["embedding_model_id"] == "fake/bag-of-words"


def test_corpus_version_is_reproducible_and_tracks_renames(course, tmp_path):
    a = build_bundle(course, tmp_path / "a.sqlite", FakeEmbedder())
    b = build_bundle(course, tmp_path / "b.sqlite", FakeEmbedder())
    assert a.corpus_version == b.corpus_version
    guide = course / "lessons" / "oled.md"
    guide.write_text(guide.read_text().replace("## Wiring", "## Connections"), encoding="utf-8")
    c = build_bundle(course, tmp_path / "c.sqlite", FakeEmbedder())
    assert c.corpus_version != a.corpus_version


def test_failed_build_leaves_the_previous_bundle_untouched(course, tmp_path):
    out = tmp_path / "bundles" / "course.sqlite"
    build_bundle(course, out, FakeEmbedder())
    before = out.read_bytes()

    class Broken(FakeEmbedder):
        def embed(self, texts):
            raise RuntimeError("embedding crashed")

    (course / "lessons" / "new.md").write_text("# New\n\nMore text.", encoding="utf-8")
    with pytest.raises(RuntimeError):
        build_bundle(course, out, Broken())
    assert out.read_bytes() == before
    assert [p.name for p in out.parent.iterdir()] == ["course.sqlite"]  # no temporary file left behind


def test_an_output_folder_that_cannot_take_a_file_is_refused_before_any_embedding(course, tmp_path, monkeypatch):
    # A read-only folder (or /proc): the build used to read and embed the whole course and then
    # stop with apsw's "unable to open database file" traceback.
    from pathlib import Path

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "touch", refuse)
    embedder = FakeEmbedder()
    with pytest.raises(LanternError, match=r"cannot be written to .*Permission denied.*choose a folder you can write to"):
        build_bundle(course, tmp_path / "locked" / "course.sqlite", embedder)
    assert embedder.calls == 0 and not (tmp_path / "locked" / "course.sqlite").exists()


def test_missing_and_empty_course_folders_are_clear_errors(tmp_path):
    with pytest.raises(CourseFolderError, match="does not exist"):
        build_bundle(tmp_path / "nope", tmp_path / "x.sqlite", FakeEmbedder())
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.md").write_text("   \n", encoding="utf-8")
    with pytest.raises(CourseFolderError, match="no guides"):
        build_bundle(empty, tmp_path / "x.sqlite", FakeEmbedder())
    assert not (tmp_path / "x.sqlite").exists()


def test_invalid_utf8_is_replaced_and_reported(course, tmp_path):
    # UTF-8 with one damaged byte: not another encoding, so the good characters stay as they are
    (course / "bad.md").write_bytes("# Café\n\nTempérature readings ".encode() + b"\xff here.\n")
    report = build_bundle(course, tmp_path / "x.sqlite", FakeEmbedder())
    assert any(w.startswith("bad.md: not valid UTF-8 (first bad byte at offset 31)") for w in report.warnings)
    assert any("empty.md" in n for n in report.notes)
    reader = BundleReader(tmp_path / "x.sqlite")
    assert reader.source_text("bad.md") == "# Café\n\nTempérature readings \ufffd here.\n"


@pytest.mark.parametrize("text,encoding,label", [
    ("# Lesson 2 – Sensors\n\nThe sensor’s range is –40 °C to 85 °C. Don’t use “GPIO 0”; it costs 5 €.\n",
     "cp1252", "Windows-1252"),
    ("# Température du capteur\n\nLe capteur mesure entre –40 °C et 85 °C. Coût : 5 €. Câblage : “GPIO 4”.\n",
     "cp1252", "Windows-1252"),
    ("# Łączenie czujnika\n\nPodłącz czujnik do złącza. Żółta dioda świeci się, gdy źródło zasilania działa.\n",
     "cp1250", "Windows-1250"),
    ("# Урок 3\n\nПодключите датчик к выводу GPIO 4 и проверьте температуру.\n", "cp1251", "Windows-1251"),
])
def test_a_guide_in_a_legacy_encoding_is_decoded_and_the_encoding_is_named(course, tmp_path, text, encoding, label):
    (course / "legacy.md").write_bytes(text.encode(encoding))
    report = build_bundle(course, tmp_path / "x.sqlite", FakeEmbedder())
    assert [w for w in report.warnings if w.startswith("legacy.md")] == [
        f"legacy.md: not UTF-8; read as {label} (detected); check it in the viewer, or save it as UTF-8"]
    assert BundleReader(tmp_path / "x.sqlite").source_text("legacy.md") == text  # no replacement characters


def test_corrupted_or_foreign_bundles_are_refused(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(BundleError, match=r"not a readable course bundle \(it is not a database file\); rebuild") as err:
        BundleReader(junk)
    assert "Error" not in str(err.value)  # plain words for a student, not the exception class
    with pytest.raises(BundleError, match="does not exist"):
        BundleReader(tmp_path / "missing.sqlite")
    import apsw

    other = tmp_path / "other.sqlite"
    conn = apsw.Connection(str(other))
    conn.execute("CREATE TABLE t(x)")
    conn.close()
    with pytest.raises(BundleError, match="not a Lantern course bundle"):
        BundleReader(other)


def test_bundle_is_opened_read_only(bundle_path):
    before = os.stat(bundle_path).st_mtime_ns, bundle_path.read_bytes()
    reader = BundleReader(bundle_path)
    with pytest.raises(Exception):
        reader._conn.execute("DELETE FROM chunks")
    reader.close()
    assert (os.stat(bundle_path).st_mtime_ns, bundle_path.read_bytes()) == before


def test_a_bundle_indexed_with_another_tokenizer_is_refused(bundle_path):
    import json

    import apsw

    conn = apsw.Connection(str(bundle_path))
    lexical = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'lexical'").fetchone()[0])
    lexical["tokenizer_version"] = 999
    conn.execute("UPDATE meta SET value = ? WHERE key = 'lexical'", (json.dumps(lexical),))
    conn.close()
    with pytest.raises(BundleError, match="tokenizer version 999"):
        BundleReader(bundle_path)


def test_large_bundles_search_sign_codes_then_rescore_exactly(bundle_path, monkeypatch):
    """Above APPROX_KNN_MIN chunks, KNN scans 1-bit codes and rescores the likeliest exactly:
    the nearest neighbours of a perturbed stored vector are found, with exact distances."""
    import numpy as np

    from app.bundle import reader as reader_module

    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((6000, 72)).astype(np.float32)  # 72 dims: codes need padding
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    bundle = reader_module.BundleReader(bundle_path)
    bundle.__dict__["vector_matrix"] = matrix
    query = matrix[4321] + 0.05 * rng.standard_normal(72).astype(np.float32)
    query /= np.linalg.norm(query)
    exact = bundle.knn(query, 10)  # 6,000 < APPROX_KNN_MIN: exact
    monkeypatch.setattr(reader_module, "APPROX_KNN_MIN", 1000)
    monkeypatch.setattr(reader_module, "BINARY_RESCORE", 600)
    approx = bundle.knn(query, 10)
    assert "sign_codes" in bundle.__dict__ and bundle.sign_codes.shape == (2, 6000)  # the binary path ran
    assert approx[0][0] == exact[0][0] == 4322  # ids are row + 1
    assert len({i for i, _ in approx} & {i for i, _ in exact}) >= 8
    assert all(abs(d - (1 - float(matrix[i - 1] @ query))) < 1e-5 for i, d in approx)
    assert [d for _, d in approx] == sorted(d for _, d in approx)


def _dead_pid() -> int:
    """The id of a process that has just exited."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.skipif(os.name == "nt",
                    reason="POSIX process ids and SIGKILL; on Windows a live build's file cannot be deleted")
def test_a_stale_temporary_file_of_a_dead_build_is_removed_and_the_build_works(course, tmp_path):
    out = tmp_path / "bundles" / "course.sqlite"
    out.parent.mkdir()
    stray = out.parent / f".course.sqlite.tmp-{_dead_pid()}"
    stray.write_bytes(b"\0" * 4096)
    (out.parent / f"{stray.name}-journal").write_bytes(b"\0")
    running = out.parent / f".course.sqlite.tmp-{os.getppid()}"  # a live process: another build, maybe
    running.write_bytes(b"\0")
    other = out.parent / ".other.sqlite.tmp-1"  # another bundle's: not ours to judge
    other.write_bytes(b"\0")
    report = build_bundle(course, out, FakeEmbedder())
    assert sorted(p.name for p in out.parent.iterdir()) == sorted(["course.sqlite", running.name, other.name])
    assert any(stray.name in n and "interrupted build" in n for n in report.notes)
    BundleReader(out).close()
    old = os.stat(running).st_mtime - 2 * 3600  # untouched for two hours: stale whoever has the id now
    os.utime(running, (old, old))
    build_bundle(course, out, FakeEmbedder())
    assert sorted(p.name for p in out.parent.iterdir()) == sorted(["course.sqlite", other.name])


@pytest.mark.skipif(os.name == "nt",
                    reason="POSIX process ids and SIGKILL; on Windows a live build's file cannot be deleted")
def test_a_build_killed_midway_leaves_the_previous_bundle_and_the_next_build_cleans_up(course, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from .conftest import ROOT

    out = tmp_path / "bundles" / "course.sqlite"
    build_bundle(course, out, FakeEmbedder(), reuse=False)
    before = out.read_bytes()
    (course / "lessons" / "new.md").write_text("# New\n\nMore text.", encoding="utf-8")
    started = tmp_path / "embedding-started"
    script = (
        "import time, pathlib\n"
        "from app.bundle.builder import build_bundle\n"
        "from tests.fakes import FakeEmbedder\n"
        "class Slow(FakeEmbedder):\n"
        "    def embed(self, texts):\n"
        f"        pathlib.Path({str(started)!r}).touch()\n"
        "        time.sleep(60)\n"
        f"build_bundle(pathlib.Path({str(course)!r}), pathlib.Path({str(out)!r}), Slow(), reuse=False)\n")
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the build in the child process never reached the embedding stage"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    left = out.parent / f".course.sqlite.tmp-{child.pid}"
    assert left.exists() and out.read_bytes() == before  # killed: nothing cleaned up, previous bundle intact
    report = build_bundle(course, out, FakeEmbedder())
    assert [p.name for p in out.parent.iterdir()] == ["course.sqlite"]
    assert any(left.name in n for n in report.notes)
    assert "lessons/new.md" in [s.path for s in BundleReader(out).sources()]


@pytest.mark.skipif(os.name == "nt" or os.uname().sysname == "Darwin",
                    reason="only POSIX file systems other than macOS's accept file names that are not UTF-8")
def test_file_and_folder_names_that_are_not_utf8_are_skipped_and_reported(course, tmp_path):
    root = os.fsencode(course)
    with open(os.path.join(root, b"caf\xe9.md"), "wb") as handle:  # Latin-1 name, as a Windows copy leaves it
        handle.write(b"# Caf\xc3\xa9\n\nOpening hours.\n")
    os.mkdir(os.path.join(root, b"le\xe7ons"))
    with open(os.path.join(root, b"le\xe7ons", b"one.md"), "wb") as handle:
        handle.write(b"# One\n\nText.\n")
    report = build_bundle(course, tmp_path / "x.sqlite", FakeEmbedder())
    assert report.sources == 2  # the two valid guides of the course; the build went on
    assert any(w.startswith("caf\ufffd.md: the file name is not valid UTF-8") for w in report.warnings)
    assert any(w.startswith("le\ufffdons: the folder name is not valid UTF-8") for w in report.warnings)
    assert not any("one.md" in w for w in report.warnings)  # one warning for the folder, not one per file
    assert [s.path for s in BundleReader(tmp_path / "x.sqlite").sources()] == ["lessons/blink.md", "lessons/oled.md"]


def test_a_damaged_previous_bundle_lends_no_vectors(course, tmp_path):
    from app.bundle.builder import previous_vectors
    from app.bundle.schema import connect

    out = tmp_path / "course.sqlite"
    build_bundle(course, out, FakeEmbedder())
    vectors, note = previous_vectors(out, FakeEmbedder())
    assert vectors and note == ""
    conn = connect(str(out), read_only=False)
    conn.execute("UPDATE chunk_vectors SET embedding = ? WHERE rowid = 1", (bytes(4 * FakeEmbedder.dim),))
    conn.close()
    vectors, note = previous_vectors(out, FakeEmbedder())
    assert vectors == {} and note == "course.sqlite is damaged (its content digest differs); embedding every chunk"
    report = build_bundle(course, out, FakeEmbedder())  # the rebuild repairs it
    assert report.reused == 0 and note in report.notes
    BundleReader(out).close()


def _set_schema(path, value: str) -> None:
    """Record another schema version (and re-record the content digest, which covers meta)."""
    from app.bundle.schema import CONTENT_DIGEST_KEY, connect, content_digest

    conn = connect(str(path), read_only=False)
    try:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (content_digest(conn), CONTENT_DIGEST_KEY))
    finally:
        conn.close()


def test_the_reader_opens_older_readable_schemas_and_names_older_and_newer_ones(bundle_path):
    from app.bundle.schema import OLDEST_READABLE_SCHEMA, SCHEMA_VERSION

    assert BundleReader(bundle_path).meta["schema_version"] == str(SCHEMA_VERSION)
    _set_schema(bundle_path, str(OLDEST_READABLE_SCHEMA))
    reader = BundleReader(bundle_path)  # a bundle of the oldest readable format still opens
    assert reader.search_guides("oled") and reader.vector_matrix.shape[0] > 0
    reader.close()
    _set_schema(bundle_path, str(SCHEMA_VERSION + 1))
    with pytest.raises(BundleError, match=r"built by a newer Lantern .*update Lantern"):
        BundleReader(bundle_path)
    _set_schema(bundle_path, str(OLDEST_READABLE_SCHEMA - 1))
    with pytest.raises(BundleError, match=r"older than this app reads .*rebuild it"):
        BundleReader(bundle_path)


def test_reopen_gives_another_thread_its_own_reader_of_the_same_bundle(bundle):
    other = bundle.reopen()
    try:
        assert other is not bundle and other._conn is not bundle._conn  # its own SQLite connection
        assert other.path == bundle.path and other.meta == bundle.meta
        assert other.corpus_version == bundle.corpus_version
        assert other.search_guides("oled") == bundle.search_guides("oled")
        bundle.close()
        assert other.search_guides("oled")  # closing one reader leaves the other open
    finally:
        other.close()


def test_reopen_refuses_a_bundle_replaced_since_it_was_opened(course, bundle_path):
    reader = BundleReader(bundle_path)
    version = reader.corpus_version
    (course / "lessons" / "wifi.md").write_text("# Wi-Fi\n\nJoin the lab network.\n", encoding="utf-8")
    build_bundle(course, bundle_path, FakeEmbedder(), title="Test course")  # renamed over the open file
    with pytest.raises(BundleError, match=r"was replaced while it was being opened.*open the course again"):
        reader.reopen()
    assert reader.corpus_version == version and reader.search_guides("oled")  # still the file it opened
    reader.close()


# --- build -o, titles, warnings (issue 23, items 3 and 5) --------------------------------------

def _files(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_refuses_an_output_inside_the_course_or_that_is_not_a_bundle_and_touches_nothing(
        course, tmp_path, capsys, monkeypatch):
    """Issue 23, item 3: `-o` at the course's own README.md or at notes.txt replaced it with the bundle."""
    import app.embedding
    from app.cli import main

    def no_model(**_options):
        raise AssertionError("the model must not load for a refused -o")

    monkeypatch.setattr(app.embedding, "FastEmbedder", no_model)
    (course / "README.md").write_text("# The course\n\nRead me first.\n", encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    link = tmp_path / "readme-link.sqlite"
    link.symlink_to(course / "README.md")
    before, others = _files(course), sorted(p.name for p in tmp_path.iterdir())
    for output, says in ((course / "README.md", "lies inside the course folder"),
                         (course / "lessons" / "new.sqlite", "lies inside the course folder"),
                         (link, "lies inside the course folder"),
                         (notes, "exists and is not a Lantern bundle"),
                         (tmp_path, "is a folder")):
        for extra in ([], ["--force"]):
            assert main(["build", str(course), "-o", str(output), *extra]) == 1, output
            err = capsys.readouterr().err
            assert says in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert _files(course) == before and notes.read_text() == "my notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == others  # no temporary or probe file left
    with pytest.raises(LanternError, match="exists and is not a Lantern bundle"):
        build_bundle(course, notes, FakeEmbedder())


def test_build_refuses_an_output_ending_in_a_separator_instead_of_writing_a_file_named_like_the_folder(
        course, tmp_path, capsys, monkeypatch):
    """Trial s8: `-o newdir/` (no such folder yet) wrote a bundle FILE named newdir."""
    import app.embedding
    from app.cli import main

    monkeypatch.setattr(app.embedding, "FastEmbedder", FakeEmbedder)
    folder = tmp_path / "newdir"
    assert main(["build", str(course), "-o", f"{folder}/"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: The output {folder}/ ends with '/', so it names a folder, not a bundle file; "
                          f"nothing was written. Give -o a file name such as {folder}/") and err.count("\n") == 1, err
    assert not folder.exists()
    with pytest.raises(LanternError, match="names a folder, not a bundle file"):
        build_bundle(course, f"{folder}/", FakeEmbedder())
    assert not folder.exists()


def test_build_refuses_another_courses_bundle_unless_forced_and_rebuilds_its_own_in_place(
        course, tmp_path, capsys, monkeypatch):
    import app.embedding
    from app.cli import main

    monkeypatch.setattr(app.embedding, "FastEmbedder", FakeEmbedder)
    other = tmp_path / "other.sqlite"
    build_bundle(course, other, FakeEmbedder(), course_id="other-course")
    before = other.read_bytes()
    assert main(["build", str(course), "-o", str(other)]) == 1
    err = capsys.readouterr().err
    assert "is the bundle of another course (other-course), not of course" in err and "--force" in err
    assert other.read_bytes() == before
    assert main(["build", str(course), "-o", str(other), "--force"]) == 0
    assert BundleReader(other).meta["course_id"] == "course"
    capsys.readouterr()
    # the same course's bundle is rebuilt in place, reusing its vectors; an empty file is no loss either
    report = build_bundle(course, other, FakeEmbedder())
    assert report.reused == report.chunks > 0
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    assert build_bundle(course, empty, FakeEmbedder()).chunks == report.chunks


def test_a_rebuild_without_title_keeps_the_bundles_title_and_says_so(course, tmp_path):
    """Issue 23: rebuilding without --title silently reset the title to the folder's name."""
    out = tmp_path / "lab.sqlite"
    build_bundle(course, out, FakeEmbedder(), title="ESP32 Starter Lab")
    report = build_bundle(course, out, FakeEmbedder())
    assert BundleReader(out).title == "ESP32 Starter Lab"
    assert "kept the title 'ESP32 Starter Lab' of the bundle being rebuilt (--title changes it)" in report.notes
    report = build_bundle(course, out, FakeEmbedder(), title="ESP32 Lab")
    assert BundleReader(out).title == "ESP32 Lab" and not any("kept the title" in n for n in report.notes)
    fresh = build_bundle(course, tmp_path / "fresh.sqlite", FakeEmbedder())
    assert BundleReader(fresh.bundle).title == "course"  # a new bundle: the folder's name


def test_build_skips_a_file_name_the_app_would_refuse_and_a_guide_over_the_text_limit(course, tmp_path, monkeypatch):
    """A build never writes a bundle the app refuses (app/bundle/checks.py): a backslash in a file
    name, or a guide text over MAX_GUIDE_TEXT_BYTES, is skipped with a warning naming the fix."""
    import app.bundle.plan

    (course / "lessons" / "odd\\name.md").write_text("# Odd\n\nA guide with a backslash in its name.\n")
    (course / "lessons" / "long.md").write_text("# Long\n\n" + "word " * 400)
    monkeypatch.setattr(app.bundle.plan, "MAX_GUIDE_TEXT_BYTES", 1000)
    report = build_bundle(course, tmp_path / "b.sqlite", FakeEmbedder())
    assert "'lessons/odd\\\\name.md' contains a backslash; skipped (rename the file or its folder to include it)" \
        in report.warnings
    assert any(w.startswith("lessons/long.md: its text is 2,008 bytes, more than the 1,000 a guide may hold; skipped "
                            "(split it") for w in report.warnings)
    assert [s.path for s in BundleReader(report.bundle).sources()] == ["lessons/blink.md", "lessons/oled.md"]


def test_the_size_and_scanned_pdf_warnings_name_the_fix(course, monkeypatch):
    import app.ingest.reader
    from app.ingest.reader import read_course

    from .fakes import tiny_pdf

    (course / "big.md").write_text("# Big\n\n" + "x" * 2000)
    (course / "scan.pdf").write_bytes(tiny_pdf([]))
    monkeypatch.setattr(app.ingest.reader, "MAX_FILE_BYTES", 1000)
    warnings = read_course(course).warnings
    assert any(w.startswith("big.md: 2,007 bytes is larger than the 1,000-byte limit for one file; skipped (split it "
                            "into smaller files") for w in warnings), warnings
    assert any(w.startswith("scan.pdf: the PDF has no text layer") and "ocrmypdf" in w for w in warnings), warnings


def test_inspect_names_the_fix_once(bundle_path, tmp_path, capsys):
    """Issue 23: a vector block of the wrong size made inspect say "rebuild it with `lantern build`" twice."""
    from app.cli import main

    from .test_security import craft

    bad = craft(bundle_path, tmp_path / "bad.sqlite", ("UPDATE vector_blocks SET data = substr(data, 1, 8)", ()))
    assert main(["inspect", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "vector block of 8 bytes" in err and err.count("rebuild it") == 1, err
