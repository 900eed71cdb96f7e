"""The SQLite mechanics of the question log (app/report/log.py): opening the file with a busy
timeout, WAL mode, write transactions, and a short clause for what went wrong.

Several windows (and ``lantern ask``) write one log at once, so every writer waits up to
:data:`BUSY_TIMEOUT_MS` for another's write instead of failing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

#: Milliseconds a writer waits for another process's write to finish before giving up.
BUSY_TIMEOUT_MS = 5000
#: Seconds between two tries of the switch to WAL (see :func:`use_wal`).
WAL_RETRY_S = 0.05


def connect(path: Path) -> apsw.Connection:
    """A connection to ``path`` (created when missing) with the busy timeout set. Raises
    ``apsw.Error`` when the file cannot be opened."""
    conn = apsw.Connection(str(path))
    conn.setbusytimeout(BUSY_TIMEOUT_MS)
    return conn


def use_wal(conn: apsw.Connection) -> None:
    """Put the log in WAL mode (kept in the file, so done once per log). Switching needs a lock
    no other connection holds, and SQLite can answer BUSY at once, without the busy timeout,
    while another window opens the same new log (a CI run of 2026-12-02 lost a writer so); the
    switch is retried every :data:`WAL_RETRY_S` seconds for up to :data:`BUSY_TIMEOUT_MS`.
    Raises ``apsw.BusyError`` past that."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if str(conn.execute("PRAGMA journal_mode").fetchall()[0][0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except apsw.BusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_S)


@contextmanager
def writing(conn: apsw.Connection) -> Iterator[None]:
    """A write transaction that takes the write lock at once (``BEGIN IMMEDIATE``, waiting up to
    the busy timeout for another writer): committed at the end, rolled back on an exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def describe_error(exc: BaseException) -> str:
    """A short clause saying what went wrong: "the disk is full", "it is read-only", …"""
    if isinstance(exc, apsw.NotADBError):
        return "not a database file"
    if isinstance(exc, apsw.CorruptError):
        return "the file is damaged"
    if isinstance(exc, apsw.FullError):
        return "the disk is full"
    if isinstance(exc, (apsw.ReadOnlyError, PermissionError)):
        return "it is read-only"
    if isinstance(exc, OSError):
        return exc.strerror or exc.__class__.__name__
    return str(exc).split(":")[-1].strip() or exc.__class__.__name__
