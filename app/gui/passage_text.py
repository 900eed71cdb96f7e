"""A passage as the guide viewer shows it, and where it is in a rendered guide.

- :func:`plain_lines` / :func:`excerpt`: a chunk's lines without Markdown markup, and a one-line
  excerpt of it (the sources list, search results).
- :func:`passage_words` / :func:`locate_words`: the words of a passage as the viewer shows
  them (rendered like the guide: no emphasis markers, link targets, list markers, entities),
  and where that run of words is in the rendered guide, to mark the cited passage.
"""

from __future__ import annotations

import re
import textwrap
from collections import defaultdict
from difflib import SequenceMatcher
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from ..ingest.markdown import fences, line_starts
from ..text.grammar import LIST_MARKER_TEXT, MARKDOWN_LINK
from .render import INLINE_TAGS

_FORMATTING_TAG = re.compile(r"</?(?:%s)(?:\s[^<>]*)?/?>" % "|".join(sorted(INLINE_TAGS)), re.IGNORECASE)


def plain_lines(markdown_text: str) -> list[str]:
    """The non-empty lines of a chunk's text with Markdown markup removed, roughly as
    the rendered document shows them (used to find a passage in the viewer). A fenced code
    block gives its code lines, not its fence lines."""
    out: list[str] = []
    code_at = {fence.start: fence for fence in fences(markdown_text)}
    starts = line_starts(markdown_text)
    resume = 0  # past the last fenced block
    for start, end in zip(starts, starts[1:]):
        fence = code_at.get(start) if start >= resume else None
        if fence is not None:
            out.extend(line.strip() for line in fence.code.splitlines() if line.strip())
            resume = fence.end
        if start < resume:
            continue
        out.extend(_plain_line(line) for line in markdown_text[start:end].splitlines())
    return [line for line in out if line]


def _plain_line(line: str) -> str:
    """One line of prose without its Markdown markup ('' for a table rule or an image)."""
    stripped = line.strip()
    if re.match(r"^\|?\s*:?-{3,}", stripped) or stripped.startswith("!["):
        return ""
    stripped = re.sub(r"^#{1,6}\s+", "", stripped)
    stripped = re.sub(rf"^(>|{LIST_MARKER_TEXT})\s+", "", stripped)
    stripped = MARKDOWN_LINK.sub(r"\1", stripped)
    # Emphasis markers and backticks go; an underscore or star inside a word is part of a code
    # name (LED_PIN, GPIO_NUM_2) and stays.
    stripped = re.sub(r"`|(?<!\w)(\*\*|__|\*|_)|(\*\*|__|\*|_)(?!\w)", "", stripped)
    # Inline formatting tags go (I<sup>2</sup>C reads I2C), as the viewer and the answer render them.
    stripped = _FORMATTING_TAG.sub(lambda m: " " if m.group(0).lower().startswith("<br") else "", stripped)
    if stripped.startswith("|"):
        stripped = stripped.strip("|").split("|")[0].strip()
    return " ".join(stripped.split())


#: A word as :func:`passage_words` and the viewer count them.
WORD = re.compile(r"\w+")
#: Words of the guide between two matched parts of a passage, beyond those of the passage, that
#: still count as one passage (what the passage says and the guide does not show is skipped freely).
EXTRA_WORDS = 3

_PASSAGE_MD = MarkdownIt("commonmark").enable("table")  # no front matter: a passage may start with ---


class _TextOf(HTMLParser):
    """The text an HTML fragment shows (what QTextDocument shows of it): tags, comments and
    ``<img alt>`` dropped, entities decoded."""

    HIDDEN = {"style", "script", "title", "head"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs) -> None:
        if tag in self.HIDDEN:
            self._hidden += 1
        self.parts.append(" ")

    def handle_endtag(self, tag) -> None:
        if tag in self.HIDDEN and self._hidden:
            self._hidden -= 1
        self.parts.append(" ")

    def handle_data(self, data) -> None:
        if not self._hidden:
            self.parts.append(data)


def passage_text(markdown_text: str) -> str:
    """A chunk's Markdown as the rendered guide shows it (white space aside): rendered with the
    guide's parser, so emphasis markers, link targets, list markers, images, line breaks and
    HTML entities are gone as they are in the viewer."""
    parser = _TextOf()
    parser.feed(_PASSAGE_MD.render(textwrap.dedent(markdown_text)))
    parser.close()
    return "".join(parser.parts)


def passage_words(markdown_text: str) -> list[str]:
    """The words (lower case) of :func:`passage_text`."""
    return [w.lower() for w in WORD.findall(passage_text(markdown_text))]


def locate_words(haystack: list[str], needle: list[str], near: int = 0) -> tuple[int, int] | None:
    """``(first, last)`` indexes in ``haystack`` (a rendered guide's words) of the run that
    matches ``needle`` (a passage's words) in order, or None when it is not there.

    The run is found by the passage's first three words that occur together in the guide
    (then two), the occurrence at or after ``near`` (the cited heading) first; it is then
    aligned word by word, so words of the passage the guide does not show (an unresolved
    reference link) are skipped, and a stray common word further on is not taken for the
    passage's end."""
    if not haystack or not needle:
        return None
    guess = _first_guess(haystack, needle, near)
    if guess is None:
        return None
    return _aligned_run(haystack, needle, guess)


def _first_guess(haystack: list[str], needle: list[str], near: int) -> int | None:
    """Where in ``haystack`` the passage starts, by its first three words that occur together there
    (then two; one for a one-word passage), the occurrence at or after ``near`` first; None if none."""
    for size in (3, 2) if len(needle) >= 2 else (1,):
        grams: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i in range(len(haystack) - size + 1):
            grams[tuple(haystack[i:i + size])].append(i)
        for offset in range(len(needle) - size + 1):
            found = grams.get(tuple(needle[offset:offset + size]))
            if found:
                starts = [max(0, i - offset) for i in found]
                after = [i for i in starts if i >= near]
                return min(after) if after else max(starts)
    return None


def _aligned_run(haystack: list[str], needle: list[str], guess: int) -> tuple[int, int] | None:
    """``(first, last)`` of the passage aligned word by word with the guide around ``guess``:
    matching parts further apart than :data:`EXTRA_WORDS` extra words are not the passage."""
    low = max(0, guess - EXTRA_WORDS)
    window = haystack[low:guess + len(needle) + 2 * EXTRA_WORDS + 10]
    blocks = [b for b in SequenceMatcher(None, needle, window, autojunk=False).get_matching_blocks() if b.size]
    if not blocks:
        return None
    core = max(range(len(blocks)), key=lambda i: blocks[i].size)
    first = last = blocks[core]
    for block in reversed(blocks[:core]):
        if first.b - (block.b + block.size) <= first.a - (block.a + block.size) + EXTRA_WORDS:
            first = block
    for block in blocks[core + 1:]:
        if block.b - (last.b + last.size) <= block.a - (last.a + last.size) + EXTRA_WORDS:
            last = block
    return low + first.b, low + last.b + last.size - 1


def excerpt(text: str, limit: int = 110) -> str:
    """A one-line excerpt of a chunk: its first prose lines, cut at ``limit`` characters."""
    lines = plain_lines(text)
    body = " ".join(lines[1:] if len(lines) > 1 and text.lstrip().startswith("#") else lines)
    return body if len(body) <= limit else body[:limit - 1].rstrip() + "…"
