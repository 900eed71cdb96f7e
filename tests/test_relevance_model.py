"""The relevance model's scorer (app/retrieval/relevance.py): truncation in tokens, shapes, and the
named state when the model file is missing or damaged. A fake ONNX session and a tiny WordPiece
tokenizer built here: nothing depends on model files."""

from __future__ import annotations

import numpy as np
from tokenizers import Tokenizer
from tokenizers.models import WordPiece
from tokenizers.pre_tokenizers import Whitespace

from app.retrieval.relevance import MAX_QUESTION_TOKENS, RelevanceModel, load_relevance_model

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "led", "pin", "is", "gpio", "2", "what", "?", "blink", "on"]


def tokenizer() -> Tokenizer:
    tok = Tokenizer(WordPiece({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    return tok


class OverlapSession:
    """Logit = words of the passage (token type 1) that are also in the question, minus 1."""

    def __init__(self) -> None:
        self.feeds: list[dict] = []

    def run(self, output_names, feed):
        self.feeds.append(feed)
        out = []
        for ids, types, mask in zip(feed["input_ids"], feed["token_type_ids"], feed["attention_mask"]):
            question = {int(t) for t, k, m in zip(ids, types, mask) if m and k == 0 and t > 3}
            passage = [int(t) for t, k, m in zip(ids, types, mask) if m and k == 1 and t > 3]
            out.append([sum(t in question for t in passage) - 1.0])
        return [np.asarray(out, dtype=np.float32)]


def test_the_passage_that_shares_the_question_scores_higher_as_a_probability():
    model = RelevanceModel(OverlapSession(), tokenizer())
    scores = model.score("what is the led pin ?", ["blink on gpio 2", "the led pin is gpio 2"])
    assert scores.probability.shape == (2,)
    assert 0.0 < scores.probability[0] < scores.probability[1] < 1.0
    assert scores.truncated_tokens == 0


def test_a_30000_character_question_is_cut_in_tokens_and_scored():
    session = OverlapSession()
    model = RelevanceModel(session, tokenizer(), max_tokens=64)
    question = ("led pin " * 3750)[:30000]
    scores = model.score(question, ["the led pin is gpio 2"])
    feed = session.feeds[-1]
    assert feed["input_ids"].shape[1] <= 64
    question_tokens = len(question.split())
    assert scores.truncated_tokens >= question_tokens - MAX_QUESTION_TOKENS
    assert scores.probability.shape == (1,)


def test_empty_code_only_and_foreign_script_passages_are_scored_without_an_exception():
    session = OverlapSession()
    model = RelevanceModel(session, tokenizer(), max_tokens=32)
    scores = model.score("what is the led pin ?", ["", "```\nint x = 2;\n```", "ما هو دبوس الصمام", "x" * 5000])
    assert scores.probability.shape == (4,)
    assert np.all(np.isfinite(scores.probability))
    types = session.feeds[-1]["token_type_ids"]
    assert types.shape[1] <= 32 and int(types[0].sum()) == 1  # the empty passage: only its [SEP]
    assert model.score("what?", []).probability.shape == (0,)


def test_a_missing_folder_is_the_named_state_in_one_sentence(tmp_path):
    model, reason = load_relevance_model(tmp_path / "relevance")
    assert model is None
    assert "missing" in reason and "make models" in reason and "\n" not in reason


def test_a_model_with_the_wrong_sha256_is_refused(tmp_path):
    folder = tmp_path / "relevance"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"not the pinned model")
    tokenizer().save(str(folder / "tokenizer.json"))
    model, reason = load_relevance_model(folder, expected_sha256="0" * 64)
    assert model is None and "sha256" in reason and "manifest" in reason


def test_a_truncated_model_file_is_refused_not_raised(tmp_path):
    folder = tmp_path / "relevance"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"\x08\x07\x12\x04trun")
    tokenizer().save(str(folder / "tokenizer.json"))
    model, reason = load_relevance_model(folder)
    assert model is None and "could not be loaded" in reason


def _folder_with_config(tmp_path, config: str):
    folder = tmp_path / "relevance"
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(b"never read: the config is refused first")
    tokenizer().save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(config, encoding="utf-8")
    return folder


def test_a_config_naming_an_unknown_use_is_refused_in_one_sentence(tmp_path):
    for config in ('{"max_tokens": 128, "uses": ["blocks", "gate"]}', '{"uses": "blocks"}'):
        model, reason = load_relevance_model(_folder_with_config(tmp_path / str(len(config)), config))
        assert model is None and "uses" in reason and "rerank, blocks" in reason and "\n" not in reason


class _UsesModel:
    """A relevance model that records what it was asked and calls the first text the answer."""

    def __init__(self, uses) -> None:
        self.uses = frozenset(uses)
        self.calls: list[list[str]] = []

    def score(self, question, passages):
        from app.retrieval.relevance import Scores
        self.calls.append(list(passages))
        return Scores(np.linspace(1.0, 0.0, len(passages), dtype=np.float32), 0)


def test_a_blocks_model_never_reranks_and_a_rerank_model_never_scores_blocks(bundle, fake_embedder):
    from app.answer.answerer import Assistant
    from app.retrieval.retriever import Retriever

    question = "How do I blink the LED?"
    blocks_only = _UsesModel(["blocks"])
    Assistant(Retriever(bundle, fake_embedder, relevance=blocks_only), None).answer(question)
    assert blocks_only.calls, "the block scorer asked the model"
    chunk_texts = {row.text for row in bundle.chunks(list(range(1, bundle.chunk_count() + 1))).values()}
    assert not any(set(call) & chunk_texts for call in blocks_only.calls), "no whole chunk was re-ranked"

    rerank_only = _UsesModel(["rerank"])
    Retriever(bundle, fake_embedder, relevance=rerank_only).search(question)
    asked = len(rerank_only.calls)
    assert asked == 1 and set(rerank_only.calls[0]) <= chunk_texts
    Assistant(Retriever(bundle, fake_embedder, relevance=rerank_only), None).answer(question)
    assert all(set(call) <= chunk_texts for call in rerank_only.calls), "no block was scored"
