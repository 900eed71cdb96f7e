"""Write every table of a new bundle file (the last step of :func:`app.bundle.builder.build_bundle`).

The steps, in order: the guides, headings, chunks, FTS5 rows and images; the chunk vectors
(reused by indexed-text sha256, the rest embedded in batches); the vector blocks; the answer
blocks' vectors (app/bundle/block_vectors.py, reused by text the same way); the lexical
index; ``meta``; and last the content digest over every row written before it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

import apsw
import numpy as np

from .. import __version__
from ..embedding import BATCH_SIZE, Embedder
from ..ingest.screen import META_KEY as PLANTED_KEY
from ..ingest.screen import planted_meta
from ..records import join_heading
from ..text.lexical import build_index, index_params
from ..text.tokenize import stemmer_for
from .block_vectors import course_block_texts, embed_checked, write_block_vectors
from .library import identity_meta
from .originals import asset_mime
from .plan import CoursePlan, Progress, asset_bytes
from .schema import CONTENT_DIGEST_KEY, SCHEMA_VERSION, VECTOR_BLOCK_ROWS, connect, content_digest, create_tables


def library_versions() -> dict:
    """Versions of Lantern and the libraries that wrote the bundle, recorded as ``meta['libraries']``."""
    import sqlite_vec

    return {"lantern": __version__, "apsw": apsw.apsw_version(), "sqlite": apsw.sqlite_lib_version(),
            "sqlite_vec": getattr(sqlite_vec, "__version__", "")}


def write_bundle(tmp: Path, plan: CoursePlan, embedder: Embedder, reusable: dict[str, bytes], title: str,
                 globs: dict, notify: Progress, course_id: str, language: str,
                 built_at: Callable[[], str], answer_blocks: bool = True) -> tuple[int, int, int]:
    """Write every table of the bundle to ``tmp``; returns how many chunks were embedded, how many answer
    blocks the bundle holds and how many of them were embedded (app/bundle/block_vectors.py; none with
    ``answer_blocks`` False). ``language``
    is recorded in ``meta`` when not ''; ``built_at`` gives the build time recorded in ``meta``
    (ISO 8601), called once the vectors are written."""
    if tmp.exists():
        tmp.unlink()
    conn = connect(str(tmp), read_only=False)
    try:
        conn.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=8192")
        create_tables(conn, embedder.dim)
        with conn:
            _insert_guides(conn, plan)
            _insert_assets(conn, plan)
        texts = [c.indexed_text for c in plan.chunks]
        embedded = _write_vectors(conn, plan, texts, embedder, reusable, notify)
        _write_vector_blocks(conn, len(plan.chunks), embedder.dim)
        blocks, blocks_embedded = _write_answer_blocks(conn, plan, embedder, reusable, notify) if answer_blocks else (0, 0)
        notify("index", 0, 1)
        stemmer = stemmer_for(language)  # the course's language cuts its words (app/text/tokenize.py)
        files = build_index(texts, stemmer)
        meta = _meta(plan, embedder, title, globs, built_at(), index_params(stemmer))
        with conn:
            conn.executemany("INSERT INTO lexical_index VALUES (?, ?)", sorted(files.items()))
        meta.update(identity_meta(meta, course_id))  # course id and version (issue 12)
        if language:  # optional: absent means unknown (bundles built before it, or an unsure guess)
            meta["language"] = language
        _write_meta(conn, meta)
        notify("index", 1, 1)
    finally:
        conn.close()
    return embedded, blocks, blocks_embedded


def _insert_guides(conn: apsw.Connection, plan: CoursePlan) -> None:
    """Insert every guide's ``sources``, ``headings``, ``chunks`` and ``chunks_fts`` rows (chunk ids from 1)."""
    chunk_id = 0
    for source_id, (doc, cd) in enumerate(zip(plan.documents, plan.chunked), 1):
        conn.execute("INSERT INTO sources VALUES (?,?,?,?,?,?,?,?)",
                     (source_id, doc.path, cd.title, doc.kind, doc.language, doc.sha256, doc.size_bytes, doc.text))
        conn.executemany("INSERT OR IGNORE INTO headings VALUES (?,?,?,?,?)",
                         [(source_id, h.level, h.text, h.anchor, h.start) for h in cd.headings])
        for chunk in cd.chunks:
            chunk_id += 1
            conn.execute("INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (chunk_id, chunk.key, source_id, chunk.heading, chunk.anchor, chunk.ordinal,
                          chunk.start, chunk.end, chunk.text, chunk.indexed_text, chunk.sha256))
            conn.execute("INSERT INTO chunks_fts(rowid, heading, text) VALUES (?,?,?)",
                         (chunk_id, join_heading(cd.title, chunk.heading), chunk.text))


def _insert_assets(conn: apsw.Connection, plan: CoursePlan) -> None:
    """Insert every image the guides reference (and the originals kept), with its MIME type and sha256."""
    for rel, asset in plan.assets.items():
        data = asset_bytes(asset)
        conn.execute("INSERT INTO assets VALUES (?,?,?,?)", (rel, asset_mime(rel), hashlib.sha256(data).hexdigest(), data))


def _write_vectors(conn: apsw.Connection, plan: CoursePlan, texts: list[str], embedder: Embedder,
                   reusable: dict[str, bytes], notify: Progress) -> int:
    """Insert the reusable vectors, then embed the other chunks shortest first in batches of
    BATCH_SIZE, reporting progress in chunks and characters; returns how many were embedded."""
    chunks = plan.chunks
    with conn:
        conn.executemany("INSERT INTO chunk_vectors(rowid, embedding) VALUES (?, ?)",
                         [(i + 1, reusable[c.sha256]) for i, c in enumerate(chunks) if c.sha256 in reusable])
    todo = sorted((i for i, c in enumerate(chunks) if c.sha256 not in reusable), key=lambda i: len(texts[i]))
    notify("reuse", len(chunks) - len(todo), len(chunks))
    done = 0
    total_chars = sum(len(texts[i]) for i in todo)
    done_chars = 0
    notify("embed_chars", 0, total_chars)
    notify("embed", 0, len(todo))
    for begin in range(0, len(todo), BATCH_SIZE):
        idx = todo[begin:begin + BATCH_SIZE]
        _embed_batch(conn, embedder, idx, [texts[i] for i in idx])
        done += len(idx)
        done_chars += sum(len(texts[i]) for i in idx)
        notify("embed_chars", done_chars, total_chars)
        notify("embed", done, len(todo))
    return len(todo)


def _embed_batch(conn: apsw.Connection, embedder: Embedder, idx: list[int], texts: list[str]) -> None:
    """Embed ``texts`` and store each vector as chunk ``idx[j] + 1``; refuses vectors of the wrong shape."""
    vectors = embed_checked(embedder, texts)
    with conn:
        conn.executemany("INSERT INTO chunk_vectors(rowid, embedding) VALUES (?, ?)",
                         [(i + 1, vectors[j].tobytes()) for j, i in enumerate(idx)])


def _write_vector_blocks(conn, count: int, dim: int) -> None:
    """Copy ``chunk_vectors`` into ``vector_blocks`` (schema.py): ``float32`` blocks of
    VECTOR_BLOCK_ROWS rows, chunk ids 1..``count``."""
    with conn:
        for first in range(1, count + 1, VECTOR_BLOCK_ROWS):
            rows = min(VECTOR_BLOCK_ROWS, count - first + 1)
            block = np.zeros((rows, dim), dtype=np.float32)
            for rowid, blob in conn.execute("SELECT rowid, embedding FROM chunk_vectors WHERE rowid BETWEEN ? AND ?",
                                            (first, first + rows - 1)):
                block[int(rowid) - first] = np.frombuffer(blob, dtype=np.float32)
            conn.execute("INSERT INTO vector_blocks VALUES (?, ?, ?)", (first, rows, block.tobytes()))


def _write_answer_blocks(conn: apsw.Connection, plan: CoursePlan, embedder: Embedder, reusable: dict[str, bytes],
                         notify: Progress) -> tuple[int, int]:
    """Embed every answer block of every chunk into ``block_vectors`` (app/bundle/block_vectors.py);
    returns how many blocks there are and how many were embedded (the others reused)."""
    passages = ((c.text, c.heading, c.start, lambda text=doc.text: text)
                for doc, chunked in zip(plan.documents, plan.chunked) for c in chunked.chunks)
    texts = course_block_texts(passages)
    return len(texts), write_block_vectors(conn, texts, embedder, reusable, notify)


def _meta(plan: CoursePlan, embedder: Embedder, title: str, globs: dict, built_at: str, lexical: dict) -> dict[str, str]:
    """The ``meta`` rows every build records (before the course identity and language are added)."""
    return {
        "schema_version": str(SCHEMA_VERSION),
        "corpus_version": plan.corpus_version,
        "title": title,
        "built_at": built_at,
        "chunker": json.dumps(plan.settings.as_dict(), sort_keys=True),
        "embedding_model_id": embedder.model_id,
        "embedding_dim": str(embedder.dim),
        "embedding_checksum": embedder.checksum,
        "lexical": json.dumps(lexical, sort_keys=True),
        "libraries": json.dumps(library_versions(), sort_keys=True),
        "sources": str(len(plan.documents)),
        "chunks": str(len(plan.chunks)),
        "source_globs": json.dumps(globs, sort_keys=True),
        PLANTED_KEY: planted_meta(plan.planted),  # blocks never quoted (app/ingest/screen.py)
    }


def _write_meta(conn: apsw.Connection, meta: dict[str, str]) -> None:
    """Insert ``meta``, then the content digest, last: it covers every row written above (the reader checks it at open)."""
    with conn:
        conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    with conn:
        conn.execute("INSERT INTO meta VALUES (?, ?)", (CONTENT_DIGEST_KEY, content_digest(conn)))
