"""The Debian package's debconf question (issue 28): "keep questions for the instructor's report?".

packaging/debian/{templates,config,postinst,postrm} are run for real with debconf, against a private
root folder (``DPKG_ROOT``, which dpkg sets for chrootless scripts and debconf honours: its database
lives under that root), so nothing of this machine's /etc or debconf database is touched and no root
is needed. Skipped where debconf is absent or too old to know DPKG_ROOT. The last test installs a
small package (a stand-in installer folder) with ``dpkg --root``; it needs dpkg-deb and root or fakeroot.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEBIAN = ROOT / "packaging" / "debian"
FRONTEND = Path("/usr/share/debconf/frontend")

spec = importlib.util.spec_from_file_location("package_deb", ROOT / "scripts" / "package_deb.py")
package_deb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(package_deb)


def _debconf_problem() -> str | None:
    if sys.platform != "linux" or not shutil.which("debconf-communicate") or not FRONTEND.is_file():
        return "debconf is not installed (it is on every Debian or Ubuntu system)"
    if "DPKG_ROOT" not in FRONTEND.read_text(encoding="utf-8", errors="replace"):
        return "this debconf is older than DPKG_ROOT support (1.5.79): it would use the machine's own database"
    return None


needs_debconf = pytest.mark.skipif(_debconf_problem() is not None, reason=str(_debconf_problem()))

DEBCONF_CONF = """Config: configdb
Templates: templatedb

Name: configdb
Driver: File
Mode: 644
Filename: /var/cache/debconf/config.dat

Name: templatedb
Driver: File
Mode: 644
Filename: /var/cache/debconf/templates.dat
"""


def private_debconf(root: Path) -> None:
    """A debconf database of its own under ``root`` (read by debconf when ``DPKG_ROOT`` is ``root``)."""
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "var" / "cache" / "debconf").mkdir(parents=True, exist_ok=True)
    (root / "etc" / "debconf.conf").write_text(DEBCONF_CONF, encoding="utf-8")


class Box:
    """The maintainer scripts as dpkg leaves them (``info/lantern.*``) and a private root with debconf."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "root"
        self.info = tmp / "info"
        self.info.mkdir()
        for name in package_deb.DEBCONF_FILES:
            shutil.copy2(DEBIAN / name, self.info / f"lantern.{name}")
        private_debconf(self.root)
        self.conf = self.root / "etc" / "lantern" / "settings.toml"

    def env(self, frontend: str = "noninteractive") -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DEBCONF_", "DEBIAN_"))}
        return {**env, "DPKG_ROOT": str(self.root), "DEBIAN_FRONTEND": frontend}

    def run(self, script: str, *args: str, frontend: str = "noninteractive", answer: str = "") -> None:
        done = subprocess.run(["sh", str(self.info / f"lantern.{script}"), *args], env=self.env(frontend),
                              input=answer, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr

    def debconf(self, command: str) -> str:
        done = subprocess.run(["debconf-communicate", "lantern"], input=command + "\n", env=self.env(),
                              capture_output=True, text=True, timeout=60)
        return done.stdout.strip()

    def settings(self) -> dict:
        return tomllib.loads(self.conf.read_text(encoding="utf-8"))


@pytest.fixture
def box(tmp_path) -> Box:
    return Box(tmp_path)


def test_the_question_is_a_boolean_that_defaults_to_no_and_the_package_ships_the_scripts(tmp_path):
    template = (DEBIAN / "templates").read_text(encoding="utf-8")
    fields = dict(line.split(": ", 1) for line in template.splitlines() if line and not line.startswith(" "))
    assert fields["Template"] == "lantern/report" and fields["Type"] == "boolean" and fields["Default"] == "false"
    assert "never an account name" in template
    for name in ("config", "postinst", "postrm"):
        check = subprocess.run(["sh", "-n", str(DEBIAN / name)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    dist = tmp_path / "lantern"
    (dist / "_internal" / "corpus_bundle").mkdir(parents=True)
    (dist / "lantern").write_bytes(b"\x7fELF program")
    conn = sqlite3.connect(dist / "_internal" / "corpus_bundle" / "x.sqlite")
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.commit()
    conn.close()
    root = tmp_path / "root"
    package_deb.stage(dist, root, version="1.0", arch="amd64", maintainer="Lab <lab@school.example>")
    modes = {p.name: p.stat().st_mode & 0o777 for p in (root / "DEBIAN").iterdir()}
    assert modes == {"control": 0o644, "md5sums": 0o644, "templates": 0o644, "config": 0o755,
                     "postinst": 0o755, "postrm": 0o755}
    control = (root / "DEBIAN" / "control").read_text(encoding="utf-8")
    assert "debconf (>= 0.5) | debconf-2.0" in control  # lintian: missing-debconf-dependency
    assert "etc/lantern" not in (root / "DEBIAN" / "md5sums").read_text(encoding="utf-8")  # not a shipped file


def _descriptions(templates: str) -> dict[str, list[str]]:
    """Each ``Description*`` field of a one-question templates file: its synopsis, then its lines."""
    fields: dict[str, list[str]] = {}
    name = ""
    for line in templates.splitlines():
        if line.startswith(" "):
            if name:
                fields[name].append(line[1:])
        elif line:
            key, _, value = line.partition(": ")
            name = key if key.startswith("Description") else ""
            if name:
                fields[name] = [value]
    return fields


def test_the_question_is_translated_to_french_and_spanish_in_the_package(tmp_path):
    """debconf's own format for translated templates (what po2debconf writes from debian/po/*.po):
    ``Description-<code>.UTF-8`` fields, copied as they are into the package's DEBIAN/templates."""
    debian = tmp_path / "DEBIAN"
    debian.mkdir()
    package_deb.add_debconf(debian)
    fields = _descriptions((debian / "templates").read_text(encoding="utf-8"))
    assert set(fields) == {"Description", "Description-fr.UTF-8", "Description-es.UTF-8"}
    english = fields["Description"]
    for code in ("fr", "es"):
        text = fields[f"Description-{code}.UTF-8"]
        assert len(text[0]) <= 75 and text[0] != english[0] and text[0].rstrip().endswith("?")
        assert all(len(line) < 80 for line in text[1:])
        assert text.count(".") == english.count(".")  # the same paragraphs
        body = " ".join(text[1:])
        for kept in ("lantern report", "/etc/lantern/settings.toml", "(instructor_report)", "dpkg-reconfigure", "90"):
            assert kept in body, (code, kept)
    assert "étudiants" in " ".join(fields["Description-fr.UTF-8"])
    assert "estudiantes" in " ".join(fields["Description-es.UTF-8"])


@needs_debconf
def test_a_preseeded_noninteractive_install_turns_the_report_on_for_the_app(box, monkeypatch):
    done = subprocess.run(["debconf-set-selections"], input="lantern lantern/report boolean true\n",
                          env=box.env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    box.run("postinst", "configure", "")
    assert box.settings() == {"instructor_report": True}
    assert box.conf.stat().st_mode & 0o777 == 0o644
    # What the app then reads (app/system_settings.py): on, decided by this file, not by the student's.
    from app.report.status import report_status

    monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", str(box.conf))
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    status = report_status()
    assert status["on"] and status["decided_by"] == "lab-wide file" and status["file"] == str(box.conf)


@needs_debconf
def test_without_an_answer_the_report_is_written_off(box):
    box.run("postinst", "configure", "")
    assert box.settings() == {"instructor_report": False}
    assert box.debconf("GET lantern/report") == "0 false"


@needs_debconf
def test_other_lines_are_kept_and_a_hand_edit_survives_an_upgrade(box):
    box.conf.parent.mkdir(parents=True)
    box.conf.write_text('# our lab\nreport_retention_days = 30\nmodel_url = "http://10.0.0.5:8080"\n\n'
                        '[notes]\nwho = "lab admin"\n', encoding="utf-8")
    box.run("postinst", "configure", "")
    assert box.settings() == {"report_retention_days": 30, "model_url": "http://10.0.0.5:8080",
                              "instructor_report": False, "notes": {"who": "lab admin"}}
    assert box.conf.read_text(encoding="utf-8").startswith("# our lab\n")
    # The admin turns it on by hand; upgrading the package (postinst again) keeps the admin's edit.
    box.conf.write_text(box.conf.read_text(encoding="utf-8").replace("instructor_report = false",
                                                                     "instructor_report   = true  # on"))
    box.run("postinst", "configure", "1.0")
    assert box.settings()["instructor_report"] is True and box.settings()["report_retention_days"] == 30
    assert box.debconf("GET lantern/report") == "0 true"


@needs_debconf
def test_reconfiguring_asks_again_and_purge_removes_the_file_and_the_answer(box):
    subprocess.run(["debconf-set-selections"], input="lantern lantern/report boolean true\n", env=box.env(), text=True,
                   check=True, capture_output=True, timeout=60)
    box.run("postinst", "configure", "")
    box.conf.write_text(box.conf.read_text(encoding="utf-8") + "report_retention_days = 14\n", encoding="utf-8")
    # As `dpkg-reconfigure lantern` does: the question is shown again (here on a text terminal) and answered.
    assert box.debconf("FSET lantern/report seen false").startswith("0")
    box.run("postinst", "configure", "1.0", frontend="teletype", answer="no\n")
    assert box.settings() == {"instructor_report": False, "report_retention_days": 14}
    box.run("postrm", "remove")
    assert box.conf.is_file()  # `dpkg -r` keeps the lab's choice for a reinstall
    box.run("postrm", "purge")
    assert not box.conf.parent.exists()
    assert box.debconf("GET lantern/report").startswith("10 ")  # forgotten


def _dpkg_prefix() -> list[str] | None:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return []
    return ["fakeroot"] if shutil.which("fakeroot") else None


@needs_debconf
@pytest.mark.skipif(not shutil.which("dpkg-deb") or _dpkg_prefix() is None,
                    reason="installing into a private dpkg root needs dpkg-deb and root or fakeroot")
def test_dpkg_install_preseeded_then_remove_and_purge_in_a_private_root(tmp_path):
    dist = tmp_path / "lantern"
    (dist / "_internal" / "corpus_bundle").mkdir(parents=True)
    (dist / "lantern").write_bytes(b"#!/bin/sh\necho stand-in\n")
    (dist / "lantern").chmod(0o755)
    conn = sqlite3.connect(dist / "_internal" / "corpus_bundle" / "x.sqlite")
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('course_id', 'demo')")
    conn.commit()
    conn.close()
    staging = tmp_path / "staging"
    package_deb.stage(dist, staging, version="1.0", arch="all", maintainer="Lab <lab@school.example>")
    deb = tmp_path / "lantern_1.0_all.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Znone", "--build", str(staging), str(deb)], check=True,
                   capture_output=True, timeout=120)
    root = tmp_path / "root"
    admin = root / "var" / "lib" / "dpkg"
    for sub in ("info", "updates"):
        (admin / sub).mkdir(parents=True)
    (admin / "status").write_text("")
    private_debconf(root)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("DEBCONF_", "DEBIAN_"))},
           "DPKG_ROOT": str(root), "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["debconf-set-selections"], input="lantern lantern/report boolean true\n", env=env, check=True, text=True,
                   capture_output=True, timeout=60)
    env.pop("DPKG_ROOT")  # dpkg sets it for the chrootless scripts
    dpkg = [*_dpkg_prefix(), "dpkg", f"--root={root}", f"--log={tmp_path / 'dpkg.log'}", "--force-script-chrootless",
            "--force-depends"]
    installed = subprocess.run(dpkg + ["-i", str(deb)], env=env, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    conf = root / "etc" / "lantern" / "settings.toml"
    assert tomllib.loads(conf.read_text(encoding="utf-8")) == {"instructor_report": True}
    removed = subprocess.run(dpkg + ["-r", "lantern"], env=env, capture_output=True, text=True, timeout=300)
    assert removed.returncode == 0, removed.stderr
    assert conf.is_file() and not (root / "opt" / "lantern" / "lantern").exists()
    purged = subprocess.run(dpkg + ["-P", "lantern"], env=env, capture_output=True, text=True, timeout=300)
    assert purged.returncode == 0, purged.stderr
    assert not (root / "etc" / "lantern").exists()
