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

    def __init__(self, **_options) -> None:  # FastEmbedder's options (threads, memory_arena) mean nothing here
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


class CountingEmbedder(FakeEmbedder):
    """A fake embedder that keeps every text it was asked to embed, in order (``texts``)."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return super().embed(texts)


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


def tiny_pdf(lines: list[str], title: str = "") -> bytes:
    """A valid one-page PDF whose text layer holds ``lines`` (Helvetica, ASCII only)."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    ops = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({esc(line)}) Tj T*" for line in lines) + " ET"
    info = f"<< /Title ({esc(title)}) >>" if title else "<< >>"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(ops)} >>\nstream\n{ops}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        info,
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
