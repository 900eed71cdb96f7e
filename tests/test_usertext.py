"""Questions with bytes that are not UTF-8, control characters, and a long conversation never crash
(issue 15's crash classes that a student can trigger from the window or the command line)."""

import pytest

from app.answer.answerer import Assistant
from app.retrieval.retriever import QUERY_CACHE_SIZE, Retriever
from app.usertext import clean_user_text

from .fakes import FakeChatModel


def test_clean_user_text_decodes_escaped_bytes_and_drops_controls():
    assert clean_user_text("caf\udcc3\udca9") == "café"  # UTF-8 bytes passed through surrogateescape
    assert clean_user_text("caf\udce9") == "caf\ufffd"  # a Latin-1 byte: not UTF-8
    assert clean_user_text("\ud800 oled") == "\ufffd oled"
    assert clean_user_text("blank\x00display\x07") == "blank display "
    assert clean_user_text("line one\nline\ttwo") == "line one\nline\ttwo"


@pytest.mark.parametrize("question", ["caf\udce9 display blank", "blank\x00display", "\ud800 OLED address",
                                      "display " * 240])
def test_awkward_questions_get_an_answer_not_an_exception(bundle, fake_embedder, question):
    assistant = Assistant(Retriever(bundle, fake_embedder), FakeChatModel())
    history = [{"role": "user", "content": "OLED\x00 caf\udce9"}, {"role": "assistant", "content": "x"}]
    answer = assistant.answer(question, history)
    assert answer.state in ("answered", "extractive", "not-covered")
    matches = bundle.search_guides(question)
    word = "oled" if "OLED" in question else "display"
    assert matches and all(word in (m.heading + " " + m.text).lower() for m in matches)


def test_a_guide_search_query_fts5_refuses_is_logged_not_swallowed(bundle, monkeypatch, caplog):
    import app.bundle.reader as reader

    monkeypatch.setattr(reader, "guide_search_query", lambda text: ('"unterminated', '"unterminated'))
    with caplog.at_level("ERROR", logger="app.bundle.reader"):
        assert bundle.search_guides("display") == []
    assert "FTS5 refused the query" in caplog.text and "unterminated" in caplog.text


def test_a_follow_up_after_many_questions_keeps_the_previous_turn(bundle, fake_embedder):
    assistant = Assistant(Retriever(bundle, fake_embedder), None)
    first = "My OLED display stays blank. Which I2C address?"
    assistant.answer(first)
    for i in range(QUERY_CACHE_SIZE - 1):  # the first question becomes the oldest cached embedding
        assistant.answer(f"question {i} about the moon and the stars")
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": "Check 0x3C [1]."}]
    answer = assistant.answer("Which pins does it use?", history)  # raised KeyError before
    assert answer.state in ("extractive", "not-covered")
