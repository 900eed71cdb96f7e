"""What evidence keeps between questions: text embeddings (:class:`VectorCache`) and parsed passages
(:func:`parsed_blocks`), so a block quoted again is neither embedded nor parsed again.

Quote selection embeds a few blocks of each quoted passage (app/answer/scorers.py ``SimilarityScorer``);
that was about three quarters of the time to evidence (measured with cProfile on the demo course's 32
questions: 6.9 s of 9.4 s). The same blocks come back across questions (follow-ups, students of one lab
asking about the same exercise through ``lantern serve``), and their vectors never change for a loaded
bundle, so they are kept here, least recently used first out. Parsing the quoted passages was about a
tenth of what remained (cProfile, the same 32 questions asked a second time).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from .ingest.markdown import Block, parse_blocks

#: Blocks kept: 4,096 vectors of 384 float32 (1,536 bytes each) are 6.3 MB.
BLOCK_CACHE_SIZE = 4096
#: Passages whose parsed blocks are kept.
PARSED_PASSAGES = 1024


@lru_cache(maxsize=PARSED_PASSAGES)
def parsed_blocks(text: str) -> tuple[Block, ...]:
    """:func:`~app.ingest.markdown.parse_blocks` of a passage, kept for the next question quoting it
    (blocks are frozen; a passage's text never changes while its bundle is loaded). Thread-safe."""
    return tuple(parse_blocks(text))


class VectorCache:
    """Text -> ``(dim,) float32`` vector, at most ``size`` texts (least recently used evicted first).
    Safe to share between threads (``lantern serve`` answers on several): lookups and stores hold a lock;
    embedding the missing texts does not, so two threads may embed the same new text once each."""

    def __init__(self, size: int = BLOCK_CACHE_SIZE) -> None:
        if size < 1:
            raise ValueError(f"a vector cache needs room for at least one text, not {size}")
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._vectors)

    def vectors(self, texts: Sequence[str], embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """``(len(texts), dim)`` float32 rows in ``texts`` order: cached rows as they are, the others from
        one call of ``embed(missing texts)`` (each distinct text once), which are then cached. An empty
        ``texts`` calls nothing and gives ``(0, 0)``."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        with self._lock:
            found = {t: self._vectors[t] for t in dict.fromkeys(texts) if t in self._vectors}
            for text in found:
                self._vectors.move_to_end(text)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            made = np.asarray(embed(missing), dtype=np.float32)
            new = dict(zip(missing, made))
            found.update(new)
            with self._lock:
                self._vectors.update(new)
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        with self._lock:
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        return np.stack([found[t] for t in texts])
