"""Static-site markup in Markdown guides: what a course site's generator reads and a student never
sees (Pandoc and Carpentries fenced-div markers, kramdown attribute lists, Liquid tags, DocFX markers
and images, Jekyll's site-root variables), turned into what the site shows. Called by the course
reader (app/ingest/reader.py) before chunking; offsets are not kept (the text is the guide's text
from then on)."""

from __future__ import annotations

import re

from ..text.grammar import LIST_MARKER_TEXT
from .markdown import fences

_DIV_NAME = re.compile(r"\{[^}]*\}|[\w-]+")
_LIQUID = re.compile(r"\{%[^%]*%\}")
#: An author's placeholder line outside code ("FIXME: exercises that don't fit into the regular
#: schedule."): a note to the course's writers, not text for students (a lesson template's empty page
#: was quoted as the answer to an off-topic request). Only FIXME; "TODO:", "TBD" and "XXX" also start
#: glossary lines and hold answers ("The exam date is TBD"), so they stay.
_PLACEHOLDER = re.compile(r"FIXME\b")
_PLACEHOLDER_WORD = re.compile(r"(?m)^[ \t]{0,3}FIXME\b")


def _is_site_markup(line: str) -> bool:
    """Whether ``line`` is only a static-site generator's markup, never text a student reads: a
    Pandoc or Carpentries fenced-div marker (``::::: callout``, ``::: {.note}``, a closing
    ``:::::``), a kramdown attribute list (``{: .challenge}``, ``{: .language-bash}``) or a Liquid
    tag (``{% include links.md %}``), a DocFX marker (``:::zone pivot="windows":::``) or an author's
    ``FIXME`` line. A Docusaurus admonition with a title (``:::tip Pro tip``) is not: the title is
    text. (Plain string tests, no nested regex quantifiers: a 200 KB line costs linear time.)"""
    body = line.rstrip("\r\n")
    stripped = body.strip(" \t")
    if not stripped or len(body) - len(body.lstrip(" \t")) > 3:
        return False
    if stripped.startswith(":::"):
        name = stripped.lstrip(":").strip(" \t").rstrip(":").strip(" \t")
        if stripped.endswith(":::") and name.split(" ", 1)[0] in _DOCFX_MARKERS:
            return True  # Microsoft Learn (DocFX): ":::zone pivot="windows":::", ":::column span="2":::"
        return not name or bool(_DIV_NAME.fullmatch(name))
    if stripped.startswith("{:") and stripped.endswith("}"):
        return "}" not in stripped[:-1]
    return bool(_LIQUID.fullmatch(stripped) or _PLACEHOLDER.match(stripped))


#: A Pandoc attribute block right after a link or image: ``![](fig/bar.svg){alt='GDP bars'}``.
_ATTRIBUTES_AFTER = re.compile(r"(!?)\[([^\]\n]{0,200})\]\(([^)\s]{0,500})\)\{([^{}\n]{0,300})\}")  # bounded: linear
_ALT = re.compile(r"""\balt\s*=\s*(?:'([^']*)'|"([^"]*)")""")


def _inline_attributes(text: str) -> str:
    """``text`` with Pandoc's attribute blocks after links and images removed, outside code; an
    image's ``alt=`` attribute becomes its alt text when the brackets are empty (The Carpentries
    write images as ``![](fig/bar.svg){alt='GDP barplot'}``; the braces were quoted as words)."""
    code = [(f.start, f.end) for f in fences(text)]

    def plain(match: re.Match) -> str:
        line_start = text.rfind("\n", 0, match.start()) + 1
        if any(s <= match.start() < e for s, e in code) or text.count("`", line_start, match.start()) % 2:
            return match.group(0)  # in a code block, or in inline code on its line
        bang, label, target, attributes = match.groups()
        alt = _ALT.search(attributes)
        if bang and not label.strip() and alt:
            label = (alt.group(1) if alt.group(1) is not None else alt.group(2)).replace("[", "(").replace("]", ")")
        return f"{bang}[{label}]({target})"
    return _ATTRIBUTES_AFTER.sub(plain, text)


#: Microsoft Learn (DocFX) block markers that show no text of their own.
_DOCFX_MARKERS = {"zone", "zone-end", "moniker", "moniker-end", "row", "row-end", "column", "column-end",
                  "code", "image-end", "no-loc"}
#: A DocFX image: ``:::image type="content" source="media/x.png" alt-text="Enable AddressSanitizer":::``;
#: a "complex" one has no closing colons, and its long description follows until ``:::image-end:::``
#: (bounded, so a 200 KB line costs linear time).
_DOCFX_IMAGE = re.compile(rf"(?m)^([ \t]*(?:{LIST_MARKER_TEXT}[ \t]+)?):::image(?![\w-])([^\n]{{0,2000}}?)(?::::[ \t]*)?$")
_DOCFX_ATTRIBUTE = re.compile(r'([\w-]+)\s*=\s*"([^"\n]*)"')


def _docfx_images(text: str) -> str:
    """``text`` with each DocFX image line, outside code, written as the Markdown image it shows
    (``![alt text](source)``): the directive was quoted as a sentence, and its alt text often names
    what the picture shows ("the Enable AddressSanitizer property")."""
    code = [(f.start, f.end) for f in fences(text)]

    def image(match: re.Match) -> str:
        if any(s <= match.start() < e for s, e in code):
            return match.group(0)
        attributes = dict(_DOCFX_ATTRIBUTE.findall(match.group(2)))
        alt = attributes.get("alt-text", "").replace("[", "(").replace("]", ")")
        return f"{match.group(1)}![{alt}]({attributes.get('source', '')})"
    return _DOCFX_IMAGE.sub(image, text)


#: Fenced-div boxes of a lesson's own questions and learning objectives (The Carpentries Workbench's
#: ``:::: questions`` and ``:::: objectives`` at the top of an episode, and the names translated lessons
#: give them: ``objectifs``, ``objetivos``, ``preguntas``). They list what the episode will teach, never
#: the answer, yet their words are a student's question's words: the French shell lesson's objectives
#: ("Expliquer comment le shell est lié au clavier…") were quoted third for "Comment sortir d'une
#: commande qui attend des données au clavier ?" in place of the Ctrl+C passage. The older Jekyll
#: lessons keep the same lists in front matter, which is never guide text; these are dropped the same
#: way. Key points (``keypoints``) state facts and stay.
LEARNING_BOXES = frozenset({"questions", "objectives", "objectifs", "objetivos", "preguntas"})


def _box_name(line: str) -> str:
    """The class of a fenced-div opening line (``:::::: objectives``, ``::: {.questions}``), lower case;
    '' for any other line."""
    stripped = line.strip(" \t\r\n")
    if not stripped.startswith(":::"):
        return ""
    name = stripped.lstrip(":").strip(" \t").rstrip(":").strip(" \t")
    return name.strip("{}").lstrip(".").split(" ", 1)[0].lower() if _DIV_NAME.fullmatch(name) else ""


def _drop_learning_boxes(text: str) -> str:
    """``text`` with every :data:`LEARNING_BOXES` box, outside code, made empty lines from its opening
    marker to the first closing one (a line of colons only); a box never closed runs to the end of the
    guide, as a site generator would read it."""
    code = [(f.start, f.end) for f in fences(text)]
    out: list[str] = []
    offset = 0
    inside = False
    for line in text.splitlines(keepends=True):
        in_code = any(s <= offset < e for s, e in code)
        offset += len(line)
        if not in_code and not inside and _box_name(line) in LEARNING_BOXES:
            inside = True
        elif inside and not in_code and line.strip(" \t\r\n").strip(":") == "" and ":::" in line:
            inside = False
        elif not inside:
            out.append(line)
            continue
        out.append(line[len(line.rstrip("\r\n")):])
    return "".join(out)


def blank_site_markup(text: str) -> str:
    """``text`` with every line of site markup (:func:`_is_site_markup`) outside code blocks made
    empty; line breaks are kept, so the paragraphs around such a line separate as the site would
    show them (a ``{: .callout}`` right under a quote no longer joins the quote's last sentence, an
    opening ``::::: challenge`` no longer starts the paragraph under it).

    Many course sites (The Carpentries' lessons, Jekyll and Pandoc books) write their call-out
    boxes this way; left in, the markers were indexed as words and quoted as sentences."""
    if "){" in text:
        text = _inline_attributes(text)
    if ":::image" in text:
        text = _docfx_images(text)
    if ":::" in text:
        text = _drop_learning_boxes(text)
    if ":::" not in text and "{:" not in text and "{%" not in text and not _PLACEHOLDER_WORD.search(text):
        return text
    code = [(f.start, f.end) for f in fences(text)]
    out: list[str] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        quote = _QUOTE_MARKERS.match(line)  # "> {: .solution}", "> > {: .language-python}" in a call-out
        markers = quote.group().rstrip(" \t") if quote else ""
        if _is_site_markup(line[len(markers):] if markers else line) and not any(s <= offset < e for s, e in code):
            out.append(markers + line[len(line.rstrip("\r\n")):])  # keep only the quote markers and line break
        else:
            out.append(line)
        offset += len(line)
    return "".join(out)


#: The quote markers opening a line (``> > ``), at most three spaces in, as CommonMark reads them.
_QUOTE_MARKERS = re.compile(r"[ \t]{0,3}(?:>[ \t]?)+")
#: A Jekyll variable standing for the site's root in a link or image target (The Carpentries'
#: ``{{ page.root }}/fig/plot.svg``, ``{{ site.baseurl }}/04-built-in/``), with the slash after it.
_SITE_ROOT = re.compile(r"\{\{\s*(?:page\.root|site\.baseurl|site\.url|relative_root_path)\s*\}\}/?")


def expand_site_roots(text: str, path: str) -> str:
    """``text`` of the guide at ``path`` (relative to the course folder, ``/`` separators) with each
    Jekyll site-root variable outside code written as the relative path from the guide's folder to the
    course folder (``../`` for ``_episodes/09-plotting.md``). Left in, the spaces inside the braces made
    CommonMark read ``[Conditionals]({{ page.root }}/13-conditionals/)`` as text, not a link (headings and
    quotes showed the braces), and an image's path could not be found in the course folder."""
    if "{{" not in text:
        return text
    root = "../" * path.count("/") or "./"
    code = [(f.start, f.end) for f in fences(text)]
    return _SITE_ROOT.sub(lambda m: m.group() if any(s <= m.start() < e for s, e in code) else root, text)
