"""The relevance model: a cross-encoder that reads a question and a passage together and says how likely
the passage answers the question (issue 24).

It is trained here by ``scripts/train_relevance.py`` from all-MiniLM-L6-v2 on the questions of
``scripts/relevance_data.py`` and shipped as an int8 ONNX file with its tokenizer in
``models/relevance/``. The app runs it with onnxruntime and tokenizers (both already shipped for the
embedding model); torch is never imported.

Inputs are truncated in tokens, never rejected: the question to :data:`MAX_QUESTION_TOKENS` (at most half the
pair), and the
pair (``[CLS] question [SEP] passage [SEP]``) to the model's ``max_tokens`` (its ``config.json``;
:data:`DEFAULT_MAX_TOKENS` when absent), the passage giving way first. :meth:`RelevanceModel.score`
reports how many tokens it cut.

Without the folder, or with a damaged file, :func:`load_relevance_model` returns None and a sentence
naming the state (:data:`NO_RELEVANCE_MODEL`); the pipeline then runs as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from ..errors import ModelError

#: The named degraded state when the relevance model is missing or damaged.
NO_RELEVANCE_MODEL = "no-relevance-model"
#: Tokens of the question kept (a 30,000-character question is cut here, not refused). Not measured:
#: the longest question of the labelled sets is about 60 tokens.
MAX_QUESTION_TOKENS = 96
#: Tokens of a (question, passage) pair when the model's config does not say: what it was trained with.
DEFAULT_MAX_TOKENS = 256
FILES = ("model.onnx", "tokenizer.json")
#: Where a model may be used (its ``config.json`` ``uses``): ``rerank``, re-ordering the fused chunks
#: (app/retrieval/rerank.py); ``blocks``, choosing the answer blocks inside the quoted passages
#: (``RelevanceScorer``, app/answer/scorers.py). A model trained on one kind of text is used for that one.
USES = ("rerank", "blocks")


class Session(Protocol):
    """What the scorer needs of an onnxruntime ``InferenceSession``."""

    def run(self, output_names: Any, input_feed: dict[str, np.ndarray]) -> list[np.ndarray]: ...


@dataclass(frozen=True)
class Scores:
    """``probability``: ``(n,) float32`` in [0, 1], one per passage, higher is better (the sigmoid of the
    model's logit: "this passage answers the question"); ``truncated_tokens``: tokens cut from the
    question and the passages together (0 when everything fit)."""

    probability: np.ndarray
    truncated_tokens: int


class RelevanceModel:
    """A cross-encoder over (question, passage) pairs. ``session`` runs the ONNX graph (inputs
    ``input_ids``, ``attention_mask``, ``token_type_ids``, ``(batch, tokens) int64``; output
    ``(batch, 1)`` logits); ``tokenizer`` is a ``tokenizers.Tokenizer`` of the model's vocabulary."""

    def __init__(self, session: Session, tokenizer: Any, max_tokens: int = DEFAULT_MAX_TOKENS,
                 uses: Sequence[str] = USES) -> None:
        self.session = session
        #: where the model is used (a subset of :data:`USES`)
        self.uses = frozenset(uses)
        self.tokenizer = tokenizer
        self.max_tokens = max(16, int(max_tokens))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self._cls = tokenizer.token_to_id("[CLS]")
        self._sep = tokenizer.token_to_id("[SEP]")
        self._pad = tokenizer.token_to_id("[PAD]") or 0

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def score(self, question: str, passages: Sequence[str]) -> Scores:
        """Score each passage for ``question``. An empty passage list gives an empty array; an empty
        or code-only passage is scored like any other text. Raises nothing for any text."""
        if not passages:
            return Scores(np.zeros(0, dtype=np.float32), 0)
        q = self._ids(question)
        keep = min(MAX_QUESTION_TOKENS, self.max_tokens // 2)  # the passage keeps at least half the pair
        cut = max(0, len(q) - keep)
        q = q[:keep]
        room = self.max_tokens - len(q) - 3
        rows: list[tuple[list[int], list[int]]] = []
        for passage in passages:
            p = self._ids(passage)
            cut += max(0, len(p) - room)
            p = p[:room]
            ids = [self._cls, *q, self._sep, *p, self._sep]
            types = [0] * (len(q) + 2) + [1] * (len(p) + 1)
            rows.append((ids, types))
        width = max(len(ids) for ids, _ in rows)
        input_ids = np.full((len(rows), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        token_types = np.zeros((len(rows), width), dtype=np.int64)
        for i, (ids, types) in enumerate(rows):
            input_ids[i, :len(ids)] = ids
            mask[i, :len(ids)] = 1
            token_types[i, :len(types)] = types
        logits = self.session.run(None, {"input_ids": input_ids, "attention_mask": mask,
                                         "token_type_ids": token_types})[0]
        logits = np.asarray(logits, dtype=np.float32).reshape(len(rows), -1)[:, 0]
        return Scores(1.0 / (1.0 + np.exp(-logits)), cut)


def load_relevance_model(folder: Path, expected_sha256: str | None = None,
                         threads: int = 1) -> tuple[RelevanceModel | None, str]:
    """``(model, "")``, or ``(None, sentence)`` naming why the pipeline runs without it: the folder
    or a file is missing, ``model.onnx`` differs from ``expected_sha256`` (the manifest's pin), or
    onnxruntime cannot load it (a truncated file). Raises nothing."""
    try:
        return _load(folder, expected_sha256, threads), ""
    except ModelError as exc:
        return None, str(exc)


def _load(folder: Path, expected_sha256: str | None, threads: int) -> RelevanceModel:
    for name in FILES:
        if not (folder / name).is_file():
            raise ModelError(f"The relevance model file {folder / name} is missing, so passages are ranked without "
                             "it; run `make models` to restore it.")
    if expected_sha256:
        from ..embedding import file_sha256

        actual = file_sha256(folder / "model.onnx")
        if actual != expected_sha256:
            raise ModelError(f"The relevance model {folder / 'model.onnx'} has sha256 {actual[:12]}…, not the "
                             f"manifest's {expected_sha256[:12]}…, so passages are ranked without it; run `make models`.")
    max_tokens, uses = DEFAULT_MAX_TOKENS, USES
    config = folder / "config.json"
    if config.is_file():
        try:
            settings = json.loads(config.read_text(encoding="utf-8"))
            max_tokens = int(settings.get("max_tokens", DEFAULT_MAX_TOKENS))
            uses = tuple(settings.get("uses", USES))
            if not set(uses) <= set(USES) or isinstance(settings.get("uses"), str):
                raise ValueError(uses)
        except (ValueError, TypeError, AttributeError):
            raise ModelError(f"The relevance model's {config} is not valid JSON with a whole-number max_tokens and "
                             f"a list of uses among {', '.join(USES)}; run `make models` to restore it.") from None
    from ..embedding import disable_onnxruntime_telemetry

    disable_onnxruntime_telemetry()  # before onnxruntime is first imported (app/embedding.py says why)
    try:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except Exception as exc:  # onnxruntime and tokenizers raise their own types for damaged files
        raise ModelError(f"The relevance model in {folder} could not be loaded ({type(exc).__name__}), so passages "
                         "are ranked without it; run `make models` to restore it.") from exc
    return RelevanceModel(session, tokenizer, max_tokens, uses)
