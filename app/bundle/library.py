"""A bundle's identity: course id, human-readable version and content digest (issue 12).

Written once at build time into ``meta`` (by :func:`identity_meta`, called from the builder)
and read back by ``inspect``, ``courses`` and ``install``:

- ``course_id``: a stable, file-name-safe name of the course (``lantern build --id``, default the
  course folder's name made into a slug). Two bundles with one course id are two versions of one
  course.
- ``course_version``: build date and short corpus version, e.g. ``2026-12-01-a482c15b``; for people.
- ``content_digest``: hex sha256 over everything the app reads from the bundle, in a defined order
  (:func:`app.bundle.schema.content_digest`), recomputed at open by the reader and by ``install``
  to prove the file is the one that was built.

Bundles built before these keys existed still open: their course id is derived from the file
name, their version from ``built_at`` and the corpus version, and they have no digest (not
verifiable).

:func:`default_bundle` is the course the app opens when none is named.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

import apsw
from platformdirs import site_data_dir, user_data_dir

from ..config import Settings, app_dir, resource_root
from ..errors import LanternError
from .schema import content_digest

#: What a course id may look like: lower-case letters and digits, single hyphens between them,
#: at most 64 characters (safe as a file name on Linux, Windows and macOS).
COURSE_ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
COURSE_ID_MAX = 64
#: ``meta`` keys of a bundle's identity (``content_digest`` is written by the builder last).
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


def identity_meta(meta: dict[str, str], course_id: str) -> dict[str, str]:
    """The identity keys a build adds to ``meta``: ``course_id`` and ``course_version`` (from
    ``meta['built_at']`` and ``meta['corpus_version']``). The builder records ``content_digest``
    last, over every table and the rest of ``meta`` (:func:`app.bundle.schema.content_digest`)."""
    return {"course_id": check_course_id(course_id),
            "course_version": short_version(meta.get("built_at", ""), meta.get("corpus_version", ""))}


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
    return DIGEST_VERIFIED if content_digest(conn) == recorded else DIGEST_MISMATCH


# --- the course library: where bundles are found, and what state each is in ----------------

#: States of a bundle in the library (``lantern courses``).
STATE_OK, STATE_DAMAGED, STATE_NEEDS_NEWER_APP, STATE_OLDER = "ok", "damaged", "needs-newer-app", "older-version"
#: Folder kinds, in search order.
FOLDER_KINDS = ("app", "machine", "user", "settings")
#: Name ending of the version kept for ``lantern rollback`` (``ID.previous.sqlite``); such files
#: are not listed as courses.
PREVIOUS_SUFFIX = ".previous.sqlite"
APP_DIR_NAME = "lantern"


@dataclass(frozen=True)
class CourseFolder:
    """One place bundles are looked for: ``kind`` is one of :data:`FOLDER_KINDS`; ``path`` is a folder,
    or for ``settings`` the bundle file the settings name."""

    kind: str
    path: Path


def app_course_folders() -> list[Path]:
    """The installed app's own folders: ``courses/`` beside the frozen app's executable, and the
    ``corpus_bundle/`` shipped inside it (in a source checkout: the repository's ``corpus_bundle/``)."""
    folders = [resource_root() / "corpus_bundle"]
    beside = app_dir()
    if beside is not None:
        folders.insert(0, beside / "courses")
    return folders


def machine_course_folders() -> list[Path]:
    """Machine-wide course folders: ``$LANTERN_COURSES_DIR`` when set, else ``courses/`` in each of
    platformdirs' site data folders for "lantern" (on Linux ``/usr/local/share/lantern/courses`` and
    ``/usr/share/lantern/courses``; on Windows under ProgramData; on macOS under /Library/Application Support)."""
    override = os.environ.get("LANTERN_COURSES_DIR")
    if override:
        return [Path(override)]
    paths = site_data_dir(APP_DIR_NAME, appauthor=False, multipath=True).split(os.pathsep)
    return [Path(p) / "courses" for p in paths if p]


def user_courses_dir() -> Path:
    """The user's course folder: ``courses/`` in platformdirs' user data folder for "lantern"
    (on Linux ``~/.local/share/lantern/courses``)."""
    return Path(user_data_dir(APP_DIR_NAME, appauthor=False)) / "courses"


def default_install_dir() -> Path:
    """Where ``lantern install`` puts a bundle without ``--dir``: ``$LANTERN_COURSES_DIR`` when set
    (a lab admin's machine-wide folder), else the user's course folder."""
    override = os.environ.get("LANTERN_COURSES_DIR")
    return Path(override) if override else user_courses_dir()


def course_folders() -> list[CourseFolder]:
    """Every place bundles are looked for, in order: the app's folders, the machine-wide folders,
    the user's folder, and the settings file's ``bundle`` (when set)."""
    out = [CourseFolder("app", p) for p in app_course_folders()]
    out += [CourseFolder("machine", p) for p in machine_course_folders()]
    out.append(CourseFolder("user", user_courses_dir()))
    chosen = Settings.load().bundle
    if chosen:
        out.append(CourseFolder("settings", Path(chosen)))
    return out


@dataclass
class CourseEntry:
    """One bundle found in the library.

    ``state`` is one of ``ok``, ``damaged``, ``needs-newer-app``, ``older-version``; ``reason`` says
    why in one sentence ('' when ok); ``degraded`` lists named degraded states the course would run in
    (``keyword-only`` when built with another embedding model than this app's). ``guides`` and
    ``chunks`` are counts (None when the file cannot be read); ``folder`` is the kind of folder it was
    found in; ``language`` is the course's language tag as recorded at build time (``meta['language']``),
    '' when unknown (not recorded, or the file cannot be read).
    """

    path: Path
    folder: str
    course_id: str
    title: str
    version: str
    corpus_version: str
    built_at: str
    guides: int | None
    chunks: int | None
    state: str
    reason: str = ""
    degraded: list[str] | None = None
    language: str = ""

    def as_json(self) -> dict:
        """One entry of ``courses --json`` (docs/instructors.md)."""
        return {"path": str(self.path), "folder": self.folder, "course_id": self.course_id, "title": self.title,
                "version": self.version, "corpus_version": self.corpus_version, "built_at": self.built_at,
                "guides": self.guides, "chunks": self.chunks, "language": self.language or None,
                "state": self.state, "reason": self.reason, "degraded": list(self.degraded or [])}


def _too_new(path: Path) -> str:
    """A sentence when ``path`` looks like a bundle from a newer Lantern (newer schema or tokenizer),
    else ''. Never raises."""
    import json

    from ..text.tokenize import TOKENIZER_VERSION
    from .schema import SCHEMA_VERSION, connect

    try:
        conn = connect(str(path), read_only=True)
        try:
            meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
        finally:
            conn.close()
        schema = int(meta.get("schema_version", "0"))
        tokenizer = int(json.loads(meta.get("lexical", "{}")).get("tokenizer_version", 0))
    except (apsw.Error, ValueError, TypeError, AttributeError):
        return ""
    if schema > SCHEMA_VERSION:
        return (f"it has bundle schema version {schema} and this app reads version {SCHEMA_VERSION}; "
                "update Lantern to open it")
    if tokenizer > TOKENIZER_VERSION:
        return (f"it was indexed with tokenizer version {tokenizer} and this app searches with version "
                f"{TOKENIZER_VERSION}; update Lantern to open it")
    return ""


def probe_bundle(path: Path, folder: str = "", *, verify: bool = True,
                 embedding: tuple[str, int, str] | None = None) -> CourseEntry:
    """Open ``path`` read-only and describe it as a library entry (never raises for a bad file).

    With ``verify``, also run SQLite's ``quick_check`` and recompute the content digest (about one
    read of the file); a failure makes the entry ``damaged``. ``embedding`` is ``(model id, dim,
    checksum)`` of this app's embedding model; a bundle built with another is listed ``ok`` with
    ``degraded=["keyword-only"]``.
    """
    from ..errors import BundleError
    from .reader import BundleReader

    path = Path(path)
    who = bundle_identity({}, path)
    # What is known so far; each return below says the state.
    base = CourseEntry(path=path, folder=folder, course_id=who.course_id, title=path.stem, version="", corpus_version="",
                       built_at="", guides=None, chunks=None, state=STATE_DAMAGED)
    try:
        reader = BundleReader(path)
    except BundleError as exc:
        newer = _too_new(path) if path.is_file() else ""
        if newer:
            return replace(base, state=STATE_NEEDS_NEWER_APP, reason=f"{path.name}: {newer}.")
        return replace(base, state=STATE_DAMAGED, reason=str(exc))
    try:
        meta = reader.meta
        who = bundle_identity(meta, path)
        base = replace(base, course_id=who.course_id, title=reader.title, version=who.course_version,
                       corpus_version=who.corpus_version, built_at=who.built_at, language=meta.get("language", ""))
        try:
            base = replace(base, guides=int(reader._query("SELECT count(*) FROM sources")[0][0]),
                           chunks=reader.chunk_count())
            problem = ""
            if verify:
                quick = [str(r[0]) for r in reader._query("PRAGMA quick_check")]
                if quick != ["ok"]:
                    problem = f"SQLite's quick_check reports {quick[0]}"
                else:
                    with reader._lock:
                        if verify_digest(reader._conn, meta) == DIGEST_MISMATCH:
                            problem = "its content digest differs from the one recorded at build time"
        except (apsw.Error, BundleError) as exc:
            problem = f"it cannot be read to the end ({exc.__class__.__name__})"
        if problem:
            return replace(base, state=STATE_DAMAGED,
                           reason=f"The course bundle {path} is damaged ({problem}); install a good copy again.")
        degraded = []
        if embedding is not None and (meta["embedding_model_id"], meta["embedding_dim"],
                                      meta["embedding_checksum"]) != (embedding[0], str(embedding[1]), embedding[2]):
            degraded.append("keyword-only")
        return replace(base, state=STATE_OK, degraded=degraded,
                       reason=(f"built with the embedding model {meta['embedding_model_id']}, not this app's "
                               f"{embedding[0]}: keyword search only" if degraded and embedding is not None else ""))
    finally:
        reader.close()


def _bundle_files(folder: CourseFolder) -> list[Path]:
    """The bundle files of one folder (``*.sqlite``, sorted by name; hidden, temporary and
    ``*.previous.sqlite`` files left out), or the settings' bundle file itself."""
    if folder.kind == "settings":
        return [folder.path]
    try:
        found = sorted(p for p in folder.path.glob("*.sqlite") if p.is_file())
    except OSError:
        return []
    return [p for p in found if not p.name.startswith(".") and not p.name.endswith(PREVIOUS_SUFFIX)]


def mark_older_versions(entries: list[CourseEntry]) -> list[CourseEntry]:
    """Among the ``ok`` entries of one course id, keep the newest (latest ``built_at``; on a tie the
    first found) ``ok`` and mark the others ``older-version``. Changes and returns ``entries``."""
    newest: dict[str, CourseEntry] = {}
    for entry in entries:
        if entry.state == STATE_OK:
            best = newest.get(entry.course_id)
            if best is None or entry.built_at > best.built_at:
                newest[entry.course_id] = entry
    for entry in entries:
        best = newest.get(entry.course_id)
        if entry.state == STATE_OK and best is not None and entry is not best:
            entry.state = STATE_OLDER
            entry.reason = (f"the same corpus version of {entry.course_id}, built later, is at {best.path}"
                            if entry.corpus_version == best.corpus_version else
                            f"a newer version of {entry.course_id} ({best.version}) is at {best.path}")
    return entries


def list_courses(folders: list[CourseFolder] | None = None, *, verify: bool = True,
                 embedding: tuple[str, int, str] | None = None) -> list[CourseEntry]:
    """Every bundle in ``folders`` (default :func:`course_folders`), in folder order then by file
    name, each file once (by resolved path), with duplicates of a course id resolved by
    :func:`mark_older_versions`. Never raises for a bad bundle or a missing folder."""
    seen: set[Path] = set()
    entries: list[CourseEntry] = []
    for folder in course_folders() if folders is None else folders:
        for path in _bundle_files(folder):
            key = path.resolve()
            if key in seen:
                continue
            seen.add(key)
            entries.append(probe_bundle(path, folder.kind, verify=verify, embedding=embedding))
    return mark_older_versions(entries)


def newest_version_of(path: Path, entries: list[CourseEntry] | None = None) -> Path:
    """``path``, or the newest ``ok`` copy of the same course when the library lists ``path`` as
    an ``older-version`` (a course updated from a USB stick since it was last opened). ``entries``
    defaults to :func:`list_courses` without the digest check (reading each bundle's meta: a few ms
    each). Never raises."""
    try:
        listed = list_courses(verify=False) if entries is None else entries
        here = Path(path).resolve()
        mine = next((e for e in listed if e.path.resolve() == here), None)
        if mine is None or mine.state != STATE_OLDER:
            return Path(path)
        newest = [e for e in listed if e.course_id == mine.course_id and e.state == STATE_OK]
        return newest[0].path if newest else Path(path)
    except Exception:  # noqa: BLE001 - the remembered course still opens
        return Path(path)


def default_bundle() -> Path | None:
    """The bundle to open when none is named, or None when there is none: ``$LANTERN_BUNDLE``;
    the settings' ``bundle`` (replaced by the newest copy of the same course when the course
    library lists it as an older version, :func:`newest_version_of`); the first ``*.sqlite`` in
    ``<app dir>/corpus_bundle``, then in ``<resource root>/corpus_bundle`` (the bundle shipped with
    the app); the first course in the machine-wide course folders (:func:`_bundle_files`)."""
    override = os.environ.get("LANTERN_BUNDLE")
    if override:
        return Path(override)
    chosen = Settings.load().bundle
    if chosen:
        return newest_version_of(Path(chosen))
    beside = app_dir()
    shipped = ([beside / "corpus_bundle"] if beside is not None else []) + [resource_root() / "corpus_bundle"]
    for folder in shipped:
        found = sorted(folder.glob("*.sqlite"))
        if found:
            return found[0]
    # An app that ships no bundle (the Debian package moves its courses to the machine-wide folder,
    # scripts/package_deb.py): the first course there, where a course installed later comes first.
    for path in machine_course_folders():
        found = _bundle_files(CourseFolder("machine", path))
        if found:
            return found[0]
    return None
