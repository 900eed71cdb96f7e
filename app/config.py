"""Where Lantern finds its models, bundles and settings (source tree or frozen app).

One function per location, so the frozen installer and the source checkout agree:
- :func:`resource_root`: the repository root, or PyInstaller's data folder when frozen;
- :func:`app_dir`: the folder holding the frozen app's executable (None in a source tree);
  a lab admin puts ``corpus_bundle/`` or ``models/`` there to override what was shipped;
- :func:`models_dir`: ``$LANTERN_MODELS_DIR``, ``<app dir>/models`` when it holds a
  ``manifest.json``, or ``<resource root>/models``;
- :func:`default_bundle`: ``$LANTERN_BUNDLE``, the settings file's ``bundle``, the first
  ``*.sqlite`` in ``<app dir>/corpus_bundle``, or the first in ``<resource root>/corpus_bundle``;
- :func:`settings_path`: one plain JSON file under the user's config directory
  (``$LANTERN_CONFIG_DIR`` overrides it, for tests), read by both the CLI and the GUI.
Nothing here touches the network.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from platformdirs import user_config_dir

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

    ``bundle`` and ``chat_model`` are file paths ('' means the default); ``threads`` is
    the number of CPU threads for the LLM (0 means all cores); ``font_size`` is in points.
    """

    bundle: str = ""
    chat_model: str = ""
    threads: int = 0
    font_size: int = 11

    @classmethod
    def load(cls) -> "Settings":
        """Read the settings file; a missing or unreadable file gives the defaults."""
        try:
            data = json.loads(settings_path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known} if isinstance(data, dict) else {}
        try:
            return cls(**values)
        except TypeError:
            return cls()

    def save(self) -> None:
        """Write the settings file atomically."""
        path = settings_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        tmp.replace(path)


def default_bundle() -> Path | None:
    """The bundle to open when none is named, or None when there is none."""
    override = os.environ.get("LANTERN_BUNDLE")
    if override:
        return Path(override)
    chosen = Settings.load().bundle
    if chosen:
        return Path(chosen)
    folders = [resource_root() / "corpus_bundle"]
    beside = app_dir()
    if beside is not None:
        folders.insert(0, beside / "corpus_bundle")
    for folder in folders:
        found = sorted(folder.glob("*.sqlite"))
        if found:
            return found[0]
    return None


def default_chat_model() -> Path:
    """The chat GGUF to use: the settings file's choice or the manifest's default."""
    chosen = Settings.load().chat_model
    if chosen:
        return Path(chosen)
    return models_dir() / load_manifest()["chat"]


def load_manifest() -> dict:
    """The model manifest (``models/manifest.json``)."""
    from .errors import ModelError

    path = models_dir() / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"The model manifest {path} cannot be read ({exc}); "
                         "run `make models` to restore the models folder.") from exc
