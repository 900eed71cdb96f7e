"""The model's words only when verified: the sentence checks, the streaming splitter, and the
answerer handing out evidence first and only checked sentences after it (issue 11)."""

import pytest

from app.answer.answerer import Assistant
from app.answer.verify import SentenceStream, check_sentence, facts, missing_facts, normalise
from app.records import Hit, Passage
from app.retrieval.retriever import Retriever

from .fakes import FakeChatModel

SKU = ("Create the hub with `az iot hub create`. The --sku F1 option tells it to use the free tier, "
       "which allows 8,000 messages a day. Only one free hub is allowed per subscription.")
PINS = "Wire the display's SDA pin to GPIO 21 and power it from the 3.3V pin of the board."


def _passage(n: int, text: str, heading: str = "Lesson › Task") -> Passage:
    return Passage(n, Hit.make(chunk_id=n, key=f"g{n}.md#a:0", source=f"g{n}.md", heading=heading, anchor="a",
                               span=(0, len(text)), text=text, score=1.0))


def test_normalising_joins_pins_units_and_thousands():
    assert normalise("GPIO 2") == normalise("gpio2") == "gpio2"
    assert normalise("3.3 V") == normalise("3.3V")
    assert normalise("8,000 messages") == "8000 messages"


def test_facts_are_numbers_identifiers_and_names_but_not_ordinary_words():
    found = facts("Use `ledcAttach()` on GPIO 2 with --sku F1, 3.3 V and Azure [1].")
    assert {"ledcattach", "gpio2", "--sku", "f1", "3.3v", "azure"} <= set(found)
    assert "1" not in found  # citation markers are not facts
    assert "2" not in found  # the 2 of GPIO 2 is part of the pin
    assert facts("The display stays blank when the address is wrong.") == []


# Wrong drafts the real models wrote (or the kind they write), each with the passage it cites.
WRONG_DRAFTS = [
    ("The --sku F1 option creates a standard hub that allows 400,000 messages a day [1].", SKU, "facts"),
    ("The F2 tier allows 8,000 messages a day [1].", SKU, "facts"),
    ("Wire SDA to GPIO 22 and power it from 3.3V [1].", PINS, "facts"),
    ("Wire SDA to GPIO 21 and power it from the 5V pin [1].", PINS, "facts"),
    ("The guides don't cover this topic [1].", SKU, "refusal"),
    ("[1] [2] [3] [4]", SKU, "empty"),
    ("```python\nprint(1)\n```", SKU, "empty"),
    ("La dirección del bus cambia según el fabricante del módulo [1].", PINS, "support"),
    ("Volcanoes erupt because magma chambers overflow with pressure [1].", SKU, "support"),
]


@pytest.mark.parametrize("draft, passage, reason", WRONG_DRAFTS)
def test_wrong_drafts_are_dropped_with_the_check_that_caught_them(draft, passage, reason):
    verdict = check_sentence(draft, [_passage(1, passage)])
    assert not verdict.ok and verdict.reason == reason, verdict


def test_a_right_sentence_passes_and_keeps_its_citation():
    verdict = check_sentence("The --sku F1 option selects the free tier, which allows 8000 messages a day [1].",
                             [_passage(1, SKU)])
    assert verdict.ok and verdict.cited == (1,)
    assert missing_facts("Wire SDA to GPIO21 using 3.3 V.", PINS) == []


def test_an_unmarked_sentence_is_attributed_to_the_passage_that_supports_it():
    passages = [_passage(1, SKU), _passage(2, PINS)]
    verdict = check_sentence("Wire the SDA pin to GPIO 21.", passages)
    assert verdict.ok and verdict.cited == (2,) and verdict.text.endswith("[2].")
    # A marker naming a passage that was not sent is removed; the sentence must still pass.
    verdict = check_sentence("Wire the SDA pin to GPIO 21 [7].", passages)
    assert verdict.ok and verdict.cited == (2,) and "[7]" not in verdict.text
    # A wrong marker is a hint that must also pass: the cited passage lacks the pin.
    assert not check_sentence("Wire the SDA pin to GPIO 21 [1].", passages).ok


def test_a_sentence_that_only_repeats_a_quoted_block_adds_nothing():
    quoted = ["The --sku F1 option tells it to use the free tier, which allows 8,000 messages a day. [1]"]
    verdict = check_sentence("The --sku F1 option tells it to use the free tier [1].", [_passage(1, SKU)], quoted)
    assert not verdict.ok and verdict.reason == "repeat"


def test_the_stream_is_cut_into_whole_sentences_with_their_markers():
    stream = SentenceStream()
    out = []
    for piece in ["The pin", " is GPIO", " 21.", " [1]", " It runs", " at 3.3", " V [2].", " Done"]:
        out += stream.feed(piece)
    out += stream.close()
    assert out == ["The pin is GPIO 21. [1]", "It runs at 3.3 V [2].", "Done"]
    fenced = SentenceStream()
    assert fenced.feed("```py\nx = 1.\ny = 2.\n") == []
    assert fenced.feed("```\nAfter the code. ") == ["```py\nx = 1.\ny = 2.\n```"]


OLED_QUESTION = "My OLED display stays blank. Which I2C address?"


def _assistant(bundle, embedder, reply):
    return Assistant(Retriever(bundle, embedder), FakeChatModel(reply))


def test_evidence_comes_first_and_only_checked_sentences_follow(bundle, fake_embedder):
    events = []
    reply = "The OLED address is 0x99 [1]. If the display stays blank with 0x3C, run the scanner sketch to find it [1]."
    answer = _assistant(bundle, fake_embedder, reply).answer(
        OLED_QUESTION, on_evidence=lambda a: events.append(("evidence", a)),
        on_sentence=lambda s: events.append(("sentence", s)))
    assert events[0][0] == "evidence" and events[0][1].state == "extractive"
    assert events[0][1].text.startswith("From the guides:") and events[0][1].citations
    shown = [s for kind, s in events if kind == "sentence"]
    assert all("0x99" not in s for s in shown) and "0x99" not in answer.text
    assert shown == ["If the display stays blank with 0x3C, run the scanner sketch to find it [1]."]
    assert answer.state == "answered" and answer.text.startswith(shown[0])
    assert answer.checks["facts"] >= 1 and answer.checks["shown"] == len(shown)
    t = answer.timings_ms
    assert t["retrieval"] <= t["evidence"] <= t["first_token"] <= t["first_verified"] <= t["total"]


@pytest.mark.parametrize("reply", ["", "[1] [2] [3] [4]", "```python\nimport os\nos.remove('x')\n```",
                                   "Die Adresse ist unbekannt und das Display bleibt dunkel. " * 3,
                                   "word " * 2000, "The address is 0x3C [9]. [12] [3, 44]"])
def test_bad_model_output_leaves_the_evidence_standing(bundle, fake_embedder, reply):
    shown = []
    answer = _assistant(bundle, fake_embedder, reply).answer(OLED_QUESTION, on_sentence=shown.append)
    assert answer.state in ("extractive", "answered")
    assert "From the guides:" in answer.text and answer.citations
    for sentence in shown:  # whatever passed names only passages that were sent
        assert "[9]" not in sentence and "[12]" not in sentence and "44" not in sentence


def test_stop_keeps_the_evidence(bundle, fake_embedder):
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 3

    answer = _assistant(bundle, fake_embedder, "one two three four five six seven eight nine ten [1]").answer(
        OLED_QUESTION, should_stop=stop)
    assert answer.state == "extractive" and "From the guides:" in answer.text


def test_a_true_sentence_about_something_else_does_not_answer_the_question():
    passages = [_passage(1, SKU + " " + PINS)]
    question = "Which pin does the display's SDA line use?"
    assert check_sentence("Only one free hub is allowed per subscription [1].", passages, question=question).reason \
        == "off-question"
    assert check_sentence("Wire the SDA pin to GPIO 21 [1].", passages, question=question).ok


def test_a_negation_the_passage_does_not_make_is_dropped():
    passage = _passage(1, "This slow behaviour can be disabled by adding `ci=None` to the line chart.")
    verdict = check_sentence("Adding `ci=None` to the line chart does not disable this slow behaviour [1].", [passage])
    assert not verdict.ok and verdict.reason == "negation"
    assert check_sentence("Adding `ci=None` to the line chart disables this slow behaviour [1].", [passage]).ok


def test_an_unrelated_question_after_an_answered_one_is_not_answered_from_the_previous_lesson(bundle, fake_embedder):
    history = [{"role": "user", "content": OLED_QUESTION},
               {"role": "assistant", "content": "Check the I2C address 0x3C [1]."}]
    assistant = _assistant(bundle, fake_embedder, "The cafeteria is next to the OLED lab [1].")
    # The fake embedder finds a weak match for any question; what matters is that the previous turn
    # changes nothing for a question that does not refer back to it (the real-model case, "not
    # covered", is in test_real.py).
    alone = assistant.answer("Where is the cafeteria?")
    answer = assistant.answer("Where is the cafeteria?", history)
    assert answer.state == alone.state and [p.hit.key for p in answer.passages] == [p.hit.key for p in alone.passages]
    # A question that refers back is still a follow-up, answered from the previous turn's lesson.
    follow = assistant.answer("Which pins does it use?", history)
    assert follow.state in ("answered", "extractive") and follow.citations[0].hit.source == "lessons/oled.md"
