"""Structure of a Markdown guide: top-level blocks and headings with character spans.

Parsed with markdown-it-py (CommonMark plus GFM tables, front matter recognised and
left out of the content). markdown-it reports line ranges; we convert them to
character offsets into the *original* decoded text, counting ``\\r\\n``, ``\\r`` and
``\\n`` as line breaks exactly as markdown-it's normalisation does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

#: markdown-it block token types and the block kind we call them.
_KINDS = {
    "heading_open": "heading", "paragraph_open": "paragraph", "fence": "code", "code_block": "code",
    "table_open": "table", "bullet_list_open": "list", "ordered_list_open": "list",
    "blockquote_open": "quote", "html_block": "html", "hr": "rule",
}


@dataclass(frozen=True)
class Block:
    """A top-level block of a guide; ``start``/``end`` are character offsets (end exclusive).

    From the same tokens, as ``(start, end)`` spans: ``parts`` are a list's top-level items (trailing
    whitespace left out), a table's body rows or a fenced code block's code lines; ``header`` a table's
    header and delimiter rows. ``numbered``: per item, it is or holds a numbered list; ``ordered``: the
    list is numbered; ``fence``: a fenced block's opening markup (``"```"``; ``""`` for indented code)."""

    kind: str
    start: int
    end: int
    level: int = 0
    heading: str = ""
    parts: tuple[tuple[int, int], ...] = ()
    header: tuple[int, int] = (0, 0)
    numbered: tuple[bool, ...] = ()
    ordered: bool = False
    fence: str = ""


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The shared CommonMark parser (tables enabled, front matter recognised)."""
    return MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


def line_starts(text: str) -> list[int]:
    """Character offset of the start of every line, plus ``len(text)`` at the end."""
    starts = [0]
    starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
    starts.append(len(text))
    return starts


def inline_text(token) -> str:
    """Plain text of an inline token: text, code spans and image alt text, no markup."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "image":
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts).strip()


def parse_blocks(text: str) -> list[Block]:
    """Top-level blocks of ``text`` in order, with headings' levels and plain text."""
    tokens = parser().parse(text)
    starts = line_starts(text)
    last = len(starts) - 1
    blocks: list[Block] = []
    for i, token in enumerate(tokens):
        if token.level != 0 or not token.map or token.type not in _KINDS:
            continue
        begin_line, end_line = token.map
        start = starts[min(begin_line, last)]
        end = starts[min(end_line, last)]
        while end > start and text[end - 1] in "\r\n \t":
            end -= 1
        if end <= start:
            continue
        kind = _KINDS[token.type]
        if kind == "heading":
            title = inline_text(tokens[i + 1]) if i + 1 < len(tokens) else ""
            blocks.append(Block(kind, start, end, level=int(token.tag[1]), heading=title))
        else:
            blocks.append(Block(kind, start, end, **_inner(tokens, i, text, starts)))
    return blocks


def _inner(tokens: list, i: int, text: str, starts: list[int]) -> dict:
    """:class:`Block`'s inner fields for the top-level block ``tokens[i]`` opens ({} for most kinds)."""
    def span(first: int, after: int, trailing: str = "\r\n") -> tuple[int, int]:
        start, end = starts[min(first, len(starts) - 1)], starts[min(after, len(starts) - 1)]
        while end > start and text[end - 1] in trailing:
            end -= 1
        return start, end

    opener = tokens[i]
    if opener.type == "fence" and opener.map:
        first, after = opener.map
        closed = len(opener.content.splitlines()) == after - first - 2
        return {"fence": opener.markup, "parts": (span(first + 1, after - closed),)}
    items: list[tuple[int, int]] = []
    numbered: list[bool] = []
    rows: list[int] = []  # the first line of each table row, header row first
    for token in tokens[i + 1:]:
        if token.level == 0:
            break
        if token.type == "list_item_open" and token.level == 1 and token.map:
            items.append(span(token.map[0], token.map[1], "\r\n \t"))
            numbered.append(opener.type == "ordered_list_open")
        elif token.type == "ordered_list_open" and numbered:
            numbered[-1] = True  # a numbered list inside the item
        elif token.type == "tr_open" and token.map:
            rows.append(token.map[0])
    if rows:
        return {"header": span(rows[0], rows[0] + 2), "parts": tuple(span(r, r + 1) for r in rows[1:])}
    return {"parts": tuple(items), "numbered": tuple(numbered), "ordered": opener.type == "ordered_list_open"}


@dataclass(frozen=True)
class Fence:
    """A fenced code block of a text (:func:`fences`). ``start`` is the first character of its
    opening fence line, ``end`` is just past its closing fence line and that line's break (the end
    of the text when it is never closed); ``code`` is what is inside, without the fence lines, their
    indentation or an enclosing quote's ``>``."""

    start: int
    end: int
    code: str
    closed: bool


@lru_cache(maxsize=1)
def _fragment_parser() -> MarkdownIt:
    """:func:`parser` without front matter: a chunk, a passage or an answer that starts with ``---``
    has none, and no fence is ever inside a real one."""
    return MarkdownIt("commonmark").enable("table")


@lru_cache(maxsize=256)
def fences(text: str) -> tuple[Fence, ...]:
    """Every fenced code block of ``text`` in order, by CommonMark's rules (markdown-it): a line of
    three or more backticks or tildes indented at most three spaces opens one (four spaces make an
    indented code block instead), the next line of the same character at least as long closes it,
    and one never closed runs to the end of the text. Fences inside lists and quotes count too.

    The one fence detector of the code base: the guide viewer, passage trimming, citation checking,
    the model's sentence stream and language detection all ask it."""
    if "```" not in text and "~~~" not in text:
        return ()
    starts = line_starts(text)
    last = len(starts) - 1
    found: list[Fence] = []
    for token in _fragment_parser().parse(text):
        if token.type != "fence" or not token.map:
            continue
        first, after = token.map
        # The code lines are all the lines after the opening fence, less the closing fence if there is one.
        closed = len(token.content.splitlines()) == after - first - 2
        found.append(Fence(starts[min(first, last)], starts[min(after, last)], token.content, closed))
    return tuple(found)


#: MyST (Jupyter Book) directives whose body is prose: the fence lines and options go, the body stays.
_PROSE_DIRECTIVES = {"note", "warning", "tip", "important", "hint", "attention", "caution", "danger", "error",
                     "seealso", "admonition", "dropdown", "topic", "sidebar", "margin", "epigraph", "figure",
                     "glossary", "card", "tab-item", "div", "container", "prf:definition", "prf:example"}
#: MyST directives whose body is code: kept as a plain code block in the named language.
_CODE_DIRECTIVES = {"code-cell", "code-block", "code", "sourcecode"}
#: MyST directives that hold no text for a student (tables of contents, file inclusions).
_DROPPED_DIRECTIVES = {"toctree", "tableofcontents", "bibliography", "include", "literalinclude", "image", "raw"}
#: Directives whose argument is a title worth showing (others take a file path).
_TITLED_DIRECTIVES = {"admonition", "dropdown", "topic", "sidebar", "card", "tab-item", "prf:definition",
                      "prf:example"}
#: A MyST role: ``{ref}`text <target>` ``, ``{term}`BM25` ``, ``{cite:ps}`key` ``.
_ROLE = re.compile(r"( ?)\{([a-z][\w:+.-]*)\}`([^`\n]*)`")  # ( ?) not (\s*): linear on long blank runs
#: A MyST target line: ``(section-label)=``.
_TARGET_LINE = re.compile(r"(?m)^\([\w:.-]+\)=[ \t]*$")
#: A target line and the first line under it that is not blank (a heading, for a label to name).
_TARGET_NEXT = re.compile(r"(?m)^\(([\w:.-]+)\)=[ \t]*\n(?:[ \t]*\n)*([^\n]*)")
_HEADING_LINE = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")
#: What is left of "(see {ref}`unknown-label`)" once the label is gone.
_EMPTY_SEE = re.compile(r" ?\((?:see also ?|see ?|cf\. ?)?\uE000\)")
#: Marks where a role that shows nothing stood, until its "(see …)" is removed.
_GONE = "\uE000"


def myst_labels(text: str) -> dict[str, str]:
    """The MyST target labels of a guide and the titles of the headings they mark
    (``(setup)=`` above ``## Setting up`` gives ``{"setup": "Setting up"}``), for
    :func:`unwrap_myst` to show a bare ``{ref}`setup` `` as the section's title."""
    if ")=" not in text:
        return {}
    labels: dict[str, str] = {}
    for match in _TARGET_NEXT.finditer(text):
        line = match.group(2)
        if _HEADING_LINE.match(line):
            title = line.strip(" \t").lstrip("#").strip(" \t").rstrip("#").strip(" \t")
            labels[match.group(1)] = re.sub(r"[`*_]", "", title).strip()
    return labels


def _directive_body(name: str, argument: str, body: str) -> str:
    lines = body.splitlines()
    if lines and lines[0].strip() == "---":  # YAML options between two --- lines
        close = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), None)
        lines = lines[close + 1:] if close is not None else lines[1:]
    while lines and re.match(r"^\s*:[\w-]+:", lines[0]):  # :option: value lines
        lines = lines[1:]
    if name in _CODE_DIRECTIVES:
        language = argument.split()[0] if argument.split() else ""
        return f"```{language}\n" + "\n".join(lines) + "\n```\n"
    title = f"**{argument.strip()}**\n\n" if name in _TITLED_DIRECTIVES and argument.strip() else ""
    return title + "\n".join(lines).strip("\n") + "\n"


def _role_text(match: re.Match, labels: dict[str, str]) -> str:
    space, role, content = match.group(1), match.group(2), match.group(3)
    if role.startswith(("cite", "footcite")) or role in ("numref", "eq", "download"):
        return ""  # citation keys and figure numbers mean nothing outside the built book
    target = content.rfind("<")
    if content.rstrip().endswith(">") and target >= 0:  # {ref}`text <target>`: the text
        return space + content[:target].strip()
    if role in ("ref", "doc") and re.fullmatch(r"[\w:./-]+", content):
        # A bare label shows the title of the section it marks; one outside the course shows nothing.
        return space + labels[content] if content in labels else ""
    return space + content.lstrip("~")


def unwrap_myst(text: str, labels: dict[str, str] | None = None) -> str:
    """``text`` with MyST (Jupyter Book) markup turned into the Markdown a student reads: prose
    directives (```` ```{note} ````, ```` ```{figure} path ````, ```` ```{admonition} Title ````) lose their
    fence, argument path and options and keep their body (a title in bold); code directives
    (```` ```{code-cell} python ````) become plain code blocks; tables of contents and inclusions go;
    target lines (``(label)=``) are emptied; roles become their text (``{ref}`the setup <setup>` ``
    -> ``the setup``, ``{term}`BM25` `` -> ``BM25``) and citation roles (``{cite:ps}`key` ``) go.
    A bare ``{ref}`label` `` becomes the title of the heading the label marks (``labels``, from
    :func:`myst_labels` over the whole course), or nothing when the label is not in the course
    (with a "(see …)" around it).
    Unknown directives are left as they are. Only unindented directives are unwrapped (one inside
    a list item keeps its fence)."""
    if "{" not in text and ")=" not in text:
        return text
    starts = line_starts(text)
    last = len(starts) - 1
    replacements: list[tuple[int, int, str]] = []
    for token in _fragment_parser().parse(text):
        if token.type != "fence" or not token.map or not token.info.startswith("{"):
            continue
        start, end = starts[min(token.map[0], last)], starts[min(token.map[1], last)]
        if text[start:start + 1] not in "`~":
            continue
        name, _, argument = token.info[1:].partition("}")
        name = name.strip().lower()
        if name in _DROPPED_DIRECTIVES:
            replacements.append((start, end, "\n"))
        elif name in _PROSE_DIRECTIVES or name in _CODE_DIRECTIVES:
            body = _directive_body(name, argument, token.content)
            replacements.append((start, end, body + ("\n" if end < len(text) else "")))
    for start, end, new in reversed(replacements):
        text = text[:start] + new + text[end:]
    text = _TARGET_LINE.sub("", text)
    code = [(f.start, f.end) for f in fences(text)]

    def role(match: re.Match) -> str:
        if any(s <= match.start() < e for s, e in code):
            return match.group(0)
        shown = _role_text(match, labels or {})
        return shown if shown.strip() else _GONE  # marked until its "(see …)" is removed below

    text = _ROLE.sub(role, text)
    return _EMPTY_SEE.sub("", text).replace(_GONE, "") if _GONE in text else text


def front_matter_end(text: str) -> int:
    """Character offset just past a leading YAML front matter block (0 when there is none)."""
    for token in parser().parse(text):
        if token.type == "front_matter" and token.map:
            starts = line_starts(text)
            return starts[min(token.map[1], len(starts) - 1)]
    return 0
