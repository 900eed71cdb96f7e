"""Sign codes of embeddings: the binary-quantised first pass of :meth:`BundleReader.knn`."""

from __future__ import annotations

import numpy as np


def sign_code(values: np.ndarray) -> np.ndarray:
    """1-bit codes along the last axis (bit set where the value is positive), zero-padded to a
    multiple of 64 bits: ``(..., dim) float32`` -> ``(..., ceil(dim / 64)) uint64``."""
    bits = values > 0
    pad = (-bits.shape[-1]) % 64
    if pad:
        bits = np.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, pad)])
    return np.packbits(bits, axis=-1).view(np.uint64)


def binary_candidates(codes: np.ndarray, query: np.ndarray, n: int) -> np.ndarray:
    """Row indices of the ``n`` codes nearest ``query`` in Hamming distance (in no order; ties
    broken arbitrarily): ``codes`` is ``(words, rows) uint64`` word-major, ``query`` is ``(words,)
    uint64``, ``n`` is less than the number of rows."""
    hamming = np.bitwise_count(codes[0] ^ query[0]).astype(np.uint16)
    for word in range(1, codes.shape[0]):
        hamming += np.bitwise_count(codes[word] ^ query[word])
    return np.argpartition(hamming, n - 1)[:n]
