"""``--history`` files (``lantern ask`` and ``lantern export``): the earlier turns of a
conversation, a JSON list of ``{"role": "user"|"assistant", "content": "text"}``, read with
bounds so that no file given there can exhaust memory or hang the command."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .errors import LanternError

#: The largest ``--history`` file read (bytes): far more than the last few turns the answerer keeps
#: (app/answer/prompt.py: 6 turns of at most 1,000 characters).
MAX_HISTORY_BYTES = 1_000_000


def read_history(path: Path) -> list[dict]:
    """The turns of a ``--history`` file. Raises :class:`LanternError` naming the problem: the file
    cannot be read, is not a regular file (a folder, a device such as ``/dev/zero``, a FIFO: refused
    before anything is read), is over :data:`MAX_HISTORY_BYTES` bytes (at most that many plus one are
    read), is not UTF-8 or not JSON, nests too deeply for the parser, is not a list, or a turn is not
    ``{"role": "user"|"assistant", "content": "text"}`` (other roles, such as ``system``, are refused
    rather than dropped)."""
    history = _parse_json(path, _read_bytes(path))
    if not isinstance(history, list):
        raise LanternError(f"The history file {path} must hold a JSON list of turns.")
    for i, turn in enumerate(history, 1):
        if not (isinstance(turn, dict) and turn.get("role") in ("user", "assistant")
                and isinstance(turn.get("content"), str)):
            raise LanternError(f"Turn {i} of the history file {path} is not "
                               "{\"role\": \"user\" or \"assistant\", \"content\": \"text\"}; fix or remove it.")
    return history


def _read_bytes(path: Path) -> bytes:
    """At most :data:`MAX_HISTORY_BYTES` bytes of a regular file; anything else is refused."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, a pipe or a socket)"
                raise LanternError(f"The history file {path} is {what}; give the path of a JSON file of earlier turns.")
            if info.st_size > MAX_HISTORY_BYTES:
                raise LanternError(f"The history file {path} is {info.st_size:,} bytes, over the limit of "
                                   f"{MAX_HISTORY_BYTES:,}; keep only the last few turns in it.")
            with open(fd, "rb", closefd=False) as file:
                data = file.read(MAX_HISTORY_BYTES + 1)  # a file growing while read is still bounded
        finally:
            os.close(fd)
    except OSError as exc:
        raise LanternError(f"The history file {path} cannot be read ({exc.strerror or exc}); "
                           "give the path of a JSON file of earlier turns.") from exc
    if len(data) > MAX_HISTORY_BYTES:
        raise LanternError(f"The history file {path} is over the limit of {MAX_HISTORY_BYTES:,} bytes; "
                           "keep only the last few turns in it.")
    return data


def _parse_json(path: Path, data: bytes):
    """The JSON document in ``data``. Raises :class:`LanternError` when ``data`` is not UTF-8,
    not JSON, or nests too deeply for the parser."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LanternError(f"The history file {path} is not UTF-8 text; save it as UTF-8 JSON.") from exc
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise LanternError(f"The history file {path} nests lists or objects too deeply to read; "
                           "give a flat list of {\"role\", \"content\"} objects.") from exc
    except ValueError as exc:
        raise LanternError(f"The history file {path} is not valid JSON ({exc}); "
                           "give a list of {\"role\", \"content\"} objects.") from exc
