"""The instructor and course-library commands of :mod:`app.cli`: ``check`` and ``inspect``
(issue 6; also ``build``'s incremental options) and ``courses``, ``install`` and ``rollback``
(issue 12): their arguments and their implementations. ``main`` in :mod:`app.cli` dispatches to
:data:`INSTRUCTOR_COMMANDS` and :data:`LIBRARY_COMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .errors import LanternError, ModelError


def _count(n: int, noun: str) -> str:
    """``"1 guide"``, ``"2 guides"``, ``"1,881 chunks"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


# --- instructor commands (issue 6): check, inspect (self-test: app.cli) --------------------------

def _add_instructor_commands(sub) -> None:
    """Add ``check`` and ``inspect``, and the incremental options of ``build``."""
    build = sub.choices["build"]
    build.add_argument("--previous", type=Path, metavar="BUNDLE",
                       help="reuse embeddings of unchanged chunks from this bundle (default: the output, if it exists)")
    build.add_argument("--full", action="store_true", help="embed every chunk again (no reuse)")
    build.add_argument("--keep-originals", action="store_true",
                       help="also store the original Word, PowerPoint, OpenDocument, EPUB, notebook and PDF files, "
                            "so the app can open them (the bundle grows by their size)")
    build.add_argument("--no-answer-blocks", dest="answer_blocks", action="store_false",
                       help="do not embed the answer blocks (about as long again as the chunks; for a very large "
                            "course): the same answers, but each question then embeds the blocks it compares "
                            "(evidence about 4 times slower)")

    check = sub.add_parser(
        "check", help="exit 0 if a bundle is up to date with its course folder, 1 if stale, 2 on error",
        description="Compare a course folder with a bundle without embedding anything: added, changed and "
        "removed guides and images, chunker settings, the embedding model, and the corpus version a build "
        "would produce. Exit codes follow `diff`: 0 up to date, 1 stale, 2 error.",
        epilog="example (CI):\n  lantern check courses/esp32-starter corpus_bundle/esp32-starter.sqlite || "
        "echo 'rebuild the bundle'", formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("source_dir", type=Path, help="folder holding the course guides")
    check.add_argument("bundle", type=Path, help="bundle file to compare with")
    check.add_argument("--include", action="append", default=None, metavar="GLOB",
                       help="as for build (default: the globs the bundle was built with)")
    check.add_argument("--exclude", action="append", default=None, metavar="GLOB",
                       help="as for build (default: the globs the bundle was built with)")
    check.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    inspect = sub.add_parser(
        "inspect", help="describe a bundle and check its integrity",
        description="Show a bundle's title, corpus and schema version, build date, embedding model, counts and "
        "size, and check its integrity (row counts of chunks, FTS5 and vectors agree; sampled digests match). "
        "Exit 0 when the integrity check passes, 1 when it fails or the file is not a bundle. "
        "The --json shape is documented in docs/inspect.md.",
        epilog="example:\n  lantern inspect corpus_bundle/esp32-starter.sqlite --json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    inspect.add_argument("bundle", type=Path, help="bundle file (.sqlite)")
    inspect.add_argument("--sample", type=int, default=200,
                         help="chunks and images whose digests are verified (default 200; 0 = all)")
    inspect.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def _cmd_check(args) -> int:
    from .bundle.freshness import check_bundle
    from .embedding import manifest_embedding

    try:
        result = check_bundle(args.source_dir, args.bundle, manifest_embedding(),
                              include=args.include, exclude=args.exclude)
    except LanternError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_json(), ensure_ascii=False))
    else:
        print("\n".join(result.lines()))
    return 0 if result.up_to_date else 1


def _cmd_inspect(args) -> int:
    from .bundle.inspect import inspect_bundle

    if args.sample < 0:
        raise LanternError(f"--sample must be 0 (all) or more (got {args.sample}).")
    result = inspect_bundle(args.bundle, sample=args.sample)
    if args.json:
        print(json.dumps(result.as_json(), ensure_ascii=False))
    else:
        print("\n".join(result.lines()))
    if not result.integrity.ok:
        print(f"error: the bundle {args.bundle} failed its integrity check ({result.integrity.problems[0]}); "
              "rebuild it with `lantern build`.", file=sys.stderr)
        return 1
    return 0


INSTRUCTOR_COMMANDS = {"check": _cmd_check, "inspect": _cmd_inspect}


# --- the course library (issue 12): courses, install, rollback -------------------------

def _add_library_commands(sub) -> None:
    """Add ``courses``, ``install`` and ``rollback``."""
    courses = sub.add_parser(
        "courses", help="list the course bundles this PC has, with their version and state",
        description="Find every course bundle in, in order: the app's own folders, the machine-wide folder "
        "($LANTERN_COURSES_DIR, else platformdirs' site data folder), the user's data folder, and the settings "
        "file's bundle. Each bundle is opened read-only and verified (SQLite quick_check and content digest); "
        "its state is ok, damaged, needs-newer-app or older-version (another copy of the same course id is "
        "newer). The --json shape is documented in docs/instructors.md.",
        epilog="examples:\n  lantern courses\n  lantern courses --json\n"
        "  lantern courses --dir /media/usb   (only the bundles on a USB stick)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    courses.add_argument("--dir", action="append", type=Path, default=None, metavar="D",
                         help="list only the bundles in folder D (repeatable)")
    courses.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    install = sub.add_parser(
        "install", help="verify a course bundle, show what changes, and install it (keeping the previous version)",
        description="Verify BUNDLE (SQLite integrity, schema, embedding model, content digest), compare it with "
        "the installed version of the same course id (guides added, changed and removed; chunk counts; old and "
        "new version), then copy it into the course folder as ID.sqlite atomically, keeping the installed "
        "version as ID.previous.sqlite for `lantern rollback`. The same corpus version is already current "
        "(exit 0) unless its title or language differs (then only those change); an older version is refused "
        "unless --allow-downgrade. Without --yes, the change is shown and confirmed on a terminal; with no "
        "terminal (a script), the install is refused: pass --yes. The copy "
        "and rename run under the course folder's lock (D/.lantern-install.lock): a second install or rollback in "
        "the same folder waits up to 30 s, then refuses. "
        "Exit 0 installed or already current, 1 refused (one sentence on stderr; nothing changed).",
        epilog="examples:\n  lantern install /media/usb/esp32-starter.sqlite\n"
        "  lantern install /media/usb/esp32-starter.sqlite --yes --json   (scripts)\n"
        "  lantern install old.sqlite --allow-downgrade --yes\n"
        "  LANTERN_COURSES_DIR=/usr/local/share/lantern/courses lantern install course.sqlite --yes   (all users)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    install.add_argument("bundle", type=Path, help="the course bundle file to install (.sqlite)")
    install.add_argument("--dir", type=Path, metavar="D", help="course folder to install into (default: "
                         "$LANTERN_COURSES_DIR, else the user's course folder)")
    install.add_argument("--yes", action="store_true", help="install without asking for confirmation")
    install.add_argument("--allow-downgrade", action="store_true", help="install even if it is older than the "
                         "installed version")
    install.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    rollback = sub.add_parser(
        "rollback", help="restore the version of a course installed before the last install",
        description="Swap ID.sqlite and ID.previous.sqlite in the course folder (verifying the kept version "
        "first), so the version installed before the last `lantern install` is back; a second rollback "
        "restores the newer one. Exit 0 rolled back, 1 refused (nothing changed).",
        epilog="example:\n  lantern rollback esp32-starter",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    rollback.add_argument("course_id", help="the course id (as `lantern courses` lists it)")
    rollback.add_argument("--dir", type=Path, metavar="D", help="course folder (default: as for install)")
    rollback.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def _app_embedding():
    """``(model id, dim, checksum)`` of this app's embedding model, or None when the manifest cannot be read."""
    from . import embedding

    try:
        return embedding.manifest_embedding()
    except ModelError:
        return None


def _cmd_courses(args) -> int:
    from .bundle.library import CourseFolder, course_folders, list_courses

    folders = [CourseFolder("dir", d) for d in args.dir] if args.dir else course_folders()
    entries = list_courses(folders, embedding=_app_embedding())
    if args.json:
        print(json.dumps({"folders": [{"kind": f.kind, "path": str(f.path), "exists": f.path.exists()}
                                      for f in folders],
                          "courses": [e.as_json() for e in entries]}, ensure_ascii=False))
        return 0
    if not entries:
        print("No course bundles found. Looked in:")
        for f in folders:
            print(f"  {f.kind:<8} {f.path}{'' if f.path.exists() else '  (does not exist)'}")
        return 0
    from .ingest.language import language_name

    for e in entries:
        counts = (f"{_count(e.guides, 'guide')}, {_count(e.chunks, 'chunk')}"
                  if e.guides is not None and e.chunks is not None else "")  # (read together)
        if e.language:
            counts += f", {language_name(e.language)}"
        print(f"{e.state:<15} {e.course_id}  {e.title}  {e.version}  {counts}".rstrip())
        print(f"                {e.path}  ({e.folder})")
        if e.reason:
            print(f"                {e.reason}")
    return 0


def _confirm_install(args):
    """The confirmation policy of ``install`` (docs/instructors.md): ``--yes`` goes on; on a terminal the
    change is shown and a ``y`` answer goes on; without a terminal (a script, a pipe) the install is
    refused, because nobody has seen what it would replace."""
    def confirm(plan) -> bool:
        if args.yes:
            return True
        if not sys.stdin or not sys.stdin.isatty():
            raise LanternError(f"Installing {plan.course_id} {plan.new.version} needs confirmation and there is no "
                               "terminal to ask on; nothing was changed. Run it again with --yes.")
        out = sys.stderr if args.json else sys.stdout
        print("\n".join(plan.lines()), file=out)
        print(f"Install {plan.new.version} into {plan.installed.parent}? [y/N] ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    return confirm


def _cmd_install(args) -> int:
    from .bundle.install import install_bundle
    from .bundle.library import default_install_dir

    folder = args.dir or default_install_dir()
    result = install_bundle(args.bundle, folder, embedding=_app_embedding(), allow_downgrade=args.allow_downgrade,
                            confirm=_confirm_install(args))
    if args.json:
        print(json.dumps(result.as_json(), ensure_ascii=False))
    elif result.result == "already-current":
        current = result.old or result.new  # the same corpus version: the installed one is ``old``
        print(f"{result.course_id} {current.version} is already installed at {result.installed} "
              f"(same corpus version); nothing to do.")
    else:
        if args.yes:
            print("\n".join(result.lines()))
        kept = f"; the previous version is kept as {result.previous.name}" if result.previous else ""
        changed = "; ".join(f"{name} {was or 'unknown'!r} -> {now or 'unknown'!r}" for name, was, now in result.metadata())
        only = (f" (the same guides and chunks; only the course details changed: {changed})"
                if result.change == "metadata" else "")
        print(f"Installed {result.course_id} {result.new.version} as {result.installed}{only}{kept}.")
    return 0


def _cmd_rollback(args) -> int:
    from .bundle.install import rollback_course
    from .bundle.library import default_install_dir

    result = rollback_course(args.course_id, args.dir or default_install_dir())
    if args.json:
        print(json.dumps(result.as_json(), ensure_ascii=False))
    else:
        print("\n".join(result.lines()))
        print(f"Rolled back {result.course_id} to {result.new.version}"
              + (f"; {result.old.version} is kept as {result.previous.name} (roll back again to restore it)."
                 if result.old and result.previous else "."))
    return 0


LIBRARY_COMMANDS = {"courses": _cmd_courses, "install": _cmd_install, "rollback": _cmd_rollback}
