"""One way to build the assistant (app/assistant.py), used by `lantern ask`, `eval`, the window's
worker and --self-test: `lantern ask` end to end on the fake models, and the settings' threads."""

from __future__ import annotations

import json
import os
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the worker test's QApplication needs no display

import pytest

import app.assistant
from app.assistant import LOAD, NO_CHAT_MODEL, NO_EMBEDDER, build_assistant
from app.cli import main
from app.config import Settings
from app.errors import ModelError
from app.records import Answer

from .fakes import FakeChatModel, FakeEmbedder

QUESTION = "My OLED display stays blank, what should I check?"
REPLY = "Run the scanner sketch to find the I2C address of a blank display [1]."  # passes every check


@pytest.fixture()
def fake_models(monkeypatch):
    """The real loaders replaced by fakes; records the chat model's path and threads."""
    loaded: dict = {}

    def chat_model(path, threads):
        loaded.update(path=path, threads=threads)
        return FakeChatModel(REPLY)

    monkeypatch.setattr(app.assistant, "load_embedder", FakeEmbedder)
    monkeypatch.setattr(app.assistant, "load_chat_model", chat_model)
    return loaded


def test_lantern_ask_runs_end_to_end_on_the_fake_chat_model(capsys, bundle_path, fake_models):
    Settings(threads=3).save()
    assert main(["ask", "--bundle", str(bundle_path), QUESTION]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("From the guides:") and "0x3C" in out and "Sources:" in out
    assert "In short (each sentence checked against the passage it cites):\n" \
           f"{REPLY}\n" in out
    assert fake_models == {"path": None, "threads": 3}

    assert main(["ask", "--bundle", str(bundle_path), "--json", QUESTION]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["state"] == "answered" and doc["model"] == FakeChatModel.name and doc["degraded"] == []


def test_lantern_ask_without_models_warns_and_runs_degraded(capsys, bundle_path, monkeypatch):
    def missing(*args):
        raise ModelError("The model file is missing.")

    monkeypatch.setattr(app.assistant, "load_embedder", missing)
    monkeypatch.setattr(app.assistant, "load_chat_model", missing)
    assert main(["ask", "--bundle", str(bundle_path), QUESTION]) == 0
    out, err = capsys.readouterr()
    assert err == ("warning: The model file is missing. Searching by keywords only.\n"
                   "warning: The model file is missing. Showing the best passages instead (search-only).\n")
    assert "(keyword-only, search-only)" in out


def test_build_assistant_takes_fakes_and_reports_or_raises(bundle, monkeypatch):
    assistant = build_assistant(bundle, embedder=FakeEmbedder(), chat_model=FakeChatModel())
    assert assistant.degraded == () and assistant.model_name == FakeChatModel.name
    assert build_assistant(bundle, embedder=None, chat_model=None).degraded == ("keyword-only", "search-only")

    def missing(*args):
        raise ModelError("No model.")

    monkeypatch.setattr(app.assistant, "load_chat_model", missing)
    with pytest.raises(ModelError):  # no warn: the self-test's way
        build_assistant(bundle, embedder=FakeEmbedder(), chat_model=LOAD)
    warned: list = []
    assistant = build_assistant(bundle, embedder=FakeEmbedder(), warn=lambda *w: warned.append(w))
    assert assistant.llm is None and warned == [(NO_CHAT_MODEL, "No model.")]
    monkeypatch.setattr(app.assistant, "load_embedder", missing)
    warned.clear()
    build_assistant(bundle, chat_model=None, warn=lambda *w: warned.append(w))
    assert warned == [(NO_EMBEDDER, "No model.")]


def test_the_self_test_uses_the_settings_threads(bundle_path, fake_models):
    from app.selftest import run_self_test

    Settings(threads=2).save()
    report = run_self_test(bundle_path, embedder=FakeEmbedder(), cpu_features=())
    assert report.chat_model == FakeChatModel.name and fake_models["threads"] == 2


def test_the_worker_says_ready_with_a_status_record_not_the_assistant(qtbot, bundle):
    from app.gui.workers import AssistantWorker, LoadedStatus

    worker = AssistantWorker(lambda: build_assistant(bundle, embedder=None, chat_model=FakeChatModel()))
    with qtbot.waitSignal(worker.ready, timeout=2000) as ready:
        worker.load()
    assert ready.args == [LoadedStatus(FakeChatModel.name, ("keyword-only",), "the embedding model is not available")]


def test_ask_lists_a_passage_a_checked_sentence_cites_that_the_quotes_did_not(capsys, bundle_path, fake_models,
                                                                             monkeypatch):
    # The model reads more passages than the quotes show; a checked sentence citing one of those
    # must not point at a number the terminal never listed.
    from app.answer.answerer import Assistant
    from app.records import Hit, Passage

    def passage(n: int, heading: str) -> Passage:
        return Passage(n, Hit.make(chunk_id=n, key=f"g.md#{n}", source="lessons/g.md", heading=heading, anchor=str(n),
                                   span=(0, 10), text="Some text.", score=1.0))

    quoted, extra = passage(1, "Guide › Wiring"), passage(3, "Guide › Blink")

    def answer(self, question, history=None, *, on_evidence=None, on_sentence=None, should_stop=None):
        evidence = Answer(state="extractive", text="From the guides:\n\nWire it. [1]", passages=(quoted, extra),
                          citations=(quoted,), corpus_version="v", model="fake", degraded=())
        on_evidence(evidence)
        on_sentence("The LED needs a resistor [3].")
        return replace(evidence, state="answered", citations=(extra, quoted))

    monkeypatch.setattr(Assistant, "answer", answer)
    assert main(["ask", "--bundle", str(bundle_path), QUESTION]) == 0
    out = capsys.readouterr().out
    # numbered as printed: the quote's [1] stays 1, the sentence's [3] becomes 2 (issue 23)
    assert out.index("The LED needs a resistor [2].") < \
        out.index("Sources:\n  [1] lessons/g.md › Guide › Wiring\n  [2] lessons/g.md › Guide › Blink")
    assert out.count("[1] lessons/g.md") == 1  # listed once


def test_ask_prints_the_answer_then_the_checked_sentences_then_sources_numbered_without_gaps(
        capsys, bundle_path, fake_models, monkeypatch):
    # Issue 23: the checked sentence came after the Sources list, and the quotes' numbers skipped
    # the passages they did not quote ([1][2][3][5][6]).
    from app.answer.answerer import Assistant
    from app.records import Hit, Passage

    passages = tuple(Passage(n, Hit.make(chunk_id=n, key=f"g.md#{n}", source="lessons/g.md", heading=f"Guide › S{n}",
                                         anchor=str(n), span=(0, 10), text="Some text.", score=1.0)) for n in range(1, 7))
    by_n = {p.n: p for p in passages}

    def answer(self, question, history=None, *, on_evidence=None, on_sentence=None, should_stop=None):
        evidence = Answer(state="extractive", text="From the guides:\n\nA [1]. B [2]. C [3]. E [5].\n\n`items[4]` F [6].",
                          passages=passages, citations=tuple(by_n[n] for n in (1, 2, 3, 5, 6)), corpus_version="v",
                          model="fake", degraded=())
        on_evidence(evidence)
        on_sentence("Use E [5, 4].")
        return replace(evidence, state="answered", citations=tuple(by_n[n] for n in (5, 4, 1, 2, 3, 6)))

    monkeypatch.setattr(Assistant, "answer", answer)
    assert main(["ask", "--bundle", str(bundle_path), QUESTION]) == 0
    out = capsys.readouterr().out
    assert out == ("From the guides:\n\nA [1]. B [2]. C [3]. E [4].\n\n`items[4]` F [5].\n"
                   "\nIn short (each sentence checked against the passage it cites):\nUse E [4, 6].\n"
                   "\nSources:\n" + "".join(f"  [{i}] lessons/g.md › Guide › S{n}\n"
                                             for i, n in enumerate((1, 2, 3, 5, 6, 4), 1)))
