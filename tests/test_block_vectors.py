"""Answer blocks embedded at build time (app/bundle/block_vectors.py): evidence embeds only the question."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from app.answer.answerer import Assistant
from app.bundle.block_vectors import REUSE_PREFIX, STORED_DTYPE, block_key
from app.bundle.builder import build_bundle, previous_vectors
from app.bundle.reader import BundleReader
from app.bundle.schema import CONTENT_DIGEST_KEY, connect, content_digest
from app.errors import UnsafeBundleError
from app.retrieval.retriever import Retriever
from tests.fakes import CountingEmbedder, FakeEmbedder

QUESTION = "My OLED display stays blank. Which I2C address?"


class opened:
    """A :class:`BundleReader` closed on leaving the block."""

    def __init__(self, path) -> None:
        self.reader = BundleReader(path)

    def __enter__(self) -> BundleReader:
        return self.reader

    def __exit__(self, *exc) -> None:
        self.reader.close()


def tampered(bundle_path, copy, *statements: tuple[str, tuple], digest: bool = True):
    """A copy of ``bundle_path`` at ``copy`` changed by ``statements`` (SQL, parameters), its content
    digest recomputed (as a crafted bundle would have it) unless ``digest`` is False."""
    shutil.copy(bundle_path, copy)
    conn = connect(str(copy), read_only=False)
    with conn:
        for sql, params in statements:
            conn.execute(sql, params)
        if digest:
            conn.execute("UPDATE meta SET value = ? WHERE key = ?", (content_digest(conn), CONTENT_DIGEST_KEY))
    conn.close()
    return copy


def _stored(path) -> dict[bytes, bytes]:
    conn = connect(str(path), read_only=True)
    try:
        return {bytes(k): bytes(v) for k, v in conn.execute("SELECT key, embedding FROM block_vectors")}
    finally:
        conn.close()


def test_the_build_stores_every_block_and_evidence_embeds_only_the_question(bundle_path):
    stored = _stored(bundle_path)
    assert len(stored) > 5 and {len(v) for v in stored.values()} == {FakeEmbedder.dim * STORED_DTYPE.itemsize}
    embedder = CountingEmbedder()
    with opened(bundle_path) as reader:
        assistant = Assistant(Retriever(reader, embedder), None)
        answer = assistant.answer(QUESTION)
        assert answer.state == "extractive" and answer.passages
        assert embedder.texts == [QUESTION]  # the blocks it compared came from the bundle
        # what came back is the block's own embedding (float16 precision)
        some = [t for t in assistant.retriever.block_vectors._vectors][:3]
        assert some and all(block_key(t) in stored for t in some)
        assert np.allclose(reader.stored_block_vectors(some)[some[0]], FakeEmbedder().embed([some[0]])[0], atol=1e-3)


def test_replies_are_the_same_with_and_without_stored_blocks(bundle_path, tmp_path):
    older = tampered(bundle_path, tmp_path / "older.sqlite", ("DELETE FROM block_vectors", ()))  # as before the table
    replies = []
    for path in (bundle_path, older):
        embedder = CountingEmbedder()
        with opened(path) as reader:
            replies.append(Assistant(Retriever(reader, embedder), None).answer(QUESTION).text)
        replies.append(len(embedder.texts))
    assert replies[0] == replies[2] and replies[1] == 1 and replies[3] > 1  # the older bundle embeds its blocks


def test_a_rebuild_reuses_the_blocks_and_embeds_only_changed_ones(course, tmp_path):
    out = tmp_path / "b.sqlite"
    build_bundle(course, out, FakeEmbedder())
    before = _stored(out)
    reusable, note = previous_vectors(out, FakeEmbedder())
    assert note == "" and sum(k.startswith(REUSE_PREFIX) for k in reusable) == len(before)
    guide = course / "lessons" / "blink.md"
    text = guide.read_text(encoding="utf-8")
    assert "Blink the onboard LED on GPIO 2" in text
    guide.write_text(text.replace("Blink the onboard LED on GPIO 2", "Blink the onboard LED, a new closing sentence, on GPIO 2"),
                     encoding="utf-8")
    seen: list[tuple[str, int, int]] = []
    embedder = CountingEmbedder()
    report = build_bundle(course, out, embedder, progress=lambda stage, done, total: seen.append((stage, done, total)))
    blocks = [(d, t) for s, d, t in seen if s == "embed_blocks"]
    assert blocks and 0 < blocks[-1][1] < len(before)  # only the blocks of the changed chunk
    assert (report.blocks, report.blocks_embedded) == (len(_stored(out)), blocks[-1][1])
    assert ("reuse_blocks", report.blocks - report.blocks_embedded, report.blocks) in seen
    assert any("new closing sentence" in t for t in embedder.texts)
    assert set(before) - set(_stored(out))  # a block that no longer exists is not carried over


def test_a_block_table_of_another_shape_is_refused(bundle_path, tmp_path):
    crafted = tampered(bundle_path, tmp_path / "crafted.sqlite", ("DROP TABLE block_vectors", ()),
                       ("CREATE TABLE block_vectors (key BLOB PRIMARY KEY, embedding BLOB NOT NULL, note TEXT)", ()),
                       digest=False)
    with pytest.raises(UnsafeBundleError, match="block_vectors"):
        BundleReader(crafted)


def test_inspect_counts_the_blocks_and_names_wrong_sized_ones(bundle_path, tmp_path):
    from app.bundle.inspect import inspect_bundle

    report = inspect_bundle(bundle_path)
    assert report.integrity.ok and report.counts["block_vectors"] == len(_stored(bundle_path))
    assert any(line.strip().startswith("answer blocks") and "embedded" in line for line in report.lines())
    damaged = tampered(bundle_path, tmp_path / "damaged.sqlite",
                       ("UPDATE block_vectors SET embedding = x'00' WHERE key = (SELECT min(key) FROM block_vectors)", ()))
    problems = inspect_bundle(damaged).integrity.problems
    assert problems == ("1 answer-block vectors in block_vectors are not 16-byte keys with unit vectors of 64 "
                        "float16 values",)


NAN = np.full(FakeEmbedder.dim, np.nan, dtype=np.float16).tobytes()
ZERO = bytes(FakeEmbedder.dim * 2)


@pytest.mark.parametrize("value", ["'hello'", "768", "?nan", "?zero", "zeroblob(1536)"],
                         ids=["text", "integer", "nan", "zeros", "wrong-size"])
def test_a_crafted_vector_is_named_by_inspect_embedded_anew_and_never_carried_into_a_rebuild(
        value, bundle_path, tmp_path):
    from app.bundle.inspect import inspect_bundle

    blob = {"?nan": NAN, "?zero": ZERO}.get(value)
    crafted = tampered(bundle_path, tmp_path / "crafted.sqlite",
                       (f"UPDATE block_vectors SET embedding = {'?' if blob else value}", (blob,) if blob else ()))
    rows = len(_stored(bundle_path))
    assert inspect_bundle(crafted).integrity.problems == (
        f"{rows} answer-block vectors in block_vectors are not 16-byte keys with unit vectors of 64 float16 values",)
    embedder = CountingEmbedder()
    with opened(crafted) as reader:  # no exception: the blocks are embedded as in a bundle without them
        crafted_reply = Assistant(Retriever(reader, embedder), None).answer(QUESTION).text
    with opened(bundle_path) as reader:
        assert Assistant(Retriever(reader, FakeEmbedder()), None).answer(QUESTION).text == crafted_reply
    assert len(embedder.texts) > 1
    reusable, _ = previous_vectors(crafted, FakeEmbedder())
    assert not any(k.startswith(REUSE_PREFIX) for k in reusable)  # a rebuild embeds them again


def test_a_huge_stored_vector_refuses_the_bundle_before_it_is_read(bundle_path, tmp_path):
    crafted = tampered(bundle_path, tmp_path / "huge.sqlite", ("UPDATE block_vectors SET embedding = zeroblob(50000000) "
                                                             "WHERE key = (SELECT min(key) FROM block_vectors)", ()))
    with pytest.raises(UnsafeBundleError, match=r"an answer-block vector holds 50,000,000 bytes \(at most 16,384\)"):
        BundleReader(crafted)


def test_build_without_answer_blocks_stores_none_and_answers_the_same(course, tmp_path, bundle_path, capsys):
    from app.cli import main

    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "--no-answer-blocks" in capsys.readouterr().out
    out = tmp_path / "no-blocks.sqlite"
    report = build_bundle(course, out, FakeEmbedder(), answer_blocks=False)
    assert (report.blocks, report.blocks_embedded) == (0, 0) and _stored(out) == {}
    replies = []
    for path in (out, bundle_path):
        with opened(path) as reader:
            replies.append(Assistant(Retriever(reader, FakeEmbedder()), None).answer(QUESTION).text)
    assert replies[0] == replies[1]
