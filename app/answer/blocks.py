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

Blocks come from markdown-it-py via :func:`app.ingest.markdown.parse_blocks`; sentences are cut
with :func:`split_sentences`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..ingest.markdown import parse_blocks
from ..records import heading_leaf
from ..text.tokenize import document_tokens, words_found

#: Most list items, code lines and table rows a lead-in unit carries (the rest becomes "…").
MAX_BLOCK_ITEMS = 8
MAX_CODE_LINES = 14
#: A sentence longer than this (characters) is cut with "…" (a 200 KB line stays readable).
MAX_UNIT_CHARS = 700
#: A table of at most MAX_BLOCK_ITEMS rows and this many characters is quoted whole; a larger one
#: row by row, each with its header (demo: 21 -> 22 answers holding the fact, the DHT11 pin table
#: for "Which pins are the DHT11 and the OLED connected to?"; IoT, DS, WD, Turing Way unchanged).
MAX_TABLE_CHARS = 900
#: Most characters of the paragraph a lead-in ending in a colon brings along.
MAX_FOLLOW_CHARS = 400

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\"“(\[])|(?<=[。！？])")
_LIST_MARKER = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")  # no "[" or "(" inside: linear on "[[[…" and "[a](…"
_BARE_URL = re.compile(r"<?https?://\S+>?")
#: A reference-style link (``[text][label]``, ``[text][]``): its definition sits at the guide's end,
#: outside the passage, so a quote would show the brackets.
_REFERENCE_LINK = re.compile(r"!?\[([^\[\]\n]+)\]\[[^\[\]\n]*\]")  # no "[" inside: linear on "[[[…"
#: Code a quote shows as it is: a fenced block or an inline code span.
_CODE_PART = re.compile(r"(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`)")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Unit:
    """One quotable unit of a passage.

    ``kind`` is ``sentence``, ``lead-in`` (a sentence with the list/code/table it introduces),
    ``item`` (a list item), ``code``, ``table`` (a small table whole) or ``row`` (a row of a larger
    table with its header). ``text`` is the
    Markdown shown to the student; ``match_text`` is what question words are matched against
    (for a row: header and row; for code: the sentence before it too). ``heading`` is the
    nearest heading above the unit (plain text, may be empty). ``order`` is the unit's position
    in the passage (0-based), ``start``/``end`` character offsets into the passage text.
    """

    kind: str
    text: str
    match_text: str
    heading: str
    order: int
    start: int
    end: int

    @property
    def has_code(self) -> bool:
        """Whether the unit shows a code block or an inline command (a "how do I" answer)."""
        return "```" in self.text or "~~~" in self.text or "`" in self.text

    @property
    def is_steps(self) -> bool:
        """Whether the unit is (or introduces) a list of numbered steps."""
        return bool(re.search(r"(?m)^\s*\d+[.)]\s", self.text))


def _cut(text: str, limit: int = MAX_UNIT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def plain_reference_links(text: str) -> str:
    """``text`` with each reference-style link outside code replaced by its link text
    (``see [the setup guide][setup]`` -> ``see the setup guide``); code (``matrix[i][j]``) is kept."""
    if "][" not in text:
        return text
    parts = _CODE_PART.split(text)
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


def _only_questions(list_text: str) -> bool:
    """Whether every item of a Markdown list is a question (:func:`_is_question`)."""
    items = _list_items(list_text)
    return bool(items) and all(_is_question(_strip_marker(item)) for item in items)


def is_sentence(text: str) -> bool:
    """Whether ``text`` is worth quoting on its own: two words or more, or CJK text of four
    characters or more (a short rule such as "10% per day late." counts)."""
    if len(_CJK.findall(text)) >= 4:
        return True
    return len(re.findall(r"\w+", text)) >= 2 and not is_link_only(text)


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph: cut after ``.``, ``!`` or ``?`` followed by a space and a
    capital, digit, quote, bracket or backtick, and after ``。！？``; whitespace runs made one space."""
    text = " ".join(text.split())
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _list_items(text: str) -> list[str]:
    """The top-level items of a Markdown list (each with its nested lines)."""
    lines = text.splitlines()
    indents = [len(m.group(1)) for m in (_LIST_MARKER.match(line) for line in lines) if m]
    top = min(indents) if indents else 0
    items: list[list[str]] = []
    for line in lines:
        m = _LIST_MARKER.match(line)
        if m and len(m.group(1)) == top:
            items.append([line])
        elif items:
            items[-1].append(line)
        elif line.strip():
            items.append([line])
    return ["\n".join(item).rstrip() for item in items]


def _item_body(item: str) -> str:
    """A list item's Markdown without its marker, its continuation lines dedented by the marker's width."""
    m = _LIST_MARKER.match(item)
    width = m.end() if m else 0
    lines = item.splitlines()
    first = lines[0][width:] if lines else ""
    rest = [line[width:] if line[:width].strip() == "" else line.lstrip() for line in lines[1:]]
    return "\n".join([first] + rest)


def _strip_marker(item: str) -> str:
    return _LIST_MARKER.sub("", item, count=1).strip()


def _focus(pieces: list[str], keep: int, words: Sequence[tuple[str, ...]], context: bool = False) -> int:
    """Start of the run of ``keep`` consecutive ``pieces`` holding the most distinct question
    ``words`` (the earliest run on ties, so 0 when no piece holds one). With ``context``, among the
    tied runs that follow the earliest, the one that starts nearer the first piece holding a question
    word (never past it), leaving about two thirds of the run below it: in code, the lines after a
    comment are what the comment is about."""
    if not words or len(pieces) <= keep:
        return 0
    token_sets = [set(document_tokens(piece)) for piece in pieces]
    found = [words_found(list(words), set().union(*token_sets[start:start + keep]))
             for start in range(len(pieces) - keep + 1)]
    best = max(range(len(found)), key=lambda start: (found[start], -start))
    if not context or found[best] == 0:
        return best
    end = best
    while end + 1 < len(found) and found[end + 1] == found[best]:
        end += 1
    asked = {v for w in words for v in w}
    first_hit = next(i for i in range(best, best + keep) if token_sets[i] & asked)
    return min(end, best + keep - 1 - keep // 3, first_hit)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _enclosing_line(lines: list[str], start: int) -> int | None:
    """Index of the line that opens the code around ``lines[start]`` (the nearest line above it that
    is indented less: a function, class or loop header), so a window cut from the middle of a
    function still shows which function it is; None when ``start`` is at the top level."""
    first = next((line for line in lines[start:] if line.strip()), "")
    depth = _indent(first)
    for i in range(start - 1, -1, -1):
        if lines[i].strip() and _indent(lines[i]) < depth:
            return i
    return None


def _shorten_block(kind: str, text: str, words: Sequence[tuple[str, ...]] = ()) -> str:
    """A list, code block or table cut to MAX_BLOCK_ITEMS items / MAX_CODE_LINES lines: the run of
    items or lines holding the most of the question's ``words`` (from the top when none does; "…"
    marks what was left out), so the line or item the block was chosen for is the one shown."""
    if kind == "list":
        items = _list_items(text)
        if len(items) <= MAX_BLOCK_ITEMS:
            return "\n".join(items)
        start = _focus(items, MAX_BLOCK_ITEMS, words)
        kept = items[start:start + MAX_BLOCK_ITEMS]
        # "- …" would start a bullet list inside a numbered one: there, "…" stands apart from the items
        before, after = (["…", ""], ["", "…"]) if re.match(r"\s*\d+[.)]\s", items[0]) else (["- …"], ["- …"])
        return "\n".join((before if start else []) + kept + (after if start + MAX_BLOCK_ITEMS < len(items) else []))
    lines = text.splitlines()
    if kind == "code":
        if len(lines) <= MAX_CODE_LINES + 2:
            return text
        fence = lines[0].strip()[:3]
        body = lines[1:-1] if lines[-1].strip().startswith(fence) else lines[1:]
        # Fences inside (a list taken for indented code) must not be cut apart: no shifting there.
        plain = not any(line.strip().startswith(("```", "~~~")) for line in body)
        start = _focus(body, MAX_CODE_LINES, words, context=plain)
        kept = body[start:start + MAX_CODE_LINES]
        opener = _enclosing_line(body, start) if plain else None
        head = ([] if not start else ["…"] if opener is None
                else [body[opener]] + (["…"] if opener < start - 1 else []))
        return "\n".join([lines[0]] + head + kept
                         + (["…"] if start + MAX_CODE_LINES < len(body) else []) + [fence])
    if kind == "table":
        keep = lines[:2 + MAX_BLOCK_ITEMS]
        return "\n".join(keep)
    return text


def _table_lines(text: str) -> tuple[list[str], list[str]]:
    """``(header lines, row lines)`` of a GFM table (header = header row + rule row)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= 2 and _TABLE_RULE.match(lines[1]):
        return lines[:2], lines[2:]
    return [], lines


def _is_pipe_rows(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(line.lstrip().startswith("|") for line in lines)


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


def passage_units(text: str, heading_path: str = "", *, guide_text: Callable[[], str] | None = None,
                  offset: int = 0, words: Sequence[tuple[str, ...]] = ()) -> list[Unit]:
    """The quotable units of a passage, in reading order.

    ``text`` is the passage's Markdown; ``heading_path`` its heading path (`` › ``-joined);
    ``guide_text()`` (optional, called at most once, lazily) returns the whole guide, and
    ``offset`` is the passage's start in it: used to find the header of a table the passage
    starts inside. ``words`` (the question's, :func:`query_words`) choose which lines of a long code
    block and which items of a long list are shown (:func:`_shorten_block`).
    """
    heading = heading_leaf(heading_path)
    blocks = parse_blocks(text)
    units: list[Unit] = []

    def add(kind: str, shown: str, match: str, start: int, end: int) -> None:
        if shown.strip():
            units.append(Unit(kind, plain_reference_links(shown.strip()), match, heading, len(units), start, end))

    i = 0
    while i < len(blocks):
        block = blocks[i]
        body = text[block.start:block.end]
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if block.kind == "heading":
            heading = block.heading
        elif block.kind == "paragraph" and (_is_pipe_rows(body) or (
                guide_text is not None and all(_is_row(line) for line in body.splitlines() if line.strip())
                and header_before(guide_text(), offset + block.start))):
            # Rows of a table the passage starts inside (the chunker cut it; its header is earlier
            # in the guide), with or without the outer pipes.
            header: list[str] = []
            if guide_text is not None:
                header = header_before(guide_text(), offset + block.start)
            for row in body.splitlines():
                if row.strip() and not _TABLE_RULE.match(row):
                    shown = "\n".join(header + [row]) if header else row
                    add("row", shown, shown, block.start, block.end)
        elif block.kind == "paragraph":
            if is_link_only(body):
                i += 1
                continue
            sentences = [s for s in split_sentences(body) if not is_link_only(s)]
            lead_in = (sentences and sentences[-1].rstrip("*_ ").endswith(":") and nxt is not None
                       and nxt.kind in ("list", "code", "table")
                       and not (nxt.kind == "list" and _only_questions(text[nxt.start:nxt.end])))
            plain = sentences[:-1] if lead_in else sentences
            if plain and not lead_in and plain[-1].rstrip("*_ ").endswith(":"):
                if nxt is not None and nxt.kind == "paragraph" and not is_link_only(text[nxt.start:nxt.end]):
                    # A lead-in to paragraphs ("…the following steps:" then a bold-titled paragraph):
                    # quoted with the first of them.
                    follow = text[nxt.start:nxt.end]
                    for sentence in plain[:-1]:
                        if is_sentence(sentence):
                            add("sentence", _cut(sentence), sentence, block.start, block.end)
                    add("lead-in", f"{_cut(plain[-1])}\n\n{_cut(follow, MAX_FOLLOW_CHARS)}",
                        f"{plain[-1]}\n{follow}", block.start, nxt.end)
                    i += 2
                    continue
                plain = plain[:-1]  # a colon leading nowhere quotable (HTML, an image, the chunk's end)
            for sentence in plain:
                if is_sentence(sentence):
                    add("sentence", _cut(sentence), sentence, block.start, block.end)
            if lead_in and nxt is not None:  # (lead_in implies it)
                follow = text[nxt.start:nxt.end]
                shown = f"{_cut(sentences[-1])}\n\n{_shorten_block(nxt.kind, follow, words)}"
                add("lead-in", shown, f"{sentences[-1]}\n{follow}", block.start, nxt.end)
                i += 2
                continue
        elif block.kind == "list":
            for item in _list_items(body):
                item_words = _strip_marker(item)
                nested = _item_body(item)
                if "\n\n" in nested or nested.count("\n") >= 3:
                    # An item with paragraphs, code or notes inside: its own units, in order.
                    for unit in passage_units(nested, "", guide_text=None, words=words):
                        add(unit.kind, unit.text, unit.match_text, block.start, block.end)
                elif is_sentence(item_words) and not is_link_only(item_words) and not _is_question(item_words):
                    add("item", _cut(item), item, block.start, block.end)
        elif block.kind == "code":
            shown = _shorten_block("code", body, words)
            previous_block = blocks[i - 1] if i else None
            if (units and previous_block is not None and units[-1].start == previous_block.start and (
                    (units[-1].kind == "sentence" and previous_block.kind == "paragraph")
                    or (units[-1].kind == "item" and previous_block.kind == "list"
                        and len(_list_items(text[previous_block.start:previous_block.end])) == 1))):
                # The sentence right before the code introduces it; so does a one-item list (The
                # Carpentries' lessons: "- For example, do a bar plot using a fancier style." then the code).
                previous = units.pop()
                add("lead-in", f"{previous.text}\n\n{shown}", f"{previous.match_text}\n{body}",
                    previous.start, block.end)
            else:
                add("code", shown, body, block.start, block.end)
        elif block.kind == "table":
            head, rows = _table_lines(body)
            whole = "\n".join(head + rows)
            if len(rows) <= MAX_BLOCK_ITEMS and len(whole) <= MAX_TABLE_CHARS:
                # A small table is one block: "which pins…" is answered by its rows together.
                add("table", whole, whole, block.start, block.end)
            else:
                for row in rows:
                    add("row", "\n".join(head + [row]), "\n".join(head + [row]), block.start, block.end)
        elif block.kind == "quote":
            inner = re.sub(r"(?m)^\s*>\s?", "", body)
            for sentence in split_sentences(inner):
                if is_sentence(sentence) and not sentence.startswith("[!"):
                    add("sentence", _cut(sentence), sentence, block.start, block.end)
        i += 1
    return units
