"""Bundle schema (version 1) and the one place that opens SQLite with sqlite-vec.

Tables (DESIGN.md, "The corpus bundle"):
- ``meta(key, value)``: schema and corpus version, build time, chunker settings,
  embedding model id/dimension/checksum, lexical index parameters (``lexical``: BM25 settings,
  ``tokenizer_version`` and, from tokenizer version 3, the ``stemmer`` the index was cut with,
  app/text/tokenize.py), library versions;
- ``sources``: one row per guide (path relative to the course root, title, kind,
  language, sha256 and size in bytes of the file, decoded text for the viewer);
- ``headings``: every heading of every guide (for the viewer and table of contents);
- ``chunks``: chunk key, source, heading path, anchor, ordinal, character span,
  text, indexed text and the sha256 of the indexed text;
- ``chunks_fts``: FTS5 over (heading path, text), rowid = chunk id;
- ``chunk_vectors``: sqlite-vec ``vec0`` of ``float[dim]`` embeddings, cosine distance;
- ``assets``: images the guides reference (path, MIME type, bytes);
- ``lexical_index``: the serialized bm25s index files;
- ``vector_blocks``: the same embeddings as ``chunk_vectors``, as contiguous ``float32``
  row-major blocks of :data:`VECTOR_BLOCK_ROWS` chunks (row ``id - first_id``; zeros for ids
  without a vector), so the app reads every vector in a few large reads at start-up
  instead of one row at a time. Optional: bundles written before it have only ``chunk_vectors``;
- ``block_vectors``: the embedding of every answer block of every chunk, keyed by a hash of its
  text (app/bundle/block_vectors.py), so a question's evidence need not embed them. Optional.

``meta.content_digest`` (:func:`content_digest`) is a sha256 over every table but the FTS5
index, written last by the builder and checked by the reader at open. Bundles written
before it lack the key and are checked with ``PRAGMA integrity_check`` only.
"""

from __future__ import annotations

import hashlib

import apsw
import sqlite_vec

#: The bundle format this app writes. Bump it whenever a table or a ``meta`` key the app relies on
#: is added or changed, and say here what changed:
#: 1: sources, headings, chunks, chunks_fts, chunk_vectors, assets, lexical_index, meta
#:    (``vector_blocks`` appeared later in version-1 bundles without a bump; the reader treats it
#:    as optional);
#: 2: ``vector_blocks`` always written; ``meta`` gains ``content_digest`` (checked at open),
#:    ``course_id`` and ``course_version``. Later version-2 bundles may also hold ``language``
#:    (the course's BCP 47 language tag), an optional key: absent means unknown, and an app that
#:    does not know it ignores it, so it came without a bump. Later ones also hold ``planted_blocks``
#:    (app/ingest/screen.py: the guide blocks that address the assistant, never quoted nor sent to the
#:    model), optional in the same way: absent, this app screens the guides when it answers. Later
#:    ones also hold the ``block_vectors`` table (app/bundle/block_vectors.py), optional too: absent,
#:    the app embeds the blocks it compares when a question arrives.
SCHEMA_VERSION = 2
#: The oldest format this app still reads (every later table or key is optional to the reader).
OLDEST_READABLE_SCHEMA = 1
#: Chunks per ``vector_blocks`` row: 8,192 x 384 float32 = 12.6 MB, well under SQLite's 1 GB
#: default blob limit, whatever the course size.
VECTOR_BLOCK_ROWS = 8192


def connect(path: str, *, read_only: bool) -> apsw.Connection:
    """Open a bundle with the sqlite-vec extension loaded.

    Read-only connections use ``mode=ro&immutable=1`` so a bundle on read-only media or
    a shared folder opens without locks. Raises ``apsw.Error`` subclasses as apsw does.
    """
    from pathlib import Path

    if read_only:
        uri = Path(path).resolve().as_uri() + "?mode=ro&immutable=1"
        conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    else:
        conn = apsw.Connection(str(path))
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    return conn


def create_tables(conn: apsw.Connection, dim: int) -> None:
    """Create the empty schema for embeddings of ``dim`` dimensions."""
    conn.execute(f"""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, title TEXT NOT NULL, kind TEXT NOT NULL,
            language TEXT NOT NULL, sha256 TEXT NOT NULL, size_bytes INTEGER NOT NULL, text TEXT NOT NULL);
        CREATE TABLE headings (
            source_id INTEGER NOT NULL REFERENCES sources(id), level INTEGER NOT NULL, text TEXT NOT NULL,
            anchor TEXT NOT NULL, start INTEGER NOT NULL, PRIMARY KEY (source_id, anchor));
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, source_id INTEGER NOT NULL REFERENCES sources(id),
            heading TEXT NOT NULL, anchor TEXT NOT NULL, ordinal INTEGER NOT NULL,
            start INTEGER NOT NULL, end INTEGER NOT NULL, text TEXT NOT NULL, indexed_text TEXT NOT NULL,
            sha256 TEXT NOT NULL);
        CREATE INDEX chunks_source ON chunks(source_id);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(heading, text, tokenize = 'unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE chunk_vectors USING vec0(embedding float[{int(dim)}] distance_metric=cosine);
        CREATE TABLE assets (path TEXT PRIMARY KEY, mime TEXT NOT NULL, sha256 TEXT NOT NULL, data BLOB NOT NULL);
        CREATE TABLE lexical_index (name TEXT PRIMARY KEY, data BLOB NOT NULL);
        CREATE TABLE vector_blocks (first_id INTEGER PRIMARY KEY, count INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE TABLE block_vectors (key BLOB PRIMARY KEY, embedding BLOB NOT NULL) WITHOUT ROWID;
    """)


def quote_fts(text: str) -> str:
    """Quote user text as one FTS5 string (phrase): double quotes are doubled.

    Used for every user-supplied string that reaches ``MATCH`` (cf. sqlite-utils'
    ``quote_fts``), so ``C++``, ``AND``, ``"`` and ``-v`` are searched as text.
    """
    return '"' + text.replace('"', '""') + '"'


#: ``meta`` key of the bundle's content digest (:func:`content_digest`), written last by the builder.
CONTENT_DIGEST_KEY = "content_digest"
#: The tables the content digest covers, each read in the order of its key: everything the app
#: reads, including the FTS5 copy of the chunk text that guide search shows as snippets. The FTS5
#: inverted index is left out: SQLite's ``PRAGMA integrity_check`` verifies it (and every b-tree
#: and index) at open.
_DIGEST_TABLES = (("meta", "key", "*"), ("sources", "id", "*"), ("headings", "source_id, anchor", "*"),
                  ("chunks", "id", "*"), ("chunks_fts_content", "id", "*"), ("assets", "path", "*"),
                  ("lexical_index", "name", "*"), ("vector_blocks", "first_id", "*"), ("block_vectors", "key", "*"),
                  ("chunk_vectors", "rowid", "rowid, embedding"))


def _encode_value(value) -> bytes:
    """One SQLite value as bytes that cannot be confused with another value or type."""
    if isinstance(value, bytes):
        return b"b%d:" % len(value) + value
    if value is None:
        return b"n:"
    if isinstance(value, int):
        return b"i%d:" % value
    if isinstance(value, float):
        return b"f" + value.hex().encode("ascii") + b":"
    data = str(value).encode("utf-8", "surrogatepass")
    return b"s%d:" % len(data) + data


def content_digest(conn: apsw.Connection) -> str:
    """Hex sha256 over every row of the bundle's tables (``_DIGEST_TABLES``) except the
    ``content_digest`` entry of ``meta``: the guides, headings, chunks, images, lexical index
    and vectors, so a changed byte in any of them changes the digest. A table the bundle lacks
    (``vector_blocks`` in older bundles) is skipped. About 60 ms for the 17 MB IoT bundle
    (1,881 chunks) on a 2-core PC. Raises ``apsw.Error`` when a damaged file cannot be read.
    """
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    digest = hashlib.sha256()
    for table, order, columns in _DIGEST_TABLES:
        if table not in present:
            continue
        digest.update(b"t" + table.encode("ascii") + b":")
        for row in conn.execute(f"SELECT {columns} FROM {table} ORDER BY {order}"):
            if table == "meta" and row[0] == CONTENT_DIGEST_KEY:
                continue
            digest.update(b"".join(_encode_value(v) for v in row))
    return digest.hexdigest()
