"""The Debian package (issue 12): `make package` turns dist/lantern/ into lantern_VERSION_ARCH.deb.

The package test builds the .deb from the installer (about 40 s), unpacks it into a temporary root
(`dpkg -x`) and runs the unpacked app's self-test offline with an empty environment; it also
installs and removes it in a private dpkg database (`dpkg --root`) to show `dpkg -r` leaves nothing.
Skipped when dist/lantern/ or dpkg-deb is absent (LANTERN_REQUIRE_DIST=1 makes a missing installer a
failure, as in tests/test_dist.py). The bad-input tests need neither.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .test_dist import _no_network_prefix
from .test_package_debconf import _debconf_problem, private_debconf

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist" / "lantern"
SCRIPT = ROOT / "scripts" / "package_deb.py"

spec = importlib.util.spec_from_file_location("package_deb", SCRIPT)
package_deb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(package_deb)


def _run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=900)


def test_package_without_an_installer_is_one_sentence(tmp_path):
    result = _run_script("--dist", str(tmp_path / "lantern"), "--out", str(tmp_path / "out"))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == f"{tmp_path / 'lantern' / 'lantern'} does not exist; run `make dist` first."
    assert not (tmp_path / "out").exists()


def test_package_with_a_bad_version_or_no_course_is_refused(tmp_path):
    dist = tmp_path / "lantern"
    (dist / "_internal" / "corpus_bundle").mkdir(parents=True)
    (dist / "lantern").write_bytes(b"")
    result = _run_script("--dist", str(dist), "--out", str(tmp_path / "out"))
    assert result.returncode == 1 and "ships no course bundle" in result.stderr
    assert result.stderr.count("\n") == 1
    if shutil.which("dpkg-deb"):
        conn = sqlite3.connect(dist / "_internal" / "corpus_bundle" / "x.sqlite")
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        conn.commit()
        conn.close()
        result = _run_script("--dist", str(dist), "--out", str(tmp_path / "out"), "--version", "one point oh")
        assert result.returncode == 1 and result.stderr.startswith("'one point oh' is not a Debian version")


def test_course_id_comes_from_the_bundle_and_must_be_a_safe_file_name(tmp_path):
    bundle = tmp_path / "renamed.sqlite"
    conn = sqlite3.connect(bundle)
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('course_id', 'esp32-starter')")
    conn.commit()
    assert package_deb.course_id_of(bundle) == "esp32-starter"
    conn.execute("UPDATE meta SET value = '../etc/passwd'")
    conn.commit()
    conn.close()
    with pytest.raises(package_deb.PackageError, match="not a safe file name"):
        package_deb.course_id_of(bundle)
    (tmp_path / "junk.sqlite").write_bytes(b"not sqlite at all, just text" * 10)
    with pytest.raises(package_deb.PackageError, match="cannot be read"):
        package_deb.course_id_of(tmp_path / "junk.sqlite")


@pytest.mark.skipif(sys.platform != "linux", reason="the package is built on Debian or Ubuntu")
def test_staged_package_follows_debian_policy_and_leaves_the_installer_as_it_was(tmp_path):
    """What lintian checks (docs/instructors.md): changelog, man page, overrides, md5sums, 0644 shared
    libraries, an absolute link from /usr/bin into /opt; dist/ itself keeps its modes."""
    dist = tmp_path / "lantern"
    (dist / "_internal" / "corpus_bundle").mkdir(parents=True)
    (dist / "lantern").write_bytes(b"\x7fELF program")
    (dist / "lantern").chmod(0o755)
    lib = dist / "_internal" / "libfoo.so.1"
    lib.write_bytes(b"\x7fELF library")
    lib.chmod(0o755)
    conn = sqlite3.connect(dist / "_internal" / "corpus_bundle" / "x.sqlite")
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('course_id', 'demo')")
    conn.commit()
    conn.close()
    root = tmp_path / "root"
    ids = package_deb.stage(dist, root, version="1.2.3", arch="amd64", maintainer="Lab Admin <admin@school.example>")
    assert ids == ["demo"]

    assert os.readlink(root / "usr" / "bin" / "lantern") == "/opt/lantern/lantern"
    assert (root / "opt" / "lantern" / "lantern").stat().st_mode & 0o777 == 0o755
    assert (root / "opt" / "lantern" / "_internal" / "libfoo.so.1").stat().st_mode & 0o777 == 0o644
    assert lib.stat().st_mode & 0o777 == 0o755  # copied, not a hard link whose mode changed
    assert not (root / "opt" / "lantern" / "_internal" / "corpus_bundle").exists()
    assert (root / "usr" / "share" / "lantern" / "courses" / "demo.sqlite").is_file()

    doc = root / "usr" / "share" / "doc" / "lantern"
    assert "Copyright: 2" in (doc / "copyright").read_text(encoding="utf-8")
    log = gzip.decompress((doc / "changelog.gz").read_bytes()).decode("utf-8")
    assert log.startswith("lantern (1.2.3) unstable; urgency=medium\n")
    assert "\n -- Lab Admin <admin@school.example>  " in log
    man = gzip.decompress((root / "usr" / "share" / "man" / "man1" / "lantern.1.gz").read_bytes()).decode("utf-8")
    assert ".TH LANTERN 1" in man
    overrides = (root / "usr" / "share" / "lintian" / "overrides" / "lantern").read_text(encoding="utf-8")
    rules = [line for line in overrides.splitlines() if line and not line.startswith("#")]
    assert rules and all(line.startswith("lantern: ") for line in rules)
    assert "dir-or-file-in-opt" in overrides and "relative-symlink" not in overrides

    sums = (root / "DEBIAN" / "md5sums").read_text(encoding="utf-8").splitlines()
    listed = {line.split("  ", 1)[1] for line in sums}
    files = {str(p.relative_to(root)) for p in root.rglob("*")
             if p.is_file() and not p.is_symlink() and p.parts[len(root.parts)] != "DEBIAN"}
    assert listed == files and "opt/lantern/lantern" in listed
    modes = {p.stat().st_mode & 0o777 for p in root.rglob("*") if p.is_dir()}
    assert modes == {0o755}


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    if not (DIST / "lantern").is_file():
        if os.environ.get("LANTERN_REQUIRE_DIST") == "1":
            pytest.fail(f"{DIST / 'lantern'} is missing: run `make dist` before this test.")
        pytest.skip("the installer is not built (make dist)")
    if not shutil.which("dpkg-deb"):
        if os.environ.get("LANTERN_REQUIRE_DIST") == "1":
            pytest.fail("dpkg-deb is missing: the Debian package cannot be built and checked.")
        pytest.skip("dpkg-deb is not installed")
    out = tmp_path_factory.mktemp("deb")
    result = _run_script("--out", str(out))
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path.parent == out and path.name.startswith("lantern_") and path.suffix == ".deb"
    yield path
    shutil.rmtree(out, ignore_errors=True)  # 600 MB: not kept among pytest's last temporary folders


@pytest.fixture
def root(tmp_path):
    """A folder standing in for / (the unpacked package: 700 MB, removed after the test)."""
    path = tmp_path / "root"
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _shipped_course_id() -> str:
    bundle = next((DIST / "_internal" / "corpus_bundle").glob("*.sqlite"))
    return package_deb.course_id_of(bundle)


@pytest.mark.real
def test_deb_control_and_file_list(deb):
    info = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split(": ", 1) for line in info.splitlines() if ": " in line and not line.startswith(" "))
    assert fields["Package"] == "lantern" and fields["Version"] == package_deb.project_version()
    assert fields["Depends"].startswith("libc6 (>= 2.") and "libxcb1" in fields["Depends"]
    assert int(fields["Installed-Size"]) > 100_000  # KiB: the app and its models
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    paths, files, owners, executable_libs = [], [], set(), []
    for line in listing.splitlines():
        parts = line.split()
        owners.add(parts[1])
        paths.append(parts[5].removeprefix("."))
        if not parts[0].startswith("d"):
            files.append(paths[-1])
        if parts[0].startswith("-") and "x" in parts[0] and package_deb.SHARED_LIBRARY.search(paths[-1]):
            executable_libs.append(paths[-1])
    assert owners == {"root/root"}
    assert executable_libs == []  # Debian policy 8.1 (lintian: shared-library-is-executable)
    for path in ("/usr/share/doc/lantern/copyright", "/usr/share/doc/lantern/changelog.gz",
                 "/usr/share/man/man1/lantern.1.gz", "/usr/share/lintian/overrides/lantern"):
        assert path in files
    sums = subprocess.run(["dpkg-deb", "-I", str(deb), "md5sums"], capture_output=True, text=True, check=True).stdout
    assert "  opt/lantern/lantern\n" in sums
    outside = [p for p in files if not p.startswith(("/opt/lantern/", "/usr/bin/", "/usr/share/"))]
    assert outside == []
    assert not any(p.startswith("/usr/local") for p in paths)  # the admin's folder for later updates
    assert f"/usr/share/lantern/courses/{_shipped_course_id()}.sqlite" in paths
    assert not any(p.startswith("/opt/lantern/_internal/corpus_bundle/") and p.endswith(".sqlite") for p in paths)


@pytest.mark.real
def test_unpacked_deb_self_tests_offline_and_puts_menu_entry_and_course_in_place(deb, root, tmp_path):
    subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    unpacked = sorted(root.rglob("*"))
    # An absolute link (it crosses from /usr into /opt): in this stand-in root, run the file it names.
    assert os.readlink(root / "usr" / "bin" / "lantern") == "/opt/lantern/lantern"
    command = root / "opt" / "lantern" / "lantern"
    assert os.access(command, os.X_OK)

    desktop = (root / "usr" / "share" / "applications" / "lantern.desktop").read_text(encoding="utf-8")
    entry = dict(line.split("=", 1) for line in desktop.splitlines() if "=" in line)
    assert desktop.startswith("[Desktop Entry]\n") and entry["Type"] == "Application"
    assert entry["Exec"] == "lantern" and entry["Icon"] == "lantern" and entry["Terminal"] == "false"
    assert "License: MIT" in (root / "usr" / "share" / "doc" / "lantern" / "copyright").read_text(encoding="utf-8")
    icon = root / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps" / "lantern.svg"
    assert icon.read_text(encoding="utf-8").startswith("<svg")
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(root / "usr/share/applications/lantern.desktop")],
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr

    course_id = _shipped_course_id()
    course = root / "usr" / "share" / "lantern" / "courses" / f"{course_id}.sqlite"
    assert course.is_file() and not course.is_symlink()
    assert not list((root / "opt" / "lantern" / "_internal" / "corpus_bundle").glob("*.sqlite"))

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANTERN_CONFIG_DIR": str(tmp_path / "config")}
    # Where the app looks by default: /usr/share/lantern/courses is one of its machine-wide folders.
    listed = subprocess.run([str(command), "courses", "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    machine = [f["path"] for f in json.loads(listed.stdout)["folders"] if f["kind"] == "machine"]
    assert "/usr/share/lantern/courses" in machine
    # The unpacked root stands in for /: point the machine-wide folder at its copy.
    env["LANTERN_COURSES_DIR"] = str(course.parent)
    listed = subprocess.run([str(command), "courses", "--json"], env=env, capture_output=True, text=True, timeout=300)
    courses = json.loads(listed.stdout)["courses"]
    assert [(c["course_id"], c["folder"], c["state"], c["path"]) for c in courses] == [
        (course_id, "machine", "ok", str(course))]

    prefix = _no_network_prefix()
    result = subprocess.run(prefix + [str(command), "--self-test"], env=env, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    line = result.stdout.strip()
    assert line.startswith(f"self-test ok: bundle {course_id}.sqlite ") and " citing [" in line
    # The app wrote nothing under the package's folders (caches, compiled files): `dpkg -r` can remove them all.
    assert sorted(root.rglob("*")) == unpacked
    if not prefix:
        pytest.skip("self-test passed, but this machine cannot cut the network off (no unshare -rn)")


@pytest.mark.real
def test_dpkg_install_and_remove_in_a_private_root_leave_nothing_behind(deb, root, tmp_path):
    if not (shutil.which("dpkg") and hasattr(os, "geteuid") and os.geteuid() == 0):
        pytest.skip("installing into a private dpkg root needs dpkg and root (or fakeroot)")
    admin = root / "var" / "lib" / "dpkg"
    for sub in ("info", "updates"):
        (admin / sub).mkdir(parents=True)
    (admin / "status").write_text("")
    (admin / "available").write_text("")
    if _debconf_problem():
        pytest.skip(_debconf_problem())
    private_debconf(root)  # the postinst asks debconf (tests/test_package_debconf.py); its answers stay in root
    debconf_db = root / "var" / "cache" / "debconf"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("DEBCONF_", "DEBIAN_"))},
           "DEBIAN_FRONTEND": "noninteractive"}
    dpkg = ["dpkg", f"--root={root}", f"--log={tmp_path / 'dpkg.log'}", "--force-script-chrootless"]
    before = {p for p in root.rglob("*")}
    # The private database knows no libc6 or libxcb1: only their absence is forced.
    installed = subprocess.run(dpkg + ["--force-depends", "-i", str(deb)], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    assert (root / "usr" / "bin" / "lantern").is_symlink() and (root / "opt" / "lantern" / "lantern").is_file()
    removed = subprocess.run(dpkg + ["-r", "lantern"], env=env, capture_output=True, text=True)
    assert removed.returncode == 0, removed.stderr
    left = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p not in before and not p.is_relative_to(admin) and not p.is_relative_to(debconf_db))
    assert left == ["etc/lantern", "etc/lantern/settings.toml"]  # the lab's report choice, kept until purge
    purged = subprocess.run(dpkg + ["-P", "lantern"], env=env, capture_output=True, text=True)
    assert purged.returncode == 0, purged.stderr
    assert not (root / "etc" / "lantern").exists()
