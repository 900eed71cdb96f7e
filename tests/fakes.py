"""Fake embedder and fake chat model: deterministic, instant, no model files."""

from __future__ import annotations

import hashlib
import re
from typing import Callable, Iterator

import numpy as np


class FakeEmbedder:
    """Hashed bag-of-words vectors: texts sharing words are similar (cosine), L2-normalised."""

    model_id = "fake/bag-of-words"
    dim = 64
    checksum = "fake-checksum"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int(hashlib.md5(word.encode()).hexdigest()[:8], 16)
                out[i, h % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
            if not norm:
                out[i, 0] = 1.0
        return out


class FakeChatModel:
    """Replies with a fixed text, piece by piece; records the messages it was sent."""

    name = "fake-model.gguf"
    n_ctx = 4096

    def __init__(self, reply: str = "Check the I2C address 0x3C of the display [1].",
                 delay: Callable[[], None] | None = None) -> None:
        self.reply = reply
        self.delay = delay
        self.calls: list[list[dict]] = []

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    def prompt_tokens(self, messages) -> int:
        return sum(self.count_tokens(m["content"]) + 4 for m in messages)

    def stream(self, messages, max_tokens, should_stop=None) -> Iterator[str]:
        self.calls.append(messages)
        for piece in re.findall(r"\S+\s*", self.reply):
            if should_stop is not None and should_stop():
                return
            if self.delay:
                self.delay()
            yield piece
