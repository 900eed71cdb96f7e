"""``lantern report --status``: whether the instructor's report is on for this PC, and what turned it on.

What decides (the first that applies): ``$LANTERN_REPORT`` (scripted checks), the lab-wide settings
file when it sets ``instructor_report`` (the admin's or the Debian installer's choice: a user's file
cannot change it), the user's settings file, else the default (off). See app/system_settings.py.
"""

from __future__ import annotations

import json
import os

from ..config import Settings, lab_settings_problems, setting_source
from ..system_settings import file_state, system_settings_path
from .log import LogError, QuestionLog
from .recorder import log_path, report_enabled, retention_days


def report_status() -> dict:
    """The report's state as a JSON-ready dict: ``on`` (bool), ``decided_by`` (``environment``,
    ``lab-wide file``, ``user file`` or ``default``), ``file`` (the settings file that decided, or
    None), ``system_file`` (the lab-wide file's path, ``system_file_exists`` and ``system_file_state``:
    :func:`app.system_settings.file_state`), ``system_file_problems`` (one sentence for each part of
    the lab-wide file not applied: a damaged, unreadable or too large file, an unknown name, a bad
    value; :func:`app.config.lab_settings_problems`), ``retention_days``
    (days), ``log`` (the log's path), ``questions`` (rows in it now; None when it cannot be read) and
    ``log_problem`` (one sentence, or None). Never raises."""
    settings = Settings.load()
    source = setting_source("instructor_report")
    if os.environ.get("LANTERN_REPORT", "").strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        decided_by, file = "environment", None
    elif source is None:
        decided_by, file = "default", None
    else:
        decided_by = "lab-wide file" if source == system_settings_path() else "user file"
        file = str(source)
    path = log_path()
    questions: int | None = 0
    problem = None
    if path.exists():
        try:
            with QuestionLog(path, retention_days(settings)) as log:
                questions = len(log.questions())
        except LogError as exc:
            questions, problem = None, str(exc)
    system = system_settings_path()
    return {"on": report_enabled(settings), "decided_by": decided_by, "file": file, "system_file": str(system),
            "system_file_exists": system.is_file(), "system_file_state": file_state(system),
            "system_file_problems": lab_settings_problems(),
            "retention_days": retention_days(settings), "log": str(path),
            "questions": questions, "log_problem": problem}


def status_text(status: dict) -> str:
    """``report_status()`` in plain sentences, one per line."""
    state = "on" if status["on"] else "off"
    why = {"environment": f"LANTERN_REPORT={os.environ.get('LANTERN_REPORT', '')} in the environment decides "
                          "(it overrides both settings files)",
           "lab-wide file": f"the lab-wide settings file {status['file']} sets instructor_report = "
                            f"{'true' if status['on'] else 'false'} (a user's own settings file cannot change it)",
           "user file": f"the user's settings file {status['file']} sets \"instructor_report\": "
                        f"{'true' if status['on'] else 'false'}",
           "default": "no settings file sets instructor_report (off is the default)"}[status["decided_by"]]
    lines = [f"On this PC the instructor's report is {state}: {why}."]
    lines.extend(status["system_file_problems"])  # a damaged lab-wide file: the admin's choice was not read
    if status["decided_by"] != "lab-wide file" and not status["system_file_problems"]:
        exists = status["system_file_state"]
        lines.append(f"The lab-wide settings file {status['system_file']} {exists}; a lab admin turns the report on "
                     "there (instructor_report = true) or with `sudo dpkg-reconfigure lantern`.")
    if status["log_problem"]:
        lines.append(status["log_problem"])
    else:
        count = status["questions"]
        lines.append(f"The log {status['log']} holds {count} question{'' if count == 1 else 's'}; each is kept "
                     f"{status['retention_days']} days.")
    return "\n".join(lines)


def print_status(fmt: str | None) -> None:
    """Print the status as sentences, or as JSON when ``fmt`` is ``json``."""
    status = report_status()
    print(json.dumps(status, indent=2) if fmt == "json" else status_text(status))

