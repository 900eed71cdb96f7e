"""Shared fixtures: the small course written here, fakes, and the real material in ../shared."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader

from .fakes import FakeEmbedder

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

OLED_GUIDE = """# Lesson 4: OLED display

The OLED shows text over I2C.

## Wiring

Connect SDA to GPIO 21 and SCL to GPIO 22.

![Wiring](../images/wiring.svg)

## Troubleshooting

### Blank display

If the display stays blank, check the I2C address: most modules use 0x3C, some use 0x3D.
Run the scanner sketch to find it. Call `display.display()` after drawing.

### Blank display

A second section with the same heading gets a numbered anchor.
"""

LED_GUIDE = """# Lesson 1: Blink

Blink the onboard LED on GPIO 2 with `digitalWrite`.

## The code

Upload this sketch:

```cpp
void setup() { pinMode(2, OUTPUT); }
void loop() { digitalWrite(2, HIGH); delay(500); digitalWrite(2, LOW); delay(500); }
```

## Wi-Fi note

The wi-fi radio is not used in this lesson.
"""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Garbage is collected in the main thread only once a test used Qt (as the app does, see
    app/gui/collector.py): automatic collection, which runs in whichever thread allocates, would
    otherwise free a window of an earlier test in a worker thread, and Qt crashes (a segfault).
    Automatic collection is turned off for the rest of the session at the first test using
    ``qtbot`` or ``qapp``; after each test (its fixtures and arguments released), a full collection
    follows a Qt test and the collection that is due (:func:`app.gui.collector.collect_due`) any other."""
    qt_test = bool({"qtbot", "qapp"} & set(getattr(item, "fixturenames", ())))
    if qt_test:
        gc.disable()
    try:
        return (yield)
    finally:
        if qt_test:
            gc.disable()  # (again: a test may have turned it on)
            gc.collect()
        elif not gc.isenabled():
            from app.gui.collector import collect_due

            collect_due()


@pytest.fixture(autouse=True)
def _private_user_folders(tmp_path_factory, monkeypatch):
    """Every test gets its own settings and log folders, and no course bundle from the
    environment: a test never reads or writes the real user's settings or log (a test that needs
    other values sets them itself)."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("LANTERN_LOG_DIR", str(home / "logs"))
    monkeypatch.setenv("LANTERN_SYSTEM_SETTINGS", str(home / "system" / "settings.toml"))  # not /etc/lantern
    monkeypatch.delenv("LANTERN_BUNDLE", raising=False)


@pytest.fixture()
def course(tmp_path: Path) -> Path:
    """A tiny course folder: two guides, an image, an empty file, a hidden folder, a licence."""
    root = tmp_path / "course"
    (root / "lessons").mkdir(parents=True)
    (root / "images").mkdir()
    (root / ".git").mkdir()
    (root / "lessons" / "oled.md").write_text(OLED_GUIDE, encoding="utf-8")
    (root / "lessons" / "blink.md").write_text(LED_GUIDE, encoding="utf-8")
    (root / "images" / "wiring.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    (root / "empty.md").write_text("", encoding="utf-8")
    (root / "LICENSE").write_text("MIT", encoding="utf-8")
    (root / ".git" / "config.md").write_text("# hidden", encoding="utf-8")
    return root


@pytest.fixture()
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture()
def bundle_path(course: Path, tmp_path: Path, fake_embedder: FakeEmbedder) -> Path:
    out = tmp_path / "out" / "course.sqlite"
    build_bundle(course, out, fake_embedder, title="Test course")
    return out


@pytest.fixture()
def bundle(bundle_path: Path):
    reader = BundleReader(bundle_path)
    yield reader
    reader.close()


def shared_dir() -> Path:
    """../shared, or a skip (an error under CI, where it must be present)."""
    if not SHARED.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SHARED} is missing: CI must run with ../shared beside the repository.")
        pytest.skip(f"{SHARED} is not present (shared course material is only available to the Lantern team).")
    return SHARED


@pytest.fixture(scope="session")
def iot_bundle_path(tmp_path_factory) -> Path:
    """A bundle of ../shared's IoT-for-Beginners course with the real embedding model, built once per
    test session (3-4 minutes on 2 cores). ``LANTERN_TEST_IOT_BUNDLE`` names a bundle built already
    with this code, to skip the build while developing."""
    from app.cli import main
    from app.config import load_manifest, models_dir

    missing = [f["path"] for f in load_manifest()["files"] if not (models_dir() / f["path"]).is_file()]
    if missing:
        pytest.skip(f"model files missing ({', '.join(missing)}); run `make models`")
    course = shared_dir() / "corpora" / "iot-for-beginners"
    prebuilt = os.environ.get("LANTERN_TEST_IOT_BUNDLE")
    if prebuilt and Path(prebuilt).is_file():
        return Path(prebuilt)
    out = tmp_path_factory.mktemp("iot") / "iot.sqlite"
    assert main(["build", str(course), "-o", str(out), "--title", "IoT for Beginners"]) == 0
    return out


@pytest.fixture()
def report_dir(tmp_path, monkeypatch) -> Path:
    """The instructor's report folder (``LANTERN_REPORT_DIR``) of one test, the report not forced on or off."""
    folder = tmp_path / "report"
    monkeypatch.setenv("LANTERN_REPORT_DIR", str(folder))
    monkeypatch.delenv("LANTERN_REPORT", raising=False)
    return folder
