"""Markdown -> HTML for the window: answers with clickable citations, guides with anchors.

Pure functions (no Qt): they take text and return HTML strings, so they are easy to test.
- :func:`answer_html`: an answer's Markdown, each ``[n]`` / ``[n, m]`` marker turned into
  ``cite:n`` links, a link in a quote to a guide turned into ``guide:<path>#<anchor>``
  (resolved against the quoted passage's guide); raw HTML is shown as text except the
  inline formatting of :data:`INLINE_TAGS` without attributes (``I<sup>2</sup>C``), as the
  viewer shows it (model output is never trusted as markup).
- :func:`guide_html`: a guide's Markdown (GFM tables on, front matter left out) with an
  ``<a name="anchor">`` before every heading's text, using the bundle's anchors (matched
  by the heading's character offset, so they equal ``BundleReader.headings``), and image
  sources rewritten to ``asset:<path relative to the course root>``. The HTML is then
  sanitised with nh3 (:func:`sanitize_guide_html`): raw HTML in a guide keeps only the tags
  and attributes the viewer shows, and an image that is not one of the bundle's assets
  becomes ``missing:`` (the viewer draws a placeholder), so no path or URL of the PC's
  reaches Qt's resource loading.
- :func:`resolve_link`: a link inside a guide -> ``(guide path, anchor)`` of another guide
  (:func:`app.retrieval.links.classify_link` says what any other link is).
- :mod:`app.gui.passage_text` finds a cited passage in the rendered guide and makes excerpts.
"""

from __future__ import annotations

import html
import posixpath
import re
from typing import Collection, Mapping
from urllib.parse import quote, unquote, urlsplit

import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from ..ingest.markdown import inline_text, line_starts
from ..ingest.slug import Slugger
from ..records import Answer, Heading, Passage, join_heading
from ..retrieval.links import GUIDE, classify_link
from ..text.grammar import CITATION_MARKER, citation_numbers
from ..text.lists import keep_item_numbers
from .translation import tr

ASSET_SCHEME = "asset"
CITE_SCHEME = "cite"
#: A link in an answer's quote to a course guide: ``guide:<course path>#<anchor>``.
GUIDE_SCHEME = "guide"
#: The source of an image that is not one of the bundle's assets: the viewer draws a placeholder.
MISSING_SCHEME = "missing"

#: Inline formatting a guide's text may use in raw HTML and a quote shows as the viewer does
#: (``I<sup>2</sup>C``, ``<kbd>Ctrl</kbd>``); in an answer only without attributes.
INLINE_TAGS = frozenset({"b", "i", "em", "strong", "u", "s", "del", "ins", "mark", "small", "big", "sup", "sub",
                         "kbd", "code", "var", "samp", "tt", "cite", "q", "br", "span"})
#: Tags a rendered guide keeps (what the Markdown renderer writes, and the layout HTML course
#: guides use); any other tag is dropped with its text kept, ``<script>``/``<style>`` with their text.
GUIDE_TAGS = INLINE_TAGS | {"p", "div", "center", "h1", "h2", "h3", "h4", "h5", "h6", "a", "img", "ul", "ol", "li",
                            "dl", "dt", "dd", "blockquote", "pre", "hr", "table", "caption", "thead", "tbody",
                            "tfoot", "tr", "th", "td", "details", "summary", "figure", "figcaption"}
_CELL = {"align", "colspan", "rowspan", "style"}
#: Attributes a rendered guide keeps: link targets and anchors, image sources (bundle assets only),
#: alignment. No ``style`` but a table cell's ``text-align``: no CSS ever names a file.
GUIDE_ATTRIBUTES = {"a": {"href", "name", "id", "title"}, "img": {"src", "alt", "title"}, "td": _CELL, "th": _CELL,
                    "ol": {"start"}, "p": {"align"}, "div": {"align"},
                    **{f"h{i}": {"id", "align"} for i in range(1, 7)}}
#: URL schemes a guide's links and images may carry into the sanitiser: images are then rewritten
#: to bundle assets or ``missing:``; links keep their target, so the viewer can say what a
#: ``file:`` or ``javascript:`` link is (it follows only links to the course's guides).
_URL_SCHEMES = {"http", "https", "ftp", "mailto", "file", "javascript", "vbscript", "data", ASSET_SCHEME}
#: Most columns or rows a table cell of a guide may span.
MAX_CELL_SPAN = 50
_INLINE_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)\s*(/?)>")
_ANY_TAG = re.compile(r"<[^<>]*>")


def _inline_html(raw: str) -> str:
    """Raw HTML of an answer as HTML: each tag of :data:`INLINE_TAGS` written without
    attributes (``<sup>``, ``</sup>``, ``<br>``) stays a tag; everything else is shown as text."""
    out = []
    last = 0
    for match in _ANY_TAG.finditer(raw):
        out.append(html.escape(html.unescape(raw[last:match.start()]), quote=False))
        tag = _INLINE_TAG.fullmatch(match.group(0))
        name = tag.group(2).lower() if tag else ""
        if tag and name in INLINE_TAGS and name != "span":
            out.append("<br>" if name == "br" else f"<{tag.group(1)}{name}>")
        else:
            out.append(html.escape(match.group(0), quote=False))
        last = match.end()
    out.append(html.escape(html.unescape(raw[last:]), quote=False))
    return "".join(out)


def _answer_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")

    def text(self, tokens, idx, options, env):
        escaped = html.escape(tokens[idx].content, quote=False)
        valid = env.get("valid", set())

        def link(match: re.Match) -> str:
            numbers = citation_numbers(match)
            if not all(n in valid for n in numbers):
                return match.group(0)
            inner = ", ".join(f'<a href="{CITE_SCHEME}:{n}">{n}</a>' for n in numbers)
            return f"[{inner}]"

        return CITATION_MARKER.sub(link, escaped)

    def html_inline(self, tokens, idx, options, env):
        return _inline_html(tokens[idx].content)

    def html_block(self, tokens, idx, options, env):
        return f"<p>{_inline_html(tokens[idx].content.strip())}</p>\n"

    md.add_render_rule("text", text)
    md.add_render_rule("html_inline", html_inline)
    md.add_render_rule("html_block", html_block)
    return md


_ANSWER_MD = _answer_parser()


def answer_html(text: str, valid_numbers: set[int] | frozenset[int], title_line: str = "",
                sources: Mapping[int, str] | None = None) -> str:
    """HTML of an answer; only markers whose every number is in ``valid_numbers`` become links.
    A line that is exactly ``title_line`` (the "From the guides:" above the quotes) is shown bold,
    so the quotes stand apart from the model's checked sentences above them. ``sources`` maps a
    passage number to its guide's course path: a link to a guide inside a quote (the text up to
    the quote's ``[n]``) is resolved against passage n's guide and becomes ``guide:<path>#<anchor>``;
    other links keep their target (the window says what they are and does not follow them)."""
    if title_line:
        text = re.sub(rf"(?m)^{re.escape(title_line)}$", lambda m: f"**{m.group(0)}**", text, count=1)
    env = {"valid": set(valid_numbers)}
    tokens = keep_item_numbers(_ANSWER_MD.parse(text, env))
    _resolve_quote_links(tokens, sources or {})
    return _ANSWER_MD.renderer.render(tokens, _ANSWER_MD.options, env)


def guide_url(path: str, anchor: str = "") -> str:
    """The ``guide:`` link to ``anchor`` of the guide at course path ``path``."""
    url = f"{GUIDE_SCHEME}:{quote(path, safe='/')}"
    return f"{url}#{quote(anchor, safe='')}" if anchor else url


def _resolve_quote_links(tokens, sources: Mapping[int, str]) -> None:
    """Point each link to a course file at ``guide:`` of the guide it names, resolved against the
    guide of the passage whose citation marker follows it (a quote ends with its ``[n]``)."""
    pending = []
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open":
                pending.append(child)
            elif child.type == "text" and pending:
                marker = CITATION_MARKER.search(child.content)
                if marker is None:
                    continue
                guide = sources.get(citation_numbers(marker)[0])
                for link in pending:
                    target = classify_link(guide, link.attrGet("href") or "") if guide is not None else None
                    if target is not None and target.kind == GUIDE:
                        link.attrSet("href", guide_url(target.path, target.anchor))
                pending = []


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
        if resolved is None or (assets is not None and resolved not in assets):
            # The guide shows an image the course folder did not hold (or one on the web): say what it was.
            label = token.content or posixpath.basename(resolved or urlsplit(src).path) or tr("image")
            words = tr("Image not in the course: {label}").format(label=label)
            return f'<i>[{html.escape(words)}]</i>'
        alt = html.escape(token.content)
        return f'<img src="{html.escape(f"{ASSET_SCHEME}:{resolved}")}" alt="{alt}" />'

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
    or ``#anchor`` for the same guide); None for any other link (:func:`classify_link` says which)."""
    target = classify_link(guide, href)
    return (target.path, target.anchor) if target.kind == GUIDE else None


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
    rendered = _GUIDE_MD.renderer.render(tokens, _GUIDE_MD.options, {"guide": guide, "assets": assets})
    return sanitize_guide_html(rendered, guide, assets)


def sanitize_guide_html(rendered: str, guide: str, assets: Collection[str] | None = None) -> str:
    """``rendered`` (a guide's HTML, raw HTML of the guide included) with only :data:`GUIDE_TAGS`
    and :data:`GUIDE_ATTRIBUTES` left (nh3, the ammonia sanitiser): no ``<link>``, ``<style>``,
    ``<script>``, ``<iframe>``, event handlers or CSS but a cell's ``text-align``. Every image
    source becomes ``asset:<course path>`` when it names one of ``assets`` (any course path when
    ``assets`` is None), else ``missing:`` (a placeholder); so a guide naming ``/dev/zero``,
    ``file:///etc/passwd`` or a FIFO never has Qt read it. Table cells span at most
    :data:`MAX_CELL_SPAN` rows or columns."""

    def keep(element: str, attribute: str, value: str) -> str | None:
        if element == "img" and attribute == "src":
            return _image_source(guide, value, assets)
        if attribute in ("colspan", "rowspan"):
            return value if value.strip().isdigit() and 0 < int(value) <= MAX_CELL_SPAN else None
        return value

    return nh3.clean(rendered, tags=set(GUIDE_TAGS), attributes={k: set(v) for k, v in GUIDE_ATTRIBUTES.items()},
                     attribute_filter=keep, url_schemes=set(_URL_SCHEMES), link_rel=None,
                     filter_style_properties={"text-align"})


def _image_source(guide: str, src: str, assets: Collection[str] | None) -> str:
    """``asset:<course path>`` for an image of the bundle, ``missing:`` for anything else."""
    prefix = f"{ASSET_SCHEME}:"
    resolved = src[len(prefix):] if src.startswith(prefix) else resolve_asset(guide, src)
    if resolved and (assets is None or resolved in assets) and not resolved.startswith(("/", "..")):
        return prefix + resolved
    return f"{MISSING_SCHEME}:"


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
        lines += ["", tr("Nearest sections:") if nearest else tr("Sources:")]
        lines += [f"[{n}] {citation_label(source, heading)}" for n, source, heading in cited]
    return "\n".join(lines) + "\n"


def final_answer_as_text(answer: Answer) -> str:
    """A finished answer as :func:`answer_as_text` writes it: with its citations, or for a
    ``not-covered`` answer its nearest sections, else nothing listed."""
    nearest = not answer.citations
    cited = answer.citations or (answer.passages if answer.state == "not-covered" else ())
    return answer_as_text(answer.text, [(p.n, p.hit.source, p.hit.heading) for p in cited], nearest=nearest)


def running_text(streamed: list[str], evidence: Answer | None) -> str:
    """A running answer as on screen: the model's checked sentences so far (``streamed``) above
    the guides' words (``evidence``, the extractive answer); '' before the evidence."""
    if evidence is None:
        return ""
    if not streamed:
        return evidence.text
    return " ".join(streamed) + "\n\n" + evidence.text


def running_answer_as_text(streamed: list[str], evidence: Answer, passages: Mapping[int, Passage]) -> str:
    """A running answer (:func:`running_text`) as :func:`answer_as_text` writes it, cited as the
    final answer will be: the checked sentences' passages, then the quotes' (``passages``: those
    on screen by number)."""
    numbers = [n for m in CITATION_MARKER.finditer(" ".join(streamed)) for n in citation_numbers(m)]
    numbers += [p.n for p in evidence.citations]
    listed = [passages[n] for n in dict.fromkeys(numbers) if n in passages]
    return answer_as_text(running_text(streamed, evidence), [(p.n, p.hit.source, p.hit.heading) for p in listed])
