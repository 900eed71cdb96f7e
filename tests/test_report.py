"""The instructor's report (issue 28): the question log (off by default, no names, crash-safe,
two writers, retention, purge, export and merge), ``lantern report`` in HTML / CSV / JSON, the
topics, and the window's "Did this help?" buttons. Fakes and the tiny course; runs in seconds."""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

from app.cli import main
from app.records import Answer
from app.report.log import MAX_QUESTION_CHARS, LogError, QuestionLog, new_question
from app.report.logfile import use_wal
from app.report.recorder import PAUSED_WORDS, ReplyRecorder, log_path, report_enabled
from app.report.render import csv_cell, report_csv, report_html
from app.report.topics import group_topics

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the window tests need no display (as in tests/test_gui.py)


def _row(question="How do I pair a Zigbee sensor?", state="not-covered", day=None, **extra):
    fields = {"course_id": "esp32-starter", "course_version": "2026-11-20-abc", "corpus_version": "abc" * 10}
    fields.update(extra)
    return new_question(question, state, day=day, **fields)


def _rows_in(path: Path) -> list:
    with QuestionLog(path) as log:
        return log.questions()


def _ask(bundle_path, question, *more) -> int:
    return main(["ask", "--bundle", str(bundle_path), "--search-only", "--keyword-only", *more, question])


# --- on / off ---------------------------------------------------------------------------------
def test_off_by_default_nothing_is_written(report_dir, bundle_path, capsys):
    assert not report_enabled()
    assert _ask(bundle_path, "How do I blink the LED?") == 0
    assert not report_dir.exists()
    assert "paused" not in capsys.readouterr().err


def test_lantern_report_1_logs_the_reply_as_ask_json_gives_it(report_dir, bundle_path, capsys, monkeypatch):
    monkeypatch.setenv("LANTERN_REPORT", "1")
    assert _ask(bundle_path, "How do I blink the LED on GPIO 2?", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    [row] = _rows_in(log_path())
    assert row.state == doc["state"] and row.question == "How do I blink the LED on GPIO 2?"
    assert row.day == dt.date.today().isoformat() and row.course_id == "course"
    assert row.corpus_version == doc["corpus_version"]
    assert list(row.cited) == list(dict.fromkeys(c["source"] for c in doc["citations"]))
    assert row.helped is None


def test_the_settings_file_turns_it_on_and_a_wrong_value_is_named(report_dir, monkeypatch):
    from app.config import Settings, settings_path, settings_problems

    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"instructor_report": True, "report_retention_days": 30}))
    assert report_enabled() and Settings.load().report_retention_days == 30
    monkeypatch.setenv("LANTERN_REPORT", "0")
    assert not report_enabled()
    settings_path().write_text(json.dumps({"instructor_report": "yes"}))
    monkeypatch.delenv("LANTERN_REPORT")
    assert not report_enabled()
    assert any("`instructor_report`" in p and "true or false" in p for p in settings_problems())


def test_no_account_or_machine_name_is_stored(report_dir, bundle_path, monkeypatch):
    monkeypatch.setenv("LANTERN_REPORT", "1")
    assert _ask(bundle_path, "What does the scanner sketch find?") == 0
    recorder = ReplyRecorder()
    recorder.feedback(_rows_in(log_path())[0].id, True)
    recorder.close()
    stored = b"".join(p.read_bytes() for p in report_dir.iterdir())
    names = {getpass.getuser(), socket.gethostname(), socket.getfqdn()}
    for name in (n for n in names if len(n) >= 4):
        assert name.encode() not in stored and name.lower().encode() not in stored
    with apsw.Connection(str(log_path())) as conn:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(questions)")}
    assert not columns & {"user", "account", "host", "machine", "ip", "time", "timestamp"}


# --- bad input --------------------------------------------------------------------------------
def test_a_30000_character_question_is_answered_and_kept_capped(report_dir, bundle_path, monkeypatch, capsys):
    monkeypatch.setenv("LANTERN_REPORT", "1")
    question = "blink " * 5000  # 30,000 characters
    assert len(question) == 30_000
    code = _ask(bundle_path, question, "--json")
    assert code in (0, 1) and "Traceback" not in capsys.readouterr().err
    row = _row("x" * 30_000)
    assert len(row.question) == MAX_QUESTION_CHARS and row.question.endswith("…")
    for kept in _rows_in(log_path()):
        assert len(kept.question) <= MAX_QUESTION_CHARS


def test_an_unwritable_log_pauses_logging_once_and_the_answer_goes_on(tmp_path, bundle_path, monkeypatch, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log's folder should be")
    monkeypatch.setenv("LANTERN_REPORT_DIR", str(blocker))
    monkeypatch.setenv("LANTERN_REPORT", "1")
    assert _ask(bundle_path, "How do I blink the LED?") == 0
    captured = capsys.readouterr()
    assert "LED" in captured.out or "GPIO" in captured.out
    assert captured.err.count("paused") == 1 and "Traceback" not in captured.err
    said: list[str] = []
    recorder = ReplyRecorder(blocker / "questions.sqlite", on_pause=said.append)
    answer = Answer("not-covered", "", (), (), "v1", "m")
    assert recorder.record({}, Path("x.sqlite"), "q1", answer) is None
    assert recorder.record({}, Path("x.sqlite"), "q2", answer) is None
    assert len(said) == 1 and said[0].startswith(PAUSED_WORDS.split("(")[0])


def test_a_full_disk_pauses_logging_and_says_so(report_dir, monkeypatch):
    def full(_self, _row):
        raise apsw.FullError("database or disk is full")

    monkeypatch.setattr(QuestionLog, "add", full)
    said: list[str] = []
    recorder = ReplyRecorder(on_pause=said.append)
    answer = Answer("answered", "text", (), (), "v1", "m")
    assert recorder.record({}, Path("x.sqlite"), "q", answer) is None
    assert recorder.record({}, Path("x.sqlite"), "q", answer) is None
    assert said == [PAUSED_WORDS.format(why="the disk is full")] and recorder.paused


# --- crash safety and two writers ----------------------------------------------------------
WRITER = """
import sys
from app.report.log import QuestionLog, new_question
log = QuestionLog(sys.argv[1])
for i in range(int(sys.argv[2])):
    log.add(new_question(f"question {i} of {sys.argv[3]}", "answered", course_id="c", course_version="v",
                         corpus_version="cv", cited=["a.md"]))
    print(i, flush=True)
"""


def _writer(path: Path, rows: int, name: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(rows), name], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_writer_killed_midway_leaves_a_readable_log(tmp_path):
    path = tmp_path / "questions.sqlite"
    writer = _writer(path, 1_000_000, "killed")
    assert writer.stdout is not None
    for _ in range(50):  # 50 rows committed, then kill it in the middle of the next ones
        assert writer.stdout.readline(), writer.stderr.read() if writer.stderr else ""
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(10)
    with QuestionLog(path) as log:
        assert log.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert len(log.questions()) >= 50
        log.add(_row())  # and it can still be written


def test_two_writers_at_once_lose_nothing(tmp_path):
    path = tmp_path / "questions.sqlite"
    writers = [_writer(path, 150, name) for name in ("window-1", "window-2")]
    for writer in writers:
        _out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    rows = _rows_in(path)
    assert len(rows) == 300 and len({r.id for r in rows}) == 300
    assert sum("window-1" in r.question for r in rows) == 150


def test_switching_to_wal_waits_out_a_busy_answer_from_another_window():
    """SQLite may answer BUSY to the switch at once, without its busy timeout (the CI run of
    2026-12-02 lost a window that way); the open retries instead of failing."""

    class _Conn:
        def __init__(self, busy: int) -> None:
            self.busy, self.mode = busy, "delete"

        def execute(self, sql: str):
            if sql.endswith("=WAL"):
                if self.busy:
                    self.busy -= 1
                    raise apsw.BusyError("database is locked")
                self.mode = "wal"
            return self

        def fetchall(self) -> list[tuple[str]]:
            return [(self.mode,)]

    conn = _Conn(busy=3)
    use_wal(conn)  # type: ignore[arg-type]
    assert conn.mode == "wal" and conn.busy == 0


# --- retention, purge, export, merge -------------------------------------------------------
def test_retention_deletes_old_rows_on_open_and_purge_deletes_all(report_dir, capsys):
    today = dt.date.today()
    with QuestionLog(log_path()) as log:
        log.add(_row("old zigbee question", day=today - dt.timedelta(days=120)))
        log.add(_row("recent question", day=today - dt.timedelta(days=3)))
    with QuestionLog(log_path(), retention_days=90) as log:
        assert [r.question for r in log.questions()] == ["recent question"]
    assert main(["report", "--purge"]) == 0
    assert "Deleted 1 question" in capsys.readouterr().err
    assert _rows_in(log_path()) == []
    stored = b"".join(p.read_bytes() for p in report_dir.iterdir())
    assert b"recent question" not in stored and b"old zigbee" not in stored


def test_merging_the_same_file_twice_counts_nothing_twice(report_dir, tmp_path, capsys):
    lab_pc = tmp_path / "lab-pc.sqlite"
    with QuestionLog(lab_pc) as log:
        rows = [_row(f"question {i}") for i in range(5)]
        for row in rows:
            log.add(row)
        log.set_helped(rows[0].id, False)
        usb = tmp_path / "usb" / "pc-07.sqlite"
        usb.parent.mkdir()
        assert log.export(usb) == 5
    assert main(["report", "--merge", str(usb)]) == 0
    assert main(["report", "--merge", str(usb), str(usb)]) == 0
    err = capsys.readouterr().err
    assert "5 new questions added" in err and err.count("0 new questions added, 5 already here") == 2
    merged = _rows_in(log_path())
    assert sorted(r.id for r in merged) == sorted(r.id for r in rows)
    assert [r.helped for r in merged if r.id == rows[0].id] == [False]
    assert main(["report", "--merge", str(usb), "-o", str(tmp_path / "r.csv")]) == 0  # merge, then the report
    assert (tmp_path / "r.csv").read_text(encoding="utf-8").count("esp32-starter") == 5


@pytest.mark.parametrize("kind", ["garbage", "truncated", "foreign", "bad-row", "missing"])
def test_a_damaged_or_foreign_merge_file_is_one_sentence_and_loses_nothing(report_dir, tmp_path, capsys, kind,
                                                                            bundle_path):
    with QuestionLog(log_path()) as log:
        log.add(_row("kept question"))
    bad = tmp_path / "bad.sqlite"
    good = tmp_path / "good.sqlite"
    with QuestionLog(tmp_path / "src.sqlite") as src:
        src.add(_row("from the lab"))
        src.export(good)
    if kind == "garbage":
        bad.write_bytes(b"\x00garbage" * 500)
    elif kind == "truncated":
        bad.write_bytes(good.read_bytes()[:1500])
    elif kind == "foreign":
        bad.write_bytes(bundle_path.read_bytes())  # a course bundle, not a question log
    elif kind == "bad-row":
        bad.write_bytes(good.read_bytes())
        with apsw.Connection(str(bad)) as conn:
            conn.execute("UPDATE questions SET state = 'hacked'")
    assert main(["report", "--merge", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert str(bad) in err
    assert [r.question for r in _rows_in(log_path())] == ["kept question"]  # nothing lost, nothing half-merged


def test_export_to_a_folder_that_does_not_exist_is_one_sentence(report_dir, tmp_path, capsys):
    with QuestionLog(log_path()) as log:
        log.add(_row())
    assert main(["report", "--export", str(tmp_path / "no" / "such" / "x.sqlite")]) == 1
    assert "does not exist" in capsys.readouterr().err
    with QuestionLog(log_path()) as log, pytest.raises(LogError):
        log.export(log_path())


# --- the report -----------------------------------------------------------------------------
def _sample_rows() -> list:
    today = dt.date.today()
    rows = [_row("How do I pair a Zigbee sensor?", missing_terms=["Zigbee"], day=today),
            _row("Does zigbee work with the ESP32?", missing_terms=["zigbee"], day=today - dt.timedelta(days=8)),
            _row("How do I calibrate the servo angle?", day=today),
            _row("How can I calibrate my servo angle?", day=today - dt.timedelta(days=1)),
            _row('<script>alert("x")</script><img src=x onerror=alert(1)>', day=today),
            _row("=HYPERLINK(\"http://evil\",\"x\")", day=today),
            _row("Why is my OLED blank?", "answered", cited=["lessons/oled.md"], day=today)]
    return rows + [_row("What pins for the LED?", "extractive", cited=["lessons/blink.md", "lessons/oled.md"],
                        day=today - dt.timedelta(days=15))]


def test_topics_group_by_missing_terms_and_similar_words():
    topics = group_topics([r for r in _sample_rows() if r.state == "not-covered"])
    by_label = {t.label: t for t in topics}
    assert by_label["zigbee"].count == 2 and by_label["zigbee"].missing
    servo = [t for t in topics if "servo" in t.label]
    assert len(servo) == 1 and servo[0].count == 2 and not servo[0].missing


def test_a_french_course_s_questions_are_grouped_in_french(report_dir, tmp_path, capsys, monkeypatch):
    from types import SimpleNamespace

    questions = ["Comment installer le paquet sur la carte ?", "L'installation des paquets ne marche pas",
                 "Où brancher le capteur de température ?"]
    rows = [_row(q, course_id="atelier") for q in questions]
    topics = group_topics(rows, {"atelier": "fr"})
    assert sorted(t.count for t in topics) == [1, 2]
    assert {r.question for r in topics[0].questions} == set(questions[:2])
    assert len(group_topics(rows)) == 3  # read as English, "installer" and "l'installation" part ways
    # `lantern report` reads the course's language from its bundle installed on this PC.
    entries = [SimpleNamespace(course_id="atelier", state="ok", language="fr", path=tmp_path / "atelier.sqlite")]
    monkeypatch.setattr("app.bundle.library.list_courses", lambda verify=True: entries)
    with QuestionLog(log_path()) as log:
        for row in rows:
            log.add(row)
    assert main(["report", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [t["count"] for t in doc["topics"]] == [2, 1]


def test_the_html_report_is_one_file_with_charts_and_escapes_every_question(report_dir, tmp_path, capsys):
    with QuestionLog(log_path()) as log:
        for row in _sample_rows():
            log.add(row)
    out = tmp_path / "report.html"
    assert main(["report", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "http://" not in html.replace("http://evil", "") and "https://" not in html and "//fonts" not in html
    assert html.count('src="data:image/svg+xml;base64,') == 4  # topics, cited most, cited least, weeks
    assert "zigbee" in html and "lessons/oled.md" in html and "Week of" in html
    rows = _sample_rows()
    assert report_html(rows).count("<h3>") == len(group_topics([r for r in rows if r.state == "not-covered"]))


def test_csv_and_json_reports(report_dir, capsys):
    rows = _sample_rows()
    text = report_csv(rows)
    assert "'=HYPERLINK" in text and "\n=HYPERLINK" not in text and ",=HYPERLINK" not in text
    assert csv_cell("+1") == "'+1" and csv_cell("@x") == "'@x" and csv_cell("plain") == "plain"
    with QuestionLog(log_path()) as log:
        for row in rows:
            log.add(row)
    assert main(["report", "--format", "json", "--course", "esp32-starter",
                 "--since", (dt.date.today() - dt.timedelta(days=2)).isoformat()]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["questions"] == 6 and doc["totals"]["not covered"] == 5
    assert doc["topics"][0]["count"] >= 1 and doc["cited_most"][0] == {"guide": "lessons/oled.md", "count": 1}
    with pytest.raises(SystemExit) as exited:
        main(["report", "--since", "last week"])
    assert exited.value.code == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


# --- the window -------------------------------------------------------------------------------
@pytest.fixture()
def gui_bundle(tmp_path):
    from . import test_gui as shared

    yield from shared.gui_bundle.__wrapped__(tmp_path)


@pytest.fixture()
def windows(qtbot):
    from . import test_gui as shared

    yield from shared.windows.__wrapped__(qtbot)


def _tab_stops_after(widget, n: int) -> list:
    """The next ``n`` widgets Tab reaches after ``widget`` (and its own children)."""
    from PySide6.QtCore import Qt

    stops, current = [], widget
    while len(stops) < n:
        current = current.nextInFocusChain()
        if current is widget:
            break
        if (current.focusPolicy() & Qt.FocusPolicy.TabFocus and current.isVisible()
                and not widget.isAncestorOf(current)):
            stops.append(current)
    return stops


def _answered_window(qtbot, windows, gui_bundle):
    from . import test_gui as shared
    from .fakes import FakeChatModel

    window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    assert window.feedback.bar.isHidden()  # nothing to rate yet
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.question_box.setPlainText(shared.QUESTION)
        window.ask()
    return window


def test_the_window_keeps_did_this_help_when_the_report_is_on(qtbot, windows, gui_bundle, report_dir, monkeypatch):
    from PySide6.QtCore import Qt

    from app.report.feedback import THANKS_KEPT
    from app.report.recorder import KEPT_NOTICE

    monkeypatch.setenv("LANTERN_REPORT", "1")
    window = _answered_window(qtbot, windows, gui_bundle)
    hook = window.feedback
    assert hook.notice is not None and hook.notice.text() == KEPT_NOTICE and hook.notice.isVisible()
    bar = hook.bar
    assert bar.isVisible()
    assert (bar.helped_button.accessibleName(), bar.unhelped_button.accessibleName()) == ("Helped", "Didn't help")
    assert _tab_stops_after(window.answer_view, 3) == [bar.helped_button, bar.unhelped_button, window.sources_list]
    assert bar.helped_button.focusPolicy() & Qt.FocusPolicy.TabFocus
    [row] = _rows_in(log_path())
    assert row.question == window.shown.question and row.helped is None and row.course_id == "course"
    qtbot.mouseClick(bar.helped_button, Qt.MouseButton.LeftButton)
    assert _rows_in(log_path())[0].helped is True and bar.thanks_label.text() == THANKS_KEPT
    bar.unhelped_button.setFocus()
    qtbot.keyClick(bar.unhelped_button, Qt.Key.Key_Space)  # the keyboard works too
    assert _rows_in(log_path())[0].helped is False
    assert bar.unhelped_button.isChecked() and not bar.helped_button.isChecked()
    window.new_conversation()  # (Ctrl+N) nothing on screen to rate
    qtbot.waitUntil(bar.isHidden, timeout=2000)


def test_the_window_keeps_nothing_when_the_report_is_off(qtbot, windows, gui_bundle, report_dir):
    from PySide6.QtCore import Qt

    from app.report.feedback import THANKS_NOT_KEPT

    window = _answered_window(qtbot, windows, gui_bundle)
    assert window.feedback.notice is None and window.feedback.recorder is None
    qtbot.mouseClick(window.feedback.bar.unhelped_button, Qt.MouseButton.LeftButton)
    assert window.feedback.bar.thanks_label.text() == THANKS_NOT_KEPT
    assert not report_dir.exists()


def test_the_window_says_logging_paused_once_and_answers_on(qtbot, windows, gui_bundle, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LANTERN_REPORT_DIR", str(blocker))
    monkeypatch.setenv("LANTERN_REPORT", "1")
    shown: list[str] = []
    window = _answered_window(qtbot, windows, gui_bundle)
    assert window.answer is not None and window.answer.text
    assert "paused" in window.status_text()
    window.status.message_label.setText("")
    window.show_status = lambda text, _ms=0: shown.append(text)  # type: ignore[method-assign]
    window.feedback.recorder.on_pause = shown.append
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.ask()
    assert shown == []  # said once, not at every answer


@pytest.mark.parametrize("damage", ["instructor_report = tru\n", "too large"])
def test_a_damaged_lab_wide_file_stays_in_view_in_the_window(qtbot, windows, gui_bundle, report_dir, damage):
    """The admin meant the report on, but the lab-wide file cannot be read: the window says so, under the
    question box, from its start and after answers (not only on stderr, nor only until the first question)."""
    system = Path(os.environ["LANTERN_SYSTEM_SETTINGS"])
    system.parent.mkdir(parents=True, exist_ok=True)
    system.write_text("instructor_report = true\n" if damage == "too large" else damage, encoding="utf-8")
    if damage == "too large":
        os.truncate(system, 1_048_577)  # one byte over the limit (app.system_settings.MAX_SETTINGS_BYTES)
    window = _answered_window(qtbot, windows, gui_bundle)
    hook = window.feedback
    assert hook.recorder is None and hook.notice is None  # the admin's choice was not applied: the report is off
    lab = hook.lab_notice
    assert lab is not None and lab.isVisible() and window.ask_panel.isAncestorOf(lab)
    assert lab.text().startswith(f"The lab-wide settings file {system} ")
    assert ("is not valid TOML" if damage != "too large" else "is 1,048,577 bytes") in lab.text()
    assert lab.text().endswith("its settings are not used: ask the lab's administrator to fix it "
                               "(or run `sudo dpkg-reconfigure lantern`)." if damage != "too large"
                               else "ask the lab's administrator to replace it with a file of just its settings.")
    with qtbot.waitSignal(window.answer_shown, timeout=5000):
        window.ask()
    assert lab.isVisible()
    assert not report_dir.exists()


def test_a_sound_lab_wide_file_adds_no_notice(qtbot, windows, gui_bundle, report_dir):
    system = Path(os.environ["LANTERN_SYSTEM_SETTINGS"])
    system.parent.mkdir(parents=True, exist_ok=True)
    system.write_text("instructor_report = true\n", encoding="utf-8")
    window = _answered_window(qtbot, windows, gui_bundle)
    assert window.feedback.lab_notice is None and window.feedback.lab_problems == []
    assert window.feedback.notice is not None and window.feedback.notice.isVisible()  # the admin's "on" applied


def test_the_window_s_notice_is_the_recorder_s_and_is_translated():
    from app.report.feedback import KEPT_NOTICE_TR
    from app.report.recorder import KEPT_NOTICE

    assert KEPT_NOTICE_TR == KEPT_NOTICE  # the window marks the same text for translation
    for language in ("fr", "es"):
        ts = (Path(__file__).resolve().parent.parent / "app" / "gui" / "translations" / f"lantern_{language}.ts")
        text = ts.read_text(encoding="utf-8")
        entry = text[text.index(f"<source>{KEPT_NOTICE}</source>"):]
        assert entry.split("</message>")[0].count("<translation>") == 1  # translated, not unfinished


def test_guides_never_cited_lead_the_cited_least_list():
    from app.report.log import new_question
    from app.report.render import summarize

    rows = [new_question("Which pin is the LED on?", "extractive", course_id="c", course_version="1",
                         corpus_version="v", cited=["lessons/blink.md"]) for _ in range(3)]
    summary = summarize(rows, guides=("lessons/blink.md", "lessons/oled.md", "lessons/wifi.md"))
    assert summary["cited_least"][:2] == [("lessons/oled.md", 0), ("lessons/wifi.md", 0)]
    assert summary["cited_most"] == [("lessons/blink.md", 3)]  # a guide never cited is not "most cited"
    assert summarize(rows)["cited_least"] == [("lessons/blink.md", 3)]  # no bundle here: cited guides only


def test_the_report_lists_the_installed_course_s_guides(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from app.report import cli as report_cli

    class Reader:
        def __init__(self, path, verify=True):
            self.path = path

        def sources(self):
            return [SimpleNamespace(path="a.md"), SimpleNamespace(path="b.md")]

        def close(self):
            pass

    entries = [SimpleNamespace(course_id="c", state="ok", path=tmp_path / "c.sqlite"),
               SimpleNamespace(course_id="d", state="damaged", path=tmp_path / "d.sqlite")]
    monkeypatch.setattr("app.bundle.library.list_courses", lambda verify=True: entries)
    monkeypatch.setattr("app.bundle.reader.BundleReader", Reader)
    row = SimpleNamespace(course_id="c")
    assert report_cli.course_guides(None, [row, row]) == ("a.md", "b.md")
    assert report_cli.course_guides("d", []) == ()  # a damaged bundle: no list, no error
    assert report_cli.course_guides(None, [row, SimpleNamespace(course_id="d")]) == ()  # two courses: no single list
