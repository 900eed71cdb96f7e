"""Guides saved in a legacy encoding: which one, with charset-normalizer.

A guide that is not valid UTF-8 is usually a file saved by an older Windows editor in the
system's 8-bit code page (Windows-1252 in Western Europe and the Americas, 1250 in Central
Europe, 1251 for Cyrillic...). charset-normalizer ranks the encodings that decode the bytes
plausibly; on a short guide several decode it with equal "chaos", and its first choice is then
often a neighbour code page that turns a few letters into others (``û`` into ``ű`` for
Windows-1250 read as 1252) or into symbols (``ł`` into ``³`` the other way round). Among the
candidates it finds, :func:`detect_legacy_encoding` therefore prefers the decoding with the
fewest symbols inside words (a sign of the wrong code page), then Windows code pages (guides are
mostly written on Windows), Windows-1252 first, then charset-normalizer's own order.
"""

from __future__ import annotations

import re
import unicodedata

#: Bytes that decode as UTF-8 except for a few stray ones stay UTF-8 (with U+FFFD for those):
#: at least this many valid multi-byte characters per invalid byte.
UTF8_MAJORITY = 1


#: Characters that belong inside words although they are not letters: the typographic apostrophes
#: of "sensor’s" and "don’t" (what Windows-1252 text is full of), and the Unicode hyphens.
_WORD_PUNCTUATION = "\u2019\u2018\u02bc\u2010\u2011"


def _symbols_inside_words(text: str) -> int:
    """Non-ASCII characters that are not letters, marks or word punctuation (a typographic
    apostrophe) yet sit between two letters."""
    count = 0
    for match in re.finditer(r"(?<=[^\W\d_])[^\x00-\x7f](?=[^\W\d_])", text):
        ch = match.group()
        if unicodedata.category(ch)[0] not in "LM" and ch not in _WORD_PUNCTUATION:
            count += 1
    return count


def _preference(encoding: str) -> int:
    if encoding == "cp1252":
        return 0
    return 1 if re.fullmatch(r"cp125\d", encoding) else 2


def encoding_label(encoding: str) -> str:
    """A Python codec name as people know it: ``cp1252`` -> ``Windows-1252``, ``iso8859_2`` ->
    ``ISO-8859-2``; other names unchanged."""
    if re.fullmatch(r"cp125\d", encoding):
        return "Windows-" + encoding[2:]
    if encoding.startswith("iso8859_"):
        return "ISO-8859-" + encoding.split("_", 1)[1]
    return encoding


def mostly_utf8(data: bytes) -> bool:
    """True when ``data`` is UTF-8 with a few damaged bytes rather than another encoding: it holds
    at least :data:`UTF8_MAJORITY` valid multi-byte UTF-8 characters per invalid byte."""
    text = data.decode("utf-8", errors="replace")
    invalid = text.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd")
    valid_multibyte = sum(1 for ch in text if ord(ch) > 0x7F and ch != "\ufffd")
    return valid_multibyte > 0 and valid_multibyte >= UTF8_MAJORITY * invalid


def detect_legacy_encoding(data: bytes) -> tuple[str, str] | None:
    """``(text, codec name)`` for bytes that are not UTF-8, or None when no encoding decodes them
    plausibly (the caller then decodes UTF-8 with replacement characters). Raises nothing."""
    try:
        from charset_normalizer import from_bytes

        matches = [m for m in from_bytes(data) if not m.encoding.startswith("utf")]
    except Exception:  # a detector failure must not stop a build
        return None
    if not matches:
        return None
    least_chaos = min(m.chaos for m in matches)
    ranked = []
    for order, match in enumerate(matches):
        if match.chaos > least_chaos + 0.01:
            continue
        # charset-normalizer merges encodings that decode these bytes to the same text; name the
        # most likely of them (Windows-1252 for a Western guide it reports as Windows-1250).
        names = [match.encoding, *getattr(match, "could_be_from_charset", [])]
        name = min(names, key=_preference)
        text = str(match)
        ranked.append((_symbols_inside_words(text), _preference(name), order, text, name))
    _, _, _, text, encoding = min(ranked)
    return text, encoding
