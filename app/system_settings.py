"""The lab-wide settings file that a lab admin (or the Debian package's installer) writes.

Lantern reads two settings files (app/config.py):

1. the **system-wide file**, TOML, written by the admin or by the package's postinst
   (``sudo dpkg-reconfigure lantern``): ``/etc/lantern/settings.toml`` on Linux and other
   Unix systems, ``%ProgramData%\\Lantern\\settings.toml`` on Windows,
   ``/Library/Application Support/Lantern/settings.toml`` on macOS;
   ``$LANTERN_SYSTEM_SETTINGS`` names another file (for tests and scripted checks);
2. the **user's own file** (JSON, :func:`app.config.settings_path`), written by the window.

Each value of the user's file wins over the system-wide one, which wins over the built-in default,
except the settings in :data:`ADMIN_SETTINGS` (the instructor's report): when the system-wide file
sets one, that value is used whatever the user's file says, so a student cannot turn off a report
the lab admin turned on (nor turn on one the admin turned off). ``LANTERN_REPORT`` (for scripted
checks) still overrides both files (app/report/recorder.py).

Nothing here raises on a bad file: a missing file gives nothing, a damaged one one sentence.
"""

from __future__ import annotations

import difflib
import os
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

#: Settings that the system-wide file decides when it sets them; a user's file cannot change them.
ADMIN_SETTINGS = frozenset({"instructor_report", "report_retention_days"})


def system_settings_path() -> Path:
    """The system-wide settings file (it may not exist): ``$LANTERN_SYSTEM_SETTINGS`` when set,
    else the platform's machine-wide configuration folder."""
    override = os.environ.get("LANTERN_SYSTEM_SETTINGS")
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(os.environ.get("ProgramData") or r"C:\ProgramData") / "Lantern" / "settings.toml"
    if sys.platform == "darwin":
        return Path("/Library/Application Support/Lantern/settings.toml")
    return Path("/etc/lantern/settings.toml")


def file_state(path: Path) -> str:
    """How ``path`` stands, as words after its name: ``exists``, ``is a folder, not a settings file``,
    ``is not a regular file`` (``/dev/null``) or ``does not exist``."""
    if path.is_file():
        return "exists"
    if path.is_dir():
        return "is a folder, not a settings file"
    return "is not a regular file" if path.exists() else "does not exist"


def read_system_file(known: Iterable[str]) -> tuple[dict, list[str]]:
    """``(values, problems)``: the system-wide file's top-level settings whose names are in
    ``known`` (not yet type-checked), and one sentence for a file that cannot be read or parsed
    (then ``values`` is empty) or for each name Lantern does not know (ignored). A missing file
    gives ``({}, [])``; a UTF-8 byte-order mark at its start (Windows editors write one) is skipped."""
    path = system_settings_path()
    if path.is_dir():
        return {}, [f"The lab-wide settings file {path} is a folder, not a file; its settings are not used: "
                    "point LANTERN_SYSTEM_SETTINGS (or the lab's settings.toml) at a TOML file."]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"The lab-wide settings file {path} could not be read ({exc.__class__.__name__}); its "
                    "settings are not used: ask the lab's administrator to fix its permissions or contents."]
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"The lab-wide settings file {path} is not valid TOML ({exc}); its settings are not used: "
                    "ask the lab's administrator to fix it (or run `sudo dpkg-reconfigure lantern`)."]
    names = sorted(known)
    values, problems = {}, []
    for name, value in data.items():
        if name in names:
            values[name] = value
            continue
        guess = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        hint = f" (did you mean `{guess[0]}`?)" if guess else ""
        problems.append(f"The setting `{name}` in {path} is not one Lantern knows{hint}; it is ignored.")
    return values, problems
