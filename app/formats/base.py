"""What every converter of :mod:`app.formats` shares: the error it raises and the Markdown it writes.

The converters turn a document into the Markdown the rest of the pipeline reads (headings,
``- `` list items, fenced code, pipe tables with a header row). Text taken from a document is
escaped so that a line which happens to start with ``#``, ``>``, ``- `` or a fence is not read as
structure.
"""

from __future__ import annotations

import re

from ..text.grammar import LIST_MARKER_TEXT

#: A line Markdown would read as structure (heading, quote, list item, fence, rule): escaped with ``\``.
_MD_START = re.compile(rf"^(#|>|{LIST_MARKER_TEXT}\s|```|~~~|=+\s*$|-{{3,}}\s*$)")
_FENCE = re.compile(r"^(`{3,}|~{3,})")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")


#: Fonts (lower case, by prefix) that mark text set wholly in them as code (a Word paragraph, a slide's text box).
_MONOSPACE = ("courier", "consolas", "menlo", "monaco", "lucida console", "lucida sans typewriter", "source code",
              "dejavu sans mono", "liberation mono", "fira code", "fira mono", "roboto mono", "jetbrains mono",
              "cascadia", "ubuntu mono", "andale mono", "inconsolata")


def is_monospace(font: str) -> bool:
    """Whether the font name ``font`` (any case) is a monospace font that marks code (Consolas, Courier New...)."""
    return font.strip().lower().startswith(_MONOSPACE)


class UnreadableDocument(Exception):
    """A document that cannot be read (damaged, locked, hostile or of a legacy format).

    ``str()`` is one sentence naming the problem and the fix, without the file name (the caller
    adds it)."""


def missing_library(module: str, label: str, exc: Exception) -> UnreadableDocument:
    """The error for a converter library (``"docx"``, ``"pptx"``, ``"odfdo"``) this installation cannot
    load (a damaged install, or a frozen app built without the library's files); ``exc`` is why."""
    return UnreadableDocument(f"this installation of Lantern cannot read {label} files ({module} failed to load: "
                              f"{exc.__class__.__name__}: {str(exc)[:60]}); reinstall Lantern")


def inline(text: str) -> str:
    """``text`` on one line: runs of whitespace (line breaks, tabs, non-breaking spaces kept) become one space."""
    return re.sub(r"[ \t\r\n\f\v\u2028\u2029\x0b]+", " ", text).strip()


def escape_line(text: str) -> str:
    """One line of document text that Markdown will show as written (a leading ``#``, ``>``, list
    marker or fence is escaped)."""
    return _MD_START.sub(r"\\\1", text)


def paragraph(text: str) -> str:
    """A paragraph of document text as Markdown: each line stripped and escaped, empty lines dropped."""
    lines = [escape_line(line.strip()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def heading(level: int, text: str) -> str:
    """A Markdown ATX heading; ``level`` is clamped to 1-6 and the text put on one line."""
    return "#" * max(1, min(6, level)) + " " + inline(text)


def cell_text(text: str) -> str:
    """A table cell's text for a pipe table: one line, ``|`` escaped."""
    return inline(text).replace("\\", "\\\\").replace("|", "\\|")


def pipe_table(rows: list[list[str]]) -> str:
    """A GitHub-style pipe table of ``rows`` (cell texts); the first row is the header row.

    Rows are padded to the widest row; an empty ``rows`` (or only empty cells) gives ``""``."""
    rows = [[cell_text(c) for c in row] for row in rows if any(c.strip() for c in row)]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def image_note(description: str) -> str:
    """The text that stands for a picture of a document (its pictures are not stored): ``(Image: …)``."""
    description = inline(description)
    return f"(Image: {description})" if description else "(Image)"


def images_as_notes(markdown: str) -> str:
    """``markdown`` with each image reference replaced by :func:`image_note` of its alt text (the
    images of an EPUB or notebook live inside the file, not in the course folder)."""
    return _IMAGE.sub(lambda m: image_note(m.group(1)), markdown)


def shift_headings(markdown: str, by: int) -> str:
    """``markdown`` with every ATX heading outside fenced code ``by`` levels deeper (at most 6)."""
    out, fence = [], ""
    for line in markdown.split("\n"):
        match = _FENCE.match(line)
        if match and (not fence or match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)):
            fence = "" if fence else match.group(1)
        elif not fence and re.match(r"#{1,6} ", line):
            hashes = len(line) - len(line.lstrip("#"))
            line = "#" * min(6, hashes + by) + line[hashes:]
        out.append(line)
    return "\n".join(out)


def join_blocks(blocks: list[str]) -> str:
    """Markdown blocks joined by blank lines, empty blocks dropped, ending in one newline (or ``""``)."""
    kept = [b.strip("\n") for b in blocks if b.strip()]
    return "\n\n".join(kept) + "\n" if kept else ""
