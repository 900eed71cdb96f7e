"""One fence detector (issue 13): ``app.ingest.markdown.fences`` finds fenced code blocks by
CommonMark's rules, and every place that must not read code as prose asks it: citation checking,
passage trimming, the model's sentence stream, the viewer's passage lines and language detection.

Each case below is run through every one of them, so a consumer with a fence detector of its own
(a regex, a line toggle) fails on the cases where that detector goes wrong: a tilde fence holding
backtick lines, a longer fence holding a shorter one, a fence in a list item, one never closed.
"""

from __future__ import annotations

import pytest

from app.answer.budget import _pieces
from app.answer.citations import check_citations
from app.answer.verify import SentenceStream
from app.gui.passage_text import plain_lines
from app.ingest.language import prose
from app.ingest.markdown import fences

#: ``(name, text, opening line, closing line or None when never closed)``. The code always holds
#: ``zebra = [5]``: a bracket that would be an invalid citation (removed) if read as prose.
FENCED = [
    ("backticks", "Intro.\n\n```python\nzebra = [5]\n```\n\nAfter [1].\n", "```python", "```"),
    ("tildes", "Intro.\n\n~~~\nzebra = [5]\n~~~\n\nAfter [1].\n", "~~~", "~~~"),
    ("indented three spaces", "Intro.\n\n   ```\n   zebra = [5]\n   ```\n\nAfter [1].\n", "   ```", "   ```"),
    ("tildes holding backtick lines", "Intro.\n\n~~~md\n```\nzebra = [5]\n```\n~~~\n\nAfter [1].\n", "~~~md", "~~~"),
    ("a longer fence holding a shorter one", "Intro.\n\n````\n```\nzebra = [5]\n```\n````\n\nAfter [1].\n",
     "````", "````"),
    ("in a list item", "- Run it:\n\n  ```sh\n  zebra = [5]\n  ```\n\nAfter [1].\n", "  ```sh", "  ```"),
    ("never closed", "Intro [1].\n\n```\nzebra = [5]\n\nstill code [2]\n", "```", None),
]

#: Texts with no fenced block: four spaces of indentation make an indented code block, and three
#: backticks inside a line are inline code.
NOT_FENCED = [
    "Intro.\n\n    ```\n    zebra = [5]\n    ```\n",
    "Use ```zebra``` inline, then ~~~ as text.\n",
    "Two backticks are not a fence:\n``\nzebra\n``\n",
]


def _fence(text):
    found = fences(text)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("name, text, opening, closing", FENCED, ids=[c[0] for c in FENCED])
def test_fences_finds_the_block_from_its_opening_line_to_its_closing_line(name, text, opening, closing):
    fence = _fence(text)
    block = text[fence.start:fence.end]
    assert block.startswith(opening + "\n")
    assert "zebra = [5]" in fence.code and not fence.code.startswith(opening.strip())
    if closing is None:
        assert not fence.closed and fence.end == len(text) and "still code [2]" in fence.code
    else:
        assert fence.closed and block.endswith("\n" + closing + "\n")
        assert text[fence.end:] == "\nAfter [1].\n"


@pytest.mark.parametrize("text", NOT_FENCED)
def test_fences_finds_no_block_where_commonmark_has_none(text):
    assert fences(text) == ()


def test_fence_offsets_count_every_kind_of_line_break():
    text = "a\r\n```\r\nb [5]\r\n```\r\nc"
    fence = _fence(text)
    assert text[fence.start:fence.end] == "```\r\nb [5]\r\n```\r\n" and fence.code == "b [5]\n"


@pytest.mark.parametrize("name, text, opening, closing", FENCED, ids=[c[0] for c in FENCED])
def test_brackets_in_a_fenced_block_are_code_not_citations(name, text, opening, closing):
    cleaned, cited = check_citations(text, sent=1)
    assert "zebra = [5]" in cleaned  # not removed as an unknown source number
    assert cited == [1]  # the citation outside the block still counts
    if closing is None:
        assert "still code [2]" in cleaned


@pytest.mark.parametrize("name, text, opening, closing", FENCED, ids=[c[0] for c in FENCED])
def test_a_fenced_block_is_one_piece_for_passage_trimming(name, text, opening, closing):
    fence = _fence(text)
    holding = [(a, b) for a, b in _pieces(text) if a < fence.end and b > fence.start]
    assert len(holding) == 1 and holding[0][0] <= fence.start and holding[0][1] >= fence.end


@pytest.mark.parametrize("name, text, opening, closing", FENCED, ids=[c[0] for c in FENCED])
def test_the_model_stream_keeps_a_fenced_block_whole(name, text, opening, closing):
    stream = SentenceStream()
    out = []
    for i in range(0, len(text), 5):  # streamed in small pieces
        out += stream.feed(text[i:i + 5])
    out += stream.close()
    code = [s for s in out if "zebra" in s]
    assert len(code) == 1 and code[0].startswith(opening.strip())
    if closing is None:
        assert code[0].endswith("still code [2]")
    else:
        assert code[0].endswith(closing.strip()) and out[-1] == "After [1]."


@pytest.mark.parametrize("name, text, opening, closing", FENCED, ids=[c[0] for c in FENCED])
def test_the_viewer_lines_hold_the_code_without_its_fence_lines(name, text, opening, closing):
    lines = plain_lines(text)
    assert "zebra = [5]" in lines
    assert opening.strip() not in lines and (closing is None or closing.strip() not in lines)
    if "holding" in name:
        assert "```" in lines  # the inner fence-like lines are code
    if closing is not None:
        assert lines[-1] == "After [1]."


@pytest.mark.parametrize("name, text, opening, closing", FENCED, ids=[c[0] for c in FENCED])
def test_language_detection_reads_no_code(name, text, opening, closing):
    words = prose(text)
    assert "zebra" not in words
    assert "After" in words or closing is None
