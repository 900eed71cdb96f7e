"""The question log keeps each question's course language (issue 27), so `lantern report` groups a
course's questions in its language on a PC where the course is not installed; a log written before
the field existed still loads, merges and takes new rows. Fakes only; runs in about a second."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import apsw
import pytest

from app.cli import main
from app.records import Answer
from app.report.log import LOG_FORMAT, LogError, QuestionLog, new_question, read_export
from app.report.recorder import ReplyRecorder, log_path
from app.report.topics import group_topics

#: Two forms of one French word ("installer", "l'installation") and a third, unrelated question: one
#: topic of two and one of one in French; three topics when read as English (tests/test_report.py).
QUESTIONS = ["Comment installer le paquet sur la carte ?", "L'installation des paquets ne marche pas",
             "Où brancher le capteur de température ?"]
META = {"course_id": "atelier", "course_version": "2026-12-01-abcd1234", "corpus_version": "abcd" * 8,
        "language": "fr"}
#: The questions table as Lantern first wrote it (schema 1, before the ``language`` column).
OLD_SCHEMA = """
CREATE TABLE log_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE questions (
    id TEXT PRIMARY KEY, day TEXT NOT NULL, course_id TEXT NOT NULL, course_version TEXT NOT NULL,
    corpus_version TEXT NOT NULL, question TEXT NOT NULL, state TEXT NOT NULL,
    missing_terms TEXT NOT NULL, cited TEXT NOT NULL, helped INTEGER);
"""


@pytest.fixture()
def nothing_installed(monkeypatch) -> None:
    """No course bundle on this PC: the report knows a course's language only from the log."""
    monkeypatch.setattr("app.bundle.library.list_courses", lambda verify=True: [])


def _record(path: Path, meta: dict) -> None:
    recorder = ReplyRecorder(path)
    try:
        for question in QUESTIONS:
            assert recorder.record(meta, Path("atelier.sqlite"), question, Answer("not-covered", "", (), (), "v1", "m"))
    finally:
        recorder.close()


def _old_log(path: Path, question: str = "Où brancher le capteur ?") -> str:
    """A log file as an earlier Lantern wrote it (no ``language`` column), holding one row; its id."""
    row = new_question(question, "not-covered", course_id="atelier", course_version="1", corpus_version="c")
    with apsw.Connection(str(path)) as conn:
        conn.execute(OLD_SCHEMA)
        conn.execute("INSERT INTO log_meta VALUES ('format', ?), ('schema', '1')", (LOG_FORMAT,))
        conn.execute("INSERT INTO questions VALUES (?, ?, ?, ?, ?, ?, ?, '[]', '[]', NULL)",
                     (row.id, row.day, row.course_id, row.course_version, row.corpus_version, row.question, row.state))
    return row.id


def test_a_french_course_not_installed_here_is_grouped_in_french(report_dir, tmp_path, capsys, nothing_installed):
    lab_pc = tmp_path / "lab-pc" / "questions.sqlite"
    _record(lab_pc, META)  # asked on a lab PC where the French course is installed
    usb = tmp_path / "pc-07.sqlite"
    with QuestionLog(lab_pc) as log:
        rows = log.questions()
        assert [r.language for r in rows] == ["fr"] * 3
        log.export(usb)
    assert main(["report", "--merge", str(usb)]) == 0  # the instructor's PC, without the course
    assert main(["report", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [t["count"] for t in doc["topics"]] == [2, 1]
    assert set(doc["topics"][0]["examples"]) == set(QUESTIONS[:2])
    assert {r["language"] for r in doc["rows"]} == {"fr"}
    # The same rows without the logged language are read as English: three topics.
    assert len(group_topics([new_question(q, "not-covered", course_id="atelier", course_version="1",
                                          corpus_version="c") for q in QUESTIONS])) == 3


def test_the_installed_bundle_s_language_comes_before_the_logged_one(monkeypatch, tmp_path):
    rows = [new_question(q, "not-covered", course_id="atelier", course_version="1", corpus_version="c",
                         language="en") for q in QUESTIONS]
    assert len(group_topics(rows)) == 3  # logged as English
    assert sorted(t.count for t in group_topics(rows, {"atelier": "fr"})) == [1, 2]  # installed here as French
    from app.report.cli import course_languages

    entries = [SimpleNamespace(course_id="atelier", state="ok", language="fr", path=tmp_path / "atelier.sqlite")]
    monkeypatch.setattr("app.bundle.library.list_courses", lambda verify=True: entries)
    assert course_languages(rows) == {"atelier": "fr"}


def test_a_bundle_without_a_language_logs_none(report_dir, nothing_installed, capsys):
    _record(log_path(), {key: value for key, value in META.items() if key != "language"})
    with QuestionLog(log_path()) as log:
        assert [r.language for r in log.questions()] == [""] * 3
    assert main(["report", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["topics"]) == 3 and {r["language"] for r in doc["rows"]} == {None}  # read as English
    assert new_question("q", "answered", course_id="c", course_version="1", corpus_version="c",
                        language="fr'); DROP TABLE questions; --").language == ""  # not a tag: not kept


def test_an_old_log_without_the_language_field_still_loads(report_dir, tmp_path, nothing_installed, capsys):
    old = tmp_path / "old.sqlite"
    old_id = _old_log(old)
    assert [(r.id, r.language) for r in read_export(old)] == [(old_id, "")]  # an old export, read as it is
    assert main(["report", "--merge", str(old)]) == 0
    with QuestionLog(log_path()) as log:
        assert [(r.id, r.language) for r in log.questions()] == [(old_id, "")]
    # An old log opened as this PC's log keeps its row and takes new rows with their language.
    mine = tmp_path / "mine.sqlite"
    _old_log(mine, "Quel capteur ?")
    _record(mine, META)
    with QuestionLog(mine) as log:
        assert sorted((r.question, r.language) for r in log.questions()) == sorted(
            [("Quel capteur ?", "")] + [(q, "fr") for q in QUESTIONS])
    with apsw.Connection(str(mine)) as conn:
        assert dict(conn.execute("SELECT key, value FROM log_meta"))["schema"] == "1"  # the format is unchanged


def test_a_merge_file_with_a_language_the_log_never_writes_is_one_sentence(report_dir, tmp_path, capsys):
    with QuestionLog(log_path()) as log:
        log.add(new_question("kept", "answered", course_id="c", course_version="1", corpus_version="c"))
    bad = tmp_path / "bad.sqlite"
    _record(bad, META)
    with apsw.Connection(str(bad)) as conn:
        conn.execute("UPDATE questions SET language = 'fr\"><script>'")
    with pytest.raises(LogError, match="language the log never writes"):
        read_export(bad)
    assert main(["report", "--merge", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err and str(bad) in err
    with QuestionLog(log_path()) as log:
        assert [r.question for r in log.questions()] == ["kept"]  # nothing merged
