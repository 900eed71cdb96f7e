"""The one grammar of each markup (app/text/grammar.py): sentences, citation markers, links, list markers."""

import pytest

from app.text.grammar import (
    ANSWER_SENTENCE_END,
    CITATION_MARKER,
    LIST_MARKER,
    MARKDOWN_LINK,
    citation_numbers,
    link_destination,
    sentence_spans,
    split_sentences,
)

#: Seconds a 100-200 KB adversarial line may take at most: linear patterns read one in milliseconds,
#: the quadratic ones they replaced took from 4 s to minutes (pytest-timeout fails the test).
LINEAR_BOUND_S = 10


def test_split_sentences_cuts_before_a_capital_digit_or_quote_and_after_cjk_stops():
    assert split_sentences("Wire the LED. Then run it! 2 pins? `ok`.") == [
        "Wire the LED.", "Then run it!", "2 pins?", "`ok`."]
    assert split_sentences("Use e.g. the pin.\nv1.2 is out") == ["Use e.g. the pin. v1.2 is out"]
    assert split_sentences("一。二！三") == ["一。", "二！", "三"]


def test_sentence_spans_cover_the_text_and_cut_at_sentence_ends_and_line_breaks():
    text = "A. b c. D\nline two"
    spans = sentence_spans(text)
    assert "".join(text[a:b] for a, b in spans) == text
    assert [text[a:b] for a, b in spans] == ["A. b c.", " D\n", "line two"]
    assert sentence_spans("") == [(0, 0)]


def test_answer_sentence_end_keeps_the_markers_after_the_stop_with_the_sentence():
    text = "The LED is on pin 2. [1][2] Next"
    match = ANSWER_SENTENCE_END.search(text)
    assert match is not None and text[:match.end()] == "The LED is on pin 2. [1][2]"
    assert ANSWER_SENTENCE_END.search("no end yet.") is None  # the stream may not be finished


@pytest.mark.parametrize("marker, numbers", [("[2]", [2]), ("[1, 3]", [1, 3]), ("[ 1; 2 ]", [1, 2]),
                                             ("[3,1]", [3, 1])])
def test_citation_marker_reads_commas_semicolons_and_inner_spaces(marker, numbers):
    match = CITATION_MARKER.fullmatch(marker)
    assert match is not None and citation_numbers(match) == numbers


def test_citation_marker_is_not_a_bracket_of_words():
    assert CITATION_MARKER.search("[a] [1 2] [] [1,]") is None


def test_markdown_link_reads_label_and_destination_with_balanced_parentheses_and_titles():
    m = MARKDOWN_LINK.search('see [Wiki](https://en.wikipedia.org/wiki/Foo_(bar) "T") now')
    assert m is not None and m.group(1) == "Wiki" and link_destination(m) == "https://en.wikipedia.org/wiki/Foo_(bar)"
    m = MARKDOWN_LINK.search("![a plot](<fig 1.svg>)")
    assert m is not None and m.group(0).startswith("!") and link_destination(m) == "fig 1.svg"
    assert MARKDOWN_LINK.sub(r"\1", "[a](b.md) and [c]()") == "a and c"


def test_list_marker_matches_bullets_and_numbers_at_a_line_start_only():
    assert [bool(LIST_MARKER.match(s)) for s in ["- a", "  * b", "+ c", "12. d", "3) e", "-a", "x - y", "1.5 V"]] == [
        True, True, True, True, True, False, False, False]
    m = LIST_MARKER.match("  1. item")
    assert m is not None and m.group(1) == "  " and m.end() == 5


@pytest.mark.timeout(LINEAR_BOUND_S)
@pytest.mark.parametrize("text", [
    "[" * 100_000 + "x",
    "[a](" * 30_000 + "words",
    "](" * 50_000,
    "[a](" + "(" * 100_000,
    "[" * 50_000 + "]" * 50_000,
    "[" + "1, " * 50_000,
    "." + " " * 200_000 + "a",
    ".[1]" * 40_000 + "x",
    "  " * 100_000 + "x",
])
def test_every_pattern_stays_linear_on_long_adversarial_lines(text):
    assert MARKDOWN_LINK.findall(text) == []
    CITATION_MARKER.sub(" ", text)
    ANSWER_SENTENCE_END.findall(text)
    LIST_MARKER.match(text)
    assert "".join(text[a:b] for a, b in sentence_spans(text)) == text
    split_sentences(text)
