"""A :class:`~app.export.document.ConversationDocument` as Markdown or as one self-contained HTML
file (no Qt, no disk).

- :func:`to_markdown`: CommonMark. The question is plain text with Markdown's special characters
  backslash-escaped (a question holding ``<script>`` or ``# title`` shows as typed); verified
  sentences as the window shows them; quotes as block quotes of the guides' Markdown.
- :func:`to_html`: one HTML file with its style sheet inline and nothing loaded from elsewhere.
  Every text the student, the model or a guide wrote is escaped (markdown-it with raw HTML off);
  images become their alt text; links keep only ``#ref-n`` (the reference list), ``http(s):`` and
  ``mailto:`` targets, others keep their text. Qt's rich text reads this HTML too
  (:mod:`app.export.printing`), so the PDF and the printout come from the same document.
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from ..answer.citations import is_citation
from ..text.grammar import CITATION_MARKER, citation_numbers
from ..text.lists import keep_item_numbers
from .document import ConversationDocument, ExportedAnswer, reference_text
from .words import ExportWords

#: Markdown characters escaped in plain text (the question, reference lines).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&!{}])")
#: A line start that Markdown would read as a list, heading, quote or rule.
_MD_LINE_START = re.compile(r"^(\s*)([-+=>]|\d+[.)])", re.MULTILINE)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
#: Link targets kept in the HTML; anything else keeps its text only.
_KEPT_LINK = re.compile(r"^(#ref-\d+|https?://|mailto:)", re.IGNORECASE)

STYLE = """
body { font-family: sans-serif; font-size: 11pt; line-height: 1.4; max-width: 50em; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 18pt; } h2 { font-size: 14pt; margin-top: 1.6em; } h3 { font-size: 11pt; margin-bottom: 0.2em; }
.meta, .state { color: #555555; }
.question { font-weight: bold; white-space: pre-wrap; overflow-wrap: anywhere; }
blockquote { margin-left: 2em; padding-left: 0.8em; border-left: 3px solid #bbbbbb; color: #222222; }
pre { background: #f4f4f4; padding: 0.5em; white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-family: monospace; }
table { border-collapse: collapse; } th, td { border: 1px solid #bbbbbb; padding: 2px 6px; }
.references li { margin-bottom: 0.4em; }
"""


def md_escape(text: str) -> str:
    """``text`` as Markdown that renders as exactly this text: special characters backslash-escaped,
    line starts that would make a list, heading or quote escaped, lines kept as hard breaks."""
    escaped = _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), _MD_SPECIAL.sub(r"\\\1", text.strip()))
    return "  \n".join(line.rstrip() for line in escaped.splitlines())


def _course_line(doc: ConversationDocument) -> str:
    course, words = doc.course, doc.words
    parts = [course.title or words.text("untitled_course")]
    if course.course_id:
        parts[0] += f" ({course.course_id})"
    if course.course_version:
        parts.append(words.text("course_version", version=course.course_version))
    if course.corpus_version:
        parts.append(words.text("corpus", corpus=course.corpus_version[:12]))
    when = doc.exported_at.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()  # the PC's time zone, in digits
    return words.text("course_line", course=", ".join(parts), when=when)


def _quote_block(markdown: str) -> str:
    """``markdown`` as a Markdown block quote (fences, lists and tables keep working inside)."""
    return "\n".join(f"> {line}".rstrip() for line in markdown.splitlines())


def _image_words(alt: str, words: ExportWords) -> str:
    return "[" + words.text("image", alt=alt or words.text("figure")) + "]"


def _no_images(markdown: str, words: ExportWords) -> str:
    return _IMAGE.sub(lambda m: f"*{_image_words(m.group(1), words)}*", markdown)


def _answer_markdown(a: ExportedAnswer, words: ExportWords, with_question: bool = True) -> list[str]:
    out = [f"## {words.text('question', number=a.number)}", "", md_escape(a.question), ""] if with_question else []
    out += [f"*{md_escape(a.state)}*", ""]
    if a.verified:
        checked = words.text("colon", text=f"**{words.text('answer')}** ({words.text('answer_checked')})")
        out += [checked, "", _no_images(a.verified, words), ""]
    if a.quotes:
        out += [f"**{words.label('from_guides')}**", "", _quote_block(_no_images(a.quotes, words)), ""]
    if a.reply:
        out += [md_escape(a.reply), ""]
    if a.nearest:
        out += [f"**{words.label('nearest')}**", ""] + [f"- {md_escape(n)}" for n in a.nearest] + [""]
    return out


def to_markdown(doc: ConversationDocument, reply_only: bool = False) -> str:
    """The document as CommonMark text (ends with a newline). ``reply_only``: without the title,
    the course line and the questions (``lantern ask --format markdown``: the replies and references)."""
    out = [] if reply_only else [f"# {md_escape(doc.title)}", "", md_escape(_course_line(doc)), ""]
    for answer in doc.answers:
        out += _answer_markdown(answer, doc.words, with_question=not reply_only)
    if doc.references:
        out += [f"## {doc.words.text('references')}", ""]
        for ref in doc.references:
            out += [f"\\[{ref.number}\\] {md_escape(reference_text(ref, doc.words))}", ""]
    return "\n".join(out).rstrip() + "\n"


def _markdown_it(words: ExportWords) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

    def image(_self, tokens, idx, options, env):
        alt = "".join(t.content for t in (tokens[idx].children or []))
        return f"<em>{html.escape(_image_words(alt, words))}</em>"

    def link_open(_self, tokens, idx, options, env):
        href = tokens[idx].attrGet("href") or ""
        if _KEPT_LINK.match(str(href)):
            return f'<a href="{html.escape(str(href))}">'
        tokens[idx].meta["dropped"] = True
        return "<span>"

    def link_close(_self, tokens, idx, options, env):
        opener = next((t for t in reversed(tokens[:idx]) if t.type == "link_open"), None)
        return "</span>" if opener is not None and opener.meta.get("dropped") else "</a>"

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    return md


def _linked_markers(markdown: str) -> str:
    """Each citation marker ``[1, 2]`` as Markdown links to the reference list entries (markers in
    code stay text: :func:`~app.export.document.renumber` left them, and inside code no link forms)."""
    def link(match: re.Match) -> str:
        if not is_citation(markdown, match):
            return match.group(0)
        return "[" + ", ".join(f"[{n}](#ref-{n})" for n in citation_numbers(match)) + "]"
    return CITATION_MARKER.sub(link, markdown)


def _text_html(text: str) -> str:
    return "<br>".join(html.escape(line) for line in text.strip().splitlines())


def _render(md: MarkdownIt, text: str) -> str:
    """``text`` as HTML, a quoted numbered list keeping its items' own numbers (:func:`keep_item_numbers`)."""
    return md.renderer.render(keep_item_numbers(md.parse(text)), md.options, {})


def _answer_html(md: MarkdownIt, a: ExportedAnswer, words: ExportWords) -> list[str]:
    def heading(level: int, text: str) -> str:
        return f"<h{level}>{html.escape(text)}</h{level}>"

    out = [f'<div class="answer" id="answer-{a.number}">', heading(2, words.text("question", number=a.number)),
           f'<p class="question">{_text_html(a.question)}</p>', f'<p class="state"><i>{html.escape(a.state)}</i></p>']
    if a.verified:
        checked = f"{words.text('answer')} ({words.text('answer_checked')})"
        out += [heading(3, checked), _render(md, _linked_markers(a.verified))]
    if a.quotes:
        out += [heading(3, words.text("from_guides")), f"<blockquote>{_render(md, _linked_markers(a.quotes))}</blockquote>"]
    if a.reply:
        out.append(f"<p>{_text_html(a.reply)}</p>")
    if a.nearest:
        out += [heading(3, words.text("nearest")), "<ul>"] + [f"<li>{html.escape(n)}</li>" for n in a.nearest] + ["</ul>"]
    out.append("</div>")
    return out


def to_html(doc: ConversationDocument) -> str:
    """The document as one self-contained HTML5 file (UTF-8, inline style sheet, no scripts, nothing
    loaded from elsewhere); every text is escaped (see the module's docstring)."""
    md = _markdown_it(doc.words)
    title = html.escape(doc.title)
    out = ["<!DOCTYPE html>", f'<html lang="{html.escape(doc.words.language)}">', "<head>", '<meta charset="utf-8">',
           '<meta name="generator" content="Lantern">', f"<title>{title}</title>", f"<style>{STYLE}</style>",
           "</head>", "<body>", f"<h1>{title}</h1>", f'<p class="meta">{html.escape(_course_line(doc))}</p>']
    for answer in doc.answers:
        out += _answer_html(md, answer, doc.words)
    if doc.references:
        out += [f"<h2>{html.escape(doc.words.text('references'))}</h2>", '<ol class="references">']
        for ref in doc.references:
            text = html.escape(reference_text(ref, doc.words))
            out.append(f'<li id="ref-{ref.number}"><a name="ref-{ref.number}"></a>{text}</li>')
        out.append("</ol>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
