"""What a build of a course folder would produce, computed without embedding anything.

:func:`plan_course` reads and chunks the folder, works out which images the guides
reference and the corpus version the bundle would carry. ``build`` writes a plan to a
bundle; ``check`` compares a plan with an existing bundle. Reading and chunking the
demo course takes well under a second; embedding is the expensive part and is not
done here.

Corpus version (DESIGN.md): sha256 over the sorted ``(chunk key, sha256 of indexed
text)`` pairs, the chunker settings and the embedding model's checksum. It does not
depend on build time, file order on disk, or which embeddings were reused.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from ..errors import CourseFolderError
from ..formats.kinds import MARKDOWN_KINDS
from ..ingest.chunker import ChunkedDoc, ChunkerSettings, chunk_document
from ..ingest.markdown import parser
from ..ingest.reader import IMAGE_TYPES, read_course
from ..ingest.screen import PlantedBlock, screen_course
from ..records import Chunk, SourceDoc
from .checks import MAX_GUIDE_TEXT_BYTES, path_problem

#: ``progress(stage, done, total)``; stages are "read" and "chunk" (files), "reuse" (chunks
#: reused, chunks in total; once), "embed" (chunks embedded, chunks to embed), "embed_chars"
#: (characters embedded, characters to embed; sent just before each "embed"), "embed_blocks" (answer
#: blocks embedded, blocks to embed: app/bundle/block_vectors.py), "index" (0/1, 1/1).
Progress = Callable[[str, int, int], None]

_HTML_IMG = re.compile(r"""<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
#: Document kinds whose text is Markdown (HTML and PDF are converted to Markdown when read).
_MARKDOWN_KINDS = {"markdown", "html", "pdf", *MARKDOWN_KINDS}
_IMAGE_EXTENSIONS = frozenset(IMAGE_TYPES)


@dataclass
class CoursePlan:
    """A course folder read and chunked: ``documents[i]`` is chunked as ``chunked[i]``;
    ``assets`` maps referenced image paths (course-relative) to their files, or to their bytes for
    pictures taken out of documents (:func:`asset_bytes` reads either); ``planted`` lists the
    guide blocks that address the assistant (app/ingest/screen.py), each also a warning."""

    documents: list[SourceDoc]
    chunked: list[ChunkedDoc]
    assets: dict[str, Path | bytes]
    settings: ChunkerSettings
    embedding_checksum: str
    corpus_version: str
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    planted: list[PlantedBlock] = field(default_factory=list)

    @property
    def chunks(self) -> list[Chunk]:
        """Every chunk in document order."""
        return [c for cd in self.chunked for c in cd.chunks]


def asset_bytes(asset: Path | bytes) -> bytes:
    """The bytes of one of :attr:`CoursePlan.assets`: read from its file, or the picture's own bytes."""
    return asset if isinstance(asset, bytes) else asset.read_bytes()


def corpus_version(chunks: list[Chunk], settings: ChunkerSettings, embedding_checksum: str) -> str:
    """The corpus version of a set of chunks (hex sha256, 64 characters)."""
    digest = hashlib.sha256()
    for key, sha in sorted((c.key, c.sha256) for c in chunks):
        digest.update(f"{key}\t{sha}\n".encode("utf-8"))
    digest.update(json.dumps(settings.as_dict(), sort_keys=True).encode("utf-8"))
    digest.update(embedding_checksum.encode("utf-8"))
    return digest.hexdigest()


def referenced_images(doc_path: str, text: str, images: Mapping[str, object], missing: set[str] | None = None) -> set[str]:
    """Course-relative paths of images a Markdown text references and the folder holds; the
    paths it references that the folder does not hold are added to ``missing`` when given."""
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
        elif missing is not None and posixpath.splitext(rel)[1].lower() in _IMAGE_EXTENSIONS \
                and not rel.startswith("../"):
            missing.add(rel)
    return found


def _drop_unfit(report) -> None:
    """Skip, with a warning, the guides and images a bundle could not hold (app/bundle/checks.py):
    a path the app would refuse (a backslash or control character in a name, too long, too deep)
    or a guide text over ``MAX_GUIDE_TEXT_BYTES``, so a build never writes a bundle the app refuses."""
    kept = []
    for doc in report.documents:
        problem = path_problem(doc.path)
        size = len(doc.text.encode("utf-8", "surrogatepass"))
        if problem:
            report.warnings.append(f"{problem}; skipped (rename the file or its folder to include it)")
        elif size > MAX_GUIDE_TEXT_BYTES:
            report.warnings.append(f"{doc.path}: its text is {size:,} bytes, more than the {MAX_GUIDE_TEXT_BYTES:,} "
                                   "a guide may hold; skipped (split it into smaller files to include it)")
        else:
            kept.append(doc)
    report.documents[:] = kept
    for rel in [rel for rel in report.images if path_problem(rel)]:
        report.warnings.append(f"{path_problem(rel)}; skipped (rename the image or its folder to include it)")
        del report.images[rel]
    for rel in [rel for rel in report.pictures if path_problem(rel)]:
        del report.pictures[rel]  # its guide's path is near the limit: the picture is missing, with a warning


def plan_course(source_dir: Path, embedding_checksum: str, *, settings: ChunkerSettings | None = None,
                include: list[str] | None = None, exclude: list[str] | None = None,
                progress: Progress | None = None) -> CoursePlan:
    """Read and chunk ``source_dir``; no embedding.

    Raises :class:`CourseFolderError` for a missing, unreadable or empty course folder,
    or one whose guides hold no text to index.
    """
    settings = settings or ChunkerSettings()
    notify = progress or (lambda stage, done, total: None)
    report = read_course(source_dir, include=include, exclude=exclude)
    _drop_unfit(report)
    notify("read", len(report.documents), len(report.documents))
    chunked: list[ChunkedDoc] = []
    images: dict[str, Path | bytes] = {**report.pictures, **report.images}
    assets: set[str] = set()
    missing: set[str] = set()
    total_chunks = 0
    for i, doc in enumerate(report.documents, 1):
        cd = chunk_document(doc, settings)
        chunked.append(cd)
        total_chunks += len(cd.chunks)
        if doc.kind in _MARKDOWN_KINDS:
            assets |= referenced_images(doc.path, doc.text, images, missing)
        notify("chunk", i, len(report.documents))
    chunks = [c for cd in chunked for c in cd.chunks]
    if not chunks:
        raise CourseFolderError(f"The guides in {source_dir} contain no text to index; add guides with content.")
    if missing:
        first = sorted(missing)[0]
        report.warnings.append(f"{len(missing):,} image{'s' if len(missing) != 1 else ''} the guides show "
                               f"{'are' if len(missing) != 1 else 'is'} not in the course folder (first: {first}); "
                               "they will be missing from the guides in the app. Copy the images into the folder to include them")
    planted = screen_course(report.documents, chunked)
    report.warnings.extend(block.warning() for block in planted)
    return CoursePlan(documents=report.documents, chunked=chunked,
                      assets={rel: images[rel] for rel in sorted(assets)}, settings=settings,
                      embedding_checksum=embedding_checksum,
                      corpus_version=corpus_version(chunks, settings, embedding_checksum),
                      warnings=report.warnings, notes=report.notes, planted=planted)
