"""Text typed, pasted or passed on a command line, made safe for every stage.

A question can hold what no guide does: lone surrogates (Python's stand-in for bytes that are not
UTF-8 in a command-line argument, e.g. ``lantern ask $'caf\\xe9'`` in a Latin-1 terminal), NUL and
other control characters (pasted text, a ``--history`` file). SQLite, FTS5, the tokenizer and the
embedding model each fail differently on them, so they are cleaned once where user text enters.
"""

from __future__ import annotations

import re

#: Surrogates outside U+DC80..U+DCFF (those stand for the bytes 0x80..0xFF under ``surrogateescape``).
_NOT_ESCAPED = re.compile("[\ud800-\udc7f\udd00-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_user_text(text: str) -> str:
    """``text`` with bytes that were not UTF-8 (lone surrogates from ``surrogateescape``) decoded as
    UTF-8 where they form it and replaced by U+FFFD where they do not, any other lone surrogate
    replaced by U+FFFD, and control characters other than tab and newlines replaced by a space."""
    text = _NOT_ESCAPED.sub("\ufffd", text)  # a surrogate that stands for no byte
    raw = text.encode("utf-8", "surrogateescape")
    return _CONTROL.sub(" ", raw.decode("utf-8", "replace"))
