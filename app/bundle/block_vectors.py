"""Embeddings of the answer blocks, computed when the bundle is built (issue 29).

An answer quotes blocks of its passages (app/answer/blocks.py), and the ``similarity`` scorer
(app/answer/scorers.py) compares the question with each passage's best few blocks by cosine. Embedding
those blocks when a question arrives was three quarters of the time to evidence (IoT course, 61
questions: 136 ms median per new question, 12 ms once the blocks were embedded), and the whole of it
when 30 students ask at once. So the build embeds every block of every chunk, as the scorer reads it
(:func:`app.answer.scorers.similarity_text`, the question's words not used), and stores it here:

``block_vectors(key BLOB PRIMARY KEY, embedding BLOB) WITHOUT ROWID``: ``key`` is the first
:data:`KEY_BYTES` bytes of the sha256 of the block's text (UTF-8), ``embedding`` its ``dim`` values
as little-endian ``float16`` (:data:`STORED_DTYPE`; half the size of ``float32``, and the replies
are the same: IoT 61, demo 26 and three held-out sets, 90 questions, no reply changed).

At answer time a block whose text is not in the table (a long code block cut around the question's
words, a planted sentence blanked out: 2 of 335 block texts on the IoT questions) is embedded then, as
in bundles built before this table, which the reader treats as absent.
"""

from __future__ import annotations

import hashlib
import math
from typing import Callable, Iterable, Sequence

import apsw
import numpy as np

from ..embedding import Embedder
from ..errors import LanternError

#: Bytes of the sha256 kept as a block's key: 128 bits, no collision among a course's blocks
#: (about 6,600 for the IoT course) short of 2^64 of them.
KEY_BYTES = 16
#: How a stored vector is kept: float16 (see the module docstring for the measurement).
STORED_DTYPE = np.dtype("<f2")
#: How far from 1 a stored vector's length may be (the model's are unit vectors; float16 rounding moves
#: them by under 0.001).
NORM_TOLERANCE = 0.01
#: Blocks embedded per call of the embedding model (the model batches them further by length).
BLOCK_BATCH = 64
#: The prefix of block vectors among :func:`app.bundle.builder.previous_vectors`' reusable
#: vectors (the chunks' are keyed by the 64-hex-digit sha256 of their indexed text).
REUSE_PREFIX = "block:"


def block_key(text: str) -> bytes:
    """The ``block_vectors`` key of a block text: its sha256's first :data:`KEY_BYTES` bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:KEY_BYTES]


def course_block_texts(passages: Iterable[tuple[str, str, int, Callable[[], str]]]) -> list[str]:
    """Every distinct block text of ``passages`` as the similarity scorer reads it, shortest first.

    ``passages`` yields ``(text, heading path, offset in the guide, guide_text())`` per chunk."""
    from ..answer.blocks import passage_units  # the answer layer reads blocks; the bundle only stores them
    from ..answer.scorers import similarity_text

    texts = {similarity_text(unit) for text, heading, offset, guide in passages
             for unit in passage_units(text, heading, offset=offset, guide_text=guide)}
    return sorted(texts, key=lambda t: (len(t), t))


def write_block_vectors(conn: apsw.Connection, texts: Sequence[str], embedder: Embedder,
                        reusable: dict[str, bytes], notify: Callable[[str, int, int], None]) -> int:
    """Fill ``block_vectors`` (app/bundle/schema.py creates it) with one vector per text of ``texts``: reused from ``reusable``
    (``REUSE_PREFIX`` + hex key -> stored bytes) when there, else embedded in batches of
    :data:`BLOCK_BATCH`. Reports ``("embed_blocks", done, to embed)`` and, once, ``("reuse_blocks",
    reused, blocks)``. Returns how many were embedded.
    Raises :class:`LanternError` when the model returns vectors of the wrong shape."""
    size = embedder.dim * STORED_DTYPE.itemsize
    keyed = {block_key(t): t for t in texts}
    kept = {k: reusable[REUSE_PREFIX + k.hex()] for k in keyed if len(reusable.get(REUSE_PREFIX + k.hex(), b"")) == size}
    todo = [t for k, t in keyed.items() if k not in kept]
    with conn:
        conn.executemany("INSERT INTO block_vectors VALUES (?, ?)", sorted(kept.items()))
    notify("reuse_blocks", len(kept), len(keyed))
    notify("embed_blocks", 0, len(todo))
    for begin in range(0, len(todo), BLOCK_BATCH):
        batch = todo[begin:begin + BLOCK_BATCH]
        vectors = embed_checked(embedder, batch)
        with conn:
            conn.executemany("INSERT INTO block_vectors VALUES (?, ?)",
                             [(block_key(t), v.astype(STORED_DTYPE).tobytes()) for t, v in zip(batch, vectors)])
        notify("embed_blocks", begin + len(batch), len(todo))
    return len(todo)


def embed_checked(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), dim) float32`` from ``embedder``; raises :class:`LanternError` when the model
    returns another shape (a wrong or damaged model file), before anything is stored."""
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    if vectors.shape != (len(texts), embedder.dim):
        raise LanternError(f"The embedding model returned vectors of shape {vectors.shape}, "
                           f"expected ({len(texts)}, {embedder.dim}); check the model files.")
    return vectors


def reusable_block_vectors(conn: apsw.Connection, dim: int) -> dict[str, bytes]:
    """An earlier bundle's block vectors for a rebuild (``REUSE_PREFIX`` + hex key -> stored bytes);
    {} for a bundle without the table. Raises ``apsw.Error`` for a damaged file."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'block_vectors'").fetchall():
        return {}
    return {REUSE_PREFIX + key.hex(): blob for key, blob in conn.execute("SELECT key, embedding FROM block_vectors")
            if isinstance(key, bytes) and decode(blob, dim) is not None}  # a damaged vector is embedded anew


def decode(blob: object, dim: int) -> np.ndarray | None:
    """A stored vector as ``(dim,) float32``; None (the block is then embedded anew) when the value
    is not a blob of ``dim`` float16 values or not a unit vector (within :data:`NORM_TOLERANCE`: NaN,
    infinity and zeros are not), as a damaged or crafted bundle may hold."""
    if not isinstance(blob, bytes) or len(blob) != dim * STORED_DTYPE.itemsize:
        return None
    vector = np.frombuffer(blob, dtype=STORED_DTYPE).astype(np.float32)
    norm = float(np.sqrt(np.dot(vector, vector)))
    return vector if math.isfinite(norm) and abs(norm - 1.0) <= NORM_TOLERANCE else None
