"""Step 1 of ``lantern install`` (app/bundle/install.py): verify a bundle file as given and
return what install compares (:class:`BundleFacts`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import apsw

from ..errors import BundleError
from .library import DIGEST_MISMATCH, DIGEST_NOT_RECORDED, _too_new, bundle_identity, verify_digest

SQLITE_HEADER = b"SQLite format 3\x00"
#: Chunks and images whose digests and spans ``install`` checks as ``lantern inspect`` does
#: (app/bundle/inspect.py); 0 checks every one of them: 0.13 s for IoT's 1,881 chunks, 12 s for
#: large-docs' 107,829 (beside 8 s for its content digest) on a busy 2-core PC.
INSTALL_SAMPLE = 0


@dataclass(frozen=True)
class BundleFacts:
    """What install compares: identity, counts, and ``guides`` (course-relative path -> sha256 of the
    guide file)."""

    path: Path
    course_id: str
    title: str
    version: str
    corpus_version: str
    built_at: str
    content_digest: str | None
    guides: dict[str, str]
    chunks: int
    #: The course's language tag ('' unknown); with ``title``, what a metadata-only update changes.
    language: str = ""

    def as_json(self) -> dict:
        return {"path": str(self.path), "course_id": self.course_id, "title": self.title, "version": self.version,
                "corpus_version": self.corpus_version, "built_at": self.built_at, "guides": len(self.guides),
                "chunks": self.chunks}


def _check_sqlite_file(path: Path) -> None:
    """Refuse a file that is missing, empty, not SQLite, or shorter than its header says."""
    if not path.exists():
        raise BundleError(f"The bundle {path} does not exist; check the path (for a USB stick, that it is mounted).")
    if not path.is_file():
        raise BundleError(f"{path} is a folder, not a bundle; give the path of a course bundle (.sqlite) file.")
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise BundleError(f"The bundle {path} cannot be read ({exc.strerror or exc}); copy it to this PC and "
                          "install the copy.") from exc
    if size == 0:
        raise BundleError(f"The bundle {path} is empty (0 bytes), probably an interrupted copy; copy it again.")
    if not header.startswith(SQLITE_HEADER):
        raise BundleError(f"{path} is not a course bundle (not a SQLite file); give the .sqlite file "
                          "`lantern build` wrote.")
    if len(header) == 100:
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        if pages and size < page_size * pages:
            raise BundleError(f"The bundle {path} is truncated ({size:,} of {page_size * pages:,} bytes), probably "
                              "an interrupted copy; copy it again.")


def verify_bundle(path: Path, embedding: tuple[str, int, str] | None) -> BundleFacts:
    """Verify ``path`` as step 1 of app/bundle/install.py's docstring and return what install compares.

    ``embedding`` is ``(model id, dim, checksum)`` of this app's embedding model (None: not checked).
    Raises :class:`BundleError` (one sentence) for every problem. Reads the whole file about three
    times (the reader's check at open, SQLite's integrity_check and digest, inspect's checks):
    0.8 s for the IoT course's 1,881 chunks and 21-25 s for large-docs' 107,829 on a busy 2-core PC.
    """
    from .inspect import check_integrity
    from .reader import BundleReader

    path = Path(path)
    _check_sqlite_file(path)
    try:
        reader = BundleReader(path)
    except BundleError as exc:
        newer = _too_new(path)
        if newer:
            raise BundleError(f"The bundle {path} was made by a newer Lantern: {newer}.") from exc
        raise
    try:
        meta = reader.meta
        damaged = f"The bundle {path} is damaged ({{}}); copy it again or rebuild it with `lantern build`."
        try:
            check = [str(r[0]) for r in reader._query("PRAGMA integrity_check(5)")]
            if check != ["ok"]:
                raise BundleError(damaged.format(f"SQLite's integrity check reports: {check[0]}"))
            with reader._lock:
                digest = verify_digest(reader._conn, meta)
            guides = dict(reader._query("SELECT path, sha256 FROM sources ORDER BY path"))
            chunks = reader.chunk_count()
        except apsw.Error as exc:
            raise BundleError(damaged.format(f"it cannot be read to the end: {exc.__class__.__name__}")) from exc
        if digest == DIGEST_NOT_RECORDED:
            raise BundleError(f"The bundle {path} records no content digest (it was built before Lantern recorded "
                              "them), so it cannot be verified; rebuild it with `lantern build` and install that.")
        if digest == DIGEST_MISMATCH:
            raise BundleError(damaged.format("its content differs from the digest recorded when it was built"))
        integrity = check_integrity(reader, INSTALL_SAMPLE, sqlite_and_digest=False)  # inspect's checks too
        if not integrity.ok:
            raise BundleError(damaged.format(f"it fails `lantern inspect`'s integrity check: {integrity.problems[0]}"))
        theirs = (meta["embedding_model_id"], meta["embedding_dim"], meta["embedding_checksum"])
        if embedding is not None and theirs != (embedding[0], str(embedding[1]), embedding[2]):
            raise BundleError(f"The bundle {path} was built with the embedding model {theirs[0]} ({theirs[1]} dims, "
                              f"checksum {theirs[2][:12]}), not this app's {embedding[0]} ({embedding[1]} dims, "
                              f"checksum {embedding[2][:12]}); rebuild it with this Lantern's models.")
        who = bundle_identity(meta, path)
        return BundleFacts(path=path, course_id=who.course_id, title=reader.title, version=who.course_version,
                           corpus_version=who.corpus_version, built_at=who.built_at,
                           content_digest=who.content_digest, guides=guides, chunks=chunks,
                           language=meta.get("language", ""))
    finally:
        reader.close()
