"""Answer blocks: the units an extractive answer quotes (DESIGN.md, "Answer blocks").

A passage (a chunk's Markdown text) is cut into the units that carry a fact whole:
- a **sentence** of a paragraph (any length, CJK sentences included);
- a **lead-in with its block**: a sentence ending in a colon together with the list, code
  block or table it introduces (never the lead-in cut at its colon);
- a **list item** (with its nested lines);
- a **code block**, together with the sentence right before it when there is one;
- a **small table** whole (at most MAX_BLOCK_ITEMS rows and MAX_TABLE_CHARS characters);
- a **table row with its header row** in a larger table (for a chunk that starts inside a long
  table, the header is looked up in the guide's text before the chunk);
- each unit knows the **heading** it sits under (the nearest heading inside the chunk, else the
  last element of the chunk's heading path).
Lines made only of links or images, navigation headings, HTML and rules are never units.

Blocks, their list items, table rows and code lines come from markdown-it (:func:`parse_blocks`;
no second parse of lists, tables or fences here); sentences from :func:`grammar.split_sentences`.
:func:`passage_units` calls each kind's function (``_UNITS``: ``_paragraph_units``, …) in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..caches import parsed_blocks
from ..ingest.markdown import Block, fences
from ..records import heading_leaf
from ..text.grammar import LIST_MARKER, split_sentences
from ..text.tokenize import DEFAULT_STEMMER
from .shorten import MAX_BLOCK_ITEMS, focus, shorten_code, shorten_list, shorten_table

#: A sentence longer than this (characters) is cut with "…" (a 200 KB line stays readable). Not measured.
MAX_UNIT_CHARS = 700
#: A table of at most MAX_BLOCK_ITEMS rows and this many characters is quoted whole; a larger one
#: row by row, each with its header (demo: 21 -> 22 answers holding the fact, the DHT11 pin table
#: for "Which pins are the DHT11 and the OLED connected to?"; IoT, DS, WD, Turing Way unchanged).
MAX_TABLE_CHARS = 900
#: Most characters of the paragraph a lead-in ending in a colon brings along. Not measured.
MAX_FOLLOW_CHARS = 400

_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")  # no "[" or "(" inside: linear on "[[[…" and "[a](…"
_BARE_URL = re.compile(r"<?https?://\S+>?")
#: A reference-style link (``[text][label]``, ``[text][]``): its definition sits at the guide's end,
#: outside the passage, so a quote would show the brackets.
_REFERENCE_LINK = re.compile(r"!?\[([^\[\]\n]+)\]\[[^\[\]\n]*\]")  # no "[" inside: linear on "[[[…"
#: An inline code span on one line (fenced code blocks are :func:`app.ingest.markdown.fences`'s).
_CODE_SPAN = re.compile(r"(`[^`\n]*`)")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Unit:
    """One quotable unit of a passage.

    ``kind`` is ``sentence``, ``lead-in`` (a sentence with the list/code/table it introduces),
    ``item`` (a list item), ``code``, ``table`` (a small table whole) or ``row`` (a row of a larger
    table with its header). ``text`` is the Markdown shown to the student; ``match_text`` is what
    question words are matched against (for a row: header and row; for code: the sentence before it
    too). ``heading`` is the nearest heading above the unit (plain text, may be empty). ``order`` is
    its position in the passage (0-based), ``start``/``end`` character offsets into the passage text.

    Its shape, from markdown-it's tokens (never re-read from ``text``): ``list_span`` is the
    ``(start, end)`` of the top-level list it is an item of (or, for a lead-in, the list it
    introduces), None otherwise; ``table_span`` that of the table it is or is a row of;
    ``numbered`` whether it shows a numbered list (its own item's or one nested in it); ``fence``
    the opening markup of the fenced code block it shows (``""``: none); ``shortened`` whether the
    list, code block or table it shows leaves items or lines out ("…").
    """

    kind: str
    text: str
    match_text: str
    heading: str
    order: int
    start: int
    end: int
    list_span: tuple[int, int] | None = None
    table_span: tuple[int, int] | None = None
    numbered: bool = False
    fence: str = ""
    shortened: bool = False

    @property
    def has_code(self) -> bool:
        """Whether the unit shows a fenced code block or an inline command (a "how do I" answer).
        Indented code does not count: a chunk starting inside a list item reads its continuation
        lines as indented code."""
        return bool(self.fence) or "`" in self.text

    @property
    def has_code_block(self) -> bool:  # a fenced code block (``"```" in text`` also sees inline ones)
        return bool(self.fence)

    @property
    def in_list(self) -> bool:
        """Whether the unit is a list item or a lead-in with the list it introduces."""
        return self.list_span is not None and self.kind in ("item", "lead-in")

    @property
    def is_steps(self) -> bool:
        """Whether the unit is (or introduces) a list of numbered steps, or is a sentence opening
        with a step number ("2) Click Save.")."""
        return self.numbered or (self.kind == "sentence" and _starts_numbered(self.text))


def _starts_numbered(text: str) -> bool:
    """Whether ``text`` opens with a numbered list marker (``2.``, ``3)``) followed by a space."""
    marker = LIST_MARKER.match(text)
    return marker is not None and text[marker.end(1):marker.end(1) + 1].isdigit()


def _cut(text: str, limit: int = MAX_UNIT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def plain_reference_links(text: str) -> str:
    """``text`` with each reference-style link outside code replaced by its link text
    (``see [the setup guide][setup]`` -> ``see the setup guide``); code is kept: fenced blocks as
    :func:`app.ingest.markdown.fences` finds them (any fence length: ``m[i][j]`` inside a
    four-backtick fence) and inline code spans (``matrix[i][j]``)."""
    if "][" not in text:
        return text
    out: list[str] = []
    at = 0
    for fence in fences(text):
        out += [_plain_links_outside_code_spans(text[at:fence.start]), text[fence.start:fence.end]]
        at = fence.end
    return "".join(out) + _plain_links_outside_code_spans(text[at:])


def _plain_links_outside_code_spans(text: str) -> str:
    parts = _CODE_SPAN.split(text)
    return "".join(part if n % 2 else _REFERENCE_LINK.sub(r"\1", part) for n, part in enumerate(parts))


def is_link_only(text: str) -> bool:
    """Whether ``text`` is only links, images, bare URLs and punctuation (navigation, not a fact)."""
    rest = _BARE_URL.sub(" ", _LINK.sub(" ", text))
    return not re.search(r"\w{2,}", rest) and bool(_LINK.search(text) or _BARE_URL.search(text))


_ASKS = re.compile(r"^[*_]*((in|on|at|for|from|to|with|by|of|under|after|before) )?"
                   r"(how|what|why|when|where|which|who|whom|whose|can|could|do|does|did|is|are|was|were|"
                   r"should|would|will|may|might|has|have)\b", re.I)


def _is_question(text: str) -> bool:
    """Whether a list item only asks something ("How can I plot my data?"): one sentence that opens
    with a question word and ends with "?". An exercise's or an episode's list of questions holds no
    answer; "The broker listens on port 1883, but have you opened it?" does."""
    text = text.strip()
    return (text.rstrip("*_ \t\n").endswith("?") and bool(_ASKS.match(text))
            and len(split_sentences(text)) == 1)


def _only_questions(items: list[str]) -> bool:
    """Whether every one of a list's ``items`` (Markdown, marker included) is a :func:`_is_question`."""
    return bool(items) and all(_is_question(_strip_marker(item)) for item in items)


def is_sentence(text: str) -> bool:
    """Whether ``text`` is worth quoting on its own: two words or more, or CJK text of four
    characters or more (a short rule such as "10% per day late." counts)."""
    if len(_CJK.findall(text)) >= 4:
        return True
    return len(re.findall(r"\w+", text)) >= 2 and not is_link_only(text)


def _item_body(item: str) -> str:
    """A list item's Markdown without its marker, its continuation lines dedented by the marker's width."""
    m = LIST_MARKER.match(item)
    width = m.end() if m else 0
    lines = item.splitlines()
    first = lines[0][width:] if lines else ""
    rest = [line[width:] if line[:width].strip() == "" else line.lstrip() for line in lines[1:]]
    return "\n".join([first] + rest)


def _strip_marker(item: str) -> str:
    return LIST_MARKER.sub("", item, count=1).strip()


def _is_row(line: str) -> bool:
    """Whether ``line`` can be a GFM table row: a cell separator, with or without the outer pipes
    (GFM allows ``a | b`` as well as ``| a | b |``)."""
    return "|" in line and not line.lstrip().startswith(("#", "```", "~~~"))


def header_before(guide_text: str, offset: int) -> list[str]:
    """The header row and rule row of the table that ``offset`` (a character offset into the
    guide) falls inside, found by walking back over the table's rows (with or without outer
    pipes); ``[]`` when there is none."""
    lines = guide_text[:offset].splitlines()
    i = len(lines) - 1
    while i >= 1 and _is_row(lines[i]):
        if _TABLE_RULE.match(lines[i]):
            return [lines[i - 1], lines[i]]
        i -= 1
    return []


@dataclass
class _Reader:
    """What the unit functions share while one passage is read: its ``text`` and ``blocks``, the
    ``heading`` the next unit sits under, the question's ``words``, the guide (``guide_text``,
    ``offset``: for a table the passage starts inside) and the ``units`` so far."""

    text: str
    blocks: list[Block]
    heading: str
    words: Sequence[tuple[str, ...]]
    guide_text: Callable[[], str] | None
    offset: int
    units: list[Unit] = field(default_factory=list)
    stemmer: str = DEFAULT_STEMMER

    def body(self, block: Block) -> str:
        return self.text[block.start:block.end]

    def after(self, i: int) -> Block | None:  # the block after block i, None at the end
        return self.blocks[i + 1] if i + 1 < len(self.blocks) else None

    def add(self, kind: str, shown: str, match: str, start: int, end: int, **shape: Any) -> None:
        """Append a unit (reference links made plain) unless ``shown`` is blank."""
        if shown.strip():
            self.units.append(Unit(kind, plain_reference_links(shown.strip()), match, self.heading,
                                   len(self.units), start, end, **shape))


def passage_units(text: str, heading_path: str = "", *, guide_text: Callable[[], str] | None = None,
                  offset: int = 0, words: Sequence[tuple[str, ...]] = (), stemmer: str = DEFAULT_STEMMER) -> list[Unit]:
    """The quotable units of a passage, in reading order.

    ``text`` is the passage's Markdown; ``heading_path`` its heading path (`` › ``-joined);
    ``guide_text()`` (optional, called lazily) returns the whole guide, and
    ``offset`` is the passage's start in it: used to find the header of a table the passage
    starts inside. ``words`` (the question's, :func:`query_words`) choose which lines of a long code
    block and which items of a long list are shown (:func:`_shorten_code`, :func:`_shorten_list`),
    the lines cut with ``stemmer`` as the words were.
    """
    reader = _Reader(text, list(parsed_blocks(text)), heading_leaf(heading_path), words, guide_text, offset,
                     stemmer=stemmer)
    taken = False  # the block was quoted already, with the lead-in before it
    for i, block in enumerate(reader.blocks):
        if taken:
            taken = False
        elif block.kind == "heading":
            reader.heading = block.heading
        elif block.kind == "paragraph" and _is_cut_table(reader, block):
            _cut_table_units(reader, block)
        elif block.kind in _UNITS:
            taken = _UNITS[block.kind](reader, i)
    return reader.units


def _sentence_units(reader: _Reader, block: Block, sentences: list[str]) -> None:
    for sentence in sentences:  # a sentence of fewer than two words is not quoted
        if is_sentence(sentence):
            reader.add("sentence", _cut(sentence), sentence, block.start, block.end)


def _paragraph_units(reader: _Reader, i: int) -> bool:
    """A paragraph's sentences; a last sentence ending in a colon is quoted with the list, code
    block, table or paragraph it introduces (True: that next block is taken), or dropped when what
    follows is not quotable (HTML, an image, the chunk's end)."""
    block, nxt = reader.blocks[i], reader.after(i)
    body = reader.body(block)
    if is_link_only(body):
        return False
    sentences = [s for s in split_sentences(body) if not is_link_only(s)]
    colon = bool(sentences) and sentences[-1].rstrip("*_ ").endswith(":")
    if colon and nxt is not None and (nxt.kind in ("code", "table") or (
            nxt.kind == "list" and not _only_questions(_items(reader.text, nxt)))):
        _sentence_units(reader, block, sentences[:-1])
        _lead_in_unit(reader, block, sentences[-1], nxt)
        return True
    if colon and nxt is not None and nxt.kind == "paragraph" and not is_link_only(reader.body(nxt)):
        # A lead-in to paragraphs ("…the following steps:" then a bold-titled paragraph): quoted
        # with the first of them.
        _sentence_units(reader, block, sentences[:-1])
        follow = reader.body(nxt)
        reader.add("lead-in", f"{_cut(sentences[-1])}\n\n{_cut(follow, MAX_FOLLOW_CHARS)}",
                   f"{sentences[-1]}\n{follow}", block.start, nxt.end)
        return True
    _sentence_units(reader, block, sentences[:-1] if colon else sentences)
    return False


def _lead_in_unit(reader: _Reader, block: Block, sentence: str, nxt: Block) -> None:
    """``sentence`` (ending in a colon) with the list, code block or table ``nxt`` it introduces."""
    follow = reader.body(nxt)
    shape: dict[str, Any] = {}
    if nxt.kind == "list":
        items = _items(reader.text, nxt)
        start = focus(items, MAX_BLOCK_ITEMS, reader.words, stemmer=reader.stemmer)
        shown = shorten_list(items, nxt.ordered, start)
        shape = {"list_span": (nxt.start, nxt.end), "shortened": len(items) > MAX_BLOCK_ITEMS,
                 "numbered": any(nxt.numbered[start:start + MAX_BLOCK_ITEMS])}
    elif nxt.kind == "code":
        shown = shorten_code(reader.text, nxt, reader.words, reader.stemmer)
        shape = {"fence": nxt.fence, "shortened": shown != follow}
    else:
        shown = shorten_table(reader.text, nxt)
        shape = {"table_span": (nxt.start, nxt.end), "shortened": len(nxt.parts) > MAX_BLOCK_ITEMS}
    reader.add("lead-in", f"{_cut(sentence)}\n\n{shown}", f"{sentence}\n{follow}", block.start, nxt.end, **shape)


def _items(text: str, block: Block) -> list[str]:  # a list's items (marker, nested lines) or a table's rows
    return [text[start:end] for start, end in block.parts]


def _list_units(reader: _Reader, i: int) -> bool:
    """A list's items, each one unit; an item holding paragraphs, code or notes is cut into its own
    units, in order. Items that only ask a question, link or say one word are left out."""
    block = reader.blocks[i]
    span = (block.start, block.end)
    for item, numbered in zip(_items(reader.text, block), block.numbered):
        item_words = _strip_marker(item)
        nested = _item_body(item)
        if "\n\n" in nested or nested.count("\n") >= 3:
            for unit in passage_units(nested, "", guide_text=None, words=reader.words, stemmer=reader.stemmer):
                reader.add(unit.kind, unit.text, unit.match_text, block.start, block.end,
                           list_span=span if unit.list_span else None, table_span=span if unit.table_span else None,
                           numbered=unit.numbered, fence=unit.fence, shortened=unit.shortened)
        elif is_sentence(item_words) and not is_link_only(item_words) and not _is_question(item_words):
            reader.add("item", _cut(item), item, block.start, block.end, list_span=span, numbered=numbered)
    return False


def _code_units(reader: _Reader, i: int) -> bool:
    """A code block; with the unit before it when that is the sentence right before it, or the
    item of a one-item list (The Carpentries' lessons: "- For example, do a bar plot using a
    fancier style." then the code)."""
    block, before = reader.blocks[i], (reader.blocks[i - 1] if i else None)
    body = reader.body(block)
    shown = shorten_code(reader.text, block, reader.words, reader.stemmer)
    shape = {"fence": block.fence, "shortened": shown != body}
    last = reader.units[-1] if reader.units else None
    if last is not None and before is not None and last.start == before.start and (
            (last.kind == "sentence" and before.kind == "paragraph")
            or (last.kind == "item" and before.kind == "list" and len(before.parts) == 1)):
        previous = reader.units.pop()
        reader.add("lead-in", f"{previous.text}\n\n{shown}", f"{previous.match_text}\n{body}", previous.start,
                   block.end, list_span=previous.list_span, numbered=previous.numbered, **shape)
    else:
        reader.add("code", shown, body, block.start, block.end, **shape)
    return False


def _table_units(reader: _Reader, i: int) -> bool:
    """A small table whole ("which pins…" is answered by its rows together); a larger one row by
    row, each with the header."""
    block = reader.blocks[i]
    header = reader.text[block.header[0]:block.header[1]].splitlines()
    rows = _items(reader.text, block)
    whole = "\n".join(header + rows)
    span = (block.start, block.end)
    if len(rows) <= MAX_BLOCK_ITEMS and len(whole) <= MAX_TABLE_CHARS:
        reader.add("table", whole, whole, block.start, block.end, table_span=span)
    else:
        for row in rows:
            shown = "\n".join(header + [row])
            reader.add("row", shown, shown, block.start, block.end, table_span=span)
    return False


def _quote_units(reader: _Reader, i: int) -> bool:
    """A block quote's sentences (a GitHub alert's ``[!NOTE]`` line left out)."""
    block = reader.blocks[i]
    inner = re.sub(r"(?m)^\s*>\s?", "", reader.body(block))
    _sentence_units(reader, block, [s for s in split_sentences(inner) if not s.startswith("[!")])
    return False


def _is_cut_table(reader: _Reader, block: Block) -> bool:
    """Whether a paragraph is rows of a table the passage starts inside (the chunker cut it; its
    header is earlier in the guide), with or without the outer pipes."""
    lines = [line for line in reader.body(block).splitlines() if line.strip()]
    return (bool(lines) and all(line.lstrip().startswith("|") for line in lines)) or (
        reader.guide_text is not None and all(_is_row(line) for line in lines)
        and bool(header_before(reader.guide_text(), reader.offset + block.start)))


def _cut_table_units(reader: _Reader, block: Block) -> None:
    """The rows of a table the passage starts inside (:func:`_is_cut_table`), each with the header
    found in the guide before the passage (none without the guide)."""
    header = header_before(reader.guide_text(), reader.offset + block.start) if reader.guide_text else []
    for row in reader.body(block).splitlines():
        if row.strip() and not _TABLE_RULE.match(row):
            shown = "\n".join(header + [row]) if header else row
            reader.add("row", shown, shown, block.start, block.end, table_span=(block.start, block.end))


#: The unit function of each kind of block (a heading sets the heading; HTML and rules give none).
_UNITS: dict[str, Callable[[_Reader, int], bool]] = {
    "paragraph": _paragraph_units, "list": _list_units, "code": _code_units, "table": _table_units,
    "quote": _quote_units}
