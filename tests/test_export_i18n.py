"""The words Lantern writes into an export in the right language (issue 27): the window's language in
the window (its Qt translation), the course's language on the command line (as the replies are).
Fakes only: the tiny GUI course of tests/test_gui.py and a two-guide French course."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app import i18n  # noqa: E402
from app.bundle.builder import build_bundle  # noqa: E402
from app.cli import main  # noqa: E402
from app.export.render import to_html, to_markdown  # noqa: E402
from app.export.window import window_words  # noqa: E402
from app.export.words import HISTORY_KEYS, course_words  # noqa: E402
from app.gui import translation  # noqa: E402

from . import test_export as exporting  # noqa: E402
from .fakes import FakeEmbedder  # noqa: E402

answered_window = exporting.answered_window  # tests/test_export.py's window with two answers, found here too
gui_bundle = exporting.gui_bundle
windows = exporting.windows

FRENCH_GUIDES = {
    "lecons/01-ecran.md": "# L'écran OLED\n\n## Écran noir\n\nSi l'écran reste noir, vérifiez l'adresse I2C : "
                          "la plupart des modules utilisent 0x3C.\n",
    "lecons/02-led.md": "# La LED\n\nLa LED clignote avec digitalWrite sur la broche 2.\n",
}


@pytest.fixture()
def french_bundle(tmp_path) -> Path:
    root = tmp_path / "cours"
    for path, text in FRENCH_GUIDES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    out = tmp_path / "cours.sqlite"
    build_bundle(root, out, FakeEmbedder(), title="Atelier ESP32", language="fr")
    return out


def test_every_table_translates_every_export_text_with_the_same_placeholders():
    reference = i18n.english().export
    assert {"references", "question", "from_guides", "cited", "course_line"} <= set(reference)
    for tag in ("fr", "es"):
        table = i18n._table(tag)
        assert table is not None and set(table.export) == set(reference), tag
        for key, text in table.export.items():
            assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", reference[key])), (tag, key)
    assert course_words("qya").text("references") == "References"  # a language with no table: English


def test_the_window_s_english_words_are_the_english_table_s(qtbot):
    translation.remove_translators()
    words = window_words()
    assert words.language == "en"
    assert dict(words.texts) == {k: v for k, v in i18n.english().export.items() if k not in HISTORY_KEYS}


@pytest.mark.parametrize("code,references,question,state", [
    ("fr", "## Références", "## Question 1", "Cité d'après les guides."),
    ("es", "## Referencias", "## Pregunta 1", "Citado de las guías."),
])
def test_an_export_from_the_window_is_in_the_window_s_language(answered_window, code, references, question, state):
    window = answered_window
    try:
        assert translation.install_translators(code) == code
        doc = window.export.document(list(window.conversation))
        text = to_markdown(doc)
        page = to_html(doc)
    finally:
        translation.remove_translators()
    assert references in text and question in text and f"*{state}*" in text
    assert "References" not in text and "Questions to Lantern" not in text and "Cited " not in text
    assert f'<html lang="{code}">' in page
    english = to_markdown(window.export.document(list(window.conversation)))  # the window back in English
    assert "## References" in english and "## Question 1" in english and "*Quoted from the guides.*" in english


def test_the_command_line_writes_a_french_course_s_export_in_french(capsys, french_bundle, tmp_path):
    assert main(["ask", "--bundle", str(french_bundle), "--search-only", "--keyword-only", "--format", "markdown",
                 "Que vérifier si l'écran OLED reste noir ?"]) == 0
    out = capsys.readouterr().out
    assert "*Cité d’après les guides.*" in out and "**D’après les guides :**" in out and "0x3C" in out
    assert "## Références" in out and "Cité le " in out and "References" not in out and "Cited " not in out
    history = tmp_path / "chat.json"
    history.write_text(json.dumps([{"role": "user", "content": "Et la LED ?"}]), encoding="utf-8")
    page_path = tmp_path / "chat.html"
    assert main(["export", "--bundle", str(french_bundle), "--history", str(history), "-o", str(page_path)]) == 0
    page = page_path.read_text(encoding="utf-8")
    assert '<html lang="fr">' in page and "Questions à Lantern : Atelier ESP32" in page
    assert "Pas de réponse dans le fichier d’historique." in page and "Exporté le " in page
    assert "No answer in the history file." not in page


def _export_line(capsys, bundle: Path, tmp_path: Path, questions: list[str], name: str) -> tuple[Path, str]:
    history = tmp_path / f"{name}.json"
    history.write_text(json.dumps([{"role": "user", "content": q} for q in questions]), encoding="utf-8")
    out = tmp_path / name
    capsys.readouterr()
    assert main(["export", "--bundle", str(bundle), "--history", str(history), "-o", str(out)]) == 0
    return out, capsys.readouterr().out


def test_lantern_export_says_what_it_saved_in_the_course_s_language(capsys, french_bundle, tmp_path):
    out, line = _export_line(capsys, french_bundle, tmp_path, ["Et la LED ?"], "une.html")
    assert line == f"Fichier {out} (html) enregistré avec 1 réponse et 0 références.\n"
    out, line = _export_line(capsys, french_bundle, tmp_path, ["Et la LED ?", "Et l'écran ?"], "deux.md")
    assert line == f"Fichier {out} (markdown) enregistré avec 2 réponses et 0 références.\n"
    assert "Saved" not in line and "answers" not in line


def test_lantern_export_says_it_in_english_for_a_language_without_a_table(capsys, tmp_path):
    root = tmp_path / "kurs"
    for path, text in FRENCH_GUIDES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    german = tmp_path / "kurs.sqlite"
    build_bundle(root, german, FakeEmbedder(), title="Kurs", language="de")  # app/i18n has no de.toml
    out, line = _export_line(capsys, german, tmp_path, ["Und die LED?"], "one.md")
    assert line == f"Saved 1 answer with 0 references to {out} (markdown).\n"
    out, line = _export_line(capsys, german, tmp_path, ["Und die LED?", "Und der Bildschirm?"], "two.html")
    assert line == f"Saved 2 answers with 0 references to {out} (html).\n"
    assert course_words("es").count("answers", 1) == "1 respuesta"
    assert course_words("es").count("references", 3) == "3 referencias"


def test_lantern_ask_labels_its_lists_in_the_course_language(capsys, french_bundle, monkeypatch):
    import app.assistant
    from app.cli import main

    monkeypatch.setattr(app.assistant, "load_embedder", FakeEmbedder)
    assert main(["ask", "--bundle", str(french_bundle), "--search-only", "Pourquoi l'écran OLED reste noir ?"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("D’après les guides :") and "0x3C" in out
    assert "\nSources :\n  [1] lecons/01-ecran.md" in out and "Sources:" not in out
    assert main(["ask", "--bundle", str(french_bundle), "--search-only", "Comment régler le wifi du routeur ?"]) == 0
    out = capsys.readouterr().out
    assert "\nSections les plus proches :\n" in out and "Nearest sections" not in out
