import math
import re
from dataclasses import replace

import numpy as np
import pytest

from app.bundle.schema import quote_fts
from app.ranking import top_k
from app.retrieval.fusion import reciprocal_rank_fusion
from app.retrieval.identifiers import extract_identifiers
from app.retrieval.retriever import KEYWORD_ONLY, RetrievalSettings, Retriever
from app.retrieval.settings import CROWDING_FACTOR, PER_SOURCE
from app.text.lexical import LexicalIndex, build_index
from app.text.tokenize import query_words

from .fakes import CountingEmbedder, FakeEmbedder


def test_best_variant_per_word_counts_a_hyphenated_word_once():
    # Doc 1 holds every variant of "wi-fi"; doc 2 holds "wi-fi" and "router". A query for
    # "wi-fi router" must prefer doc 2, which matches both written words.
    index = LexicalIndex(build_index(["wi-fi wifi wi fi setup", "wi-fi router setup", "unrelated text here"]))
    scores = index.scores("wi-fi router")
    assert scores[1] > scores[0] > 0
    assert query_words("wi-fi")[0] == ("wi-fi", "wifi", "wi", "fi")


def test_idf_is_higher_for_rarer_words_and_highest_for_words_the_course_never_uses():
    index = LexicalIndex(build_index(["alpha beta", "alpha gamma", "alpha delta", "zeta"]))
    common, rare, unseen = (index.idf(query_words(w)[0]) for w in ("alpha", "beta", "omega"))
    assert 0 < common < rare < unseen
    assert index.document_frequency("alpha") == 3 and index.document_frequency("omega") == 0
    # BM25's IDF, Lucene form: ln(1 + (N - df + 0.5) / (df + 0.5)) with N = 4 chunks
    assert rare == pytest.approx(math.log(1 + 3.5 / 1.5))


def test_coverage_scaling_keeps_full_score_only_for_full_coverage():
    index = LexicalIndex(build_index(["alpha beta gamma", "alpha", "delta epsilon"]))
    full = index.scores("alpha beta gamma")
    single = index.scores("alpha")
    # Doc 1 matches one word of three: its score is scaled by 0.5 + 0.5/3 = 2/3 of its raw value.
    raw_alpha_doc1 = single[1]
    assert full[1] == pytest.approx(raw_alpha_doc1 * (0.5 + 0.5 / 3), rel=1e-5)
    assert full[0] > full[1]


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1, 4]])
    ids = [i for i, _ in fused]
    assert ids[0] == 1 and ids[1] == 3
    assert dict(fused)[1] == pytest.approx(1 / 61 + 1 / 62)


def test_identifiers_are_found_in_questions():
    found = extract_identifiers("Why does `pinMode(D0, OUTPUT);` fail on GPIO26 with --sku F1 and searchBuffer?")
    assert "pinMode(D0, OUTPUT);" in found
    assert "GPIO26" in found and "--sku" in found and "searchBuffer" in found
    assert extract_identifiers("What is IoT and WiFi?") == []


def test_quote_fts_doubles_quotes():
    assert quote_fts('say "hi"') == '"say ""hi"""'


@pytest.mark.parametrize("text, found", [('C++', False), ('AND', True), ('"', False), ('-v', False),
                                         ('NEAR(a b)', False), ('x OR y*', False), ("it's", False),
                                         ('display.display()', True), ('SDA to GPIO', True)])
def test_user_text_is_searched_as_a_phrase_never_as_fts5_syntax(bundle, text, found):
    # Unquoted, "AND"/"OR"/"NEAR(" are operators and '"', "C++", "-v" syntax errors (apsw.SQLError);
    # quoted, each is a phrase of its words ("AND" is the word "and" of the wiring sentence).
    ids = bundle.fts_phrase(text, 5)
    assert bool(ids) == found, ids
    if found:
        words = [w for w in re.findall(r"\w+", text.lower())]
        assert all(" ".join(words) in " ".join(re.findall(r"\w+", row.text.lower()))
                   for row in bundle.chunks(ids).values())


def test_search_finds_the_section_and_exact_identifier(bundle, fake_embedder):
    retriever = Retriever(bundle, fake_embedder)
    result = retriever.search("OLED display stays blank, which I2C address?")
    assert result.hits[0].source == "lessons/oled.md"
    assert result.hits[0].anchor == "blank-display"
    assert result.degraded == ()
    exact = retriever.search("what does `display.display()` do")
    assert any(h.exact_match and h.anchor == "blank-display" for h in exact.hits)
    # Best first, except that a guide's chunks beyond the first PER_SOURCE are placed as if they scored
    # CROWDING_FACTOR times their score (soft crowding).
    per_source: dict[str, list[float]] = {}
    for hit in result.hits:
        per_source.setdefault(hit.source, []).append(hit.score)
    assert all(scores == sorted(scores, reverse=True) for scores in per_source.values())
    seen: dict[str, int] = {}
    crowded = []  # is this hit beyond its guide's first PER_SOURCE?
    for hit in result.hits:
        seen[hit.source] = seen.get(hit.source, 0) + 1
        crowded.append(seen[hit.source] > PER_SOURCE)
    assert any(crowded)
    hits = result.hits
    for i in range(len(hits)):
        for j in range(i + 1, len(hits)):
            if crowded[i] and not crowded[j]:
                assert CROWDING_FACTOR * hits[i].score > hits[j].score
            if not crowded[i] and crowded[j]:
                assert hits[i].score >= CROWDING_FACTOR * hits[j].score


def test_follow_up_folds_in_the_previous_user_turn(bundle, fake_embedder):
    retriever = Retriever(bundle, fake_embedder)
    history = [{"role": "user", "content": "How do I blink the onboard LED?"},
               {"role": "assistant", "content": "Use digitalWrite."}]
    alone = retriever.search("which pin is it on?")
    follow = retriever.search("which pin is it on?", history=history)
    assert "blink" in follow.query.lower() and "blink" not in alone.query.lower()
    assert follow.hits[0].source == "lessons/blink.md"


def test_a_follow_up_on_a_new_topic_is_not_outranked_by_the_previous_turn(bundle, fake_embedder, monkeypatch):
    from app.retrieval import followups as followups_module

    previous = ("My OLED display stays blank. Is the I2C address 0x3C or 0x3D? "
                "Should I run the scanner sketch for the display?")
    history = [{"role": "user", "content": previous}, {"role": "assistant", "content": "Check the address."}]
    question = "Which GPIO pin does the onboard LED use?"
    # Taken as a follow-up (the weighting is what is tested here; a question that does not refer
    # back ignores the previous turn altogether: next test).
    monkeypatch.setattr(followups_module, "refers_back", lambda q, *_: True)
    retriever = Retriever(bundle, fake_embedder)
    assert retriever.search(question, history=history).hits[0].source == "lessons/blink.md"
    # Retrieved as one text (the history weighing as much as the question), the OLED turn wins.
    assert retriever.search(f"{previous}\n{question}").hits[0].source == "lessons/oled.md"
    heavy = Retriever(bundle, fake_embedder, settings=replace(RetrievalSettings(), history_weight=1.0))
    assert heavy.search(question, history=history).hits[0].source == "lessons/oled.md"


def test_a_new_self_contained_question_ignores_the_previous_turn(bundle, fake_embedder):
    history = [{"role": "user", "content": "My OLED display stays blank. Which I2C address?"},
               {"role": "assistant", "content": "Check the address 0x3C [1]."}]
    retriever = Retriever(bundle, fake_embedder)
    new = retriever.search("Which GPIO pin does the onboard LED use?", history=history)
    assert "OLED" not in new.query and new.hits[0].source == "lessons/blink.md"
    follow = retriever.search("Which pins does it use?", history=history)
    assert "OLED" in follow.query


def test_the_previous_turn_is_not_embedded_again(bundle):
    embedder = CountingEmbedder()
    retriever = Retriever(bundle, embedder)
    retriever.search("How do I blink the onboard LED?")
    history = [{"role": "user", "content": "How do I blink the onboard LED?"}, {"role": "assistant", "content": "…"}]
    retriever.search("which pin is it on?", history=history)
    assert embedder.texts == ["How do I blink the onboard LED?", "which pin is it on?"]


def test_mismatched_or_missing_embedder_is_keyword_only(bundle):
    class Other(FakeEmbedder):
        model_id = "other/model"
        dim = 32

    for embedder in (None, Other()):
        retriever = Retriever(bundle, embedder)
        assert retriever.degraded == (KEYWORD_ONLY,)
        result = retriever.search("blank display I2C address")
        assert result.degraded == (KEYWORD_ONLY,)
        assert result.hits and result.hits[0].similarity is None
    assert "other/model" in Retriever(bundle, Other()).degraded_reason


def test_lexical_scores_rank_the_chunk_with_more_query_words_first():
    index = LexicalIndex(build_index(["red apple", "green apple pie", "blue sky"]))
    scores = index.scores("apple pie")
    assert scores.shape == (3,) and scores.dtype == np.float32
    assert scores[1] > scores[0] > 0 and scores[2] == 0
    assert list(top_k(scores, 3)) == [1, 0, 2]


def test_top_k_is_best_first_with_ties_in_a_fixed_order():
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.9], dtype=np.float32)
    assert list(top_k(scores, 3)) == [1, 4, 0]  # ties by position
    assert list(top_k(scores, 3, ties=np.array([9, 8, 7, 6, 5]))) == [4, 1, 2]  # ties by the given keys
    assert list(top_k(scores, 0)) == [] and list(top_k(scores, 99)) == [1, 4, 0, 2, 3]
