"""Whether the instructor's report is on, where its log lives, and the recorder that the CLI's
``ask`` and the window call when a reply finishes.

The report is off by default. It is on when the settings say ``instructor_report`` (the lab-wide
file of app/system_settings.py decides it when it sets it, else the user's file)
or the environment has ``LANTERN_REPORT=1`` (for scripted checks; ``LANTERN_REPORT=0`` turns it
off whatever the settings say). The log is ``questions.sqlite`` in ``$LANTERN_REPORT_DIR``, or in
a ``report`` folder beside the settings file (:func:`app.config.settings_path`).

A log that cannot be written (a full disk, a read-only folder, a damaged file) never stops an
answer: the recorder says "logging paused" once, through its ``on_pause`` callback, and drops the
rows until a write works again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import apsw

from ..config import Settings, settings_path
from ..records import Answer
from .log import DEFAULT_RETENTION_DAYS, LogError, QuestionLog, describe_error, new_question

log = logging.getLogger(__name__)

#: What the window says, under the question box, while the report is on.
KEPT_NOTICE = "Questions are kept on this PC for your instructor, without your name."
#: Said once when the log cannot be written; ``{why}`` is one clause.
PAUSED_WORDS = "Logging for the instructor's report is paused ({why}); answers go on as usual."


def report_enabled(settings: Settings | None = None) -> bool:
    """True when the report is on: ``$LANTERN_REPORT`` (``1``/``true``/``yes``/``on`` or
    ``0``/``false``/``no``/``off``) when set, else the settings' ``instructor_report`` (app/config.py)."""
    env = os.environ.get("LANTERN_REPORT", "").strip().lower()
    if env in ("1", "true", "yes", "on"):
        return True
    if env in ("0", "false", "no", "off"):
        return False
    return bool((settings or Settings.load()).instructor_report)


def retention_days(settings: Settings | None = None) -> int:
    """The settings file's ``report_retention_days`` (default :data:`DEFAULT_RETENTION_DAYS`)."""
    return int((settings or Settings.load()).report_retention_days or DEFAULT_RETENTION_DAYS)


def log_path() -> Path:
    """The question log file (it may not exist yet)."""
    override = os.environ.get("LANTERN_REPORT_DIR")
    folder = Path(override) if override else settings_path().parent / "report"
    return folder / "questions.sqlite"


def open_log(path: Path | None = None, settings: Settings | None = None) -> QuestionLog:
    """The question log at ``path`` (default :func:`log_path`) with the settings' retention limit
    applied. Raises :class:`~app.report.log.LogError`."""
    return QuestionLog(path or log_path(), retention_days(settings))


class ReplyRecorder:
    """Writes finished replies to the log at ``path`` (opened at the first write). Every write
    problem is caught: ``on_pause(sentence)`` is called once (:data:`PAUSED_WORDS`) and the row is
    dropped. Not thread-safe: use it from one thread (the GUI thread, or the CLI)."""

    def __init__(self, path: Path | None = None, *, retention: int | None = None,
                 on_pause: Callable[[str], None] | None = None) -> None:
        self.path = path or log_path()
        self.retention = retention or retention_days()
        self.on_pause = on_pause
        self.paused = False
        self._said = False
        self._log: QuestionLog | None = None

    def record(self, meta: dict, bundle_path: Path, question: str, answer: Answer) -> str | None:
        """Log ``answer`` to ``question`` asked of the bundle with ``meta`` at ``bundle_path`` (with
        the course's language tag, ``meta['language']``, when it has one); returns the row's id, or
        None when the log could not be written."""
        from ..bundle.library import bundle_identity

        who = bundle_identity(meta, bundle_path)
        row = new_question(question, answer.state, course_id=who.course_id, course_version=who.course_version,
                           corpus_version=answer.corpus_version or who.corpus_version,
                           missing_terms=answer.missing_terms, cited=[p.hit.source for p in answer.citations],
                           language=str(meta.get("language") or ""))
        return row.id if self._write(lambda lg: lg.add(row)) else None

    def feedback(self, row_id: str, helped: bool) -> bool:
        """Keep the "did this help?" answer for row ``row_id``; False when it could not be kept."""
        return bool(self._write(lambda lg: lg.set_helped(row_id, helped)))

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def _write(self, action: Callable[[QuestionLog], object]) -> object:
        try:
            if self._log is None:
                self._log = QuestionLog(self.path, self.retention)
            result = action(self._log)
        except LogError as exc:
            self._pause(exc.why)
            return None
        except (apsw.Error, OSError) as exc:
            self.close()  # reopened at the next write: the disk may have room again
            self._pause(describe_error(exc))
            return None
        self.paused = False
        return result if result is not None else True

    def _pause(self, why: str) -> None:
        self.paused = True
        log.warning("question log paused: %s", why)
        if not self._said and self.on_pause is not None:
            self._said = True
            self.on_pause(PAUSED_WORDS.format(why=why))


def record_cli_reply(bundle, question: str, answer: Answer) -> None:
    """``lantern ask``'s hook: log the reply when the report is on; a write problem is one
    ``note:`` line on stderr, and the answer is printed as usual."""
    if not report_enabled():
        return
    import sys

    recorder = ReplyRecorder(on_pause=lambda text: print(f"note: {text}", file=sys.stderr))
    try:
        recorder.record(bundle.meta, bundle.path, question, answer)
    finally:
        recorder.close()
