"""Install a course bundle into a course folder, verified and atomic; roll back (issue 12).

``lantern install BUNDLE`` (often from a USB stick) goes through these steps, and nothing in the
course folder changes until the last one:

1. **verify** the file as given: it is a whole SQLite file (header, size against the page count),
   a Lantern bundle of a schema this app reads holding nothing the format does not allow (paths,
   schema objects, text sizes: checks.py, run when the reader opens it), passes SQLite's
   ``integrity_check``, was built with this app's embedding model, its content digest recomputed
   now equals the one recorded at build time (library.py), and it passes every check of
   ``lantern inspect`` (inspect.py) on every chunk and image (:data:`INSTALL_SAMPLE`);
2. **compare** it with the installed version of the same course id (``D/ID.sqlite``): guides
   added, changed and removed, chunk counts, old and new version; the same corpus version is
   "already current" (nothing to do) unless its title or language differs, which is a
   ``metadata`` change (:func:`metadata_changes`); an older build is refused unless downgrades
   are allowed;
3. **confirm** (the caller decides how: ``--yes``, or a question on a terminal);
4. **copy** into a temporary file in the course folder, flush it to disk (fsync) and verify
   the copy's digest again (a copy cut short or garbled on the way is caught here);
5. **replace**: the installed file is kept as ``ID.previous.sqlite`` (hard link, or a copy where
   links are not supported) and the new file is renamed over ``ID.sqlite`` with ``os.replace``,
   so ``ID.sqlite`` is at every moment either the old or the new complete bundle.

Steps 4 and 5 run under the course folder's **install lock** (:func:`folder_lock`): an exclusive OS
file lock on ``D/.lantern-install.lock``, so two installs at once (two lab admins, a double click)
never interleave their copies and renames. The second one waits up to :data:`LOCK_TIMEOUT_S`
seconds for the lock (still held then: refused), then checks that the installed files are those it
compared in step 2: unchanged, it goes on; replaced by this very version, it is already current;
replaced by another version, it is refused (the change confirmed is no longer the one it would
make). Nothing changes on a refusal. The lock is taken after step 3, so nobody waits on a question.

``rollback`` swaps ``ID.sqlite`` and ``ID.previous.sqlite`` the same way (a second rollback
restores the newer version). Every refusal is a :class:`~app.errors.BundleError` whose message is
one sentence naming the problem and the fix; rollback takes the same lock. Paths are handled with
:mod:`pathlib` and :func:`os.replace`, and the lock with ``filelock`` (``fcntl.flock`` on Linux and
macOS, ``msvcrt.locking`` on Windows; released by the OS when a process dies, so a killed install
leaves no stale lock), which work on Linux, Windows and macOS (on Windows a bundle that a running
app has open cannot be replaced: close the app first).
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import filelock

from ..errors import BundleError
from .files import copy_flushed, fsync_dir, keep_copy
from .install_verify import INSTALL_SAMPLE, SQLITE_HEADER, BundleFacts, verify_bundle  # noqa: F401  (re-exported)
from .library import PREVIOUS_SUFFIX, check_course_id

#: The install lock's file in a course folder (empty; it stays after an install: deleting a lock
#: file another process may be waiting on would let a third one take a second lock).
LOCK_NAME = ".lantern-install.lock"
#: Seconds an install or rollback waits for another one in the same course folder before it refuses.
LOCK_TIMEOUT_S = 30.0


@dataclass
class InstallResult:
    """What ``install`` (or ``rollback``) did or would do.

    ``result`` is ``installed``, ``already-current`` or ``rolled-back``; ``change`` is ``new``,
    ``upgrade``, ``downgrade`` or ``same``; ``old`` is the version installed before (None when the
    course was not installed or its file was unreadable); ``installed`` is ``D/ID.sqlite`` and
    ``previous`` the kept version (None when there is none).
    """

    result: str
    change: str
    course_id: str
    installed: Path
    new: BundleFacts
    old: BundleFacts | None
    previous: Path | None = None
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        """The ``install --json`` / ``rollback --json`` document (docs/instructors.md)."""
        return {"result": self.result, "change": self.change, "course_id": self.course_id,
                "installed": str(self.installed), "previous": str(self.previous) if self.previous else None,
                "old": self.old.as_json() if self.old else None, "new": self.new.as_json(),
                "guides": {"added": self.added, "changed": self.changed, "removed": self.removed},
                "metadata": {name: {"old": was, "new": now} for name, was, now in self.metadata()},
                "notes": self.notes}

    def metadata(self) -> list[tuple[str, str, str]]:
        """``(field, old, new)`` of the title and language this install changes; [] for none or a new install."""
        return metadata_changes(self.old, self.new) if self.old is not None else []

    def lines(self) -> list[str]:
        """What changes, for people: versions, chunk counts and guides added, changed and removed."""
        new = self.new
        out = [f"Course {self.course_id} ({new.title})"]
        if self.old is None:
            out.append(f"  new install     {new.version}: {_count(len(new.guides), 'guide')}, {_count(new.chunks, 'chunk')}")
        else:
            out.append(f"  installed       {self.old.version}: {_count(len(self.old.guides), 'guide')}, "
                       f"{_count(self.old.chunks, 'chunk')}")
            out.append(f"  {self.change:<15} {new.version}: {_count(len(new.guides), 'guide')}, "
                       f"{_count(new.chunks, 'chunk')} ({new.chunks - self.old.chunks:+d})")
            for name, was, now in self.metadata():
                out.append(f"  {name:<15} {was or 'unknown'!r} -> {now or 'unknown'!r}")
            for label, paths in (("added", self.added), ("changed", self.changed), ("removed", self.removed)):
                if paths:
                    shown = ", ".join(paths[:8]) + (f" and {len(paths) - 8} more" if len(paths) > 8 else "")
                    out.append(f"  guides {label:<8} {len(paths)}: {shown}")
            if not (self.added or self.changed or self.removed):
                out.append("  guides          unchanged" + ("" if self.old.corpus_version == new.corpus_version
                                                             else " (the chunking or the embeddings differ)"))
        out.extend(f"  note: {n}" for n in self.notes)
        return out


def _count(n: int, noun: str) -> str:
    """``"1 guide"``, ``"2 guides"``, ``"1,881 chunks"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def metadata_changes(old: BundleFacts, new: BundleFacts) -> list[tuple[str, str, str]]:
    """``(field, old value, new value)`` for the course metadata that differ between two versions of
    one corpus version: its ``title`` and ``language`` (a rebuild with another --title or
    --language). [] when they agree."""
    return [(name, getattr(old, name), getattr(new, name)) for name in ("title", "language")
            if getattr(old, name) != getattr(new, name)]


def _installed_facts(path: Path, embedding) -> tuple[BundleFacts | None, str]:
    """The installed version (None when absent or unreadable) and a note when it is unreadable."""
    if not path.exists():
        return None, ""
    try:
        return verify_bundle(path, None), ""
    except BundleError as exc:
        return None, f"the installed file could not be verified and will be replaced ({exc})"


def _prepare_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BundleError(f"The course folder {folder} cannot be created ({exc.strerror or exc}); choose another "
                          "with --dir or ask the lab admin for write access.") from exc


def installed_paths(folder: Path, course_id: str) -> tuple[Path, Path]:
    """``(D/ID.sqlite, D/ID.previous.sqlite)`` for a course id."""
    return folder / f"{course_id}.sqlite", folder / f"{course_id}{PREVIOUS_SUFFIX}"


@contextmanager
def folder_lock(folder: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold the install lock of the existing course folder ``folder`` (``folder/LOCK_NAME``) for
    the ``with`` block, waiting up to ``timeout`` seconds (default :data:`LOCK_TIMEOUT_S`) while
    another process holds it. Raises :class:`BundleError` (one sentence; nothing was changed) when
    it is still held after that, or when the lock file cannot be created (a read-only folder)."""
    path = Path(folder) / LOCK_NAME
    lock = filelock.FileLock(str(path), timeout=LOCK_TIMEOUT_S if timeout is None else timeout)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise BundleError(f"Another `lantern install` or `lantern rollback` is working in {folder} (it holds "
                          f"{path.name}); nothing was changed. Wait until it has finished and try again.") from exc
    except OSError as exc:
        raise BundleError(f"The course folder {folder} cannot be locked for installing ({exc.strerror or exc}); "
                          "choose another with --dir or ask the lab admin for write access.") from exc
    try:
        yield
    finally:
        lock.release()


def _fingerprint(folder: Path, course_id: str) -> tuple[tuple[int, int, int] | None, ...]:
    """What identifies the installed files of a course without reading them: for ``ID.sqlite`` and
    ``ID.previous.sqlite``, ``(size, mtime in ns, inode)`` or None when absent. A rename into place
    by another install changes it."""
    out: list[tuple[int, int, int] | None] = []
    for path in installed_paths(folder, course_id):
        try:
            st = path.stat()
        except OSError:
            out.append(None)
            continue
        out.append((st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(out)


def _plan(new: BundleFacts, folder: Path, embedding) -> InstallResult:
    """Compare ``new`` with the installed version of its course in ``folder`` (step 2): the result
    to return or carry out, ``already-current`` when it is the same corpus version."""
    current, keep = installed_paths(folder, new.course_id)
    old, note = _installed_facts(current, embedding)
    if old is None:
        change = "new" if not current.exists() else "upgrade"
    elif old.corpus_version == new.corpus_version:
        change = "same" if not metadata_changes(old, new) else "downgrade" if new.built_at < old.built_at else "metadata"
    else:
        change = "downgrade" if new.built_at < old.built_at else "upgrade"
    old_guides = old.guides if old else {}
    return InstallResult(
        result="already-current" if change == "same" else "installed", change=change, course_id=new.course_id,
        installed=current, new=new, old=old, previous=keep if keep.exists() else None,
        added=sorted(set(new.guides) - set(old_guides)) if old else [],
        changed=sorted(p for p in new.guides if p in old_guides and old_guides[p] != new.guides[p]),
        removed=sorted(set(old_guides) - set(new.guides)), notes=[note] if note else [])


def install_bundle(source: Path, folder: Path, *, embedding: tuple[str, int, str] | None,
                   allow_downgrade: bool = False,
                   confirm: Callable[[InstallResult], bool] | None = None,
                   lock_timeout: float | None = None) -> InstallResult:
    """Install ``source`` into ``folder`` as ``ID.sqlite`` (steps in the module docstring).

    ``confirm`` is called with the planned result before anything is written and must return True
    to go on (None: go on); it runs before the folder's install lock is taken, so a person reading
    the change holds no one up. Then, under the lock (waiting up to ``lock_timeout`` seconds,
    default :data:`LOCK_TIMEOUT_S`), the installed files are checked to be those compared: if
    another install changed them meanwhile, the comparison is made again and the result is
    ``already-current`` when that install put this very version in place, else a refusal.

    Returns the result (``installed`` or ``already-current``). Raises :class:`BundleError` for a
    refusal (bad file, older version without ``allow_downgrade``, no confirmation, the lock held by
    another install for ``lock_timeout`` seconds, the installed version changed by another install
    since it was compared, a copy or rename that failed); the course folder is then as it was.
    """
    source, folder = Path(source), Path(folder)
    new = verify_bundle(source, embedding)
    check_course_id(new.course_id)
    compared = _fingerprint(folder, new.course_id)
    plan = _plan(new, folder, embedding)
    if plan.change == "same":
        return plan
    old = plan.old
    if plan.change == "downgrade" and old is not None and not allow_downgrade:  # (a downgrade has an old version)
        raise BundleError(f"The bundle {source} is an older version of {new.course_id} ({new.version}) than the "
                          f"installed one ({old.version}); nothing was changed. Pass --allow-downgrade to install it anyway.")
    if confirm is not None and not confirm(plan):
        raise BundleError(f"Installation of {new.course_id} {new.version} was cancelled; nothing was changed.")
    _prepare_folder(folder)
    with folder_lock(folder, lock_timeout):
        if _fingerprint(folder, new.course_id) != compared:  # another install got there first
            again = _plan(new, folder, embedding)
            if again.change == "same":
                return again
            raise BundleError(f"Another install changed {new.course_id} in {folder} while this one waited; nothing "
                              "was changed. Run it again to see what it would change now.")
        _replace(source, new, folder, embedding, plan)
    return plan


def _replace(source: Path, new: BundleFacts, folder: Path, embedding, plan: InstallResult) -> None:
    """Steps 4 and 5: copy ``source`` into ``folder``, verify the copy, keep the installed version
    and rename the copy into place (sets ``plan.previous``). Raises :class:`BundleError`; the
    temporary copy is removed whatever happens."""
    current, keep = installed_paths(folder, new.course_id)
    tmp = folder / f".{new.course_id}.{uuid.uuid4().hex[:8]}.installing"
    try:
        try:
            copy_flushed(source, tmp)
        except OSError as exc:
            raise BundleError(f"Copying {source} into {folder} failed ({exc.strerror or exc}); nothing was changed. "
                              "Check free space and that the stick is still plugged in, then try again.") from exc
        try:
            copied = verify_bundle(tmp, embedding)
        except BundleError as exc:
            raise BundleError(f"The copy of {source} in {folder} does not match the original (the copy was "
                              "garbled or cut short); nothing was changed. Try again.") from exc
        if copied.content_digest != new.content_digest:
            raise BundleError(f"The bundle {source} changed while it was being installed; nothing was changed. "
                              "Try again once it is no longer being written.")
        try:
            if current.exists():
                keep_copy(current, keep, folder)
                plan.previous = keep
            os.replace(tmp, current)
        except OSError as exc:
            raise BundleError(f"{current} could not be replaced ({exc.strerror or exc}); the installed version is "
                              "unchanged. Close Lantern on this PC (or free disk space) and try again.") from exc
        fsync_dir(folder)
    finally:
        if tmp.exists():
            tmp.unlink()


def rollback_course(course_id: str, folder: Path, *, lock_timeout: float | None = None) -> InstallResult:
    """Swap ``ID.sqlite`` and ``ID.previous.sqlite`` in ``folder`` (a second rollback undoes the first),
    under the folder's install lock (:func:`folder_lock`, waiting up to ``lock_timeout`` seconds).

    The kept version is verified first (no embedding check: it was installed once). Raises
    :class:`BundleError` when the course id is invalid, no previous version is kept, it fails
    verification, another install or rollback holds the lock, or a rename fails; nothing changes then.
    """
    check_course_id(course_id)
    folder = Path(folder)
    current, keep = installed_paths(folder, course_id)
    nothing_kept = (f"No previous version of {course_id} is kept in {folder}, so there is nothing to roll back to; "
                    "`lantern courses` lists what is installed.")
    if not keep.exists():
        raise BundleError(nothing_kept)
    with folder_lock(folder, lock_timeout):
        if not keep.exists():  # another rollback or install moved it while this one waited
            raise BundleError(nothing_kept)
        restored = verify_bundle(keep, None)
        old, note = _installed_facts(current, None)
        _swap(course_id, folder)
    old_guides = old.guides if old else {}
    return InstallResult(
        result="rolled-back", change="downgrade" if old and restored.built_at < old.built_at else "upgrade",
        course_id=course_id, installed=current, new=restored, old=old, previous=keep if keep.exists() else None,
        added=sorted(set(restored.guides) - set(old_guides)) if old else [],
        changed=sorted(p for p in restored.guides if p in old_guides and old_guides[p] != restored.guides[p]),
        removed=sorted(set(old_guides) - set(restored.guides)), notes=[note] if note else [])


def _swap(course_id: str, folder: Path) -> None:
    """Exchange ``ID.sqlite`` and ``ID.previous.sqlite`` with renames. Raises :class:`BundleError`."""
    current, keep = installed_paths(folder, course_id)
    swap = folder / f".{course_id}.{uuid.uuid4().hex[:8]}.swap"
    restored_in_place = False
    try:
        if current.exists():
            try:
                os.link(current, swap)
            except OSError:
                copy_flushed(current, swap)
        os.replace(keep, current)
        restored_in_place = True
        if swap.exists():
            os.replace(swap, keep)
    except OSError as exc:
        where = f" (the version rolled back from is kept as {swap})" if restored_in_place and swap.exists() else ""
        raise BundleError(f"Rolling back {course_id} in {folder} failed ({exc.strerror or exc}){where}; close "
                          "Lantern on this PC and try again.") from exc
    finally:
        if swap.exists() and not restored_in_place:
            swap.unlink()
    fsync_dir(folder)
