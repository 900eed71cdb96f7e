"""The evaluation harness: metrics, question files, the report and ``lantern eval`` on the fake bundle."""

import json
import math
from pathlib import Path

import pytest

from app.cli import main
from app.evaluation import metrics
from app.evaluation.questions import QuestionFileError, load_questions

ROOT = Path(__file__).resolve().parent.parent


def test_hit_at_k_and_reciprocal_rank():
    ranked = [False, False, True, False]
    assert metrics.hit_at_k(ranked, 2) == 0.0 and metrics.hit_at_k(ranked, 3) == 1.0
    assert metrics.reciprocal_rank(ranked) == pytest.approx(1 / 3)
    assert metrics.reciprocal_rank(ranked, k=2) == 0.0
    assert metrics.first_relevant_rank([False, False]) is None


def test_ndcg_matches_the_formula():
    # One relevant item at rank 2: DCG = 1/log2(3), IDCG = 1.
    assert metrics.ndcg_at_k([0, 1, 0], 10, 1) == pytest.approx(1 / math.log2(3))
    # Two relevant items, both found at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2(3)).
    assert metrics.ndcg_at_k([1, 0, 1], 10, 2) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert metrics.ndcg_at_k([1, 1], 10, 0) == 0.0
    with pytest.raises(ValueError):
        metrics.ndcg_at_k([1], 0, 1)


def test_each_expected_source_gains_once_so_ndcg_stays_at_most_one():
    gains = metrics.novel_source_gains(["a.md", "a.md", "b.md", "c.md"], ["a.md", "c.md"])
    assert gains == [1.0, 0.0, 0.0, 1.0]
    assert metrics.ndcg_at_k(gains, 10, 2) <= 1.0


def test_section_matching_ignores_case_and_runs_of_spaces():
    path = "Lesson 4: OLED › Troubleshooting:   the display stays blank › Wrong I2C address"
    assert metrics.section_matches(path, "troubleshooting: the display  stays blank")
    assert metrics.section_matches(path, "WRONG I2C ADDRESS")
    assert not metrics.section_matches(path, "Troubleshooting")  # equality, not containment
    relevant = metrics.section_relevance(["x.md", "y.md"], [path, path], ["y.md"], "wrong i2c address")
    assert relevant == [False, True]


def test_percentile_and_precision_recall():
    assert metrics.percentile([1, 2, 3, 4], 50) == 2.5
    assert metrics.percentile([10.0], 95) == 10.0
    assert math.isnan(metrics.percentile([], 50))
    p, r = metrics.precision_recall([True, True, False, False], [True, False, True, False])
    assert (p, r) == (0.5, 0.5)


def _write(tmp_path: Path, rows: list) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


GOOD = {"id": "q1", "question": "Why is the display blank?", "class": "paraphrase", "expect": "answer",
        "expected_sources": ["lessons/oled.md"], "expected_section": "Blank display", "must_contain_any": ["0x3C"]}


def test_load_questions_reads_the_shared_format(tmp_path):
    follow = dict(GOOD, id="q2", history=[{"role": "user", "content": "OLED?"}], expected_section=None)
    questions = load_questions(_write(tmp_path, [GOOD, "", follow]))
    assert [q.id for q in questions] == ["q1", "q2"]
    assert questions[1].history == ({"role": "user", "content": "OLED?"},)
    assert questions[0].expected_sources == ("lessons/oled.md",) and questions[1].expected_section is None
    assert len(load_questions(ROOT / "tests" / "data" / "esp32-starter.eval.jsonl")) >= 20


@pytest.mark.parametrize("bad, message", [
    ("{not json", "line 1 is not valid JSON"),
    ('["a list"]', "not an object"),
    (dict(GOOD, id=""), "`id` must be a non-empty string"),
    (dict(GOOD, expect="maybe"), "`expect` is 'maybe'"),
    (dict(GOOD, expected_sources=[]), "needs at least one expected source"),
    (dict(GOOD, expected_sources=["lessons\\oled.md"]), "/ separators"),
    (dict(GOOD, history=[{"role": "system", "content": "x"}]),
     "`history` must be a list of {\"role\": \"user\"|\"assistant\", \"content\": \"...\"} turns."),
    (dict(GOOD, must_contain_any="0x3C"), "`must_contain_any` must be a list"),
])
def test_bad_question_lines_are_named_with_their_line(tmp_path, bad, message):
    with pytest.raises(QuestionFileError) as err:
        load_questions(_write(tmp_path, [bad]))
    assert message in str(err.value) and "q.jsonl" in str(err.value)


def test_repeated_ids_and_empty_files_are_refused(tmp_path):
    with pytest.raises(QuestionFileError, match="line 2 repeats the id 'q1'"):
        load_questions(_write(tmp_path, [GOOD, GOOD]))
    with pytest.raises(QuestionFileError, match="holds no questions"):
        load_questions(_write(tmp_path, [""]))
    with pytest.raises(QuestionFileError, match="cannot be read"):
        load_questions(tmp_path / "missing.jsonl")


QUESTIONS = [
    GOOD,
    {"id": "q2", "question": "How do I blink the LED with digitalWrite?", "class": "identifier", "expect": "answer",
     "expected_sources": ["lessons/blink.md"], "expected_section": "Lesson 1: Blink", "must_contain_any": []},
    {"id": "q3", "question": "Which pin is it on?", "class": "follow-up", "expect": "answer",
     "expected_sources": ["lessons/blink.md"], "expected_section": None, "must_contain_any": [],
     "history": [{"role": "user", "content": "How do I blink the onboard LED?"}]},
    {"id": "q4", "question": "How do I configure Modbus on a PLC?", "class": "not-covered", "expect": "not-covered",
     "expected_sources": [], "expected_section": None, "must_contain_any": []},
]


def test_eval_json_report_on_the_fake_bundle(capsys, bundle_path, tmp_path):
    questions = _write(tmp_path, QUESTIONS)
    assert main(["eval", "--bundle", str(bundle_path), str(questions), "--json", "--keyword-only"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"] == {"total": 4, "answer": 3, "not-covered": 1, "decline": 0}
    assert set(doc["ranking"]) == {"hybrid", "lexical"}  # no semantic leg without an embedder
    overall = doc["ranking"]["hybrid"]["source"]["overall"]
    assert overall["n"] == 3 and overall["hit@6"] == 1.0 and 0 < overall["mrr@10"] <= 1
    assert set(doc["ranking"]["hybrid"]["source"]["by_class"]) == {"paraphrase", "identifier", "follow-up"}
    assert doc["ranking"]["hybrid"]["section"]["overall"]["n"] == 2
    assert doc["gate"]["by_expect"]["not-covered"] == {"n": 1, "declined": 1}  # Modbus and PLC are unknown names
    assert "total" in doc["latency_ms"] and doc["latency_ms"]["lexical"]["p95"] >= 0
    per = {p["id"]: p for p in doc["per_question"]}
    assert per["q1"]["rank"]["hybrid"] == 1 and per["q4"]["unknown_names"] == ["Modbus", "PLC"]
    documented = (ROOT / "docs" / "eval.md").read_text(encoding="utf-8")
    for key in doc:
        assert f"`{key}`" in documented, f"docs/eval.md does not document `{key}`"


def test_eval_table_and_bad_file_errors(capsys, bundle_path, tmp_path):
    assert main(["eval", "--bundle", str(bundle_path), str(_write(tmp_path, QUESTIONS)), "--keyword-only"]) == 0
    out = capsys.readouterr().out
    assert "Ranking by expected source" in out and "hybrid   all" in out and "Evidence gate" in out
    bad = _write(tmp_path, [GOOD, dict(GOOD, id="q9", expect="perhaps")])
    assert main(["eval", "--bundle", str(bundle_path), str(bad), "--keyword-only"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "line 2" in err and "Traceback" not in err


def test_expected_phrase_is_found_through_markdown_and_citation_marks():
    from app.evaluation.answers import contains_phrase

    assert contains_phrase("The **free  tier** allows [1] it.", ["Free tier"]) is True
    assert contains_phrase("Open [the broker page](https://x.test) now [2]", ["the broker page now"]) is True
    assert contains_phrase("Use `GroveLightSensor(0)`.", ["GroveLightSensor(0)"]) is True
    assert contains_phrase("Nothing relevant here.", ["free tier", "0x3C"]) is False
    assert contains_phrase("Anything", []) is None


def test_answer_checks_count_expected_phrases_in_the_answer_and_the_passages(bundle):
    from app.answer.answerer import Assistant
    from app.evaluation.answers import format_answers, run_answers
    from app.retrieval.retriever import Retriever

    questions = [q for q in _questions_from(QUESTIONS) if q.id in ("q1", "q4")]
    missing = dict(GOOD, id="q5", must_contain_any=["a phrase the course never says"])
    doc = run_answers(Assistant(Retriever(bundle, None), None), questions + _questions_from([missing]))
    per = {r["id"]: r for r in doc["questions"]}
    assert per["q1"]["state"] == "extractive" and per["q1"]["phrase_in_answer"] is True  # quotes "0x3C"
    assert per["q1"]["phrase_in_passages"] is True
    assert per["q5"]["phrase_in_answer"] is False and per["q5"]["phrase_in_passages"] is False
    assert per["q4"]["phrase_in_answer"] is None  # not-covered: no phrases to find
    assert doc["expected_phrase"] == {"n": 2, "in_answer": 1, "in_passages": 1}
    assert "expected phrase       in the answer 1/2, in the passages sent 1/2" in format_answers(doc)


def _questions_from(rows: list[dict]):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return load_questions(_write(Path(tmp), rows))


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "tests" / "data").glob("*.eval.jsonl")))
def test_every_question_set_we_ship_loads_with_unique_ids_and_labelled_answers(name):
    questions = load_questions(ROOT / "tests" / "data" / name)
    assert len({q.id for q in questions}) == len(questions) >= 10  # ids unique
    answerable = [q for q in questions if q.expect == "answer"]
    assert all(q.must_contain_any or q.expected_sources for q in answerable)
