"""Open a corpus bundle read-only and answer the queries retrieval and the viewer need.

The app never writes to a bundle. Opening checks that the file is a Lantern bundle of
a schema this app can read; every failure is a :class:`BundleError` that names the
file and the fix.
"""

from __future__ import annotations

import json
import logging
import threading
from functools import cached_property
from pathlib import Path
from typing import Callable, Sequence

import apsw
import numpy as np

from ..errors import BundleError, UnsafeBundleError
from ..ranking import diversify_sources, top_k
from ..records import Heading
from ..usertext import clean_user_text
from .block_vectors import block_key, decode
from .checks import MAX_GUIDE_TEXT_BYTES
from .fts import SEARCH_WORD_CHARS, clean_snippet, guide_search_query  # noqa: F401  (re-exported)
from .opening import check_file, check_meta, check_structure, open_tables, read_meta, verify_contents
from .rows import MATCH_END, MATCH_START, ChunkRow, GuideMatch, SourceInfo
from .schema import quote_fts
from .vectors import binary_candidates, sign_code

log = logging.getLogger(__name__)

#: Bundles larger than this (bytes) are not checked at open (the check reads the whole file,
#: about 5 ms per MB here); ``lantern inspect`` checks them.
VERIFY_MAX_BYTES = 256 << 20

#: Tokens of context FTS5 ``snippet()`` keeps around the matches (its maximum is 64).
SNIPPET_TOKENS = 18
#: Semantic search is exact below this many chunks and binary-quantised with exact rescoring
#: of BINARY_RESCORE candidates above it (``BundleReader.knn``). At 10,131 chunks exact search
#: takes 0.85 ms; at 107,864 it takes 14 ms, binary scan and rescoring 2.5 ms.
APPROX_KNN_MIN = 20_000
BINARY_RESCORE = 1600
#: Guide search: matches of one guide shown before every other guide's (see ``search_guides``).
SEARCH_PER_GUIDE = 3


class BundleReader:
    """A read-only corpus bundle. Safe to share between threads (one lock around SQLite), though
    the window gives its worker thread a reader of its own (:meth:`reopen`).

    Opening checks, in this order, and raises :class:`BundleError` (one sentence naming the
    file and the fix) at the first that fails: the file exists, is not empty and is SQLite; it
    holds Lantern's tables; its schema and tokenizer versions are the ones this app reads; it
    holds nothing the format does not allow (:class:`UnsafeBundleError`, even without ``verify``:
    every guide and image path relative and inside the course, no schema object the format does
    not define, no guide or chunk text over its size limit; app/bundle/checks.py); and,
    with ``verify`` (the default), it is undamaged: SQLite's ``PRAGMA integrity_check`` (every
    b-tree, index and the FTS5 index) passes and the content digest recorded at build time
    (``meta.content_digest``, see ``schema.content_digest``) matches the tables, and every chunk's
    character span lies inside its guide's text (``checks.span_problems``). Each step is a function
    of app/bundle/opening.py. The check reads the whole file: about 90 ms for the 17 MB IoT bundle on a 2-core PC (integrity_check
    ~35 ms, digest ~60 ms; the checks of app/bundle/checks.py add about 10 ms for the structure and
    15 ms for the spans, measured beside a 200 ms digest on a busy PC). Of 60 random one-byte
    flips in that bundle it refused 50; the other
    10 changed no row the app reads (free space in pages; quick_check alone refused 8). Files over
    :data:`VERIFY_MAX_BYTES` skip it (``lantern inspect`` checks them). ``verify=False`` is for
    ``lantern inspect``, which reports every problem it finds instead of the first.
    """

    def __init__(self, path: Path, *, verify: bool = True) -> None:
        self.path = Path(path)
        check_file(self.path)
        self._lock = threading.RLock()
        self._conn, tables = open_tables(self.path)
        self.meta: dict[str, str] = read_meta(self._conn, tables, self.path)
        dim = check_meta(self.meta, self.path)
        with self._lock:
            check_structure(self._conn, self.path, dim, chunks=self.path.stat().st_size <= VERIFY_MAX_BYTES)
        if verify:
            self._verify()

    def _verify(self) -> None:
        """Raise :class:`BundleError` when the file is damaged (see the class docstring)."""
        size = self.path.stat().st_size
        if size > VERIFY_MAX_BYTES:
            log.info("%s is %d MB; its integrity is not checked at open (run `lantern inspect` on it)",
                     self.path, size >> 20)
            return
        with self._lock:
            verify_contents(self._conn, self.path, self.meta)

    # --- meta -------------------------------------------------------------------------
    @property
    def corpus_version(self) -> str:
        return self.meta["corpus_version"]

    @property
    def title(self) -> str:
        return self.meta.get("title", self.path.stem)

    @property
    def embedding_dim(self) -> int:
        return int(self.meta["embedding_dim"])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def reopen(self) -> BundleReader:
        """Another read-only reader of the same bundle, with its own SQLite connection, for another
        thread (the window reads guides in the GUI thread while its worker searches in its own).

        It is not verified again (this reader was), but it must be the same bundle: when the file
        was replaced since this reader opened it (a new version installed meanwhile), its ``meta``
        (corpus version, build time, content digest) differs and :class:`BundleError` is raised."""
        other = BundleReader(self.path, verify=False)
        if other.meta != self.meta:
            other.close()
            raise BundleError(f"The course bundle {self.path} was replaced while it was being opened (another "
                              "version was installed meanwhile); open the course again.")
        return other

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except apsw.CorruptError as exc:
                raise BundleError(f"The course bundle {self.path} is corrupted ({exc}); rebuild it.") from exc
            except UnicodeDecodeError as exc:  # a changed byte inside stored text
                raise BundleError(f"The course bundle {self.path} is corrupted (stored text is not valid UTF-8); "
                                  "rebuild it.") from exc

    # --- lexical ----------------------------------------------------------------------
    def lexical_files(self) -> dict[str, bytes]:
        """The serialized BM25 index stored in the bundle, file name -> bytes (the retriever loads
        it: :class:`app.text.lexical.LexicalIndex`). Raises :class:`BundleError` when it is missing."""
        files = dict(self._query("SELECT name, data FROM lexical_index"))
        if not files:
            raise BundleError(f"The course bundle {self.path} has no lexical index; rebuild it with `lantern build`.")
        return files

    def fts_phrase(self, phrase: str, k: int) -> list[int]:
        """Chunk ids whose text contains ``phrase`` as an FTS5 phrase, best BM25 first (at most ``k``)."""
        rows = self._query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
                           (quote_fts(phrase), k))
        return [r[0] for r in rows]

    def chunks_containing(self, text: str, k: int, holds: Callable[[str], bool] | None = None) -> list[int]:
        """Ids of the first ``k`` chunks (in id order) whose text holds ``text`` as written (no tokenizer:
        for operators such as ``$@`` that FTS5 cannot see) and, with ``holds``, for which ``holds(chunk
        text)`` is true. A scan of the chunk texts: about 2 ms for the IoT course's 1,881 chunks."""
        if holds is None:
            return [r[0] for r in self._query("SELECT id FROM chunks WHERE instr(text, ?) > 0 ORDER BY id LIMIT ?",
                                              (text, k))]
        found: list[int] = []
        for chunk_id, chunk_text in self._query("SELECT id, text FROM chunks WHERE instr(text, ?) > 0 ORDER BY id",
                                                (text,)):
            if len(found) >= k:
                break
            if isinstance(chunk_text, str) and holds(chunk_text):
                found.append(chunk_id)
        return found

    def fts_near(self, words: list[str], distance: int, k: int) -> list[int]:
        """Chunk ids whose text holds every one of ``words`` (each quoted as an FTS5 phrase, so
        user text is never FTS5 syntax) with at most ``distance`` tokens between the first and the
        last (FTS5 ``NEAR``, in any order), best BM25 first (at most ``k``); [] for no words."""
        if not words:
            return []
        query = f"NEAR({' '.join(quote_fts(w) for w in words)}, {max(0, int(distance))})"
        rows = self._query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
                           (query, k))
        return [r[0] for r in rows]

    def search_guides(self, text: str, limit: int = 30) -> list[GuideMatch]:
        """Chunks matching every word of ``text`` as a prefix (FTS5 over heading path and text),
        best BM25 first, at most ``limit``; when no chunk has every word, chunks with any word.

        One guide's matches beyond its best SEARCH_PER_GUIDE come after the other guides'
        (source crowding, as in retrieval), so one long guide cannot fill the list.
        Fast enough for a search box (an indexed query, a few ms on a course of hundreds of
        chunks); needs neither the embedding model nor the LLM. A query FTS5 refuses (a quoting bug:
        ``guide_search_query`` quotes every word) is logged as an error and gives ``[]``.
        """
        every, any_ = guide_search_query(clean_user_text(text))
        if not every:
            return []
        sql = ("SELECT c.id, s.path, c.heading, c.anchor, c.text, "
               f"snippet(chunks_fts, 1, '{MATCH_START}', '{MATCH_END}', '…', {SNIPPET_TOKENS}) "
               "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN sources s ON s.id = c.source_id "
               "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?")
        for query in (every, any_) if any_ != every else (every,):
            try:
                rows = self._query(sql, (query, int(limit) * 3))
            except apsw.SQLError as exc:  # a bug of guide_search_query's quoting: logged, the box stays usable
                log.error("guide search: FTS5 refused the query %r (%s)", query, exc)
                return []
            if rows:
                ranked = diversify_sources([(r, 0.0) for r in rows], lambda row: row[1], SEARCH_PER_GUIDE)
                return [GuideMatch(r[0], r[1], r[2], r[3], r[4], clean_snippet(r[5])) for r, _ in ranked[:limit]]
        return []

    # --- semantic ---------------------------------------------------------------------
    @cached_property
    def vector_matrix(self) -> np.ndarray:
        """Every stored embedding as one ``(max chunk id, dim) float32`` matrix, row ``id - 1``
        (rows of ids without a vector are zero). Read on first use from ``vector_blocks`` (a few
        large reads; ``chunk_vectors`` row by row in older bundles) and kept in memory: exact
        dot-product search over it measured faster here than ``vec0``
        KNN and much faster than ``vec0`` point lookups (docs/retrieval.md)."""
        dim = self.embedding_dim
        if self._query("SELECT 1 FROM sqlite_master WHERE name = 'vector_blocks'"):
            blocks = self._query("SELECT rowid, first_id, count FROM vector_blocks ORDER BY first_id")
            size = max((int(first) + int(count) - 1 for _, first, count in blocks), default=0)
            matrix = np.zeros((size, dim), dtype=np.float32)
            for rowid, first, count in blocks:
                self._read_block(int(rowid), matrix[int(first) - 1:int(first) - 1 + int(count)])
            return matrix
        rows = self._query("SELECT rowid, embedding FROM chunk_vectors")  # a bundle from before vector_blocks
        size = max((int(r[0]) for r in rows), default=0)
        matrix = np.zeros((size, dim), dtype=np.float32)
        for rowid, blob in rows:
            matrix[int(rowid) - 1] = np.frombuffer(blob, dtype=np.float32)
        return matrix

    @cached_property
    def has_block_vectors(self) -> bool:
        """Whether the bundle stores its answer blocks' embeddings (app/bundle/block_vectors.py)."""
        return bool(self._query("SELECT 1 FROM sqlite_master WHERE name = 'block_vectors'"))

    def stored_block_vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding (``(dim,) float32``) of each of ``texts`` the build embedded, by text;
        texts it did not, or whose stored value is not a unit vector of the right size (:func:`decode`),
        are left out (every text, in a bundle without ``block_vectors``). One
        indexed query. Raises :class:`BundleError` when the file cannot be read."""
        if not texts or not self.has_block_vectors:
            return {}
        keys = {block_key(t): t for t in texts}
        marks = ",".join("?" * len(keys))
        rows = self._query(f"SELECT key, embedding FROM block_vectors WHERE key IN ({marks})", tuple(keys))
        found = {keys[k]: decode(blob, self.embedding_dim) for k, blob in rows if isinstance(k, bytes) and k in keys}
        return {t: v for t, v in found.items() if v is not None}

    def _read_block(self, rowid: int, out: np.ndarray) -> None:
        """Copy one ``vector_blocks`` row straight into ``out`` (a C-contiguous float32 slice of
        the matrix) with SQLite's incremental blob I/O: no intermediate ``bytes``, which halved
        start-up's vector read at 107,864 chunks (docs/retrieval.md). Raises :class:`BundleError`
        when the block's size does not match its row count."""
        with self._lock:
            try:
                blob = self._conn.blob_open("main", "vector_blocks", "data", rowid, False)
                try:
                    if blob.length() != out.nbytes:
                        raise BundleError(f"The course bundle {self.path} has a vector block of {blob.length():,} bytes "
                                          f"where {out.nbytes:,} were expected; rebuild it with `lantern build`.")
                    blob.readinto(out.data)  # the array's own memory (a memoryview)
                finally:
                    blob.close()
            except apsw.Error as exc:
                raise BundleError(f"The course bundle {self.path} is corrupted ({exc}); rebuild it.") from exc

    @cached_property
    def sign_codes(self) -> np.ndarray:
        """1-bit codes of every vector (bit set where the component is positive), as a
        ``(ceil(dim / 64), max chunk id) uint64`` array, word-major so a scan reads each word
        row contiguously; computed from :attr:`vector_matrix` on first use (165 ms for
        107,864 x 384 here)."""
        return np.ascontiguousarray(sign_code(self.vector_matrix).T)

    def knn(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """``k`` nearest chunks to a ``(dim,) float32`` unit vector: ``(chunk id, cosine distance)``,
        nearest first, ties by id (distance = 1 - cosine similarity; lower is closer).

        Exact (a dot product with every vector) below APPROX_KNN_MIN chunks. Above it, the
        Hamming distance between sign codes (:attr:`sign_codes`) picks the BINARY_RESCORE
        likeliest chunks and only those are scored exactly, the binary-quantisation-with-
        rescoring scheme sqlite-vec and vector databases use. On large-docs (107,864 chunks,
        100 questions) this keeps recall@10 1.000 and recall@40 0.994 against exact search,
        at 2.5 ms instead of 14 ms (docs/retrieval.md)."""
        matrix = self.vector_matrix
        k = min(int(k), matrix.shape[0])
        if k <= 0:
            return []
        vector = np.asarray(vector, dtype=np.float32)
        if matrix.shape[0] < APPROX_KNN_MIN or k >= BINARY_RESCORE:
            # einsum, not ``@``: a multi-threaded BLAS matrix-vector product right after the ONNX
            # embedding call measured 20-30 ms here (threads fighting on 2 cores), einsum 0.3-0.5 ms.
            similarity = np.einsum("ij,j->i", matrix, vector)
            return [(int(i) + 1, float(1.0 - similarity[i])) for i in top_k(similarity, k)]
        candidates = binary_candidates(self.sign_codes, sign_code(vector), BINARY_RESCORE)
        similarity = np.einsum("ij,j->i", matrix[candidates], vector)
        order = top_k(similarity, k, ties=candidates)
        return [(int(candidates[i]) + 1, float(1.0 - similarity[i])) for i in order]

    def vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """Stored embeddings by chunk id: ``{id: (dim,) float32}`` unit vectors (unknown ids are left out)."""
        matrix = self.vector_matrix
        return {int(i): matrix[int(i) - 1] for i in ids if 0 < int(i) <= matrix.shape[0]}

    # --- rows -------------------------------------------------------------------------
    @cached_property
    def chunk_sources(self) -> np.ndarray:
        """Source id of every chunk as one ``(max chunk id + 1,) int32`` array indexed by chunk
        id (0 for ids without a chunk); read once, on first use."""
        rows = self._query("SELECT id, source_id FROM chunks")
        out = np.zeros(max((int(r[0]) for r in rows), default=0) + 1, dtype=np.int32)
        for cid, source in rows:
            out[int(cid)] = int(source)
        return out

    def chunks(self, ids: list[int]) -> dict[int, ChunkRow]:
        """Chunk rows by id (ids not in the bundle are absent from the result)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._query(
            f"SELECT c.id, c.key, s.path, c.heading, c.anchor, c.start, c.end, c.text FROM chunks c "
            f"JOIN sources s ON s.id = c.source_id WHERE c.id IN ({marks})", tuple(int(i) for i in ids))
        return {r[0]: ChunkRow(r[0], r[1], r[2], r[3], r[4], (r[5], r[6]), r[7]) for r in rows}

    def chunk_ids_under(self, prefixes: list[str]) -> list[int]:
        """Ids of the chunks of every guide whose path starts with one of ``prefixes``, in id order."""
        if not prefixes:
            return []
        where = " OR ".join("substr(s.path, 1, ?) = ?" for _ in prefixes)
        params = tuple(v for p in prefixes for v in (len(p), p))
        rows = self._query(f"SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id WHERE {where} "
                           "ORDER BY c.id", params)
        return [int(r[0]) for r in rows]

    @cached_property
    def first_chunks(self) -> dict[str, int]:
        """``{guide path: id of its first chunk}`` for every guide with chunks; read once."""
        return {r[0]: int(r[1]) for r in self._query(
            "SELECT s.path, min(c.id) FROM chunks c JOIN sources s ON s.id = c.source_id GROUP BY s.path")}

    def empty_sources(self) -> list[tuple[str, str]]:
        """``(path, title)`` of every guide in the bundle that has no chunk (e.g. only front matter)."""
        return [(r[0], r[1]) for r in self._query(
            "SELECT s.path, s.title FROM sources s WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.source_id = s.id) ORDER BY s.path")]

    def chunk_count(self) -> int:
        return int(self._query("SELECT count(*) FROM chunks")[0][0])

    def sources(self) -> list[SourceInfo]:
        """Every guide, sorted by path."""
        return [SourceInfo(*r) for r in self._query("SELECT path, title, kind, language FROM sources ORDER BY path")]

    def source_text(self, path: str) -> str:
        """The decoded text of one guide; raises :class:`BundleError` for an unknown path and
        :class:`UnsafeBundleError` for a text over ``MAX_GUIDE_TEXT_BYTES`` bytes (checked at open
        too; here its size is read before the text is)."""
        size = self._query("SELECT octet_length(text) FROM sources WHERE path = ?", (path,))
        if not size:
            raise BundleError(f"The guide {path} is not in the course bundle {self.path.name}.")
        if int(size[0][0] or 0) > MAX_GUIDE_TEXT_BYTES:
            raise UnsafeBundleError(f"The guide {path} holds {int(size[0][0]):,} bytes of text, more than the "
                                    f"{MAX_GUIDE_TEXT_BYTES:,} a guide may hold; rebuild the course with `lantern build`.")
        return self._query("SELECT text FROM sources WHERE path = ?", (path,))[0][0]

    def source_title(self, path: str) -> str:
        rows = self._query("SELECT title FROM sources WHERE path = ?", (path,))
        return rows[0][0] if rows else path

    def headings(self, path: str) -> list[Heading]:
        """Headings of one guide in document order."""
        rows = self._query("SELECT h.level, h.text, h.anchor, h.start FROM headings h JOIN sources s "
                           "ON s.id = h.source_id WHERE s.path = ? ORDER BY h.start", (path,))
        return [Heading(*r) for r in rows]

    @cached_property
    def asset_paths(self) -> frozenset[str]:
        """Course-relative paths of the images stored in the bundle."""
        return frozenset(r[0] for r in self._query("SELECT path FROM assets"))

    def asset(self, path: str) -> tuple[str, bytes] | None:
        """``(mime type, bytes)`` of an image stored in the bundle, or None."""
        rows = self._query("SELECT mime, data FROM assets WHERE path = ?", (path,))
        return (rows[0][0], bytes(rows[0][1])) if rows else None

    def chunker_settings(self) -> dict:
        return json.loads(self.meta.get("chunker", "{}"))
