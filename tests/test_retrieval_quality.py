"""Retrieval-quality floors on real courses with the real embedding model (marked ``real``).

The floors sit a few points below what the retriever reaches (docs/retrieval.md), so a
regression in tokenization, scoring, fusion or the gate fails CI. Latency stays in the
benchmarks, not here. Building the IoT bundle takes 3-4 minutes; set
``LANTERN_TEST_IOT_BUNDLE`` to a bundle already built from ../shared/corpora/iot-for-beginners
with this code to skip the build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.bundle.reader import BundleReader
from app.cli import main
from app.evaluation.questions import load_questions
from app.evaluation.report import build_report
from app.evaluation.runner import run_questions
from app.retrieval.retriever import DEFAULT_FUSION, Retriever

from .conftest import ROOT, shared_dir

pytestmark = pytest.mark.real


def _embedder():
    from app.config import load_manifest, models_dir
    from app.embedding import FastEmbedder

    missing = [f["path"] for f in load_manifest()["files"] if not (models_dir() / f["path"]).is_file()]
    if missing:
        pytest.skip(f"model files missing ({', '.join(missing)}); run `make models`")
    return FastEmbedder()


def _report(bundle_path: Path, questions: Path, embedder) -> dict:
    bundle = BundleReader(bundle_path)
    try:
        retriever = Retriever(bundle, embedder)
        results = run_questions(retriever, load_questions(questions))
        return build_report(results, bundle=str(bundle_path), questions=str(questions),
                            corpus_version=bundle.corpus_version, fusion=DEFAULT_FUSION, degraded=(),
                            threshold=retriever.settings.min_similarity)
    finally:
        bundle.close()


@pytest.fixture(scope="module")
def embedder():
    return _embedder()


@pytest.fixture(scope="module")
def iot_report(iot_bundle_path, embedder) -> dict:
    return _report(iot_bundle_path, shared_dir() / "corpora" / "iot-for-beginners.eval.jsonl", embedder)


@pytest.fixture(scope="module")
def demo_bundle_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo-quality") / "esp32.sqlite"
    assert main(["build", str(ROOT / "courses" / "esp32-starter"), "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def demo_report(demo_bundle_path, embedder) -> dict:
    return _report(demo_bundle_path, ROOT / "tests" / "data" / "esp32-starter.eval.jsonl", embedder)


def test_iot_ranking_floors(iot_report):
    hybrid = iot_report["ranking"]["hybrid"]["source"]
    overall, by_class = hybrid["overall"], hybrid["by_class"]
    assert overall["n"] == 46
    assert overall["hit@6"] >= 0.95, overall        # reached 0.978 (45/46)
    assert overall["mrr@10"] >= 0.86, overall       # reached 0.885
    assert overall["hit@sent"] >= 0.93, overall     # reached 0.957
    assert by_class["identifier"]["hit@1"] >= 0.90  # reached 1.0 (12/12); target 0.90
    assert by_class["paraphrase"]["hit@6"] >= 0.86  # reached 0.933 (14/15)
    assert by_class["follow-up"]["hit@6"] >= 0.83   # reached 1.0
    assert iot_report["ranking"]["hybrid"]["section"]["overall"]["mrr@10"] >= 0.78  # reached 0.815


def test_iot_hybrid_beats_each_leg_on_mrr(iot_report):
    mrr = {mode: data["source"]["overall"]["mrr@10"] for mode, data in iot_report["ranking"].items()}
    assert mrr["hybrid"] > mrr["lexical"] and mrr["hybrid"] > mrr["semantic"], mrr


def test_iot_evidence_gate(iot_report):
    gate = iot_report["gate"]["by_expect"]
    assert gate["not-covered"]["declined"] >= 5, gate  # reached 6 of 6
    assert gate["answer"]["declined"] <= 1, gate       # reached 0 of 46


def test_demo_course_floors(demo_report):
    overall = demo_report["ranking"]["hybrid"]["source"]["overall"]
    assert overall["hit@6"] >= 0.95 and overall["mrr@10"] >= 0.90, overall  # reached 1.0 and 1.0
    gate = demo_report["gate"]["by_expect"]
    assert gate["not-covered"]["declined"] >= 2 and gate["answer"]["declined"] <= 1, gate  # reached 3/3 and 0


def test_demo_follow_ups_on_a_new_topic_find_the_new_topic(demo_report):
    # 8 follow-ups, 4 of them changing the topic (esp-027..030): retrieved as one text with the
    # previous turn, the resistor question after an MQTT one ranked its lesson 9th (MRR 0.889).
    follow = demo_report["ranking"]["hybrid"]["source"]["by_class"]["follow-up"]
    assert follow["n"] == 8 and follow["mrr@10"] >= 0.95, follow  # reached 1.0
    ranks = {p["id"]: p["rank"]["hybrid"] for p in demo_report["per_question"] if "rank" in p}
    assert all(ranks[i] == 1 for i in ("esp-027", "esp-028", "esp-029", "esp-030")), ranks


def test_screening_on_the_held_out_set(demo_bundle_path, embedder):
    """tests/data/guard-heldout.eval.jsonl was written after the guard's patterns and is not tuned
    on: 12 off-topic, 7 injection (one soft, to be answered) and 11 course questions, several
    using words the patterns look for ("recipe", "ignore", "print", "pretend"). Search-only."""
    from app.answer.answerer import Assistant
    from app.evaluation.answers import run_answers

    bundle = BundleReader(demo_bundle_path)
    try:
        doc = run_answers(Assistant(Retriever(bundle, embedder), None),
                          load_questions(ROOT / "tests" / "data" / "guard-heldout.eval.jsonl"))
    finally:
        bundle.close()
    behaviour = doc["behaviour"]
    assert behaviour["decline"]["correct"] >= 14, behaviour  # reached 15/18: 3 injections got extractive
    assert behaviour["answer"]["correct"] >= 10, behaviour   # reached 11/12 ("recipe" is declined)
    assert doc["citation_validity"]["resolved"] == doc["citation_validity"]["citations"]
