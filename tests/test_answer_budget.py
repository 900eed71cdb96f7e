"""Context budget, sentence-level support, context-window fitting, numbering and degraded states."""

import json
from dataclasses import replace

from app.answer.answerer import Assistant
from app.answer.budget import ContextBudget, select_passages, trim_to_window
from app.answer.verify import check_sentence
from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.cli import main
from app.records import Hit, Passage
from app.retrieval.retriever import Retriever

from .fakes import FakeChatModel, FakeEmbedder

QUESTION = "My OLED display stays blank. Which I2C address?"


def _hit(text: str, start: int = 100) -> Hit:
    return Hit.make(chunk_id=1, key="g.md#a:0", source="g.md", heading="G › A", anchor="a",
                    span=(start, start + len(text)), text=text, score=1.0)


def _moved(hit: Hit, source: str, score: float) -> Hit:
    """``hit``'s chunk in another guide, with another fused score."""
    return replace(hit, row=replace(hit.row, source=source), score=score)


def test_trimming_keeps_the_window_with_the_question_words_and_narrows_the_span():
    filler = "The board has many pins and a USB port for power and serial output. " * 12
    key = "If the display stays blank, check the I2C address 0x3C first. "
    text = filler + key + filler
    hit = _hit(text)
    [passage] = select_passages([hit], QUESTION, ContextBudget(passage_chars=200), lambda t: len(t) // 4)
    assert "0x3C" in passage.hit.text and len(passage.hit.text) <= 200
    start, end = passage.hit.span
    assert text[start - 100:end - 100] == passage.hit.text  # the span points at exactly what was sent
    a, b = trim_to_window("short text", QUESTION, 200)
    assert (a, b) == (0, len("short text"))


def test_token_budget_limits_the_passages_sent():
    hits = [_hit(f"Passage {i} about the blank display and its I2C address. " * 3, start=i * 1000) for i in range(6)]
    passages = select_passages(hits, QUESTION, ContextBudget(max_passages=6, source_tokens=90),
                               lambda t: len(t) // 4)
    assert 1 <= len(passages) < 6
    assert sum(len(p.hit.text) // 4 for p in passages) <= 90
    assert [p.n for p in passages] == list(range(1, len(passages) + 1))


def test_unsupported_sentences_are_removed_and_supported_ones_kept():
    passage = Passage(1, _hit("If the display stays blank, check the I2C address 0x3C of the module."))
    assert check_sentence("Check the I2C address 0x3C of the module [1].", [passage]).ok
    verdict = check_sentence("Penguins migrate across frozen oceans every winter [1].", [passage])
    assert not verdict.ok and verdict.reason == "support"


def test_prompt_is_fitted_to_a_small_context_window(bundle, fake_embedder):
    llm = FakeChatModel("If the display stays blank, check the I2C address 0x3C [1].")
    llm.n_ctx = 330
    assistant = Assistant(Retriever(bundle, fake_embedder), llm,
                          ContextBudget(max_passages=6, source_tokens=2000, answer_tokens=100))
    answer = assistant.answer(QUESTION)
    assert llm.prompt_tokens(llm.calls[0]) <= llm.n_ctx - 100
    assert answer.passages and answer.state in ("answered", "extractive")
    # A question the model's window cannot hold still gets the evidence; the model is not asked.
    calls = len(llm.calls)
    long = assistant.answer("Which I2C address is blank? " + "really " * 200)
    assert long.state == "extractive" and long.citations and len(llm.calls) == calls


def test_numbering_follows_rank_not_file_order(course, tmp_path):
    # The same guides under names that sort the other way round give the same cited content as [1].
    results = []
    for name in ("a-oled.md", "z-oled.md"):
        (course / "lessons" / "oled.md").rename(course / "lessons" / name) if (course / "lessons" / "oled.md").exists() \
            else next((course / "lessons").glob("*-oled.md")).rename(course / "lessons" / name)
        out = tmp_path / f"{name}.sqlite"
        build_bundle(course, out, FakeEmbedder())
        reader = BundleReader(out)
        answer = Assistant(Retriever(reader, FakeEmbedder()), FakeChatModel(
            "Run the scanner sketch to find the I2C address of a blank display [1].")).answer(QUESTION)
        assert answer.state == "answered"
        results.append((answer.citations[0].n, answer.citations[0].hit.anchor, answer.citations[0].hit.text))
        assert answer.citations[0].hit.source == f"lessons/{name}"
        reader.close()
    assert results[0] == results[1]


def test_a_missing_chat_model_gives_search_only(capsys, bundle_path, tmp_path, monkeypatch):
    # The bundle was built with the fake embedder, so retrieval is keyword-only too: both states are named.
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(tmp_path / "config"))
    code = main(["ask", "--bundle", str(bundle_path), "--json", "--model", str(tmp_path / "gone.gguf"),
                 "--keyword-only", QUESTION])
    captured = capsys.readouterr()
    assert code == 0
    doc = json.loads(captured.out)
    assert doc["degraded"] == ["keyword-only", "search-only"]
    assert doc["state"] == "extractive" and doc["citations"]
    assert "gone.gguf is missing" in captured.err


def test_extractive_answer_quotes_only_passages_near_the_best():
    from dataclasses import replace

    from app.answer.extractive import extractive_answer

    best = _hit("If the display stays blank, check the I2C address 0x3C first.")
    close = _moved(_hit("A blank display can also mean the I2C wiring is loose."), "other.md", 0.9)
    weak = _moved(_hit("The blank display guide mentions the I2C bus once."), "third.md", 0.3)
    same_guide_weak = replace(_hit("Blank display: run the I2C scanner sketch."), score=0.2)
    text, cited = extractive_answer(QUESTION, [Passage(1, best), Passage(2, close), Passage(3, weak)])
    assert [p.n for p in cited] == [1, 2] and "[3]" not in text
    _, cited = extractive_answer(QUESTION, [Passage(1, best), Passage(2, weak), Passage(3, same_guide_weak)])
    assert [p.n for p in cited] == [1, 3]


def test_a_trimmed_window_never_starts_inside_a_code_block():
    from app.answer.extractive import extractive_answer

    code = "```sh\n" + "".join(f"az iot hub create --name hub{i} --sku F1 --partition-count 2\n" for i in range(6)) + "```\n"
    prose = "The --sku F1 option tells it to use a free tier, which allows 8,000 messages a day.\n"
    text = "Create the hub with this command:\n\n" + code + prose + "Then wait for it to finish.\n"
    question = "What does the --sku F1 option mean?"
    start, end = trim_to_window(text, question, 200)
    window = text[start:end]
    before = text[:start]
    assert before.count("```") % 2 == 0, window  # not opened inside a fence
    assert "free tier" in window
    answer, _ = extractive_answer(question, [Passage(1, _hit(window))])
    assert "free tier" in answer and "partition-count" not in answer  # prose quoted, code not


def test_a_follow_ups_sentences_answer_the_follow_up_not_the_previous_turn():
    from app.answer.extractive import extractive_answer

    text = ("Connect the soil moisture sensor (part 101020008) to the soil moisture socket with a Grove cable. "
            "With the Pi powered off, plug the other end into the analog socket marked A0 on the Pi.")
    previous = "Which sensor measures soil moisture?"
    question = "Which socket does it plug into on the Pi?"
    answer, _ = extractive_answer(question, [Passage(1, _hit(text))], per_passage=1, context=previous)
    assert "A0" in answer
    # As one text with the previous turn, the soil-moisture sentence wins.
    one_text, _ = extractive_answer(f"{previous}\n{question}", [Passage(1, _hit(text))], per_passage=1)
    assert "A0" not in one_text
