"""The checks :class:`~app.bundle.reader.BundleReader` runs when it opens a bundle, one step each.

Each step raises :class:`BundleError` (or :class:`UnsafeBundleError`) with one sentence naming the
file and the fix; the reader runs them in the order of its class docstring.
"""

from __future__ import annotations

import json
from pathlib import Path

import apsw

from ..errors import BundleError, UnsafeBundleError
from .checks import span_problems, structure_problems
from .schema import CONTENT_DIGEST_KEY, OLDEST_READABLE_SCHEMA, SCHEMA_VERSION, connect, content_digest

_REQUIRED_TABLES = {"meta", "sources", "headings", "chunks", "chunks_fts", "chunk_vectors", "assets", "lexical_index"}
_REQUIRED_META = ("corpus_version", "embedding_model_id", "embedding_dim", "embedding_checksum")


def check_file(path: Path) -> None:
    """Refuse a ``path`` that does not exist, is not a file, or is empty (0 bytes)."""
    if not path.exists():
        raise BundleError(f"The course bundle {path} does not exist; build it with "
                          "`lantern build COURSE_FOLDER -o BUNDLE` or choose another bundle.")
    if not path.is_file():
        raise BundleError(f"{path} is not a file; choose a course bundle (.sqlite) file.")
    if path.stat().st_size == 0:
        raise BundleError(f"The course bundle {path} is an empty file (0 bytes), perhaps from an interrupted "
                          "copy; copy it again or rebuild it with `lantern build`.")


def open_tables(path: Path) -> tuple[apsw.Connection, set[str]]:
    """A read-only connection to ``path`` and the names of its tables; refuses a file SQLite cannot open."""
    try:
        conn = connect(str(path), read_only=True)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")}
    except apsw.Error as exc:
        why = ("it is not a database file" if isinstance(exc, apsw.NotADBError)
               else "it is damaged" if isinstance(exc, apsw.CorruptError) else "it cannot be opened")
        raise BundleError(f"{path} is not a readable course bundle ({why}); "
                          "rebuild it with `lantern build` or choose another file.") from exc
    return conn, tables


def read_meta(conn: apsw.Connection, tables: set[str], path: Path) -> dict[str, str]:
    """The ``meta`` table as ``{key: value}``; refuses a file without Lantern's tables or with an unreadable meta."""
    missing = _REQUIRED_TABLES - tables
    if missing:
        raise BundleError(f"{path} is not a Lantern course bundle (missing {', '.join(sorted(missing))}); "
                          "rebuild it with `lantern build`.")
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except (apsw.Error, UnicodeDecodeError) as exc:
        raise BundleError(f"The course bundle {path} is corrupted ({exc}); rebuild it with `lantern build`.") from exc


def check_meta(meta: dict[str, str], path: Path) -> int:
    """Check the schema version, the required keys, the tokenizer version and the embedding
    dimension recorded in ``meta``; returns the dimension."""
    _check_schema_version(meta, path)
    for key in _REQUIRED_META:
        if key not in meta:
            raise BundleError(f"The course bundle {path} lacks `{key}` in its meta table (an interrupted "
                              "or foreign build); rebuild it with `lantern build`.")
    _check_tokenizer_version(meta, path)
    dim = meta["embedding_dim"]
    if not (dim.isdigit() and 0 < int(dim) <= 65536):
        raise BundleError(f"The course bundle {path} records an embedding dimension of {dim[:20]!r}, not a "
                          "number of dimensions (an interrupted or foreign build); rebuild it with `lantern build`.")
    return int(dim)


def _check_schema_version(meta: dict[str, str], path: Path) -> None:
    """Refuse a bundle schema newer or older than this app reads."""
    schema = meta.get("schema_version", "?")
    version = int(schema) if schema.isdigit() else -1
    if version > SCHEMA_VERSION:
        raise BundleError(f"The course bundle {path} was built by a newer Lantern (bundle schema version "
                          f"{schema}; this app reads versions {OLDEST_READABLE_SCHEMA} to {SCHEMA_VERSION}); "
                          "update Lantern, or rebuild the bundle with this version.")
    if version < OLDEST_READABLE_SCHEMA:
        raise BundleError(f"The course bundle {path} has bundle schema version {schema}, older than this "
                          f"app reads (versions {OLDEST_READABLE_SCHEMA} to {SCHEMA_VERSION}); rebuild it with "
                          "`lantern build`.")


def _check_tokenizer_version(meta: dict[str, str], path: Path) -> None:
    """Refuse a bundle indexed with a tokenizer version this app does not search with."""
    from ..text.tokenize import OLDEST_TOKENIZER_VERSION, TOKENIZER_VERSION

    try:
        built_with = json.loads(meta.get("lexical", "{}")).get("tokenizer_version")
    except (ValueError, AttributeError):
        built_with = None
    if type(built_with) is not int or not OLDEST_TOKENIZER_VERSION <= built_with <= TOKENIZER_VERSION:
        raise BundleError(f"The course bundle {path} was indexed with tokenizer version {built_with}; this app "
                          f"searches with versions {OLDEST_TOKENIZER_VERSION} to {TOKENIZER_VERSION}. Rebuild the "
                          "bundle with this version of Lantern.")


def check_structure(conn: apsw.Connection, path: Path, dim: int, *, chunks: bool) -> None:
    """Raise :class:`UnsafeBundleError` when the bundle holds what the format does not allow:
    a path that is not relative and inside the course, a schema object the format does not
    define, a text over its size limit (app/bundle/checks.py). A few ms: it reads the schema,
    the path columns and the sizes of the stored texts, not the texts; the chunk sizes (a scan
    of the chunk rows) only with ``chunks`` (for bundles :func:`verify_contents` checks too)."""
    try:
        problems = structure_problems(conn, dim, chunks=chunks)
    except (apsw.Error, UnicodeDecodeError) as exc:
        detail = exc.__class__.__name__ if isinstance(exc, UnicodeDecodeError) else (str(exc).splitlines() or [""])[0]
        raise BundleError(f"The course bundle {path} is damaged ({detail or exc.__class__.__name__}); "
                          "copy it again or rebuild it with `lantern build`.") from exc
    if problems:
        raise UnsafeBundleError(f"The course bundle {path} is refused because {problems[0]}; rebuild it "
                                "with `lantern build` from the course folder, or get a good copy from its author.")


def verify_contents(conn: apsw.Connection, path: Path, meta: dict[str, str]) -> None:
    """Raise :class:`BundleError` when the file is damaged: SQLite's integrity check, the content
    digest recorded at build time and the chunks' character spans (see the reader's docstring)."""
    fix = "copy it again or rebuild it with `lantern build`"
    try:
        sqlite_check = [line for r in conn.execute("PRAGMA integrity_check(3)") for line in str(r[0]).splitlines()]
        recorded = meta.get(CONTENT_DIGEST_KEY)
        actual = content_digest(conn) if recorded and sqlite_check == ["ok"] else recorded
        spans = span_problems(conn) if sqlite_check == ["ok"] and actual == recorded else []
    except apsw.Error as exc:
        detail = (str(exc).splitlines() or [""])[0] or exc.__class__.__name__
        raise BundleError(f"The course bundle {path} is damaged ({detail}); {fix}.") from exc
    except UnicodeDecodeError as exc:  # a changed byte inside stored text
        raise BundleError(f"The course bundle {path} is damaged (stored text is not valid UTF-8); "
                          f"{fix}.") from exc
    if sqlite_check != ["ok"]:
        raise BundleError(f"The course bundle {path} is damaged (SQLite's integrity check reports: "
                          f"{sqlite_check[0]}); {fix}.")
    if actual != recorded:
        raise BundleError(f"The course bundle {path} is damaged (its contents differ from the digest recorded "
                          f"when it was built); {fix}.")
    if spans:
        raise BundleError(f"The course bundle {path} is damaged ({spans[0]}); rebuild it with `lantern build`.")
