"""Long blocks cut to the part a question asks about (DESIGN.md, "Answer blocks"): a window of
list items (:func:`shorten_list`) or code lines (:func:`shorten_code`) chosen by the question's
words (:func:`focus`), and a table's first rows (:func:`shorten_table`). "…" marks what is left out.
"""

from __future__ import annotations

from typing import Sequence

from ..ingest.markdown import Block, fences
from ..text.tokenize import DEFAULT_STEMMER, document_tokens, words_found

#: Most list items and table rows a lead-in unit carries (the rest becomes "…"); also the most
#: rows of a table quoted whole (app/answer/blocks.py). Not measured.
MAX_BLOCK_ITEMS = 8
#: Most code lines a code unit shows (a window around the lines the question asks about). Not measured.
MAX_CODE_LINES = 14


def focus(pieces: list[str], keep: int, words: Sequence[tuple[str, ...]], context: bool = False,
          stemmer: str = DEFAULT_STEMMER) -> int:
    """Start of the run of ``keep`` consecutive ``pieces`` holding the most distinct question
    ``words`` (the earliest run on ties, so 0 when no piece holds one). With ``context``, among the
    tied runs that follow the earliest, the one that starts nearer the first piece holding a question
    word (never past it), leaving about two thirds of the run below it: in code, the lines after a
    comment are what the comment is about. ``stemmer`` cuts the pieces as the ``words`` were cut."""
    if not words or len(pieces) <= keep:
        return 0
    token_sets = [set(document_tokens(piece, stemmer)) for piece in pieces]
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


def shorten_list(items: list[str], ordered: bool, start: int) -> str:
    """A list's ``items`` (Markdown, marker included) cut to the MAX_BLOCK_ITEMS from ``start`` on
    (the run holding the most of the question's words, :func:`focus`; "…" marks what was left
    out), so the item the block was chosen for is the one shown."""
    if len(items) <= MAX_BLOCK_ITEMS:
        return "\n".join(items)
    kept = items[start:start + MAX_BLOCK_ITEMS]
    # "- …" would start a bullet list inside a numbered one: there, "…" stands apart from the items
    before, after = (["…", ""], ["", "…"]) if ordered else (["- …"], ["- …"])
    return "\n".join((before if start else []) + kept + (after if start + MAX_BLOCK_ITEMS < len(items) else []))


def shorten_code(text: str, block: Block, words: Sequence[tuple[str, ...]] = (),
                 stemmer: str = DEFAULT_STEMMER) -> str:
    """A code block (``text``, the passage's text, and its ``block``) cut to MAX_CODE_LINES code
    lines: the window holding the most of the question's ``words``, after the line that opens the
    function or loop it sits in ("…" marks what was left out); fenced again with the block's own
    fence. Indented code is shown with its lines as they are. ``stemmer``: as :func:`focus`."""
    lines = text[block.start:block.end].splitlines()
    if len(lines) <= MAX_CODE_LINES + 2:
        return text[block.start:block.end]
    body = text[block.parts[0][0]:min(block.parts[0][1], block.end)].splitlines() if block.fence else lines
    # Fences inside (a Markdown sample, a list taken for indented code) must not be cut apart: no shifting there.
    plain = bool(block.fence) and not fences("\n".join(body))
    start = focus(body, MAX_CODE_LINES, words, context=plain, stemmer=stemmer)
    kept = body[start:start + MAX_CODE_LINES]
    opener = _enclosing_line(body, start) if plain else None
    gap = "…" if block.fence else "    …"
    head = ([] if not start else [gap] if opener is None
            else [body[opener]] + ([gap] if opener < start - 1 else []))
    fence_lines = ([lines[0]], [block.fence]) if block.fence else ([], [])
    return "\n".join(fence_lines[0] + head + kept + ([gap] if start + MAX_CODE_LINES < len(body) else [])
                     + fence_lines[1])


def shorten_table(text: str, block: Block) -> str:
    """A table's header and first MAX_BLOCK_ITEMS rows."""
    header = text[block.header[0]:block.header[1]].splitlines()
    return "\n".join(header + [text[s:e] for s, e in block.parts[:MAX_BLOCK_ITEMS]])
