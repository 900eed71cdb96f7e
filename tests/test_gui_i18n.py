"""The window in French and Spanish (issue 27): every visible text translated, the language chosen
from the settings or the system, English when a ``.qm`` file is missing or damaged, and the
committed translation files in step with the code.

Offscreen on fakes (the tiny course and the window helpers of ``tests/test_gui.py``). The walk
builds the same window twice, in English and in the language under test, takes it through the same
steps (a question answered, a follow-up, a search) and compares every text a student can see or a
screen reader reads, slot by slot: a text that is the same in both, once the course's own words and
the words a translator kept as they are (``Conversation`` in French) are set aside, was not translated.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import logging  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QLocale  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QSpinBox,
    QTabWidget,
    QTreeWidget,
    QWidget,
)

from app.config import Settings  # noqa: E402
from app.gui import translation  # noqa: E402
from app.gui.render import answer_as_text  # noqa: E402
from app.gui.settings_dialog import SettingsDialog  # noqa: E402
from app.gui.widgets import AnswerView  # noqa: E402
from app.gui.words import finished_status  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel  # noqa: E402

config_dir = shared.config_dir
gui_bundle = shared.gui_bundle
windows = shared.windows

ROOT = Path(__file__).resolve().parent.parent
TS_DIR = ROOT / "app" / "gui" / "translations"
BIN = ROOT / ".venv" / "bin"
#: Words that stay as they are in every language: names, keys, units.
PROPER_NOUNS = {"Lantern", "GGUF", "CPU", "Ctrl", "Alt", "Esc", "Tab", "USB", "PC", "corpus", "pt", "s",
                "English", *translation.LANGUAGES.values()}  # the settings list each language by its own name
FOLLOW_UP = "How do I wire it?"
LANGUAGE_CODES = sorted(translation.LANGUAGES)  # every language the window has is checked


@pytest.fixture()
def language():
    """Install a language for one test (``language("fr")``); English again afterwards."""
    yield translation.install_translators
    translation.remove_translators()


def _kept_words(code: str) -> set[str]:
    """Words of the texts the ``code`` translator kept unchanged (``Conversation``, ``Sources`` in French)."""
    words: set[str] = set()
    for message in ET.parse(TS_DIR / f"lantern_{code}.ts").iter("message"):
        source, target = message.findtext("source") or "", message.findtext("translation") or ""
        if source == target:
            words |= set(re.findall(r"\w+", re.sub(r"\{\w+\}", "", source.replace("&", ""))))
    return words


def _course_words(bundle) -> list[str]:
    """The course's own words on screen: its title, guide titles, paths, headings, folders, the questions."""
    words = [bundle.title, str(bundle.path), shared.QUESTION, FOLLOW_UP]
    for source in bundle.sources():
        words += [source.path, source.title, source.path.split("/")[0]]
        words += [heading.text for heading in bundle.headings(source.path)]
        words += [f"{source.path}#{heading.anchor}" for heading in bundle.headings(source.path)]
    return sorted(set(words), key=len, reverse=True)


def widget_texts(root: QWidget, course: tuple[QWidget, ...] = ()) -> list[tuple[str, str]]:
    """``(slot, text)`` for every text of ``root`` and its children that a student can see or a
    screen reader reads, in a fixed order; the items of the ``course`` widgets (search results), like
    the answer's and the guide's documents, are the course's words and are left out."""
    texts: list[tuple[str, str]] = [("title", root.windowTitle())]
    for i, widget in enumerate([root] + root.findChildren(QWidget)):
        if widget in course:
            continue
        slot = f"{i}:{type(widget).__name__}"
        texts += [(f"{slot}.tip", widget.toolTip()), (f"{slot}.status", widget.statusTip()),
                  (f"{slot}.name", widget.accessibleName()), (f"{slot}.description", widget.accessibleDescription())]
        texts += [(f"{slot}.{n}", t) for n, t in enumerate(_own_texts(widget))]
    return [(slot, text) for slot, text in texts if text]


def _own_texts(widget: QWidget) -> list[str]:  # noqa: C901 - one branch per kind of widget
    if isinstance(widget, QMenu):
        return [widget.title()] + [t for a in widget.actions() for t in (a.text(), a.toolTip(), a.statusTip())]
    if isinstance(widget, (QLabel, QAbstractButton)):
        return [widget.text()]
    if isinstance(widget, (QLineEdit, QPlainTextEdit)):
        return [widget.placeholderText()]
    if isinstance(widget, AnswerView):
        return [widget.placeholder]
    if isinstance(widget, QComboBox):
        return [widget.placeholderText()] + [widget.itemText(i) for i in range(widget.count())]
    if isinstance(widget, QSpinBox):
        return [widget.specialValueText(), widget.suffix()]
    if isinstance(widget, QTabWidget):
        return [t for i in range(widget.count()) for t in (widget.tabText(i), widget.tabToolTip(i))]
    if isinstance(widget, QListWidget):  # a source's first line: its place and "(cited)"; the excerpt is the course's
        return [widget.item(i).text().split("\n")[0] for i in range(widget.count())]
    if isinstance(widget, QTreeWidget):
        items = [widget.topLevelItem(i) for i in range(widget.topLevelItemCount())]
        return [t for item in items for t in (item.text(0), item.toolTip(0))]
    return []


def _window_texts(qtbot, windows, bundle) -> list[tuple[str, str]]:
    """Open the window, ask a question and a follow-up, search, and list its texts, the settings
    dialog's, the About box's and the copied answer's."""
    window = shared.open_window(qtbot, windows, bundle, FakeChatModel(reply=shared.REPLY))
    for question in (shared.QUESTION, FOLLOW_UP):
        with qtbot.waitSignal(window.answer_shown, timeout=5000):
            shared.ask_with_enter(qtbot, window, question)
    window.show_exchange(0)  # an earlier answer: its own state line
    window.search.box.setText("oled")
    window.search.search()
    window.open_citation(1)
    dialog = SettingsDialog(Settings(), window)
    qtbot.addWidget(dialog)
    texts = widget_texts(window, (window.search.results,))  # the dialog is one of the window's children
    texts += [("about", window.about_text()), ("copied", answer_as_text("x", [(1, "a.md", "A")]).split("\n")[2])]
    texts += [(f"status.{state}", finished_status(state, 4.0, evidence=0.5)) for state in
              ("answered", "extractive", "not-covered")]
    return texts


#: The status bar's timed message (a label's tooltip): under load it can expire before one of the two walks
#: reads it, so it may be missing on one side; every other slot must be in both.
TRANSIENT_SLOT = re.compile(r"\d+:FitLabel\.tip")


def _untranslated(english, translated, kept: set[str], course: list[str]) -> list[str]:
    extra = {slot for slot, _ in english} ^ {slot for slot, _ in translated}
    assert all(TRANSIENT_SLOT.fullmatch(slot) for slot in extra), f"the two windows differ in shape: {sorted(extra)}"
    english = [(slot, text) for slot, text in english if slot not in extra]
    translated = [(slot, text) for slot, text in translated if slot not in extra]
    assert [slot for slot, _ in english] == [slot for slot, _ in translated], "the two windows differ in shape"
    left = []
    for (slot, en), (_, other) in zip(english, translated):
        if en != other:
            continue
        residue = en
        for words in course:
            residue = residue.replace(words, " ")
        words = [w for w in re.findall(r"[^\W\d_]+", residue.replace("&", "")) if w not in PROPER_NOUNS | kept]
        if words:
            left.append(f"{slot}: {en!r}")
    return left


@pytest.mark.parametrize("code", LANGUAGE_CODES)
def test_every_visible_text_of_the_window_is_translated(qtbot, windows, gui_bundle, language, code):
    english = _window_texts(qtbot, windows, gui_bundle)
    assert any(text == "&Ask" for _, text in english)
    assert language(code) == code
    translated = _window_texts(qtbot, windows, gui_bundle)
    left = _untranslated(english, translated, _kept_words(code), _course_words(gui_bundle))
    assert left == [], "\n".join(left)
    shown = dict(translated)
    assert shown["title"] == "Lantern — GUI test course"
    ask = {"fr": "&Demander", "es": "&Preguntar"}.get(code)
    assert ask is None or any(text == ask for _, text in translated)
    if code in ("fr", "es"):  # numbers are written as the language writes them
        assert "0,50" in shown["status.answered"] and "4,0" in shown["status.answered"]


def test_untranslated_text_is_caught(qtbot, windows, gui_bundle):
    """The walk's own check: an English text left in a French window is named."""
    english = [("0:QPushButton.0", "&Ask"), ("1:QLabel.0", "GUI test course"), ("2:QLabel.0", "Conversation")]
    french = [("0:QPushButton.0", "&Ask"), ("1:QLabel.0", "GUI test course"), ("2:QLabel.0", "Conversation")]
    assert _untranslated(english, french, _kept_words("fr"), ["GUI test course"]) == ["0:QPushButton.0: '&Ask'"]


def test_counts_and_numbers_in_the_language(qtbot, language):
    assert translation.tr("%n answers", 3) == "3 answers"  # no translation installed: English
    language("fr")
    assert translation.tr("%n answers", 3) == "3\u00a0réponses"
    assert finished_status("not-covered", 0.004) == "Recherche dans les guides en moins de 0,01\u00a0s\u00a0: sujet non traité."
    language("es")
    assert finished_status("extractive", 2.24, search_only=True) == "Pasajes encontrados en 2,2 s."


def test_the_language_follows_the_system_unless_the_settings_name_one():
    assert translation.chosen_language("", QLocale("fr_CA")) == "fr"
    assert translation.chosen_language("", QLocale("es_MX")) == "es"
    assert translation.chosen_language("", QLocale("de_DE")) == "en"  # not translated: English
    assert translation.chosen_language("es", QLocale("fr_FR")) == "es"
    assert translation.chosen_language("en", QLocale("fr_FR")) == "en"
    assert translation.chosen_language("klingon", QLocale("fr_FR")) == "fr"  # unknown: the system's


def test_the_settings_dialog_saves_the_language(qtbot, config_dir):
    dialog = SettingsDialog(Settings(ui_language="es"))
    qtbot.addWidget(dialog)
    assert dialog.language_box.currentData() == "es"
    dialog.language_box.setCurrentIndex(dialog.language_box.findData("fr"))
    dialog.accept()
    assert Settings.load().ui_language == "fr"


def test_a_bad_language_setting_is_one_sentence_and_the_default(config_dir):
    from app.config import settings_problems

    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "settings.json").write_text('{"ui_language": 5}', encoding="utf-8")
    assert Settings.load().ui_language == ""
    problems = settings_problems()
    assert len(problems) == 1 and "`ui_language`" in problems[0] and "the default is used" in problems[0]


@pytest.mark.parametrize("damage", ["missing", "garbage", "header only"])
def test_a_missing_or_damaged_qm_leaves_the_window_in_english(qtbot, windows, gui_bundle, language, tmp_path,
                                                              monkeypatch, caplog, damage):
    good = (TS_DIR / "lantern_fr.qm").read_bytes()
    if damage == "garbage":
        (tmp_path / "lantern_fr.qm").write_bytes(b"not a translation" * 50)
    elif damage == "header only":
        (tmp_path / "lantern_fr.qm").write_bytes(good[:16])
    monkeypatch.setattr(translation, "translations_dir", lambda: tmp_path)
    with caplog.at_level(logging.WARNING, logger="app.gui.translation"):
        assert language("fr") == "en"
    lines = [r.getMessage() for r in caplog.records if r.name == "app.gui.translation"]
    assert len(lines) == 1 and str(tmp_path / "lantern_fr.qm") in lines[0] and "English" in lines[0]
    window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    assert window.ask_button.text() == "&Ask" and "&Lantern" in [a.text() for a in window.menuBar().actions()]
    assert translation.current_language() == "en"


def test_qt_own_dialog_buttons_are_translated_too(qtbot, language):
    from PySide6.QtWidgets import QDialogButtonBox

    language("fr")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    qtbot.addWidget(buttons)
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text().replace("&", "") == "Annuler"


def _tool(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{path} is not installed (PySide6 ships it; `make setup`)")
    return path


@pytest.mark.parametrize("code", LANGUAGE_CODES)
def test_committed_qm_files_are_compiled_from_their_ts(tmp_path, code):
    lrelease = _tool("pyside6-lrelease")
    out = tmp_path / f"lantern_{code}.qm"
    subprocess.run([str(lrelease), "-silent", str(TS_DIR / f"lantern_{code}.ts"), "-qm", str(out)], check=True,
                   timeout=60)
    assert out.read_bytes() == (TS_DIR / f"lantern_{code}.qm").read_bytes(), \
        "run scripts/translations.sh to compile the .ts files again"


@pytest.mark.parametrize("code", LANGUAGE_CODES)
def test_every_text_in_the_code_has_a_translation(tmp_path, code):
    """The .ts files hold every tr() text of app/gui, each translated: a new text without a
    translation fails here (run scripts/translations.sh, then translate what it marks unfinished)."""
    lupdate = _tool("pyside6-lupdate")
    ts = tmp_path / f"lantern_{code}.ts"
    shutil.copyfile(TS_DIR / ts.name, ts)
    sources = sorted({str(p) for p in (ROOT / "app" / "gui").glob("*.py")}  # as scripts/translations.sh lists them
                     | {str(p) for p in (ROOT / "app").rglob("*.py") if "gui.translation import" in p.read_text("utf-8")})
    subprocess.run([str(lupdate), "-silent", "-locations", "none", "-no-obsolete", *sources, "-ts", str(ts)],
                   check=True, timeout=120, capture_output=True)
    messages = list(ET.parse(ts).iter("message"))
    assert len(messages) > 150
    unfinished = [m.findtext("source") for m in messages if m.find("translation").get("type")
                  or not m.findtext("translation")]
    assert unfinished == []
    placeholders = [m.findtext("source") for m in messages if sorted(re.findall(r"\{\w+\}", m.findtext("source")))
                    != sorted(re.findall(r"\{\w+\}", m.findtext("translation")))]
    assert placeholders == [], "a translation must keep the {names} of its source text"


def test_translations_are_found_where_the_installer_puts_them():
    from app.config import resource_root

    assert translation.qm_path("fr") == resource_root() / "app" / "gui" / "translations" / "lantern_fr.qm"
    spec = (ROOT / "build.spec").read_text(encoding="utf-8")
    assert "app/gui/translations" in spec and "qtbase_" in spec


def test_the_menu_entry_and_the_package_description_are_translated():
    desktop = (ROOT / "packaging" / "lantern.desktop").read_text(encoding="utf-8")
    entry = dict(line.split("=", 1) for line in desktop.splitlines() if "=" in line)
    for code in ("fr", "es"):
        for key in ("Name", "GenericName", "Comment", "Keywords"):
            assert entry[f"{key}[{code}]"], f"{key}[{code}]"
        assert entry[f"Comment[{code}]"] != entry["Comment"] and entry[f"Keywords[{code}]"].endswith(";")
    control = (ROOT / "packaging" / "debian" / "control.in").read_text(encoding="utf-8")
    fields = re.findall(r"^([\w-]+):", control, flags=re.MULTILINE)
    assert fields[-3:] == ["Description", "Description-fr", "Description-es"]
    for code in ("fr", "es"):  # a synopsis line, then an extended description indented by one space
        block = control.split(f"Description-{code}: ", 1)[1].split("\nDescription-", 1)[0].rstrip("\n").split("\n")
        assert len(block[0]) < 80 and all(line.startswith(" ") and len(line) <= 80 for line in block[1:])


def test_the_course_menu_lines_are_translated(qtbot, language):
    from app.bundle.library import STATE_DAMAGED, CourseEntry
    from app.gui.courses import course_label

    entry = CourseEntry(path=Path("lab.sqlite"), folder="", course_id="lab", title="Atelier", version="2026-12-01",
                        corpus_version="", built_at="", guides=2, chunks=None, state=STATE_DAMAGED, language="fr")
    assert course_label(entry) == "Atelier · 2026-12-01 · 2 guides · French (damaged)"
    language("fr")
    assert course_label(entry) == "Atelier · 2026-12-01 · 2\u00a0guides · français (endommagé)"
    language("es")
    assert course_label(entry) == "Atelier · 2026-12-01 · 2 guías · français (dañado)"


@pytest.mark.skipif(os.name == "nt", reason="scripts/translations.sh is a POSIX shell script")
def test_adding_a_language_refuses_a_bad_code_or_an_existing_one():
    _tool("pyside6-lupdate")
    script = str(ROOT / "scripts" / "translations.sh")
    for args, said in ((["add", "de;rm"], "'de;rm' is not a language code such as de or pt_BR."),
                       (["add", "fr"], f"{TS_DIR.relative_to(ROOT)}/lantern_fr.ts already exists."),
                       (["unknown"], "usage: scripts/translations.sh [update | add CODE | release]")):
        result = subprocess.run(["sh", script, *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == 1 and result.stderr.strip() == said and result.stdout == ""
    assert not list(TS_DIR.glob("lantern_de*"))


def test_the_degraded_states_stay_whole_in_a_narrow_french_status_bar(qtbot, windows, gui_bundle, language):
    # French names the two degraded states in 77 characters; a status label's preferred width held 60, and
    # the bar shared room fairly with the course, version and model labels, so a lab trial read "Recherche
    # seule (pa…" in a 1,000-pixel window, though these are the one label that says the replies are
    # limited. They keep their whole text; the other labels give up room.
    language("fr")
    window = shared.open_window(qtbot, windows, gui_bundle, None, embedder=False)
    window.resize(1000, 700)
    qtbot.wait(300)
    degraded, course = window.degraded_label, window.course_label
    qtbot.waitUntil(lambda: degraded.width() > 0, timeout=3000)
    assert degraded.text() == "Recherche par mots-clés seulement; Recherche seule (pas de modèle de langage)"
    assert degraded.shown_text() == degraded.text()
    assert degraded.fontMetrics().horizontalAdvance(degraded.text()) <= degraded.contentsRect().width()
    labels = [window.message_label, course, window.version_label, window.model_label, degraded]
    assert sum(label.sizeHint().width() for label in labels if label.text()) > window.statusBar().width() - 100, \
        "the bar is wide enough for everything: the test no longer shows the sharing"
    assert any(label.shown_text() != label.text() for label in labels[1:4])  # the others gave up room
