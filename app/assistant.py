"""One way to build the assistant: bundle → embedding model → retriever → chat model.

The CLI (``search``, ``ask``, ``eval``), the window's worker and ``--self-test`` all build it
here. Each model is loaded when its argument is :data:`LOAD` (the default), left out when it
is None (``--keyword-only``, ``--search-only``), or taken as given (tests pass fakes).

A model that cannot be loaded is a :class:`~app.errors.ModelError`. Without ``warn`` it is
raised (the self-test); with ``warn(what, message)`` the assistant runs degraded instead and
``warn`` is told why: ``what`` is :data:`NO_EMBEDDER` (keyword search only),
:data:`EMBEDDER_MISMATCH` (the embedding model loaded but was not the bundle's: ``message`` is
the retriever's reason) or :data:`NO_CHAT_MODEL` (search only).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import ModelError

if TYPE_CHECKING:  # pragma: no cover
    from .answer.answerer import Assistant, ContextBudget
    from .bundle.reader import BundleReader
    from .retrieval.retriever import Retriever

#: Load the real model (the default of :func:`build_assistant`'s ``embedder`` and ``chat_model``).
LOAD: Any = "load"
NO_EMBEDDER, EMBEDDER_MISMATCH, NO_CHAT_MODEL = "no-embedder", "embedder-mismatch", "no-chat-model"

#: ``warn(what, message)``: a model could not be used (see the module docstring).
Warn = Callable[[str, str], None]
#: ``progress(text)``: what is being loaded.
Progress = Callable[[str], None]


def load_embedder(threads: int | None = None):
    """The embedding model from the models folder (:class:`~app.embedding.FastEmbedder`), on ``threads``
    of onnxruntime's (default: one per core)."""
    from .embedding import FastEmbedder

    return FastEmbedder(threads=threads)


def load_chat_model(model_path: Path | None, threads: int):
    """The chat GGUF ``model_path`` (default: the settings' choice, else the manifest's) on
    ``threads`` CPU threads (0 = all cores but one); with the lab's model engine set
    (``--model-url`` or the settings' ``model_url``), that engine, the GGUF as its fallback when it loads."""
    from .answer.llm import LlamaChatModel
    from .answer.remote import configured_engine, remote_chat_model
    from .config import default_chat_model

    engine = configured_engine()
    if engine is not None:
        return remote_chat_model(engine, lambda: LlamaChatModel(model_path or default_chat_model(), threads=threads))
    return LlamaChatModel(model_path or default_chat_model(), threads=threads)


#: Environment variable naming a relevance-model folder (model.onnx, tokenizer.json) to re-rank with, for
#: measuring a trained model before it is pinned (scripts/relevance_eval.sh, docs/retrieval.md).
RELEVANCE_ENV = "LANTERN_RELEVANCE_MODEL"


def load_relevance(warn: Warn | None = None):
    """The relevance model named by :data:`RELEVANCE_ENV`, or None (no model: fused order, the state
    ``no-relevance-model``). A damaged model is reported through ``warn`` and not used."""
    import os

    folder = os.environ.get(RELEVANCE_ENV, "")
    if not folder:
        return None
    from .retrieval.relevance import NO_RELEVANCE_MODEL, load_relevance_model

    model, problem = load_relevance_model(Path(folder))
    if model is None and warn is not None:
        warn(NO_RELEVANCE_MODEL, problem)
    return model


def build_retriever(bundle: BundleReader, *, embedder=LOAD, fusion: str | None = None,
                    warn: Warn | None = None, progress: Progress | None = None) -> Retriever:
    """The retriever over ``bundle`` with ``embedder`` (loaded when :data:`LOAD`)."""
    from .retrieval.retriever import Retriever

    if embedder is LOAD:
        if progress is not None:
            progress("Loading the embedding model…")
        try:
            embedder = load_embedder()
        except ModelError as exc:
            if warn is None:
                raise
            warn(NO_EMBEDDER, str(exc))
            embedder = None
    relevance = load_relevance(warn)
    retriever = Retriever(bundle, embedder, relevance=relevance) if fusion is None else \
        Retriever(bundle, embedder, fusion=fusion, relevance=relevance)
    if retriever.degraded_reason and embedder is not None and warn is not None:
        warn(EMBEDDER_MISMATCH, retriever.degraded_reason)
    return retriever


def build_assistant(bundle: BundleReader | Path, *, embedder=LOAD, chat_model=LOAD, model_path: Path | None = None,
                    threads: int | None = None, fusion: str | None = None, budget: ContextBudget | None = None,
                    retriever: Retriever | None = None, warn: Warn | None = None,
                    progress: Progress | None = None) -> Assistant:
    """The :class:`~app.answer.answerer.Assistant` over ``bundle`` (a reader, or a path to open).

    ``embedder`` and ``chat_model``: :data:`LOAD`, None or a model object. ``model_path`` is
    the chat GGUF to load, on ``threads`` CPU threads (default: the settings'). ``retriever``
    reuses one already built (``lantern eval --answers``) instead of ``embedder``. ``fusion``
    and ``budget`` default to the retriever's and the answerer's defaults."""
    from .answer.answerer import Assistant

    if retriever is None:
        if isinstance(bundle, (str, Path)):
            from .bundle.reader import BundleReader

            bundle = BundleReader(Path(bundle))
        retriever = build_retriever(bundle, embedder=embedder, fusion=fusion, warn=warn, progress=progress)
    if chat_model is LOAD:
        if progress is not None:
            progress("Loading the language model…")
        if threads is None:
            from .config import Settings

            threads = Settings.load().threads
        try:
            chat_model = load_chat_model(model_path, threads)
        except ModelError as exc:
            if warn is None:
                raise
            warn(NO_CHAT_MODEL, str(exc))
            chat_model = None
    return Assistant(retriever, chat_model, budget)


def warm_up(assistant) -> None:
    """Load now what an assistant's first questions would otherwise wait for: the course's lexical
    index and vectors, the embedding model's first run, and py3langid's model (0.7-1.1 s on a 2-core
    PC, read by the first reply that says "not covered"). ``lantern serve`` calls it before it listens
    (30 students asking at once no longer wait behind it) and the window while the models load."""
    from .ingest.language import preload_identifier

    preload_identifier()
    retriever = assistant.retriever
    _ = retriever.lexical_index
    if retriever.embedder is not None:
        _ = retriever.bundle.vector_matrix
        retriever.question_vector("warm-up")
