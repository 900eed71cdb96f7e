"""Markdown -> HTML for the window: answers with clickable citations, guides with anchors.

Pure functions (no Qt): they take text and return HTML strings, so they are easy to test.
- :func:`answer_html`: an answer's Markdown, raw HTML disabled (model output is never
  trusted as markup), each ``[n]`` / ``[n, m]`` marker turned into ``cite:n`` links.
- :func:`guide_html`: a guide's Markdown (GFM tables on, front matter left out) with an
  ``<a name="anchor">`` before every heading's text, using the bundle's anchors (matched
  by the heading's character offset, so they equal ``BundleReader.headings``), and image
  sources rewritten to ``asset:<path relative to the course root>``.
- :func:`resolve_link`: a link inside a guide -> ``(guide path, anchor)`` of another guide.
- :func:`passage_words` / :func:`locate_words`: the words of a passage as the viewer shows
  them (rendered like the guide: no emphasis markers, link targets, list markers, entities),
  and where that run of words is in the rendered guide, to mark the cited passage.
"""

from __future__ import annotations

import html
import posixpath
import re
import textwrap
from collections import defaultdict
from difflib import SequenceMatcher
from html.parser import HTMLParser
from typing import Collection
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from ..ingest.markdown import fences, inline_text, line_starts
from ..ingest.slug import Slugger
from ..records import Heading, join_heading

#: A citation marker as the citation check leaves it: ``[3]`` or ``[1, 2]``.
CITATION_MARKER = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
ASSET_SCHEME = "asset"
CITE_SCHEME = "cite"


def _answer_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def text(self, tokens, idx, options, env):
        escaped = html.escape(tokens[idx].content, quote=False)
        valid = env.get("valid", set())

        def link(match: re.Match) -> str:
            numbers = [int(x) for x in re.split(r"\s*[,;]\s*", match.group(1))]
            if not all(n in valid for n in numbers):
                return match.group(0)
            inner = ", ".join(f'<a href="{CITE_SCHEME}:{n}">{n}</a>' for n in numbers)
            return f"[{inner}]"

        return CITATION_MARKER.sub(link, escaped)

    md.add_render_rule("text", text)
    return md


_ANSWER_MD = _answer_parser()


def answer_html(text: str, valid_numbers: set[int] | frozenset[int], title_line: str = "") -> str:
    """HTML of an answer; only markers whose every number is in ``valid_numbers`` become links.
    A line that is exactly ``title_line`` (the "From the guides:" above the quotes) is shown bold,
    so the quotes stand apart from the model's checked sentences above them."""
    if title_line:
        text = re.sub(rf"(?m)^{re.escape(title_line)}$", lambda m: f"**{m.group(0)}**", text, count=1)
    return _ANSWER_MD.render(text, {"valid": set(valid_numbers)})


def _guide_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)

    def heading_open(self, tokens, idx, options, env):
        token = tokens[idx]
        anchor = token.meta.get("anchor", "")
        name = f'<a name="{html.escape(anchor)}"></a>' if anchor else ""
        return f"<{token.tag}>{name}"

    def image(self, tokens, idx, options, env):
        token = tokens[idx]
        src = token.attrGet("src") or ""
        resolved = resolve_asset(env.get("guide", ""), src)
        assets = env.get("assets")
        if resolved is not None and assets is not None and resolved not in assets:
            # The guide shows an image the course folder did not hold: say what it was.
            label = token.content or posixpath.basename(resolved)
            return f'<i>[Image not in the course: {html.escape(label)}]</i>'
        if resolved is not None:
            token.attrSet("src", f"{ASSET_SCHEME}:{resolved}")
        alt = html.escape(token.content)
        return f'<img src="{html.escape(token.attrGet("src") or "")}" alt="{alt}" />'

    md.add_render_rule("heading_open", heading_open)
    md.add_render_rule("image", image)
    return md


_GUIDE_MD = _guide_parser()


def resolve_asset(guide: str, src: str) -> str | None:
    """Course-root path of an image referenced from ``guide``; None for URLs and data URIs."""
    parts = urlsplit(src)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    joined = path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(guide), path)
    normal = posixpath.normpath(joined)
    return None if normal.startswith("..") else normal


def resolve_link(guide: str, href: str) -> tuple[str, str] | None:
    """``(guide path, anchor)`` for a link from ``guide`` to a course file (``other.md#anchor``,
    or ``#anchor`` for the same guide); None for external links."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    anchor = unquote(parts.fragment)
    if not parts.path:
        return guide, anchor
    target = resolve_asset(guide, parts.path)
    return (target, anchor) if target else None


def guide_html(guide: str, text: str, headings: list[Heading], assets: Collection[str] | None = None) -> str:
    """HTML of one guide with an ``<a name>`` per top-level heading (anchors from ``headings``,
    matched by character offset; a heading the bundle does not know gets a fresh slug). With
    ``assets`` (the bundle's image paths), an image the bundle lacks is shown as its alt text,
    "[Image not in the course: …]", instead of a broken-image mark."""
    tokens = _GUIDE_MD.parse(text)
    starts = line_starts(text)
    by_start = {h.start: h.anchor for h in headings}
    slugger = Slugger()
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or not token.map:
            continue
        title = inline_text(tokens[i + 1]) if i + 1 < len(tokens) else ""
        fresh = slugger.slug(title)
        start = starts[min(token.map[0], len(starts) - 1)]
        token.meta["anchor"] = by_start.get(start, fresh)
    return _GUIDE_MD.renderer.render(tokens, _GUIDE_MD.options, {"guide": guide, "assets": assets})


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
    stripped = re.sub(r"^([-*+>]|\d+[.)])\s+", "", stripped)
    stripped = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", stripped)
    stripped = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", stripped)
    # Emphasis markers and backticks go; an underscore or star inside a word is part of a code
    # name (LED_PIN, GPIO_NUM_2) and stays.
    stripped = re.sub(r"`|(?<!\w)(\*\*|__|\*|_)|(\*\*|__|\*|_)(?!\w)", "", stripped)
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
    guess = None
    for size in (3, 2) if len(needle) >= 2 else (1,):
        grams: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i in range(len(haystack) - size + 1):
            grams[tuple(haystack[i:i + size])].append(i)
        for offset in range(len(needle) - size + 1):
            found = grams.get(tuple(needle[offset:offset + size]))
            if found:
                starts = [max(0, i - offset) for i in found]
                after = [i for i in starts if i >= near]
                guess = min(after) if after else max(starts)
                break
        if guess is not None:
            break
    if guess is None:
        return None
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


def snippet_html(snippet: str, start: str, end: str, background: str, color: str) -> str:
    """HTML of a search snippet: the text escaped, each ``start``..``end`` span (the markers
    :meth:`BundleReader.search_guides` puts around matched words) shown bold on ``background``."""
    escaped = html.escape(snippet, quote=False)
    return (escaped.replace(html.escape(start), f'<b style="background-color:{background}; color:{color}">')
            .replace(html.escape(end), "</b>"))


def mark_prefixes(text: str, query: str, start: str, end: str) -> str:
    """``text`` with every word that starts with one of the query's words wrapped in
    ``start``/``end`` (case-insensitive), as FTS5 prefix matching would match it."""
    prefixes = sorted({w.lower() for w in re.findall(r"\w+", query)}, key=len, reverse=True)
    if not prefixes:
        return text
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in prefixes) + r")\w*", re.IGNORECASE)
    return pattern.sub(lambda m: f"{start}{m.group(0)}{end}", text)


def plain_marks(text: str, start: str, end: str) -> str:
    """``text`` with the match markers removed (for accessible names and tooltips)."""
    return text.replace(start, "").replace(end, "")


def citation_label(source: str, heading: str) -> str:
    """How a citation is written out in copied text: ``guide path › heading path``."""
    return join_heading(source, heading)


def answer_as_text(text: str, cited: list[tuple[int, str, str]], nearest: bool = False) -> str:
    """An answer as plain text for the clipboard: its text, then one line per cited source,
    ``[n] guide path › heading path`` (``cited`` holds ``(n, source, heading)``). With
    ``nearest``, the list is titled as the nearest sections rather than sources."""
    lines = [text.strip()]
    if cited:
        lines += ["", "Nearest sections:" if nearest else "Sources:"]
        lines += [f"[{n}] {citation_label(source, heading)}" for n, source, heading in cited]
    return "\n".join(lines) + "\n"
