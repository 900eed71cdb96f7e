"""The block-embedding cache: quote selection embeds a block once per loaded bundle, not once per question."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from app.answer.answerer import Assistant
from app.caches import VectorCache
from app.retrieval.retriever import Retriever
from tests.fakes import CountingEmbedder, FakeEmbedder


def test_rows_come_back_in_order_and_only_missing_texts_are_embedded():
    embedder, asked = FakeEmbedder(), []

    def embed(texts):
        asked.append(list(texts))
        return embedder.embed(texts)

    cache = VectorCache(size=8)
    first = cache.vectors(["a b", "c d", "a b"], embed)
    second = cache.vectors(["e f", "c d"], embed)
    assert asked == [["a b", "c d"], ["e f"]]  # each distinct new text once, a cached one never again
    assert np.array_equal(first[0], first[2]) and np.array_equal(second[1], first[1])
    assert np.array_equal(second, embedder.embed(["e f", "c d"]))
    assert (cache.hits, cache.misses) == (2, 3)


def test_the_least_recently_used_text_is_evicted_first():
    embedder, asked = FakeEmbedder(), []

    def embed(texts):
        asked.extend(texts)
        return embedder.embed(texts)

    cache = VectorCache(size=2)
    cache.vectors(["one"], embed)
    cache.vectors(["two"], embed)
    cache.vectors(["one"], embed)        # "one" is now the most recent
    cache.vectors(["three"], embed)      # evicts "two"
    cache.vectors(["one", "two"], embed)
    assert asked == ["one", "two", "three", "two"] and len(cache) == 2


def test_a_cache_without_room_is_refused_and_empty_input_embeds_nothing():
    with pytest.raises(ValueError, match="at least one"):
        VectorCache(size=0)
    assert VectorCache().vectors([], lambda texts: pytest.fail("embedded nothing")).shape == (0, 0)


def test_threads_sharing_a_cache_get_their_own_rows():
    embedder, cache, errors = FakeEmbedder(), VectorCache(size=16), []

    def ask(n: int) -> None:
        texts = [f"block {n % 5} word{k}" for k in range(6)]
        for _ in range(50):
            if not np.allclose(cache.vectors(texts, embedder.embed), embedder.embed(texts)):
                errors.append(n)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) <= 16


def test_asking_again_embeds_no_block_again(bundle):
    embedder = CountingEmbedder()
    assistant = Assistant(Retriever(bundle, embedder), None)
    question = "My OLED display stays blank. Which I2C address?"
    first = assistant.answer(question)
    embedder.texts.clear()
    again = assistant.answer(question)
    assert first.state == again.state == "extractive" and again.text == first.text
    assert embedder.texts == [] and len(assistant.retriever.block_vectors) > 0


def test_a_passage_quoted_again_is_not_parsed_again(monkeypatch):
    import app.caches as caches
    from app.answer.blocks import passage_units

    parsed: list[str] = []
    real = caches.parse_blocks

    def counting(text):
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(caches, "parse_blocks", counting)
    caches.parsed_blocks.cache_clear()
    text = "## Wiring\n\nConnect SDA to GPIO 21 and SCL to GPIO 22.\n\n- VCC to 3V3\n- GND to GND\n"
    first = passage_units(text, "Display › Wiring", words=[("sda",)])
    second = passage_units(text, "Display › Wiring", words=[("gnd",)])
    assert parsed == [text]
    assert [u.text for u in first] == [u.text for u in second] and len(first) >= 2
    caches.parsed_blocks.cache_clear()
