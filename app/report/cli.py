"""``lantern report``: the instructor's report, and collecting the logs of a lab's PCs.

``app/cli.py`` only registers it (:func:`add_report_command`, :data:`REPORT_COMMANDS`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import sys
from pathlib import Path

from ..errors import LanternError
from .log import QuestionLog, read_export
from .recorder import log_path, report_enabled, retention_days

logger = logging.getLogger(__name__)

EPILOG = """examples:
  lantern report -o report.html                       the whole log as one HTML page
  lantern report --course esp32-starter --since 2026-11-01 --format csv -o questions.csv
  lantern report --export /media/usb/lab-pc-07.sqlite    on each lab PC
  lantern report --merge /media/usb/*.sqlite -o report.html   on the instructor's PC
  lantern report --purge                              delete every logged question now
  lantern report --status                             is the report on here, and which file turned it on?
The log is kept only while the report is on: instructor_report = true in the lab-wide settings file
(/etc/lantern/settings.toml; the Debian package asks), "instructor_report": true in the user's
settings file, or LANTERN_REPORT=1 (docs/instructors.md)."""


def add_report_command(sub) -> None:
    """Add ``report`` to the subcommand parsers ``sub``."""
    cmd = sub.add_parser("report", help="the instructor's report of what students asked (the guides' gaps)",
                         description="Summarize the questions logged on this PC (when the instructor's report is "
                         "on): the not-covered and unhelpful ones grouped into topics, the guides cited most and "
                         "least, and the counts week by week. Or export the log, merge other PCs' logs, or purge it.",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmd.add_argument("--course", metavar="ID", help="only this course id (default: every course)")
    cmd.add_argument("--since", metavar="DATE", type=_date, help="only questions from this day on (YYYY-MM-DD)")
    cmd.add_argument("--format", choices=("html", "csv", "json"), default=None,
                     help="report format (default: from the -o file's extension, else html)")
    cmd.add_argument("-o", "--output", type=Path, help="file to write the report to (default: standard output)")
    action = cmd.add_mutually_exclusive_group()
    action.add_argument("--export", type=Path, metavar="FILE",
                        help="copy the log (filtered by --course and --since) to FILE, e.g. on a USB stick")
    action.add_argument("--merge", type=Path, nargs="+", metavar="FILE",
                        help="add the questions of exported FILEs to this PC's log (a file merged twice adds nothing)")
    action.add_argument("--purge", action="store_true", help="delete every logged question (of --course, if given)")
    action.add_argument("--status", action="store_true",
                        help="say whether the report is on and which settings file turned it on (--format json)")


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date; write it as YYYY-MM-DD, e.g. 2026-11-01") from None


def cmd_report(args) -> int:
    """Run ``lantern report``; returns the exit code (errors raise :class:`LanternError`)."""
    if args.status:
        from .status import print_status

        print_status(args.format)
        return 0
    if args.export:
        with QuestionLog(log_path(), retention_days()) as log:
            count = log.export(args.export, args.course, args.since)
        print(f"Exported {count} question{'' if count == 1 else 's'} to {args.export}.", file=sys.stderr)
        return 0
    if args.merge:
        _merge(args.merge)
        if not args.output:
            return 0
    if args.purge:
        with QuestionLog(log_path(), retention_days()) as log:
            deleted = log.purge(args.course)
        print(f"Deleted {deleted} question{'' if deleted == 1 else 's'} from {log_path()}.", file=sys.stderr)
        return 0
    _write_report(args)
    return 0


def _merge(files: list[Path]) -> None:
    """Merge each file; every file is checked before any is merged, so a bad one merges nothing."""
    for path in files:
        read_export(path)
    with QuestionLog(log_path(), retention_days()) as log:
        for path in files:
            added, known = log.merge(path, retention_days())
            print(f"{path}: {added} new question{'' if added == 1 else 's'} added, {known} already here "
                  "or past the retention limit.", file=sys.stderr)


def _write_report(args) -> None:
    from .render import report_csv, report_html, report_json

    path = log_path()
    rows = []
    if path.exists():
        with QuestionLog(path, retention_days()) as log:
            rows = log.questions(args.course, args.since)
    if not rows and not report_enabled():
        from ..system_settings import system_settings_path

        print("note: no questions are logged: the instructor's report is off on this PC; turn it on with "
              f"instructor_report = true in {system_settings_path()} (`lantern report --status` says more), "
              "or merge the files of lab PCs with --merge.",
              file=sys.stderr)
    fmt = args.format or _format_of(args.output)
    filters = {"course": args.course, "since": args.since, "guides": course_guides(args.course, rows),
               "languages": course_languages(rows)}
    text = {"html": lambda: report_html(rows, **filters), "csv": lambda: report_csv(rows),
            "json": lambda: report_json(rows, **filters)}[fmt]()
    if args.output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    _write_file(args.output, text)
    print(f"Wrote the report of {len(rows)} question{'' if len(rows) == 1 else 's'} to {args.output}.",
          file=sys.stderr)


def _format_of(output: Path | None) -> str:
    suffix = output.suffix.lower().lstrip(".") if output else ""
    return suffix if suffix in ("csv", "json") else "html"


def _write_file(path: Path, text: str) -> None:
    """Write ``text`` beside ``path`` and rename it into place (never half a file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8", newline="")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise LanternError(f"Cannot write the report to {path} ({exc.strerror or exc}); choose another file.") from exc


REPORT_COMMANDS = {"report": cmd_report}


def course_guides(course: str | None, rows: list) -> tuple[str, ...]:
    """The guide paths of the report's one course (``course``, or the only course of ``rows``) when its
    bundle is installed on this PC (app/bundle/library.py); () otherwise: then "cited least" lists only
    guides cited at least once. Never raises."""
    wanted = course or (rows[0].course_id if rows and len({r.course_id for r in rows}) == 1 else None)
    if not wanted:
        return ()
    try:
        from ..bundle.library import list_courses
        from ..bundle.reader import BundleReader

        for entry in list_courses(verify=False):
            if entry.course_id == wanted and entry.state == "ok":
                reader = BundleReader(entry.path, verify=False)
                try:
                    return tuple(source.path for source in reader.sources())
                finally:
                    reader.close()
    except Exception as exc:  # a damaged library never stops a report
        logger.info("the guides of %s could not be listed: %s", wanted, exc)
    return ()


def course_languages(rows: list) -> dict[str, str]:
    """The language tag of each course of ``rows`` whose bundle is installed on this PC (its
    ``meta['language']``; a usable copy's before an older or damaged one's), for grouping its questions
    into topics in its language; a course not installed, or of unknown language, is left out (then
    its questions are read in the language logged with each, else in English:
    :func:`app.report.topics.language_of`). Never raises."""
    wanted = {row.course_id for row in rows}
    found: dict[str, str] = {}
    if not wanted:
        return found
    try:
        from ..bundle.library import list_courses

        for entry in sorted(list_courses(verify=False), key=lambda e: e.state != "ok"):
            if entry.course_id in wanted and entry.language:
                found.setdefault(entry.course_id, entry.language)
    except Exception as exc:  # a damaged library never stops a report
        logger.info("the languages of the courses could not be read: %s", exc)
    return found
