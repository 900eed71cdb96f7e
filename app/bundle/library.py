"""A bundle's identity: course id, human-readable version and content digest (issue 12).

Written once at build time into ``meta`` (by :func:`identity_meta`, called from the builder)
and read back by ``inspect``, ``courses`` and ``install``:

- ``course_id``: a stable, file-name-safe name of the course (``lantern build --id``, default the
  course folder's name made into a slug). Two bundles with one course id are two versions of one
  course.
- ``course_version``: build date and short corpus version, e.g. ``2026-12-01-a482c15b``; for people.
- ``content_digest``: hex sha256 over everything the app reads from the bundle, in a defined order
  (:func:`content_digest`), recomputed by ``install`` to prove the file is the one that was built.

Bundles built before these keys existed still open: their course id is derived from the file
name, their version from ``built_at`` and the corpus version, and they have no digest (not
verifiable).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import apsw

from ..errors import LanternError

#: What a course id may look like: lower-case letters and digits, single hyphens between them,
#: at most 64 characters (safe as a file name on Linux, Windows and macOS).
COURSE_ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
COURSE_ID_MAX = 64
#: Version of the digest's definition, hashed first, so a future change cannot collide.
DIGEST_SCHEME = "lantern-content-digest-1"
#: ``meta`` keys this module writes.
IDENTITY_KEYS = ("course_id", "course_version", "content_digest")


def slugify(name: str) -> str:
    """A course id made from any name: accents dropped, lower-case, every run of other characters
    one hyphen, at most :data:`COURSE_ID_MAX` characters; ``"course"`` when nothing is left."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:COURSE_ID_MAX].strip("-")
    return slug or "course"


def check_course_id(course_id: str) -> str:
    """Return ``course_id`` if it is valid (:data:`COURSE_ID_PATTERN`); raises :class:`LanternError`
    with a suggested valid id otherwise."""
    if len(course_id) <= COURSE_ID_MAX and COURSE_ID_PATTERN.match(course_id):
        return course_id
    raise LanternError(f"The course id {course_id!r} is not valid; use lower-case letters, digits and single "
                       f"hyphens (at most {COURSE_ID_MAX} characters), for example --id {slugify(course_id)}.")


def default_course_id(source_dir: Path) -> str:
    """The course id of a build without ``--id``: the course folder's name as a slug."""
    return slugify(Path(source_dir).resolve().name)


def short_version(built_at: str, corpus_version: str) -> str:
    """``YYYY-MM-DD-xxxxxxxx``: the build date (UTC) and the first 8 hex digits of the corpus version."""
    return f"{built_at[:10]}-{corpus_version[:8]}" if built_at else corpus_version[:8]


def _field(digest, value) -> None:
    """Feed one value to ``digest`` unambiguously: a type letter, the length in bytes, the bytes."""
    if value is None:
        digest.update(b"N0:")
        return
    if isinstance(value, (bytes, bytearray, memoryview)):
        data, kind = bytes(value), b"B"
    elif isinstance(value, int):
        data, kind = str(value).encode("ascii"), b"I"
    elif isinstance(value, float):
        data, kind = repr(value).encode("ascii"), b"F"
    else:
        data, kind = str(value).encode("utf-8"), b"S"
    digest.update(kind + str(len(data)).encode("ascii") + b":" + data)


#: The tables and columns the digest covers, each in a fixed row order. Every row the app reads is
#: here; ``chunks_fts`` is left out because it is an index rebuilt from ``chunks`` (its row ids are
#: checked against ``chunks`` by ``inspect``).
_DIGEST_QUERIES = (
    ("sources", "SELECT path, title, kind, language, sha256, size_bytes, text FROM sources ORDER BY path"),
    ("headings", "SELECT s.path, h.level, h.text, h.anchor, h.start FROM headings h JOIN sources s "
                 "ON s.id = h.source_id ORDER BY s.path, h.start, h.anchor"),
    ("chunks", "SELECT c.id, c.key, s.path, c.heading, c.anchor, c.ordinal, c.start, c.end, c.text, "
               "c.indexed_text, c.sha256 FROM chunks c JOIN sources s ON s.id = c.source_id ORDER BY c.id"),
    ("chunk_vectors", "SELECT rowid, embedding FROM chunk_vectors ORDER BY rowid"),
    ("vector_blocks", "SELECT first_id, count, data FROM vector_blocks ORDER BY first_id"),
    ("assets", "SELECT path, mime, sha256, data FROM assets ORDER BY path"),
    ("lexical_index", "SELECT name, data FROM lexical_index ORDER BY name"),
)


def content_digest(conn: apsw.Connection, meta: dict[str, str]) -> str:
    """Hex sha256 over ``meta`` (every key but ``content_digest``, sorted by key) and the rows of
    :data:`_DIGEST_QUERIES`, table by table in that order, each value fed by :func:`_field`.

    ``conn`` is an open bundle (read-only is enough). Takes about as long as reading the bundle
    once (a few ms for the demo course). Raises ``apsw.Error`` when a table cannot be read (a
    damaged file); a table a bundle does not have (``vector_blocks`` in old bundles) is skipped.
    """
    digest = hashlib.sha256()
    _field(digest, DIGEST_SCHEME)
    for key in sorted(meta):
        if key != "content_digest":
            _field(digest, key)
            _field(digest, meta[key])
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table, sql in _DIGEST_QUERIES:
        if table not in tables:
            continue
        _field(digest, table)
        for row in conn.execute(sql):
            for value in row:
                _field(digest, value)
    return digest.hexdigest()


def identity_meta(conn: apsw.Connection, meta: dict[str, str], course_id: str) -> dict[str, str]:
    """The identity keys a build adds to ``meta`` (called by the builder once every table is written):
    ``course_id``, ``course_version`` (from ``meta['built_at']`` and ``meta['corpus_version']``) and
    ``content_digest`` over the finished tables and the rest of ``meta``."""
    keys = {"course_id": check_course_id(course_id),
            "course_version": short_version(meta.get("built_at", ""), meta.get("corpus_version", ""))}
    keys["content_digest"] = content_digest(conn, {**meta, **keys})
    return keys


@dataclass(frozen=True)
class Identity:
    """Who a bundle is: ``course_id``, ``course_version`` (for people), ``built_at`` (ISO 8601 UTC, ''
    when unknown), ``corpus_version`` and the recorded ``content_digest`` (None: an older bundle,
    not verifiable). ``derived`` is True when the id came from the file name."""

    course_id: str
    course_version: str
    built_at: str
    corpus_version: str
    content_digest: str | None
    derived: bool


def bundle_identity(meta: dict[str, str], path: Path) -> Identity:
    """The identity recorded in ``meta``, or derived from ``path`` and the other keys for a bundle
    built before course ids existed (an ``ID.previous.sqlite`` file gives ``ID``)."""
    built_at = meta.get("built_at", "")
    corpus = meta.get("corpus_version", "")
    recorded = meta.get("course_id", "")
    stem = Path(path).name.removesuffix(".sqlite").removesuffix(".previous")
    return Identity(course_id=recorded or slugify(stem),
                    course_version=meta.get("course_version") or short_version(built_at, corpus),
                    built_at=built_at, corpus_version=corpus, content_digest=meta.get("content_digest") or None,
                    derived=not recorded)


#: Outcomes of :func:`verify_digest`.
DIGEST_VERIFIED, DIGEST_MISMATCH, DIGEST_NOT_RECORDED = "verified", "mismatch", "not-recorded"


def verify_digest(conn: apsw.Connection, meta: dict[str, str]) -> str:
    """Recompute the content digest of an open bundle and compare it with the recorded one:
    :data:`DIGEST_VERIFIED`, :data:`DIGEST_MISMATCH`, or :data:`DIGEST_NOT_RECORDED` (an older
    bundle). Raises ``apsw.Error`` when the bundle cannot be read to the end."""
    recorded = meta.get("content_digest")
    if not recorded:
        return DIGEST_NOT_RECORDED
    return DIGEST_VERIFIED if content_digest(conn, meta) == recorded else DIGEST_MISMATCH
