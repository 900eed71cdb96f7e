"""The exact leg: chunks that hold a question's identifiers and operators verbatim.

An identifier (``client.loop``, ``--force``, ``ESP32``) is found by an FTS5 phrase search; an
operator written with symbols only (``$@``, ``>>``, ``2>&1``), which no tokenizer keeps, by a scan of
the chunk texts (:meth:`app.bundle.reader.BundleReader.chunks_containing`); a single symbol the
question asks about (``#`` of "¿Qué hace #?") as a guide explains one, in inline code
(:func:`app.retrieval.identifiers.symbols_asked`).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..bundle.reader import BundleReader
from .identifiers import extract_identifiers, extract_operators, holds_operator

#: Chunks holding an operator read before the best by BM25 are kept (``>>`` may be in hundreds). Not measured.
OPERATOR_SCAN = 200


def exact_candidates(bundle: BundleReader, question: str, k: int,
                     bm25: np.ndarray | None = None) -> tuple[list[int], list[int]]:
    """``(exact ids, symbol ids)``. Exact ids: chunk ids holding an identifier of ``question``
    verbatim (FTS5 phrase search, each identifier's in turn), then an operator written with symbols
    only (found as written, the chunks holding it best BM25 first; ``bm25``: every chunk's score,
    chunk id - 1 indexed), at most ``k``. Symbol ids: those of them found for a single symbol the
    question asks about in inline code (`` `#` ``): the chunks that explain it, which the retriever
    ranks first (the question has no other words to rank by)."""
    exact_ids: list[int] = []
    symbol_ids: list[int] = []
    for phrase in extract_identifiers(question):
        exact_ids.extend(cid for cid in bundle.fts_phrase(phrase, k) if cid not in exact_ids)
    for operator in extract_operators(question):
        holding = bundle.chunks_containing(operator, OPERATOR_SCAN, partial(holds_operator, operator=operator))
        if bm25 is not None:
            holding.sort(key=lambda cid: (-float(bm25[cid - 1]), cid))
        exact_ids.extend(cid for cid in holding[:k] if cid not in exact_ids)
        if len(operator) == 3 and operator[0] == operator[-1] == "`":
            symbol_ids.extend(cid for cid in holding[:k] if cid not in symbol_ids)
    exact_ids = exact_ids[:k]
    return exact_ids, [cid for cid in symbol_ids if cid in exact_ids]
