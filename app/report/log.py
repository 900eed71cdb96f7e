"""The question log behind the instructor's report: one local SQLite file of finished replies.

Each row is one question asked of one course (:class:`LoggedQuestion`): the day (a date, no
time), the course id, its human-readable version and corpus version, the question (at most
:data:`MAX_QUESTION_CHARS` characters), the reply's state, the key terms the evidence gate found
missing, the guides the reply cited, the student's "did this help?" answer, and the course's
language tag (``meta['language']`` of its bundle, when the bundle records one: the report groups the
questions into topics in that language on a PC where the course is not installed). Nothing names
the student or the PC: no account name, machine name, IP address or time of day is stored.

The ``language`` column is optional (schema still 1): a file without it (from an earlier Lantern)
is read with every language unknown, and gets the column, empty, when opened as this PC's log; an
earlier Lantern names the columns it reads and writes, so it still reads, merges and writes a file
with the column (leaving it empty).

The file is in WAL mode with a busy timeout (app/report/logfile.py), so two windows (or a
window and ``lantern ask``) write to it at once, and a process killed mid-write leaves the last
committed rows readable. Rows have a random 32-hex-digit ``id`` made when the question is
logged: it stays the same in exported copies, so merging a file twice adds nothing twice.
Deleted rows are overwritten (``secure_delete``). Rows older than the retention limit are deleted
each time the log is opened.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import apsw

from ..errors import LanternError
from .logfile import connect, describe_error, use_wal, writing

#: The ``log_meta.format`` value that marks a Lantern question log (and an exported copy).
LOG_FORMAT = "lantern-question-log"
#: The schema version written; a file with a higher one was written by a newer Lantern. Adding the
#: optional ``language`` column (older files lack it) kept it at 1.
LOG_SCHEMA = 1
#: Characters of a question kept; a longer one is cut and ends with "…".
MAX_QUESTION_CHARS = 2000
#: At most this many missing terms and cited guides are kept per question, each of at most
#: :data:`MAX_ITEM_CHARS` characters.
MAX_ITEMS = 20
MAX_ITEM_CHARS = 300
#: Default retention limit in days.
DEFAULT_RETENTION_DAYS = 90
#: The reply states of ``lantern ask --json`` (app/records.py) and the four groups the report uses.
REPLY_GROUPS = {"answered": "answered", "extractive": "from the guides", "not-covered": "not covered",
                "declined-off-topic": "declined", "declined-injection": "declined"}

_COLUMNS = ("id", "day", "course_id", "course_version", "corpus_version", "question", "state",
            "missing_terms", "cited", "helped", "language")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS log_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS questions (
    id TEXT PRIMARY KEY, day TEXT NOT NULL, course_id TEXT NOT NULL, course_version TEXT NOT NULL,
    corpus_version TEXT NOT NULL, question TEXT NOT NULL, state TEXT NOT NULL,
    missing_terms TEXT NOT NULL, cited TEXT NOT NULL, helped INTEGER, language TEXT);
CREATE INDEX IF NOT EXISTS questions_day ON questions (day);
"""
_ID = re.compile(r"^[0-9a-f]{32}$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: A language tag as a bundle records it (``fr``, ``es-MX``, ``pt_BR``): what the log keeps of one.
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$")


class LogError(LanternError):
    """The question log (or a file given to merge) cannot be used; the message is one sentence,
    ``why`` a short clause for "logging paused (why)"."""

    def __init__(self, message: str, why: str = "the log file cannot be used") -> None:
        super().__init__(message)
        self.why = why


@dataclass(frozen=True)
class LoggedQuestion:
    """One row of the log. ``day`` is ``YYYY-MM-DD``; ``state`` one of :data:`REPLY_GROUPS`'
    keys; ``missing_terms`` and ``cited`` (guide paths) are tuples of strings; ``helped`` is
    True, False or None (not answered); ``language`` is the course's language tag when the
    question was asked (``fr``, ``es-MX``), '' when unknown (or logged by an earlier Lantern)."""

    id: str
    day: str
    course_id: str
    course_version: str
    corpus_version: str
    question: str
    state: str
    missing_terms: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    helped: bool | None = None
    language: str = ""

    @property
    def group(self) -> str:
        """The reply's state in the report's words: answered, from the guides, not covered, declined."""
        return REPLY_GROUPS.get(self.state, self.state)

    def as_json(self) -> dict:
        return {"id": self.id, "day": self.day, "course_id": self.course_id, "course_version": self.course_version,
                "corpus_version": self.corpus_version, "question": self.question, "state": self.state,
                "reply": self.group, "missing_terms": list(self.missing_terms), "cited": list(self.cited),
                "helped": self.helped, "language": self.language or None}


def cap_question(text: str) -> str:
    """``text`` with runs of white space made one space, cut to :data:`MAX_QUESTION_CHARS` characters."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUESTION_CHARS else text[:MAX_QUESTION_CHARS - 1] + "…"


def new_question(question: str, state: str, *, course_id: str, course_version: str, corpus_version: str,
                 missing_terms=(), cited=(), day: dt.date | None = None, language: str | None = None) -> LoggedQuestion:
    """A new row with a fresh random id, dated ``day`` (default today, local time); the question
    and the lists are capped (:func:`cap_question`, :data:`MAX_ITEMS`, :data:`MAX_ITEM_CHARS`).
    ``language``: the course's language tag; '' or None (unknown), or text that is not a language
    tag, is kept as unknown. Never raises for it."""
    tag = (language or "").strip()
    return LoggedQuestion(id=uuid.uuid4().hex, day=(day or dt.date.today()).isoformat(), course_id=course_id,
                          course_version=course_version, corpus_version=corpus_version,
                          question=cap_question(question), state=state,
                          missing_terms=_capped(missing_terms), cited=_capped(dict.fromkeys(cited)),
                          language=tag if _LANGUAGE.fullmatch(tag) else "")


def _capped(items) -> tuple[str, ...]:
    return tuple(str(item)[:MAX_ITEM_CHARS] for item in list(items)[:MAX_ITEMS])


def _exists_problem(path: Path) -> str:
    """Why ``path`` cannot hold the log ('' when it can)."""
    if path.is_dir():
        return f"{path} is a folder"
    if not path.parent.is_dir():
        return f"the folder {path.parent} does not exist"
    return ""


class QuestionLog:
    """The log file at ``path`` (created with its folder if missing), opened for reading and
    writing; rows older than ``retention_days`` days (before ``today`` minus that many days) are
    deleted on open. Raises :class:`LogError` (one sentence) when the file cannot be opened or
    created, is not a Lantern question log, or was written by a newer Lantern."""

    def __init__(self, path: Path, retention_days: int = DEFAULT_RETENTION_DAYS, *,
                 today: dt.date | None = None) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = connect(self.path)
            with writing(self.conn):  # a foreign file is refused before anything of it changes
                self.conn.execute(_SCHEMA)
                _check_format(self.conn, self.path, create=True)
                if not _has_language(self.conn):  # a log written before the column existed
                    self.conn.execute("ALTER TABLE questions ADD COLUMN language TEXT")
            use_wal(self.conn)
            self.conn.execute("PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON")
            self.apply_retention(retention_days, today=today)
        except (apsw.Error, OSError, LogError) as exc:
            if getattr(self, "conn", None) is not None:
                self.conn.close()
            if isinstance(exc, LogError):
                raise
            raise LogError(_open_problem(self.path, exc), why=describe_error(exc)) from exc

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "QuestionLog":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def add(self, row: LoggedQuestion) -> None:
        """Write ``row`` (committed before returning). Raises ``apsw.Error`` (a full disk, a
        read-only file, a lock held past the busy timeout)."""
        with writing(self.conn):
            _insert(self.conn, row)

    def set_helped(self, row_id: str, helped: bool) -> bool:
        """Record the "did this help?" answer of row ``row_id``; False when there is no such row
        (purged meanwhile). Raises ``apsw.Error`` as :meth:`add`."""
        with writing(self.conn):
            self.conn.execute("UPDATE questions SET helped = ? WHERE id = ?", (int(helped), row_id))
            return self.conn.changes() > 0

    def questions(self, course: str | None = None, since: dt.date | None = None) -> list[LoggedQuestion]:
        """The rows, oldest day first, of course ``course`` (None: every course) from day ``since`` on."""
        return _select(self.conn, course, since)

    def purge(self, course: str | None = None) -> int:
        """Delete every row (of ``course`` only, when given) and shrink the file so the deleted
        text is gone from it; returns how many rows were deleted."""
        with writing(self.conn):
            if course:
                self.conn.execute("DELETE FROM questions WHERE course_id = ?", (course,))
            else:
                self.conn.execute("DELETE FROM questions")
            deleted = self.conn.changes()
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        self.conn.execute("VACUUM")
        return deleted

    def apply_retention(self, days: int, *, today: dt.date | None = None) -> int:
        """Delete the rows older than ``days`` days; returns how many."""
        cutoff = ((today or dt.date.today()) - dt.timedelta(days=max(1, days))).isoformat()
        with writing(self.conn):
            self.conn.execute("DELETE FROM questions WHERE day < ?", (cutoff,))
            return self.conn.changes()

    def export(self, dest: Path, course: str | None = None, since: dt.date | None = None) -> int:
        """Write the rows (filtered as :meth:`questions`) to a new single-file log at ``dest``
        (written beside it and renamed into place: never half a file); returns the row count.
        Raises :class:`LogError` when ``dest`` cannot be written."""
        rows = self.questions(course, since)
        dest = Path(dest)
        problem = _exists_problem(dest)
        if problem or dest.resolve() == self.path.resolve():
            raise LogError(f"Cannot export to {dest}: {problem or 'it is the log itself'}; give a new file name, "
                           "for example on a USB stick.")
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        try:
            conn = connect(tmp)
            try:
                conn.execute("PRAGMA journal_mode=DELETE").fetchall()
                with writing(conn):
                    conn.execute(_SCHEMA)
                    _check_format(conn, tmp, create=True)
                    for row in rows:
                        _insert(conn, row)
            finally:
                conn.close()
            os.replace(tmp, dest)
        except (apsw.Error, OSError) as exc:
            tmp.unlink(missing_ok=True)
            raise LogError(f"Cannot export to {dest} ({describe_error(exc)}); nothing was written. Check that the "
                           "drive is writable and has room.") from exc
        return len(rows)

    def merge(self, source: Path, retention_days: int = DEFAULT_RETENTION_DAYS, *,
              today: dt.date | None = None) -> tuple[int, int]:
        """Add the rows of the exported log ``source`` that this log lacks (by id; a "did this
        help?" answer it has and this log lacks is taken over). Returns ``(added, known)``: rows
        added, and rows already here or older than the retention limit. All or nothing: raises
        :class:`LogError` (one sentence, nothing merged) when ``source`` is not a readable
        Lantern question log or holds a row that is not valid."""
        rows = read_export(source)
        cutoff = ((today or dt.date.today()) - dt.timedelta(days=max(1, retention_days))).isoformat()
        added = 0
        with writing(self.conn):
            for row in rows:
                if row.day < cutoff:
                    continue
                have = self.conn.execute("SELECT helped FROM questions WHERE id = ?", (row.id,)).fetchall()
                if not have:
                    _insert(self.conn, row)
                    added += 1
                elif have[0][0] is None and row.helped is not None:
                    self.conn.execute("UPDATE questions SET helped = ? WHERE id = ?", (int(row.helped), row.id))
        return added, len(rows) - added


def _insert(conn: apsw.Connection, row: LoggedQuestion) -> None:
    conn.execute(f"INSERT INTO questions ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                 (row.id, row.day, row.course_id, row.course_version, row.corpus_version, row.question, row.state,
                  json.dumps(list(row.missing_terms), ensure_ascii=False),
                  json.dumps(list(row.cited), ensure_ascii=False), None if row.helped is None else int(row.helped),
                  row.language or None))


def _has_language(conn: apsw.Connection) -> bool:
    """Whether the ``questions`` table has the optional ``language`` column."""
    return any(column[1] == "language" for column in conn.execute("PRAGMA table_info(questions)"))


def _selected(conn: apsw.Connection) -> str:
    """The columns to select, in :data:`_COLUMNS`' order: NULL for a missing ``language``."""
    return ", ".join(_COLUMNS if _has_language(conn) else (*_COLUMNS[:-1], "NULL"))


def _select(conn: apsw.Connection, course: str | None, since: dt.date | None) -> list[LoggedQuestion]:
    sql = f"SELECT {', '.join(_COLUMNS)} FROM questions WHERE (? IS NULL OR course_id = ?) AND day >= ? ORDER BY day, id"
    found = conn.execute(sql, (course, course, since.isoformat() if since else "")).fetchall()
    return [_row(values) for values in found]


def _row(values) -> LoggedQuestion:
    """A row read back; raises ValueError (or TypeError) when a value is not what the log writes."""
    row_id, day, course_id, course_version, corpus_version, question, state, missing, cited, helped, language = values
    texts = (day, course_id, course_version, corpus_version, question, state, missing, cited)
    if not (isinstance(row_id, str) and _ID.match(row_id) and all(isinstance(t, str) for t in texts)):
        raise ValueError("a row's id or text is not valid")
    if not _DAY.match(day) or state not in REPLY_GROUPS or helped not in (None, 0, 1):
        raise ValueError(f"row {row_id} has a day, state or helped value the log never writes")
    if language is not None and not (isinstance(language, str) and _LANGUAGE.fullmatch(language)):
        raise ValueError(f"row {row_id} has a language the log never writes")
    missing_terms, cited_guides = json.loads(missing), json.loads(cited)
    for items in (missing_terms, cited_guides):
        if not (isinstance(items, list) and all(isinstance(i, str) for i in items)):
            raise ValueError(f"row {row_id} has a list the log never writes")
    dt.date.fromisoformat(day)
    return LoggedQuestion(row_id, day, course_id, course_version, corpus_version, cap_question(question), state,
                          _capped(missing_terms), _capped(cited_guides), None if helped is None else bool(helped),
                          language or "")


def _check_format(conn: apsw.Connection, path: Path, *, create: bool) -> None:
    """Raise :class:`LogError` unless ``conn`` holds a question log this Lantern reads
    (``create``: mark an empty one as such)."""
    meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM log_meta")}
    if not meta and create and not conn.execute("SELECT 1 FROM questions LIMIT 1").fetchall():
        conn.execute("INSERT INTO log_meta VALUES ('format', ?), ('schema', ?)", (LOG_FORMAT, str(LOG_SCHEMA)))
        return
    if meta.get("format") != LOG_FORMAT:
        raise LogError(f"{path} is not a Lantern question log; choose the file that `lantern report --export` wrote.")
    schema = meta.get("schema", "")
    if not schema.isdigit() or int(schema) > LOG_SCHEMA:
        raise LogError(f"{path} was written by a newer Lantern (question log schema {schema[:10]}); update Lantern "
                       "on this PC to read it.")


def read_export(source: Path) -> list[LoggedQuestion]:
    """Every row of the question log file ``source``, opened read-only. Raises :class:`LogError`
    (one sentence) when it is missing, not a SQLite file, damaged, not a Lantern question log, or
    holds a row the log never writes."""
    source = Path(source)
    if not source.is_file():
        raise LogError(f"{source} is not a file; give the path of a file that `lantern report --export` wrote.")
    try:
        conn = apsw.Connection(source.resolve().as_uri() + "?mode=ro",
                               flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    except apsw.Error as exc:
        raise LogError(f"{source} cannot be opened ({describe_error(exc)}); nothing was merged.") from exc
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"log_meta", "questions"} <= tables:
            raise LogError(f"{source} is not a Lantern question log; nothing was merged. Give a file that "
                           "`lantern report --export` wrote.")
        _check_format(conn, source, create=False)
        return [_row(v) for v in conn.execute(f"SELECT {_selected(conn)} FROM questions")]
    except (apsw.Error, ValueError, TypeError) as exc:
        why = describe_error(exc) if isinstance(exc, apsw.Error) else str(exc)
        raise LogError(f"{source} is damaged or not a Lantern question log ({why}); nothing was merged. "
                       "Export it again from its PC.") from exc
    finally:
        conn.close()


def _open_problem(path: Path, exc: BaseException) -> str:
    return f"The question log {path} cannot be used ({describe_error(exc)}); delete or move it, or check that the drive has room."
