#!/usr/bin/env python3
"""Build a Debian package from the one-folder installer: `make package` (after `make dist`).

    python3 scripts/package_deb.py [--dist dist/lantern] [--out dist] [--version V] [--compression xz|gzip|zstd|none]

What the package installs (docs/instructors.md, "Roll-out on lab PCs"):
- /opt/lantern/                         the installer folder as `make dist` built it;
- /usr/bin/lantern                      a link to /opt/lantern/lantern (the app and the command line);
- /usr/share/applications/lantern.desktop and /usr/share/icons/hicolor/scalable/apps/lantern.svg;
- /usr/share/doc/lantern/copyright (packaging/copyright) and changelog.gz (packaging/debian/changelog.in);
- /usr/share/man/man1/lantern.1.gz (packaging/lantern.1);
- /usr/share/lintian/overrides/lantern  the lintian tags expected of a bundled PyInstaller app, each with
  its reason (packaging/lintian-overrides; docs/instructors.md has the lintian result);
- /usr/share/lantern/courses/ID.sqlite  each course the installer ships, named by its course id, moved
  out of /opt/lantern/_internal/corpus_bundle/ into the machine-wide course folder the app reads
  (platformdirs' site data folders: /usr/local/share/lantern/courses, then /usr/share/lantern/courses).
  An app that ships no bundle opens the first course there (app.bundle.library.default_bundle).

Nothing is fetched: the package is put together from dist/ and the files in packaging/, and
`dpkg-deb --root-owner-group` writes it (all files owned by root), with DEBIAN/md5sums for `dpkg --verify`.
Shared libraries are installed 0644, directories 0755 (Debian policy). `dpkg -r` removes exactly the
files listed here; course updates installed later with `lantern install` go to
/usr/local/share/lantern/courses, which the package never touches.

One debconf question (packaging/debian/templates, config, postinst, postrm; docs/instructors.md):
`lantern/report`, whether to keep questions for the instructor's report (default no), in English, French
and Spanish (``Description-fr.UTF-8`` and ``Description-es.UTF-8`` in the templates file). postinst writes
the answer into the lab-wide settings file /etc/lantern/settings.toml (`instructor_report = true|false`,
other lines kept; not a conffile); `dpkg-reconfigure lantern` changes it, `dpkg --purge` removes it.
Exit codes: 0 built (the .deb's path on stdout), 1 a problem you can fix (one sentence on stderr).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import tomllib
from datetime import datetime, timezone
from email.utils import format_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
PREFIX = "opt/lantern"
COURSES = "usr/share/lantern/courses"
DEFAULT_MAINTAINER = "Lantern maintainers <lantern@localhost>"


class PackageError(Exception):
    """A problem the person running the script can fix; the message is one sentence."""


def course_id_of(bundle: Path) -> str:
    """The course id recorded in a bundle's ``meta`` (the file name without ``.sqlite`` for a bundle
    built before course ids existed)."""
    try:
        conn = sqlite3.connect(f"file:{bundle}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'course_id'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise PackageError(f"The course bundle {bundle} cannot be read ({exc}); build it again and run "
                           "`make dist` before `make package`.") from exc
    course_id = row[0] if row else bundle.name.removesuffix(".sqlite")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", course_id):
        raise PackageError(f"The course bundle {bundle} has the course id {course_id!r}, which is not a safe "
                           "file name; rebuild it with `lantern build --id`.")
    return course_id


def glibc_version() -> str:
    """The build machine's glibc version (``2.36``): the oldest a lab PC may have (docs/instructors.md)."""
    version = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else ""
    match = re.search(r"(\d+\.\d+)", version or "")
    if not match:
        raise PackageError("The C library's version could not be found; build the package on a glibc-based "
                           "Linux distribution (Debian, Ubuntu).")
    return match.group(1)


def project_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["version"]


SHARED_LIBRARY = re.compile(r"\.so(\.[0-9.]+)?$")


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link when ``src`` and ``dst`` share a file system (no 700 MB copy), else a copy. A shared
    library that PyInstaller wrote executable (0755) is copied and made 0644 (Debian policy 8.1),
    so the installer folder in dist/ keeps its modes."""
    if SHARED_LIBRARY.search(os.path.basename(src)) and os.stat(src).st_mode & 0o111:
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o644)
        return
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _gzip_to(text: str, path: Path) -> None:
    """``gzip -9n``: no file name or time stamp in the header, so the same text gives the same bytes."""
    path.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


def changelog(version: str, maintainer: str) -> str:
    """The package's Debian changelog: one entry for ``version``, dated ``$SOURCE_DATE_EPOCH`` (else now)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = datetime.fromtimestamp(int(epoch) if epoch.isdigit() else time.time(), timezone.utc)
    text = (PACKAGING / "debian" / "changelog.in").read_text(encoding="utf-8")
    for key, value in {"VERSION": version, "MAINTAINER": maintainer, "DATE": format_datetime(when)}.items():
        text = text.replace(f"@{key}@", value)
    return text


def md5sums(root: Path) -> str:
    """DEBIAN/md5sums: each regular file's MD5 and path (as dh_md5sums writes it)."""
    lines = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == "DEBIAN" or path.is_symlink() or not path.is_file():
            continue
        with open(path, "rb") as f:
            lines.append(f"{hashlib.file_digest(f, 'md5').hexdigest()}  {rel.as_posix()}\n")
    return "".join(lines)


def stage(dist: Path, root: Path, *, version: str, arch: str, maintainer: str) -> list[str]:
    """Lay out the package's files under ``root`` (emptied first) with ``DEBIAN/control``; returns the
    course ids placed in the machine-wide folder."""
    if root.exists():
        shutil.rmtree(root)
    app = root / PREFIX
    app.parent.mkdir(parents=True)
    # Hard links keep dist/'s modes (PyInstaller writes 0755 programs and libraries, 0644 data).
    shutil.copytree(dist, app, symlinks=True, copy_function=_link_or_copy)

    courses = root / COURSES
    courses.mkdir(parents=True)
    shipped = sorted((app / "_internal" / "corpus_bundle").glob("*.sqlite"))
    ids = []
    for bundle in shipped:
        course_id = course_id_of(bundle)
        if course_id in ids:
            raise PackageError(f"The installer ships two bundles of the course {course_id}; keep one in "
                               "corpus_bundle/ and run `make dist` again.")
        ids.append(course_id)
        target = courses / f"{course_id}.sqlite"
        bundle.replace(target)
        target.chmod(0o644)
    shipped_dir = app / "_internal" / "corpus_bundle"
    if not any(shipped_dir.iterdir()):
        shipped_dir.rmdir()  # empty now: the app reads the machine-wide folder

    bin_dir = root / "usr" / "bin"
    bin_dir.mkdir(parents=True)
    # Absolute: it points from /usr into /opt, another top-level folder (Debian policy 10.5).
    (bin_dir / "lantern").symlink_to(f"/{PREFIX}/lantern")
    apps = root / "usr" / "share" / "applications"
    apps.mkdir(parents=True)
    shutil.copyfile(PACKAGING / "lantern.desktop", apps / "lantern.desktop")
    icons = root / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps"
    icons.mkdir(parents=True)
    shutil.copyfile(ROOT / "assets" / "lantern.svg", icons / "lantern.svg")
    docs = root / "usr" / "share" / "doc" / "lantern"
    docs.mkdir(parents=True)
    shutil.copyfile(PACKAGING / "copyright", docs / "copyright")
    _gzip_to(changelog(version, maintainer), docs / "changelog.gz")
    man = root / "usr" / "share" / "man" / "man1"
    man.mkdir(parents=True)
    _gzip_to((PACKAGING / "lantern.1").read_text(encoding="utf-8"), man / "lantern.1.gz")
    overrides = root / "usr" / "share" / "lintian" / "overrides"
    overrides.mkdir(parents=True)
    shutil.copyfile(PACKAGING / "lintian-overrides", overrides / "lantern")
    for path in (apps / "lantern.desktop", icons / "lantern.svg", docs / "copyright", docs / "changelog.gz",
                 man / "lantern.1.gz", overrides / "lantern"):
        path.chmod(0o644)
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())]:
        folder.chmod(0o755)  # whatever the umask or dist/'s folders were

    size_kib = sum((p.lstat().st_size + 1023) // 1024 for p in root.rglob("*") if not p.is_dir())
    control = (PACKAGING / "debian" / "control.in").read_text(encoding="utf-8")
    for key, value in {"VERSION": version, "ARCH": arch, "MAINTAINER": maintainer,
                       "INSTALLED_SIZE": str(size_kib), "GLIBC": glibc_version()}.items():
        control = control.replace(f"@{key}@", value)
    if "@" in control.replace(maintainer, ""):
        raise PackageError("packaging/debian/control.in has a placeholder this script does not fill; fix the template.")
    (root / "DEBIAN").mkdir(mode=0o755)
    (root / "DEBIAN").chmod(0o755)
    for name, text in (("control", control), ("md5sums", md5sums(root))):
        (root / "DEBIAN" / name).write_text(text, encoding="utf-8")
        (root / "DEBIAN" / name).chmod(0o644)
    add_debconf(root / "DEBIAN")
    return ids


#: The debconf files in packaging/debian/ and their modes in DEBIAN/ (the scripts run, the templates are read).
DEBCONF_FILES = {"templates": 0o644, "config": 0o755, "postinst": 0o755, "postrm": 0o755}


def add_debconf(debian: Path) -> None:
    """Copy the debconf question and the maintainer scripts into the package's ``DEBIAN/`` folder."""
    for name, mode in DEBCONF_FILES.items():
        shutil.copyfile(PACKAGING / "debian" / name, debian / name)
        (debian / name).chmod(mode)


def build(dist: Path, out: Path, *, version: str, compression: str, maintainer: str) -> Path:
    """Stage and write ``out/lantern_VERSION_ARCH.deb``; returns its path."""
    exe = dist / "lantern"
    if not exe.is_file() or not (dist / "_internal").is_dir():
        raise PackageError(f"{exe} does not exist; run `make dist` first.")
    if not list((dist / "_internal" / "corpus_bundle").glob("*.sqlite")):
        raise PackageError(f"The installer in {dist} ships no course bundle; run `make dist BUNDLE=...` first.")
    dpkg_deb = shutil.which("dpkg-deb")
    dpkg = shutil.which("dpkg")
    if not dpkg_deb or not dpkg:
        raise PackageError("dpkg-deb is not installed; build the package on Debian or Ubuntu "
                           "(`apt install dpkg-dev` elsewhere).")
    arch = subprocess.run([dpkg, "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    if not re.fullmatch(r"[0-9][A-Za-z0-9.+~-]*", version):
        raise PackageError(f"{version!r} is not a Debian version; use digits, letters and . + ~ -, e.g. 0.1.0.")
    staging = ROOT / "build" / "deb" / f"lantern_{version}_{arch}"
    staging.parent.mkdir(parents=True, exist_ok=True)
    stage(dist, staging, version=version, arch=arch, maintainer=maintainer)
    out.mkdir(parents=True, exist_ok=True)
    deb = out / f"lantern_{version}_{arch}.deb"
    tmp = deb.with_name(f".{deb.name}.tmp-{os.getpid()}")
    cmd = [dpkg_deb, "--root-owner-group", f"-Z{compression}", "--build", str(staging), str(tmp)]
    if compression != "none":
        cmd[2:2] = ["-z6"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        message = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise PackageError(f"dpkg-deb could not build the package ({message}).")
    tmp.replace(deb)
    shutil.rmtree(staging)
    return deb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build lantern_VERSION_ARCH.deb from the one-folder installer.")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist" / "lantern", help="the installer folder (make dist)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the .deb goes")
    parser.add_argument("--version", default="", help="the package version (default: pyproject.toml's)")
    parser.add_argument("--compression", choices=["xz", "gzip", "zstd", "none"], default="gzip",
                        help="dpkg-deb's compressor (gzip, the default: 40 s; xz: 8 min for 4%% less: "
                             "the models do not compress)")
    parser.add_argument("--maintainer", default=os.environ.get("DEB_MAINTAINER", DEFAULT_MAINTAINER),
                        help="the Maintainer field (default: $DEB_MAINTAINER)")
    args = parser.parse_args(argv)
    try:
        deb = build(args.dist, args.out, version=args.version or project_version(), compression=args.compression,
                    maintainer=args.maintainer)
    except PackageError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(deb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
