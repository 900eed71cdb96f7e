"""What a bundle may hold, checked before the app reads it (issue 23): safe paths, the schema
objects of the format and nothing else, and bounded text sizes.

A bundle comes from outside (a USB stick, a shared folder) and its content digest proves only
that it is the file that was built, not that whoever built it meant well. These checks keep a
crafted bundle from hanging or exhausting the app, and run wherever a bundle is opened
(:class:`app.bundle.reader.BundleReader`, so also ``search``, ``ask``, the window, ``inspect``,
``courses`` and ``install``):

- **paths**: every guide path (``sources.path``, which chunks reach through ``source_id``) and
  every image path (``assets.path``) is a relative POSIX path inside the course
  (:func:`path_problem`);
- **schema objects**: ``sqlite_schema`` holds only the tables and indexes of
  :func:`app.bundle.schema.create_tables` (same SQL, whitespace aside) and the shadow tables
  FTS5 and sqlite-vec make for them; no trigger, view, extra table or index
  (:func:`schema_problems`);
- **sizes**: no guide text over :data:`MAX_GUIDE_TEXT_BYTES` and no chunk text over
  :data:`MAX_CHUNK_TEXT_BYTES`, measured with SQL ``octet_length()`` before any text is fetched
  (:func:`size_problems`).

The builder applies the same path and size rules when it reads a course folder (plan.py), so it
never writes a bundle the app would refuse.
"""

from __future__ import annotations

import re
from functools import lru_cache

import apsw

#: Longest path (characters) a bundle may store for a guide or image; the longest in the corpora
#: of ../shared is 124 (IoT for Beginners; large-docs' is 122).
MAX_PATH_CHARS = 1024
#: Most ``/``-separated parts of a stored path; the corpora of ../shared use at most 8.
MAX_PATH_PARTS = 64
#: Largest stored text of one guide, in bytes of UTF-8 (16 MiB). The largest guide of the
#: corpora in ../shared is large-docs' msvc-cpp-docs/docs/mfc/reference/cwnd-class.md, 557,541
#: bytes (about 30 times less); the builder reads no file over 8 MiB (``MAX_FILE_BYTES``), whose
#: text stays under this even when decoded from a one-byte legacy encoding.
MAX_GUIDE_TEXT_BYTES = 16 << 20
#: Largest stored text of one chunk, in bytes of UTF-8 (256 KiB). Chunks aim at 1,200
#: characters; the largest of large-docs' 107,829 chunks is 1,835 bytes (IoT's: 1,409).
MAX_CHUNK_TEXT_BYTES = 256 << 10
#: Largest stored answer-block vector, in bytes (app/bundle/block_vectors.py): float16 of up to 8,192
#: dimensions (MiniLM's 384 take 768 bytes). Larger is refused at open, before the content digest reads it.
MAX_BLOCK_VECTOR_BYTES = 16 << 10

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Shadow tables FTS5 makes for ``chunks_fts`` and sqlite-vec (0.1.x) for ``chunk_vectors``.
_SHADOW = re.compile(r"^(?:chunks_fts_(?:data|idx|content|docsize|config)"
                     r"|chunk_vectors_(?:info|chunks|rowids|auxiliary|vector_chunks\d{2}|metadatachunks\d{2}"
                     r"|metadatatext\d{2}))$")
_AUTOINDEX = re.compile(r"^sqlite_autoindex_(.+)_\d+$")


def path_problem(path: object) -> str:
    """What makes ``path`` unfit as a path stored in a bundle, as a phrase (``'/etc/shadow' is an
    absolute path``), or '' when it is a relative POSIX path inside the course: a string of at most
    :data:`MAX_PATH_CHARS` characters, without control characters (NUL included) or backslashes,
    not starting with ``/`` or a drive letter (``C:``), and of at most :data:`MAX_PATH_PARTS`
    ``/``-separated parts none of which is empty, ``.`` or ``..``. Never raises."""
    if not isinstance(path, str):
        return f"{path!r} is not text"
    if not path:
        return "a path is empty"
    shown = repr(path[:80] + ("…" if len(path) > 80 else ""))
    if len(path) > MAX_PATH_CHARS:
        return f"{shown} is {len(path):,} characters long (at most {MAX_PATH_CHARS:,})"
    if _CONTROL.search(path):
        return f"{shown} contains a control character"
    if "\\" in path:
        return f"{shown} contains a backslash"
    if path.startswith("/"):
        return f"{shown} is an absolute path"
    if _DRIVE.match(path):
        return f"{shown} starts with a drive letter"
    parts = path.split("/", MAX_PATH_PARTS)
    if len(parts) > MAX_PATH_PARTS:
        return f"{shown} has more than {MAX_PATH_PARTS} folder levels"
    if any(part in ("", ".", "..") for part in parts):
        return f"{shown} has an empty, '.' or '..' part"
    return ""


def path_problems(conn: apsw.Connection) -> list[str]:
    """One phrase per table whose stored paths are unfit (:func:`path_problem`): the first bad
    guide path and the first bad image path, with how many there are. Reads only the path columns.
    Raises ``apsw.Error`` as apsw does."""
    out: list[str] = []
    for table, what in (("sources", "guide"), ("assets", "image")):
        bad = [p for p in (path_problem(r[0]) for r in conn.execute(f"SELECT path FROM {table}")) if p]
        if bad:
            more = f" (and {len(bad) - 1:,} more)" if len(bad) > 1 else ""
            out.append(f"the {what} path {bad[0]}{more}; paths in a bundle must be relative paths inside the course")
    return out


@lru_cache(maxsize=8)
def reference_schema(dim: int) -> dict[tuple[str, str], str | None]:
    """``{(type, name): normalised SQL}`` of the schema :func:`app.bundle.schema.create_tables`
    makes for embeddings of ``dim`` dimensions (made once per ``dim`` in memory, a few ms)."""
    from .schema import connect, create_tables

    conn = connect(":memory:", read_only=False)
    try:
        create_tables(conn, dim)
        return {(str(t), str(n)): _normal(s) for t, n, s in conn.execute("SELECT type, name, sql FROM sqlite_schema")}
    finally:
        conn.close()


def _normal(sql: object) -> str | None:
    return " ".join(str(sql).split()) if sql is not None else None


def schema_problems(conn: apsw.Connection, dim: int) -> list[str]:
    """One phrase per schema object of the open bundle that the format does not define: a trigger,
    view, table or index that is not in :func:`reference_schema` (FTS5 and sqlite-vec shadow
    tables and SQLite's automatic indexes of allowed tables excepted), or a table or index of the
    format whose SQL differs (whitespace aside). Missing tables are the reader's check. Raises
    ``apsw.Error`` as apsw does."""
    reference = reference_schema(dim)
    rows = [(str(t), str(n), str(tbl), s) for t, n, tbl, s in
            conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid")]
    tables = {n for t, n, _, _ in rows if t == "table"}
    allowed_tables = {n for (t, n) in reference if t == "table"} | {n for n in tables if _SHADOW.match(n)}
    out: list[str] = []
    for kind, name, table, sql in rows:
        if (kind, name) in reference:
            if kind != "table" or not _SHADOW.match(name):  # shadow tables' SQL is sqlite-vec's/FTS5's own
                if _normal(sql) != reference[(kind, name)]:
                    out.append(f"the {kind} `{name}` is defined differently from the bundle format")
            continue
        if kind == "table" and _SHADOW.match(name):
            continue
        auto = _AUTOINDEX.match(name)
        if kind == "index" and sql is None and auto and table in allowed_tables:
            continue
        out.append(f"it holds {'an' if kind == 'index' else 'a'} {kind} `{name[:60]}` that the bundle format does not define")
    return out


def size_problems(conn: apsw.Connection, *, chunks: bool = True) -> list[str]:
    """One phrase for the largest guide text over :data:`MAX_GUIDE_TEXT_BYTES` and one for the
    largest chunk text over :data:`MAX_CHUNK_TEXT_BYTES` (unless ``chunks`` is False: that scan reads
    every chunk row), measured with ``octet_length()``, which reads a text's size from its record
    header without loading the text. Raises ``apsw.Error`` as apsw does."""
    out: list[str] = []
    for path, size in conn.execute("SELECT path, max(octet_length(text)) FROM sources"):
        if isinstance(size, int) and size > MAX_GUIDE_TEXT_BYTES:
            out.append(f"the guide {str(path)[:80]!r} holds {size:,} bytes of text (at most {MAX_GUIDE_TEXT_BYTES:,})")
    if conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'block_vectors'").fetchall():
        for (size,) in conn.execute("SELECT max(length(embedding)) FROM block_vectors"):
            if isinstance(size, int) and size > MAX_BLOCK_VECTOR_BYTES:
                out.append(f"an answer-block vector holds {size:,} bytes (at most {MAX_BLOCK_VECTOR_BYTES:,})")
    if chunks:
        for chunk_id, size in conn.execute("SELECT id, max(octet_length(text)) FROM chunks"):
            if isinstance(size, int) and size > MAX_CHUNK_TEXT_BYTES:
                out.append(f"chunk {chunk_id} holds {size:,} bytes of text (at most {MAX_CHUNK_TEXT_BYTES:,})")
    return out


def structure_problems(conn: apsw.Connection, dim: int, *, chunks: bool = True) -> list[str]:
    """Every problem of :func:`schema_problems`, :func:`path_problems` and :func:`size_problems`
    (``chunks`` as there), schema first (the other two read tables the schema check vouches for)."""
    problems = schema_problems(conn, dim)
    if problems:
        return problems
    return path_problems(conn) + size_problems(conn, chunks=chunks)


def span_problems(conn: apsw.Connection) -> list[str]:
    """Problems of every chunk's character span (all chunks, not a sample): one phrase for chunks
    whose guide is not in ``sources`` and one for chunks whose ``start`` and ``end`` are not whole
    numbers with ``0 <= start <= end <=`` the length of the guide's text in characters. Reads every
    guide text once (SQL ``length()``, materialised) and every chunk row, about as much as the
    content digest reads. Raises ``apsw.Error`` as apsw does."""
    rows = conn.execute(
        "WITH lens AS MATERIALIZED (SELECT id, length(text) AS n FROM sources) "
        "SELECT lens.id IS NULL, count(*), min(c.id) FROM chunks c LEFT JOIN lens ON lens.id = c.source_id "
        "WHERE lens.id IS NULL OR typeof(c.start) != 'integer' OR typeof(c.end) != 'integer' "
        "OR c.start < 0 OR c.end < c.start OR c.end > lens.n GROUP BY lens.id IS NULL").fetchall()
    out = []
    for orphan, count, first in rows:
        one = count == 1
        what = (f"{'belongs' if one else 'belong'} to no guide in the sources table" if orphan
                else f"{'has' if one else 'have'} a character span outside {'its' if one else 'their'} guide's text")
        out.append(f"{count:,} chunk{'' if one else 's'} {what} (first: chunk {first})")
    return out
