"""Build a corpus bundle from a course folder, atomically.

The bundle is written to a temporary file beside the target and renamed into place
only when complete, so a failed or interrupted build leaves the previous bundle as it
was and never a half-written one.

Corpus version (DESIGN.md): sha256 over the sorted ``(chunk key, sha256 of indexed
text)`` pairs, the chunker settings and the embedding model's checksum. It does not
depend on build time or file order on disk.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import posixpath
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .. import __version__
from ..embedding import BATCH_SIZE, Embedder
from ..errors import CourseFolderError, LanternError
from ..ingest.chunker import ChunkerSettings, chunk_document
from ..ingest.markdown import parser
from ..ingest.reader import IMAGE_TYPES, ReadReport, read_course
from ..records import Chunk
from ..retrieval.lexical import build_index, index_params
from .schema import SCHEMA_VERSION, connect, create_tables

#: ``progress(stage, done, total)``; stages are "read", "chunk", "embed", "index".
Progress = Callable[[str, int, int], None]

_HTML_IMG = re.compile(r"""<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


@dataclass
class BuildReport:
    """What a build did; ``seconds`` is wall-clock time of the whole build."""

    bundle: Path
    corpus_version: str
    sources: int
    chunks: int
    assets: int
    seconds: float
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def corpus_version(chunks: list[Chunk], settings: ChunkerSettings, embedding_checksum: str) -> str:
    """The corpus version of a set of chunks (hex sha256)."""
    digest = hashlib.sha256()
    for key, sha in sorted((c.key, c.sha256) for c in chunks):
        digest.update(f"{key}\t{sha}\n".encode("utf-8"))
    digest.update(json.dumps(settings.as_dict(), sort_keys=True).encode("utf-8"))
    digest.update(embedding_checksum.encode("utf-8"))
    return digest.hexdigest()


def _referenced_images(doc_path: str, text: str, images: dict[str, Path]) -> set[str]:
    """Course-relative paths of images a Markdown guide references and the folder holds."""
    sources: list[str] = []
    for token in parser().parse(text):
        for child in token.children or []:
            if child.type == "image":
                sources.append(str(child.attrs.get("src", "")))
        if token.type == "html_block" or token.type == "inline":
            sources.extend(_HTML_IMG.findall(token.content))
    found: set[str] = set()
    base = posixpath.dirname(doc_path)
    for src in sources:
        if not src or "://" in src or src.startswith(("data:", "#")):
            continue
        rel = posixpath.normpath(posixpath.join(base, src.split("#")[0].split("?")[0]))
        if rel in images:
            found.add(rel)
    return found


def _library_versions() -> dict:
    import apsw
    import sqlite_vec

    return {"lantern": __version__, "apsw": apsw.apsw_version(), "sqlite": apsw.sqlite_lib_version(),
            "sqlite_vec": getattr(sqlite_vec, "__version__", "")}


def build_bundle(source_dir: Path, output: Path, embedder: Embedder, *, title: str = "",
                 settings: ChunkerSettings | None = None, include: list[str] | None = None,
                 exclude: list[str] | None = None, progress: Progress | None = None) -> BuildReport:
    """Read ``source_dir``, chunk, embed and index it, and write the bundle to ``output``.

    Raises :class:`CourseFolderError` for a missing/unreadable/empty course folder and
    :class:`LanternError` when the output cannot be written; the previous ``output`` is
    then untouched.
    """
    started = time.perf_counter()
    settings = settings or ChunkerSettings()
    notify = progress or (lambda stage, done, total: None)
    report: ReadReport = read_course(source_dir, include=include, exclude=exclude)
    notify("read", len(report.documents), len(report.documents))

    chunked = []
    for i, doc in enumerate(report.documents, 1):
        chunked.append((doc, chunk_document(doc, settings)))
        notify("chunk", i, len(report.documents))
    chunks = [c for _, cd in chunked for c in cd.chunks]
    if not chunks:
        raise CourseFolderError(f"The guides in {source_dir} contain no text to index; add guides with content.")
    version = corpus_version(chunks, settings, embedder.checksum)

    output = Path(output)
    if output.exists() and output.is_dir():
        raise LanternError(f"The output {output} is a folder; give `-o` a file name such as {output}/course.sqlite.")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LanternError(f"The output folder {output.parent} cannot be created ({exc.strerror}); "
                           "choose another place for the bundle.") from exc
    tmp = output.with_name(f".{output.name}.tmp-{os.getpid()}")
    try:
        _write(tmp, report, chunked, chunks, embedder, settings, version, title or source_dir.resolve().name, notify)
        os.replace(tmp, output)
    except OSError as exc:
        raise LanternError(f"The bundle {output} could not be written ({exc.strerror or exc}); "
                           "check free space and permissions, then build again.") from exc
    finally:
        for leftover in (tmp, Path(f"{tmp}-journal")):
            if leftover.exists():
                leftover.unlink()
    return BuildReport(bundle=output, corpus_version=version, sources=len(report.documents), chunks=len(chunks),
                       assets=_count_assets(output), seconds=time.perf_counter() - started,
                       warnings=report.warnings, notes=report.notes)


def _count_assets(path: Path) -> int:
    conn = connect(str(path), read_only=True)
    try:
        return int(conn.execute("SELECT count(*) FROM assets").fetchone()[0])
    finally:
        conn.close()


def _write(tmp: Path, report: ReadReport, chunked, chunks: list[Chunk], embedder: Embedder,
           settings: ChunkerSettings, version: str, title: str, notify: Progress) -> None:
    if tmp.exists():
        tmp.unlink()
    conn = connect(str(tmp), read_only=False)
    try:
        conn.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=8192")
        create_tables(conn, embedder.dim)
        with conn:
            chunk_id = 0
            asset_paths: set[str] = set()
            for source_id, (doc, cd) in enumerate(chunked, 1):
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
                                 (chunk_id, f"{cd.title} › {chunk.heading}" if chunk.heading else cd.title, chunk.text))
                if doc.kind == "markdown":
                    asset_paths |= _referenced_images(doc.path, doc.text, report.images)
            for rel in sorted(asset_paths):
                data = report.images[rel].read_bytes()
                conn.execute("INSERT INTO assets VALUES (?,?,?,?)",
                             (rel, IMAGE_TYPES[Path(rel).suffix.lower()], hashlib.sha256(data).hexdigest(), data))

        texts = [c.indexed_text for c in chunks]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        done = 0
        notify("embed", 0, len(texts))
        for begin in range(0, len(order), BATCH_SIZE * 4):
            idx = order[begin:begin + BATCH_SIZE * 4]
            vectors = np.asarray(embedder.embed([texts[i] for i in idx]), dtype=np.float32)
            if vectors.shape != (len(idx), embedder.dim):
                raise LanternError(f"The embedding model returned vectors of shape {vectors.shape}, "
                                   f"expected ({len(idx)}, {embedder.dim}); check the model files.")
            with conn:
                conn.executemany("INSERT INTO chunk_vectors(rowid, embedding) VALUES (?, ?)",
                                 [(i + 1, vectors[j].tobytes()) for j, i in enumerate(idx)])
            done += len(idx)
            notify("embed", done, len(texts))

        notify("index", 0, 1)
        files = build_index(texts)
        meta = {
            "schema_version": str(SCHEMA_VERSION),
            "corpus_version": version,
            "title": title,
            "built_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "chunker": json.dumps(settings.as_dict(), sort_keys=True),
            "embedding_model_id": embedder.model_id,
            "embedding_dim": str(embedder.dim),
            "embedding_checksum": embedder.checksum,
            "lexical": json.dumps(index_params(), sort_keys=True),
            "libraries": json.dumps(_library_versions(), sort_keys=True),
            "sources": str(len(chunked)),
            "chunks": str(len(chunks)),
        }
        with conn:
            conn.executemany("INSERT INTO lexical_index VALUES (?, ?)", sorted(files.items()))
            conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        notify("index", 1, 1)
    finally:
        conn.close()
