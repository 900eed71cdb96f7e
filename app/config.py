"""Where Lantern finds its models, bundles and settings (source tree or frozen app).

One function per location, so the frozen installer and the source checkout agree:
- :func:`resource_root`: the repository root, or PyInstaller's data folder when frozen;
- :func:`app_dir`: the folder holding the frozen app's executable (None in a source tree);
  a lab admin puts ``corpus_bundle/`` or ``models/`` there to override what was shipped;
- :func:`models_dir`: ``$LANTERN_MODELS_DIR``, ``<app dir>/models`` when it holds a
  ``manifest.json``, or ``<resource root>/models``;
- :func:`resolve_chat_model`: a model id from the manifest's ``optional_chat``
  (``--model qwen2.5-coder-0.5b``, or the settings file's ``chat_model``) stands for its file in ``models/``;
- :func:`settings_path`: one plain JSON file under the user's config directory
  (``$LANTERN_CONFIG_DIR`` overrides it, for tests), read by both the CLI and the GUI, over the
  lab-wide file of :mod:`app.system_settings` (``/etc/lantern/settings.toml``; precedence there).
The course opened when none is named is :func:`app.bundle.library.default_bundle` (course-library
policy, not a location). Nothing here touches the network.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from platformdirs import user_config_dir

from .system_settings import (
    ADMIN_SETTINGS,
    MAX_SETTINGS_BYTES,
    SettingsFileTooLarge,
    read_settings_text,
    read_system_file,
    system_settings_path,
    unreadable_words,
)

APP_NAME = "Lantern"


def resource_root() -> Path:
    """The folder holding ``models/`` and ``corpus_bundle/``."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen)
    return Path(__file__).resolve().parent.parent


def app_dir() -> Path | None:
    """The folder of the frozen app's executable (``dist/lantern/``), or None when run from source."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve().parent
    return None


def models_dir() -> Path:
    """Folder with ``manifest.json`` and the model files."""
    override = os.environ.get("LANTERN_MODELS_DIR")
    if override:
        return Path(override)
    beside = app_dir()
    if beside is not None and (beside / "models" / "manifest.json").is_file():
        return beside / "models"
    return resource_root() / "models"


def settings_path() -> Path:
    """The user's settings file (JSON); it may not exist yet."""
    override = os.environ.get("LANTERN_CONFIG_DIR")
    base = Path(override) if override else Path(user_config_dir(APP_NAME, appauthor=False))
    return base / "settings.json"


@dataclass
class Settings:
    """User settings shared by the CLI and the GUI.

    ``bundle`` and ``chat_model`` are file paths ('' means the default; ``chat_model`` may also be
    an optional model's id from the manifest); ``threads`` is
    the number of CPU threads for the LLM (0 means all cores but one); ``font_size`` is in points.
    ``model_url`` is the lab's OpenAI-compatible model engine ('' means none: the in-app model, and no
    connection at all), ``api_key`` its optional key (sent as a Bearer header, never logged, left
    out of ``repr``), ``engine_model`` the model name to request ('' lets the engine choose), and
    ``connect_timeout_s`` / ``read_timeout_s`` its timeouts in seconds (app/answer/remote.py).
    """

    bundle: str = ""
    chat_model: str = ""
    threads: int = 0
    font_size: int = 11
    model_url: str = ""
    api_key: str = field(default="", repr=False)
    engine_model: str = ""
    connect_timeout_s: int = 5
    read_timeout_s: int = 60
    #: The instructor's report (app/report): a local log of questions, without names; off by default.
    instructor_report: bool = False
    #: Days a question stays in that log; older ones are deleted each time the log is opened.
    report_retention_days: int = 90
    #: The window's language: a code such as ``fr`` or ``es`` ('' follows the system's language, and
    #: so does a language the window is not translated to); read when the window opens (app/gui/translation.py).
    ui_language: str = ""

    @classmethod
    def load(cls) -> "Settings":
        """Read the settings file; a missing file gives the defaults, and so does each value that
        is unusable (see :func:`settings_problems` for what was wrong). Never raises."""
        return _read_settings(cls)[0]

    def save(self) -> None:
        """Write the user's settings file atomically. A value the lab-wide file gives (and that the
        user did not change) is left out, so a later change of the lab-wide file still reaches the user."""
        path = settings_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        system = _checked_values(read_system_file(asdict(self))[0], system_settings_path())[0]
        values = {name: value for name, value in asdict(self).items() if name not in system or system[name] != value}
        tmp.write_text(json.dumps(values, indent=2), encoding="utf-8")
        tmp.replace(path)


#: The type and, for numbers, the allowed range (inclusive) of each setting.
_SETTING_RULES = {"bundle": (str, None), "chat_model": (str, None), "threads": (int, (0, 1024)),
                  "font_size": (int, (6, 72)), "model_url": (str, None), "api_key": (str, None),
                  "engine_model": (str, None), "connect_timeout_s": (int, (1, 300)), "read_timeout_s": (int, (1, 3600)),
                  "instructor_report": (bool, None), "report_retention_days": (int, (1, 3650)),
                  "ui_language": (str, None)}


def _read_settings(cls) -> tuple["Settings", list[str]]:
    """``(settings, problems)``: the settings the app uses and one sentence per value (or whole file)
    that could not be used. See :func:`_read_layers`."""
    settings, problems, _ = _read_layers(cls)
    return settings, problems


def _read_layers(cls) -> tuple["Settings", list[str], dict[str, Path]]:
    """``(settings, problems, sources)``: the user's file over the lab-wide file
    (app/system_settings.py) over the defaults, except that the lab-wide file decides the settings
    in ``ADMIN_SETTINGS`` it sets; ``sources`` maps each setting a file gave to that file."""
    names = [f.name for f in fields(cls)]
    raw, problems = read_system_file(names)
    system, system_problems = _checked_values(raw, system_settings_path())
    user_data, user_problems = _read_user_file()
    user, value_problems = _checked_values(user_data, settings_path())
    user = {name: value for name, value in user.items() if name not in ADMIN_SETTINGS or name not in system}
    sources = {**{name: system_settings_path() for name in system}, **{name: settings_path() for name in user}}
    return (cls(**{**system, **user}), problems + system_problems + user_problems + value_problems, sources)


def _read_user_file() -> tuple[dict, list[str]]:
    """The user's settings file as a dict (empty when missing or unusable, or over 1,048,576 bytes:
    then it is not read) and its problems."""
    path = settings_path()
    if path.is_dir():
        return {}, [f"The settings file {path} is a folder, not a file; the defaults are used. Move it away."]
    try:
        text = read_settings_text(path)  # at most 1,048,576 bytes; a byte-order mark (Windows editors) is skipped
    except FileNotFoundError:
        return {}, []
    except SettingsFileTooLarge as exc:
        return {}, [f"The settings file {path} is {exc.size_words()}, more than the {MAX_SETTINGS_BYTES:,} bytes "
                    "a settings file may have, so it was not read and the defaults are used: move it away or "
                    "delete it (saving the settings from the window writes a new one)."]
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"The settings file {path} could not be read ({unreadable_words(exc)}); "
                    "the defaults are used. Fix or delete the file."]
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        return {}, [f"The settings file {path} is not valid JSON" + (f" (line {line})" if line else "")
                    + "; the defaults are used. Fix it or save the settings again from the window."]
    if not isinstance(data, dict):
        return {}, [f"The settings file {path} should hold a JSON object of settings; the defaults are used."]
    return data, []


def _checked_values(data: dict, path: Path) -> tuple[dict, list[str]]:
    """The values of ``data`` (settings by name, from the file ``path``) that have the right type and
    range, and one sentence for each that does not (it is left out: the default is used)."""
    values, problems = {}, []
    for name in [f.name for f in fields(Settings) if f.name in data]:
        value = data[name]
        kind, bounds = _SETTING_RULES[name]
        if kind is bool and not isinstance(value, bool):
            problems.append(f"The setting `{name}` in {path} must be true or false (got {_shown(value)}); "
                            "the default is used.")
        elif kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            problems.append(f"The setting `{name}` in {path} must be a whole number (got {_shown(value)}); "
                            "the default is used.")
        elif kind is str and not isinstance(value, str):
            problems.append(f"The setting `{name}` in {path} must be text in quotes (got {_shown(value)}); "
                            "the default is used.")
        elif bounds and not bounds[0] <= value <= bounds[1]:
            problems.append(f"The setting `{name}` in {path} must be between {bounds[0]} and {bounds[1]} "
                            f"(got {value}); the default is used.")
        else:
            values[name] = value
    return values, problems


def _shown(value: object) -> str:
    """A value as its file would write it (JSON; TOML dates as text)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def setting_source(name: str) -> Path | None:
    """The settings file whose value of the setting ``name`` the app uses (the lab-wide file or the
    user's), or None when it is the built-in default. Never raises."""
    return _read_layers(Settings)[2].get(name)


def settings_problems() -> list[str]:
    """One sentence for each setting of the settings file that could not be used (empty when the
    file is fine or missing). The CLI prints them as warnings; the window shows them."""
    return _read_settings(Settings)[1]


def lab_settings_problems() -> list[str]:
    """One sentence for each thing of the lab-wide settings file (app/system_settings.py) that is not
    applied: the whole file when it cannot be used (damaged, unreadable, a folder, over 1,048,576
    bytes), a name Lantern does not know, a value of the wrong type or range. Empty when the file
    is fine or missing. These are among :func:`settings_problems`; the window keeps them in view
    (the admin's choice of the instructor's report may be among what is lost) and ``lantern report
    --status`` prints them. Never raises."""
    raw, problems = read_system_file(f.name for f in fields(Settings))
    return problems + _checked_values(raw, system_settings_path())[1]


def default_chat_model() -> Path:
    """The chat GGUF to use: the settings file's choice (a file or a model id) or the manifest's default."""
    chosen = Settings.load().chat_model
    if chosen:
        return resolve_chat_model(chosen)
    return models_dir() / load_manifest()["chat"]


def model_entries(manifest: dict) -> list[dict]:
    """Every model file the manifest pins: the default ``files`` and the selectable ``optional_chat`` models."""
    return list(manifest.get("files", [])) + list(manifest.get("optional_chat", []))


def resolve_chat_model(choice: str | Path) -> Path:
    """The chat GGUF named by ``choice``: the id of the manifest's default chat model
    (``qwen2.5-coder-0.5b``) or of one of its ``optional_chat`` models (``smollm2-135m``) gives its
    file in :func:`models_dir`; anything else is a file path.

    Raises :class:`ModelError` when the id's file has not been fetched.
    """
    from .errors import ModelError

    name = str(choice)
    try:
        optional = {m["id"]: m for m in model_entries(load_manifest()) if m.get("id")}
    except ModelError:
        optional = {}
    if name not in optional:
        return Path(choice)
    path = models_dir() / optional[name]["path"]
    if not path.is_file():
        raise ModelError(f"The chat model {name} ({optional[name]['path']}) is not in {models_dir()}; "
                         f"run `make models MODEL={name}` to fetch it.")
    return path


def load_manifest() -> dict:
    """The model manifest (``models/manifest.json``)."""
    from .errors import ModelError

    path = models_dir() / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"The model manifest {path} cannot be read ({exc}); "
                         "run `make models` to restore the models folder.") from exc
