"""The one worker thread of the window: it loads the models and answers questions.

:class:`AssistantWorker` lives in a :class:`QThread` owned by the window. The window
talks to it only through queued signals (``load_requested``, ``ask_requested``) and the
stop flag, a :class:`threading.Event` it may set from any thread; the worker reports back
through its own signals. The assistant factory runs in the worker thread, so loading the
LLM (~1 s) and the embedder (~0.5 s) never blocks the window.

A worker that does not stop (a search that never returns, a model stuck in native code) cannot
be killed from Python: the window sets it aside (:func:`set_aside`), listens to it no more and
starts another, and :func:`exit_if_workers_stuck` ends the process when the app quits, so a stuck
worker never keeps a closed app running.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..answer.answerer import Assistant
from ..bundle.reader import BundleReader
from ..errors import LanternError
from .translation import details_words, tr

log = logging.getLogger(__name__)

#: ``report(text, warning=False)``: a factory's way to say what it is doing, or what went wrong.
Report = Callable[..., None]
AssistantFactory = Callable[..., Assistant]

#: Worker threads that did not stop when asked, with their worker and the bundle reader they use:
#: kept referenced (a QThread or QObject deleted while its thread runs aborts the process; a reader
#: closed under it would fail it) until the process ends.
_SET_ASIDE: list[tuple[QThread, QObject, object]] = []


def set_aside(thread: QThread, worker: QObject, reader: object = None) -> None:
    """Keep ``thread`` (and ``worker``, which lives in it, and ``reader``, which it reads) alive
    and parentless until the process ends, so closing its window deletes none of them under it.
    Asks the thread to end once its current slot returns. Raises nothing."""
    thread.setParent(None)
    thread.quit()
    _SET_ASIDE.append((thread, worker, reader))


def stuck_workers() -> int:
    """How many set-aside worker threads are still running."""
    return sum(1 for thread, _, _ in _SET_ASIDE if thread.isRunning())


def exit_if_workers_stuck(code: int) -> None:
    """End the process now with exit status ``code`` when a worker thread set aside is still
    running (after the log is flushed); return otherwise. Without this, a worker stuck in a loop
    keeps the process alive after its window closed, or Qt aborts deleting its running thread."""
    running = stuck_workers()
    if not running:
        return
    log.warning("%d assistant thread(s) did not stop; ending the process without waiting for them", running)
    logging.shutdown()  # flush and close the log file
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def load_assistant(bundle: BundleReader, model_path: Path | None, report: Report) -> Assistant:
    """The real assistant (:func:`app.assistant.build_assistant`) over ``bundle``, the worker's
    own reader of the course (the course switcher opens it with :meth:`BundleReader.reopen`; the
    window reads the guides through another): the bundle's embedding model and a chat GGUF
    (default: the settings' choice, else the manifest's), on the settings' number of CPU threads
    (0 = all cores but one).

    A missing or broken model is not fatal: it is reported (``warning=True``) and the assistant
    runs in the named degraded state (``keyword-only`` / ``search-only``). An embedding model
    that does not fit the bundle is not reported here: the window names it from the retriever.
    """
    from ..assistant import EMBEDDER_MISMATCH, NO_EMBEDDER, build_assistant, warm_up

    def warn(what: str, message: str) -> None:
        if what == EMBEDDER_MISMATCH:
            return
        log.warning("%s unavailable: %s", "embedding model" if what == NO_EMBEDDER else "chat model", message)
        report(message, warning=True)

    assistant = build_assistant(bundle, model_path=model_path, warn=warn, progress=report)
    warm_up(assistant)  # the first reply does not wait for what every reply needs
    return assistant


@dataclass(frozen=True)
class LoadedStatus:
    """What the window needs to know of the loaded assistant (the ``ready`` signal): the chat
    model's name ('' without one), the degraded states, and why search is keyword-only, if it is."""

    model_name: str
    degraded: tuple[str, ...]
    keyword_only_reason: str = ""

    @classmethod
    def of(cls, assistant: Assistant) -> LoadedStatus:
        """The status of ``assistant`` (a factory may return any object with ``answer``: what it
        lacks counts as no model name, nothing degraded)."""
        from ..answer.remote import engine_words  # names the lab's model engine when one is set

        return cls(engine_words(getattr(assistant, "model_name", ""), getattr(assistant, "engine", "")),
                   tuple(getattr(assistant, "degraded", ())),
                   getattr(getattr(assistant, "retriever", None), "degraded_reason", ""))


class AssistantWorker(QObject):
    """Owns the assistant; every slot runs in the worker thread.

    Signals: ``progress(str)`` a status note; ``warning(str)`` a one-sentence problem that
    does not stop the app; ``ready(object)`` a :class:`LoadedStatus` once the assistant is loaded; ``evidence_ready(object)``
    the extractive :class:`Answer` as soon as retrieval is done (before the model runs);
    ``sentence(str)`` one of the model's sentences that passed every check (never an unchecked token);
    ``finished(object)`` the final :class:`Answer`; ``failed(str)`` a one-sentence error
    (``LanternError``); ``crashed(str)`` a bug (the traceback is logged, the window shows a dialog).
    """

    progress = Signal(str)
    warning = Signal(str)
    ready = Signal(object)
    load_failed = Signal(str)
    evidence_ready = Signal(object)
    sentence = Signal(str)
    finished = Signal(object)
    failed = Signal(str)
    crashed = Signal(str)

    # requests from the window (queued into this thread)
    load_requested = Signal()
    ask_requested = Signal(str, list)

    def __init__(self, factory: AssistantFactory) -> None:
        super().__init__()
        self._factory = factory
        self.assistant: Assistant | None = None
        self.stop_flag = threading.Event()
        self.load_requested.connect(self.load)
        self.ask_requested.connect(self.ask)

    def _report(self, text: str, warning: bool = False) -> None:
        (self.warning if warning else self.progress).emit(text)

    @Slot()
    def load(self) -> None:
        """Build the assistant with the factory (``factory(report)`` or ``factory()``)."""
        try:
            takes_report = bool(inspect.signature(self._factory).parameters)
        except (TypeError, ValueError):
            takes_report = False
        try:
            self.assistant = self._factory(self._report) if takes_report else self._factory()
        except LanternError as exc:
            self.load_failed.emit(str(exc))
            return
        except Exception:  # a bug: log it, keep the app alive
            log.exception("loading the assistant failed")
            self.crashed.emit(tr("Loading the models failed unexpectedly; {details}.").format(details=details_words()))
            return
        self.ready.emit(LoadedStatus.of(self.assistant))

    @Slot(str, list)
    def ask(self, question: str, history: list) -> None:
        """Answer one question: the evidence at once, then verified sentences; stops between tokens
        once ``stop_flag`` is set."""
        if self.assistant is None:
            self.failed.emit(tr("The models are not loaded, so questions cannot be answered; see the message above."))
            return
        try:
            answer = self.assistant.answer(
                question, history,
                on_evidence=self.evidence_ready.emit,
                on_sentence=self.sentence.emit,
                should_stop=self.stop_flag.is_set)
        except LanternError as exc:
            self.failed.emit(str(exc))
            return
        except Exception:
            log.exception("answering a question failed")  # never the question: the log is on disk
            self.crashed.emit(tr("Answering failed unexpectedly; {details}.").format(details=details_words()))
            return
        self.finished.emit(answer)
