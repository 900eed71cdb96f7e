"""``lantern --self-test``: prove an installed app works offline, in one line.

The self-test opens the course bundle, loads the embedding model and the chat model
from the models folder, builds a one-file Word (.docx) course in a temporary folder
(:mod:`app.formats.probe`), answers one question drawn from the bundle's own headings, and
requires the answer to carry at least one checked citation. It reports the llama.cpp
CPU features the build uses, so a lab admin can see why a PC without AVX2 would fail.
Nothing here opens a network connection.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .errors import LanternError
from .records import heading_leaf

#: The self-test's answer length in tokens: enough to show generation and citation checking
#: work, short enough to finish quickly on a 2-core lab PC (an answer in the app may use 200).
SELF_TEST_ANSWER_TOKENS = 64


@dataclass(frozen=True)
class SelfTestReport:
    """What the self-test did; ``seconds`` is wall-clock time from start to answer."""

    bundle: str
    corpus_version: str
    chunks: int
    embedding_model: str
    chat_model: str
    question: str
    state: str
    citations: tuple[str, ...]
    cpu_features: tuple[str, ...]
    seconds: float
    load_seconds: float = 0.0
    answer_seconds: float = 0.0

    def line(self) -> str:
        """The one-line report printed by ``lantern --self-test``."""
        cites = ", ".join(self.citations)
        cpu = " ".join(self.cpu_features) or "none reported"
        return (f"self-test ok: bundle {self.bundle} (corpus {self.corpus_version[:12]}, {self.chunks} chunks); "
                f"embedding {self.embedding_model}; chat {self.chat_model}; "
                f"question {self.question!r} -> {self.state} citing {cites}; "
                f"llama.cpp CPU features: {cpu}; {self.seconds:.1f} s "
                f"(open and load {self.load_seconds:.1f} s, answer {self.answer_seconds:.1f} s)")


def self_test_question(bundle) -> str:
    """A question the bundle must be able to answer: about the first subsection heading of its
    guides (a heading path of two levels or more), else the first heading, else a guide title."""
    rows = (bundle._query("SELECT heading FROM chunks WHERE heading LIKE '% › %' ORDER BY id LIMIT 1")
            or bundle._query("SELECT heading FROM chunks WHERE heading != '' ORDER BY id LIMIT 1"))
    if rows:
        topic = heading_leaf(rows[0][0])
    else:
        topic = bundle.sources()[0].title
    return f"What do the guides say about \"{topic}\"?"


def run_self_test(bundle_path: Path | None = None, *, embedder=None, llm=None,
                  cpu_features: tuple[str, ...] | None = None) -> SelfTestReport:
    """Open the bundle, load both models (unless given), answer one question with a citation.

    ``embedder`` and ``llm`` replace the real models (tests pass fakes); the chat model runs on
    the settings' threads, as in the app (:func:`app.assistant.build_assistant`). Raises
    :class:`LanternError` (one sentence) when any step fails: missing bundle or models, the
    embedding model not matching the bundle, or an answer without a checked citation.
    """
    from .answer.answerer import ContextBudget
    from .assistant import LOAD, build_assistant
    from .bundle.library import default_bundle
    from .bundle.reader import BundleReader
    from .errors import BundleError

    started = time.perf_counter()
    bundle_path = bundle_path or default_bundle()
    if bundle_path is None:
        raise BundleError("Self-test failed: no course bundle was given and none was found in corpus_bundle/; "
                          "pass --bundle FILE or set LANTERN_BUNDLE.")
    bundle = BundleReader(bundle_path)
    try:
        if embedder is None:  # loaded here, not by build_assistant, so that the report can name it
            from .assistant import load_embedder

            embedder = load_embedder()
        # No ``warn``: a model that cannot be loaded fails the self-test. Threads: the settings'.
        assistant = build_assistant(bundle, embedder=embedder, chat_model=llm if llm is not None else LOAD,
                                    budget=ContextBudget(answer_tokens=SELF_TEST_ANSWER_TOKENS))
        llm = assistant.llm
        if cpu_features is None:
            from .answer.llm import cpu_features as _cpu_features

            cpu_features = _cpu_features()
        loaded = time.perf_counter()
        retriever = assistant.retriever
        if retriever.degraded_reason:
            raise LanternError(f"Self-test failed: the embedding model cannot search this bundle "
                               f"({retriever.degraded_reason}).")
        from .formats.probe import build_docx_probe

        build_docx_probe(embedder)  # the installed app reads instructors' Word files (issue 26)
        question = self_test_question(bundle)
        answer = assistant.answer(question)
        if not answer.citations:
            raise LanternError(f"Self-test failed: the question {question!r} got the state {answer.state!r} "
                               "without a checked citation; rebuild the bundle or check the models.")
        return SelfTestReport(
            bundle=bundle.path.name, corpus_version=bundle.corpus_version, chunks=bundle.chunk_count(),
            embedding_model=f"{embedder.model_id} ({embedder.dim} dims)", chat_model=llm.name,
            question=question, state=answer.state,
            citations=tuple(f"[{p.n}] {p.hit.key}" for p in answer.citations),
            cpu_features=tuple(cpu_features), seconds=time.perf_counter() - started,
            load_seconds=loaded - started, answer_seconds=time.perf_counter() - loaded)
    finally:
        bundle.close()
