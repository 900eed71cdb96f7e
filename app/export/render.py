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
from .document import ConversationDocument, ExportedAnswer, reference_text

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
    course = doc.course
    parts = [course.title or "(untitled course)"]
    if course.course_id:
        parts[0] += f" ({course.course_id})"
    if course.course_version:
        parts.append(f"course version {course.course_version}")
    if course.corpus_version:
        parts.append(f"corpus {course.corpus_version[:12]}")
    when = doc.exported_at.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()  # the PC's time zone
    return f"Course: {', '.join(parts)}. Exported {when} by Lantern, answers drawn only from the course guides."


def _quote_block(markdown: str) -> str:
    """``markdown`` as a Markdown block quote (fences, lists and tables keep working inside)."""
    return "\n".join(f"> {line}".rstrip() for line in markdown.splitlines())


def _no_images(markdown: str) -> str:
    return _IMAGE.sub(lambda m: f"*[image: {m.group(1) or 'figure'}]*", markdown)


def _answer_markdown(a: ExportedAnswer, with_question: bool = True) -> list[str]:
    out = [f"## Question {a.number}", "", md_escape(a.question), ""] if with_question else []
    out += [f"*{md_escape(a.state)}*", ""]
    if a.verified:
        out += ["**Answer** (each sentence checked against the passage it cites):", "", _no_images(a.verified), ""]
    if a.quotes:
        out += ["**From the guides:**", "", _quote_block(_no_images(a.quotes)), ""]
    if a.reply:
        out += [md_escape(a.reply), ""]
    if a.nearest:
        out += ["**Nearest sections:**", ""] + [f"- {md_escape(n)}" for n in a.nearest] + [""]
    return out


def to_markdown(doc: ConversationDocument, reply_only: bool = False) -> str:
    """The document as CommonMark text (ends with a newline). ``reply_only``: without the title,
    the course line and the questions (``lantern ask --format markdown``: the replies and references)."""
    out = [] if reply_only else [f"# {md_escape(doc.title)}", "", md_escape(_course_line(doc)), ""]
    for answer in doc.answers:
        out += _answer_markdown(answer, with_question=not reply_only)
    if doc.references:
        out += ["## References", ""]
        for ref in doc.references:
            out += [f"\\[{ref.number}\\] {md_escape(reference_text(ref))}", ""]
    return "\n".join(out).rstrip() + "\n"


def _markdown_it() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

    def image(_self, tokens, idx, options, env):
        alt = "".join(t.content for t in (tokens[idx].children or [])) or "figure"
        return f"<em>[image: {html.escape(alt)}]</em>"

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


def _answer_html(md: MarkdownIt, a: ExportedAnswer) -> list[str]:
    out = [f'<div class="answer" id="answer-{a.number}">', f"<h2>Question {a.number}</h2>",
           f'<p class="question">{_text_html(a.question)}</p>', f'<p class="state"><i>{html.escape(a.state)}</i></p>']
    if a.verified:
        out += ["<h3>Answer (each sentence checked against the passage it cites)</h3>", md.render(_linked_markers(a.verified))]
    if a.quotes:
        out += ["<h3>From the guides</h3>", f"<blockquote>{md.render(_linked_markers(a.quotes))}</blockquote>"]
    if a.reply:
        out.append(f"<p>{_text_html(a.reply)}</p>")
    if a.nearest:
        out += ["<h3>Nearest sections</h3>", "<ul>"] + [f"<li>{html.escape(n)}</li>" for n in a.nearest] + ["</ul>"]
    out.append("</div>")
    return out


def to_html(doc: ConversationDocument) -> str:
    """The document as one self-contained HTML5 file (UTF-8, inline style sheet, no scripts, nothing
    loaded from elsewhere); every text is escaped (see the module's docstring)."""
    md = _markdown_it()
    title = html.escape(doc.title)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="generator" content="Lantern">', f"<title>{title}</title>", f"<style>{STYLE}</style>",
           "</head>", "<body>", f"<h1>{title}</h1>", f'<p class="meta">{html.escape(_course_line(doc))}</p>']
    for answer in doc.answers:
        out += _answer_html(md, answer)
    if doc.references:
        out += ["<h2>References</h2>", '<ol class="references">']
        for ref in doc.references:
            out.append(f'<li id="ref-{ref.number}"><a name="ref-{ref.number}"></a>{html.escape(reference_text(ref))}</li>')
        out.append("</ol>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
