"""HTML of ``lantern serve``: answers with citations that open the guide at the passage, the guides
themselves, and the page's own files (shipped in ``app/serve/static``, never from a CDN).

Guides and answers are rendered as the window renders them (:mod:`app.gui.render`'s functions,
which take text and return HTML) and then sanitised again with nh3 for the browser: links keep only ``http``, ``https`` and
``mailto`` targets or become links to the course's guides (``/guide/<course id>/<course path>#<anchor>``),
images point at the bundle's own assets (``/asset/<course id>/<course path>``), and nothing else
survives (no script, style, frame, form or event handler).
"""

from __future__ import annotations

import html
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Iterable
from urllib.parse import quote, unquote, urlsplit

import nh3

from ..answer.replies import note_in
from ..gui.render import (
    ASSET_SCHEME,
    CITE_SCHEME,
    GUIDE_ATTRIBUTES,
    GUIDE_SCHEME,
    GUIDE_TAGS,
    answer_html,
    guide_html,
    resolve_link,
)
from ..records import Passage

if TYPE_CHECKING:  # pragma: no cover
    from ..bundle.reader import BundleReader

#: The page's own files: name -> media type. Only these names are served from ``app/serve/static``.
STATIC_FILES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
                "guide.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
#: Image types a guide's asset is served as; any other stored type is refused.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml", "image/bmp"})
_WEB_SCHEMES = frozenset({"http", "https", "mailto"})
_ATTRIBUTES = {k: set(v) for k, v in GUIDE_ATTRIBUTES.items()}


@lru_cache(maxsize=None)
def static_file(name: str) -> bytes | None:
    """The bytes of one of :data:`STATIC_FILES`, None for any other name."""
    if name not in STATIC_FILES:
        return None
    return (resources.files(__package__) / "static" / name).read_bytes()


def guide_link(course_id: str, path: str, anchor: str = "") -> str:
    """The page URL of the guide at course path ``path`` of ``course_id``, at ``anchor``."""
    url = f"/guide/{quote(course_id, safe='')}/{quote(path, safe='/')}"
    return f"{url}#{quote(anchor, safe='')}" if anchor else url


def _web_link(value: str) -> str | None:
    """``value`` when it is an http(s) or mailto link, else None."""
    return value if urlsplit(value).scheme.lower() in _WEB_SCHEMES else None


def answer_fragment(course_id: str, text: str, passages: Iterable[Passage]) -> str:
    """HTML of an answer's Markdown ``text`` (or of one verified sentence): each valid ``[n]`` a link
    to passage n's guide at its section; links to other guides resolved; raw HTML shown as text.
    The last :data:`FRAGMENTS_KEPT` are kept: a question asked again is not rendered again."""
    return _fragment(course_id, text, tuple(sorted((p.n, p.hit.source, p.hit.anchor) for p in passages)))


#: Rendered answers kept by :func:`answer_fragment` (rendering and sanitising was 15% of a served
#: question's time: py-spy, IoT course, 30 students asking at once). About 2-20 KB each.
FRAGMENTS_KEPT = 512


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _fragment(course_id: str, text: str, cited: tuple[tuple[int, str, str], ...]) -> str:
    """:func:`answer_fragment` of the passages ``cited`` as ``(n, guide path, anchor)``."""
    by_n = {n: (source, anchor) for n, source, anchor in cited}
    rendered = answer_html(text, set(by_n), note_in(text), {n: source for n, (source, _) in by_n.items()})

    def keep(element: str, attribute: str, value: str) -> str | None:
        if element != "a" or attribute != "href":
            return value
        if value.startswith(f"{CITE_SCHEME}:"):
            number = value[len(CITE_SCHEME) + 1:]
            passage = by_n.get(int(number)) if number.isdigit() else None
            return guide_link(course_id, *passage) if passage else None
        if value.startswith(f"{GUIDE_SCHEME}:"):
            path, _, anchor = value[len(GUIDE_SCHEME) + 1:].partition("#")
            return guide_link(course_id, unquote(path), unquote(anchor))
        return _web_link(value)

    return nh3.clean(rendered, tags=set(GUIDE_TAGS), attributes={**_ATTRIBUTES, "a": {"href"}}, attribute_filter=keep,
                     url_schemes=set(_WEB_SCHEMES) | {CITE_SCHEME, GUIDE_SCHEME}, link_rel="noopener noreferrer",
                     set_tag_attribute_values={"a": {"target": "_blank"}})


def guide_body(course_id: str, bundle: BundleReader, path: str) -> str:
    """The sanitised HTML of guide ``path`` for the browser (see the module docstring). Raises
    :class:`~app.errors.BundleError` when the bundle has no such guide."""
    text = bundle.source_text(path)
    rendered = guide_html(path, text, bundle.headings(path), bundle.asset_paths)
    asset_prefix = f"{ASSET_SCHEME}:"

    def keep(element: str, attribute: str, value: str) -> str | None:
        if element == "img" and attribute == "src":
            if value.startswith(asset_prefix):
                return f"/asset/{quote(course_id, safe='')}/{quote(value[len(asset_prefix):], safe='/')}"
            return None  # a placeholder: the alt text stays
        if element == "a" and attribute == "href":
            target = resolve_link(path, value)
            return guide_link(course_id, *target) if target else _web_link(value)
        return value

    return nh3.clean(rendered, tags=set(GUIDE_TAGS), attributes=_ATTRIBUTES, attribute_filter=keep,
                     url_schemes=set(_WEB_SCHEMES) | {ASSET_SCHEME}, link_rel="noopener noreferrer",
                     filter_style_properties={"text-align"})


def guide_page(course_id: str, course_title: str, guide_title: str, body: str, language: str = "") -> str:
    """The whole HTML page of one guide: a way back to the questions, the guide, and ``guide.js``
    (it marks the cited section named by the URL's fragment)."""
    e = html.escape
    lang = e(language or "en")
    return (f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(guide_title)} · {e(course_title)}</title>"
            '<link rel="stylesheet" href="/static/style.css"></head>\n'
            f'<body class="guide-page"><header class="bar"><a href="/?course={quote(course_id, safe="")}">'
            f"Back to questions</a><span class=\"course\">{e(course_title)}</span></header>\n"
            f'<main id="guide" tabindex="-1"><article>{body}</article></main>\n'
            '<script src="/static/guide.js"></script></body></html>\n')
