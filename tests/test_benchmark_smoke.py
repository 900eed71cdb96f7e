"""The fuzz and soak benchmarks run and report what they promise, on the tiny fake course (fast).

Only that they work is tested: their figures come from runs with the real embedding model on a real
course (docs/security.md); timings and memory are never asserted here.
"""

from __future__ import annotations

import json
import sys

import pytest

from .conftest import ROOT
from .fakes import FakeEmbedder


@pytest.fixture()
def benchmarks():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import fuzz
        import soak
        yield fuzz, soak
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_fuzz_benchmark_counts_every_outcome_and_reports_memory(benchmarks, bundle_path, capsys):
    fuzz, _ = benchmarks
    assert fuzz.main([str(bundle_path), "--questions", "30", "--seed", "3", "--json"], embedder=FakeEmbedder()) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["questions"] == 30 and sum(report["kinds"].values()) == 30
    for stage in ("search", "answer", "guides"):  # every question reached every entry point once
        assert sum(report["outcomes"][stage].values()) == 30
    assert report["unexpected"] == 0 and report["examples"] == []
    assert 0 < report["rss_mb_start"] <= report["rss_mb_peak"] and report["rss_mb_end"] > 0
    # The same seed gives the same questions.
    rng_a, rng_b = fuzz.random.Random(3), fuzz.random.Random(3)
    assert [fuzz.make_question(rng_a, ["OLED"], []) for _ in range(5)] == \
        [fuzz.make_question(rng_b, ["OLED"], []) for _ in range(5)]
    assert fuzz.main([str(bundle_path), "--questions", "6"], embedder=FakeEmbedder()) == 0
    table = capsys.readouterr().out
    assert "unexpected exceptions: 0" in table and "RSS MB: start" in table


def test_fuzz_benchmark_reports_an_unexpected_exception_and_exits_1(benchmarks, bundle_path, capsys, monkeypatch):
    fuzz, _ = benchmarks

    def broken(self, text, limit=30):
        raise KeyError("boom")

    monkeypatch.setattr(fuzz.BundleReader, "search_guides", broken)
    assert fuzz.main([str(bundle_path), "--questions", "4", "--json"], embedder=FakeEmbedder()) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["outcomes"]["guides"] == {"unexpected KeyError": 4} and report["unexpected"] == 4
    assert report["examples"][0]["stage"] == "guides" and "KeyError" in report["examples"][0]["error"]


def test_soak_benchmark_reports_rss_at_start_every_block_and_end(benchmarks, bundle_path, capsys, tmp_path):
    _, soak = benchmarks
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "My OLED display stays blank, which I2C address?"}) + "\n"
                         + json.dumps({"question": "How do I blink the LED?"}) + "\n", encoding="utf-8")
    assert soak.main([str(bundle_path), "--questions", "9", "--every", "4", "--questions-file", str(questions),
                      "--json"], embedder=FakeEmbedder()) == 0
    report = json.loads(capsys.readouterr().out)
    assert [m["after"] for m in report["marks"]] == [0, 4, 8, 9]
    assert sum(sum(m["states"].values()) for m in report["marks"]) == 9
    assert all(m["rss_mb"] > 0 for m in report["marks"])
    warm = report["marks"][1]["rss_mb"]
    assert report["drift_after_warmup"] == pytest.approx((report["marks"][-1]["rss_mb"] - warm) / warm)
    assert soak.main([str(bundle_path), "--questions", "3", "--every", "2"], embedder=FakeEmbedder()) == 0
    assert "drift after warm-up" in capsys.readouterr().out


def test_fusion_comparison_uses_the_weights_the_app_uses_for_the_course_s_language(tmp_path, capsys):
    """A French course's weighted fusion reads the ``other_language_*`` pair: the table's default row is
    that pair, and every swept row measures the weights its name says (issue 27)."""
    from app.bundle.builder import build_bundle
    from app.retrieval.settings import OTHER_LANGUAGE_WEIGHTS, WEIGHTS, RetrievalSettings

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import fusion_compare
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    french = f"weighted {OTHER_LANGUAGE_WEIGHTS['semantic']:g}/{OTHER_LANGUAGE_WEIGHTS['lexical']:g}"
    for stemmer in ("french", "english"):
        for name, fusion, overrides in fusion_compare.settings_for(stemmer):
            if fusion == "weighted" and "," not in name:  # a swept pair: the retriever reads what the name says
                sem, lex = RetrievalSettings(**overrides).leg_weights(stemmer)
                assert name == f"weighted {sem:g}/{lex:g}", (stemmer, name)
    assert [n for n, _f, _o in fusion_compare.settings_for("french")][-5:] == [
        f"{french}, adaptive off", f"{french}, crowding off", f"{french}, both off", f"{french}, 1 chunk per guide",
        f"{french}, 3 chunks per guide"]
    assert fusion_compare.SETTINGS[1][0] == f"weighted {WEIGHTS['semantic']:g}/{WEIGHTS['lexical']:g}"
    course = tmp_path / "cours"
    course.mkdir()
    (course / "supprimer.md").write_text("# Effacer\n\nLa commande rm -r supprime un répertoire et son contenu.\n",
                                         encoding="utf-8")
    (course / "corbeille.md").write_text("# La corbeille\n\nUn fichier effacé est perdu pour de bon.\n",
                                         encoding="utf-8")
    bundle = tmp_path / "cours.sqlite"
    build_bundle(course, bundle, FakeEmbedder(), language="fr")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "Comment supprimer un répertoire ?", "class": "how",
                                     "expect": "answer", "expected_sources": ["supprimer.md"],
                                     "expected_section": None, "must_contain_any": ["rm -r"]}) + "\n", encoding="utf-8")
    assert fusion_compare.main([str(bundle), str(questions)], embedder=FakeEmbedder()) == 0
    out = capsys.readouterr().out
    assert "cut with the french stemmer" in out and f"| {french} |" in out and f"| {french}, adaptive off |" in out
