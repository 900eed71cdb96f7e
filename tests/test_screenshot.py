"""scripts/screenshot.py: the pictures the docs show exist, and the second course of ``courses`` is sound."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.library import probe_bundle  # noqa: E402

from .fakes import FakeEmbedder  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def screenshot_script():
    spec = importlib.util.spec_from_file_location("screenshot", ROOT / "scripts" / "screenshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_state_of_all_has_its_picture_in_the_docs_with_alt_text():
    shot = screenshot_script()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    gui = (ROOT / "docs" / "gui.md").read_text(encoding="utf-8")
    for state in shot.STATES:
        name = f"screenshot-{state}.png"
        assert (ROOT / "docs" / name).is_file(), name
        shown = re.findall(rf"!\[([^\]]*)\]\((?:docs/)?{re.escape(name)}\)", readme + gui)
        assert shown and all(alt.strip() for alt in shown), name
    assert "courses" in shot.STATES  # the Course menu's picture needs no chat model run


def test_the_second_course_of_the_course_menu_picture_builds_in_french(tmp_path):
    folder, course_id, title = screenshot_script().SECOND_COURSE
    bundle = build_bundle(folder, tmp_path / "second.sqlite", FakeEmbedder(), title=title, course_id=course_id).bundle
    entry = probe_bundle(bundle)
    assert (entry.state, entry.course_id, entry.title, entry.language) == ("ok", "atelier-soudure", "Atelier soudure", "fr")
    assert entry.guides == 4
