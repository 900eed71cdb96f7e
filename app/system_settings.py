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

Nothing here raises on a bad file: a missing file gives nothing, a damaged one one sentence, and
a file over :data:`MAX_SETTINGS_BYTES` (1,048,576 bytes) one sentence without being read.
"""

from __future__ import annotations

import difflib
import os
import stat
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

#: Settings that the system-wide file decides when it sets them; a user's file cannot change them.
ADMIN_SETTINGS = frozenset({"instructor_report", "report_retention_days"})

#: The largest settings file read, in bytes (1 MiB); either file has a few lines (under 1 KB).
#: A larger one is refused by its size, unread: reading a 50 MB lab-wide file and a 50 MB user's file took
#: 1.0 s each time the settings were read (several times at every start); refusing them takes 0.2 ms.
MAX_SETTINGS_BYTES = 1_048_576


class SettingsFileTooLarge(Exception):
    """A settings file over :data:`MAX_SETTINGS_BYTES`; ``size`` is its size in bytes (None when
    only reading it showed that: a device such as ``/dev/zero`` whose ``stat`` size is 0)."""

    def __init__(self, size: int | None) -> None:
        super().__init__(f"{size} bytes")
        self.size = size

    def size_words(self) -> str:
        """Its size, in words: ``52,428,800 bytes``, or ``more than 1,048,576 bytes`` when unknown."""
        return f"{self.size:,} bytes" if self.size is not None else f"more than {MAX_SETTINGS_BYTES:,} bytes"


class SettingsFileNotRegular(OSError):
    """A settings path that is a named pipe or a socket: opening it would block the app until something
    wrote to it. Refused by ``stat`` alone, unopened. (A device is read, no further than the limit:
    ``/dev/null`` is an empty file, ``/dev/zero`` one too large.)"""

    def __str__(self) -> str:
        return "not a regular file"


def unreadable_words(exc: OSError | UnicodeDecodeError) -> str:
    """Why a settings file could not be read, in words for the sentence that says so: ``not a regular
    file`` or the exception's class (``PermissionError``)."""
    return str(exc) if isinstance(exc, SettingsFileNotRegular) else exc.__class__.__name__


def read_settings_text(path: Path) -> str:
    """The text of the settings file ``path`` (UTF-8; a leading byte-order mark, which Windows
    editors write, is skipped; Windows and old Mac line ends become ``\\n``). Its size is checked
    with ``stat`` first: a file over :data:`MAX_SETTINGS_BYTES` (1,048,576 bytes) raises
    :class:`SettingsFileTooLarge` unread, and no more than that many bytes (plus one) is ever
    read; a named pipe or a socket raises :class:`SettingsFileNotRegular` unopened. Also raises
    ``OSError`` (``FileNotFoundError`` for a missing file) and ``UnicodeDecodeError``."""
    found = path.stat()
    if stat.S_ISFIFO(found.st_mode) or stat.S_ISSOCK(found.st_mode):
        raise SettingsFileNotRegular()
    size = found.st_size
    if size > MAX_SETTINGS_BYTES:
        raise SettingsFileTooLarge(size)
    with path.open("rb") as file:
        data = file.read(MAX_SETTINGS_BYTES + 1)  # a device or a file that grew since `stat`: bounded
    if len(data) > MAX_SETTINGS_BYTES:
        raise SettingsFileTooLarge(None)
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")  # newlines as read_text gave them


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
    ``known`` (not yet type-checked), and one sentence for a file that cannot be read or parsed, or
    is over :data:`MAX_SETTINGS_BYTES` (1,048,576 bytes; it is not read) (then ``values`` is empty),
    or for each name Lantern does not know (ignored). A missing file gives ``({}, [])``; a UTF-8
    byte-order mark at its start (Windows editors write one) is skipped. Never raises."""
    path = system_settings_path()
    if path.is_dir():
        return {}, [f"The lab-wide settings file {path} is a folder, not a file; its settings are not used: "
                    "point LANTERN_SYSTEM_SETTINGS (or the lab's settings.toml) at a TOML file."]
    try:
        data = tomllib.loads(read_settings_text(path))
    except FileNotFoundError:
        return {}, []
    except SettingsFileTooLarge as exc:
        return {}, [f"The lab-wide settings file {path} is {exc.size_words()}, more than the "
                    f"{MAX_SETTINGS_BYTES:,} bytes a settings file may have, so it was not read and its settings "
                    "are not used: ask the lab's administrator to replace it with a file of just its settings."]
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"The lab-wide settings file {path} could not be read ({unreadable_words(exc)}); its "
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
