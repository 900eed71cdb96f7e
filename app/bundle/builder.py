"""Build a corpus bundle from a course folder: atomic and incremental.

The bundle is written to a temporary file beside the target and renamed into place
only when complete, so a failed or interrupted build leaves the previous bundle as it
was and never a half-written one. A build killed outright cannot delete its temporary file; the
next build of the same bundle removes it (``remove_stale_temporary_files``). Every build writes every table afresh, so a deleted
guide leaves no rows anywhere (sources, headings, chunks, FTS5, vec0, assets).

Incremental: embeddings are the expensive part (about 35 chunks/s on a 2-core PC), so
a chunk whose indexed text (its words plus the title and heading context) has the same
sha256 as a chunk of the previous bundle reuses that chunk's vector, provided the
previous bundle was built with the same embedding model (id, dimension and file
checksum). Reuse never changes the result: the corpus version and every stored row
are what a full build would write.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import apsw

from ..embedding import Embedder
from ..errors import LanternError
from ..ingest.chunker import ChunkerSettings
from ..ingest.language import check_language, detect_language
from .block_vectors import reusable_block_vectors
from .library import bundle_identity, check_course_id, default_course_id
from .originals import dropped_originals_note, is_original, keep_original_files
from .plan import CoursePlan, Progress, corpus_version, plan_course
from .schema import CONTENT_DIGEST_KEY, connect, content_digest
from .writer import write_bundle

__all__ = ["BuildReport", "build_bundle", "check_output", "corpus_version", "previous_vectors", "remove_stale_temporary_files"]


@dataclass
class BuildReport:
    """What a build did; ``seconds`` is wall-clock time of the whole build.

    ``embedded`` chunks were run through the embedding model, ``reused`` took their
    vector from ``previous`` (the bundle reused from, or None for a full build).
    """

    bundle: Path
    corpus_version: str
    sources: int
    chunks: int
    assets: int
    seconds: float
    embedded: int = 0
    reused: int = 0
    previous: Path | None = None
    #: answer blocks stored (``block_vectors``) and how many of them were embedded now (the rest reused)
    blocks: int = 0
    blocks_embedded: int = 0
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The course's language tag recorded in ``meta`` ('' unknown: not recorded), and whether it
    #: was guessed from the guides (app/ingest/language.py) rather than given.
    language: str = ""
    language_detected: bool = False


def previous_vectors(path: Path, embedder: Embedder) -> tuple[dict[str, bytes], str]:
    """Embeddings of an earlier bundle keyed by the sha256 of the chunk's indexed text, and those of
    its answer blocks keyed ``block:`` + block key (app/bundle/block_vectors.py).

    Returns ``(vectors, note)``: ``vectors`` maps sha256 hex -> ``dim`` float32 values as
    bytes (a block's: its stored bytes); it is empty, with ``note`` saying why, when the file is missing, unreadable, damaged
    (its content digest differs) or was built with another embedding model (id, dimension or
    checksum differ). Never raises
    for a bad previous bundle: the build then embeds everything.
    """
    path = Path(path)
    if not path.is_file():
        return {}, ""
    try:
        conn = connect(str(path), read_only=True)
    except apsw.Error as exc:
        return {}, f"{path.name} could not be opened ({exc.__class__.__name__}); embedding every chunk"
    try:
        meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
        theirs = (meta.get("embedding_model_id"), meta.get("embedding_dim"), meta.get("embedding_checksum"))
        ours = (embedder.model_id, str(embedder.dim), embedder.checksum)
        if theirs != ours:
            return {}, (f"{path.name} was built with {theirs[0]} ({theirs[1]} dims, checksum {str(theirs[2])[:12]}); "
                        f"this build uses {ours[0]} ({ours[1]} dims, checksum {ours[2][:12]}): embedding every chunk")
        recorded = meta.get(CONTENT_DIGEST_KEY)
        if recorded and content_digest(conn) != recorded:  # a damaged vector must not be copied forward
            return {}, f"{path.name} is damaged (its content digest differs); embedding every chunk"
        rows = conn.execute("SELECT c.sha256, v.embedding FROM chunks c JOIN chunk_vectors v ON v.rowid = c.id")
        size = 4 * embedder.dim
        vectors = {sha: bytes(blob) for sha, blob in rows if blob is not None and len(blob) == size}
        return vectors | reusable_block_vectors(conn, embedder.dim), ""
    except UnicodeDecodeError:
        return {}, f"{path.name} is damaged (stored text is not valid UTF-8); embedding every chunk"
    except apsw.Error as exc:
        return {}, f"{path.name} is not a readable Lantern bundle ({exc.__class__.__name__}); embedding every chunk"
    finally:
        conn.close()


def build_bundle(source_dir: Path, output: Path | str, embedder: Embedder, *, title: str = "",
                 settings: ChunkerSettings | None = None, include: list[str] | None = None,
                 exclude: list[str] | None = None, progress: Progress | None = None,
                 previous: Path | None = None, reuse: bool = True, course_id: str = "",
                 language: str | None = None, force: bool = False, keep_originals: bool = False,
                 answer_blocks: bool = True) -> BuildReport:
    """Read ``source_dir``, chunk, embed and index it, and write the bundle to ``output``.

    Embeddings are reused from ``previous`` (default: the existing ``output``) for chunks
    whose indexed-text sha256 is unchanged, unless ``reuse`` is False. ``course_id`` (default: the
    folder's name as a slug) is recorded with a content digest (library.py). ``language`` is the
    course's language tag (``en``, ``pt-BR``), recorded as ``meta['language']``; None guesses it
    from the guides' prose (:func:`app.ingest.language.detect_language`: py3langid, about a second), and '' or a
    guess that is unsure records none (unknown). ``output`` is checked first (:func:`check_output`;
    ``force`` replaces another course's bundle); without ``title``, rebuilding the same course's
    bundle in place keeps that bundle's title (with a note), else the folder's name. ``keep_originals``
    also stores the original file of every converted guide (app/bundle/originals.py);
    ``answer_blocks=False`` leaves ``block_vectors`` empty (app/bundle/block_vectors.py). Raises
    :class:`LanternError` for an invalid ``course_id`` or ``language``, an ``output`` that
    :func:`check_output` refuses, or an output that cannot be written (the previous ``output`` is
    then untouched), :class:`CourseFolderError` for a missing/unreadable/empty course folder.
    """
    started = time.perf_counter()
    notify = progress or (lambda stage, done, total: None)
    _refuse_folder_name(output, course_id or "course")
    output = Path(output)
    course_id = check_course_id(course_id) if course_id else default_course_id(source_dir)
    if language:
        language = check_language(language)
    title, kept_title = _title_to_keep(output, source_dir, course_id, title, force)
    _check_writable(output)
    if previous is not None and not Path(previous).is_file():
        raise LanternError(f"The previous bundle {previous} does not exist; give --previous an existing "
                           "bundle file, or leave it out to reuse the output's embeddings.")
    plan = plan_course(source_dir, embedder.checksum, settings=settings, include=include, exclude=exclude,
                       progress=notify)
    notes = list(plan.notes)
    if keep_originals:
        notes.append(keep_original_files(source_dir, plan))
    elif dropped := dropped_originals_note(output):
        notes.append(dropped)
    if kept_title:
        notes.append(f"kept the title {kept_title!r} of the bundle being rebuilt (--title changes it)")
    detected = language is None
    if language is None:
        language = detect_language(doc.text for doc in plan.documents if doc.kind != "code")
    reuse_from = Path(previous) if previous is not None else output
    vectors = _reusable_vectors(reuse_from, embedder, notes) if reuse else {}
    notes.extend(remove_stale_temporary_files(output))
    globs = {"include": list(include or []), "exclude": list(exclude or [])}
    embedded, blocks, blocks_embedded = _write_in_place(output, plan, embedder, vectors,
                                                        title or Path(source_dir).resolve().name, globs,
                                                        notify, course_id, language, answer_blocks)
    n = len(plan.chunks)
    return BuildReport(bundle=output, corpus_version=plan.corpus_version, sources=len(plan.documents), chunks=n,
                       assets=sum(not is_original(a) for a in plan.assets), seconds=time.perf_counter() - started,
                       embedded=embedded, reused=n - embedded, previous=reuse_from if vectors else None,
                       warnings=plan.warnings, notes=notes, language=language,
                       language_detected=detected and bool(language), blocks=blocks, blocks_embedded=blocks_embedded)


def _title_to_keep(output: Path, source_dir: Path, course_id: str, title: str, force: bool) -> tuple[str, str]:
    """Check ``output`` (:func:`check_output`) and return ``(title, kept title)``: without ``title``,
    rebuilding the same course's bundle keeps that bundle's title (kept title '' otherwise)."""
    replaced = check_output(output, source_dir, course_id, force=force)
    if not title and replaced.get("title") and bundle_identity(replaced, output).course_id == course_id:
        return replaced["title"], replaced["title"]
    return title, ""


def _reusable_vectors(reuse_from: Path, embedder: Embedder, notes: list[str]) -> dict[str, bytes]:
    """:func:`previous_vectors` of ``reuse_from``, with the note saying why none are reused appended to ``notes``."""
    vectors, why = previous_vectors(reuse_from, embedder)
    if why:
        notes.append(why)
    return vectors


def _built_at() -> str:
    """The build time recorded as ``meta['built_at']``: UTC, ISO 8601, whole seconds."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _write_in_place(output: Path, plan: CoursePlan, embedder: Embedder, vectors: dict[str, bytes], title: str,
                    globs: dict, notify: Progress, course_id: str, language: str,
                    answer_blocks: bool = True) -> tuple[int, int, int]:
    """Write the bundle to a temporary file beside ``output`` and rename it over ``output``; returns
    :func:`write_bundle`'s counts (chunks embedded, answer blocks, answer blocks embedded). Raises
    :class:`LanternError` (the temporary file removed, ``output`` untouched) when it cannot be written."""
    tmp = output.with_name(f".{output.name}.tmp-{os.getpid()}")
    try:
        counts = write_bundle(tmp, plan, embedder, vectors, title, globs, notify, course_id, language, _built_at,
                              answer_blocks)
        os.replace(tmp, output)
    except (OSError, apsw.Error) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise LanternError(f"The bundle {output} could not be written ({why}); "
                           "check free space and permissions, then build again.") from exc
    finally:
        for leftover in (tmp, Path(f"{tmp}-journal")):
            if leftover.exists():
                leftover.unlink()
    return counts


def _bundle_meta(path: Path) -> dict[str, str] | None:
    """The ``meta`` table of ``path`` when it is a Lantern bundle (a SQLite file holding Lantern's
    ``meta``, ``sources`` and ``chunks`` tables), else None. Reads the 16-byte header first, so a
    file that is not SQLite is never handed to SQLite. Never raises."""
    try:
        with open(path, "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                return None
        conn = connect(str(path), read_only=True)
    except (OSError, apsw.Error):
        return None
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        if not {"meta", "sources", "chunks"} <= tables:
            return None
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except (apsw.Error, UnicodeDecodeError):
        return None
    finally:
        conn.close()


def check_output(output: Path | str, source_dir: Path, course_id: str, *, force: bool = False) -> dict[str, str]:
    """Refuse a build's ``output`` that it must not replace, before anything is read or written, and
    return the ``meta`` of the bundle it will replace ({} when there is none).

    Raises :class:`LanternError` (one sentence; nothing was written) when ``output`` is a folder, a
    ``str`` ending in a path separator (``out/``: a folder's name, even if none exists yet), or not a
    regular file, lies inside ``source_dir`` (the course's own README.md, say, or any file
    beside the guides; symbolic links are followed), exists and is not a Lantern bundle (an empty
    file is fine), or is the bundle of a course id other than ``course_id`` and ``force`` is False.
    Rebuilding the same course's bundle in place is allowed (that is an incremental rebuild), even
    when that bundle is damaged but still readable as a bundle."""
    _refuse_folder_name(output, course_id)
    output = Path(output)
    try:
        inside = output.resolve().is_relative_to(Path(source_dir).resolve())
    except (OSError, RuntimeError):  # a symbolic-link loop
        inside = False
    if inside:
        raise LanternError(f"The output {output} lies inside the course folder {source_dir}; nothing was written. "
                           f"Write the bundle outside it, e.g. -o {Path(source_dir).resolve().parent / (course_id + '.sqlite')}.")
    if not output.exists():
        return {}
    if output.is_dir():
        raise LanternError(f"The output {output} is a folder; give `-o` a file name such as {output}/course.sqlite.")
    if not output.is_file():
        raise LanternError(f"The output {output} is not a regular file; nothing was written. Give -o a .sqlite file name.")
    if output.stat().st_size == 0:
        return {}
    meta = _bundle_meta(output)
    if meta is None:
        raise LanternError(f"{output} exists and is not a Lantern bundle, so the build will not replace it; nothing "
                           "was written. Give -o another file name (or move that file away first).")
    theirs = bundle_identity(meta, output).course_id
    if theirs != course_id and not force:
        raise LanternError(f"{output} is the bundle of another course ({theirs}), not of {course_id}; nothing was "
                           f"written. Give -o another file name, pass --id {theirs} if it is the same course, or "
                           "--force to replace it.")
    return meta


def _refuse_folder_name(output: Path | str, course_id: str) -> None:
    """Raise :class:`LanternError` when ``output`` is given as text ending in a path separator, which
    names a folder (``Path`` drops the separator, so a file named like the folder would be written)."""
    if isinstance(output, str) and output.endswith(("/", os.sep)):
        raise LanternError(f"The output {output} ends with {output[-1]!r}, so it names a folder, not a bundle file; "
                           f"nothing was written. Give -o a file name such as {output}{course_id}.sqlite.")


def _check_writable(output: Path) -> None:
    """Create ``output``'s folder, and fail before the minutes of reading and embedding when it cannot
    be made or cannot take a new file (read-only, no permission, /proc). Raises :class:`LanternError`."""
    folder = output.parent
    probe = folder / f".{output.name}.probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LanternError(f"The output folder {folder} cannot be created ({exc.strerror}); "
                           "choose another place for the bundle.") from exc
    try:
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise LanternError(f"The bundle cannot be written to {folder} ({exc.strerror or exc}); "
                           "choose a folder you can write to with -o.") from exc


#: A temporary bundle untouched for this long (seconds) is stale even if its process id is in use:
#: a running build writes to it every few seconds, and the id may belong to an unrelated process now.
STALE_AFTER_SECONDS = 3600


def _process_alive(pid: int) -> bool:
    """True when a process with this id exists (POSIX); on Windows always True, where a file a
    live build holds open cannot be deleted anyway."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)  # signal 0: existence check only
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temporary_files(output: Path) -> list[str]:
    """Delete the temporary files (``.NAME.sqlite.tmp-PID`` and its ``-journal``) that earlier
    builds of ``output`` left when they were killed: those whose process is gone, or untouched for
    :data:`STALE_AFTER_SECONDS`. A file of a build still running is left alone. Returns one note
    per file removed (name and size in MB); a file that cannot be removed is skipped with a note.
    Never raises for a file it cannot remove or read.
    """
    notes: list[str] = []
    pattern = re.compile(re.escape(f".{output.name}.tmp-") + r"(\d+)(-journal)?")
    try:
        candidates = list(output.parent.iterdir()) if output.parent.is_dir() else []
    except OSError:
        return notes
    for path in candidates:
        match = pattern.fullmatch(path.name)
        if not match or int(match.group(1)) == os.getpid():
            continue
        try:
            stat = path.stat()
            stale = not _process_alive(int(match.group(1))) or time.time() - stat.st_mtime > STALE_AFTER_SECONDS
            if not stale:
                continue
            path.unlink()
        except OSError as exc:
            notes.append(f"{path.name} (a temporary file of another build) could not be removed "
                         f"({exc.strerror or exc}); delete it by hand if no build is running")
            continue
        notes.append(f"removed {path.name} ({stat.st_size / 1e6:.1f} MB), left by an interrupted build")
    return notes
