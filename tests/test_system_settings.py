"""The lab-wide settings file (app/system_settings.py, issue 28): read under the user's own file, the
admin's choice wins for the instructor's report, a damaged file is one sentence, and `lantern report
--status` says which file turned the report on. (conftest points LANTERN_SYSTEM_SETTINGS at a
temporary file, so /etc/lantern/settings.toml of the machine running the tests is never read.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli import main
from app.config import Settings, setting_source, settings_path, settings_problems
from app.report.recorder import report_enabled
from app.report.status import report_status
from app.system_settings import system_settings_path


def _system(text: str) -> Path:
    path = Path(os.environ["LANTERN_SYSTEM_SETTINGS"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _user(values: dict) -> Path:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")
    return path


def test_system_file_is_in_the_platforms_machine_wide_folder(monkeypatch):
    monkeypatch.delenv("LANTERN_SYSTEM_SETTINGS")
    monkeypatch.setattr(sys, "platform", "linux")
    assert system_settings_path() == Path("/etc/lantern/settings.toml")
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("ProgramData", r"D:\ProgramData")
    assert system_settings_path() == Path(r"D:\ProgramData") / "Lantern" / "settings.toml"
    monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", "/srv/lab/lantern.toml")
    assert system_settings_path() == Path("/srv/lab/lantern.toml")


def test_without_any_file_the_report_is_off_and_comes_from_the_default(monkeypatch):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    assert Settings.load() == Settings() and settings_problems() == []
    assert not report_enabled() and setting_source("instructor_report") is None
    assert report_status()["decided_by"] == "default"


def test_the_admins_report_choice_wins_over_the_students_file(monkeypatch):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    system = _system("# written by the installer\ninstructor_report = true\nreport_retention_days = 30\n")
    user = _user({"instructor_report": False, "report_retention_days": 3000, "font_size": 14})
    settings = Settings.load()
    assert settings.instructor_report is True and settings.report_retention_days == 30  # the admin's
    assert settings.font_size == 14  # not an admin setting: the user's own value
    assert report_enabled() and setting_source("instructor_report") == system
    assert setting_source("font_size") == user
    # ... both ways: a lab admin who said no is not overruled by a student's file either.
    _system("instructor_report = false\n")
    _user({"instructor_report": True})
    assert not report_enabled() and setting_source("instructor_report") == system
    # The environment variable for scripted checks still decides over both files.
    monkeypatch.setenv("LANTERN_REPORT", "1")
    assert report_enabled() and report_status()["decided_by"] == "environment"


def test_other_lab_wide_values_are_defaults_under_the_users_file(monkeypatch):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    _system('threads = 4\nmodel_url = "http://10.0.0.5:8080"\n')
    assert Settings.load().threads == 4 and Settings.load().model_url == "http://10.0.0.5:8080"
    _user({"threads": 2, "instructor_report": True})
    assert Settings.load().threads == 2
    assert report_enabled() and report_status()["decided_by"] == "user file"  # the lab-wide file does not set it


def test_saving_from_the_window_does_not_freeze_the_lab_wide_values():
    system = _system("threads = 4\ninstructor_report = true\n")
    settings = Settings.load()
    settings.font_size = 15
    settings.save()
    saved = json.loads(settings_path().read_text(encoding="utf-8"))
    assert saved["font_size"] == 15 and "threads" not in saved and "instructor_report" not in saved
    system.write_text("threads = 6\ninstructor_report = false\n", encoding="utf-8")  # the admin changes the lab's
    assert Settings.load().threads == 6 and Settings.load().instructor_report is False


@pytest.mark.parametrize("text, expected", [
    ("instructor_report = tru\n", "is not valid TOML"),
    ("instructor_report = true\ninstructor_report = false\n", "is not valid TOML"),
    (b"\xff\xfe instructor_report = true", "could not be read (UnicodeDecodeError)"),
])
def test_a_damaged_system_file_is_one_sentence_and_the_defaults(text, expected, monkeypatch):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    path = Path(os.environ["LANTERN_SYSTEM_SETTINGS"])
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    _user({"font_size": 13})
    assert Settings.load() == Settings(font_size=13)  # the user's own file still counts
    problems = settings_problems()
    assert len(problems) == 1 and problems[0].startswith(f"The lab-wide settings file {path} ")
    assert expected in problems[0] and problems[0].count(". ") == 0
    assert not report_enabled()


def test_bad_values_and_unknown_names_in_the_system_file_are_named(monkeypatch):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    path = _system('instructor_report = "yes"\nreport = true\nreport_retention_days = 0\nthreads = 2\n')
    assert Settings.load() == Settings(threads=2)
    problems = settings_problems()
    assert any(p.startswith(f"The setting `instructor_report` in {path} must be true or false (got \"yes\")")
               for p in problems)
    assert f"The setting `report` in {path} is not one Lantern knows (did you mean `instructor_report`?); " \
           "it is ignored." in problems
    assert any("`report_retention_days`" in p and "between 1 and 3650" in p for p in problems)
    assert not report_enabled()


def test_report_status_says_which_file_turned_it_on(monkeypatch, capsys):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    system = _system("instructor_report = true\n")
    _user({"instructor_report": False})
    assert main(["report", "--status"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"On this PC the instructor's report is on: the lab-wide settings file {system} sets "
                          "instructor_report = true (a user's own settings file cannot change it).")
    assert "holds 0 questions; each is kept 90 days." in out
    assert main(["report", "--status", "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["on"] is True and status["decided_by"] == "lab-wide file" and status["file"] == str(system)
    system.unlink()
    assert main(["report", "--status"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"On this PC the instructor's report is off: the user's settings file {settings_path()} "
                          'sets "instructor_report": false.')
    assert f"The lab-wide settings file {system} does not exist;" in out


def test_report_status_with_a_damaged_system_file_is_a_warning_not_a_traceback(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text("[instructor_report\n", encoding="utf-8")
    env = {**os.environ, "LANTERN_SYSTEM_SETTINGS": str(path)}
    env.pop("LANTERN_REPORT", None)
    done = subprocess.run([sys.executable, "-m", "app", "report", "--status"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"warning: The lab-wide settings file {path} is not valid TOML")
    assert done.stderr.count("\n") == 1
    assert done.stdout.startswith("On this PC the instructor's report is off: no settings file sets")


def test_a_byte_order_mark_at_the_start_of_either_settings_file_is_skipped(monkeypatch):
    """Trial s8: Windows editors write a UTF-8 BOM, and the admin's report was then off."""
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    Path(_system("")).write_bytes(b"\xef\xbb\xbfinstructor_report = true\n")
    user = _user({})
    user.write_bytes(b"\xef\xbb\xbf" + json.dumps({"font_size": 13}).encode())
    assert settings_problems() == []
    assert Settings.load() == Settings(font_size=13, instructor_report=True)
    assert report_enabled()


def test_a_folder_given_as_a_settings_file_is_called_a_folder(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", str(tmp_path))
    problems = settings_problems()
    assert problems == [f"The lab-wide settings file {tmp_path} is a folder, not a file; its settings are not "
                        "used: point LANTERN_SYSTEM_SETTINGS (or the lab's settings.toml) at a TOML file."]
    assert main(["report", "--status"]) == 0
    out = capsys.readouterr().out
    assert f"The lab-wide settings file {tmp_path} is a folder, not a file; its settings are not used" in out
    assert "does not exist" not in out
    if os.name == "posix":  # /dev/null exists but is not a file
        monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", os.devnull)
        assert main(["report", "--status"]) == 0
        assert f"The lab-wide settings file {os.devnull} is not a regular file;" in capsys.readouterr().out
    user = settings_path()
    user.mkdir(parents=True)
    assert any(p.startswith(f"The settings file {user} is a folder, not a file;") for p in settings_problems())


# --- settings files of absurd size (issue 28): refused by their size, unread -------------------------------
def _refuse_opening(monkeypatch, *paths: Path) -> None:
    """Make opening any of ``paths`` fail the test (``read_text`` opens through ``Path.open`` too)."""
    real_open = Path.open

    def guarded(self, *args, **kwargs):
        assert self not in paths, f"{self} was opened; its size alone should have refused it"
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)


def test_a_50_mb_settings_file_is_refused_by_its_size_without_being_read(monkeypatch, capsys):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    system = _system("instructor_report = true\n")
    user = _user({"font_size": 14})
    for path in (system, user):
        os.truncate(path, 50 * 1024 * 1024)  # the start is valid; the rest is 50 MB of NUL bytes (sparse)
    _refuse_opening(monkeypatch, system, user)
    assert Settings.load() == Settings()  # the defaults, nothing raised
    problems = settings_problems()
    assert problems == [
        f"The lab-wide settings file {system} is 52,428,800 bytes, more than the 1,048,576 bytes a settings file "
        "may have, so it was not read and its settings are not used: ask the lab's administrator to replace it "
        "with a file of just its settings.",
        f"The settings file {user} is 52,428,800 bytes, more than the 1,048,576 bytes a settings file may have, so "
        "it was not read and the defaults are used: move it away or delete it (saving the settings from the "
        "window writes a new one)."]
    assert not report_enabled()
    assert main(["report", "--status"]) == 0  # the CLI goes on: warnings, then the status
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.count("warning: ") == 2
    assert problems[0] in captured.out.splitlines()


def test_a_settings_file_of_exactly_1_mib_is_read_and_one_byte_more_is_not(monkeypatch):
    from app.system_settings import MAX_SETTINGS_BYTES

    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    head = "instructor_report = true\n#"
    system = _system(head + "x" * (MAX_SETTINGS_BYTES - len(head) - 1) + "\n")
    assert system.stat().st_size == MAX_SETTINGS_BYTES == 1_048_576
    assert settings_problems() == [] and report_enabled()
    system.write_text(head + "x" * (MAX_SETTINGS_BYTES - len(head)) + "\n", encoding="utf-8")
    assert system.stat().st_size == MAX_SETTINGS_BYTES + 1
    assert not report_enabled()
    [problem] = settings_problems()
    assert problem.startswith(f"The lab-wide settings file {system} is 1,048,577 bytes, more than the 1,048,576 ")
    user = _user({"font_size": 14})
    user.write_text(json.dumps({"font_size": 14}) + " " * MAX_SETTINGS_BYTES, encoding="utf-8")
    assert Settings.load().font_size == 11
    size = user.stat().st_size
    assert any(p.startswith(f"The settings file {user} is {size:,} bytes,") for p in settings_problems())


def test_a_file_whose_stat_size_is_wrong_is_still_read_no_further_than_the_limit():
    """A device such as /dev/zero says 0 bytes and never ends; a file may grow after `stat`."""
    import io

    from app.system_settings import MAX_SETTINGS_BYTES, SettingsFileTooLarge, read_settings_text

    class Endless:
        def stat(self):
            return os.stat_result((0,) * 10)

        def open(self, _mode):
            return io.BytesIO(b"#" * (3 * MAX_SETTINGS_BYTES))

    with pytest.raises(SettingsFileTooLarge) as refused:
        read_settings_text(Endless())  # type: ignore[arg-type]
    assert refused.value.size is None and refused.value.size_words() == "more than 1,048,576 bytes"


# --- a damaged lab-wide file: `lantern report --status` says so itself (not only a warning on stderr) --------
def test_report_status_prints_why_the_lab_wide_file_was_not_applied(monkeypatch, capsys):
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    system = _system("instructor_report = tru\n")
    assert main(["report", "--status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("On this PC the instructor's report is off:")
    assert lines[1].startswith(f"The lab-wide settings file {system} is not valid TOML")
    assert lines[1].endswith("its settings are not used: ask the lab's administrator to fix it "
                             "(or run `sudo dpkg-reconfigure lantern`).")
    assert not any(line.endswith("exists; a lab admin turns the report on there (instructor_report = true) or with "
                                 "`sudo dpkg-reconfigure lantern`.") for line in lines)
    assert main(["report", "--status", "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["on"] is False and status["system_file_problems"] == [lines[1]]
    system.write_text("instructor_report = true\n", encoding="utf-8")  # repaired: nothing more to say
    assert main(["report", "--status", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["system_file_problems"] == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_as_a_settings_file_is_refused_unopened(tmp_path, monkeypatch):
    """A FIFO would block the app at start until something wrote to it; /dev/zero never ends."""
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(tmp_path))
    lab = tmp_path / "lab.toml"
    os.mkfifo(lab)
    monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", str(lab))
    started = time.monotonic()
    settings = Settings.load()
    problems = settings_problems()
    assert time.monotonic() - started < 10 and settings.font_size == Settings().font_size
    assert f"The settings file {fifo} could not be read (not a regular file); the defaults are used. " \
           "Fix or delete the file." in problems
    assert any(p.startswith(f"The lab-wide settings file {lab} could not be read (not a regular file); its settings "
                            "are not used") for p in problems)
    if Path("/dev/zero").exists():  # a device is read no further than the limit
        monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", "/dev/zero")
        assert any("/dev/zero is more than 1,048,576 bytes" in p for p in settings_problems())
