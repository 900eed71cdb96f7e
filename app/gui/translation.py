"""The window in the user's language: Qt's translation system (issue 27).

Every text the window shows goes through :func:`tr` (or is marked with ``QT_TR_NOOP`` where it is
a module constant, and passed through :func:`tr` where it is shown). ``pyside6-lupdate`` collects
them into ``app/gui/translations/lantern_<code>.ts`` (one per language, edited with Qt Linguist or
any text editor) and ``pyside6-lrelease`` compiles each into the ``lantern_<code>.qm`` that
:func:`install_translators` loads; ``scripts/translations.sh`` runs both (docs/gui.md, "Adding a
language"). The English texts are the source texts: English needs no file.

The language is the settings file's ``ui_language`` (a code such as ``fr``) or, when it is empty,
the first of the system's user-interface languages (``QLocale.system()``) that Lantern has; it is
chosen once, when the window opens (a change in Settings applies at the next start). Qt's own
translations of its standard dialogs and buttons (``qtbase_<code>.qm``, shipped with PySide6) are
loaded with it when present. A ``.qm`` file that is missing or damaged leaves the window in
English, with one line in the log.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from ..config import resource_root

log = logging.getLogger(__name__)

#: The languages the window is translated to: code -> the language's name in that language
#: (what the settings dialog lists). English is the source language and needs no entry.
LANGUAGES = {"fr": "Français", "es": "Español"}
#: The source language: what the window falls back to.
SOURCE_LANGUAGE = "en"
#: The context the texts are filed under in the ``.ts`` files: lupdate files a bare ``tr()`` call,
#: and ``QT_TR_NOOP`` outside a class, under the empty context.
CONTEXT = ""

_installed: list[QTranslator] = []  # kept referenced while installed (Qt does not own them)
_current = [SOURCE_LANGUAGE]  # the language install_translators last put the window in


def QT_TR_NOOP(text: str) -> str:  # noqa: N802 - the name pyside6-lupdate looks for
    """Mark ``text`` (a module constant) for translation and return it unchanged; pass it through
    :func:`tr` where it is shown. Qt's own ``QT_TR_NOOP``, typed as returning ``str``."""
    return text


def tr(text: str, n: int = -1) -> str:
    """``text`` (an English source text) in the window's language, the text itself when no
    translation is installed or it has none; with ``n`` (0 or more), ``%n`` in it becomes ``n``.
    Plurals are chosen in the code (one text for 1, one for the others: ``tr("1 answer") if
    count == 1 else tr("%n answers", count)``), which is what English, French and Spanish need;
    ``pyside6-lupdate`` files every text as a plain one."""
    translated = QCoreApplication.translate(CONTEXT, text)
    return translated.replace("%n", str(n)) if n >= 0 else translated


def translations_dir() -> Path:
    """The folder holding ``lantern_<code>.ts`` and ``lantern_<code>.qm`` (in the source tree and,
    at the same place under PyInstaller's data folder, in the frozen app)."""
    return resource_root() / "app" / "gui" / "translations"


def qm_path(language: str) -> Path:
    """The compiled translation of ``language`` (a code such as ``fr``); it may not exist."""
    return translations_dir() / f"lantern_{language}.qm"


def system_language(locale: QLocale | None = None) -> str:
    """The first of ``locale``'s user-interface languages (default: the system's) that the window
    is translated to, else ``en``."""
    locale = locale if locale is not None else QLocale.system()
    for name in locale.uiLanguages():
        code = name.replace("_", "-").split("-")[0].lower()
        if code == SOURCE_LANGUAGE or code in LANGUAGES:
            return code
    return SOURCE_LANGUAGE


def chosen_language(setting: str, locale: QLocale | None = None) -> str:
    """The window's language: ``setting`` (the settings file's ``ui_language``) when it names a
    language Lantern has, else the system's (:func:`system_language`)."""
    code = setting.strip().lower()
    if code == SOURCE_LANGUAGE or code in LANGUAGES:
        return code
    return system_language(locale)


def install_translators(setting: str = "", locale: QLocale | None = None) -> str:
    """Load and install the translation chosen by :func:`chosen_language` (Lantern's and Qt's
    own), replacing any installed before; returns the language the window is now in (``en``
    when the choice is English or its ``.qm`` file is missing or damaged: then one warning is
    logged). Needs a QCoreApplication; raises nothing."""
    remove_translators()
    language = chosen_language(setting, locale)
    _current[0] = _install(language)
    return _current[0]


def _install(language: str) -> str:
    """Install ``language``'s translators; the language the window is in afterwards."""
    if language == SOURCE_LANGUAGE:
        return SOURCE_LANGUAGE
    app = QCoreApplication.instance()
    if app is None:
        return SOURCE_LANGUAGE
    path = qm_path(language)
    own = QTranslator()
    if not own.load(str(path)) or own.isEmpty():  # a file cut after its header loads, empty
        log.warning("the window's %s translation %s is missing or damaged; the window is in English",
                    LANGUAGES[language], path)
        return SOURCE_LANGUAGE
    qt = QTranslator()  # Qt's own dialogs and standard buttons; the frozen app ships French and Spanish
    if any(qt.load(f"qtbase_{language}", str(folder)) for folder in _qt_translation_dirs()):
        app.installTranslator(qt)
        _installed.append(qt)
    app.installTranslator(own)
    _installed.append(own)
    return language


def _qt_translation_dirs() -> list[str]:
    """Where Qt's own ``qtbase_<code>.qm`` may be: Qt's translations folder, else PySide6's own."""
    import PySide6

    return [QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath),
            str(Path(PySide6.__file__).resolve().parent / "Qt" / "translations")]


def remove_translators() -> None:
    """Uninstall what :func:`install_translators` installed: the window's next texts are English."""
    app = QCoreApplication.instance()
    _current[0] = SOURCE_LANGUAGE
    while _installed:
        translator = _installed.pop()
        if app is not None:
            app.removeTranslator(translator)


def current_language() -> str:
    """The language the window's texts are in (``en`` until :func:`install_translators` installs another)."""
    return _current[0]


def decimal(value: float, places: int) -> str:
    """``value`` with ``places`` decimals, written as the window's language writes numbers
    (``0.03`` in English, ``0,03`` in French and Spanish)."""
    if current_language() == SOURCE_LANGUAGE:
        return f"{value:.{places}f}"
    return QLocale(current_language()).toString(float(value), "f", places)


def language_words(tag: str) -> str:
    """A course's language tag (``fr``, ``pt-BR``) for the window: its English name
    (:func:`app.ingest.language.language_name`) in an English window, else the language's own name
    from Qt's locale data (``français``, ``español``), or that English name when Qt has none."""
    from ..ingest.language import language_name

    english = language_name(tag)
    if not tag or current_language() == SOURCE_LANGUAGE:
        return english
    locale = QLocale(tag.replace("-", "_"))
    native = locale.nativeLanguageName() if locale.language() != QLocale.Language.C else ""
    return native or english


def details_words() -> str:
    """:func:`app.logfile.details_hint` in the window's language: where an unexpected error's
    details are ("the details are in /path/lantern.log", or printed to the terminal)."""
    from ..logfile import current_log_file

    path = current_log_file()
    return tr("the details are in {path}").format(path=path) if path else tr("the details were printed to the terminal")
