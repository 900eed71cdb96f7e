"""Describe a bundle and check its integrity (``lantern inspect``; JSON shape in docs/inspect.md).

Integrity checks, all read-only:
- SQLite's ``PRAGMA quick_check``;
- the content digest recorded at build time (``meta.content_digest``) equals the tables' digest
  (bundles built before the digest was recorded skip this check);
- the chunk ids in ``chunks``, ``chunks_fts`` and ``chunk_vectors`` are the same set
  (so every chunk is findable by both legs and no orphan rows remain);
- the counts recorded in ``meta`` equal the table counts;
- every chunk belongs to a guide and its character span lies inside that guide's text
  (``checks.span_problems``, all chunks);
- for a sample of chunks: the sha256 of the indexed text equals the stored digest and
  the chunk text equals its character span of the stored guide text;
- for a sample of images: the sha256 of the stored bytes equals the stored digest;
- for the same sample of chunks: the vector the app searches (``vector_blocks``, when the
  bundle has it) equals the one stored in ``chunk_vectors``;
- every answer-block vector (``block_vectors``, when the bundle has it) has a key and an embedding
  of the sizes the format writes;
- the content digest recorded at build time equals the one recomputed now (library.py), when
  the bundle records one.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import apsw
import numpy as np

from ..errors import BundleError
from ..ingest.screen import read_planted, screen_guide
from .block_vectors import KEY_BYTES, STORED_DTYPE, decode
from .checks import span_problems
from .library import DIGEST_MISMATCH, bundle_identity, verify_digest
from .originals import ORIGINALS_FOLDER
from .reader import BundleReader
from .schema import CONTENT_DIGEST_KEY, content_digest

_T = TypeVar("_T")

#: Chunks (and images) whose digests are checked by default; 0 checks all of them.
DEFAULT_SAMPLE = 200


@dataclass(frozen=True)
class Integrity:
    """``ok`` when no problem was found; ``problems`` are sentences; ``sampled_chunks`` and
    ``sampled_assets`` say how many digests were verified; ``content_digest`` is ``verified``,
    ``mismatch``, ``not-recorded`` (a bundle built before digests existed) or ``skipped`` (the
    caller checked it itself: ``install``)."""

    ok: bool
    problems: tuple[str, ...]
    sampled_chunks: int
    sampled_assets: int
    content_digest: str = "not-recorded"


@dataclass(frozen=True)
class Inspection:
    """What ``lantern inspect`` reports about one bundle; ``size_bytes`` is the file size."""

    path: str
    size_bytes: int
    title: str
    course: dict
    corpus_version: str
    schema_version: int
    built_at: str
    embedding: dict
    chunker: dict
    libraries: dict
    counts: dict
    integrity: Integrity
    #: Guide blocks that address the assistant (app/ingest/screen.py), never quoted nor sent to the
    #: model: each ``{"source", "heading", "span", "chunk_keys", "excerpt"}``. ``planted_screened`` is
    #: ``build`` (recorded by the build), ``inspect`` (a bundle built before screening, screened now)
    #: or ``failed`` (its text could not be read).
    planted_blocks: tuple[dict, ...] = ()
    planted_screened: str = "build"

    def as_json(self) -> dict:
        """The ``inspect --json`` document (docs/inspect.md)."""
        doc = asdict(self)
        doc["integrity"]["problems"] = list(self.integrity.problems)
        doc["planted_blocks"] = list(self.planted_blocks)
        return doc

    def lines(self) -> list[str]:
        """Human-readable report."""
        c = self.counts
        e = self.embedding
        stored = ("image", "images") if not c.get("originals") else ("image or original file", "images and original files")
        status = (f"ok ({_checked(self.integrity.sampled_chunks, c.get('chunks', 0), ('chunk', 'chunks'))} and "
                  f"{_checked(self.integrity.sampled_assets, c.get('assets', 0), stored)} match their digests; "
                  "row counts agree)" if self.integrity.ok else "FAILED")
        out = [f"{self.path}",
               f"  title           {self.title}",
               f"  course id       {self.course['id']}" + (" (from the file name)" if self.course["id_derived"] else ""),
               f"  version         {self.course['version']}",
               f"  language        {self.course.get('language') or 'unknown (not recorded)'}",
               f"  content digest  {(self.course['content_digest'] or 'not recorded (built before digests)')[:16]}"
               f"{'' if not self.course['content_digest'] else ' (' + self.integrity.content_digest + ')'}",
               f"  corpus version  {self.corpus_version}",
               f"  schema version  {self.schema_version}",
               f"  built at        {self.built_at}",
               f"  embedding model {e['model_id']} ({e['dim']} dims, checksum {e['checksum'][:12]})",
               f"  guides          {c['sources']}",
               f"  chunks          {c['chunks']}",
               f"  answer blocks   {c.get('block_vectors', 0)} embedded" + ("" if c.get("block_vectors", 0) else
                                                                       " (built before they were: embedded as asked)"),
               f"  images          {c.get('images', c['assets'])}",
               f"  originals       {c.get('originals', 0)}" + (" (original files kept by build --keep-originals)"
                                                              if c.get("originals", 0) > 0 else ""),
               f"  size            {self.size_bytes / 1e6:.1f} MB ({self.size_bytes:,} bytes)",
               f"  integrity       {status}"]
        out.extend(f"    - {p}" for p in self.integrity.problems)
        out.extend(self._planted_lines())
        return out

    def _planted_lines(self) -> list[str]:
        if self.planted_screened == "failed":
            return ["  planted text    not screened: the guides could not be read (see integrity)"]
        when = " (found now: the bundle was built before guides were screened)" if self.planted_screened == "inspect" else ""
        n = len(self.planted_blocks)
        if not n:
            return [f"  planted text    none: no block of the guides speaks to AI assistants{when}"]
        out = [f"  planted text    {n} block{'s' if n != 1 else ''} of the guides speak{'' if n != 1 else 's'} to AI "
               f"assistants, not to students; never quoted or sent to the model{when}:"]
        for block in self.planted_blocks:
            where = " › ".join(part for part in (block["source"], block["heading"]) if part)
            out.append(f"    - {where}: “{block['excerpt']}”")
        return out


def _sample(ids: list[_T], n: int) -> list[_T]:
    """Up to ``n`` ids spread evenly over ``ids`` (all of them when ``n`` is 0 or large enough)."""
    if n <= 0 or len(ids) <= n:
        return ids
    step = len(ids) / n
    return [ids[int(i * step)] for i in range(n)]


def _without_fix(message: str) -> str:
    """A :class:`BundleError` message as a problem: without its closing fix ("; rebuild it with
    `lantern build`."), which ``inspect`` says once for every problem."""
    return re.sub(r";\s*(?:copy it again|rebuild it)[^;]*$", "", message.rstrip().rstrip("."))


def _checked(sampled: int, total: int, what: tuple[str, str]) -> str:
    """How many of ``total`` items (``what``: singular and plural) were checked: "no images", "the one
    image", "all 3 images", "200 of 271 chunks (a sample)"."""
    if total <= 0:
        return f"no {what[1]}"
    if total == 1:
        return f"the one {what[0]}"
    return f"all {total} {what[1]}" if sampled >= total else f"{sampled} of {total} {what[1]} (a sample)"


def check_integrity(bundle: BundleReader, sample: int = DEFAULT_SAMPLE, *, sqlite_and_digest: bool = True) -> Integrity:
    """Run the integrity checks of the module docstring; never raises for a bad bundle (a check
    that cannot read what it needs reports that as a problem). ``sqlite_and_digest=False`` leaves
    out SQLite's quick_check and the content digest, for a caller that has just run SQLite's
    integrity_check and the digest itself (``install``); ``content_digest`` is then ``skipped``."""
    problems: list[str] = []
    try:
        return _check_integrity(bundle, sample, problems, sqlite_and_digest)
    except UnicodeDecodeError:
        problems.append("stored text is not valid UTF-8; the bundle is damaged")
        return Integrity(ok=False, problems=tuple(problems), sampled_chunks=0, sampled_assets=0)
    except (apsw.Error, BundleError) as exc:
        problems.append(f"the bundle could not be read to the end ({exc.__class__.__name__}: "
                        f"{_without_fix(str(exc).splitlines()[0]) if str(exc) else 'no detail'}); it is damaged")
        return Integrity(ok=False, problems=tuple(problems), sampled_chunks=0, sampled_assets=0)


def _check_integrity(bundle: BundleReader, sample: int, problems: list[str], sqlite_and_digest: bool) -> Integrity:
    """The checks of the module docstring in order; each step appends its problems to ``problems``
    as it finds them (so a step that fails to read keeps what the steps before it found)."""
    q = bundle._query
    if sqlite_and_digest:
        _sqlite_problems(bundle, problems)
    with bundle._lock:
        problems.extend(span_problems(bundle._conn))
    chunk_ids = [r[0] for r in q("SELECT id FROM chunks ORDER BY id")]
    _row_set_problems(q, set(chunk_ids), problems)
    _count_problems(bundle, problems)
    picked = _sample(chunk_ids, sample)
    _chunk_problems(q, picked, problems)
    _vector_problems(bundle, picked, problems)
    _block_vector_problems(bundle, problems)
    asset_paths = _sample([r[0] for r in q("SELECT path FROM assets ORDER BY path")], sample)
    _asset_problems(q, asset_paths, problems)
    digest = "skipped"
    if sqlite_and_digest:
        with bundle._lock:
            digest = verify_digest(bundle._conn, bundle.meta)
    if digest == DIGEST_MISMATCH:
        problems.append("the content digest recomputed now differs from the one recorded at build time: "
                        "the bundle was changed after it was built")
    return Integrity(ok=not problems, problems=tuple(problems), sampled_chunks=len(picked),
                     sampled_assets=len(asset_paths), content_digest=digest)


def _sqlite_problems(bundle: BundleReader, problems: list[str]) -> None:
    """SQLite's quick_check (its first three lines) and the content digest recorded at build time."""
    quick = [line for r in bundle._query("PRAGMA quick_check") for line in str(r[0]).splitlines()]
    if quick != ["ok"]:
        more = f" (and {len(quick) - 3:,} more lines)" if len(quick) > 3 else ""
        problems.append(f"SQLite quick_check reports: {'; '.join(quick[:3])}{more}")
    recorded = bundle.meta.get(CONTENT_DIGEST_KEY)
    if recorded and content_digest(bundle._conn) != recorded:
        problems.append("the tables' content digest differs from the one recorded when the bundle was built "
                        "(a byte of the file has changed since)")


def _row_set_problems(q, ids: set[int], problems: list[str]) -> None:
    """``chunks_fts`` and ``chunk_vectors`` hold exactly the chunk ids ``ids``."""
    for table in ("chunks_fts", "chunk_vectors"):
        theirs = {r[0] for r in q(f"SELECT rowid FROM {table}")}
        if theirs != ids:
            problems.append(f"{table} has {len(theirs)} rows and chunks has {len(ids)}: "
                            f"{len(ids - theirs)} chunks are missing from {table}, {len(theirs - ids)} rows are orphans")


def _count_problems(bundle: BundleReader, problems: list[str]) -> None:
    """The chunk and guide counts recorded in ``meta`` equal the tables' counts."""
    for key, table in (("chunks", "chunks"), ("sources", "sources")):
        recorded = bundle.meta.get(key)
        actual = bundle._query(f"SELECT count(*) FROM {table}")[0][0]
        if recorded is not None and recorded != str(actual):
            problems.append(f"meta records {recorded} {key} but the {table} table holds {actual}")


def _chunk_problems(q, picked: list[int], problems: list[str]) -> None:
    """For the sampled chunks ``picked``: the indexed text's sha256 and the chunk's span of its guide's text."""
    texts: dict[int, str] = {}
    bad_digest = bad_span = 0
    for chunk_id in picked:
        row = q("SELECT c.indexed_text, c.sha256, c.text, c.start, c.end, c.source_id FROM chunks c WHERE c.id = ?",
                (chunk_id,))[0]
        if hashlib.sha256(row[0].encode("utf-8")).hexdigest() != row[1]:
            bad_digest += 1
        if row[5] not in texts:
            texts[row[5]] = (q("SELECT text FROM sources WHERE id = ?", (row[5],)) or [("",)])[0][0]
        if texts[row[5]][row[3]:row[4]] != row[2]:
            bad_span += 1
    if bad_digest:
        problems.append(f"{bad_digest} of {len(picked)} sampled chunks have indexed text whose sha256 differs "
                        "from the stored digest")
    if bad_span:
        problems.append(f"{bad_span} of {len(picked)} sampled chunks differ from their span of the guide text")


def _vector_problems(bundle: BundleReader, picked: list[int], problems: list[str]) -> None:
    """For the sampled chunks: the searched vector (``vector_blocks``) equals ``chunk_vectors``'; in an
    older bundle without blocks, each ``chunk_vectors`` vector has the right length and unit length."""
    q = bundle._query
    try:
        matrix = bundle.vector_matrix if q("SELECT 1 FROM sqlite_master WHERE name = 'vector_blocks'") else None
    except BundleError as exc:  # a block of the wrong size
        problems.append(_without_fix(str(exc)))
        matrix = None
    if matrix is None and not any("vector block" in p for p in problems):  # an older bundle: vec0 only
        _vec0_problems(q, bundle.embedding_dim, picked, problems)
    if matrix is not None:
        _block_problems(q, matrix, picked, problems)


def _vec0_problems(q, dim: int, picked: list[int], problems: list[str]) -> None:
    """Sampled chunks whose ``chunk_vectors`` vector is missing, not ``dim`` long or not of unit length."""
    bad_vectors = 0
    for chunk_id in picked:
        stored = q("SELECT embedding FROM chunk_vectors WHERE rowid = ?", (chunk_id,))
        vector = np.frombuffer(bytes(stored[0][0]), dtype=np.float32) if stored else np.zeros(0, np.float32)
        if vector.shape[0] != dim or abs(float(np.linalg.norm(vector)) - 1.0) > 1e-3:
            bad_vectors += 1
    if bad_vectors:
        problems.append(f"{bad_vectors} of {len(picked)} sampled chunks have a vector in chunk_vectors that is "
                        "missing, of the wrong length or not of unit length")


def _block_problems(q, matrix: np.ndarray, picked: list[int], problems: list[str]) -> None:
    """Sampled chunks whose row of ``matrix`` (read from ``vector_blocks``) differs from ``chunk_vectors``."""
    bad_vectors = 0
    for chunk_id in picked:
        stored = q("SELECT embedding FROM chunk_vectors WHERE rowid = ?", (chunk_id,))
        if not stored or chunk_id > matrix.shape[0] or matrix[chunk_id - 1].tobytes() != bytes(stored[0][0]):
            bad_vectors += 1
    if bad_vectors:
        problems.append(f"{bad_vectors} of {len(picked)} sampled chunks have a vector in vector_blocks that "
                        "differs from chunk_vectors")


def _asset_problems(q, asset_paths: list[str], problems: list[str]) -> None:
    """Sampled images whose bytes' sha256 differs from the stored digest."""
    bad_assets = [p for p in asset_paths
                  if hashlib.sha256(bytes(q("SELECT data FROM assets WHERE path = ?", (p,))[0][0])).hexdigest()
                  != q("SELECT sha256 FROM assets WHERE path = ?", (p,))[0][0]]
    if bad_assets:
        problems.append(f"{len(bad_assets)} images have bytes whose sha256 differs from the stored digest "
                        f"(first: {bad_assets[0]})")


def _block_vector_problems(bundle: BundleReader, problems: list[str]) -> None:
    """Answer-block vectors (app/bundle/block_vectors.py) that are not a KEY_BYTES-byte key with a unit
    vector of ``dim`` float16 values (:func:`decode`: wrong type or size, NaN, infinity, zeros). Every
    row is read (IoT: 6,592 rows, 5 MB, about 50 ms); the app embeds such a block anew."""
    if not bundle.has_block_vectors:
        return
    size, dim = bundle.embedding_dim * STORED_DTYPE.itemsize, bundle.embedding_dim
    shaped = "typeof(key) = 'blob' AND length(key) = ? AND typeof(embedding) = 'blob' AND length(embedding) = ?"
    bad = bundle._query(f"SELECT count(*) FROM block_vectors WHERE NOT ({shaped})", (KEY_BYTES, size))[0][0]
    bad += sum(decode(blob, dim) is None  # only blobs of the right size are read (a huge one is counted above)
               for (blob,) in bundle._query(f"SELECT embedding FROM block_vectors WHERE {shaped}", (KEY_BYTES, size)))
    if bad:
        problems.append(f"{bad} answer-block vectors in block_vectors are not {KEY_BYTES}-byte keys with unit "
                        f"vectors of {dim} float16 values")


def _count(q, table: str) -> int:
    """Rows of ``table``, or -1 when a damaged bundle cannot count them."""
    try:
        return int(q(f"SELECT count(*) FROM {table}")[0][0])
    except (apsw.Error, BundleError):
        return -1


def _asset_kinds(q, assets: int) -> dict:
    """``{"images", "originals"}``: the rows of ``assets`` that are pictures, and those that are original
    files kept by ``build --keep-originals`` (under ``.lantern-originals/``); -1 each when a damaged
    bundle cannot count them."""
    try:
        originals = int(q("SELECT count(*) FROM assets WHERE substr(path, 1, ?) = ?",
                          (len(ORIGINALS_FOLDER) + 1, ORIGINALS_FOLDER + "/"))[0][0])
    except (apsw.Error, BundleError):
        return {"images": -1, "originals": -1}
    return {"images": assets - originals if assets >= 0 else -1, "originals": originals}


def _planted(bundle: BundleReader) -> dict:
    """``planted_blocks`` and ``planted_screened`` for :class:`Inspection`: what the build recorded,
    or for a bundle built before screening, what the screen finds in its guides now (about 0.5 s per
    million characters of guide text)."""
    recorded = read_planted(bundle.meta)
    if recorded is not None:
        return {"planted_blocks": tuple(b.as_json() for b in recorded), "planted_screened": "build"}
    q = bundle._query
    try:
        found: list[dict] = []
        for source_id, path, text in q("SELECT id, path, text FROM sources ORDER BY path"):
            chunks = [(str(k), str(h), int(a), int(b)) for k, h, a, b in
                      q("SELECT key, heading, start, end FROM chunks WHERE source_id = ? ORDER BY start", (source_id,))]
            found.extend(b.as_json() for b in screen_guide(str(path), str(text), chunks))
    except (apsw.Error, BundleError, UnicodeDecodeError, TypeError, ValueError):
        return {"planted_blocks": (), "planted_screened": "failed"}
    return {"planted_blocks": tuple(found), "planted_screened": "inspect"}


def inspect_bundle(path: Path, sample: int = DEFAULT_SAMPLE) -> Inspection:
    """Open ``path`` read-only, describe it and check its integrity.

    Raises :class:`BundleError` when the file is missing or not a Lantern bundle this
    app can read; integrity problems are reported in the result, not raised.
    """
    bundle = BundleReader(path, verify=False)  # report every problem, not the first
    try:
        q = bundle._query
        meta = bundle.meta
        counts = {table: _count(q, table)
                  for table in ("sources", "chunks", "headings", "assets", "chunks_fts", "chunk_vectors")}
        counts["block_vectors"] = _count(q, "block_vectors") if bundle.has_block_vectors else 0
        counts.update(_asset_kinds(q, counts["assets"]))
        who = bundle_identity(meta, Path(path))
        return Inspection(
            path=str(path), size_bytes=Path(path).stat().st_size, title=bundle.title,
            course={"id": who.course_id, "id_derived": who.derived, "version": who.course_version,
                    "content_digest": who.content_digest, "language": meta.get("language") or None},
            corpus_version=bundle.corpus_version, schema_version=int(meta["schema_version"]),
            built_at=meta.get("built_at", ""),
            embedding={"model_id": meta["embedding_model_id"], "dim": int(meta["embedding_dim"]),
                       "checksum": meta["embedding_checksum"]},
            chunker=bundle.chunker_settings(), libraries=json.loads(meta.get("libraries", "{}") or "{}"),
            counts=counts, integrity=check_integrity(bundle, sample), **_planted(bundle))
    finally:
        bundle.close()
