"""The answerer's and the retriever's named steps (issue 25), each alone."""

from __future__ import annotations

import pytest

from app.answer.answerer import _checked_question, _shown_numbers
from app.answer.streaming import ReplyCheck, renumber, stream_checked
from app.errors import ModelError, QuestionError
from app.records import Hit, Passage
from app.retrieval.retriever import _Candidates
from app.usertext import clean_user_text


def hit(n: int, text: str = "The display needs the I2C address 0x3C.") -> Hit:
    return Hit.make(chunk_id=n, key=f"g.md#{n}", source="g.md", heading=f"Lesson › Part {n}", anchor=str(n),
                    span=(0, len(text)), text=text, score=1.0)


def test_checked_question_cleans_and_refuses():
    question, history = _checked_question("  What is\x00 MQTT?  ", [{"role": "user", "content": "Hi\x00"}, "x"])
    assert question == clean_user_text("What is\x00 MQTT?") and "\x00" not in question
    assert history == [{"role": "user", "content": clean_user_text("Hi\x00")}, "x"]
    with pytest.raises(QuestionError, match="empty"):
        _checked_question("   ", None)
    with pytest.raises(QuestionError, match="2,001 characters"):
        _checked_question("x" * 2001, None)


def test_shown_numbers_map_prompt_numbers_and_append_new_evidence():
    hits = [hit(1), hit(2), hit(3)]
    evidence = [Passage(1, hits[0]), Passage(2, hits[1])]
    sent = [Passage(1, hits[2]), Passage(2, hits[0])]  # the model reads hit 3 first
    assert _shown_numbers(sent, evidence, hits) == {1: 3, 2: 1}
    assert [p.n for p in evidence] == [1, 2, 3] and evidence[2].hit is hits[2]


def test_renumber_swaps_markers_not_code_brackets():
    assert renumber("Use `items[1]` here [1, 2].", {1: 4, 2: 6}) == "Use `items[1]` here [4, 6]."


def check_for(passages, shown=None) -> ReplyCheck:
    return ReplyCheck(passages, [], "What address does the display need?", shown or {1: 5}, lambda: 7.0, {})


def test_reply_check_keeps_a_supported_sentence_once_and_counts_the_rest():
    said: list[str] = []
    check = check_for([Passage(1, hit(1))])
    check.on_sentence = said.append
    check.judge("The display needs the I2C address 0x3C [1].")
    check.judge("The display needs the I2C address 0x3C [1].")
    check.judge("The moon is made of cheese [1].")
    assert said == ["The display needs the I2C address 0x3C [5]."] and check.cited == [5]
    assert check.checks["sentences"] == 3 and check.checks["shown"] == 1 and check.checks["repeat"] == 1
    assert check.timings == {"first_verified": 7.0}


class FailingModel:
    def stream(self, messages, max_tokens, should_stop=None):
        yield "The display needs the I2C address 0x3C [1]. The"
        raise ModelError("context overflow")


def test_stream_checked_keeps_what_passed_before_a_model_error(caplog):
    check = check_for([Passage(1, hit(1))])
    stream_checked(FailingModel(), [], 64, None, check)  # type: ignore[arg-type]
    assert check.verified == ["The display needs the I2C address 0x3C [5]."]
    assert check.timings["first_token"] == 7.0 and "generation failed" in caplog.text


def test_candidates_semantic_ids_are_nearest_first():
    assert _Candidates(semantic=[(4, 0.1), (2, 0.3)]).semantic_ids == [4, 2]
