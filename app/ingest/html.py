"""HTML pages as Markdown text (stdlib ``html.parser``; no extra dependency).

An HTML guide is stored and chunked as the Markdown this module derives from it, so
the chunker, heading anchors, citations and the guide viewer treat it exactly like a
Markdown guide: ``<h1>``-``<h6>`` become ``#`` headings, ``<pre>`` becomes a fenced
code block (language from a ``language-xxx`` class), ``<code>`` inline code, list
items ``- `` lines, table rows ``a | b`` lines, ``<img>`` an image reference (so the
image is stored as an asset), links keep their text. ``<script>``, ``<style>``,
``<nav>``, ``<template>`` and the ``<head>`` (except ``<title>``) are dropped.

Character spans of HTML chunks are offsets into this derived text, which is what the
bundle stores as the guide's text; the raw HTML is not stored (its sha256 is, for
``check``). When the page has no ``<h1>``, its ``<title>`` becomes the top heading.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ..text.grammar import LIST_MARKER_TEXT

_SKIP = {"script", "style", "nav", "template", "noscript", "svg", "iframe", "object", "head"}
_BLOCK = {"p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "figure",
          "figcaption", "dl", "dt", "dd", "ul", "ol", "table", "thead", "tbody", "form", "details", "summary",
          "hr", "address", "body", "html"}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_VOID = {"br", "img", "hr", "meta", "link", "input", "area", "base", "col", "embed", "source", "track", "wbr"}
#: A line that Markdown would read as structure (heading, quote, list, fence): escaped with ``\``.
_MD_START = re.compile(rf"^(\s*)(#|>|{LIST_MARKER_TEXT}\s|```|~~~|=+\s*$|-{{3,}}\s*$)")


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []       # finished Markdown blocks
        self.line: list[str] = []      # inline text of the current block
        self.skip_depth = 0
        self.pre_depth = 0
        self.pre_lang = ""
        self.pre_text: list[str] = []
        self.heading = 0
        self.title: list[str] = []
        self.in_title = False
        self.has_h1 = False
        self.cells = 0
        self.prefix = ""              # "- " for a list item
        self.row_open = False         # the last block written is a table row

    # --- helpers --------------------------------------------------------------------
    def _flush(self) -> None:
        text = re.sub(r"[ \t\r\n\f\v]+", " ", "".join(self.line)).strip()
        prefix, self.prefix, self.line = self.prefix, "", []
        if not text:
            return
        if self.heading:
            self.out.append("#" * self.heading + " " + text)
            self.row_open = False
            return
        text = prefix + _MD_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
        if self.cells and self.row_open:
            self.out[-1] += "\n" + text  # consecutive table rows stay one block
        else:
            self.out.append(text)
        self.row_open = bool(self.cells)

    # --- parser callbacks ---------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs) -> None:  # noqa: C901
        attrs = dict(attrs)
        if tag == "title":
            self.in_title = True
            return
        if tag in _SKIP:
            if tag not in _VOID:
                self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if self.pre_depth:
            if tag == "code" and not self.pre_lang:
                self.pre_lang = _language(attrs.get("class") or "")
            if tag != "br":
                self.pre_depth += tag == "pre"
            else:
                self.pre_text.append("\n")
            return
        if tag == "pre":
            self._flush()
            self.pre_depth = 1
            self.pre_lang = _language(attrs.get("class") or "")
            self.pre_text = []
        elif tag in _HEADINGS:
            self._flush()
            self.heading = _HEADINGS[tag]
            self.has_h1 |= tag == "h1"
        elif tag == "li":
            self._flush()
            self.prefix = "- "
        elif tag == "tr":
            self._flush()
            self.cells = 0
        elif tag in ("td", "th"):
            if self.cells:
                self.line.append(" | ")
            self.cells += 1
        elif tag in _BLOCK or tag == "br":
            self._flush()
        elif tag == "code":
            self.line.append("`")
        elif tag == "img":
            src = (attrs.get("src") or "").strip()
            if src:
                alt = (attrs.get("alt") or "").replace("]", " ").strip()
                self._flush()
                self.out.append(f"![{alt}]({src.replace(' ', '%20').replace(')', '%29')})")

    def handle_endtag(self, tag: str) -> None:  # noqa: C901
        if tag == "title":
            self.in_title = False
            return
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if self.pre_depth:
            if tag == "pre":
                self.pre_depth -= 1
                if not self.pre_depth:
                    code = "".join(self.pre_text).strip("\n")
                    fence = "````" if "```" in code else "```"
                    self.out.append(f"{fence}{self.pre_lang}\n{code}\n{fence}")
            return
        if tag in _HEADINGS:
            self._flush()
            self.heading = 0
        elif tag == "code":
            self.line.append("`")
        elif tag == "tr":
            self._flush()
            self.cells = 0
        elif tag == "table":
            self._flush()
            self.cells, self.row_open = 0, False
        elif tag in _BLOCK or tag == "li":
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        elif self.skip_depth:
            return
        elif self.pre_depth:
            self.pre_text.append(data)
        else:
            self.line.append(data)


def _language(classes: str) -> str:
    match = re.search(r"(?:language|lang)-([\w+#-]+)", classes)
    return match.group(1) if match else ""


def html_to_markdown(html: str) -> str:
    """Markdown text of an HTML page (see the module docstring for the mapping).

    Never raises for malformed HTML: ``html.parser`` is lenient and unclosed tags are
    closed at the end of the text.
    """
    conv = _Converter()
    conv.feed(html)
    conv.close()
    conv._flush()
    if conv.pre_depth and conv.pre_text:
        conv.out.append("```\n" + "".join(conv.pre_text).strip("\n") + "\n```")
    title = " ".join("".join(conv.title).split())
    blocks = conv.out
    if title and not conv.has_h1:
        blocks = [f"# {title}"] + blocks
    return "\n\n".join(blocks) + "\n" if blocks else ""
